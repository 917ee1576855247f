/* SPDX-License-Identifier: MIT */
/*
 * The programs of tests/record/crash.test.sh: some work (work(), about
 * 0.3 s on the CPU), then the way of ending MODE names:
 *   null       a write through a NULL pointer in boom()       SIGSEGV
 *   assert     assert() fails in check_invariant()            SIGABRT
 *   fpe        an integer division by zero in divide()        SIGFPE
 *   bus        a read of a page past the end of a mapped file SIGBUS
 *   handled    three NULL writes in boom(), each caught by a SIGSEGV
 *              handler that jumps back; then exit 0
 *   catch      a NULL write whose SIGSEGV handler exits with status 1
 *   exit3      exit(3)
 *   wait       prints "ready", then waits to be killed
 *   thread     a second thread writes through NULL in worker_boom()
 *   sigint     prints "ready", then works until a signal ends it
 * Addresses the test checks are printed on stdout first ("map 0x...").
 * Built with frame pointers and -O1, boom() and friends kept out of line.
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noipa)) static void work(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

__attribute__((noipa)) static void boom(volatile int *p)
{
	*p = 1;
}

__attribute__((noipa)) static void check_invariant(long v)
{
	assert(v < 0);
}

__attribute__((noipa)) static int divide(int a, int b)
{
	return a / b;
}

__attribute__((noipa)) static void *worker_boom(void *arg)
{
	work(0.3);
	boom(arg);
	return NULL;
}

static sigjmp_buf back;

static void jump_back(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

static void leave(int sig)
{
	(void)sig;
	_exit(1);
}

static void catch_segv(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "null";
	volatile int zero = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "wait") || !strcmp(mode, "sigint")) {
		puts("ready");
		for (;;)
			work(1);
	}
	if (!strcmp(mode, "thread")) {
		pthread_t t;

		pthread_create(&t, NULL, worker_boom, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	work(0.3);
	if (!strcmp(mode, "null")) {
		boom(NULL);
	} else if (!strcmp(mode, "assert")) {
		check_invariant(sink);
	} else if (!strcmp(mode, "fpe")) {
		sink = divide(1, zero);
	} else if (!strcmp(mode, "bus")) {
		char path[] = "/tmp/crash_target.XXXXXX";
		int fd = mkstemp(path);
		volatile char *p = fd < 0 ? NULL : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		unlink(path);
		if (p == MAP_FAILED || !p)
			return 2;
		printf("map %p\n", (void *)p);
		sink = p[0];   /* the file is empty: no page behind it */
	} else if (!strcmp(mode, "handled")) {
		catch_segv(jump_back);
		for (int i = 0; i < 3; i++) {
			if (!sigsetjmp(back, 1))
				boom(NULL);
			/* longer than a snapshot takes on a loaded host (up to
			 * 340 ms seen): a SIGSEGV during one is coalesced */
			work(0.5);
		}
		return 0;
	} else if (!strcmp(mode, "catch")) {
		catch_segv(leave);
		boom(NULL);
	} else if (!strcmp(mode, "exit3")) {
		exit(3);
	}
	return 0;
}
