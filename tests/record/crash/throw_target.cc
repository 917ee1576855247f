// SPDX-License-Identifier: MIT
// tests/record/crash.test.sh: some work, then parse_config() throws an
// exception nobody catches: std::terminate, then abort().
#include <stdexcept>
#include <time.h>

static volatile long sink;

static double now()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void work(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

__attribute__((noinline)) static void parse_config(long v)
{
	if (v >= 0)
		throw std::runtime_error("bad config");
}

int main()
{
	work(0.3);
	parse_config(sink);
	return 0;
}
