/* SPDX-License-Identifier: MIT */
/*
 * waits_target: the pthreads program of tests/record/waits.test.sh, whose
 * call tree the test knows (built -O2 -fno-omit-frame-pointer against the
 * system's C library, which keeps no frame pointers):
 *
 *   worker > nap_us > nanosleep (libc) > clock_nanosleep (libc) > [blocked]
 *   worker > locked_update > pthread_mutex_lock (libc) > ... > [blocked]
 *
 *   waits_target THREADS ROUNDS NAP_US HOLD_US
 *
 * THREADS workers (1 to 16) each run ROUNDS times: nap_us(NAP_US), then
 * locked_update() (holds one mutex, shared by all, for HOLD_US of
 * spinning, so the others wait for it), then HOLD_US / 3 of spinning. Each
 * worker measures its own sleeps (CLOCK_MONOTONIC around the nanosleep
 * call) and prints, when done:
 *   worker TID naps N slept_ns NS
 * and at the end the program's CPU time and context switches (getrusage):
 *   cpu_ns NS switches N
 * (bench/offcpu.sh runs it too, with short naps and no spinning: a switch
 * every few microseconds). Every function the test names is noipa: -O2
 * keeps each call as written.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long shared;
static int rounds, nap, hold;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Sleeps US microseconds; returns how long the nanosleep call took, ns. */
NOIPA long long nap_us(int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
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
	spin_us(hold);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	long long slept = 0;
	int naps = 0;

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		slept += nap_us(nap);
		naps++;
		locked_update();
		spin_us(hold / 3);
	}
	printf("worker %d naps %d slept_ns %lld\n", gettid(), naps, slept);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	struct rusage ru;
	int n;

	if (argc != 5 || (n = atoi(argv[1])) < 1 || n > 16 || (rounds = atoi(argv[2])) < 1 ||
	    (nap = atoi(argv[3])) < 1 || (hold = atoi(argv[4])) < 0) {
		fprintf(stderr, "usage: waits_target THREADS ROUNDS NAP_US HOLD_US\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu_ns %lld switches %ld\n",
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL, ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}
