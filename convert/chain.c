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
 * with no sample at all); time off the CPU (a
 * sched_switch sample or switch-out record until the switch-in, or the next
 * sample less one period) is an "[off-cpu]" slice under the stack the
 * thread left the CPU with.
 */
#include "state.h"

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

uint64_t conv_chain_period(const struct conv *c, const struct conv_thread *t)
{
	return t->period_ns ? t->period_ns : c->period_ns;
}

/* When frames last seen at T->seen_ts end at the latest, given that the
 * thread is next seen at TS. */
static uint64_t frames_end(const struct conv *c, const struct conv_thread *t, uint64_t ts)
{
	uint64_t p = conv_chain_period(c, t), end = conv_add_sat(t->seen_ts, p);

	return !t->seen || !p || end > ts ? ts : end;
}

/* Pops T's frames above depth K at TS's frame end; the call that blocked
 * in a system call and was woken (T->woken), when nothing was seen of T
 * since, at its wakeup (the call returns then). */
static void pop_to(struct conv *c, struct conv_thread *t, size_t k, uint64_t ts)
{
	uint64_t end = frames_end(c, t, ts);

	while (t->depth > k) {
		bool call = t->woken && t->depth - 1 == t->woken_depth;

		conv_stack_pop(c, t, call && t->seen_ts == t->woken_ts ? t->woken_ts : end);
		t->woken &= !call;
	}
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
	uint64_t p = conv_chain_period(c, t), from, back = 0;
	bool lost_in = false;

	if (t->offcpu_open) {
		uint64_t since = t->offcpu_since;

		lost_in = c->switch_records;
		back = lost_in ? since : ts > p ? ts - p : 0;
		back = back > ts ? ts : back > since ? back : since;
		back_on_cpu(c, t, back);
		t->seen = true;
		t->seen_ts = back;
	}
	if (!t->seen || !p || p > UINT64_MAX / CONV_GAP_PERIODS ||
	    ts - t->seen_ts <= CONV_GAP_PERIODS * p)
		return;
	/* < ts: the hole is longer; at least BACK, after the [off-cpu] slice */
	from = t->depth && !lost_in ? t->seen_ts + p : t->seen_ts;
	while (t->depth)
		conv_stack_pop(c, t, from);
	conv_emit_slice_begin(c, t, c->s_nosamples, from, NULL, 0);
	conv_emit_end(c, t, c->s_nosamples, ts);
	t->nosamples_ns += ts - from;
	t->spacing_from = false;	/* the hole is no sampling period */
}

/* Makes FRAMES (N, innermost first) T's stack at TS, by common prefix; with
 * NEW_CALL the frame that blocked in a system call before (T->woken_depth)
 * is not continued: it made a new call. */
static void set_stack(struct conv *c, struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n, bool new_call)
{
	size_t k = 0, keep = new_call && t->woken_depth < t->depth ? t->woken_depth : t->depth;

	/* frames[] is innermost first: root-first index i is frames[n - 1 - i]. */
	while (k < keep && k < n && t->stack[k].func == frames[n - 1 - k].func &&
	       (k == 0 || t->stack[k - 1].ip == frames[n - k].ip))
		k++;
	pop_to(c, t, k, ts);
	for (size_t i = k; i < n; i++)
		conv_stack_push(c, t, &frames[n - 1 - i], NULL, ts);
	/* Continuing frames take this sample's addresses (leaf ip may move). */
	for (size_t i = 0; i < t->depth && i < n; i++)
		t->stack[i].ip = frames[n - 1 - i].ip;
	t->seen = true;
	t->seen_ts = ts;
}

/* T's first event in an input after a plain one at TS: the frames it had
 * when that input ended end by TS at the latest (what came between the two
 * inputs is not known). */
static void close_pending(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (t->close_pending)
		conv_chain_close(c, t, ts, false);
}

void conv_chain_sample(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns,
		       bool callchain)
{
	close_pending(c, t, ts);
	if (t->spacing_from && ts > t->seen_ts && !t->offcpu_open)
		t->spacing[t->nspacing++ % CONV_SPACINGS] = ts - t->seen_ts;
	t->period_ns = period_ns ? period_ns : median_spacing(t);
	if (!c->period_ns)	/* any thread's, until the recording tells */
		c->period_ns = t->period_ns;
	on_cpu(c, t, ts);
	set_stack(c, t, ts, frames, n, false);
	t->spacing_from = true;
	t->nsamples++;
	c->stats.samples++;
	conv_coverage_chain(c, t, frames, n, callchain);
}

void conv_chain_switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
			   const struct conv_site *frames, size_t n,
			   const struct conv_offcpu *off)
{
	bool syscall_block = off->syscall && !off->preempted;

	close_pending(c, t, ts);
	if (t->offcpu_open)
		return;	/* the sched_switch sample, then the switch-out record */
	on_cpu(c, t, ts);
	if (n) {
		/* blocked in a system call again after a wakeup: the call that
		 * blocked before returned, this is a new one (same stack or not) */
		set_stack(c, t, ts, frames, n, t->woken && syscall_block);
		conv_coverage_chain(c, t, frames, n, true);
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

void conv_chain_switch_in(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	close_pending(c, t, ts);
	if (t->offcpu_open)
		back_on_cpu(c, t, ts);
	else if (t->seen)
		return;	/* on the CPU since it was seen: its switch out was lost */
	t->seen = true;
	t->seen_ts = ts;
}

void conv_chain_close(struct conv *c, struct conv_thread *t, uint64_t ts, bool past_ts)
{
	if (t->offcpu_open) {	/* off the CPU until TS: the frames too */
		conv_offcpu_end(c, t, ts);
		t->seen_ts = ts;
		t->syscall_block = false;
	}
	/* The last sample's frames ran for its period, TS being its time. */
	pop_to(c, t, 0, past_ts ? conv_add_sat(t->seen_ts > ts ? t->seen_ts : ts,
					       conv_chain_period(c, t)) : ts);
	t->seen = false;
	t->spacing_from = false;
	t->woken = false;
	t->close_pending = false;
}
