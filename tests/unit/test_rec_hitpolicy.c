/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/hitpolicy: which trigger hits take a snapshot.
 * Arming (early hits wait, --arm-after ignores them, a later early hit takes
 * the waiting one's place), coalescing (one snapshot, or one per
 * --min-interval with --multi-snapshot), storms of hits, hits read out of
 * order, hits after the end or a fatal signal, unrecorded threads and no
 * memory to log a hit. Each case plays a recording as the session does: it
 * keeps the waiting hit (REC_HIT_SNAPSHOT/DEFERRED) until the snapshot is
 * "taken", and every expected verdict and count is written out by hand.
 */
#include <stdint.h>

#include "hitpolicy.h"
#include "unit.h"

#define MS 1000000ULL
#define READY (5000 * MS)   /* CLOCK_MONOTONIC ns perf records from */

/* A recording as the session holds it around the policy. */
struct play {
	struct rec_hitpolicy p;
	bool waiting, logged, ended, fatal, full;
	int snapshots;               /* REC_HIT_SNAPSHOT verdicts */
};

static void play_start(struct play *pl, bool multi, unsigned min_interval_ms,
		       enum rec_arm_by by, double after_ms)
{
	memset(pl, 0, sizeof(*pl));
	rec_hitpolicy_init(&pl->p, multi, min_interval_ms * 1000000ull, by);
	rec_hitpolicy_arm(&pl->p, READY, after_ms);
}

/* A hit of perf time HIT_NS seen at MONO_NS in a recorded thread. */
static enum rec_hit_verdict hit_at(struct play *pl, uint64_t mono_ns, uint64_t hit_ns)
{
	struct rec_hit_now now = { .mono_ns = mono_ns, .recorded = true, .ended = pl->ended,
				   .waiting = pl->waiting, .logged = pl->logged,
				   .fatal = pl->fatal, .room = !pl->full };
	enum rec_hit_verdict v = rec_hitpolicy_hit(&pl->p, hit_ns, &now);

	if (v == REC_HIT_SNAPSHOT || v == REC_HIT_DEFERRED) {
		CHECK(!pl->waiting);
		pl->waiting = pl->logged = true;
		pl->snapshots += v == REC_HIT_SNAPSHOT;
	}
	return v;
}

/* The waiting hit's snapshot is taken (the main loop, once armed). */
static void taken(struct play *pl)
{
	pl->waiting = false;
}

/* A hit before the arming (300 ms after READY) and one after it both coalesce. */
static void early_and_late_coalesce(struct play *pl)
{
	CHECK_INT_EQ(hit_at(pl, READY, 1000 * MS), REC_HIT_COALESCED);
	CHECK_INT_EQ(hit_at(pl, READY + 400 * MS, 1400 * MS), REC_HIT_COALESCED);
}

static void hitpolicy_arms_after_fill(void)
{
	struct play pl;

	play_start(&pl, false, 0, REC_ARM_RING, 300);
	CHECK(!rec_hitpolicy_armed(&pl.p, READY));
	CHECK(!rec_hitpolicy_armed(&pl.p, READY + 300 * MS - 1));
	CHECK(rec_hitpolicy_armed(&pl.p, READY + 300 * MS));
	CHECK_INT_EQ(rec_hitpolicy_arm_wait_ms(&pl.p, READY), 301);
	CHECK_INT_EQ(rec_hitpolicy_arm_wait_ms(&pl.p, READY + 299 * MS + MS / 2), 1);
	CHECK_INT_EQ(rec_hitpolicy_arm_wait_ms(&pl.p, READY + 300 * MS), 0);
	/* not recording yet: never armed */
	rec_hitpolicy_init(&pl.p, false, 0, REC_ARM_RING);
	CHECK(!rec_hitpolicy_armed(&pl.p, UINT64_MAX));
	CHECK_INT_EQ(rec_hitpolicy_arm_wait_ms(&pl.p, READY), -1);
}

static void hitpolicy_early_hit_waits_and_is_replaced(void)
{
	struct play pl;

	play_start(&pl, false, 0, REC_ARM_RING, 300);
	CHECK_INT_EQ(hit_at(&pl, READY + 10 * MS, 1010 * MS), REC_HIT_DEFERRED);
	CHECK_INT_EQ(hit_at(&pl, READY + 20 * MS, 1020 * MS), REC_HIT_REPLACES);
	CHECK_INT_EQ(hit_at(&pl, READY + 30 * MS, 1030 * MS), REC_HIT_REPLACES);
	CHECK_U64_EQ(pl.p.last_hit_ns, 1030 * MS);
	/* armed: the waiting hit's snapshot is taken; a single snapshot's later hits coalesce */
	taken(&pl);
	CHECK_INT_EQ(hit_at(&pl, READY + 400 * MS, 1400 * MS), REC_HIT_COALESCED);
	/* the two replaced are coalesced into the waiting one's snapshot */
	CHECK_U64_EQ(pl.p.seen, 4);
	CHECK_U64_EQ(pl.p.early, 3);
	CHECK_U64_EQ(pl.p.before_armed, 0);
	CHECK_U64_EQ(pl.p.coalesced, 3);
	CHECK_INT_EQ(pl.snapshots, 0);
}

