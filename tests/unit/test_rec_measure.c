/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/measure's statistics (--measure): count, total, exact
 * min and max, percentiles within 1%, the slowest calls longest first, the
 * calls of the first second, the calls file (each call written once, the
 * ring's losses counted), and every call of the slow-call matcher reaching
 * the statistics (its "every" hook) while only the slow ones are hits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "measure.h"
#include "unit.h"

#define US 1000ULL
#define S 1000000000ULL

static struct rec_call call(int tid, uint64_t entry, uint64_t dur)
{
	return (struct rec_call){ .pid = 7, .tid = tid, .entry_ns = entry, .duration_ns = dur };
}

/* 300 calls of 1 ms and 100 of 3 ms, then one of 20 ms: the numbers. */
static void measure_numbers(void)
{
	struct rec_call_stats st = REC_CALL_STATS_INIT;
	struct rec_call slow[REC_MEASURE_SLOWEST];
	uint64_t t = 10 * S;
	int n;

	for (int i = 0; i < 400; i++, t += 5000 * US) {
		struct rec_call c = call(8, t, i % 4 == 3 ? 3000 * US : 1000 * US);

		CHECK_INT_EQ(rec_call_stats_add(&st, &c), 0);
	}
	{
		struct rec_call c = call(9, t, 20000 * US);

		CHECK_INT_EQ(rec_call_stats_add(&st, &c), 0);
	}
	CHECK_INT_EQ(st.calls, 401);
	CHECK_INT_EQ(st.total_ns, 300 * 1000 * US + 100 * 3000 * US + 20000 * US);
	CHECK_INT_EQ(st.hist.min, 1000 * US);
	CHECK_INT_EQ(st.hist.max, 20000 * US);
	CHECK(hist_percentile(&st.hist, 50) >= 990 * US && hist_percentile(&st.hist, 50) <= 1010 * US);
	CHECK(hist_percentile(&st.hist, 90) >= 2970 * US && hist_percentile(&st.hist, 90) <= 3030 * US);
	n = rec_call_stats_slowest(&st, slow);
	CHECK_INT_EQ(n, REC_MEASURE_SLOWEST);
	CHECK(slow[0].duration_ns == 20000 * US && slow[0].tid == 9);
	for (int i = 1; i < n; i++)
		CHECK_INT_EQ(slow[i].duration_ns, 3000 * US);
	/* the first second: calls returned within 1 s of the first's entry */
	CHECK_INT_EQ(st.first_second, 200);
	rec_call_stats_free(&st);
}

/* Writes ST's new calls into a temporary file; returns its lines (into BUF). */
static int written(struct rec_call_stats *st, int index, char *buf, size_t size)
{
	FILE *f = tmpfile();
	size_t len;
	int lines = 0;

	if (!f)
		return -1;
	CHECK_INT_EQ(rec_call_stats_write(st, f, index), 0);
	rewind(f);
	len = fread(buf, 1, size - 1, f);
	buf[len] = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	fclose(f);
	return lines;
}

/* Each call goes to the calls file once, with its caller and how it ended;
 * calls the ring lost are counted. */
static void measure_calls_file(void)
{
	struct rec_call_stats st = REC_CALL_STATS_INIT;
	static char buf[8 << 20];
	uint64_t t = 5 * S;

	for (int i = 0; i < 3; i++, t += 10 * US)
		rec_call_stats_add(&st, &(struct rec_call){ .pid = 7, .tid = 8, .entry_ns = t,
							  .duration_ns = 4 * US, .thrown = i == 2,
							  .has_caller = i > 0, .caller_off = i == 1 ? -581 : 122 });
	CHECK_INT_EQ(written(&st, 2, buf, sizeof(buf)), 3);
	/* the caller ("?" not known), then "exception" for a call left by one */
	CHECK(!strcmp(buf, "2 7 8 5000000000 5000004000 ?\n2 7 8 5000010000 5000014000 -581\n"
			   "2 7 8 5000020000 5000024000 +122 exception\n"));
	CHECK_INT_EQ(written(&st, 2, buf, sizeof(buf)), 0);
	for (int i = 0; i < REC_MEASURE_RECENT + 5; i++, t += 10 * US)
		rec_call_stats_add(&st, &(struct rec_call){ .pid = 7, .tid = 8, .entry_ns = t,
							  .duration_ns = 4 * US });
	CHECK_INT_EQ(written(&st, 0, buf, sizeof(buf)), REC_MEASURE_RECENT);
	CHECK_INT_EQ(st.dropped, 5);
	CHECK_INT_EQ(st.written, st.calls);
	rec_call_stats_free(&st);
}

/* The slow-call matcher hands every call to "every", only slow ones to FN. */
static int hits;
static void count_hit(const struct rec_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
	hits++;
}

static void measure_every_call(void)
{
	struct rec_slowcall sc;
	struct rec_measure m;
	struct rec_trigger_loc loc = { .symbol = "f" };
	struct rec_callexits none = { 0 };

	rec_measure_init(&m, "f", &loc, &none);
	rec_slowcall_init(&sc, 2 * US * 1000);      /* slow: longer than 2 ms */
	sc.every = rec_measure_call;
	sc.every_arg = &m;
	for (int i = 0; i < 10; i++) {
		uint64_t t = S + (uint64_t)i * 10 * US * 1000;
		struct rec_trig_sample e = { .pid = 7, .tid = 8, .time_ns = t, .sp = 0x7f00 };
		struct rec_trig_sample r = e;

		r.ret = true;
		r.time_ns = t + (i == 4 ? 3 : 1) * US * 1000;
		rec_slowcall_add(&sc, &e);
		rec_slowcall_add(&sc, &r);
	}
	rec_slowcall_pass(&sc, count_hit, NULL);
	rec_slowcall_pass(&sc, count_hit, NULL);
	CHECK_INT_EQ(m.st.calls, 10);
	CHECK_INT_EQ(hits, 1);
	CHECK_INT_EQ(m.st.hist.max, 3 * US * 1000);
	rec_slowcall_free(&sc);
	rec_measure_free(&m);
}

/* A function with no call says what it was measured over (issue 24: a
 * recording stopped 0.181 ms in said "no call", as if it were never called). */
static void measure_none_words(void)
{
	char buf[256];

	CHECK_STR_EQ(rec_measure_none_words(66004276627721, 66004276808892, true, false, 0, 0, buf,
					    sizeof(buf)),
		     "no call in the 0.181 ms recorded (the recording was stopped while it was "
		     "starting: not measured long enough to tell)");
	CHECK_STR_EQ(rec_measure_none_words(1000000, 2501000000, false, false, 0, 0, buf, sizeof(buf)),
		     "no call in the 2500.000 ms recorded");
	CHECK_STR_EQ(rec_measure_none_words(0, 2501000000, true, false, 0, 0, buf, sizeof(buf)),
		     "not measured: the recording was stopped while it was starting");
	CHECK_STR_EQ(rec_measure_none_words(5, 0, false, false, 0, 0, buf, sizeof(buf)), "no call");
	/* an attach inside main: no entry, no return, main ran all along */
	CHECK_STR_EQ(rec_measure_none_words(1000000, 501871000, false, true, 0, 0, buf,
					    sizeof(buf)),
		     "no call entered or returned in the 500.871 ms recorded (one running since "
		     "before the attach, as main, and still at the end is seen by neither)");
	/* the new-user check's attach stopped 7.367 ms in, in calls of ~10 ms:
	 * one returned in it, one still running at its end */
	CHECK_STR_EQ(rec_measure_none_words(1000000000, 1007367000, false, false, 1, 1, buf, sizeof(buf)),
		     "no whole call in the 7.367 ms recorded (1 call entered before it returned "
		     "in it, 1 call still running at its end: their durations are not known)");
	CHECK_STR_EQ(rec_measure_none_words(1000000000, 1007883000, false, false, 1, 0, buf, sizeof(buf)),
		     "no whole call in the 7.883 ms recorded (1 call entered before it returned "
		     "in it: its duration is not known)");
	CHECK_STR_EQ(rec_measure_none_words(0, 0, false, false, 0, 2, buf, sizeof(buf)),
		     "no whole call recorded (2 calls still running at its end: their durations "
		     "are not known)");
}

int main(void)
{
	UNIT_RUN(measure_numbers);
	UNIT_RUN(measure_calls_file);
	UNIT_RUN(measure_every_call);
	UNIT_RUN(measure_none_words);
	return unit_exit();
}
