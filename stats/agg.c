// SPDX-License-Identifier: MIT
/*
 * agg: the per-thread stack machine behind snaptrace-stats (see agg.h).
 *
 * Each thread keeps a stack of open slices: a begin (end unknown) or a
 * complete event (end known, popped when an event comes at or after its
 * end). Closing a slice adds its duration to its row and to its parent's
 * time in callees. An event is "late" when it comes before the latest time
 * already seen on its thread; the first pass keeps late events aside
 * (sorted afterwards by time, then file order), and when there are any the
 * second pass merges them in front of the first in-order event that sorts
 * after them, which is Perfetto's order.
 */
#include "agg.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "demangle.h"
#include "funcspec.h"
#include "fxt_format.h"
#include "fxt_reader.h"
#include "fxt_writer.h"

/* The wait rows an [off-cpu] slice adds its duration to (opts.off_cpu):
 * those its arguments name (system call, kernel function) and its caller's,
 * each of all threads and of its own. */
enum { WAIT_ARGS = 4, WAIT_ROWS = WAIT_ARGS + 2 };
struct waits {
	uint32_t row[WAIT_ROWS];
	uint8_t n;
	const char *state;
};

const char agg_by_syscall[] = "syscall";
const char agg_by_kernel_function[] = "kernel_function";
const char agg_by_caller[] = "caller";
const char agg_state_blocked[] = FXT_OFFCPU_BLOCKED;
const char agg_state_preempted[] = FXT_OFFCPU_PREEMPTED;
const char agg_state_unknown[] = "unknown";

/* An open slice on a thread's stack. */
struct frame {
	uint32_t row;
	bool pending;      /* a begin, not yet ended */
	bool outer;        /* no activation of the same row below it */
	bool claimed;      /* counted in its row's open count */
	bool shadow;       /* the measured call above it in its function's other row
			    * (agg_row.twin: "all"): it ends with that call */
	uint64_t begin, end, child_ns;
	uint64_t call_ns;  /* a measured call: its whole duration; 0: not measured */
	struct waits waits;
};

/* An event taken out of file order (see the top of this file). */
struct late {
	uint64_t ts, end_ts;
	size_t record_no;
	uint32_t row, all_row;
	enum fxt_event_type type;
	uint64_t call_ns;
	struct waits waits;
};

struct agg_thread {
	uint64_t pid, tid;
	char *name;
	struct frame *stack;   size_t depth, capstack;
	uint64_t max_ts;       /* the latest time of an in-order event */
	bool seen;
	bool events;           /* has events (any, even those --thread leaves out) */
	bool track;            /* snaptrace's track of no thread (FXT_TRACK_ARG, or
				  FXT_TRACK_TRIGGERS by name in older traces): its
				  instants are no calls, and it is no thread to list */
	struct late *late;     size_t nlate, caplate, next_late;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A row's key: its thread (0, 0 for all), kind (NULL for a function, and
 * for a wait what it is keyed by and its state; a function's measured calls
 * apart: MEASURED), name and dso. */
static uint64_t key_hash(uint64_t pid, uint64_t tid, const char *by, const char *state,
			 bool measured, const char *name, const char *dso)
{
	uint64_t h = hash_pair(pid, tid) ^ measured;

	if (by)
		h = hash_str(hash_str(h, by) * 31, state);
	return hash_str(hash_str(h, name) * 31, dso);
}

static struct agg_thread *thread_get(struct agg *a, uint64_t pid, uint64_t tid)
{
	uint64_t h = hash_pair(pid, tid);
	struct agg_thread *th;
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&a->thread_index, h, &probe)) != HASH_NONE)
		if (a->threads[k].pid == pid && a->threads[k].tid == tid)
			return &a->threads[k];
	th = array_grow(a->threads, &a->capthreads, a->nthreads, sizeof(*th));
	if (!th)
		return NULL;
	a->threads = th;
	if (hash_index_add(&a->thread_index, h, (uint32_t)a->nthreads))
		return NULL;
	th = &a->threads[a->nthreads++];
	*th = (struct agg_thread){ .pid = pid, .tid = tid };
	return th;
}

/* The row of key (PID, TID, BY, STATE, MEASURED, NAME, DSO) (key_hash) into
 * *OUT; returns 0, or -ENOENT when there is none. */
