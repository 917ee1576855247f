/* SPDX-License-Identifier: MIT */
/*
 * Sampled call chains (perf record --call-graph): docs/design.md "Sampled
 * call chains". Consecutive samples of a thread are compared from the root; a
 * frame continues while its function and its caller's return address stay
 * the same, and ends at the first sample that lacks it, but no later than
 * one sampling period after the last sample that had it. The thread's stack
 * holds the frames of the last sample, root first, seen at seen_ts.
 *
 * Time that is not a function's: a hole of more than CONV_GAP_PERIODS
 * periods in which the thread is not known to be off the CPU (a ring that
 * wrapped, per-CPU buffers that reach back to different times) ends every
 * frame and is a "[no samples]" slice at the root, whether it follows a
 * sample or a switch in (before the thread's first sample, or in a thread
 * with no sample at all), but in a snapshot whose samples come from a ring
 * perf overwrote, before the thread's first sample in it, where it is a
 * "[before the oldest sample]" slice (the ring's older samples were
 * overwritten, or never taken while perf paused it: no hole of the thread's
 * sampling); time off the CPU (a
 * sched_switch sample or switch-out record until the switch-in, or the next
 * sample less one period) is an "[off-cpu]" slice under the stack the
 * thread left the CPU with.
 *
 * Measured calls (--measure, measured.c) are exact: each is a frame from
 * its entry to its return (docs/design.md "Measured calls"), taken in time
 * order before the sample (or switch) that follows them. A call nests under
 * the frames that sample shares with the stack (they ran all along), with
 * the callers that sample shows it under when it is still running then;
 * it stays, with what encloses it, until its return, whatever a sample
 * shows meanwhile (the sample's frames past the ones shared go inside it);
 * at its return the frames inside it end. Its entry and return show the
 * stack below it alive then (mseen), as a sample would. A sampled frame of
 * its function is a call that left unmeasured (an exception, a longjmp):
 * it ends by the entry, never enclosing it.
 */
#include "chain.h"

#include "array.h"
#include "chaincheck.h"
#include "funcs.h"
#include "measured.h"
#include "stack.h"
#include "threads.h"

#include <stdlib.h>
#include <string.h>

/* The median of T's recent sample spacings, or 0 without any. */
static uint64_t median_spacing(const struct conv_thread *t)
{
	uint64_t v[CONV_SPACINGS];
	size_t n = t->nspacing < CONV_SPACINGS ? t->nspacing : CONV_SPACINGS;

	memcpy(v, t->spacing, n * sizeof(v[0]));
	for (size_t i = 1; i < n; i++)	/* insertion sort: at most CONV_SPACINGS */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n ? v[n / 2] : 0;
}

/* When T's stack was last known: its last sample, or a measured call's
 * entry or return since. */
static uint64_t last_seen(const struct conv_thread *t)
{
	return t->mseen > t->seen_ts ? t->mseen : t->seen_ts;
}

/* When frames last seen at last_seen() end at the latest, given that the
 * thread is next seen at TS. */
static uint64_t frames_end(const struct conv *c, const struct conv_thread *t, uint64_t ts)
{
	uint64_t p = conv_thread_period(c, t), end = conv_add_sat(last_seen(t), p);

	return !t->seen || !p || end > ts ? ts : end;
}

/* 1 + the index of T's innermost measured call, 0 without one: the frames
 * below it stay until its return. */
static size_t measured_floor(const struct conv_thread *t)
{
	for (size_t i = t->depth; i > 0; i--)
		if (t->stack[i - 1].measured_end)
			return i;
	return 0;
}

/* Pops T's frames above depth K (never a measured call still running, nor
 * what encloses it) at END; the call that blocked in a system call and was
 * woken (T->woken), when nothing was seen of T since, at its wakeup (the
 * call returns then), unless frames inside it (a sample at the wakeup's
 * time) ran on past it: then at END with them. */
static void pop_at(struct conv *c, struct conv_thread *t, size_t k, uint64_t end)
{
	size_t floor = measured_floor(t);
	bool inner = false;	/* a frame above popped: it ran until END */

	while (t->depth > (k > floor ? k : floor)) {
		bool call = t->woken && t->depth - 1 == t->woken_depth;

		conv_stack_pop(c, t, call && !inner && last_seen(t) == t->woken_ts ? t->woken_ts : end);
		t->woken &= !call;
		inner = true;
	}
}

/* Pops T's frames above depth K as pop_at() does, at TS's frame end. */
static void pop_to(struct conv *c, struct conv_thread *t, size_t k, uint64_t ts)
{
	pop_at(c, t, k, frames_end(c, t, ts));
}

/* T is back from off the CPU at TS: its [off-cpu] slice ends there, and
 * the call that blocked in a system call was woken (T->woken). */
static void back_on_cpu(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	conv_offcpu_end(c, t, ts);
	if (!t->syscall_block)
		return;	/* back from a preemption: a woken call stays so */
	t->woken = t->woken_depth < t->depth;
	t->woken_ts = ts;
	t->syscall_block = false;
}

/* How many frames of FRAMES (N, innermost first) continue T's stack from
 * the root: the same function, called from the same return address. */
static size_t common_prefix(const struct conv_thread *t, const struct conv_site *frames, size_t n)
{
	size_t k = 0;

	/* frames[] is innermost first: root-first index i is frames[n - 1 - i]. */
	while (k < t->depth && k < n && t->stack[k].func == frames[n - 1 - k].func &&
	       (k == 0 || t->stack[k - 1].ip == frames[n - k].ip))
		k++;
	return k;
}

/* The root-first index from K up of FRAMES (N, innermost first) that is a
 * frame of measured function MFUNC, or N. */
static size_t find_measured(const struct conv *c, const struct conv_site *frames, size_t n,
			    size_t k, uint32_t mfunc)
{
	for (; k < n; k++) {
		const struct conv_site *f = &frames[n - 1 - k];

		if (conv_measured_frame(c, f->func, f->has_symoff ? f->ip - f->symoff : 0, mfunc))
			return k;
	}
	return n;
}

/* The root-first index from K up of FRAMES (N, innermost first) that is the
 * caller of a call of measured function MFUNC returning to CALLER (0: not
 * known; then a call site of it seen), at the call's return: frame pointers
 * hid its own frame; or N. */
