/* SPDX-License-Identifier: MIT */
/*
 * arming: from when on a trigger hit takes a snapshot. A hit in the first
 * moments of a recording finds the ring buffer nearly empty: a trigger hit
 * about 100 times a second took its snapshot 10 ms after the start and
 * showed 13 ms of history. So by default the trigger is armed once the ring
 * has had time to fill, estimated from the mode and the ring's size; a hit
 * before that waits (its snapshot is taken when the trigger is armed, and
 * then holds everything since the start: nothing is lost, and a trigger hit
 * again meanwhile gets the ring's whole look-back). --arm-after SECONDS sets
 * the time instead, and hits before it are ignored (counted). A slow-call
 * trigger (--trigger-slower-than) arms at once unless --arm-after says.
 * Why and the estimates: docs/design.md "Arming".
 */
#ifndef SNAPTRACE_REC_ARMING_H
#define SNAPTRACE_REC_ARMING_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"
#include "plan.h"
#include "rec_opts.h"

enum rec_arm_by {
	REC_ARM_AT_ONCE,     /* no ring to fill (--full-execution), or a slow-call trigger */
	REC_ARM_RING,        /* the ring's fill time: early hits wait for it */
	REC_ARM_OPTION,      /* --arm-after: early hits are ignored */
};

struct rec_arming {
	enum rec_arm_by by;
	double after_ms;     /* from the moment perf records */
	double fill_ms;      /* the ring's estimated fill time (REC_ARM_RING, else 0) */
	char why[200];       /* how the fill time was estimated (REC_ARM_RING), why it
			      * arms at once (REC_ARM_AT_ONCE); "" for REC_ARM_OPTION */
};

/* The longest the default arming waits, ms (a slow rate or a huge ring). */
#define REC_ARM_MAX_MS 2000.0

/*
 * Decides *A for options O (O->arm_after_s < 0: not given) recording as
 * plan P (resolved mode, unwinder) on host H (privileges: perf's default
 * ring sizes).
 */
void rec_arming_decide(const struct rec_opts *o, const struct rec_host *h,
		       const struct rec_plan *p, struct rec_arming *a);

/* Writes one line saying when A arms and why into BUF (SIZE bytes). Returns BUF. */
char *rec_arming_describe(const struct rec_arming *a, char *buf, size_t size);

#endif
