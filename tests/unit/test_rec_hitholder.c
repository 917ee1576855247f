/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/hitholder: which snapshot of a sampling recording
 * holds a trigger hit, from the span of each snapshot's samples. The first
 * case is a real --multi-snapshot recording's (issue 24: a 29 ms call
 * entered 0.06 ms before snapshot 1's last sample was given snapshot 1,
 * while snapshot 2 held the call and its return); the others are built to
 * the edge of each rule. Every expected index is written out by hand.
 */
#include <stdint.h>

#include "hitholder.h"
#include "unit.h"

#define US 1000ULL
#define MS 1000000ULL
#define T0 (40691000 * MS)   /* perf clock of the recording below */

#define SPAN(first, last, read) { .samples = 2, .first_ns = (first), .last_ns = (last), \
					.read_ns = (read) }
#define EMPTY(read) { .read_ns = (read) }

/* The snapshot holding the hit (rec_hit_holder's). */
static int holder(const struct rec_snap_span *s, int n, uint64_t entry_ns, uint64_t return_ns)
{
	return rec_hit_holder(s, n, entry_ns, return_ns).snapshot;
}

/* rec-multi2 of the trial: snapshot spans and hits as perf script
 * and record.json gave them (µs after T0). */
static void hitholder_return_over_start(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(T0 + 943932 * US, T0 + 980085 * US, T0 + 981361 * US),
		SPAN(T0 + 992472 * US, T0 + 1090909 * US, T0 + 1004261 * US),
		SPAN(T0 + 1100402 * US, T0 + 1212055 * US, T0 + 1116233 * US),
		EMPTY(T0 + 1328293 * US),   /* the exit snapshot: no sample */
	};

	CHECK_INT_EQ(holder(s, 4, T0 + 955805 * US, T0 + 976159 * US), 0);
	/* returned 37 µs after snapshot 1's first sample: its return is there */
	CHECK_INT_EQ(holder(s, 4, T0 + 979333 * US, T0 + 992509 * US), 1);
	CHECK_INT_EQ(holder(s, 4, T0 + 992546 * US, T0 + 1009678 * US), 1);
	/* snapshot 1 holds its first 62 µs, snapshot 2 its return: 2, not 1 */
	CHECK_INT_EQ(holder(s, 4, T0 + 1090847 * US, T0 + 1120176 * US), 2);
}

/* No snapshot spans the return (perf's pause while it wrote one, or the
 * target exited): the largest part of the call, the earlier of equals. */
static void hitholder_largest_part(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(0, 100 * MS, 100 * MS),
		SPAN(105 * MS, 120 * MS, 120 * MS),
		SPAN(200 * MS, 300 * MS, 300 * MS),
	};

	/* snapshot 0 holds 50 ms of it, snapshot 1 15 ms */
	CHECK_INT_EQ(holder(s, 3, 50 * MS, 150 * MS), 0);
	/* snapshot 0 holds its first 2 ms, snapshot 1 15 ms */
	CHECK_INT_EQ(holder(s, 3, 98 * MS, 150 * MS), 1);
	CHECK_INT_EQ(holder(s, 3, 95 * MS, 125 * MS), 1);
	/* 15 ms each: the earlier */
	CHECK_INT_EQ(holder(s, 3, 85 * MS, 125 * MS), 0);
	/* in the gap between snapshots: none */
	CHECK_INT_EQ(holder(s, 3, 121 * MS, 199 * MS), -1);
	/* only a later snapshot spans the return: that one, whatever the earlier holds */
	CHECK_INT_EQ(holder(s, 3, 10 * MS, 200 * MS), 2);
}