static int row_lookup(const struct agg *a, uint64_t pid, uint64_t tid, const char *by,
		      const char *state, bool measured, const char *name, const char *dso,
		      uint32_t *out)
{
	uint64_t h = key_hash(pid, tid, by, state, measured, name, dso);
	const struct agg_row *r;
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&a->row_index, h, &probe)) != HASH_NONE) {
		r = &a->rows[k];
		if (r->tid == tid && r->pid == pid && r->by == by && r->state == state &&
		    r->measured_row == measured && !strcmp(r->name, name) && !strcmp(r->dso, dso)) {
			*out = k;
			return 0;
		}
	}
	return -ENOENT;
}

/* The row of key (PID, TID, BY, STATE, MEASURED, NAME, DSO), made when new. */
static int row_find(struct agg *a, uint64_t pid, uint64_t tid, const char *by, const char *state,
		    bool measured, const char *name, const char *dso, uint32_t *out)
{
	uint64_t h = key_hash(pid, tid, by, state, measured, name, dso);
	struct agg_row *r;

	if (!row_lookup(a, pid, tid, by, state, measured, name, dso, out))
		return 0;
	if (hash_index_reserve(&a->row_index, a->nrows + 1))
		return -ENOMEM;
	r = array_grow(a->rows, &a->caprows, a->nrows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	a->rows = r;
	r = &a->rows[a->nrows];
	*r = (struct agg_row){ .name = strdup(name), .dso = strdup(dso), .by = by, .state = state,
			       .pid = pid, .tid = tid, .hist = HIST_INIT,
			       .measured_row = measured };
	if (!r->name || !r->dso) {
		free(r->name);
		free(r->dso);
		return -ENOMEM;
	}
	hash_index_add(&a->row_index, h, (uint32_t)a->nrows);   /* reserved: cannot fail */
	*out = (uint32_t)a->nrows++;
	return 0;
}

/* The row of slice NAME/DSO on thread T (its thread only with --by-thread);
 * MEASURED: of its measured calls. */
static int row_get(struct agg *a, const struct agg_thread *t, bool measured, const char *name,
		   const char *dso, uint32_t *out)
{
	return a->opts.by_thread ?
	       row_find(a, t->pid, t->tid, NULL, NULL, measured, name, dso, out) :
	       row_find(a, 0, 0, NULL, NULL, measured, name, dso, out);
}

/* Sets each function row's twin (agg_row.twin), while the index holds. */
static void find_twins(struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++) {
		struct agg_row *r = &a->rows[i];
		uint32_t k;

		if (r->measured_row && r->hist.total &&
		    !row_lookup(a, r->pid, r->tid, NULL, NULL, false, r->name, r->dso, &k) &&
		    a->rows[k].hist.total)
			r->twin = a->rows[k].twin = true;
	}
}

/* Adds to W the wait rows keyed BY NAME (DSO) in W's state: of all threads
 * and of T's. Returns 0 or -ENOMEM. */
static int wait_rows(struct agg *a, const struct agg_thread *t, const char *by, const char *name,
		     const char *dso, struct waits *w)
{
	if (row_find(a, 0, 0, by, w->state, false, name, dso, &w->row[w->n]) ||
	    row_find(a, t->pid, t->tid, by, w->state, false, name, dso, &w->row[w->n + 1]))
		return -ENOMEM;
	w->n += 2;
	return 0;
}

/* Whether EV has the boolean argument NAME, true. */
static bool str_bool(const struct fxt_revent *ev, const char *name)
{
	for (unsigned i = 0; i < ev->nargs; i++)
		if (ev->args[i].type == FXT_ARG_BOOL && !strcmp(ev->args[i].name, name))
			return ev->args[i].b;
	return false;
}

/* A string argument of EV named NAME, or NULL. */
static const char *str_arg(const struct fxt_revent *ev, const char *name)
{
	for (unsigned i = 0; i < ev->nargs; i++)
		if (ev->args[i].type == FXT_ARG_STRING && !strcmp(ev->args[i].name, name))
			return ev->args[i].str;
	return NULL;
}

/* The wait rows of [off-cpu] slice EV of T that its arguments name (its
 * caller's come at its begin: wait_caller). Returns 0 or -ENOMEM. */
