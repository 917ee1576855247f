// ptsynth test program: a C++ exception thrown through three frames.
// A template function called at two types before it. Dynamic (the static unwinder sorts every FDE of libstdc++ on the first
// throw: millions of instructions); it leaves with _exit, before the exit
// path runs __cxa_finalize through .plt.got, a stub perf 6.1 names
// inconsistently.
#include <stdexcept>
#include <unistd.h>

volatile int sink;

namespace demo {
__attribute__((noinline)) void thrower(int x)
{
	sink = x;
	if (x > 2)
		throw std::runtime_error("boom");
}

__attribute__((noinline)) void level2(int x) { thrower(x + 1); sink = 2; }
__attribute__((noinline)) void level1(int x) { level2(x + 1); sink = 1; }

// a template function at two types: perf names each without its return
// type ("demo::twice<int>"), and so must the in-process decoder
template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }

__attribute__((noinline)) int catcher()
{
	sink = twice(1) + (int)twice(0.5);
	try {
		level1(1);
	} catch (const std::runtime_error &) {
		return 7;
	}
	return 0;
}
}  // namespace demo

int main()
{
	sink = demo::catcher();
	_exit(sink != 7);
}