/* The return on a snapshot's first or last sample is held; one past is not. */
static void hitholder_edges(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(100 * MS, 200 * MS, 150 * MS),
		SPAN(300 * MS, 400 * MS, 300 * MS),
	};

	CHECK_INT_EQ(holder(s, 2, 50 * MS, 100 * MS), 0);
	CHECK_INT_EQ(holder(s, 2, 150 * MS, 200 * MS), 0);
	CHECK_INT_EQ(holder(s, 2, 150 * MS, 300 * MS), 1);
	CHECK_INT_EQ(holder(s, 2, 150 * MS, 300 * MS - 1), 0);
	CHECK_INT_EQ(holder(s, 2, 50 * MS, 100 * MS - 1), -1);
	CHECK_INT_EQ(holder(s, 2, 401 * MS, 500 * MS), -1);
	/* from before snapshot 0 to after snapshot 1: 100 ms in each, the earlier */
	CHECK_INT_EQ(holder(s, 2, 1, 500 * MS), 0);
	CHECK_INT_EQ(holder(s, 2, 250 * MS, 450 * MS), 1);
	CHECK_INT_EQ(holder(s, 2, 150 * MS, 450 * MS), 1);
}

/* A snapshot without samples holds nothing, whatever its time says: the
 * empty exit snapshot of a target that exited gets no hit. */
static void hitholder_empty_holds_nothing(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(0, 100 * MS, 100 * MS),
		EMPTY(500 * MS),
	};

	CHECK_INT_EQ(holder(s, 2, 150 * MS, 200 * MS), -1);
	CHECK_INT_EQ(holder(s, 2, 200 * MS, 200 * MS), -1);
	CHECK_INT_EQ(holder(s, 2, 90 * MS, 200 * MS), 0);
	CHECK_INT_EQ(holder(s, 0, 90 * MS, 95 * MS), -1);
}

/* A plain hit (an instant: entry 0 or its own time): the first snapshot with
 * a sample before it whose data reaches it, its ring read then or later. */
static void hitholder_instant(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(0, 100 * MS, 130 * MS),
		SPAN(120 * MS, 300 * MS, 250 * MS),
	};

	CHECK_INT_EQ(holder(s, 2, 0, 50 * MS), 0);
	/* after snapshot 0's last sample, before its ring was read */
	CHECK_INT_EQ(holder(s, 2, 110 * MS, 110 * MS), 0);
	CHECK_INT_EQ(holder(s, 2, 0, 125 * MS), 0);
	CHECK_INT_EQ(holder(s, 2, 0, 131 * MS), 1);
	CHECK_INT_EQ(holder(s, 2, 0, 300 * MS), 1);
	CHECK_INT_EQ(holder(s, 2, 0, 301 * MS), -1);
}

/* A sleeping call whose samples are in the snapshot before the one holding
 * its return: a real --multi-snapshot recording's (issue 24, trial 17:
 * `run --trigger handle_request --trigger-slower-than 5ms --multi-snapshot
 * --min-interval 0 -- ./slow 25`; ns after its R0, as perf script gave
 * each file's cpu-clock samples and first and last record). Hit 3 burned
 * the CPU, then slept: perf read snapshot 1's ring during the sleep, so
 * snapshot 2 holds only its switch-in and return; the old rule gave it
 * snapshot 2, whose file shows nothing of the call running. */
