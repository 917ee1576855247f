// SPDX-License-Identifier: MIT
/*
 * fxt_slices: rebuilds each thread's slice tree the way Perfetto's importer
 * does (trace_processor's SliceTracker, as fed by its Fuchsia parser), so
 * that tests see what the user would see.
 *
 * Per thread, events are taken in (timestamp, file order). A stack holds
 * open begins (end unknown) and slices of known end (complete events and
 * instants, which are slices of duration 0). Before each event, slices of
 * known end that are over are popped: those ending before the event, or at
 * its time unless both last 0 ns (instants, complete events of no duration:
 * one stacks on another of the same time, SliceTracker::MaybeCloseStack).
 * Then:
 *  - begin: a slice at the stack's depth, pushed;
 *  - complete: likewise with its end, dropped if it would outlive an
 *    enclosing slice of known end (overlap);
 *  - instant: an instant at the stack's depth, pushed as a slice of 0 ns;
 *  - end: closes the innermost open begin, whatever its name;
 *  - counter: not on the thread's track; ignored.
 * Depth 512 and deeper is dropped. Each deviation is a problem line.
 * Async instants are on a track of no process (one per name of the first
 * event of each correlation id, as Perfetto's importer makes them): listed
 * apart, never on a thread's stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fxt_format.h"
#include "fxt_reader.h"
#include "fxt_trace_priv.h"

struct entry {
	uint64_t begin, end;
	size_t slice;       /* index in the output slices, SIZE_MAX for an instant */
	bool pending;       /* a begin not yet ended */
	bool instant;
};

struct builder {
	struct fxt_trace *t;
	struct entry *stack;
	size_t depth, stack_cap;
	size_t slices_cap, instants_cap;
	int err;
};

/* Orders events X and Y by (process, track KX/KY, time, file order). */
static int cmp_track_time(const struct fxt_revent *x, const struct fxt_revent *y, uint64_t kx,
			  uint64_t ky)
{
	if (x->process_koid != y->process_koid)
		return x->process_koid < y->process_koid ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->record_no < y->record_no ? -1 : x->record_no > y->record_no;
}

/* qsort order of thread events: the thread is the track. */
static int cmp_thread_time(const void *a, const void *b)
{
	const struct fxt_revent *x = *(const struct fxt_revent *const *)a;
	const struct fxt_revent *y = *(const struct fxt_revent *const *)b;

	return cmp_track_time(x, y, x->thread_koid, y->thread_koid);
}

static int cmp_slice_order(const void *a, const void *b)
{
	const struct fxt_slice *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->ev->record_no < y->ev->record_no ? -1 : x->ev->record_no > y->ev->record_no;
}

#define PROBLEM(b, ev, fmt, ...) \
	do { \
		if (fxt_trace_problem((b)->t, "record %zu: %llu/%llu: " fmt, (ev)->record_no, \
				      (unsigned long long)(ev)->process_koid, \
				      (unsigned long long)(ev)->thread_koid, __VA_ARGS__)) \
			(b)->err = -ENOMEM; \
	} while (0)

static const char *entry_name(const struct builder *b, const struct entry *e)
{
	return e->slice == SIZE_MAX ? "(instant)" : b->t->slices[e->slice].ev->name;
}

static void stack_remove(struct builder *b, size_t i)
{
	memmove(&b->stack[i], &b->stack[i + 1], (b->depth - i - 1) * sizeof(*b->stack));
	b->depth--;
}

/*
 * Pops the slices of known end that are over at NEW_TS, before an event of
 * duration NEW_DUR (PENDING for a begin or end). Returns false when the
 * event, a complete one, would outlive an enclosing slice (it is dropped).
 */
