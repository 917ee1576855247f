/* SPDX-License-Identifier: MIT */
/*
 * spin.h: wall-clock time and spinning on the CPU, for the recorder's test
 * targets (threads_target.c, slowcall_target.c); included by one file each.
 */
#ifndef SNAPTRACE_TEST_SPIN_H
#define SNAPTRACE_TEST_SPIN_H

#include <time.h>

static volatile double spin_sink;

/* CLOCK_MONOTONIC in milliseconds. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Spins MS milliseconds of wall time (a function of its own in the stacks). */
__attribute__((noinline)) void spin(double ms);
__attribute__((noinline)) void spin(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		spin_sink = spin_sink * 1.0000001 + 1.0;
}

#endif
