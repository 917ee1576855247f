/* SPDX-License-Identifier: MIT */
/*
 * waits_target: the pthreads program of tests/record/waits.test.sh, whose
 * call tree the test knows (built -O2 -fno-omit-frame-pointer against the
 * system's C library, which keeps no frame pointers):
 *
 *   worker > nap_ms > nanosleep (libc) > clock_nanosleep (libc) > [blocked]
 *   worker > locked_update > pthread_mutex_lock (libc) > ... > [blocked]
 *
 *   waits_target THREADS ROUNDS NAP_MS
 *
 * THREADS workers (1 to 16) each run ROUNDS times: nap_ms(NAP_MS), then
 * locked_update() (holds one mutex, shared by all, for 300 us of spinning,
 * so the others wait for it), then 100 us of spinning. Each worker measures
 * its own sleeps (CLOCK_MONOTONIC around the nanosleep call) and prints,
 * when done:
 *   worker TID naps N slept_ns NS
 * Every function the test names is noipa: -O2 keeps each call as written.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long shared;
static int rounds, nap;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Sleeps MS ms; returns how long the nanosleep call took, ns. */
NOIPA long long nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long long t0 = now_ns();

	nanosleep(&ts, NULL);
	return now_ns() - t0;
}

NOIPA void spin_us(int us)
{
	long long end = now_ns() + us * 1000LL;

	while (now_ns() < end)
		shared++;
}

NOIPA void locked_update(void)
{
	pthread_mutex_lock(&lock);
	spin_us(300);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	long long slept = 0;
	int naps = 0;

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		slept += nap_ms(nap);
		naps++;
		locked_update();
		spin_us(100);
	}
	printf("worker %d naps %d slept_ns %lld\n", gettid(), naps, slept);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	int n;

	if (argc != 4 || (n = atoi(argv[1])) < 1 || n > 16 || (rounds = atoi(argv[2])) < 1 ||
	    (nap = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: waits_target THREADS ROUNDS NAP_MS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
