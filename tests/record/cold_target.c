/* SPDX-License-Identifier: MIT */
/*
 * A program whose stripped copy's unwind table has a part of a function
 * that a jump enters (tests/record/unnamed.test.sh cold_*): gcc -O2
 * (-freorder-blocks-and-partition) moves split()'s path that calls cold
 * rare() into split.cold, an FDE of its own whose CFA at its start is
 * split()'s after its prologue, not a function's entry.
 */
__attribute__((cold, noinline)) static void rare(volatile int *p)
{
	*p = 1;
}

__attribute__((noinline)) int split(int x);
__attribute__((noinline)) int split(int x)
{
	volatile int v = x;

	if (x == 12345) {
		rare(&v);
		return v + 7;
	}
	return v * 3;
}

int main(int argc, char **argv)
{
	(void)argv;
	return split(argc) == 3 ? 0 : 1;
}
