/* SPDX-License-Identifier: MIT */
#include "slowcall.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

void rec_slowcall_init(struct rec_slowcall *sc, uint64_t slower_than_ns)
{
	memset(sc, 0, sizeof(*sc));
	sc->slower_than_ns = slower_than_ns;
}

int rec_slowcall_add(struct rec_slowcall *sc, const struct rec_trig_sample *s)
{
	void *p = array_grow(sc->pending, &sc->pending_cap, sc->npending, sizeof(*sc->pending));

	if (!p) {
		if (s->ret)
			sc->unmatched++;
		else if (!s->caught && !s->back)
			sc->untracked++;
		return -ENOMEM;
	}
	sc->pending = p;
	sc->pending[sc->npending++] = *s;
	if (s->time_ns > sc->read_max_ns)
		sc->read_max_ns = s->time_ns;
	return 0;
}

/* Time order; at the same time an entry before a return. */
static int by_time(const void *a, const void *b)
{
	const struct rec_trig_sample *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (int)(x->ret || x->back) - (int)(y->ret || y->back);
}

/* The calls thread TID is in; NULL when it is in none. */
static struct rec_slow_thread *thread_of(struct rec_slowcall *sc, pid_t tid)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (sc->threads[i].tid == tid)
			return &sc->threads[i];
	return NULL;
}

/* A new thread (no call yet) for sample S; NULL when no more can be kept. */
static struct rec_slow_thread *new_thread(struct rec_slowcall *sc, const struct rec_trig_sample *s)
{
	struct rec_slow_thread *th;
	void *p;

	if (sc->nthreads >= REC_SLOW_THREADS)
		return NULL;
	p = array_grow(sc->threads, &sc->threads_cap, (size_t)sc->nthreads, sizeof(*sc->threads));
	if (!p)
		return NULL;
	sc->threads = p;
	th = &sc->threads[sc->nthreads++];
	th->pid = s->pid;
	th->tid = s->tid;
	th->depth = th->deeper = 0;
	return th;
}

/* Forgets TH once it is in no call: memory follows the calls in progress. */
static void drop_if_idle(struct rec_slowcall *sc, struct rec_slow_thread *th)
{
	if (th->depth)
		return;
	*th = sc->threads[--sc->nthreads];
}

/* A call of S's thread entered as E ended at S (a return, or a catch when
 * THROWN): measured, and a hit when longer than the threshold. */
static void call_ended(struct rec_slowcall *sc, const struct rec_trig_sample *s,
		       const struct rec_slow_entry *e, bool thrown, rec_slowcall_fn fn, void *arg)
{
	struct rec_hit hit = { .pid = s->pid, .tid = s->tid, .time_ns = s->time_ns,
			       .entry_ns = e->time_ns, .duration_ns = s->time_ns - e->time_ns,
			       .thrown = thrown, .has_caller = e->ret_addr && e->ip,
			       .caller_off = (int64_t)(e->ret_addr - e->ip) };

	bool recorded = rec_recorded_has(sc->recorded, s->tid);

	sc->calls++;
	sc->thrown += thrown;
	sc->tail += e->tail_ns != 0;
	if (!recorded)
		rec_unrecorded_add(&sc->unrecorded, s->tid);
	if (sc->every)
		sc->every(&hit, sc->every_arg);
	if (hit.duration_ns > sc->slower_than_ns) {
		sc->slow++;
		sc->slow_thrown += thrown;
		if (!recorded)
			rec_unrecorded_add(&sc->unrecorded_slow, s->tid);
		if (fn)
			fn(&hit, arg);
	}
}

static void on_entry(struct rec_slowcall *sc, const struct rec_trig_sample *s,
		     rec_slowcall_fn fn, void *arg)
{
	struct rec_slow_thread *th = thread_of(sc, s->tid);

	if (!s->sp || (!th && !(th = new_thread(sc, s)))) {
		sc->untracked++;
		return;
	}
	/* a call entered at the same or a deeper stack pointer has ended; one
	 * left by a tail call that returns where this one does is entered
	 * again by its chain of tail calls, which goes on as this call */
	while (th->depth && th->e[th->depth - 1].sp <= s->sp) {
		struct rec_slow_entry *e = &th->e[--th->depth];

		th->deeper = 0;
		if (e->tail_ns && e->sp == s->sp && e->ret_addr == s->ret_addr &&
		    s->time_ns >= e->time_ns)
			call_ended(sc, s, e, false, fn, arg);
		else
			sc->unended++;
	}
	if (th->depth == REC_SLOW_DEPTH) {
		sc->untracked++;
		th->deeper++;
		return;
	}
	th->e[th->depth++] = (struct rec_slow_entry){ s->sp, s->time_ns, s->ret_addr, s->ip,
						      s->site, 0 };
}

