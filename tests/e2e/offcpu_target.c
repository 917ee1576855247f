// SPDX-License-Identifier: MIT
/*
 * offcpu_target: the program tests/e2e/offcpu.test.sh records with
 * cpu-clock sampling, switch records and sched_switch samples. Modes:
 *   offcpu_target naps N SPIN_US SLEEP_US   N times: snaptrace_spin() spins
 *       SPIN_US of wall time, then snaptrace_nap() sleeps SLEEP_US; prints
 *       "spin NS" and "sleep NS" per iteration, as measured (the truth)
 *   offcpu_target pipe N DELAY_US   N times: snaptrace_wait_pipe() blocks in
 *       read() on a pipe a child writes to after DELAY_US
 *   offcpu_target spin MS           snaptrace_spin() for MS of wall time
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Not inlined: a sample in clock_gettime (libc and the vdso keep no frame
 * pointer) then skips this frame, not its caller's. */
__attribute__((noinline)) static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static volatile unsigned long sink;

__attribute__((noinline)) void snaptrace_spin(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 2654435761u;
}

__attribute__((noinline)) void snaptrace_nap(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&t, &t))
		;
	sink++;	/* not a tail call: the frame stays on the stack */
}

__attribute__((noinline)) void snaptrace_wait_pipe(long long delay_ns)
{
	int fd[2];
	char c;
	pid_t child;

	if (pipe(fd))
		exit(1);
	child = fork();
	if (child == 0) {
		struct timespec t = { delay_ns / 1000000000LL, delay_ns % 1000000000LL };

		nanosleep(&t, NULL);
		_exit(write(fd[1], "x", 1) == 1 ? 0 : 1);
	}
	close(fd[1]);
	if (read(fd[0], &c, 1) != 1)
		exit(1);
	close(fd[0]);
	waitpid(child, NULL, 0);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "naps")) {
		int n = atoi(argv[2]);
		long long spin = atoll(argv[3]) * 1000, sleep = atoll(argv[4]) * 1000;

		for (int i = 0; i < n; i++) {
			long long t0 = now_ns(), t1, t2;

			snaptrace_spin(spin);
			t1 = now_ns();
			snaptrace_nap(sleep);
			t2 = now_ns();
			printf("spin %lld\nsleep %lld\n", t1 - t0, t2 - t1);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "pipe")) {
		for (int i = 0; i < atoi(argv[2]); i++)
			snaptrace_wait_pipe(atoll(argv[3]) * 1000);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		snaptrace_spin(atoll(argv[2]) * 1000000);
		return 0;
	}
	fprintf(stderr, "usage: offcpu_target naps N SPIN_US SLEEP_US | pipe N DELAY_US | spin MS\n");
	return 2;
}
