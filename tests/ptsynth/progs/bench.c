/* ptsynth test program: two threads (one with any argument) each running a
 * few turns of a branchy loop (nested calls, recursion, loops of jumps);
 * `ptsynth --repeat turn,K` makes a long trace of it (the benchmark's input,
 * bench/pipeline.sh). */
#include <pthread.h>

volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	return x & 1 ? x * 3 + 1 : x / 2;
}

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int mix(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i % 5 == 0 ? leaf(i) : i * (s & 3);
	return s;
}

__attribute__((noinline)) void turn(int i)
{
	sink += mix(40 + (i & 1)) + fib(4) + leaf(i);
}

__attribute__((noinline)) void *loop(void *arg)
{
	for (int i = 0; i < 3; i++)
		turn(i + (int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	if (argc > 1) {
		loop(0);
		return 0;
	}
	if (pthread_create(&t, NULL, loop, (void *)1L))
		return 1;
	loop(0);
	pthread_join(t, NULL);
	return 0;
}