static int wait_args(struct agg *a, const struct agg_thread *t, const struct fxt_revent *ev,
		     struct waits *w)
{
	const char *state = str_arg(ev, FXT_OFFCPU_STATE), *sc = str_arg(ev, FXT_OFFCPU_SYSCALL);
	const char *kf = str_arg(ev, FXT_OFFCPU_KERNEL_FUNCTION);

	w->state = !state ? agg_state_unknown : !strcmp(state, FXT_OFFCPU_BLOCKED) ?
		   agg_state_blocked : !strcmp(state, FXT_OFFCPU_PREEMPTED) ?
		   agg_state_preempted : agg_state_unknown;
	return wait_rows(a, t, agg_by_syscall, sc ? sc : AGG_WAIT_NONE, "", w) ||
	       wait_rows(a, t, agg_by_kernel_function, kf ? kf : AGG_WAIT_NONE, "", w) ? -ENOMEM : 0;
}

bool agg_runtime_dso(const char *dso)
{
	static const char *const prefixes[] = {
		"libc.so", "libc-", "libpthread", "librt.", "librt-", "libdl.", "libdl-",
		"libm.so", "libm-", "ld-linux", "ld-musl", "libstdc++", "libc++", "libgcc_s",
	};
	static const char *const names[] = { "[vdso]", "[vsyscall]", "[kernel.kallsyms]" };
	const char *base = strrchr(dso, '/');

	base = base ? base + 1 : dso;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(dso, names[i]))
			return true;
	return false;
}

/* Adds to W the rows of the caller of a wait T enters now: the innermost
 * frame on T's stack that is neither a pseudo-frame (no category) nor the
 * runtime's (agg_runtime_dso). Returns 0 or -ENOMEM. */
static int wait_caller(struct agg *a, const struct agg_thread *t, struct waits *w)
{
	for (size_t i = t->depth; i-- > 0;) {
		const struct agg_row *r = &a->rows[t->stack[i].row];

		if (*r->dso && !agg_runtime_dso(r->dso)) {
			char *name = r->name, *dso = r->dso;	/* rows may move */

			return wait_rows(a, t, agg_by_caller, name, dso, w);
		}
	}
	return wait_rows(a, t, agg_by_caller, AGG_WAIT_NONE, "", w);
}

enum agg_match agg_function_match(const char *name, const char *dso, const char *wanted,
				  const char *lib)
{
	size_t n = demangled_base_len(name), w = demangled_base_len(wanted);
	size_t v = symbol_unversioned_len(name, strlen(name));
	char plain[1024], plain_wanted[1024];
	bool apart, apart_wanted;

	if (lib && *lib && !funcspec_dso_matches(dso, lib))
		return AGG_MATCH_NONE;
	if (!strcmp(name, wanted))
		return AGG_MATCH_EXACT;
	/* a function named apart (a Rust instance with its hash, a C static
	 * function with its file) and perf's name of it (the binary's one
	 * function of that name, or all of them) */
	apart = demangled_perf_name(name, plain, sizeof(plain));
	apart_wanted = demangled_perf_name(wanted, plain_wanted, sizeof(plain_wanted));
	if (apart || apart_wanted)
		return apart != apart_wanted && !strcmp(plain, plain_wanted) ? AGG_MATCH_BASE :
										AGG_MATCH_NONE;
	if (v < strlen(name) || symbol_unversioned_len(wanted, strlen(wanted)) < strlen(wanted))
		return symbol_version_matches(name, strlen(name), wanted, strlen(wanted)) ?
			AGG_MATCH_BASE : AGG_MATCH_NONE;   /* clock_gettime@@GLIBC_2.17 */
	if (n < strlen(name) && w < strlen(wanted))
		return AGG_MATCH_NONE;   /* two parameter lists, not the same */

	return n == w && !strncmp(name, wanted, n) ? AGG_MATCH_BASE : AGG_MATCH_NONE;
}

/* Whether a call of row R is one of opts.function's longest candidates: its
 * best match so far (the first exact match drops the calls kept before). */
