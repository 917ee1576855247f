// SPDX-License-Identifier: MIT
/*
 * The target of tests/record/exits.test.sh: functions whose calls leave in
 * the ways the slow-call trigger's exit probes must follow (record/exits.h),
 * built -O2 without frame pointers as distributions build. Every call of a
 * watched function prints its own measure on stderr, from inside the call
 * (CLOCK_MONOTONIC):
 *   call N ms MS
 * Modes:
 *   throw N      N calls of thrower(i); every third throws through it (from
 *                its callee), caught in main's loop; stdout "caught K of N";
 *                exit status 3 (the test compares both with a run without
 *                snaptrace)
 *   slowthrow N  N calls of slow_thrower(i): every third, from the first,
 *                spins 25 ms and throws (its line printed before the
 *                throw), the others
 *                spin 1 ms and return; caught in main's loop, which
 *                prints "around N ms MS" for each, timed around the call
 *                to the end of its catch clause
 *   serve        thrower() in a loop for ever, 10 ms apart (attached to);
 *                on SIGTERM stdout "served K caught J", exit status 0
 *   tailmix N    N calls of tail_mixed(i): tailer's, with an early return
 *   tail N       N calls of tailer(i): a 2 ms sleep, then a tail call of
 *                tail_callee(), which sleeps 30 ms (its line measures its
 *                own part; main prints "around N ms MS" for each, timed
 *                around the call: the call ends when tail_callee returns)
 *   tailptr N    N calls of tail_by_ptr(i), tailer's twin, made through a
 *                function pointer only (no direct call of it: each call
 *                ends at the jump)
 *   several N S  N calls of several(i): even i return early, odd ones after
 *                1 ms of work, call S spins 40 ms (on the CPU: samples land
 *                inside); several() has more than one return instruction
 *   deep         spins 300 ms at the bottom of a recursion 400 calls deep
 *                (some 50 KiB of stack: deeper than perf's dwarf stack copy)
 *   burst N      N calls of burster(), each spinning 8 ms, back to back, then
 *                exits at once (tests/record/multisnap.test.sh: snapshots
 *                asked for at its last calls are written after its exit)
 *   mixed N      N calls of mixer(i): every fifth sleeps 8 ms, then spins 4 ms,
 *                the others spin 1 ms, then exits at once (multisnap.test.sh:
 *                a slow call entered while perf still read the snapshot
 *                before returns in the next one)
 *   napper N     N calls of napper(): each spins 1 ms, then sleeps 8 ms, 1 ms
 *                apart, then exits at once (multisnap.test.sh: perf reads a
 *                snapshot's ring while the next call sleeps, so its samples
 *                are in that snapshot and its return in the next)
 */
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <time.h>

static double now_ms()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void nap(double ms)
{
	struct timespec ts = { 0, (long)(ms * 1e6) };

	nanosleep(&ts, nullptr);
}

__attribute__((noinline)) static void spin(double ms)
{
	double t0 = now_ms();

	while (now_ms() - t0 < ms)
		__asm__ volatile("" ::: "memory");
}

static int ncalls;

__attribute__((noinline)) void thrower_inner(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("thrown through thrower");
	nap(1);
}

/* The exception leaves it without a return: the unwinder must pass its frame. */
__attribute__((noinline)) void thrower(int i)
{
	double t0 = now_ms();
	int n = ++ncalls;

	nap(1);
	thrower_inner(i);
	fprintf(stderr, "call %d ms %.3f\n", n, now_ms() - t0);
}

/* A slow call that ends in an exception: the slow-call trigger must see it. */
__attribute__((noinline)) void slow_thrower(int i)
{
	double t0 = now_ms();
	int n = ++ncalls;

	spin(i % 3 == 0 ? 25 : 1);
	fprintf(stderr, "call %d ms %.3f\n", n, now_ms() - t0);
	if (i % 3 == 0)
		throw std::runtime_error("thrown by slow_thrower");
}

__attribute__((noinline)) int tail_callee(int i)
{
	nap(30);
	return i * 2;
}

/* Ends in a tail call of tail_callee (a jmp: gcc -O2's sibling call). */
__attribute__((noinline)) int tailer(int i)
{
	double t0 = now_ms();

	nap(2);
	fprintf(stderr, "call %d ms %.3f\n", ++ncalls, now_ms() - t0);
	return tail_callee(i + 1);
}

/* tailer's twin, called only through a pointer. */
__attribute__((noinline)) int tail_by_ptr(int i)
{
	double t0 = now_ms();

	nap(2);
	fprintf(stderr, "call %d ms %.3f\n", ++ncalls, now_ms() - t0);
	return tail_callee(i + 1);
}

