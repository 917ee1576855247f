// SPDX-License-Identifier: MIT
// The target of tests/record/triggers.test.sh: known symbols, a C++
// namespace with an overloaded function, a known line (FLUSH_LINE; built
// with -g), the stop indicator (called with an argument), a libc call
// (getpid), and two functions named as Rust names them (asm labels: the
// legacy mangling mycrate::store::load with its hash, the v0 mangling
// mycrate::store::flush). It spins 300 ms in work_leaf, calls each once,
// then spins 5 s (argv[2]: that many ms).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

namespace app {
struct Store {
	static int load(int key);
	static int load(const char *name);
	static int flush(int n);
};
}

volatile double sink;

__attribute__((noinline)) int app::Store::load(int key) { sink += key; return (int)sink; }
__attribute__((noinline)) int app::Store::load(const char *name) { sink += name[0]; return 1; }
__attribute__((noinline)) int app::Store::flush(int n)
{
	sink += n * 2; // FLUSH_LINE
	return (int)sink;
}

extern "C" __attribute__((noinline)) int rust_load(int x) __asm__("_ZN7mycrate5store4load17h0123456789abcdefE");
extern "C" __attribute__((noinline)) int rust_load(int x) { sink += x; return (int)sink; }
extern "C" __attribute__((noinline)) int rust_flush(int x) __asm__("_RNvNtCs1234_7mycrate5store5flush");
extern "C" __attribute__((noinline)) int rust_flush(int x) { sink += x * 3; return (int)sink; }

extern "C" __attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

extern "C" __attribute__((noinline)) double work_leaf(int n)
{
	double s = 1;
	for (int i = 1; i <= n; i++)
		s = s * 1.0000001 + 1.0 / i;
	return s;
}

/* spins MS milliseconds in work_leaf */
__attribute__((noinline)) static void spin(double ms)
{
	double end = now() + ms / 1e3;
	while (now() < end)
		sink += work_leaf(20000);
}

int main(int argc, char **argv)
{
	/* argv[1]: "stop" also calls the stop indicator */
	spin(300);
	app::Store::load(1);
	app::Store::load("x");
	app::Store::flush(3);
	rust_load(4);
	rust_flush(5);
	if (getpid() < 0)
		return 1;
	if (argc > 1)
		magic_trace_stop_indicator();
	spin(argc > 2 ? atof(argv[2]) : 5000);
	return 0;
}
