/* ptsynth test program: the --filter and --window tests' known call
 * structure. Two threads (main and a worker) each run run(): work(2),
 * then phase(3) (phase_begin, work(3), phase_end), work(1), phase(2); work(N)
 * calls leaf N times. */
#include <pthread.h>

volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

__attribute__((noinline)) void phase_begin(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void phase_end(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int phase(int n)
{
	int s;

	phase_begin();
	s = work(n);
	phase_end();
	return s;
}

__attribute__((noinline)) void run(void)
{
	sink += work(2);
	sink += phase(3);
	sink += work(1);
	sink += phase(2);
}

__attribute__((noinline)) void *worker(void *arg)
{
	run();
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	run();
	pthread_join(t, NULL);
	return 0;
}
