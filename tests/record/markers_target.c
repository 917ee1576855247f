/* SPDX-License-Identifier: MIT */
/*
 * markers_target: calls magic_trace_stop_indicator(a, b) with known values,
 * as a magic-trace program passes a start TSC and a value of its own:
 *   markers_target N GAP_MS   N calls (a = 1000 + i, b = 0xfeed0000 + i, for
 *                             i = 1..N), GAP_MS of work between them, then
 *                             a last GAP_MS of work and exit.
 * tests/record/markers.test.sh reads them back on the trace's markers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) void magic_trace_stop_indicator(uint64_t start, uint64_t value)
{
	__asm__ volatile("" : : "r"(start), "r"(value) : "memory");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Spins for MS milliseconds in a function of its own. */
__attribute__((noinline)) void work(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		sink += 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	double gap = argc > 2 ? atof(argv[2]) : 100;

	for (int i = 1; i <= n; i++) {
		work(gap);
		magic_trace_stop_indicator(1000 + (uint64_t)i, 0xfeed0000u + (uint64_t)i);
	}
	work(gap);
	return 0;
}