static int (*volatile by_ptr)(int) = tail_by_ptr;

/* Returns at once for a negative I (a ret no call here takes), else ends
 * in a tail call of tail_callee (trial 11: only the first was said). */
__attribute__((noinline)) int tail_mixed(int i)
{
	if (i < 0)
		return -1;
	nap(2);
	return tail_callee(i + 1);
}

static volatile int slow_call;
static volatile long sink;

/* An early return without a frame (shrink-wrapped) and a late one. */
__attribute__((noinline)) long several(int i)
{
	double t0;
	int n = ++ncalls;
	char buf[256];

	if (!(i & 1))
		return i;
	t0 = now_ms();
	snprintf(buf, sizeof(buf), "%d", i);
	spin(n == slow_call ? 40 : 1);
	if (n == slow_call)	/* where it began: the hit to compare with */
		fprintf(stderr, "call %d at %.3f\n", n, t0);
	fprintf(stderr, "call %d ms %.3f\n", n, now_ms() - t0);
	return (long)strlen(buf) + sink;
}

__attribute__((noinline)) void burster(int i)
{
	double t0 = now_ms();

	spin(8);
	fprintf(stderr, "call %d ms %.3f\n", i + 1, now_ms() - t0);
}

__attribute__((noinline)) void mixer(int i)
{
	double t0 = now_ms();

	if (i % 5 == 4) {
		nap(8);
		spin(4);
	} else {
		spin(1);
	}
	fprintf(stderr, "call %d ms %.3f\n", i + 1, now_ms() - t0);
}

__attribute__((noinline)) void napper(int i)
{
	double t0 = now_ms();

	spin(1);
	nap(8);
	fprintf(stderr, "call %d ms %.3f\n", i + 1, now_ms() - t0);
}

/* Recurses D deep, a frame of some 128 bytes each, then spins. */
__attribute__((noinline)) long deep(int d)
{
	volatile char frame[96];

	frame[0] = (char)d;
	if (d)
		return deep(d - 1) + frame[0];
	spin(300);
	return frame[0];
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 30, caught = 0;

	nap(50);   // the recording's start settles
	if (!strcmp(mode, "throw") || !strcmp(mode, "serve")) {
		bool serve = !strcmp(mode, "serve");
		int i;

		signal(SIGTERM, on_term);
		for (i = 0; serve ? !stop : i < n; i++) {
			try {
				thrower(i);
			} catch (const std::exception &e) {
				caught++;
			}
			if (serve)
				nap(10);
		}
		if (serve) {
			printf("served %d caught %d\n", i, caught);
			return 0;
		}
		printf("caught %d of %d\n", caught, n);
		return 3;
	}
	if (!strcmp(mode, "slowthrow")) {
		for (int i = 0; i < n; i++) {
			double t0 = now_ms();

			try {
				slow_thrower(i);
			} catch (const std::exception &e) {
				caught++;
			}
			fprintf(stderr, "around %d ms %.3f\n", ncalls, now_ms() - t0);
		}
		printf("caught %d of %d\n", caught, n);
		return 0;
	}
	if (!strcmp(mode, "tail")) {
		for (int i = 0; i < n; i++) {
			double t0 = now_ms();

			sink += tailer(i);
			fprintf(stderr, "around %d ms %.3f\n", ncalls, now_ms() - t0);
		}
		return 0;
	}
	if (!strcmp(mode, "tailptr")) {
		for (int i = 0; i < n; i++)
			sink += by_ptr(i);
		return 0;
	}
	if (!strcmp(mode, "tailmix")) {
		for (int i = 0; i < n; i++)
			sink += tail_mixed(i);
		return 0;
	}
	if (!strcmp(mode, "several")) {
		slow_call = argc > 3 ? atoi(argv[3]) : 0;
		for (int i = 0; i < n; i++) {
			sink += several(i);
			spin(0.3);
		}
		return 0;
	}
	if (!strcmp(mode, "burst")) {
		for (int i = 0; i < n; i++)
			burster(i);
		return 0;
	}
	if (!strcmp(mode, "mixed")) {
		for (int i = 0; i < n; i++)
			mixer(i);
		return 0;
	}
	if (!strcmp(mode, "napper")) {
		for (int i = 0; i < n; i++) {
			napper(i);
			nap(1);
		}
		return 0;
	}
	if (!strcmp(mode, "deep")) {
		sink = deep(400);
		return 0;
	}
	fprintf(stderr, "usage: %s throw N | slowthrow N | serve | tail N | tailptr N | several N SLOW | deep | burst N | mixed N | napper N\n",
		argv[0]);
	return 2;
}
