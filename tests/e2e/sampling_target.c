// SPDX-License-Identifier: MIT
/*
 * sampling_target: the program tests/e2e/sampling.test.sh records with
 * cpu-clock call-stack sampling. Known nesting, main > snaptrace_e2e_outer >
 * snaptrace_e2e_middle > snaptrace_e2e_inner, where every checked level is a
 * non-leaf function (inner calls the leaf snaptrace_e2e_leaf), so that
 * frame-pointer call chains show it even though a sample in a frameless leaf
 * skips the leaf's caller (docs/design.md "Sampled call chains"). Most time
 * is spent in inner's own loop.
 *   sampling_target [ITERATIONS]     (default 3,000,000 per inner call)
 */
#include <stdlib.h>

static volatile unsigned long sampling_sink;

__attribute__((noinline)) unsigned long snaptrace_e2e_leaf(unsigned long x)
{
	return (x * 2654435761u) ^ (x >> 7);
}

__attribute__((noinline)) unsigned long snaptrace_e2e_inner(unsigned long n)
{
	unsigned long acc = 1;

	for (unsigned long i = 0; i < n; i++) {
		acc += (i * i) ^ (acc >> 3);
		if ((i & 255) == 0)
			acc += snaptrace_e2e_leaf(acc);
	}
	return acc;
}

__attribute__((noinline)) unsigned long snaptrace_e2e_middle(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long k = 0; k < 4; k++)
		r += snaptrace_e2e_inner(n + k) + k;
	return r + 1;
}

__attribute__((noinline)) unsigned long snaptrace_e2e_outer(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long k = 0; k < 5; k++)
		r += snaptrace_e2e_middle(n + k) * (k + 1);
	return r * 3;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000000;

	sampling_sink = snaptrace_e2e_outer(n);
	return 0;
}
