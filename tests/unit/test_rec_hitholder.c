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

#define SPAN(first, last, read) { 2, (first), (last), (read) }
#define EMPTY(read) { 0, 0, 0, (read) }

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

	CHECK_INT_EQ(rec_hit_holder(s, 4, T0 + 955805 * US, T0 + 976159 * US), 0);
	/* returned 37 µs after snapshot 1's first sample: its return is there */
	CHECK_INT_EQ(rec_hit_holder(s, 4, T0 + 979333 * US, T0 + 992509 * US), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 4, T0 + 992546 * US, T0 + 1009678 * US), 1);
	/* snapshot 1 holds its first 62 µs, snapshot 2 its return: 2, not 1 */
	CHECK_INT_EQ(rec_hit_holder(s, 4, T0 + 1090847 * US, T0 + 1120176 * US), 2);
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
	CHECK_INT_EQ(rec_hit_holder(s, 3, 50 * MS, 150 * MS), 0);
	/* snapshot 0 holds its first 2 ms, snapshot 1 15 ms */
	CHECK_INT_EQ(rec_hit_holder(s, 3, 98 * MS, 150 * MS), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 3, 95 * MS, 125 * MS), 1);
	/* 15 ms each: the earlier */
	CHECK_INT_EQ(rec_hit_holder(s, 3, 85 * MS, 125 * MS), 0);
	/* in the gap between snapshots: none */
	CHECK_INT_EQ(rec_hit_holder(s, 3, 121 * MS, 199 * MS), -1);
	/* only a later snapshot spans the return: that one, whatever the earlier holds */
	CHECK_INT_EQ(rec_hit_holder(s, 3, 10 * MS, 200 * MS), 2);
}

/* The return on a snapshot's first or last sample is held; one past is not. */
static void hitholder_edges(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(100 * MS, 200 * MS, 150 * MS),
		SPAN(300 * MS, 400 * MS, 300 * MS),
	};

	CHECK_INT_EQ(rec_hit_holder(s, 2, 50 * MS, 100 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 150 * MS, 200 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 150 * MS, 300 * MS), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 150 * MS, 300 * MS - 1), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 50 * MS, 100 * MS - 1), -1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 401 * MS, 500 * MS), -1);
	/* from before snapshot 0 to after snapshot 1: 100 ms in each, the earlier */
	CHECK_INT_EQ(rec_hit_holder(s, 2, 1, 500 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 250 * MS, 450 * MS), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 150 * MS, 450 * MS), 1);
}

/* A snapshot without samples holds nothing, whatever its time says: the
 * empty exit snapshot of a target that exited gets no hit. */
static void hitholder_empty_holds_nothing(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(0, 100 * MS, 100 * MS),
		EMPTY(500 * MS),
	};

	CHECK_INT_EQ(rec_hit_holder(s, 2, 150 * MS, 200 * MS), -1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 200 * MS, 200 * MS), -1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 90 * MS, 200 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 0, 90 * MS, 95 * MS), -1);
}

/* A plain hit (an instant: entry 0 or its own time): the first snapshot with
 * a sample before it whose data reaches it, its ring read then or later. */
static void hitholder_instant(void)
{
	static const struct rec_snap_span s[] = {
		SPAN(0, 100 * MS, 130 * MS),
		SPAN(120 * MS, 300 * MS, 250 * MS),
	};

	CHECK_INT_EQ(rec_hit_holder(s, 2, 0, 50 * MS), 0);
	/* after snapshot 0's last sample, before its ring was read */
	CHECK_INT_EQ(rec_hit_holder(s, 2, 110 * MS, 110 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 0, 125 * MS), 0);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 0, 131 * MS), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 0, 300 * MS), 1);
	CHECK_INT_EQ(rec_hit_holder(s, 2, 0, 301 * MS), -1);
}

int main(void)
{
	UNIT_RUN(hitholder_return_over_start);
	UNIT_RUN(hitholder_largest_part);
	UNIT_RUN(hitholder_edges);
	UNIT_RUN(hitholder_empty_holds_nothing);
	UNIT_RUN(hitholder_instant);
	return unit_exit();
}
