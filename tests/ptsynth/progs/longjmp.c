/* ptsynth test program: longjmp out of three nested frames. */
#include <setjmp.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline)) void deepest(int x)
{
	sink = x;
	longjmp(env, x);
}

__attribute__((noinline)) void deeper(int x)
{
	deepest(x + 1);
	sink = 0;
}

__attribute__((noinline)) void deep(int x)
{
	deeper(x + 1);
	sink = 0;
}

__attribute__((noinline)) int catcher(void)
{
	int v = setjmp(env);

	if (v == 0) {
		deep(1);
		return -1;
	}
	return v;
}

int main(void)
{
	sink = catcher();
	return sink != 3;
}
