// SPDX-License-Identifier: MIT
// Functions under the names gcc gives its clones (issue 24: gcc -O2 emitted
// only "app::Store::load(int) [clone .isra.0]"). The names are given as asm
// labels, so the test does not hang on the optimizer's choices; the code
// at them is a function's like any other.
namespace app {
struct Store {
	int load(int);
};
} // namespace app

extern "C" {
__attribute__((noinline)) int store_load(int x) __asm__("_ZN3app5Store4loadEi.isra.0");
__attribute__((noinline)) int store_load(int x) { return x * 3; }
__attribute__((noinline)) int crunch(int x) __asm__("crunch.constprop.0.isra.0");
__attribute__((noinline)) int crunch(int x) { return x + 1; }
__attribute__((noinline)) int chill(int x) __asm__("chill.cold");
__attribute__((noinline)) int chill(int x) { return x - 1; }
__attribute__((noinline)) int twice_a(int x) __asm__("twice.isra.0");
__attribute__((noinline)) int twice_a(int x) { return x * 5; }
__attribute__((noinline)) int twice_b(int x) __asm__("twice.constprop.0");
__attribute__((noinline)) int twice_b(int x) { return x * 7; }
}

int main(int argc, char **argv)
{
	(void)argv;
	return store_load(argc) + crunch(argc) + chill(argc) + twice_a(argc) + twice_b(argc);
}
