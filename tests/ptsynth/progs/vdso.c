/* ptsynth test program: clock_gettime through the vdso. */
#include <time.h>

volatile long sink;

__attribute__((noinline)) long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(void)
{
	long a = now_ns(), b = now_ns();

	sink = b - a;
	return b < a;
}