static bool wanted_call(struct agg *a, struct agg_row *r)
{
	if (!r->match)
		r->match = (signed char)(1 + agg_function_match(r->name, r->dso, a->opts.function,
								 a->opts.lib));
	if (r->match - 1 == AGG_MATCH_NONE || (r->match - 1 == AGG_MATCH_BASE && a->top_exact))
		return false;
	if (r->match - 1 == AGG_MATCH_EXACT && !a->top_exact) {
		a->ntop = 0;
		a->top_exact = true;
	}
	return true;
}

/* Keeps CALL if it is among the opts.top longest (a min-heap on dur). */
static void keep_call(struct agg *a, struct agg_call call)
{
	struct agg_call *h = a->top;
	size_t i = 0;

	if (a->ntop < a->opts.top) {
		h = array_grow(a->top, &a->captop, a->ntop, sizeof(*h));
		if (!h) {
			a->err = -ENOMEM;
			return;
		}
		a->top = h;
		for (i = a->ntop++; i && h[(i - 1) / 2].dur > call.dur; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = call;
		return;
	}
	if (!a->ntop || call.dur <= h[0].dur)
		return;
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= a->ntop)
			break;
		if (c + 1 < a->ntop && h[c + 1].dur < h[c].dur)
			c++;
		if (h[c].dur >= call.dur)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = call;
}

/* Closes the top frame of T at END. */
static void pop(struct agg *a, struct agg_thread *t, uint64_t end)
{
	struct frame *f = &t->stack[--t->depth];
	struct agg_row *r = &a->rows[f->row];
	uint64_t dur = end > f->begin ? end - f->begin : 0;	/* time on the stack */
	uint64_t call = f->call_ns ? f->call_ns : dur;	/* a measured call: all of it */

	if (f->claimed)
		r->open--;
	if (f->pending && end == UINT64_MAX) {
		a->unended += !f->shadow;   /* its call is counted */
		return;
	}
	a->slices += !f->shadow;
	r->measured += f->call_ns != 0;
	a->measured_cut += fxt_measured_cut(f->call_ns, f->begin, end);
	for (uint8_t i = 0; i < f->waits.n; i++) {
		struct agg_row *w = &a->rows[f->waits.row[i]];

		if (hist_add(&w->hist, dur))
			a->err = -ENOMEM;
		w->total_ns += dur;
	}
	if (hist_add(&r->hist, call))
		a->err = -ENOMEM;
	/* a measured call counts whole, as its min, max and percentiles do,
	 * even where the trace cut its slice; self is its time in the trace */
	if (f->outer)
		r->total_ns += call;
	r->self_ns += dur > f->child_ns ? dur - f->child_ns : 0;
	if (t->depth && t->stack[t->depth - 1].shadow) {
		/* its shadow's self is the call's: only the call's children are
		 * inside it; the shadow ends with it */
		t->stack[t->depth - 1].child_ns += f->child_ns;
	} else if (t->depth) {
		t->stack[t->depth - 1].child_ns += dur;
	}
	if (a->opts.function && !f->shadow && wanted_call(a, r))
		keep_call(a, (struct agg_call){ .begin = f->begin, .dur = call, .pid = t->pid,
						.tid = t->tid, .dso = r->dso,
						.measured = r->measured_row });
	if (f->call_ns && t->depth && t->stack[t->depth - 1].shadow)
		pop(a, t, end);
}

/* Pops the slices of known end that are over at TS. */
static void pop_ended(struct agg *a, struct agg_thread *t, uint64_t ts)
{
	while (t->depth && !t->stack[t->depth - 1].pending && t->stack[t->depth - 1].end <= ts)
		pop(a, t, t->stack[t->depth - 1].end);
}

static void push(struct agg *a, struct agg_thread *t, uint32_t row, uint64_t begin,
		 uint64_t end, bool pending, uint64_t call_ns, const struct waits *waits,
		 bool shadow)
{
	uint32_t self = (uint32_t)(t - a->threads) + 1;
	struct frame f = { .row = row, .pending = pending, .begin = begin, .end = end,
			   .call_ns = call_ns, .waits = *waits, .shadow = shadow };
	struct agg_row *r;
	struct frame *s;

	if (f.waits.n && wait_caller(a, t, &f.waits))
		a->err = -ENOMEM;
	r = &a->rows[row];

	if (!r->open || r->open_thread == self) {
		/* the row's activations are all on this thread: count them */
		f.outer = !r->open;
		f.claimed = true;
		r->open_thread = self;
		r->open++;
	} else {
		f.outer = true;
		for (size_t i = 0; i < t->depth && f.outer; i++)
			f.outer = t->stack[i].row != row;
	}
	s = array_grow(t->stack, &t->capstack, t->depth, sizeof(*s));
	if (!s) {
		if (f.claimed)
			r->open--;
		a->err = -ENOMEM;
		return;
	}
	t->stack = s;
	t->stack[t->depth++] = f;
}

