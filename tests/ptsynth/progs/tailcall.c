/* ptsynth test program: tail (sibling) calls, compiled with -O2: the
 * functions end in a jmp to the next one, which returns to the caller's
 * caller. */
volatile int sink;

__attribute__((noinline)) int last(int x)
{
	sink = x;
	return x + 1;
}

__attribute__((noinline)) int second(int x)
{
	sink = x;
	return last(x * 2);
}

__attribute__((noinline)) int first(int x)
{
	sink = x;
	return second(x + 3);
}

int main(void)
{
	int r = first(1);

	r += first(2);
	return r == 0;
}
