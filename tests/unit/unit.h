/* SPDX-License-Identifier: MIT */
/*
 * unit.h: the smallest test framework that works (after redis testhelp.h and
 * libipt ptunit). A test is a function returning void that uses the CHECK
 * macros; main() lists the tests explicitly with UNIT_RUN. Each test prints
 * "ok NAME" or "FAIL NAME: FILE:LINE: what" (the protocol of tests/run.sh);
 * one that cannot run on this host is not run and names the requirement of
 * tests/requirements.sh it lacks with UNIT_SKIP.
 *
 *	static void writer_roundtrip(void) { CHECK_INT_EQ(f(), 3); }
 *	int main(void) { UNIT_RUN(writer_roundtrip); return unit_exit(); }
 */
#ifndef SNAPTRACE_UNIT_H
#define SNAPTRACE_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int unit_failed_total;
static int unit_failed_now;
static const char *unit_name;

#define UNIT_FAIL(...)                                                   \
	do {                                                             \
		if (!unit_failed_now)                                    \
			printf("FAIL %s: %s:%d: ", unit_name, __FILE__, __LINE__); \
		else                                                     \
			printf("    also %s:%d: ", __FILE__, __LINE__);  \
		printf(__VA_ARGS__);                                     \
		printf("\n");                                            \
		unit_failed_now = 1;                                     \
	} while (0)

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond))                                             \
			UNIT_FAIL("%s", #cond);                          \
	} while (0)

#define CHECK_INT_EQ(a, b)                                               \
	do {                                                             \
		long long unit_a_ = (long long)(a), unit_b_ = (long long)(b); \
		if (unit_a_ != unit_b_)                                  \
			UNIT_FAIL("%s == %s: %lld != %lld", #a, #b, unit_a_, unit_b_); \
	} while (0)

#define CHECK_U64_EQ(a, b)                                               \
	do {                                                             \
		uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b); \
		if (unit_a_ != unit_b_)                                  \
			UNIT_FAIL("%s == %s: 0x%" PRIx64 " != 0x%" PRIx64, #a, #b, unit_a_, unit_b_); \
	} while (0)

#define CHECK_STR_EQ(a, b)                                               \
	do {                                                             \
		const char *unit_a_ = (a), *unit_b_ = (b);               \
		if (!unit_a_ || !unit_b_ || strcmp(unit_a_, unit_b_))    \
			UNIT_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b,    \
				  unit_a_ ? unit_a_ : "(null)", unit_b_ ? unit_b_ : "(null)"); \
	} while (0)

/* The monotonic clock in seconds, for a test's "time NAME SECONDS" line. */
static inline double unit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs test fn: its "ok" line (else its FAIL lines), then its own time
 * ("time NAME SECONDS", tests/run.sh): unit.test.sh runs the programs side
 * by side and prints each one's lines when it ends, so their arrival would
 * give a program's whole time to its first test. */
#define UNIT_RUN(fn)                                                     \
	do {                                                             \
		double unit_t0 = unit_now();                             \
		unit_name = #fn;                                         \
		unit_failed_now = 0;                                     \
		fn();                                                    \
		if (!unit_failed_now)                                    \
			printf("ok %s\n", unit_name);                    \
		printf("time %s %.1f\n", unit_name, unit_now() - unit_t0); \
		unit_failed_total += unit_failed_now;                    \
		fflush(stdout);                                          \
	} while (0)

/* UNIT_SKIP(fn, "REQ", "why", ...): test fn is not run: it needs REQ (a
 * requirement tests/requirements.sh defines, which tests/run.sh checks and
 * counts), and the host lacks it for the reason given. */
#define UNIT_SKIP(fn, req, ...)                                          \
	do {                                                             \
		(void)fn;                                                \
		printf("skip %s: requires %s: ", #fn, req);              \
		printf(__VA_ARGS__);                                     \
		printf("\n");                                            \
		fflush(stdout);                                          \
	} while (0)

static inline int unit_exit(void)
{
	return unit_failed_total ? 1 : 0;
}

#endif