/* The frames of a slice of ROW from BEGIN to END (PENDING: a begin): a
 * measured call (CALL_NS) first in its function's other row, ALL_ROW, as
 * every slice of the function (its shadow), then in its own. */
static void push_slice(struct agg *a, struct agg_thread *t, uint32_t row, uint32_t all_row,
		       uint64_t begin, uint64_t end, bool pending, uint64_t call_ns,
		       const struct waits *waits)
{
	if (call_ns)
		push(a, t, all_row, begin, end, pending, 0, &(struct waits){ .n = 0 }, true);
	push(a, t, row, begin, end, pending, call_ns, waits, false);
}

/* One event of T in Perfetto's order (CALL_NS: a measured call's duration,
 * ALL_ROW its function's row of every slice; WAITS: an [off-cpu] begin's
 * rows). */
static void step(struct agg *a, struct agg_thread *t, enum fxt_event_type type, uint64_t ts,
		 uint64_t end_ts, uint32_t row, uint32_t all_row, uint64_t call_ns,
		 const struct waits *waits)
{
	pop_ended(a, t, ts);
	switch (type) {
	case FXT_EVENT_BEGIN:
		push_slice(a, t, row, all_row, ts, UINT64_MAX, true, call_ns, waits);
		break;
	case FXT_EVENT_COMPLETE:
		push_slice(a, t, row, all_row, ts, end_ts, false, call_ns, waits);
		break;
	case FXT_EVENT_END: {
		size_t i = t->depth;

		while (i && !t->stack[i - 1].pending)
			i--;
		if (!i)
			break;          /* an end without a begin: Perfetto drops it */
		while (t->depth > i)    /* complete slices lasting past the end: cut */
			pop(a, t, ts);
		pop(a, t, ts);
		break;
	}
	case FXT_EVENT_INSTANT:
	case FXT_EVENT_COUNTER:
	case FXT_EVENT_ASYNC_INSTANT:
		break;
	}
}

static int cmp_late(const void *x, const void *y)
{
	const struct late *p = x, *q = y;

	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	return p->record_no < q->record_no ? -1 : p->record_no > q->record_no;
}

/* Second pass: the late events of T that sort before (TS, RECORD_NO). */
static void merge_late(struct agg *a, struct agg_thread *t, uint64_t ts, size_t record_no)
{
	while (t->next_late < t->nlate) {
		const struct late *l = &t->late[t->next_late];

		if (l->ts > ts || (l->ts == ts && l->record_no > record_no))
			break;
		step(a, t, l->type, l->ts, l->end_ts, l->row, l->all_row, l->call_ns, &l->waits);
		t->next_late++;
	}
}

static int keep_late(struct agg_thread *t, const struct fxt_revent *ev, uint32_t row,
		     uint32_t all_row, uint64_t call_ns, const struct waits *waits)
{
	struct late *l = array_grow(t->late, &t->caplate, t->nlate, sizeof(*l));

	if (!l)
		return -ENOMEM;
	t->late = l;
	t->late[t->nlate++] = (struct late){ .ts = ev->ts, .end_ts = ev->end_ts,
					     .record_no = ev->record_no, .row = row, .all_row = all_row,
					     .type = ev->type, .call_ns = call_ns, .waits = *waits };
	return 0;
}

