/* SPDX-License-Identifier: MIT */
/*
 * captime: whether the kernel offers perf's TSC conversion here, read
 * straight from the kernel (a reference that shares no code with the
 * recorder's rec_trigger_tsc()): a cpu-clock event on this thread, its
 * mmap page's cap_user_time_zero (include/uapi/linux/perf_event.h) after
 * the event has run. A TSC clocksource is not enough: in a VM the kernel
 * may keep the hypervisor's sched_clock and offer no conversion.
 * Prints "yes" or "no: WHY"; exits 0 for yes, 1 for no, 2 when no perf
 * event can be opened.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("captime: perf_event_open");
		return 2;
	}
	mp = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		perror("captime: mmap");
		return 2;
	}
	for (volatile long i = 0; i < 20000000; i++)
		;       /* the event runs: the kernel fills the page's time fields */
	if (mp->cap_user_time_zero) {
		puts("yes");
		return 0;
	}
	puts("no: the kernel's perf mmap page has no cap_user_time_zero");
	return 1;
}
