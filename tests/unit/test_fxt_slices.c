// SPDX-License-Identifier: MIT
/*
 * Unit tests of the slice builder (fxt_trace_slices) and the slice dump:
 * hand-built traces written with the FXT writer and read back, covering
 * nesting, ends without begins, begins never ended, equal timestamps
 * resolved by file order, instants' depth, complete events (nested and
 * overlapping), the depth limit, unnamed threads, counters, thread order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt_reader.h"
#include "fxt_writer.h"
#include "unit.h"
#include "unit_tmp.h"

static char path[256];
static struct fxt_writer *w;

/* Starts a new trace file; thread 1/2 is named unless UNNAMED. */
static void begin_trace(const char *name, bool unnamed)
{
	int err;

	snprintf(path, sizeof(path), "%s/%s.fxt", unit_tmpdir, name);
	w = fxt_writer_open(path, FXT_OUTPUT_RAW, "test", &err);
	if (!w) {
		UNIT_FAIL("fxt_writer_open: %s", strerror(-err));
		return;
	}
	if (!unnamed) {
		fxt_writer_process(w, 1, fxt_writer_cstring(w, "p [1]"));
		fxt_writer_thread(w, 1, 2, fxt_writer_cstring(w, "t [2]"));
	}
}

/* Writes one event on PID/TID. */
static void ev_on(enum fxt_event_type type, uint64_t ts, uint64_t end_ts, uint64_t pid,
		  uint64_t tid, const char *name)
{
	struct fxt_event ev = { .type = type, .ts = ts, .end_ts = end_ts, .process_koid = pid,
				.thread_koid = tid };

	if (!w)
		return;
	ev.name = fxt_writer_cstring(w, name);
	ev.category = fxt_writer_cstring(w, "test");
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
}

/* Writes one event on thread 1/2. */
static void ev(enum fxt_event_type type, uint64_t ts, const char *name)
{
	ev_on(type, ts, 0, 1, 2, name);
}

/* Closes the file, reads it back and builds slices into *T; 0 on success. */
static int finish(struct fxt_trace *t)
{
	char errbuf[256];

	if (!w)
		return -1;
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	w = NULL;
	if (fxt_trace_read(path, t, errbuf, sizeof(errbuf))) {
		UNIT_FAIL("fxt_trace_read: %s", errbuf);
		return -1;
	}
	CHECK_INT_EQ(fxt_trace_slices(t), 0);
	return 0;
}

/* The --dump=slices text of T. Caller frees. */
static char *dump(const struct fxt_trace *t, bool verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	fxt_dump_slices(t, f, verbose);
	fclose(f);
	return buf;
}

static void check_dump(const struct fxt_trace *t, const char *want)
{
	char *got = dump(t, false);

	CHECK_STR_EQ(got, want);
	free(got);
}

/* True when some problem line contains TEXT. */
static bool has_problem(const struct fxt_trace *t, const char *text)
{
	for (size_t i = 0; i < t->nproblems; i++)
		if (strstr(t->problems[i], text))
			return true;
	return false;
}

static void check_no_problems(const struct fxt_trace *t)
{
	for (size_t i = 0; i < t->nproblems && i < 5; i++)
		UNIT_FAIL("problem: %s", t->problems[i]);
}

static void slices_nesting(void)
{
	struct fxt_trace t;

	begin_trace("nesting", false);
	ev(FXT_EVENT_BEGIN, 10, "A");
	ev(FXT_EVENT_BEGIN, 20, "B");
	ev(FXT_EVENT_END, 30, "B");
	ev(FXT_EVENT_BEGIN, 30, "C");
	ev(FXT_EVENT_END, 40, "C");
	ev(FXT_EVENT_END, 50, "A");
	if (finish(&t))
		return;
	check_no_problems(&t);
	check_dump(&t, "2 0 A\n2 1 B\n2 1 C\n");
	CHECK_INT_EQ(t.nslices, 3);
	if (t.nslices == 3) {
		CHECK_U64_EQ(t.slices[0].begin, 10);
		CHECK_U64_EQ(t.slices[0].end, 50);
		CHECK_U64_EQ(t.slices[1].end, 30);
		CHECK_U64_EQ(t.slices[2].begin, 30);
		CHECK_U64_EQ(t.slices[2].end, 40);
		CHECK_U64_EQ(t.slices[2].process_koid, 1);
		CHECK_U64_EQ(t.slices[2].thread_koid, 2);
	}
	fxt_trace_free(&t);
}

