/* SPDX-License-Identifier: MIT */
/*
 * perfring: what the recorder's own perf events share (trigger.c,
 * sigwatch.c, perfclock.c): opening an event on a thread or a CPU in the
 * recording's clock, and reading records
 * out of a perf ring buffer (include/uapi/linux/perf_event.h: a control
 * page, then a power-of-two data area that records wrap around in).
 */
#ifndef SNAPTRACE_REC_PERFRING_H
#define SNAPTRACE_REC_PERFRING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

/* The page size (bytes). */
long rec_page_size(void);

/* The clock every event opened from now on stamps its records with
 * (CLOCK_MONOTONIC when sampling: the recording's, record/plan.h's clockid;
 * -1, the default: perf's own, local_clock), so that the hits and the
 * signals the recorder sees are on the samples' timeline. */
void rec_perf_set_clock(int clockid);

/* perf_event_open(ATTR, PID, CPU) with close-on-exec, in the clock of
 * rec_perf_set_clock(). Returns the fd or a negative errno. */
int rec_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);

/* Copies LEN bytes at ring offset POS of the data area DATA (SIZE bytes, a
 * power of two; POS wraps) into DST. */
void rec_ring_copy(const char *data, size_t size, uint64_t pos, void *dst, size_t len);

#endif
