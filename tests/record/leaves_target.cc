// SPDX-License-Identifier: MIT
/*
 * The target of tests/record/measure.test.sh's calls that leave a measured
 * function without a return: N calls of risky(i) from main's loop, each
 * spinning about 1.5 ms in churn() (on the CPU: samples land inside) and
 * sleeping 1 ms; every third (i % 3 == 0) then leaves by the mode's way:
 *   throw N   a C++ exception, caught in main's loop
 *   jump N    a longjmp to a setjmp in main's loop
 * The others return. In mode "always N" main calls doomed(i) instead, a
 * function with no return at all: each call leaves by an exception. main times every call around it (CLOCK_MONOTONIC) and
 * prints on stderr, after it:
 *   call I ms MS returned|left
 * then on stdout "left K of N".
 */
#include <csetjmp>
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

static jmp_buf out;
static bool jump;
static volatile unsigned long sink;

__attribute__((noinline)) static void churn(double ms)
{
	double t0 = now_ms();

	while (now_ms() - t0 < ms)
		for (int k = 0; k < 1000; k++)
			sink = sink + k;
}

__attribute__((noinline)) int risky(int i)
{
	struct timespec nap = { 0, 1000000 };

	churn(1.5);
	nanosleep(&nap, nullptr);
	if (i % 3 == 0) {
		if (jump)
			longjmp(out, 1);
		throw std::runtime_error("left risky");
	}
	return i;
}

__attribute__((noinline)) void doomed(int i)
{
	struct timespec nap = { 0, 1000000 };

	churn(i % 5 == 4 ? 6 : 1.5);
	nanosleep(&nap, nullptr);
	throw std::runtime_error("left doomed");
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[2]) : 0;
	volatile int left = 0;   /* kept across the longjmp */

	if (n <= 0 || (strcmp(argv[1], "throw") && strcmp(argv[1], "jump") &&
		       strcmp(argv[1], "always"))) {
		fprintf(stderr, "usage: leaves_target throw|jump|always N\n");
		return 2;
	}
	jump = !strcmp(argv[1], "jump");
	for (int i = 0; i < n; i++) {
		volatile double t0 = now_ms();
		volatile bool returned = false;

		if (!setjmp(out)) {
			try {
				if (!strcmp(argv[1], "always"))
					doomed(i);
				sink = sink + (unsigned long)risky(i);
				returned = true;
			} catch (const std::exception &) {
			}
		}
		left += !returned;
		fprintf(stderr, "call %d ms %.3f %s\n", i, now_ms() - t0,
			returned ? "returned" : "left");
	}
	printf("left %d of %d\n", left, n);
	return 0;
}