static size_t find_callsite(const struct conv *c, const struct conv_site *frames, size_t n,
			    size_t k, uint32_t mfunc, uint64_t caller)
{
	for (; k < n; k++)
		if (conv_measured_callsite(c, &frames[n - 1 - k], mfunc, caller))
			return k;
	return n;
}

/* The root-first index below K of T's outermost frame of measured function
 * MFUNC that is no measured call, or K. Every call of it that returned is
 * measured: a sampled frame of it is a call that left by an exception or a
 * longjmp (or never returned), and encloses none of its measured calls. */
static size_t unmeasured_below(const struct conv *c, const struct conv_thread *t, size_t k,
			       uint32_t mfunc)
{
	for (size_t j = 0; j < k; j++)
		if (!t->stack[j].measured_end &&
		    conv_measured_frame(c, t->stack[j].func, t->stack[j].sym_start, mfunc))
			return j;
	return k;
}

/*
 * Whether the sample of FRAMES (N, innermost first), which shares K frames
 * with T's stack and follows measured call M's entry while it runs, shows
 * M's function (or, innermost, the [uprobes] page where its probe steps an
 * instruction out of line) at root-first index K, right where the stack
 * has M's caller, which frame pointers skipped (the function had not set
 * up its frame, or sets up none: the caller's return address was read as
 * its own): the stack's frame K may be M's caller by M's return address,
 * was called from where the sample's frame K - 1 is (the same call), and M
 * returns elsewhere than there (else that frame is its caller).
 */
static bool caller_skipped(const struct conv *c, const struct conv_thread *t, size_t k,
			   const struct conv_site *frames, size_t n, const struct conv_mcall *m)
{
	if (!k || k >= t->depth || k >= n || t->stack[k].measured_end)
		return false;
	if (find_measured(c, frames, n, k, m->mfunc) != k &&
	    !(k + 1 == n && conv_func_is_uprobes(frames[0].func)))
		return false;
	return frames[n - k].ip != m->caller && t->stack[k - 1].ip == frames[n - k].ip &&
	       conv_measured_caller_may_be(c, m, t->stack[k].func, t->stack[k].sym_start);
}

/* A list of frames, root first, as caller_in() reads it: the stack of a
 * thread or a sampled chain (innermost first, N of them). */
struct frames_view {
	const struct conv_thread *t;      /* the stack; NULL: CHAIN */
	const struct conv_site *chain;
	size_t n;
};

/* The root-first J-th frame of V as a site (a stack frame's symoff from
 * its symbol's start, when known). */
static struct conv_site view_site(const struct frames_view *v, size_t j)
{
	const struct conv_frame *f;

	if (!v->t)
		return v->chain[v->n - 1 - j];
	f = &v->t->stack[j];
	return (struct conv_site){ .ip = f->ip, .func = f->func, .has_symoff = f->sym_start != 0,
				   .symoff = f->sym_start ? f->ip - f->sym_start : 0 };
}

/*
 * 1 + the root-first index in [FROM, TO) of V's frame that makes measured
 * call M, whose return address (M->caller, known) lies in it, or 0 when
 * none of them may: the deepest frame at that very address (a call site of
 * M's function: its caller at the call's return), else the deepest frame of
 * the function that holds the address, by the function starts the frames
 * give (conv_measured_caller_may_be(): of M's binary, starting at or before
 * it, or the function of a call site learned there): of the functions that
 * start at or before the address, only the last to start can hold it
 * (functions do not overlap). A frame of it at another address (issue 24:
 * main at its call of usleep, whose sleep the stack still drew, when main
 * called the measured function next) is the caller all the same: at the
 * entry it is making this call, and what it called before returned. A
 * frame of M's own function is no such caller (a sample at its entry,
 * where the probe traps, before its frame is set up: frame pointers skip
 * its caller there) unless at the return address itself (a recursion).
 */
static size_t caller_in(const struct conv *c, const struct frames_view *v, size_t from, size_t to,
			const struct conv_mcall *m)
{
	size_t best = 0;
	uint64_t best_start = 0;

	for (size_t j = to; j-- > from;) {
		struct conv_site s = view_site(v, j);

		if (s.func && conv_measured_callsite(c, &s, m->mfunc, m->caller))
			return j + 1;
	}
	for (size_t j = to; j-- > from;) {
		struct conv_site s = view_site(v, j);
		uint64_t start = s.has_symoff && s.ip >= s.symoff ? s.ip - s.symoff : 0;

		if (s.func && conv_measured_caller_may_be(c, m, s.func, start) &&
		    !conv_measured_frame(c, s.func, start, m->mfunc) &&
		    (!best || start > best_start)) {
			best = j + 1;
			best_start = start;
		}
	}
	return best;
}

/* Pushes on T's empty stack at TS the frame a measured call with no known
 * callers goes under (CONV_CALLERS_UNKNOWN); it ends with that call. */
static void push_callers_unknown(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	static const char name[] = CONV_CALLERS_UNKNOWN;
	struct conv_site site = {
		.func = conv_func_get(c, (struct conv_span){ name, sizeof(name) - 1 },
				      (struct conv_span){ "", 0 }),
	};

	if (!site.func)
		return;   /* out of memory: c->nomem said */
	conv_stack_push(c, t, &site, NULL, ts);
	if (t->depth == 1)
		t->stack[0].ends_with_call = true;
}

/* Pushes on T at TS, for measured call M alone, the frame of its caller
 * its return address names (conv_measured_caller_site()) when the frame M
 * goes under is not of that function: no sample showed the caller there
 * (frame pointers skip it in every sample around a call made right after
 * a sleep in a library without them). It ends with the call. */
static void push_caller_named(struct conv *c, struct conv_thread *t,
			      const struct conv_mcall *m, uint64_t ts)
{
	const struct conv_frame *top = t->depth ? &t->stack[t->depth - 1] : NULL;
	size_t depth = t->depth;
	struct conv_site site;

	if (!conv_measured_caller_site(c, m, &site) ||
	    (top && top->func == site.func))
		return;
	conv_stack_push(c, t, &site, NULL, ts);
	if (t->depth > depth)	/* else out of memory: c->nomem said */
		t->stack[t->depth - 1].ends_with_call = true;
}

/* The number of V's N frames (root first) up to its last frame of a
 * function of measured call M's binary or of a root function (a thread's
 * start), 0 when none: what may lie below M's caller where no frame shows
 * it. */