static int on_event(void *ctx, const struct fxt_revent *ev)
{
	struct agg *a = ctx;
	struct agg_thread *t;
	struct waits waits = { .n = 0 };
	uint64_t call_ns = 0;
	uint32_t row = 0, all_row = 0;
	bool late;

	if (ev->ts < a->first_ts)
		a->first_ts = ev->ts;
	if (ev->type == FXT_EVENT_COUNTER || ev->type == FXT_EVENT_ASYNC_INSTANT)
		return 0;	/* not on the thread's track */
	t = thread_get(a, ev->process_koid, ev->thread_koid);
	if (!t)
		return -ENOMEM;
	if (t->track)
		return 0;
	t->events = true;
	if (a->opts.one_thread && ev->thread_koid != a->opts.tid)
		return 0;
	for (unsigned i = 0; i < ev->nargs; i++)	/* a measured call (fxt_writer.h) */
		if (ev->args[i].type == FXT_ARG_UINT64 &&
		    !strcmp(ev->args[i].name, FXT_MEASURED_DURATION_ARG))
			call_ns = ev->args[i].u64;
	if (!str_bool(ev, FXT_MEASURED_ARG))
		call_ns = 0;
	/* a measured call is also a slice of its function's other row, which
	 * holds every slice of it ("all") */
	if ((ev->type == FXT_EVENT_BEGIN || ev->type == FXT_EVENT_COMPLETE) &&
	    (row_get(a, t, call_ns != 0, ev->name, ev->category, &row) ||
	     (call_ns && row_get(a, t, false, ev->name, ev->category, &all_row)) ||
	     (a->opts.off_cpu && !strcmp(ev->name, FXT_OFFCPU) && wait_args(a, t, ev, &waits))))
		return -ENOMEM;
	late = t->seen && ev->ts < t->max_ts;
	if (!late) {
		t->seen = true;
		t->max_ts = ev->ts;
	}
	if (late && !a->merging) {
		if (keep_late(t, ev, row, all_row, call_ns, &waits))
			return -ENOMEM;
	} else if (!late) {
		if (a->merging)
			merge_late(a, t, ev->ts, ev->record_no);
		step(a, t, ev->type, ev->ts, ev->end_ts, row, all_row, call_ns, &waits);
	}
	return a->err;
}

/* Adds a measured function's whole run from its info record's VALUE
 * (fxt_writer.h FXT_INFO_MEASURED: KEY=VALUE fields joined by tabs); a
 * record without a function is left out. Returns 0 or -ENOMEM. */
static int add_measured(struct agg *a, const char *value)
{
	static const struct { const char *key; size_t off; } nums[] = {
		{ "calls", offsetof(struct agg_measured, calls) },
		{ "total_ns", offsetof(struct agg_measured, total_ns) },
		{ "min_ns", offsetof(struct agg_measured, min_ns) },
		{ "p50_ns", offsetof(struct agg_measured, p50_ns) },
		{ "p90_ns", offsetof(struct agg_measured, p90_ns) },
		{ "p99_ns", offsetof(struct agg_measured, p99_ns) },
		{ "max_ns", offsetof(struct agg_measured, max_ns) },
		{ "calls_unrecorded", offsetof(struct agg_measured, calls_unrecorded) },
	};
	struct agg_measured m = { 0 }, *p;
	char *copy = strdup(value), *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *f = strtok_r(copy, "\t", &save); f; f = strtok_r(NULL, "\t", &save)) {
		char *eq = strchr(f, '=');

		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(f, "function") && !m.function)
			m.function = strdup(eq);
		else if (!strcmp(f, "dso") && !m.dso)
			m.dso = strdup(eq);
		else if (!strcmp(f, "threads_unrecorded") && !m.threads_unrecorded)
			m.threads_unrecorded = strdup(eq);
		else if (!strcmp(f, "buckets")) {
			for (char *b = eq, *e; *b; b = *e ? e + 1 : e) {
				struct agg_bucket k = { 0 };
				void *g;

				e = b + strcspn(b, ",");
				if (sscanf(b, "%" SCNu64 ":%" SCNu64 ":%" SCNu64, &k.from, &k.below,
					   &k.calls) != 3)
					continue;
				g = realloc(m.buckets, (m.nbuckets + 1) * sizeof(*m.buckets));
				if (!g)
					break;
				m.buckets = g;
				m.buckets[m.nbuckets++] = k;
			}
		} else {
			for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
				if (!strcmp(f, nums[i].key))
					*(uint64_t *)(void *)((char *)&m + nums[i].off) =
						strtoull(eq, NULL, 10);
		}
	}
	free(copy);
	if (!m.function || !m.dso ||
	    !(p = realloc(a->measured, (a->nmeasured + 1) * sizeof(*a->measured)))) {
		bool oom = m.function && m.dso;

		free(m.function);
		free(m.dso);
		free(m.threads_unrecorded);
		free(m.buckets);
		return oom ? -ENOMEM : 0;
	}
	a->measured = p;
	a->measured[a->nmeasured++] = m;
	return 0;
}

