/* SPDX-License-Identifier: MIT */
/*
 * The program of tests/e2e/srcline.test.sh: main > srcline_outer >
 * srcline_inner (static) in the program, and srcline_lib_spin >
 * srcline_lib_inner in a shared library; each spins long enough to be
 * sampled in its own right. -DVARIANT builds a different binary (another
 * build id) with the same functions.
 */
void srcline_lib_spin(unsigned long n);

volatile unsigned long srcline_sink;

__attribute__((noinline)) static void srcline_inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		srcline_sink += i;
}

__attribute__((noinline)) void srcline_outer(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		srcline_sink ^= i;
	srcline_inner(n);
	srcline_lib_spin(n);
}

int main(void)
{
#ifdef VARIANT
	srcline_sink = 7;
#endif
	for (int i = 0; i < 40; i++)
		srcline_outer(1000000);
	return 0;
}
