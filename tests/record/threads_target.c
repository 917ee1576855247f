/* SPDX-License-Identifier: MIT */
/*
 * The target of tests/record/switches.test.sh for what depends on threads
 * and CPUs (tests/e2e/offcpu_target.c has the sleeping and spinning):
 *   migrate MS1 MS2   early() spins MS1 on the first allowed CPU, late() MS2
 *                     on another one, then the trigger
 *   worker            a thread named "offcpu-worker" calls the trigger;
 *                     main waits for it
 * Built with frame pointers so that sampled stacks are complete.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin.h"

__attribute__((noinline)) void snaptrace_trigger(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void early(double ms)
{
	spin(ms);
}

__attribute__((noinline)) void late(double ms)
{
	spin(ms);
}

static cpu_set_t allowed;      /* the CPUs the program started with */

/* Pins the calling thread to the N-th CPU it was allowed; -1 if none. */
static int pin_nth(int n)
{
	cpu_set_t one;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed) || n--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return sched_setaffinity(0, sizeof(one), &one) ? -1 : c;
	}
	return -1;
}

static void *worker(void *arg)
{
	(void)arg;
	spin(200);
	snaptrace_trigger();
	spin(200);      /* still there when the recorder reads its name */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 1;

	if (!strcmp(mode, "migrate") && argc == 4) {
		if (pin_nth(0) < 0)
			return 1;
		early(atof(argv[2]));
		if (pin_nth(1) < 0)
			return 1;
		late(atof(argv[3]));
		snaptrace_trigger();
		return 0;
	}
	if (!strcmp(mode, "worker")) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL))
			return 1;
		pthread_setname_np(t, "offcpu-worker");
		pthread_join(t, NULL);
		return 0;
	}
	fprintf(stderr, "usage: threads_target migrate MS1 MS2 | worker\n");
	return 2;
}