const struct agg_measured *agg_measured_of(const struct agg *a, const char *name,
					   const char *lib)
{
	const struct agg_measured *best = NULL;
	enum agg_match level = AGG_MATCH_NONE;

	for (size_t i = 0; i < a->nmeasured; i++) {
		enum agg_match m = agg_function_match(a->measured[i].function, a->measured[i].dso,
						      name, lib);

		if (m > level) {
			best = &a->measured[i];
			level = m;
		}
	}
	return best;
}

/* Adds an ended fact: "; " between several. Returns 0 or -ENOMEM. */
static int add_ended(struct agg *a, const char *text)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a->ended ? a->ended : "", a->ended ? "; " : "", text) < 0)
		return -ENOMEM;
	free(a->ended);
	a->ended = s;
	return 0;
}

static int on_kobj(void *ctx, const struct fxt_rkobj *k)
{
	struct agg *a = ctx;
	char **dst = NULL;
	const char *value = k->name;

	if (k->obj_type == FXT_ZX_OBJ_THREAD) {
		struct agg_thread *t = thread_get(a, k->process, k->koid);

		if (!t)
			return -ENOMEM;
		t->track = k->track || (k->koid >= FXT_TRACK_KOID_MIN &&
					!strcmp(k->name, FXT_TRACK_TRIGGERS));
		dst = &t->name;
	} else if (k->obj_type == FXT_ZX_OBJ_NONE && !strcmp(k->name, FXT_INFO_NAME)) {
		for (unsigned i = 0; i < k->nargs; i++) {
			if (k->args[i].type != FXT_ARG_STRING)
				continue;
			if (!strcmp(k->args[i].name, FXT_INFO_MODE)) {
				dst = &a->mode;
				value = k->args[i].str;
			} else if (!strcmp(k->args[i].name, FXT_INFO_ENDED) && !a->merging) {
				return add_ended(a, k->args[i].str);
			} else if (!strcmp(k->args[i].name, FXT_INFO_MEASURED) && !a->merging) {
				return add_measured(a, k->args[i].str);
			}
		}
	}
	if (!dst)
		return 0;
	free(*dst);
	*dst = strdup(value);
	return *dst ? 0 : -ENOMEM;
}

/* Ends every thread's stack at the end of the file (never-ended begins apart). */
static void finish(struct agg *a)
{
	for (size_t i = 0; i < a->nthreads; i++) {
		struct agg_thread *t = &a->threads[i];

		if (a->merging)
			merge_late(a, t, UINT64_MAX, SIZE_MAX);
		while (t->depth)
			pop(a, t, t->stack[t->depth - 1].pending ? UINT64_MAX :
				  t->stack[t->depth - 1].end);
	}
}

/* Forgets the first pass's counts before the second. */
static void restart(struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++) {
		struct agg_row *r = &a->rows[i];

		hist_free(&r->hist);
		r->total_ns = r->self_ns = r->measured = 0;
		r->open = 0;
	}
	for (size_t i = 0; i < a->nthreads; i++) {
		struct agg_thread *t = &a->threads[i];

		if (t->nlate)
			array_sort(t->late, t->nlate, sizeof(*t->late), cmp_late);
		t->depth = 0;
		t->seen = false;
		t->max_ts = 0;
		t->next_late = 0;
	}
	a->ntop = 0;
	a->top_exact = false;
	a->slices = a->unended = 0;
	a->merging = true;
}

static int cmp_call(const void *x, const void *y)
{
	const struct agg_call *p = x, *q = y;

	if (p->dur != q->dur)
		return p->dur > q->dur ? -1 : 1;
	return p->begin < q->begin ? -1 : p->begin > q->begin;
}