static bool close_stack(struct builder *b, const struct fxt_revent *ev, bool pending,
			uint64_t new_dur)
{
	uint64_t new_ts = ev->ts;
	bool incomplete = false;

	for (size_t i = b->depth; i-- > 0;) {
		struct entry *e = &b->stack[i];

		if (e->pending) {
			incomplete = true;
			continue;
		}
		if (incomplete) {
			if (new_ts <= e->end)
				continue;
			PROBLEM(b, ev, "\"%s\" ends at %llu with begins inside it still open; "
				"Perfetto cuts them there", entry_name(b, e),
				(unsigned long long)e->end);
			while (b->depth > i + 1) {
				struct entry *top = &b->stack[b->depth - 1];

				if (top->pending)
					b->t->slices[top->slice].end = e->end;
				b->depth--;
			}
			b->depth--;
			incomplete = false;
			continue;
		}
		if (e->end < new_ts ||
		    (e->end == new_ts && !(e->end == e->begin && !pending && new_dur == 0))) {
			stack_remove(b, i);
			continue;
		}
		if (pending)
			continue;
		if (new_ts < e->end && new_dur > e->end - new_ts) {
			PROBLEM(b, ev, "complete \"%s\" [%llu, %llu] overlaps \"%s\" ending at "
				"%llu; Perfetto drops it", ev->name, (unsigned long long)ev->ts,
				(unsigned long long)ev->end_ts, entry_name(b, e),
				(unsigned long long)e->end);
			return false;
		}
	}
	return true;
}

static int push(struct builder *b, struct entry e)
{
	struct entry *s = array_grow(b->stack, &b->stack_cap, b->depth, sizeof(*s));

	if (!s)
		return -ENOMEM;
	b->stack = s;
	b->stack[b->depth++] = e;
	return 0;
}

static int add_slice(struct builder *b, const struct fxt_revent *ev, uint64_t end)
{
	struct fxt_trace *t = b->t;
	struct entry e = { .begin = ev->ts, .end = end, .slice = t->nslices,
			   .pending = ev->type == FXT_EVENT_BEGIN };

	struct fxt_slice *s = array_grow(t->slices, &b->slices_cap, t->nslices, sizeof(*s));

	if (!s)
		return -ENOMEM;
	t->slices = s;
	t->slices[t->nslices++] = (struct fxt_slice){
		.process_koid = ev->process_koid, .thread_koid = ev->thread_koid, .depth = (unsigned)b->depth,
		.begin = ev->ts, .end = end, .ev = ev,
	};
	return push(b, e);
}

static int add_instant(struct builder *b, const struct fxt_revent *ev)
{
	struct fxt_trace *t = b->t;
	struct entry e = { .begin = ev->ts, .end = ev->ts, .slice = SIZE_MAX, .instant = true };

	struct fxt_instant *s = array_grow(t->instants, &b->instants_cap, t->ninstants,
					   sizeof(*s));

	if (!s)
		return -ENOMEM;
	t->instants = s;
	t->instants[t->ninstants++] = (struct fxt_instant){
		.process_koid = ev->process_koid, .thread_koid = ev->thread_koid, .depth = (unsigned)b->depth, .ev = ev,
	};
	return push(b, e);
}

static bool depth_ok(struct builder *b, const struct fxt_revent *ev)
{
	if (b->depth < FXT_MAX_DEPTH)
		return true;
	PROBLEM(b, ev, "\"%s\" at depth %zu: Perfetto drops slices deeper than %d",
		ev->name, b->depth, FXT_MAX_DEPTH);
	return false;
}

static void end_event(struct builder *b, const struct fxt_revent *ev)
{
	size_t i = b->depth;

	close_stack(b, ev, true, 0);
	for (i = b->depth; i-- > 0;)
		if (b->stack[i].pending)
			break;
	if (i == SIZE_MAX) {
		PROBLEM(b, ev, "end without begin at %llu (Perfetto drops it)",
			(unsigned long long)ev->ts);
		return;
	}
	b->t->slices[b->stack[i].slice].end = ev->ts;
	b->stack[i].end = ev->ts;
	b->stack[i].pending = false;
	if (i == b->depth - 1) {
		b->depth--;
		return;
	}
	PROBLEM(b, ev, "end of \"%s\" at %llu while \"%s\" inside it lasts until %llu",
		entry_name(b, &b->stack[i]), (unsigned long long)ev->ts,
		entry_name(b, &b->stack[b->depth - 1]),
		(unsigned long long)b->stack[b->depth - 1].end);
}