/* An end closes the innermost open slice whatever its name. */
static void slices_end_closes_innermost(void)
{
	struct fxt_trace t;

	begin_trace("innermost", false);
	ev(FXT_EVENT_BEGIN, 10, "outer");
	ev(FXT_EVENT_BEGIN, 20, "inner");
	ev(FXT_EVENT_END, 30, "outer");     /* the name is ignored */
	ev(FXT_EVENT_END, 40, "inner");
	if (finish(&t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nslices, 2);
	if (t.nslices == 2) {
		CHECK_STR_EQ(t.slices[1].ev->name, "inner");
		CHECK_U64_EQ(t.slices[1].end, 30);
		CHECK_U64_EQ(t.slices[0].end, 40);
	}
	fxt_trace_free(&t);
}

static void slices_end_without_begin(void)
{
	struct fxt_trace t;

	begin_trace("endonly", false);
	ev(FXT_EVENT_END, 5, "x");
	ev(FXT_EVENT_BEGIN, 10, "A");
	ev(FXT_EVENT_END, 20, "A");
	ev(FXT_EVENT_END, 30, "A");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nproblems, 2);
	CHECK(has_problem(&t, "end without begin at 5"));
	CHECK(has_problem(&t, "end without begin at 30"));
	check_dump(&t, "2 0 A\n");
	fxt_trace_free(&t);
}

static void slices_unclosed_begin(void)
{
	struct fxt_trace t;
	char *v;

	begin_trace("unclosed", false);
	ev(FXT_EVENT_BEGIN, 10, "never");
	ev(FXT_EVENT_BEGIN, 20, "closed");
	ev(FXT_EVENT_END, 30, "closed");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nproblems, 1);
	CHECK(has_problem(&t, "begin \"never\" never ended"));
	CHECK_INT_EQ(t.nslices, 2);
	if (t.nslices == 2)
		CHECK_U64_EQ(t.slices[0].end, UINT64_MAX);
	check_dump(&t, "2 0 never\n2 1 closed\n");
	v = dump(&t, true);
	CHECK(strstr(v, "never [10, did not end]") != NULL);
	CHECK(strstr(v, "2 1   closed [20, 30] dur=10 cat=\"test\"") != NULL);
	free(v);
	fxt_trace_free(&t);
}

/* Equal timestamps keep file order; out-of-order times are sorted. */
static void slices_equal_timestamps(void)
{
	struct fxt_trace t;

	begin_trace("equal", false);
	ev(FXT_EVENT_BEGIN, 100, "late");   /* written first, begins later */
	ev(FXT_EVENT_END, 200, "late");
	ev(FXT_EVENT_BEGIN, 10, "A");
	ev(FXT_EVENT_BEGIN, 10, "B");
	ev(FXT_EVENT_END, 10, "B");
	ev(FXT_EVENT_BEGIN, 10, "C");
	ev(FXT_EVENT_END, 10, "C");
	ev(FXT_EVENT_END, 10, "A");
	if (finish(&t))
		return;
	check_no_problems(&t);
	check_dump(&t, "2 0 A\n2 1 B\n2 1 C\n2 0 late\n");
	fxt_trace_free(&t);
}

