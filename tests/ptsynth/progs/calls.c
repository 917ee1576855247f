/* ptsynth test program: nested calls, a loop, and the syscalls write and
 * nanosleep. Built static and as a dynamic PIE (calls through the PLT). */
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int middle(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

__attribute__((noinline)) void say(const char *s, int n)
{
	write(1, s, (size_t)n);
}

__attribute__((noinline)) void pause_briefly(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

int main(void)
{
	int r = middle(4);

	say("calls\n", 6);
	pause_briefly();
	r += middle(3);
	return r == 0;
}
