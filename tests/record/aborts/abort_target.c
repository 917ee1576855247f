/* SPDX-License-Identifier: MIT */
/*
 * The programs of tests/record/aborts.test.sh: each aborts on purpose in
 * the way MODE names, through the C library's function for it:
 *   assert        assert() fails in check_invariant()          __assert_fail
 *   perror        assert_perror(2) fails                       __assert_perror_fail
 *   smash         a buffer of smash() overrun (built with
 *                 -fstack-protector-all, no fortify)           __stack_chk_fail
 *   fortify       a strcpy past a buffer (built with
 *                 -D_FORTIFY_SOURCE=2 -O2)                     __chk_fail
 *   abort         abort()
 *   thread        a thread created after the start fails an assert()
 *   attach N FILE starts N idle threads, prints "ready", waits until FILE
 *                 exists, then fails an assert()
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void check_invariant(int v)
{
	assert(v < 0);
}

__attribute__((noinline)) static void smash(volatile size_t n)
{
	char buf[8];

	memset(buf, 'A', n);
	__asm__ volatile("" : : "r"(buf) : "memory");
}

__attribute__((noinline)) static void overflow(const char *s)
{
	char buf[4];

	strcpy(buf, s);
	puts(buf);
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *failing(void *arg)
{
	check_invariant(*(volatile int *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	static int one = 1;
	pthread_t t;

	if (!strcmp(mode, "assert"))
		check_invariant(one);
	else if (!strcmp(mode, "perror"))
		assert_perror(one + 1);
	else if (!strcmp(mode, "smash"))
		smash(64);
	else if (!strcmp(mode, "fortify"))
		overflow(argv[0]);   /* a path: longer than 3 bytes */
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "thread")) {
		usleep(100000);
		/* the recording watches the process by now: the thread is new */
		if (pthread_create(&t, NULL, failing, &one)) {
			fprintf(stderr, "abort_target: pthread_create failed\n");
			return 3;
		}
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "attach") && argc == 4) {
		for (int i = atoi(argv[2]); i > 0; i--)
			if (pthread_create(&t, NULL, idle, NULL))
				return 3;
		printf("ready\n");
		fflush(stdout);
		while (access(argv[3], F_OK))
			usleep(10000);
		check_invariant(one);
	}
	fprintf(stderr, "usage: abort_target assert|perror|smash|fortify|abort|thread|"
		"attach N FILE\n");
	return 2;
}
