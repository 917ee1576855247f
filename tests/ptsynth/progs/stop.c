/* ptsynth test program: calls magic_trace_stop_indicator (the trigger
 * symbol of snaptrace) between two rounds of work. */
volatile int sink;

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

int main(void)
{
	sink = round_of_work(5);
	magic_trace_stop_indicator();
	sink += round_of_work(5);
	return 0;
}
