/* ptsynth test program: a few calls of work, then a write through a NULL
 * pointer in boom(): the program dies of SIGSEGV at that instruction, where
 * the branch trace must end. */
volatile int sink;

__attribute__((noinline)) int step(int x) { return x + 1; }

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s = step(s);
	return s;
}

__attribute__((noipa)) void boom(volatile int *p)
{
	*p = sink;
}

int main(void)
{
	sink = work(5);
	boom((volatile int *)0);
	return 0;
}
