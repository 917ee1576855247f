/* SPDX-License-Identifier: MIT */
#include "perfring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

long rec_page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

static int clock_id = -1;	/* rec_perf_set_clock()'s */

void rec_perf_set_clock(int clockid)
{
	clock_id = clockid;
}

int rec_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd;

	if (clock_id >= 0) {
		attr->use_clockid = 1;
		attr->clockid = clock_id;
	}
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

void rec_ring_copy(const char *data, size_t size, uint64_t pos, void *dst, size_t len)
{
	size_t off = (size_t)(pos % size), first = size - off;

	if (first > len)
		first = len;
	memcpy(dst, data + off, first);
	if (first < len)
		memcpy((char *)dst + first, data, len - first);
}
