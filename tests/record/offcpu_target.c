/* SPDX-License-Identifier: MIT */
/*
 * The target of tests/record/offcpu.test.sh: known on-CPU and off-CPU time.
 *   naps N SPIN_MS SLEEP_MS  N times: spin() SPIN_MS, then nap() SLEEP_MS
 *                            (nanosleep: blocked), then the trigger
 *   contend MS               a child spins on this process's CPU while
 *                            spin() spins MS there too (preempted)
 *   migrate MS1 MS2          early() MS1 on the first allowed CPU, late()
 *                            MS2 on another one, then the trigger
 *   worker                   a thread named "offcpu-worker" calls the
 *                            trigger; main waits for it
 * Built with frame pointers so that sampled stacks are complete.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) void snaptrace_trigger(void)
{
	__asm__ volatile("" ::: "memory");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Spins MS milliseconds of wall time. */
__attribute__((noinline)) void spin(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		sink = sink * 1.0000001 + 1.0;
}

__attribute__((noinline)) void nap(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3), (long)((ms - (time_t)(ms / 1e3) * 1e3) * 1e6) };

	nanosleep(&ts, NULL);
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

	if (!strcmp(mode, "naps") && argc == 5) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++) {
			spin(atof(argv[3]));
			nap(atof(argv[4]));
		}
		snaptrace_trigger();
		return 0;
	}
	if (!strcmp(mode, "contend") && argc == 3) {
		pid_t hog;

		if (pin_nth(0) < 0)
			return 1;
		hog = fork();
		if (hog == 0) {
			/* dies with the parent, which the recorder ends at the trigger */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
				_exit(1);
			alarm(30);
			for (;;)
				sink = sink + 1.0;
		}
		spin(atof(argv[2]));
		snaptrace_trigger();
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
		return 0;
	}
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
	fprintf(stderr, "usage: offcpu_target naps N SPIN_MS SLEEP_MS | contend MS | "
		"migrate MS1 MS2 | worker\n");
	return 2;
}
