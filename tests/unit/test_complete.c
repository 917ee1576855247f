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

/* One test: events handed in, in order, and the slices read back (depth,
 * begin, end, in start order), with the depth of its one instant (-1:
 * none). */
struct complete_case {
	const char *name, *why;
	struct { enum fxt_event_type type; uint64_t ts; const char *name; } ev[8];
	struct { unsigned depth; uint64_t begin, end; } slice[4];
	size_t nev, nslices;
	int instant_depth;
};

#define B FXT_EVENT_BEGIN
#define E FXT_EVENT_END
#define I FXT_EVENT_INSTANT
static const struct complete_case cases[] = {
	{ "nested", "in order: the parent lasts as long as it says, the leaf is one complete record",
	  { { B, 100, "P" }, { B, 150, "C" }, { E, 300, "C" }, { E, 400, "P" } },
	  { { 0, 100, 400 }, { 1, 150, 300 } }, 4, 2, -1 },
	{ "outlasts", "a parent's end before its child's (a sampled leaf one period past its "
	  "sample, the parent at an earlier rule's time): the parent ends with it",
	  { { B, 100, "P" }, { B, 150, "C" }, { E, 300, "C" }, { E, 200, "P" } },
	  { { 0, 100, 300 }, { 1, 150, 300 } }, 4, 2, -1 },
	{ "grandchild", "two levels: the grandparent too ends no earlier than what is inside it",
	  { { B, 100, "G" }, { B, 110, "P" }, { B, 120, "C" }, { E, 500, "C" }, { E, 130, "P" },
	    { E, 140, "G" } },
	  { { 0, 100, 500 }, { 1, 110, 500 }, { 2, 120, 500 } }, 6, 3, -1 },
	{ "instant", "an instant inside a slice, later than the slice's end: the slice holds it",
	  { { B, 100, "P" }, { I, 250, "I" }, { E, 200, "P" } },
	  { { 0, 100, 250 } }, 3, 1, 1 },
	{ "backwards", "an end before its begin: a slice of 0 ns at its begin, never a negative one",
	  { { B, 100, "P" }, { B, 150, "C" }, { E, 120, "C" }, { E, 90, "P" } },
	  { { 0, 100, 150 }, { 1, 150, 150 } }, 4, 2, -1 },
};
#undef B
#undef E
#undef I

/* Runs case K: its events through conv_complete_event(), then the trace
 * read back with no problem and the slices it expects. */
static void run_case(size_t k)
{
	const struct complete_case *cc = &cases[k];
	struct fxt_trace t;

	if (!start(cc->name))
		return;
	for (size_t i = 0; i < cc->nev; i++)
		ev(cc->ev[i].type, cc->ev[i].ts, cc->ev[i].name);
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nslices, cc->nslices);
	for (size_t i = 0; i < cc->nslices && i < t.nslices; i++) {
		CHECK_INT_EQ(t.slices[i].depth, cc->slice[i].depth);
		CHECK_U64_EQ(t.slices[i].begin, cc->slice[i].begin);
		CHECK_U64_EQ(t.slices[i].end, cc->slice[i].end);
	}
	CHECK_INT_EQ(t.ninstants, cc->instant_depth >= 0);
	if (t.ninstants && cc->instant_depth >= 0)
		CHECK_INT_EQ(t.instants[0].depth, cc->instant_depth);
	fxt_trace_free(&t);
}

static size_t current;	/* the case complete_case() runs */

/* Case CURRENT, under its own name (UNIT_RUN prints unit_name). */
static void complete_case(void)
{
	unit_name = cases[current].name;
	run_case(current);
	if (unit_failed_now)
		printf("    (%s)\n", cases[current].why);
}

int main(void)
{
	if (unit_tmp_init("test_complete"))
		return 1;
	for (current = 0; current < sizeof(cases) / sizeof(cases[0]); current++)
		UNIT_RUN(complete_case);
	unit_tmp_fini();
	return unit_exit();
}
