/* SPDX-License-Identifier: MIT */
/*
 * complete: writes a thread's slices with nothing recorded inside them (its
 * leaves) as FXT duration complete records (one record of name, category,
 * arguments, begin and end), and the others as begin/end pairs
 * (docs/design.md "Complete events"). So every record of a thread is
 * written in begin-time order, as the stack machine met it, and a reader
 * that streams (snaptrace stats) meets a slice before what is inside it; a
 * leaf holds most slices, so the records are still far fewer than pairs.
 *
 * What Perfetto does (trace_processor: the sorter takes a thread's events
 * by (timestamp, file order); SliceTracker::MaybeCloseStack before each
 * event pops the slices of known end that ended before it, or at its time
 * unless both have no duration): a leaf's complete record, written when it
 * ends, nests as its pair would, since nothing of its thread was written
 * between its begin and its end. The first record inside a held slice (a
 * child's begin, an instant) writes the begin records of the held slices
 * enclosing it, outermost first, and they end with end records; a slice
 * of 0 ns is a pair too (a later event of 0 ns at its time would nest in
 * it), and so is a begin written late (a frame inferred below the stack)
 * with records of a later time already written, or open slices above it:
 * those are inside it.
 * Memory: the open slices of each thread (its stack depth).
 */
#include "complete.h"

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

/* A record that lasts until END was written at index I of T's open slices:
 * inside the one below it, which ends no earlier. */
static void inside_until(struct conv_thread *t, size_t i, uint64_t end)
{
	if (i > 0 && t->open[i - 1].inner_end < end)
		t->open[i - 1].inner_end = end;
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

/* A record at a time that places it at index I is inside T's open slices
 * below I: those still held get their begin records now, outermost first.
 * The held ones are above every begun one (a slice is held only while
 * nothing is inside it), so the walk stops at the first begun. */
static void inside(struct conv *c, struct conv_thread *t, size_t i)
{
	size_t j = i;

	while (j > 0 && !t->open[j - 1].begun)
		j--;
	for (; j < i; j++) {
		write_slice(c, t, &t->open[j], FXT_EVENT_BEGIN, 0);
		t->open[j].begun = true;
	}
}

static void open_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	size_t i = place(t, ev->ts);
	struct conv_open_slice *s;

	inside(c, t, i);
	s = array_grow(t->open, &t->capopen, t->nopen, sizeof(*s));
	if (!s) {
		c->nomem = true;
		return;
	}
	t->open = s;
	memmove(&s[i + 1], &s[i], (t->nopen - i) * sizeof(*s));
	t->nopen++;
	s[i] = (struct conv_open_slice){
		.ts = ev->ts, .name = ev->name, .category = ev->category,
		.nargs = ev->nargs < CONV_CUT_ARGS ? ev->nargs : CONV_CUT_ARGS,
	};
	if (s[i].nargs)	/* a begin without arguments may have no array */
		memcpy(s[i].args, ev->args, s[i].nargs * sizeof(s[i].args[0]));
	/* a begin written late (a frame inferred below the stack): the open
	 * slices above it and the records written since its time are inside it */
	if (i + 1 < t->nopen || t->record_ts > ev->ts) {
		write_slice(c, t, &s[i], FXT_EVENT_BEGIN, 0);
		s[i].begun = true;
	}
}

/* S's whole duration when it is a measured call's slice (its
 * FXT_MEASURED_ARG and FXT_MEASURED_DURATION_ARG, threads.c), else 0. */
static uint64_t measured_ns(const struct conv *c, const struct conv_open_slice *s)
{
	uint64_t ns = 0;
	bool measured = false;

	for (unsigned i = 0; i < s->nargs; i++) {
		if (s->args[i].name == c->s_measured && s->args[i].type == FXT_ARG_BOOL)
			measured = s->args[i].b;
		else if (s->args[i].name == c->s_duration_ns && s->args[i].type == FXT_ARG_UINT64)
			ns = s->args[i].u64;
	}
	return measured ? ns : 0;
}

/* An end at EV->ts closes the innermost open slice, as Perfetto's does: a
 * slice still held (nothing inside it) of some duration is one complete
 * record. A slice ends no earlier than it begins, nor than the records
 * written inside it (a child that the stack machine ended later than its
 * parent, from times that went back, or one sample's period past its
 * time), so every record nests in its parent whatever the input's times
 * (docs/design.md "Complete events"). */
static void close_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	struct conv_open_slice s;
	struct fxt_event end = *ev;

	if (!t->nopen) {	/* an end without a begin: as it came (Perfetto drops it) */
		write_record(c, t, ev);
		return;
	}
	s = t->open[--t->nopen];
	if (end.ts < s.ts)
		end.ts = s.ts;
	if (end.ts < s.inner_end)
		end.ts = s.inner_end;
	inside_until(t, t->nopen, end.ts);
	c->stats.measured_cut += fxt_measured_cut(measured_ns(c, &s), s.ts, end.ts);
	if (!s.begun && end.ts > s.ts) {
		write_slice(c, t, &s, FXT_EVENT_COMPLETE, end.ts);
		c->stats.complete_slices++;
		return;
	}
	if (!s.begun)
		write_slice(c, t, &s, FXT_EVENT_BEGIN, 0);
	write_record(c, t, &end);
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
	case FXT_EVENT_INSTANT: {
		size_t i = place(t, ev->ts);

		inside(c, t, i);
		inside_until(t, i, ev->ts);
		write_record(c, t, ev);
		break;
	}
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