static size_t binary_floor(const struct conv *c, const struct frames_view *v, size_t n,
			   const struct conv_mcall *m)
{
	for (size_t d = n; d-- > 0;) {
		const struct conv_func *f = view_site(v, d).func;

		if (f && (f->root || conv_measured_in_binary(c, m->mfunc, f)))
			return d + 1;
	}
	return 0;
}

/* Measured call M of T begins: under the frames FRAMES (N, innermost
 * first: the sample at TS that follows, NULL at the end) share with the
 * stack, with the callers that sample shows it under when it still runs
 * then. FLOOR_TS: no frame of T begins before it. */
static void measured_entry(struct conv *c, struct conv_thread *t, const struct conv_mcall *m,
			   uint64_t ts, const struct conv_site *frames, size_t n, uint64_t floor_ts)
{
	const struct conv_mfunc *mf = &c->mfuncs[m->mfunc];
	struct conv_site site = { .ip = mf->vaddr, .func = mf->func, .has_symoff = true }, named;
	uint64_t at = m->entry > floor_ts ? m->entry : floor_ts;
	size_t k, i, upto, j;

	/* at a switch record, with nothing known below it: the sample these
	 * records come before is the one that follows (its callers, when it
	 * shows the call; never "[callers unknown]" with them left out) */
	if (!frames && !t->depth && c->ahead_t == t) {
		frames = c->ahead;
		n = c->nahead;
		ts = c->ahead_ts;
	}
	k = frames ? common_prefix(t, frames, n) : t->depth;
	i = n;
	conv_measured_name_caller(c, m);

	/* a call of it that left unmeasured ends by this one's entry */
	k = unmeasured_below(c, t, k, m->mfunc);
	if (frames && m->ret >= ts && caller_skipped(c, t, k, frames, n, m))
		k++;
	/* where its caller resumes known (the calls file's CALLER, a slow
	 * call's "caller"): at the entry the stack is the caller's frame and
	 * the call, so a frame the stack has above the caller's (a callee of
	 * an earlier call the samples showed, frame pointers hiding the call
	 * itself, or an earlier call of the caller's still drawn: a sleep) ends
	 * there; and the caller's frame is there, with those below it, even
	 * where the sample that follows does not show it (frame pointers skip
	 * it: a sample in the [uprobes] page, where the return probe steps the
	 * call's ret out of line, reads the caller's return address as the
	 * measured function's) */
	if (m->caller && (j = caller_in(c, &(struct frames_view){ .t = t }, 0, t->depth, m)))
		k = j;
	else
		j = 0;
	pop_to(c, t, k, at);
	k = upto = t->depth;
	if (m->caller && !j && frames && m->ret < ts) {
		/* its caller not on the stack (frame pointers hid it in the
		 * samples before: one in strtoll showed no main), but in the
		 * sample that follows, past the frames shared: with the
		 * frames below it, from the entry (they enclose the call) */
		j = caller_in(c, &(struct frames_view){ .chain = frames, .n = n }, k, n, m);
		upto = j ? j : k;
	} else if (m->ret >= ts) {
		i = find_measured(c, frames, n, k, m->mfunc);
		upto = i;
		/* its frame hidden (frame pointers): its caller, by a call site seen */
		if (i == n)
			upto = find_callsite(c, frames, n, k, m->mfunc, m->caller) + 1;
		if (upto > n)
			upto = k;
	}
	if (m->caller && !j && (!frames || m->ret < ts) && conv_measured_caller_site(c, m, &named)) {
		/* its caller on no frame, named by its return address
		 * (push_caller_named()): frame pointers skip a caller right
		 * below the library code it called (a sleep), so the library's
		 * frames above the stack's last frame of the caller's binary
		 * (or root) are its callees, which returned by the entry */
		pop_to(c, t, binary_floor(c, &(struct frames_view){ .t = t }, t->depth, m), at);
		k = upto = t->depth;
		/* nothing known below it (switch records before the thread's
		 * first sample): the sample that follows, up to its last frame
		 * of the caller's binary or a root, as the stack's are kept;
		 * not its leaf (where it ran, not a call it was making), nor a
		 * frame of the function measured or past one (a later call) */
		if (!k && frames && n > 1)
			upto = binary_floor(c, &(struct frames_view){ .chain = frames + 1, .n = n - 1 },
					    find_measured(c, frames + 1, n - 1, 0, m->mfunc), m);
	}
	for (size_t j = k; j < upto; j++)
		conv_stack_push(c, t, &frames[n - 1 - j], NULL, at);
	if (i < n)
		site = frames[n - 1 - i];
	if (!t->depth && !site.func->root)
		push_callers_unknown(c, t, at);
	/* a frame of the stack or of the sample that follows is its caller:
	 * it goes where that frame is, inside what stays above it (a measured
	 * call that tail-called it, measured until its caller resumes) */
	if (!j)
		push_caller_named(c, t, m, at);
	conv_stack_push_measured(c, t, &site, m, at);
	t->seen = true;
	t->mseen = at;
}

/* The measured calls of T that begin or end up to TS (the sample of
 * FRAMES, N innermost first, that follows them), in time order. */
static void measured_upto(struct conv *c, struct conv_thread *t, uint64_t ts,
			  const struct conv_site *frames, size_t n)
{
	/* a thread's first sample of a segment: nothing of it is drawn earlier */
	uint64_t floor_ts = t->seen ? last_seen(t) : ts;

	if (!c->nmcalls)
		return;
	if (!t->mlooked)
		conv_measured_thread(c, t);
	for (;;) {
		size_t floor = measured_floor(t);
		uint64_t r = floor ? t->stack[floor - 1].measured_end : UINT64_MAX;
		const struct conv_mcall *m = t->mnext < t->mend ? &c->mcalls[t->mnext] : NULL;

		if (m && m->ret < floor_ts) {	/* before what the trace shows of T */
			t->mnext++;
			continue;
		}
		if (r <= ts && (!m || r <= m->entry)) {
			/* it returns: what it holds ends by then, and it then (and
			 * the frame of its unknown callers with it) */
			pop_to(c, t, floor, r);
			conv_stack_pop(c, t, r);
			while (t->depth && t->stack[t->depth - 1].ends_with_call)
				conv_stack_pop(c, t, r);
			t->mseen = floor_ts = r;
			continue;
		}
		if (!m || m->entry > ts)
			return;
		t->mnext++;
		measured_entry(c, t, m, ts, frames, n, floor_ts);
		floor_ts = t->mseen;
	}
}