static void hitpolicy_arm_after_ignores_early(void)
{
	struct play pl;

	play_start(&pl, false, 0, REC_ARM_OPTION, 1000);
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_IGNORED);
	CHECK_INT_EQ(hit_at(&pl, READY + 999 * MS, 1999 * MS), REC_HIT_IGNORED);
	CHECK(!pl.logged);
	CHECK_INT_EQ(hit_at(&pl, READY + 1000 * MS, 2000 * MS), REC_HIT_SNAPSHOT);
	CHECK_U64_EQ(pl.p.before_armed, 2);
	CHECK_U64_EQ(pl.p.coalesced, 0);
	CHECK_U64_EQ(pl.p.seen, 3);
}

static void hitpolicy_at_once_first_hit(void)
{
	struct play pl;

	play_start(&pl, false, 0, REC_ARM_AT_ONCE, 0);
	CHECK(rec_hitpolicy_armed(&pl.p, READY));
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_SNAPSHOT);
	/* while it waits, and after it was taken: a single snapshot */
	CHECK_INT_EQ(hit_at(&pl, READY + MS, 1001 * MS), REC_HIT_COALESCED);
	taken(&pl);
	CHECK_INT_EQ(hit_at(&pl, READY + 9000 * MS, 9000 * MS), REC_HIT_COALESCED);
	CHECK_INT_EQ(pl.snapshots, 1);
	CHECK_U64_EQ(pl.p.coalesced, 2);
}

/* --multi-snapshot --min-interval 100: a storm of 10000 hits 20 us apart
 * (200 ms) takes one snapshot per 100 ms of hit time, the rest coalesce. */
static void hitpolicy_storm_min_interval(void)
{
	struct play pl;
	int verdicts[REC_HIT_COALESCED + 1] = { 0 };
	uint64_t t0 = 1000 * MS;

	play_start(&pl, true, 100, REC_ARM_AT_ONCE, 0);
	for (int i = 0; i < 10000; i++) {
		uint64_t t = t0 + (uint64_t)i * 20000;

		verdicts[hit_at(&pl, READY + (uint64_t)i * 20000, t)]++;
		taken(&pl);   /* the loop takes each one before the next hit */
	}
	CHECK_INT_EQ(verdicts[REC_HIT_SNAPSHOT], 2);   /* at 0 ms and at 100 ms */
	CHECK_INT_EQ(verdicts[REC_HIT_COALESCED], 9998);
	CHECK_U64_EQ(pl.p.last_hit_ns, t0 + 100 * MS);
	CHECK_U64_EQ(pl.p.seen, 10000);
	CHECK_U64_EQ(pl.p.coalesced, 9998);
}

/* --multi-snapshot: a hit while another waits coalesces even past the
 * interval; one read after a later one (another CPU's ring) is within it. */
static void hitpolicy_multi_waiting_and_out_of_order(void)
{
	struct play pl;

	play_start(&pl, true, 10, REC_ARM_AT_ONCE, 0);
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_SNAPSHOT);
	CHECK_INT_EQ(hit_at(&pl, READY + 50 * MS, 1050 * MS), REC_HIT_COALESCED);
	taken(&pl);
	CHECK_INT_EQ(hit_at(&pl, READY + 51 * MS, 999 * MS), REC_HIT_COALESCED);
	CHECK_INT_EQ(hit_at(&pl, READY + 52 * MS, 1009 * MS), REC_HIT_COALESCED);
	CHECK_INT_EQ(hit_at(&pl, READY + 53 * MS, 1010 * MS), REC_HIT_SNAPSHOT);
	/* --min-interval 0: every hit once none waits */
	play_start(&pl, true, 0, REC_ARM_AT_ONCE, 0);
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_SNAPSHOT);
	taken(&pl);
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_SNAPSHOT);
	CHECK_INT_EQ(pl.snapshots, 2);
}

/* After the recording's end every hit coalesces, armed or not; after a
 * fatal signal's snapshot a single-snapshot recording takes no other. */
static void hitpolicy_after_end_and_fatal(void)
{
	struct play pl;

	play_start(&pl, true, 0, REC_ARM_RING, 300);
	pl.ended = true;
	early_and_late_coalesce(&pl);
	CHECK_U64_EQ(pl.p.before_armed, 0);
	CHECK_U64_EQ(pl.p.coalesced, 2);

	play_start(&pl, false, 0, REC_ARM_AT_ONCE, 0);
	pl.fatal = true;
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_COALESCED);
	play_start(&pl, true, 0, REC_ARM_AT_ONCE, 0);
	pl.fatal = true;
	CHECK_INT_EQ(hit_at(&pl, READY, 1000 * MS), REC_HIT_SNAPSHOT);
}

