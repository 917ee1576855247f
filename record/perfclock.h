/* SPDX-License-Identifier: MIT */
/*
 * perfclock: what time it is now in perf's clock (the kernel's local_clock,
 * which stamps perf record's samples and the trigger's hits; not
 * CLOCK_MONOTONIC). Read from the kernel itself: a dummy perf event on this
 * thread that reports comm changes (attr.comm, sample_id_all with
 * PERF_SAMPLE_TIME), and a prctl(PR_SET_NAME) to the thread's own name,
 * which makes the kernel write a PERF_RECORD_COMM stamped with the time.
 * Why: docs/design.md "Snapshots" (record.json's end_ns and time_ns).
 */
#ifndef SNAPTRACE_REC_PERFCLOCK_H
#define SNAPTRACE_REC_PERFCLOCK_H

#include <stdint.h>

/* Stores perf's clock now, in ns, in *NS. Returns 0 or a negative errno
 * (perf_event_open refused: no permission, no perf events). */
int rec_perf_clock_now(uint64_t *ns);

#endif