/*
 * T is seen on the CPU at TS: ends an [off-cpu] slice whose switch-in is
 * missing, then a hole longer than CONV_GAP_PERIODS periods becomes
 * "[no samples]". Without switch-in records (only sched_switch samples)
 * the thread came back within one period before TS (the sampling event
 * carries its period across a switch): the [off-cpu] slice ends there.
 * With switch records (perf records switches in and out alike), this one
 * was lost (a ring buffer that wrapped, per-CPU rings
 * reaching back to different times): when it came back is not known, so
 * the [off-cpu] slice ends where it began (it left the CPU there, for how
 * long is not known), and a longer hole is "[no samples]" from there, its
 * frames ending there too. Else the hole starts one period after the stack
 * was last seen (its frames run that long), or where the thread was seen
 * without one (a switch in with no stack known).
 */
static void on_cpu(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	uint64_t p = conv_thread_period(c, t), from, back = 0;
	bool lost_in = false, before;

	if (t->offcpu_open) {
		uint64_t since = t->offcpu_since;

		lost_in = c->switch_records;
		back = lost_in ? since : ts > p ? ts - p : 0;
		back = back > ts ? ts : back > since ? back : since;
		back_on_cpu(c, t, back);
		t->seen = true;
		t->seen_ts = back;
		t->seen_switch = false;
	}
	if (!t->seen || !p || p > UINT64_MAX / CONV_GAP_PERIODS ||
	    ts - last_seen(t) <= CONV_GAP_PERIODS * p)
		return;
	/* < ts: the hole is longer; at least BACK, after the [off-cpu] slice */
	from = t->depth && !lost_in ? last_seen(t) + p : last_seen(t);
	pop_at(c, t, 0, from);
	t->spacing_from = false;	/* the hole is no sampling period */
	/* before its first sample in a ring's snapshot: samples of it there
	 * were overwritten (or never taken, perf's pause): not a hole */
	before = c->snap_ring && t->sampled_input != c->input_no;
	conv_emit_slice_begin(c, t, before ? c->s_before_samples : c->s_nosamples, from, NULL, 0);
	conv_emit_end(c, t, before ? c->s_before_samples : c->s_nosamples, ts);
	*(before ? &t->unsampled_ns : &t->nosamples_ns) += ts - from;
}

/* How many of T's frames below FLOOR (from K up) FRAMES (N, innermost
 * first) shows in place, each at its depth: the same function, a measured
 * call by its function's frame (whose ip it takes: in recursion the frame
 * at its depth, not the first of its function). */
static size_t continued(const struct conv *c, struct conv_thread *t,
			const struct conv_site *frames, size_t n, size_t k, size_t floor)
{
	for (; k < floor && k < n; k++) {
		struct conv_frame *s = &t->stack[k];
		const struct conv_site *f = &frames[n - 1 - k];

		if (s->func != f->func &&
		    !(s->measured_end && conv_measured_frame(c, f->func,
							     f->has_symoff ? f->ip - f->symoff : 0,
							     s->mfunc)))
			break;
		s->ip = f->ip;
	}
	return k;
}

/* Makes FRAMES (N, innermost first) T's stack at TS, by common prefix; with
 * NEW_CALL the frame that blocked in a system call before (T->woken_depth)
 * is not continued: it made a new call. A measured call still running
 * stays, with what encloses it: the sample's frames past the ones shared go
 * inside it (past its own frame when the sample shows it; frame pointers
 * may hide it). */
static void set_stack(struct conv *c, struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n, bool new_call)
{
	size_t k = common_prefix(t, frames, n), floor = measured_floor(t), from, keep;

	if (new_call && t->woken_depth < k)
		k = t->woken_depth;
	from = keep = k;
	if (k < floor) {
		uint32_t mfunc = t->stack[floor - 1].mfunc;
		size_t i = continued(c, t, frames, n, k, floor);

		if (i == floor) {
			from = floor;	/* the sample shows each frame up to it, in place */
		} else if (i + 1 == floor && i &&
			   conv_measured_callsite(c, &frames[n - i], mfunc,
						  t->stack[floor - 1].measured_caller)) {
			from = i;	/* in place up to its caller: frame pointers hid it */
		} else if ((i = find_measured(c, frames, n, k, mfunc)) < n) {
			t->stack[floor - 1].ip = frames[n - 1 - i].ip;
			from = i + 1;
		} else if ((i = find_callsite(c, frames, n, k, mfunc,
					      t->stack[floor - 1].measured_caller)) < n) {
			from = i + 1;	/* its callers (frame pointers hid it): not inside it */
		}
		/* the frames inside it that the sample's continue */
		for (keep = floor; keep < t->depth && from < n &&
		     t->stack[keep].func == frames[n - 1 - from].func; keep++, from++)
			t->stack[keep].ip = frames[n - 1 - from].ip;
	}
	pop_to(c, t, keep, ts);
	for (size_t i = from; i < n; i++)
		conv_stack_push(c, t, &frames[n - 1 - i], NULL, ts);
	/* Continuing frames take this sample's addresses (leaf ip may move). */
	for (size_t i = 0; i < k; i++)
		t->stack[i].ip = frames[n - 1 - i].ip;
	t->seen = true;
	t->seen_ts = ts;
	t->seen_switch = false;
}

/* Whether F is a recording's trigger function (record.json's symbol): the
 * one whose instructions the slow-call trigger probes. */
static bool probed_func(const struct conv *c, const struct conv_func *f)
{
	for (size_t k = 0; k < c->nrecs; k++) {
		const char *sym = c->recs[k]->trigger_symbol;

		if (sym && *sym && !f->unknown && strlen(sym) == f->symlen &&
		    !memcmp(sym, f->key, f->symlen))
			return true;
	}
	return false;
}