/* No memory to log a hit: it coalesces, and the next one still can take one. */
static void hitpolicy_no_room(void)
{
	struct play pl;

	play_start(&pl, false, 0, REC_ARM_RING, 300);
	pl.full = true;
	early_and_late_coalesce(&pl);
	CHECK_U64_EQ(pl.p.last_hit_ns, 0);
	pl.full = false;
	CHECK_INT_EQ(hit_at(&pl, READY + 401 * MS, 1401 * MS), REC_HIT_SNAPSHOT);
	CHECK_U64_EQ(pl.p.coalesced, 2);
}

static void hitpolicy_unrecorded_threads(void)
{
	static const pid_t pids[] = { 100, 200 };
	struct rec_hitpolicy p;
	struct rec_hit_now now = { .mono_ns = READY, .recorded = false, .room = true };

	CHECK(rec_hitpolicy_recorded(100, 0, false, pids, 2));
	CHECK(rec_hitpolicy_recorded(200, 0, false, pids, 2));
	CHECK(!rec_hitpolicy_recorded(101, 0, false, pids, 2));
	CHECK(rec_hitpolicy_recorded(101, 0, true, pids, 2));
	/* -t: that thread alone, even with --multi-thread */
	CHECK(rec_hitpolicy_recorded(105, 105, true, pids, 2));
	CHECK(!rec_hitpolicy_recorded(100, 105, true, pids, 2));

	rec_hitpolicy_init(&p, false, 0, REC_ARM_AT_ONCE);
	rec_hitpolicy_arm(&p, READY, 0);
	CHECK_INT_EQ(rec_hitpolicy_hit(&p, 1000 * MS, &now), REC_HIT_UNRECORDED);
	CHECK_INT_EQ(rec_hitpolicy_hit(&p, 1001 * MS, &now), REC_HIT_UNRECORDED);
	now.recorded = true;
	CHECK_INT_EQ(rec_hitpolicy_hit(&p, 1002 * MS, &now), REC_HIT_SNAPSHOT);
	CHECK_U64_EQ(p.unrecorded, 2);
	CHECK_U64_EQ(p.seen, 3);
	CHECK_U64_EQ(p.coalesced, 0);
}

/* Every hit has one fate: a recording of every kind (single or multiple
 * snapshots, each arming), hits in and out of recorded threads, at every
 * moment (before and after the arming, waiting, in flight, at the end,
 * without room), each seen hit is logged (its verdict takes or waits for a
 * snapshot, or it takes the place of the one waiting), coalesced, ignored
 * before the arming, or unrecorded: no count loses one, and none counts one
 * twice. */
static void hitpolicy_every_hit_accounted(void)
{
	static const enum rec_arm_by arms[] = { REC_ARM_RING, REC_ARM_OPTION, REC_ARM_AT_ONCE };
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		struct play pl;
		uint64_t logged = 0, mono = READY, t = 1000 * MS;

		play_start(&pl, round & 1, (unsigned)(round % 3) * 50, arms[round % 3],
			   round % 3 == 2 ? 0 : 300);
		for (int i = 0; i < 200; i++) {
			unsigned r = seed = seed * 1103515245u + 12345u;
			struct rec_hit_now now;
			enum rec_hit_verdict v;

			mono += (r >> 8) % (40 * MS);
			t += (r >> 4) % (40 * MS);
			pl.ended |= (r >> 20) % 97 == 0;
			pl.full = (r >> 12) % 23 == 0;
			if (pl.waiting && (r >> 16) % 3 == 0)
				taken(&pl);
			now = (struct rec_hit_now){ .mono_ns = mono, .recorded = (r >> 24) % 5 != 0,
						    .ended = pl.ended, .waiting = pl.waiting,
						    .logged = pl.logged, .fatal = pl.fatal,
						    .room = !pl.full };
			v = rec_hitpolicy_hit(&pl.p, t - ((r >> 2) % 3) * MS, &now);
			/* a replacing hit takes the log entry of the one it replaces */
			logged += v == REC_HIT_SNAPSHOT || v == REC_HIT_DEFERRED;
			if (v == REC_HIT_SNAPSHOT || v == REC_HIT_DEFERRED)
				pl.waiting = pl.logged = true;
		}
		CHECK_U64_EQ(pl.p.seen, logged + pl.p.coalesced + pl.p.before_armed +
			     pl.p.unrecorded);
	}
}

int main(void)
{
	UNIT_RUN(hitpolicy_arms_after_fill);
	UNIT_RUN(hitpolicy_early_hit_waits_and_is_replaced);
	UNIT_RUN(hitpolicy_arm_after_ignores_early);
	UNIT_RUN(hitpolicy_at_once_first_hit);
	UNIT_RUN(hitpolicy_storm_min_interval);
	UNIT_RUN(hitpolicy_multi_waiting_and_out_of_order);
	UNIT_RUN(hitpolicy_after_end_and_fatal);
	UNIT_RUN(hitpolicy_no_room);
	UNIT_RUN(hitpolicy_unrecorded_threads);
	UNIT_RUN(hitpolicy_every_hit_accounted);
	return unit_exit();
}
