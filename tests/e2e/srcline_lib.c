/* SPDX-License-Identifier: MIT */
/* The shared library of tests/e2e/srcline.test.sh: two functions that spin. */
volatile unsigned long srcline_lib_sink;

__attribute__((noinline)) static void srcline_lib_inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		srcline_lib_sink += i;
}

__attribute__((noinline)) void srcline_lib_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		srcline_lib_sink ^= i;
	srcline_lib_inner(n);
}
