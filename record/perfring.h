/* SPDX-License-Identifier: MIT */
/*
 * perfring: what the recorder's own perf events share (trigger.c,
 * sigwatch.c): opening an event on a thread or a CPU, and reading records
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

/* perf_event_open(ATTR, PID, CPU) with close-on-exec. Returns the fd or a
 * negative errno. */
int rec_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);

/* Copies LEN bytes at ring offset POS of the data area DATA (SIZE bytes, a
 * power of two; POS wraps) into DST. */
void rec_ring_copy(const char *data, size_t size, uint64_t pos, void *dst, size_t len);

#endif
