/* SPDX-License-Identifier: MIT */
/*
 * cold_split(): a function with a part that a jump enters, for the tests
 * of which unwind-table entries are a function's (unit test_fdetab, record
 * unnamed's cold_target.c). gcc -O2 (-freorder-blocks-and-partition) moves
 * its path that calls cold rare() into cold_split.cold, an FDE of its own
 * whose CFA at its start is cold_split()'s after its prologue, not a
 * function's entry. Included once per program: it defines them. Returns
 * X * 3 (X + 7 for X 12345).
 */
#ifndef SNAPTRACE_TEST_COLD_SPLIT_H
#define SNAPTRACE_TEST_COLD_SPLIT_H

__attribute__((cold, noinline)) static void rare(volatile int *p)
{
	*p = 1;
}

__attribute__((noinline)) int cold_split(int x);
__attribute__((noinline)) int cold_split(int x)
{
	volatile int v = x;

	if (x == 12345) {
		rare(&v);
		return v + 7;
	}
	return v * 3;
}

#endif
