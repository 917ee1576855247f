/* SPDX-License-Identifier: MIT */
/*
 * complete: writes a thread's slices as FXT duration complete records (one
 * record of name, category, arguments, begin and end) wherever Perfetto's
 * importer nests them as it nests the begin/end pair they replace, and as
 * that pair elsewhere (docs/design.md "Complete events"). Half the records,
 * and a third less importer memory per slice.
 *
 * What Perfetto does (trace_processor: the sorter takes a thread's events
 * by (timestamp, file order); SliceTracker::MaybeCloseStack before each
 * event pops the slices of known end that ended before it, or at its time
 * unless both have no duration): a complete record is written when its
 * slice ends, after what happened inside it, so it comes out right unless
 *  (a) something inside it happened at its begin time: a record of the same
 *      time written before it would sort first and land outside it. So
 *      the first record inside at that time writes its begin first (and
 *      those of its enclosing slices unwritten of that time, outermost
 *      first), and the slice ends with an end record;
 *  (b) something inside it happened at its end time: Perfetto pops a slice
 *      of known end at an event of its end time, so that would land after
 *      it: begin and end records, written when it ends;
 *  (c) it has no duration: a later event of no duration at its time would
 *      nest in it: begin and end records;
 *  (d) its begin came after records of its time or later (a frame inferred
 *      below the stack, begun when a return revealed it): those may be
 *      inside it, as in (b).
 * Memory: the open slices of each thread (its stack depth).
 */
#include "state.h"

#include "array.h"
#include <string.h>

/* Writes EV, a record of T's track; a begin, complete or instant moves
 * T's latest record time. */
static void write_record(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	fxt_writer_event(c->w, ev);
	if (ev->type != FXT_EVENT_END && ev->ts > t->record_ts)
		t->record_ts = ev->ts;
}

static void write_slice(struct conv *c, struct conv_thread *t,
			const struct conv_open_slice *s, enum fxt_event_type type, uint64_t end)
{
	struct fxt_event ev = {
		.type = type, .ts = s->ts, .process_koid = t->pkoid, .thread_koid = t->tkoid,
		.category = s->category, .name = s->name, .args = s->args, .nargs = s->nargs,
		.end_ts = end,
	};

	write_record(c, t, &ev);
}

/* The index in T's open slices where a record at TS goes: after every
 * open slice that begins no later (Perfetto sorts by time, then file
 * order). */
static size_t place(const struct conv_thread *t, uint64_t ts)
{
	size_t i = t->nopen;

	while (i > 0 && t->open[i - 1].ts > ts)
		i--;
	return i;
}

/* A record at TS goes in at index I: the slices enclosing it that begin at
 * TS and are unwritten get their begin records now, outermost first (a);
 * the innermost enclosing slice has something inside it at TS (b). */
static void inside(struct conv *c, struct conv_thread *t, size_t i, uint64_t ts)
{
	size_t j = i;

	if (!i)
		return;
	while (j > 0 && t->open[j - 1].ts == ts)
		j--;
	for (; j < i; j++) {
		if (!t->open[j].begun)
			write_slice(c, t, &t->open[j], FXT_EVENT_BEGIN, 0);
		t->open[j].begun = true;
	}
	if (ts > t->open[i - 1].inner_ts)
		t->open[i - 1].inner_ts = ts;
}

static void open_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	size_t i = place(t, ev->ts);
	struct conv_open_slice *s;

	inside(c, t, i, ev->ts);
	s = array_grow(t->open, &t->capopen, t->nopen, sizeof(*s));
	if (!s) {
		c->nomem = true;
		return;
	}
	t->open = s;
	memmove(&s[i + 1], &s[i], (t->nopen - i) * sizeof(*s));
	t->nopen++;
	/* a begin written late (a frame inferred below the stack) may hold
	 * every record written since its time */
	s[i] = (struct conv_open_slice){
		.ts = ev->ts, .name = ev->name, .category = ev->category,
		.nargs = ev->nargs < CONV_CUT_ARGS ? ev->nargs : CONV_CUT_ARGS,
		.inner_ts = t->record_ts > ev->ts ? t->record_ts : 0,
	};
	if (s[i].nargs)	/* a begin without arguments may have no array */
		memcpy(s[i].args, ev->args, s[i].nargs * sizeof(s[i].args[0]));
}

/* An end at EV->ts closes the innermost open slice, as Perfetto's does. */
static void close_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	struct conv_open_slice s;

	if (!t->nopen) {	/* an end without a begin: as it came (Perfetto drops it) */
		write_record(c, t, ev);
		return;
	}
	s = t->open[--t->nopen];
	if (!s.begun && ev->ts > s.ts && s.inner_ts < ev->ts) {
		write_slice(c, t, &s, FXT_EVENT_COMPLETE, ev->ts);
		c->stats.complete_slices++;
	} else {
		if (!s.begun)
			write_slice(c, t, &s, FXT_EVENT_BEGIN, 0);
		write_record(c, t, ev);
	}
	if (t->nopen) {	/* what was inside it is inside its parent */
		struct conv_open_slice *p = &t->open[t->nopen - 1];
		uint64_t inner = s.inner_ts > s.ts ? s.inner_ts : s.ts;

		if (inner > p->inner_ts)
			p->inner_ts = inner;
	}
}

void conv_complete_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	switch (ev->type) {
	case FXT_EVENT_BEGIN:
		open_slice(c, t, ev);
		break;
	case FXT_EVENT_END:
		close_slice(c, t, ev);
		break;
	case FXT_EVENT_INSTANT:
		inside(c, t, place(t, ev->ts), ev->ts);
		write_record(c, t, ev);
		break;
	default:	/* counters and the rest: not on the thread's track */
		fxt_writer_event(c->w, ev);
		break;
	}
}

void conv_complete_flush(struct conv *c, struct conv_thread *t)
{
	for (size_t i = 0; i < t->nopen; i++) {
		if (!t->open[i].begun)
			write_slice(c, t, &t->open[i], FXT_EVENT_BEGIN, 0);
		t->open[i].begun = true;
	}
}