/*
 * A chain cut at a probe (FRAMES, N, innermost first): its outermost frame
 * in the [uprobes] page (the thread was single-stepping a probed
 * instruction out of line, and an unwinder from the stack copy, dwarf,
 * cannot pass that page), or taken in a breakpoint trap before the probe's
 * handler ran (conv_chain_trap_frame: the frames past the trapped one are
 * not its callers, and are dropped). The instruction is the trigger
 * function's (its entry or a return): the frames go on top of its
 * innermost open frame (those above it have returned; a trapped frame of
 * that function is that frame), else on top of T's open stack (an earlier
 * such sample's [uprobes] frames there give way); never as a root: with no
 * frame open they are left out. Returns whether FRAMES was such a chain.
 */
static bool uprobe_cut(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n)
{
	size_t base = t->depth, same = 0, k;   /* K: the outermost frame kept */

	if (!n || !frames[n - 1].func)
		return false;
	if (conv_func_is_uprobes(frames[n - 1].func))
		k = n - 1;
	else if ((k = conv_chain_trap_frame(frames, n)) == n)
		return false;
	while (base && !probed_func(c, t->stack[base - 1].func))
		base--;
	if (!base)
		base = t->depth;
	while (base && conv_func_is_uprobes(t->stack[base - 1].func))
		base--;
	if (base && t->stack[base - 1].func == frames[k].func)
		base--;
	/* the frames of an earlier such sample this one continues */
	while (base && base + same < t->depth && same <= k &&
	       t->stack[base + same].func == frames[k - same].func)
		same++;
	pop_to(c, t, base + same, ts);
	for (size_t i = same; base && i <= k; i++)
		conv_stack_push(c, t, &frames[k - i], NULL, ts);
	t->seen = true;
	t->seen_ts = ts;
	t->seen_switch = false;
	return true;
}

/* T's first event in the next of the files given in a row, at TS: the
 * frames it had when the file before ended end by TS at the latest (what
 * came between the two is not known: timeline.h TIMELINE_FILE). */
static void close_pending(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (t->close_pending)
		conv_chain_close(c, t, ts, false);
}

/* Whether a frame of FRAMES past the first (N) is a thread root. */
static bool root_past_first(const struct conv_site *frames, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (frames[i].func && frames[i].func->root)
			return true;
	return false;
}

/* The frames of FRAMES (N, innermost first) of thread T up to its innermost
 * thread root (conv_func.root), that one included: one unwinder stops at
 * __libc_start_call_main or start_thread where another (dwarf, from a
 * stack copy) goes on to _start or clone3, and a thread's samples taken
 * both ways would otherwise alternate between two stacks from the bottom
 * up, cutting every frame into a slice per sample (trial 11: the demo's
 * main in 193 slices). A root as the innermost frame, with frames past it,
 * is where the thread is, not where it started, when a root lies further
 * out, the thread's stack has another root, or it is a new thread's entry
 * (clone3) in a process's main thread: pthread_create's clone3 in the
 * thread that creates one (trial 13: the demo's main thread drawn as a
 * root clone3 with its callers lost). A new thread's return from clone3
 * is the thread's start: its root. */
static size_t to_root(const struct conv_thread *t, const struct conv_site *frames, size_t n)
{
	const struct conv_func *first = n ? frames[0].func : NULL,
			       *base = t->depth ? t->stack[0].func : NULL;
	size_t from = n > 1 && first && first->root &&
		      (root_past_first(frames, n) || (base && base->root && base != first) ||
		       (first->thread_entry && t->tid == t->pid));

	for (size_t i = from; i < n; i++)
		if (frames[i].func && frames[i].func->root)
			return i + 1;
	return n;
}

/* conv_chain_sample() for FRAMES already cut to their root (to_root). */
static void sample_at(struct conv *c, struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n, uint64_t period_ns, bool callchain)
{
	close_pending(c, t, ts);
	if (t->spacing_from && ts > t->seen_ts && !t->offcpu_open)
		t->spacing[t->nspacing++ % CONV_SPACINGS] = ts - t->seen_ts;
	t->period_ns = period_ns ? period_ns : median_spacing(t);
	if (!c->period_ns)	/* any thread's, until the recording tells */
		c->period_ns = t->period_ns;
	if (c->nmfuncs)
		conv_measured_learn(c, frames, n);
	measured_upto(c, t, ts, frames, n);
	on_cpu(c, t, ts);
	if (!uprobe_cut(c, t, ts, frames, n))
		set_stack(c, t, ts, frames, n, false);
	t->spacing_from = true;
	t->sampled_input = c->input_no;
	t->nsamples++;
	c->stats.samples++;
	conv_chaincheck_count(c, t, frames, n, callchain);
}

/* conv_chain_switch_out() for FRAMES already cut to their root (to_root). */
static void switch_out_at(struct conv *c, struct conv_thread *t, uint64_t ts,
			  const struct conv_site *frames, size_t n, const struct conv_offcpu *off)
{
	bool syscall_block = off->in_syscall && !off->preempted;

	close_pending(c, t, ts);
	if (t->offcpu_open)
		return;	/* the sched_switch sample, then the switch-out record */
	if (c->nmfuncs)
		conv_measured_learn(c, frames, n);
	measured_upto(c, t, ts, frames, n);
	on_cpu(c, t, ts);
	if (n) {
		/* blocked in a system call again after a wakeup: the call that
		 * blocked before returned, this is a new one (same stack or not) */
		if (!uprobe_cut(c, t, ts, frames, n))
			set_stack(c, t, ts, frames, n, t->woken && syscall_block);
		conv_chaincheck_count(c, t, frames, n, true);
	} else {
		pop_to(c, t, 0, ts);
	}
	/* the innermost user frame made the system call (a sched_switch chain
	 * is its user part); a preemption (or a block in no system call) leaves
	 * a woken call woken: it may return after it, and a block in a system
	 * call of that frame after it is still a new call */
	t->syscall_block = n && syscall_block;
	if (syscall_block) {
		t->woken = false;
		t->woken_depth = t->depth - 1;
	}
	conv_offcpu_begin(c, t, ts, off);
	t->spacing_from = false;
}

static void switch_in_at(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	close_pending(c, t, ts);
	if (t->offcpu_open)
		back_on_cpu(c, t, ts);
	else if (t->seen)
		return;	/* on the CPU since it was seen: its switch out was lost */
	t->seen = true;
	t->seen_ts = ts;
	t->seen_switch = true;
}

