/* ptsynth test program, and the target of tests/hardware (a real Intel PT
 * recording checked against the generator's truth of the same program):
 * a round of work, magic_trace_stop_indicator (the trigger symbol of
 * snaptrace), then it holds 300 ms in nanosleep (a recorder's snapshot is
 * taken while it still runs) and does a second round. The round count is
 * read at each call: GCC merged two identical calls of the const
 * round_of_work into one. */
#include <time.h>

volatile int sink;
volatile int rounds = 5;	/* read at each call: the two rounds are two calls */

__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int step(int x) { return x + 1; }

__attribute__((noinline)) int round_of_work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s = step(s);
	return s;
}

__attribute__((noinline)) void hold(void)
{
	struct timespec ts = { 0, 300000000 };

	nanosleep(&ts, 0);
}

int main(void)
{
	sink = round_of_work(rounds);
	magic_trace_stop_indicator();
	hold();
	sink += round_of_work(rounds);
	return 0;
}