#define R0 54532000000000ULL
static void hitholder_samples_over_switches(void)
{
	static const uint64_t s0[] = { R0 + 367738130, R0 + 370261859, R0 + 372517419,
				       R0 + 374764520, R0 + 385069111, R0 + 387327027 };
	static const uint64_t s1[] = {
		R0 + 389596358, R0 + 394092196, R0 + 396351065, R0 + 405590883, R0 + 412135950,
		R0 + 432175805, R0 + 440168622, R0 + 444142045, R0 + 454339104, R0 + 456607643,
		R0 + 468204540, R0 + 472653928, R0 + 488152668, R0 + 488352052, R0 + 492862402,
		R0 + 495133528, R0 + 498171207, R0 + 500428551, R0 + 511166471,
	};
	const struct rec_snap_span s[] = {
		{ .samples = 38, .first_ns = R0 + 367044526, .last_ns = R0 + 387454740,
		  .read_ns = R0 + 387518697, .sampled = s0, .nsampled = 6 },
		{ .samples = 107, .first_ns = R0 + 389528365, .last_ns = R0 + 511188708,
		  .read_ns = R0 + 423775303, .sampled = s1, .nsampled = 19 },
		{ .samples = 5, .first_ns = R0 + 521409829, .last_ns = R0 + 526468355,
		  .read_ns = R0 + 512963008 },
		EMPTY(R0 + 796116317),
	};
	struct rec_hit_place p;

	CHECK_INT_EQ(holder(s, 4, R0 + 374669931, R0 + 382901315), 0);
	CHECK_INT_EQ(holder(s, 4, R0 + 412021546, R0 + 423706510), 1);
	CHECK_INT_EQ(holder(s, 4, R0 + 472466057, R0 + 483736487), 1);
	p = rec_hit_holder(s, 4, R0 + 508040776, R0 + 521417203);
	CHECK_INT_EQ(p.snapshot, 1);
	CHECK(p.call_first == 1 && p.call_last == 1);
	/* no sample of the call anywhere: the span of records decides */
	p = rec_hit_holder(s, 4, R0 + 511170000, R0 + 521417203);
	CHECK_INT_EQ(p.snapshot, 2);
	CHECK(p.call_first == -1 && p.call_last == -1);
}

/* The call's samples in two snapshots: the one holding more of them, the
 * one spanning its return among equals; the first and last said. */
static void hitholder_split_call(void)
{
	static const uint64_t a[] = { 10 * MS, 20 * MS, 30 * MS, 40 * MS };
	static const uint64_t b[] = { 60 * MS, 70 * MS };
	static const uint64_t c[] = { 60 * MS, 70 * MS, 80 * MS };
	const struct rec_snap_span s[] = {
		{ .samples = 4, .first_ns = 10 * MS, .last_ns = 40 * MS, .read_ns = 45 * MS,
		  .sampled = a, .nsampled = 4 },
		{ .samples = 2, .first_ns = 60 * MS, .last_ns = 70 * MS, .read_ns = 75 * MS,
		  .sampled = b, .nsampled = 2 },
	};
	const struct rec_snap_span t[] = {
		s[0],
		{ .samples = 3, .first_ns = 60 * MS, .last_ns = 80 * MS, .read_ns = 85 * MS,
		  .sampled = c, .nsampled = 3 },
	};
	struct rec_hit_place p;

	/* 3 samples in snapshot 0, 2 in snapshot 1 (which spans the return) */
	p = rec_hit_holder(s, 2, 15 * MS, 65 * MS);
	CHECK(p.snapshot == 0 && p.call_first == 0 && p.call_last == 1);
	/* 2 each: the one spanning the return */
	p = rec_hit_holder(t, 2, 25 * MS, 75 * MS);
	CHECK(p.snapshot == 1 && p.call_first == 0 && p.call_last == 1);
	/* 2 each, none spanning the return: the earlier */
	p = rec_hit_holder(s, 2, 25 * MS, 72 * MS);
	CHECK(p.snapshot == 0 && p.call_first == 0 && p.call_last == 1);
	/* a sample on the entry and on the return counts */
	p = rec_hit_holder(s, 2, 40 * MS, 60 * MS);
	CHECK(p.snapshot == 1 && p.call_first == 0 && p.call_last == 1);
	/* an instant is never a call */
	p = rec_hit_holder(s, 2, 0, 20 * MS);
	CHECK(p.snapshot == 0 && p.call_first == -1);
}

int main(void)
{
	UNIT_RUN(hitholder_samples_over_switches);
	UNIT_RUN(hitholder_split_call);
	UNIT_RUN(hitholder_return_over_start);
	UNIT_RUN(hitholder_largest_part);
	UNIT_RUN(hitholder_edges);
	UNIT_RUN(hitholder_empty_holds_nothing);
	UNIT_RUN(hitholder_instant);
	return unit_exit();
}
