/* SPDX-License-Identifier: MIT */
/*
 * unrecorded: the threads of the targets that the recording leaves out, and
 * what happened in them. Without --multi-thread perf records the main thread
 * of each target (perf --per-thread -t), or only the thread given with -t;
 * the recorder's own probes (measured calls, the slow-call trigger, the
 * signal watch) see every thread. What they count in a thread the trace does
 * not hold is said as such, with the threads and the hint to record them
 * (rec_unrecorded_text()), so that no count points at calls the trace cannot
 * show. Why: docs/design.md "Threads not recorded".
 */
#ifndef SNAPTRACE_REC_UNRECORDED_H
#define SNAPTRACE_REC_UNRECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_UNRECORDED_TIDS 4   /* threads named, the first ones seen */

/* Which threads a recording records (rec_hitpolicy_recorded()'s rule). */
struct rec_recorded {
	pid_t only_tid;              /* -t TID: that thread only; else 0 */
	bool multi_thread;           /* --multi-thread: every thread */
	const pid_t *pids;           /* else the main thread of each (borrowed) */
	int npids;
};

/* Whether thread TID is recorded by R; every thread when R is NULL. */
bool rec_recorded_has(const struct rec_recorded *r, pid_t tid);

/* What was counted in threads not recorded. Zero-initialised: none. */
struct rec_unrecorded {
	uint64_t n;                         /* calls, hits or signals counted */
	pid_t tids[REC_UNRECORDED_TIDS];    /* their threads, the first ones, distinct */
	int ntids;
	bool more;                          /* in other threads than TIDS too */
};

/* Counts one in thread TID. */
void rec_unrecorded_add(struct rec_unrecorded *u, pid_t tid);

/*
 * "in threads 12, 13 (not recorded: only the main thread is); they are not
 * in the trace: record every thread with --multi-thread" of U into BUF (SIZE bytes),
 * R saying what is recorded. Returns BUF.
 */
const char *rec_unrecorded_text(const struct rec_unrecorded *u, const struct rec_recorded *r,
				char *buf, size_t size);

#endif
