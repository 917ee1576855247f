/* SPDX-License-Identifier: MIT */
/*
 * perfclock: what time it is now in the clock perf record stamps the
 * recording with, and so the trigger's hits: perf's own (the kernel's
 * local_clock, not CLOCK_MONOTONIC) with Intel PT, CLOCK_MONOTONIC when
 * sampling (perf -k mono; record/plan.h's clockid, rec_perf_set_clock()).
 * Read from the kernel itself: a dummy perf event on this thread (opened by
 * rec_perf_open(), in that clock) that reports
 * comm changes (attr.comm, sample_id_all with PERF_SAMPLE_TIME), and a
 * prctl(PR_SET_NAME) to the thread's own name, which makes the kernel write
 * a PERF_RECORD_COMM stamped with the time.
 * Why: docs/design.md "Snapshots" (record.json's end_ns and time_ns).
 */
#ifndef SNAPTRACE_REC_PERFCLOCK_H
#define SNAPTRACE_REC_PERFCLOCK_H

#include <stdint.h>

/* Stores the recording's clock now (rec_perf_set_clock()'s), in ns, in *NS.
 * Returns 0 or a negative errno (perf_event_open refused: no permission, no
 * perf events). */
int rec_perf_clock_now(uint64_t *ns);

#endif
