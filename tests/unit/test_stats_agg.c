// SPDX-License-Identifier: MIT
/*
 * Unit tests of snaptrace stats' reader (stats/agg.c) on the layouts of
 * duration complete records: slices with children as begin/end pairs and
 * leaves as complete records written when they end (snaptrace-convert's
 * layout, convert/complete.c) are read in one pass, so nothing is kept
 * aside however many leaves there are; the same slices with each parent
 * as a complete record written after its children need the second pass,
 * and both give the same numbers (hand-computed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../stats/agg.h"
#include "fxt_format.h"
#include "unit_fxt.h"
#include "unit_tmp.h"

enum { LEAVES = 100000 };

struct writer {
	struct fxt_writer *w;
	fxt_string_id cat;
};

static void event(struct writer *w, enum fxt_event_type type, uint64_t tid, uint64_t ts,
		  uint64_t end, const char *name)
{
	struct fxt_event ev = { .type = type, .ts = ts, .end_ts = end, .process_koid = 1,
				.thread_koid = tid, .category = w->cat,
				.name = fxt_writer_cstring(w->w, name) };

	fxt_writer_event(w->w, &ev);
}

/* Writes PATH: on threads 1 and 2 (interleaved), main [0, 10 LEAVES + 100]
 * holding LEAVES calls of leaf, each [10 i + 1, 10 i + 5], then inner
 * [10 LEAVES + 10, 10 LEAVES + 90] holding leaf [10 LEAVES + 20, 10 LEAVES + 30].
 * PAIRS: main and inner as begin/end pairs, else as complete records written
 * when they end (after their children). */
static void write_trace(const char *path, bool pairs)
{
	struct writer w = { .w = open_or_fail(path, FXT_OUTPUT_AUTO) };
	const uint64_t n = 10 * LEAVES;

	if (!w.w)
		return;
	w.cat = fxt_writer_cstring(w.w, "/bin/app");
	for (uint64_t tid = 1; tid <= 2; tid++)
		if (pairs)
			event(&w, FXT_EVENT_BEGIN, tid, 0, 0, "main");
	for (uint64_t i = 0; i < LEAVES; i++)
		for (uint64_t tid = 1; tid <= 2; tid++)
			event(&w, FXT_EVENT_COMPLETE, tid, 10 * i + 1, 10 * i + 5, "leaf");
	for (uint64_t tid = 1; tid <= 2; tid++) {
		if (pairs)
			event(&w, FXT_EVENT_BEGIN, tid, n + 10, 0, "inner");
		event(&w, FXT_EVENT_COMPLETE, tid, n + 20, n + 30, "leaf");
		if (pairs) {
			event(&w, FXT_EVENT_END, tid, n + 90, 0, "inner");
			event(&w, FXT_EVENT_END, tid, n + 100, 0, "main");
		} else {
			event(&w, FXT_EVENT_COMPLETE, tid, n + 10, n + 90, "inner");
			event(&w, FXT_EVENT_COMPLETE, tid, 0, n + 100, "main");
		}
	}
	CHECK_INT_EQ(fxt_writer_close(w.w), 0);
}

static const struct agg_row *row(const struct agg *a, const char *name)
{
	for (size_t i = 0; i < a->nrows; i++)
		if (!strcmp(a->rows[i].name, name))
			return &a->rows[i];
	UNIT_FAIL("no row %s", name);
	return NULL;
}

/* Reads PATH; checks the numbers and that it took PASSES passes. */
static void check(const char *path, unsigned passes)
{
	struct agg a = { 0 };
	char err[256];
	size_t problems = 1;
	const struct agg_row *r;
	const uint64_t n = 10 * LEAVES;

	if (agg_read(&a, path, &problems, err, sizeof(err))) {
		UNIT_FAIL("agg_read(%s): %s", path, err);
		agg_free(&a);
		return;
	}
	CHECK_INT_EQ(problems, 0);
	CHECK_INT_EQ(a.passes, passes);
	CHECK_U64_EQ(a.slices, 2 * (LEAVES + 3));
	CHECK_U64_EQ(a.unended, 0);
	if ((r = row(&a, "leaf"))) {
		CHECK_U64_EQ(r->hist.total, 2 * (LEAVES + 1));
		CHECK_U64_EQ(r->total_ns, 2 * (4 * LEAVES + 10));
	}
	if ((r = row(&a, "inner"))) {
		CHECK_U64_EQ(r->total_ns, 2 * 80);
		CHECK_U64_EQ(r->self_ns, 2 * 70);
	}
	if ((r = row(&a, "main"))) {
		CHECK_U64_EQ(r->total_ns, 2 * (n + 100));
		CHECK_U64_EQ(r->self_ns, 2 * (n + 100 - 4 * LEAVES - 80));
	}
	agg_free(&a);
}

/* snaptrace-convert's layout: one pass, nothing kept aside. */
static void leaves_complete(void)
{
	const char *path = unit_tmp("leaves.fxt");

	write_trace(path, true);
	check(path, 1);
}

/* A parent written as a complete record after its children: late, two passes. */
static void parents_complete(void)
{
	const char *path = unit_tmp("parents.fxt");

	write_trace(path, false);
	check(path, 2);
}

int main(void)
{
	if (unit_tmp_init("test_stats_agg"))
		return 1;
	UNIT_RUN(leaves_complete);
	UNIT_RUN(parents_complete);
	unit_tmp_fini();
	return unit_exit();
}