/* Instants take the stack's depth; instants at one time stack (as in Perfetto). */
static void slices_instant_depth(void)
{
	struct fxt_trace t;

	begin_trace("instants", false);
	ev(FXT_EVENT_INSTANT, 5, "i0");
	ev(FXT_EVENT_BEGIN, 10, "A");
	ev(FXT_EVENT_INSTANT, 15, "i1");
	ev(FXT_EVENT_BEGIN, 16, "B");
	ev(FXT_EVENT_INSTANT, 17, "i2");
	ev(FXT_EVENT_END, 18, "B");
	ev(FXT_EVENT_END, 20, "A");
	ev(FXT_EVENT_INSTANT, 25, "i3");
	ev(FXT_EVENT_INSTANT, 30, "k");
	ev(FXT_EVENT_INSTANT, 30, "l");
	ev(FXT_EVENT_BEGIN, 30, "D");       /* pops both instants of time 30 */
	ev(FXT_EVENT_END, 31, "D");
	if (finish(&t))
		return;
	check_no_problems(&t);
	check_dump(&t, "2 0 A\n2 1 B\n2 0 D\n2 0 i0\n2 1 i1\n2 2 i2\n2 0 i3\n2 0 k\n2 1 l\n");
	fxt_trace_free(&t);
}

static void slices_complete_events(void)
{
	struct fxt_trace t;

	begin_trace("complete", false);
	ev(FXT_EVENT_BEGIN, 0, "P");
	ev_on(FXT_EVENT_COMPLETE, 10, 20, 1, 2, "C");
	ev_on(FXT_EVENT_COMPLETE, 12, 14, 1, 2, "C1");      /* inside C */
	ev_on(FXT_EVENT_COMPLETE, 15, 25, 1, 2, "D");       /* overlaps C: dropped */
	ev_on(FXT_EVENT_COMPLETE, 20, 30, 1, 2, "E");       /* starts as C ends */
	ev(FXT_EVENT_BEGIN, 22, "F");                        /* inside E */
	ev(FXT_EVENT_END, 24, "F");
	ev(FXT_EVENT_END, 40, "P");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nproblems, 1);
	CHECK(has_problem(&t, "complete \"D\" [15, 25] overlaps \"C\" ending at 20"));
	check_dump(&t, "2 0 P\n2 1 C\n2 2 C1\n2 1 E\n2 2 F\n");
	fxt_trace_free(&t);
}

/* Perfetto pops a slice of known end at an event of its end time unless
 * both last 0 ns: a complete event of 0 ns holds what follows at its time
 * (as instants stack), one of some duration lets go of an event at its end
 * (the converter's rules, convert/complete.c, rest on both). */
static void slices_complete_zero(void)
{
	struct fxt_trace t;

	begin_trace("complete-zero", false);
	ev_on(FXT_EVENT_COMPLETE, 10, 10, 1, 2, "Z");
	ev_on(FXT_EVENT_COMPLETE, 10, 10, 1, 2, "Z2");      /* 0 ns at Z's time: inside Z */
	ev(FXT_EVENT_INSTANT, 10, "i");                      /* inside Z2 */
	ev_on(FXT_EVENT_COMPLETE, 10, 12, 1, 2, "A");       /* some duration: pops all three */
	ev(FXT_EVENT_INSTANT, 12, "j");                      /* at A's end: after A */
	ev_on(FXT_EVENT_COMPLETE, 12, 12, 1, 2, "Y");       /* 0 ns at A's end: after A, on j */
	if (finish(&t))
		return;
	check_no_problems(&t);
	check_dump(&t, "2 0 Z\n2 0 A\n2 1 Z2\n2 1 Y\n2 2 i\n2 0 j\n");
	fxt_trace_free(&t);
}

