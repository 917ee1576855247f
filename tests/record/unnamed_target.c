/* SPDX-License-Identifier: MIT */
/*
 * A program whose stripped copy has its functions only in its unwind table
 * (tests/record/unnamed.test.sh): main() calls serve() CALLS times (argv[1],
 * default 20), 2 ms apart; serve() spins on its own, then calls spin(),
 * which spins: samples land in both.
 */
#define _DEFAULT_SOURCE	/* usleep */
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void serve(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 3;
	spin(n);
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 20;

	for (int i = 0; i < calls; i++) {
		serve(2000000);
		usleep(2000);
	}
	return 0;
}