static void one_event(struct builder *b, const struct fxt_revent *ev)
{
	switch (ev->type) {
	case FXT_EVENT_BEGIN:
		close_stack(b, ev, true, 0);
		if (depth_ok(b, ev))
			b->err = add_slice(b, ev, UINT64_MAX);
		break;
	case FXT_EVENT_COMPLETE:
		if (close_stack(b, ev, false, ev->end_ts - ev->ts) && depth_ok(b, ev))
			b->err = add_slice(b, ev, ev->end_ts);
		break;
	case FXT_EVENT_INSTANT:
		close_stack(b, ev, false, 0);
		if (depth_ok(b, ev))
			b->err = add_instant(b, ev);
		break;
	case FXT_EVENT_END:
		end_event(b, ev);
		break;
	case FXT_EVENT_COUNTER:
	case FXT_EVENT_ASYNC_INSTANT:
		break;
	}
}

/* Is EV on its thread's track (not a counter, not on a process track)? */
static bool on_thread_track(const struct fxt_revent *ev)
{
	return ev->type != FXT_EVENT_COUNTER && ev->type != FXT_EVENT_ASYNC_INSTANT;
}

/* qsort order of async instants by (correlation id, time, file order). */
static int cmp_async_id(const void *a, const void *b)
{
	const struct fxt_revent *x = *(const struct fxt_revent *const *)a;
	const struct fxt_revent *y = *(const struct fxt_revent *const *)b;

	return cmp_track_time(x, y, x->correlation_id, y->correlation_id);
}

/* qsort order of async instants by (track, time, file order). */
static int cmp_async_track(const void *a, const void *b)
{
	const struct fxt_instant *x = a, *y = b;
	int k = strcmp(x->track, y->track);

	if (k)
		return k;
	if (x->ev->ts != y->ev->ts)
		return x->ev->ts < y->ev->ts ? -1 : 1;
	return x->ev->record_no < y->ev->record_no ? -1 : x->ev->record_no > y->ev->record_no;
}

/*
 * Lists T's async instants on their tracks; ORDER has room for them all.
 * Perfetto (trace_processor's fuchsia_trace_parser.cc, kAsyncInstant) puts
 * one on a legacy async track that is not the process's
 * (InternLegacyAsyncTrack(..., trace_id_is_process_scoped = false), a
 * "legacy_async_global_slice"): the track of its correlation id, named after
 * the first event of that id, and ids whose first events share a name share
 * one track (its TrackCompressor) whatever their process. Each is a slice of
 * 0 ns there, so instants at one time stack as on a thread's track. Returns
 * 0 or -ENOMEM.
 */
static int async_tracks(struct fxt_trace *t, const struct fxt_revent **order)
{
	size_t n = 0;
	const char *root = NULL;

	for (size_t i = 0; i < t->nevents; i++)
		if (t->events[i].type == FXT_EVENT_ASYNC_INSTANT)
			order[n++] = &t->events[i];
	if (!n)
		return 0;
	array_sort(order, n, sizeof(*order), cmp_async_id);
	t->async_instants = calloc(n, sizeof(*t->async_instants));
	if (!t->async_instants)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct fxt_revent *ev = order[i];

		if (i == 0 || ev->correlation_id != order[i - 1]->correlation_id)
			root = ev->name;
		t->async_instants[i] = (struct fxt_instant){
			.process_koid = ev->process_koid, .thread_koid = ev->thread_koid,
			.ev = ev, .track = root,
		};
	}
	array_sort(t->async_instants, n, sizeof(*t->async_instants), cmp_async_track);
	for (size_t i = 1; i < n; i++) {
		struct fxt_instant *a = &t->async_instants[i], *p = a - 1;

		if (!strcmp(a->track, p->track) && a->ev->ts == p->ev->ts)
			a->depth = p->depth + 1;
	}
	t->nasync_instants = n;
	return 0;
}