/* A begin left open inside a complete slice is cut at the complete's end. */
static void slices_begin_outlives_complete(void)
{
	struct fxt_trace t;

	begin_trace("outlive", false);
	ev_on(FXT_EVENT_COMPLETE, 0, 100, 1, 2, "C");
	ev(FXT_EVENT_BEGIN, 50, "B");
	ev(FXT_EVENT_INSTANT, 150, "after");
	ev(FXT_EVENT_END, 160, "B");
	if (finish(&t))
		return;
	CHECK(has_problem(&t, "\"C\" ends at 100 with begins inside it still open"));
	CHECK(has_problem(&t, "end without begin at 160"));
	CHECK_INT_EQ(t.nslices, 2);
	if (t.nslices == 2)
		CHECK_U64_EQ(t.slices[1].end, 100);
	fxt_trace_free(&t);
}

static void slices_depth_limit(void)
{
	enum { N = 600 };
	struct fxt_trace t;
	size_t deep = 0;

	begin_trace("deep", false);
	for (int i = 0; i < N; i++)
		ev(FXT_EVENT_BEGIN, (uint64_t)i, "r");
	for (int i = 0; i < N; i++)
		ev(FXT_EVENT_END, (uint64_t)(N + i), "r");
	if (finish(&t))
		return;
	/* the reader leaves out the inner 88 begins and their ends (the first
	 * 88 ends), in one problem line: the outer 512 end after them */
	CHECK_INT_EQ(t.nslices, 512);
	for (size_t i = 0; i < t.nproblems; i++)
		deep += strstr(t.problems[i], "deeper than 512") != NULL;
	CHECK_INT_EQ(deep, 1);
	CHECK_U64_EQ(t.deep_begins, N - 512);
	CHECK(has_problem(&t, "88 duration begins nested deeper than 512 on their thread left out"));
	CHECK(!has_problem(&t, "end without begin"));
	if (t.nslices == 512)
		CHECK_U64_EQ(t.slices[511].end, N + N - 512);
	fxt_trace_free(&t);
}

static void slices_unnamed_thread(void)
{
	struct fxt_trace t;

	begin_trace("unnamed", true);
	fxt_writer_process(w, 1, fxt_writer_cstring(w, "p [1]"));
	ev_on(FXT_EVENT_INSTANT, 1, 0, 1, 3, "x");
	ev_on(FXT_EVENT_COUNTER, 1, 0, 1, 4, "only a counter");
	if (finish(&t))
		return;
	CHECK_INT_EQ(t.nproblems, 1);
	CHECK(has_problem(&t, "1/3: events on a thread that no kernel object record names"));
	fxt_trace_free(&t);
}

/* Writes an async instant NAME at TS of PID/TID with correlation id CID. */
static void async_on(uint64_t ts, uint64_t pid, uint64_t tid, uint64_t cid, const char *name)
{
	struct fxt_event ev = { .type = FXT_EVENT_ASYNC_INSTANT, .ts = ts, .process_koid = pid,
				.thread_koid = tid, .correlation_id = cid };

	if (!w)
		return;
	ev.name = fxt_writer_cstring(w, name);
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
}

/* Async instants, as Perfetto's importer places them: on a track of no
 * process (legacy_async_global_slice), one per name of the first event in
 * time of each correlation id, ids of one such name sharing it whatever
 * their process (ids 7 and 11: "miss"); instants at one time stack (depth
 * 1, file order); never on a thread's stack; the writer refuses none, the
 * reader reports nothing. */
