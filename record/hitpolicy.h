/* SPDX-License-Identifier: MIT */
/*
 * hitpolicy: which trigger hits take a snapshot. Pure: every input is given
 * (times in ns, what the recording holds now); nothing here reads a clock,
 * perf or the process table, and nothing is printed, so each rule is tested
 * alone (tests/unit/test_rec_hitpolicy.c). The session (session.c) keeps the
 * log of the hits that take one and acts on the verdicts.
 *
 * The rules (docs/design.md "Snapshots", "Arming"):
 *   - a hit in a thread the recording leaves out takes none (its snapshot
 *     would not show it): unrecorded;
 *   - before the trigger is armed (arming.h) a hit is ignored with
 *     --arm-after, else it waits for the arming, and a later early hit takes
 *     the waiting one's place (it has the longer look-back): the one it
 *     replaces is coalesced into its snapshot, which holds everything since
 *     the start;
 *   - once armed, the first hit takes a snapshot; with --multi-snapshot so
 *     does every hit at least --min-interval (perf clock) after the hit of
 *     the last snapshot while no other waits. Every other hit is coalesced:
 *     a storm of hits takes one snapshot per interval, whatever its rate,
 *     and a hit read after a later one (another CPU's ring) is within the
 *     interval too.
 */
#ifndef SNAPTRACE_REC_HITPOLICY_H
#define SNAPTRACE_REC_HITPOLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arming.h"

/* The policy of one recording: its settings, the counts record.json reports
 * ("hits_total", "hits_before_armed", "hits_coalesced", "hits_unrecorded":
 * common/record_json.h) and the time of the last snapshot's hit. Every hit
 * has one fate: logged (REC_HIT_SNAPSHOT, REC_HIT_DEFERRED, REC_HIT_REPLACES:
 * it takes or waits for a snapshot), coalesced, before_armed or unrecorded,
 * so SEEN = logged + COALESCED + BEFORE_ARMED + UNRECORDED. */
struct rec_hitpolicy {
	/* set before the first hit */
	bool multi_snapshot;         /* --multi-snapshot */
	uint64_t min_interval_ns;    /* --min-interval, ns */
	enum rec_arm_by arm_by;      /* how the trigger arms */
	uint64_t armed_ns;           /* CLOCK_MONOTONIC ns when it arms; 0: perf does
				      * not record yet (never armed) */
	/* counts */
	uint64_t seen;               /* every hit */
	uint64_t early;              /* of SEEN, before the arming, whatever their fate */
	uint64_t before_armed;       /* before the arming, ignored (--arm-after): in no
				      * snapshot */
	uint64_t coalesced;          /* no snapshot of their own (the rules above: a
				      * later early hit replaced them, or another's
				      * snapshot holds them), after the recording's
				      * end, or no memory to log them */
	uint64_t unrecorded;         /* in threads the recording leaves out */
	/* state */
	uint64_t last_hit_ns;        /* perf clock: the hit of the last snapshot */
};

/* What the recording is when a hit comes. */
struct rec_hit_now {
	uint64_t mono_ns;            /* CLOCK_MONOTONIC ns when the recorder saw it */
	bool recorded;               /* its thread is recorded (rec_hitpolicy_recorded) */
	bool ended;                  /* the recording has ended */
	bool waiting;                /* a hit waits for its snapshot */
	bool logged;                 /* a hit took (or waits for) a snapshot already */
	bool fatal;                  /* a signal ended a target (its snapshot taken) */
	bool room;                   /* the log can keep one more hit (memory) */
};

enum rec_hit_verdict {
	REC_HIT_UNRECORDED,          /* a thread the recording leaves out: no snapshot */
	REC_HIT_IGNORED,             /* before the arming, --arm-after: no snapshot */
	REC_HIT_REPLACES,            /* before the arming: takes the waiting hit's place
				      * (that one is coalesced into its snapshot) */
	REC_HIT_DEFERRED,            /* before the arming: logged, waits for it */
	REC_HIT_SNAPSHOT,            /* logged, its snapshot is to be taken */
	REC_HIT_COALESCED,           /* no snapshot of its own */
};

/* Sets *P for a recording of options MULTI_SNAPSHOT and MIN_INTERVAL_NS armed
 * the way ARM_BY says; not armed until rec_hitpolicy_arm(). */
void rec_hitpolicy_init(struct rec_hitpolicy *p, bool multi_snapshot, uint64_t min_interval_ns,
			enum rec_arm_by arm_by);

/* Arms P AFTER_MS after READY_NS (CLOCK_MONOTONIC ns: perf records). */
void rec_hitpolicy_arm(struct rec_hitpolicy *p, uint64_t ready_ns, double after_ms);

/* Whether P is armed at MONO_NS (CLOCK_MONOTONIC ns). */
bool rec_hitpolicy_armed(const struct rec_hitpolicy *p, uint64_t mono_ns);

/* How long after MONO_NS P arms, ms rounded up (at least 1 ms while it is not
 * armed yet), 0 when armed, -1 when it never arms (not recording). */
int rec_hitpolicy_arm_wait_ms(const struct rec_hitpolicy *p, uint64_t mono_ns);

/*
 * Judges HIT_NS (perf clock ns) coming as NOW says and counts it in P.
 * REC_HIT_SNAPSHOT, REC_HIT_DEFERRED and REC_HIT_REPLACES make it the hit
 * whose snapshot waits (the caller logs it); never REC_HIT_SNAPSHOT or
 * REC_HIT_DEFERRED without NOW->room.
 */
enum rec_hit_verdict rec_hitpolicy_hit(struct rec_hitpolicy *p, uint64_t hit_ns,
				       const struct rec_hit_now *now);

/*
 * Whether thread TID is recorded: with ONLY_TID (perf -t) that one thread;
 * else with MULTI_THREAD every thread; else the main thread of each of the
 * NPIDS processes PIDS (tid == pid).
 */
bool rec_hitpolicy_recorded(pid_t tid, pid_t only_tid, bool multi_thread, const pid_t *pids,
			    int npids);

#endif