/* True when a thread kernel object names (PID, TID); KOBJS sorted by (process, koid). */
static bool named(const struct fxt_rkobj **kobjs, size_t n, uint64_t pid, uint64_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fxt_rkobj *k = kobjs[mid];

		if (k->process == pid && k->koid == tid)
			return true;
		if (k->process < pid || (k->process == pid && k->koid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int cmp_kobj(const void *a, const void *b)
{
	const struct fxt_rkobj *x = *(const struct fxt_rkobj *const *)a;
	const struct fxt_rkobj *y = *(const struct fxt_rkobj *const *)b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return x->koid < y->koid ? -1 : x->koid > y->koid;
}

/* Builds one thread from its events ORDER[0..N), sorted by time. */
static void one_thread(struct builder *b, const struct fxt_revent **order, size_t n,
		       const struct fxt_rkobj **kobjs, size_t nkobjs)
{
	size_t first_slice = b->t->nslices;
	bool on_track = false;

	b->depth = 0;
	for (size_t i = 0; i < n && !b->err; i++) {
		on_track |= on_thread_track(order[i]);
		one_event(b, order[i]);
	}
	for (size_t i = 0; i < b->depth && !b->err; i++) {
		if (b->stack[i].pending)
			PROBLEM(b, b->t->slices[b->stack[i].slice].ev,
				"begin \"%s\" never ended (Perfetto: \"Did not end\")",
				entry_name(b, &b->stack[i]));
	}
	if (on_track && !named(kobjs, nkobjs, order[0]->process_koid, order[0]->thread_koid))
		PROBLEM(b, order[0], "%s", "events on a thread that no kernel object record "
			"names (with a \"process\" koid argument)");
	if (b->t->nslices > first_slice)
		array_sort(b->t->slices + first_slice, b->t->nslices - first_slice,
			   sizeof(*b->t->slices), cmp_slice_order);
}

int fxt_trace_slices(struct fxt_trace *t)
{
	struct fxt_trace_priv *pv = t->priv;
	const struct fxt_revent **order = NULL;
	const struct fxt_rkobj **kobjs = NULL;
	struct builder b = { .t = t };
	size_t nk = 0;

	if (!pv || pv->slices_done)
		return 0;
	order = malloc((t->nevents + 1) * sizeof(*order));
	kobjs = malloc((t->nkobjs + 1) * sizeof(*kobjs));
	if (!order || !kobjs) {
		b.err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->nevents; i++)
		order[i] = &t->events[i];
	if (t->nevents)
		array_sort(order, t->nevents, sizeof(*order), cmp_thread_time);
	for (size_t i = 0; i < t->nkobjs; i++)
		if (t->kobjs[i].obj_type == FXT_ZX_OBJ_THREAD)
			kobjs[nk++] = &t->kobjs[i];
	if (nk)
		array_sort(kobjs, nk, sizeof(*kobjs), cmp_kobj);
	for (size_t i = 0, j; i < t->nevents && !b.err; i = j) {
		for (j = i + 1; j < t->nevents; j++)
			if (order[j]->process_koid != order[i]->process_koid || order[j]->thread_koid != order[i]->thread_koid)
				break;
		one_thread(&b, order + i, j - i, kobjs, nk);
	}
	if (!b.err)
		b.err = async_tracks(t, order);
	pv->slices_done = !b.err;
out:
	free(order);
	free(kobjs);
	free(b.stack);
	return b.err;
}