void conv_chain_close(struct conv *c, struct conv_thread *t, uint64_t ts, bool past_ts)
{
	uint64_t end;

	conv_chain_release(c, t);
	if (t->offcpu_open) {	/* off the CPU until TS: the frames too */
		conv_offcpu_end(c, t, ts);
		t->seen_ts = ts;
		t->seen_switch = true;
		t->syscall_block = false;
	}
	/* The last sample's frames ran for its period, TS being its time; frames
	 * last known off the CPU or at the switch back in end with that (issue
	 * 24, trial 14: they ran a period past their last [off-cpu] child) */
	end = past_ts && !(t->seen_switch && t->mseen <= t->seen_ts) ?
		conv_add_sat(t->seen_ts > ts ? t->seen_ts : ts, conv_thread_period(c, t)) :
		past_ts && t->seen_ts > ts ? t->seen_ts : ts;
	/* the measured calls that return by then; those still running end with the rest */
	if (t->seen)
		measured_upto(c, t, end, NULL, 0);
	pop_to(c, t, 0, end);
	while (t->depth)
		conv_stack_pop(c, t, end > last_seen(t) ? end : last_seen(t));
	t->seen = false;
	t->spacing_from = false;
	t->woken = false;
	t->close_pending = false;
}

/* Whether T may hold a chain at TS (hold_loop(), hold_leaf()): it has open
 * frames to place it under and nothing else is pending: no [off-cpu] open,
 * no hole since. */
static bool may_hold(const struct conv *c, const struct conv_thread *t, uint64_t ts)
{
	uint64_t p = conv_thread_period(c, t);

	return t->depth >= 2 && t->seen && !t->offcpu_open && !t->close_pending && p &&
	       ts >= last_seen(t) && ts - last_seen(t) <= CONV_GAP_PERIODS * p;
}

/* Holds FRAMES (N, innermost first) of T's sample or switch at TS, a
 * frameless leaf's sharing SHARED frames with T's open ones when LEAF (else
 * a chain cut at a loop), until T's next event (place_loop()). Returns
 * false when out of memory: the chain is then drawn as it is. */
static bool hold(struct conv_thread *t, uint64_t ts, const struct conv_site *frames, size_t n,
		 bool leaf, size_t shared)
{
	if (array_reserve((void **)&t->loop, &t->caploop, n, sizeof(*t->loop)))
		return false;
	memcpy(t->loop, frames, n * sizeof(*frames));
	t->nloop = n;
	t->loop_ts = ts;
	t->loop_in = t->loop_switch = false;	/* a switch's hold sets it after */
	t->loop_leaf = leaf;
	t->loop_shared = shared;
	t->loop_held = true;
	return true;
}

/*
 * A chain cut at a loop (docs/design.md "A chain cut at a loop"): FRAMES
 * (N, innermost first, cut to their root) end at conv_chain_clean()'s
 * marker, every frame inside it named: the unwinder lost the callers of a
 * function that keeps no frame pointer (glibc's clone3). Such a chain is
 * held (T->loop...) when T has open frames to place it under and nothing
 * else is pending: no [off-cpu] open, no hole since, no measured call.
 */
static bool hold_loop(struct conv *c, struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n)
{
	if (n < 2 || !frames[n - 1].func || !conv_func_is_loop(frames[n - 1].func) ||
	    c->nmfuncs || !may_hold(c, t, ts))
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (!frames[i].func || frames[i].func->unknown)
			return false;
	return hold(t, ts, frames, n, false, 0);
}

/* Whether functions A and B are of one binary (the dso perf names). */
static bool same_binary(const struct conv_func *a, const struct conv_func *b)
{
	return a->dsolen == b->dsolen && !memcmp(a->key + a->symlen, b->key + b->symlen, a->dsolen);
}

/* The number of kernel frames that begin FRAMES (N, innermost first). */
static size_t kernel_head(const struct conv_site *frames, size_t n)
{
	size_t u = 0;

	while (u < n && frames[u].ip >= CONV_KERNEL_START)
		u++;
	return u;
}

/*
 * Whether LEAF, the innermost user frame of T's sample (LEAF[1] its
 * caller's), is one whose frame-pointer chain skipped its caller, T's open
 * frame SKIPPED: one whose frame is not set up where it ran
 * (conv_site_frame(): its first instructions, its ret; its function sets
 * one up elsewhere), the one rule where SKIPPED is NULL (no open frame to
 * compare with); or, where its binary's CFI does not tell, a leaf of
 * another binary (a library's that sets up no frame pointer). A leaf whose
 * frame is set up where it ran skipped nothing: the program's demo_inner
 * mid-body after a sample in libm's cos (which hid it) went on cos when the
 * next chain showed cos again, drawn as the caller of its own caller
 * (issue 24's trial: 186 parse > clock_gettime > now in a 2.5 s attach). A
 * leaf of the same binary that never sets one up (gcc 12's frameless leaf)
 * is not: the README's "shows under its caller's caller".
 */
static bool leaf_skips(struct conv *c, const struct conv_site *leaf,
		       const struct conv_func *skipped)
{
	enum fdetab_frame f = conv_site_frame(c, leaf);

	return f == FDETAB_FRAME_UNSET ||
	       (f == FDETAB_FRAME_UNKNOWN && skipped && !same_binary(leaf->func, skipped));
}

/* Whether T has no open frames that a sample at TS may continue: none, or
 * those before a hole in its samples (on_cpu() ends them). */
static bool nothing_open(const struct conv *c, const struct conv_thread *t, uint64_t ts)
{
	uint64_t p = conv_thread_period(c, t);

	return !t->offcpu_open && !t->close_pending && p &&
	       (!t->seen || !t->depth ||
		(ts >= last_seen(t) && ts - last_seen(t) > CONV_GAP_PERIODS * p));
}

/* Adds T's sample at TS of FRAMES (N, innermost first; HEAD: its kernel
 * frames and its leaf) to its held leaf's run (leaf_again()). Returns
 * false when out of memory. */
static bool add_leaf(struct conv_thread *t, uint64_t ts, const struct conv_site *frames, size_t n,
		     size_t head, uint64_t period_ns, bool callchain)
{
	if (array_reserve((void **)&t->loop, &t->caploop, t->nloop + n, sizeof(*t->loop)) ||
	    array_reserve((void **)&t->leaves, &t->capleaves, t->nleaves + 1, sizeof(*t->leaves)))
		return false;
	memcpy(t->loop + t->nloop, frames, n * sizeof(*frames));
	t->leaves[t->nleaves++] = (struct conv_held_leaf){ .ts = ts, .period_ns = period_ns,
							   .at = t->nloop, .n = n, .head = head,
							   .callchain = callchain };
	t->nloop += n;
	return true;
}

