// SPDX-License-Identifier: MIT
/*
 * Unit tests of convert/complete.c, the last step of a thread's records
 * (docs/design.md "Complete events"): events handed to conv_complete_event()
 * as the stack machine makes them, written with the FXT writer, read back
 * with the reader (fxt_trace_slices: its problems are Perfetto's cuts and
 * drops). Every record must nest in its parent whatever the times handed
 * in: an end earlier than what was written inside its slice (a child that
 * ran longer, an instant after it) or than its own begin.
 */
#include <stdio.h>
#include <string.h>

#include "complete.h"
#include "fxt_reader.h"
#include "fxt_writer.h"
#include "unit.h"
#include "unit_tmp.h"

static char path[256];
static struct conv c;
static struct conv_thread th;

/* Starts a trace NAME with thread 1/2 named, its events going through
 * conv_complete_event(). */
static bool start(const char *name)
{
	int err;

	snprintf(path, sizeof(path), "%s/%s.fxt", unit_tmpdir, name);
	memset(&c, 0, sizeof(c));
	memset(&th, 0, sizeof(th));
	c.w = fxt_writer_open(path, FXT_OUTPUT_RAW, "test", &err);
	if (!c.w) {
		UNIT_FAIL("fxt_writer_open: %s", strerror(-err));
		return false;
	}
	fxt_writer_process(c.w, 1, fxt_writer_cstring(c.w, "p [1]"));
	fxt_writer_thread(c.w, 1, 2, fxt_writer_cstring(c.w, "t [2]"));
	th.pkoid = 1;
	th.tkoid = 2;
	return true;
}

/* Hands an event of TYPE at TS named NAME to conv_complete_event(). */
static void ev(enum fxt_event_type type, uint64_t ts, const char *name)
{
	struct fxt_event e = { .type = type, .ts = ts, .process_koid = 1, .thread_koid = 2,
			       .name = fxt_writer_cstring(c.w, name) };

	conv_complete_event(&c, &th, &e);
}

/* Closes the trace and reads it back into *T with no problem; 0 on success. */
static int finish(struct fxt_trace *t)
{
	char errbuf[256];

	free(th.open);
	CHECK(!c.nomem);
	CHECK_INT_EQ(fxt_writer_close(c.w), 0);
	if (fxt_trace_read(path, t, errbuf, sizeof(errbuf))) {
		UNIT_FAIL("fxt_trace_read: %s", errbuf);
		return -1;
	}
	CHECK_INT_EQ(fxt_trace_slices(t), 0);
	for (size_t i = 0; i < t->nproblems && i < 5; i++)
		UNIT_FAIL("problem: %s", t->problems[i]);
	return 0;
}

/* Checks slice I of T: DEPTH, BEGIN, END. */
static void slice_is(const struct fxt_trace *t, size_t i, unsigned depth, uint64_t begin,
		     uint64_t end)
{
	if (i >= t->nslices) {
		UNIT_FAIL("slice %zu of %zu", i, t->nslices);
		return;
	}
	CHECK_INT_EQ(t->slices[i].depth, depth);
	CHECK_U64_EQ(t->slices[i].begin, begin);
	CHECK_U64_EQ(t->slices[i].end, end);
}

/* In order: the parent lasts as long as it says, the leaf is one complete record. */
static void complete_nested(void)
{
	struct fxt_trace t;

	if (!start("nested"))
		return;
	ev(FXT_EVENT_BEGIN, 100, "P");
	ev(FXT_EVENT_BEGIN, 150, "C");
	ev(FXT_EVENT_END, 300, "C");
	ev(FXT_EVENT_END, 400, "P");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, 2);
	slice_is(&t, 0, 0, 100, 400);
	slice_is(&t, 1, 1, 150, 300);
	CHECK_INT_EQ(c.stats.complete_slices, 1);
	fxt_trace_free(&t);
}

/* A parent's end before its child's (a sampled leaf one period past its
 * sample, the parent at an earlier rule's time): the parent ends with it. */
static void complete_child_outlasts(void)
{
	struct fxt_trace t;

	if (!start("outlasts"))
		return;
	ev(FXT_EVENT_BEGIN, 100, "P");
	ev(FXT_EVENT_BEGIN, 150, "C");
	ev(FXT_EVENT_END, 300, "C");
	ev(FXT_EVENT_END, 200, "P");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, 2);
	slice_is(&t, 0, 0, 100, 300);
	slice_is(&t, 1, 1, 150, 300);
	fxt_trace_free(&t);
}

/* Two levels: the grandparent too ends no earlier than what is inside it. */
static void complete_grandchild_outlasts(void)
{
	struct fxt_trace t;

	if (!start("grandchild"))
		return;
	ev(FXT_EVENT_BEGIN, 100, "G");
	ev(FXT_EVENT_BEGIN, 110, "P");
	ev(FXT_EVENT_BEGIN, 120, "C");
	ev(FXT_EVENT_END, 500, "C");
	ev(FXT_EVENT_END, 130, "P");
	ev(FXT_EVENT_END, 140, "G");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, 3);
	slice_is(&t, 0, 0, 100, 500);
	slice_is(&t, 1, 1, 110, 500);
	slice_is(&t, 2, 2, 120, 500);
	fxt_trace_free(&t);
}

/* An instant inside a slice, later than the slice's end: the slice holds it. */
static void complete_instant_after_end(void)
{
	struct fxt_trace t;

	if (!start("instant"))
		return;
	ev(FXT_EVENT_BEGIN, 100, "P");
	ev(FXT_EVENT_INSTANT, 250, "I");
	ev(FXT_EVENT_END, 200, "P");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, 1);
	slice_is(&t, 0, 0, 100, 250);
	CHECK_INT_EQ(t.ninstants, 1);
	if (t.ninstants == 1)
		CHECK_INT_EQ(t.instants[0].depth, 1);
	fxt_trace_free(&t);
}

/* An end before its begin: a slice of 0 ns at its begin, never a negative one. */
static void complete_end_before_begin(void)
{
	struct fxt_trace t;

	if (!start("backwards"))
		return;
	ev(FXT_EVENT_BEGIN, 100, "P");
	ev(FXT_EVENT_BEGIN, 150, "C");
	ev(FXT_EVENT_END, 120, "C");
	ev(FXT_EVENT_END, 90, "P");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, 2);
	slice_is(&t, 0, 0, 100, 150);
	slice_is(&t, 1, 1, 150, 150);
	fxt_trace_free(&t);
}

int main(void)
{
	if (unit_tmp_init("test_complete"))
		return 1;
	UNIT_RUN(complete_nested);
	UNIT_RUN(complete_child_outlasts);
	UNIT_RUN(complete_grandchild_outlasts);
	UNIT_RUN(complete_instant_after_end);
	UNIT_RUN(complete_end_before_begin);
	unit_tmp_fini();
	return unit_exit();
}