static void on_return(struct rec_slowcall *sc, const struct rec_trig_sample *s,
		      rec_slowcall_fn fn, void *arg)
{
	struct rec_slow_thread *th = thread_of(sc, s->tid);
	uint64_t entry_sp = s->sp;   /* an exit's stack pointer is its entry's */
	struct rec_slow_entry *e, entry;

	if (!th || !s->sp) {
		sc->unmatched += !s->part;
		return;
	}
	/* the exit of a call too deep to be kept */
	if (th->deeper && th->depth && entry_sp < th->e[th->depth - 1].sp) {
		th->deeper--;
		return;
	}
	/* calls deeper than the one returning will not return any more */
	while (th->depth && th->e[th->depth - 1].sp < entry_sp) {
		th->depth--;
		th->deeper = 0;
		sc->unended++;
	}
	e = th->depth ? &th->e[th->depth - 1] : NULL;
	if (!e || e->sp != entry_sp || s->time_ns < e->time_ns) {
		sc->unmatched += !s->part;
		drop_if_idle(sc, th);
		return;
	}
	/* a tail call out of a call whose return site is watched: it goes on in
	 * the function jumped to, to its caller's resumption (on_back) */
	if (s->tail && e->site) {
		if (!e->tail_ns)
			e->tail_ns = s->time_ns;
		return;
	}
	sc->tail_at_jump += s->tail;
	entry = *e;   /* E is TH's, which drop_if_idle may overwrite */
	th->depth--;
	drop_if_idle(sc, th);
	call_ended(sc, s, &entry, false, fn, arg);
}

/*
 * The caller of a call of S's thread resumed at a return site (callsites.h):
 * the call entered at stack pointer S->sp with return address S->ip ends
 * now, the calls deeper than it are gone. Most calls returned by a ret
 * before (on_return): then no call is there, and nothing is counted.
 */
static void on_back(struct rec_slowcall *sc, const struct rec_trig_sample *s,
		    rec_slowcall_fn fn, void *arg)
{
	struct rec_slow_thread *th = thread_of(sc, s->tid);
	struct rec_slow_entry entry;

	if (!th || (th->deeper && th->depth && s->sp < th->e[th->depth - 1].sp))
		return;
	while (th->depth && th->e[th->depth - 1].sp < s->sp) {
		th->depth--;
		th->deeper = 0;
		sc->unended++;
	}
	if (th->depth && th->e[th->depth - 1].sp == s->sp &&
	    th->e[th->depth - 1].ret_addr == s->ip && s->time_ns >= th->e[th->depth - 1].time_ns) {
		entry = th->e[--th->depth];
		drop_if_idle(sc, th);
		call_ended(sc, s, &entry, false, fn, arg);
		return;
	}
	drop_if_idle(sc, th);
}

/*
 * The thread of S entered the C++ runtime's catch entry at stack pointer
 * S->sp: every call it entered at that stack pointer or deeper was left by
 * the exception caught there and ends now, the innermost first.
 */
static void on_catch(struct rec_slowcall *sc, const struct rec_trig_sample *s,
		     rec_slowcall_fn fn, void *arg)
{
	struct rec_slow_thread *th = thread_of(sc, s->tid);

	if (!th)
		return;
	/* the calls too deep to be kept are gone with the ones kept */
	if (th->depth && th->e[th->depth - 1].sp <= s->sp)
		th->deeper = 0;
	while (th->depth && th->e[th->depth - 1].sp <= s->sp) {
		struct rec_slow_entry entry = th->e[--th->depth];

		if (s->time_ns >= entry.time_ns)
			call_ended(sc, s, &entry, true, fn, arg);
		else
			sc->unended++;
	}
	drop_if_idle(sc, th);
}

size_t rec_slowcall_pass(struct rec_slowcall *sc, rec_slowcall_fn fn, void *arg)
{
	size_t n = 0, i;

	array_sort(sc->pending, sc->npending, sizeof(*sc->pending), by_time);
	for (; n < sc->npending && sc->pending[n].time_ns <= sc->ready_ns; n++) {
		if (sc->pending[n].caught)
			on_catch(sc, &sc->pending[n], fn, arg);
		else if (sc->pending[n].ret)
			on_return(sc, &sc->pending[n], fn, arg);
		else if (sc->pending[n].back)
			on_back(sc, &sc->pending[n], fn, arg);
		else
			on_entry(sc, &sc->pending[n], fn, arg);
	}
	for (i = n; i < sc->npending; i++)
		sc->pending[i - n] = sc->pending[i];
	sc->npending -= n;
	/* what this pass read is complete once the next pass has run */
	sc->ready_ns = sc->read_max_ns;
	return sc->npending;
}

void rec_slowcall_free(struct rec_slowcall *sc)
{
	for (int i = 0; i < sc->nthreads; i++)
		sc->open_at_end += (uint64_t)sc->threads[i].depth + (uint64_t)sc->threads[i].deeper;
	free(sc->pending);
	free(sc->threads);
	sc->pending = NULL;
	sc->threads = NULL;
	sc->npending = sc->pending_cap = sc->threads_cap = 0;
	sc->nthreads = 0;
}
