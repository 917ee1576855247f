/* ptsynth test program: two threads (main and one worker) both calling
 * functions; the worker is joined. */
#include <pthread.h>

volatile int sink;

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

__attribute__((noinline)) void *worker(void *arg)
{
	sink = work(5 + (int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, (void *)1L))
		return 1;
	sink = work(3);
	pthread_join(t, NULL);
	return 0;
}