/*
 * A frameless leaf's skipped caller (docs/design.md): the sample of FRAMES
 * (N, innermost first, cut to their root; its kernel frames first) shares
 * all but its innermost user frame, the leaf, with T's open frames, which
 * have another frame there, and the leaf's chain returns where that frame
 * does (the return address the stack's frame below it has: the skipped
 * frame's own, read as the leaf's). A library's leaf that sets up no frame
 * pointer (the vDSO's clock_gettime, libc's __nanosleep after a sleep), or
 * a function sampled before it set up its frame or after it took it down
 * (leaf_skips()), reads its caller's return address at [rbp + 8], where rbp
 * is the frame of the last function that set one up: that function (main)
 * and the frameless ones between it and the leaf are missing from the
 * chain. Such a sample is held until T's next call chain says whether that
 * frame ran on (place_leaf()), with the samples of the same chain that
 * follow it (leaf_again()). Not while a measured call runs above the frames
 * shared: it stays whatever a sample shows (set_stack()), nor for a frame
 * in the [uprobes] page or a loop's marker (their own rules). With no open
 * frame to compare with (the thread's first sample, the first after a
 * hole, none shared), a leaf whose frame is not set up is held all the
 * same (shared 0): the next chain alone tells what it skipped.
 */
static bool hold_leaf(struct conv *c, struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n, uint64_t period_ns, bool callchain)
{
	size_t u = kernel_head(frames, n), nu = n - u, k;
	const struct conv_site *user = frames + u;
	const struct conv_func *leaf = nu ? user->func : NULL;

	if (nu < 2 || !leaf || conv_func_is_uprobes(leaf) || conv_func_is_loop(leaf))
		return false;
	k = common_prefix(t, user, nu);
	if (k && k + 1 == nu && k < t->depth && user[1].ip == t->stack[k - 1].ip &&
	    measured_floor(t) <= k && may_hold(c, t, ts) && leaf_skips(c, user, t->stack[k].func))
		;
	else if (!c->nmfuncs && (!k || nothing_open(c, t, ts)) && leaf_skips(c, user, NULL))
		k = 0;
	else
		return false;
	if (!hold(t, ts, frames, n, true, k) ||
	    array_reserve((void **)&t->leaves, &t->capleaves, 1, sizeof(*t->leaves))) {
		t->loop_held = false;
		return false;
	}
	t->leaves[0] = (struct conv_held_leaf){ .ts = ts, .period_ns = period_ns, .n = n,
						.head = u + 1, .callchain = callchain };
	t->nleaves = 1;
	return true;
}

/*
 * Whether T's sample of FRAMES (N, innermost first, cut to their root) at
 * TS goes on with T's held leaf's run (hold_leaf()): the same user frames
 * past the leaf, function and address, a leaf of the same function that
 * skipped the same frame, no measured calls (their entries and returns
 * come in time between the samples), fewer than CONV_LEAF_RUN_MAX held. A
 * function with a short body sampled at its ret, its prologue, its ret
 * again: each such sample is held with the first, so that the next chain
 * places them all; across a hole in the samples too (a preemption under
 * load), which the run's samples then show as any sample does: the leaf
 * returns where the skipped frame was called, so that frame holds it on
 * both sides. Then it is added to the run (false when out of memory: the
 * run is placed).
 */
static bool leaf_again(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns, bool callchain)
{
	const struct conv_held_leaf *first = t->leaves;
	const struct conv_site *past = t->loop + first->head;	/* the first's frames past its leaf */
	size_t u = kernel_head(frames, n), npast = first->n - first->head;

	if (!t->loop_held || !t->loop_leaf || c->nmfuncs || t->nleaves >= CONV_LEAF_RUN_MAX ||
	    n - u != npast + 1 || frames[u].func != past[-1].func || ts < t->leaves[t->nleaves - 1].ts)
		return false;
	for (size_t i = 0; i < npast; i++)
		if (frames[u + 1 + i].func != past[i].func || frames[u + 1 + i].ip != past[i].ip)
			return false;
	return leaf_skips(c, frames + u, t->loop_shared ? t->stack[t->loop_shared].func : NULL) &&
	       add_leaf(t, ts, frames, n, u + 1, period_ns, callchain);
}

/*
 * The frames, innermost first, that T's held leaf (hold_leaf()) goes on,
 * given T's next chain NEXT (NN frames, innermost first, cut to their
 * root): into BASE, their number returned; 0 when NEXT does not show the
 * frame the leaf's chain skipped. With open frames (T->loop_shared of them
 * shared): NEXT continues the open frame the leaf's chain skipped (the
 * frames shared and that one: function and caller's return address,
 * common_prefix()): that frame was on the stack all along, and the leaf
 * goes on it; or on the deepest frame of the leaf's function that NEXT
 * continues past it (libc's __nanosleep, under usleep, after the sleep's
 * system call returned), which it is. Without (shared 0): NEXT has the
 * held chain's frames past the leaf, function and address, then a user
 * frame of another function than the leaf's: the one the held chain
 * skipped (its caller's return address the leaf's); the leaf goes on it.
 * BASE holds T's depth or the held chain's frames.
 */
static size_t leaf_place(const struct conv_thread *t, const struct conv_site *next, size_t nn,
			 struct conv_site *base)
{
	const struct conv_held_leaf *first = t->leaves;
	const struct conv_site *past = t->loop + first->head, *x;
	size_t k = next ? common_prefix(t, next, nn) : 0, s = t->loop_shared, j = k, below;
	size_t m = first->n - first->head;

	if (!s) {	/* the next chain alone tells */
		if (!next || nn <= m || (x = &next[nn - 1 - m])->func == past[-1].func ||
		    x->ip >= CONV_KERNEL_START)
			return 0;
		for (size_t i = 0; i < m; i++)
			if (next[nn - m + i].func != past[i].func || next[nn - m + i].ip != past[i].ip)
				return 0;
		base[0] = *x;
		memcpy(base + 1, past, m * sizeof(*base));
		return m + 1;
	}
	if (k <= s || s >= t->depth)
		return 0;
	while (j > s + 1 && t->stack[j - 1].func != past[-1].func)
		j--;
	below = j > s + 1 ? j - 1 : s + 1;	/* the frames the leaf goes on */
	for (size_t i = 0; i < below; i++)
		base[below - 1 - i] = view_site(&(struct frames_view){ .t = t }, i);
	return below;
}