int agg_read(struct agg *a, const char *path, size_t *nproblems, char *errbuf, size_t errlen)
{
	static const struct fxt_stream_ops ops = { .event = on_event, .kobj = on_kobj };
	struct fxt_trace t;
	size_t late = 0;
	int err;

	a->first_ts = UINT64_MAX;
	a->passes = 1;
	err = fxt_stream_read(path, &ops, a, &t, errbuf, errlen);
	if (err)
		return err;
	*nproblems = t.nproblems;
	a->deep = t.deep_begins;
	if (t.cut[0]) {		/* statistics of part of a trace would look whole */
		snprintf(errbuf, errlen, "%s: cut short: %s; expected the whole trace", path,
			 t.cut);
		err = -ENODATA;
	}
	fxt_trace_free(&t);
	if (err)
		return err;
	for (size_t i = 0; i < a->nthreads; i++)
		late += a->threads[i].nlate;
	if (late) {
		restart(a);
		a->passes = 2;
		err = fxt_stream_read(path, &ops, a, &t, errbuf, errlen);
		if (err)
			return err;
		fxt_trace_free(&t);
	}
	finish(a);
	find_twins(a);
	if (a->err) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return a->err;
	}
	if (a->first_ts == UINT64_MAX)
		a->first_ts = 0;
	if (a->ntop)
		array_sort(a->top, a->ntop, sizeof(*a->top), cmp_call);
	return 0;
}

const char *agg_thread_name(const struct agg *a, uint64_t pid, uint64_t tid)
{
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].pid == pid && a->threads[i].tid == tid)
			return a->threads[i].name;
	return NULL;
}

bool agg_has_thread(const struct agg *a, uint64_t tid)
{
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].tid == tid && a->threads[i].events)
			return true;
	return false;
}

/* A "the trace has" list being written into a buffer (agg_list_*). */
struct list {
	char *buf;
	size_t len, at, n, shown;
};

/* Counts one more item and writes it (FMT) when there is room for it. */
__attribute__((format(printf, 2, 3)))
static void list_add(struct list *l, const char *fmt, ...)
{
	va_list ap;

	l->n++;
	if (l->shown == AGG_LIST_MAX || l->at >= l->len)
		return;
	if (l->shown)
		l->at += (size_t)snprintf(l->buf + l->at, l->len - l->at, ", ");
	if (l->at < l->len) {
		va_start(ap, fmt);
		l->at += (size_t)vsnprintf(l->buf + l->at, l->len - l->at, fmt, ap);
		va_end(ap);
	}
	l->shown++;
}

static const char *list_end(struct list *l)
{
	if (l->n > l->shown && l->at < l->len)
		snprintf(l->buf + l->at, l->len - l->at, ", ... (%zu in all)", l->n);
	return l->buf;
}

const char *agg_list_threads(const struct agg *a, char *buf, size_t len)
{
	struct list l = { .buf = buf, .len = len };

	buf[0] = '\0';
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].events)
			list_add(&l, "%" PRIu64 "%s%s", a->threads[i].tid,
				 a->threads[i].name ? " " : "",
				 a->threads[i].name ? a->threads[i].name : "");
	return list_end(&l);
}

const char *agg_list_functions(const struct agg *a, char *buf, size_t len)
{
	struct list l = { .buf = buf, .len = len };

	buf[0] = '\0';
	for (size_t i = 0; i < a->nrows; i++)
		if (a->rows[i].hist.total && !a->rows[i].by &&
		    !(a->rows[i].measured_row && a->rows[i].twin) &&
		    (i == 0 || strcmp(a->rows[i].name, a->rows[i - 1].name)))
			list_add(&l, "%s", a->rows[i].name);
	return list_end(&l);
}

bool agg_sampled(const struct agg *a)
{
	return a->mode && !strcmp(a->mode, FXT_MODE_SAMPLING);
}

void agg_free(struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++) {
		free(a->rows[i].name);
		free(a->rows[i].dso);
		hist_free(&a->rows[i].hist);
	}
	for (size_t i = 0; i < a->nthreads; i++) {
		free(a->threads[i].name);
		free(a->threads[i].stack);
		free(a->threads[i].late);
	}
	for (size_t i = 0; i < a->nmeasured; i++) {
		free(a->measured[i].function);
		free(a->measured[i].dso);
		free(a->measured[i].threads_unrecorded);
		free(a->measured[i].buckets);
	}
	free(a->measured);
	free(a->rows);
	free(a->threads);
	hash_index_free(&a->row_index);
	hash_index_free(&a->thread_index);
	free(a->top);
	free(a->mode);
	free(a->ended);
	memset(a, 0, sizeof(*a));
}