static void slices_async_instants(void)
{
	struct fxt_trace t;

	begin_trace("async", false);
	fxt_writer_thread(w, 1, 3, fxt_writer_cstring(w, "t [3]"));
	ev(FXT_EVENT_BEGIN, 10, "A");
	async_on(15, 1, 2, 7, "miss");
	async_on(12, 1, 3, 7, "miss");	/* earlier, another thread: first of id 7 */
	async_on(12, 1, 2, 9, "fault");
	async_on(15, 2, 4, 11, "miss");	/* another process, another id, one track */
	ev(FXT_EVENT_INSTANT, 16, "i");
	ev(FXT_EVENT_END, 20, "A");
	async_on(30, 1, 3, 7, "other name");	/* the track keeps its first name */
	if (finish(&t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 8);
	CHECK_INT_EQ(t.ninstants, 1);
	CHECK_INT_EQ(t.nasync_instants, 5);
	check_dump(&t, "2 0 A\n2 1 i\nglobal:fault 0 fault\nglobal:miss 0 miss\n"
		   "global:miss 0 miss\nglobal:miss 1 miss\nglobal:miss 0 other name\n");
	if (t.nasync_instants == 5) {
		CHECK_U64_EQ(t.async_instants[0].ev->correlation_id, 9);
		CHECK_U64_EQ(t.async_instants[1].ev->ts, 12);
		CHECK_U64_EQ(t.async_instants[1].thread_koid, 3);
		CHECK_U64_EQ(t.async_instants[3].process_koid, 2);
		CHECK_INT_EQ(t.async_instants[3].depth, 1);
		CHECK_U64_EQ(t.async_instants[4].ev->correlation_id, 7);
	}
	fxt_trace_free(&t);
}

static void slices_counters_ignored(void)
{
	struct fxt_trace t;

	begin_trace("counters", false);
	ev(FXT_EVENT_BEGIN, 10, "A");
	ev(FXT_EVENT_COUNTER, 11, "cpu freq");
	ev(FXT_EVENT_COUNTER, 12, "cpu freq");
	ev(FXT_EVENT_END, 20, "A");
	if (finish(&t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 4);
	CHECK_INT_EQ(t.ninstants, 0);
	check_dump(&t, "2 0 A\n");
	fxt_trace_free(&t);
}

/* Threads come out in (pid, tid) order, each with its slices then instants. */
static void slices_thread_order(void)
{
	static const struct { uint64_t pid, tid; } th[] = { { 2, 5 }, { 1, 9 }, { 1, 3 } };
	struct fxt_trace t;

	begin_trace("order", true);
	for (int i = 0; i < 3; i++) {
		char s[32];

		snprintf(s, sizeof(s), "t [%llu]", (unsigned long long)th[i].tid);
		fxt_writer_thread(w, th[i].pid, th[i].tid, fxt_writer_cstring(w, s));
	}
	for (int i = 0; i < 3; i++) {
		char s[32];

		snprintf(s, sizeof(s), "i%llu", (unsigned long long)th[i].tid);
		ev_on(FXT_EVENT_INSTANT, 1, 0, th[i].pid, th[i].tid, s);
		snprintf(s, sizeof(s), "s%llu", (unsigned long long)th[i].tid);
		ev_on(FXT_EVENT_COMPLETE, 5, 6, th[i].pid, th[i].tid, s);
	}
	ev_on(FXT_EVENT_INSTANT, 2, 0, 1, 9, "only-instant");
	if (finish(&t))
		return;
	check_no_problems(&t);
	check_dump(&t, "3 0 s3\n3 0 i3\n9 0 s9\n9 0 i9\n9 0 only-instant\n5 0 s5\n5 0 i5\n");
	fxt_trace_free(&t);
}

int main(void)
{
	if (unit_tmp_init("test_fxt_slices"))
		return 1;
	UNIT_RUN(slices_nesting);
	UNIT_RUN(slices_end_closes_innermost);
	UNIT_RUN(slices_end_without_begin);
	UNIT_RUN(slices_unclosed_begin);
	UNIT_RUN(slices_equal_timestamps);
	UNIT_RUN(slices_instant_depth);
	UNIT_RUN(slices_complete_events);
	UNIT_RUN(slices_complete_zero);
	UNIT_RUN(slices_begin_outlives_complete);
	UNIT_RUN(slices_depth_limit);
	UNIT_RUN(slices_unnamed_thread);
	UNIT_RUN(slices_counters_ignored);
	UNIT_RUN(slices_async_instants);
	UNIT_RUN(slices_thread_order);
	unit_tmp_fini();
	return unit_exit();
}