/*
 * Draws T's held samples of a frameless leaf (hold_leaf(), leaf_again())
 * before NEXT (NN frames, innermost first, cut to their root; NULL: T's
 * next event has no chain): each sample's kernel frames and leaf on the
 * frames leaf_place() finds, else as it is. The frames between the skipped
 * one and the leaf (frameless ones) are not known: frames of the stack
 * above the skipped one end there.
 */
static void place_leaf(struct conv *c, struct conv_thread *t, const struct conv_site *next,
		       size_t nn)
{
	size_t head = 0, nb = t->depth > t->nloop ? t->depth : t->nloop;
	struct conv_site *base, *placed = NULL;

	for (size_t i = 0; i < t->nleaves; i++)
		head = t->leaves[i].head > head ? t->leaves[i].head : head;
	base = malloc((head + nb) * sizeof(*base));
	nb = base ? leaf_place(t, next, nn, base + head) : 0;
	if (!base)
		c->nomem = true;
	t->loop_held = false;
	for (size_t i = 0; i < t->nleaves; i++) {
		const struct conv_held_leaf *l = &t->leaves[i];
		const struct conv_site *frames = t->loop + l->at;
		size_t n = l->n;

		if (nb) {	/* its head, then BASE's frames */
			placed = base + head - l->head;
			memcpy(placed, frames, l->head * sizeof(*placed));
			frames = placed;
			n = l->head + nb;
		}
		sample_at(c, t, l->ts, frames, n, l->period_ns, l->callchain);
	}
	t->nleaves = 0;
	free(base);
}

/*
 * Draws T's held chain cut at a loop (hold_loop), before NEXT (NN frames,
 * innermost first, cut to their root; NULL: T's next event has no chain).
 * The open frames (the sample before) that NEXT continues, function and
 * caller's return address (common_prefix), were on the stack all that
 * time: the held chain's named frames go under them, in place of the loop
 * marker. The innermost of them is left out when it is either sample's
 * leaf (its address there is where it ran, not a call it was making: it
 * may have returned and been called again). With no such frame, a new
 * thread's entry (clone3) held in a process's main thread, which is
 * pthread_create's and never the thread's start, goes under the thread's
 * start that NEXT ends in (its root: __libc_start_call_main), as the
 * thread's root slice, not a [call chain cut] one (issue 24: the main
 * thread's samples before were ld.so's start, _dl_start, which no later
 * chain continues). Else, or with no next chain, the held chain is drawn
 * as it is.
 */
static void place_loop(struct conv *c, struct conv_thread *t, const struct conv_site *next,
		       size_t nn)
{
	size_t k = next ? common_prefix(t, next, nn) : 0, m = t->nloop - 1, n = t->nloop;
	struct conv_site *placed = NULL;
	const struct conv_site *frames = t->loop;
	bool start;

	if (t->loop_leaf) {
		place_leaf(c, t, next, nn);
		return;
	}
	t->loop_held = false;
	if (k && (k == t->depth || k == nn))
		k--;
	start = !k && nn > 1 && next[nn - 1].func && next[nn - 1].func->root &&
		!next[nn - 1].func->thread_entry && t->loop[m - 1].func->thread_entry &&
		t->tid == t->pid;
	if ((k || start) && (placed = malloc((m + (k ? k : 1)) * sizeof(*placed)))) {
		memcpy(placed, t->loop, m * sizeof(*placed));
		for (size_t i = 0; i < k; i++)
			placed[m + k - 1 - i] = (struct conv_site){ .ip = t->stack[i].ip,
								    .func = t->stack[i].func };
		if (!k)		/* the thread's start, as NEXT names it */
			placed[m] = (struct conv_site){ .ip = next[nn - 1].ip,
							.func = next[nn - 1].func };
		frames = placed;
		n = m + (k ? k : 1);
	} else if (k || start) {
		c->nomem = true;
	}
	if (t->loop_switch)
		switch_out_at(c, t, t->loop_ts, frames, n, &t->loop_off);
	else
		sample_at(c, t, t->loop_ts, frames, n, t->loop_period_ns, t->loop_callchain);
	if (t->loop_switch && t->loop_in)
		switch_in_at(c, t, t->loop_in_ts);
	free(placed);
}

void conv_chain_release(struct conv *c, struct conv_thread *t)
{
	if (t && t->loop_held)
		place_loop(c, t, NULL, 0);
}

void conv_chain_sample(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns,
		       bool callchain)
{
	n = to_root(t, frames, n);
	if (t->loop_held && t->loop_leaf && leaf_again(c, t, ts, frames, n, period_ns, callchain))
		return;
	if (t->loop_held)
		place_loop(c, t, frames, n);
	if (hold_loop(c, t, ts, frames, n)) {
		t->loop_period_ns = period_ns;
		t->loop_callchain = callchain;
		return;
	}
	if (hold_leaf(c, t, ts, frames, n, period_ns, callchain))
		return;
	sample_at(c, t, ts, frames, n, period_ns, callchain);
}

void conv_chain_ahead(struct conv *c, const struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n)
{
	c->ahead_t = t;
	c->ahead = frames;
	c->nahead = t ? to_root(t, frames, n) : 0;
	c->ahead_ts = ts;
}

void conv_chain_switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
			   const struct conv_site *frames, size_t n,
			   const struct conv_offcpu *off)
{
	n = to_root(t, frames, n);
	if (t->loop_held && t->loop_switch && !t->loop_in && !n)
		return;	/* the held sched_switch sample's switch-out record */
	if (t->loop_held)
		place_loop(c, t, n ? frames : NULL, n);
	if (n && hold_loop(c, t, ts, frames, n)) {
		t->loop_switch = true;
		t->loop_off = *off;
		return;
	}
	switch_out_at(c, t, ts, frames, n, off);
}

void conv_chain_switch_in(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (t->loop_held && t->loop_switch && !t->loop_in) {
		t->loop_in = true;
		t->loop_in_ts = ts;
		return;
	}
	conv_chain_release(c, t);
	switch_in_at(c, t, ts);
}
