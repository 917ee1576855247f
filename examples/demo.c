/* SPDX-License-Identifier: MIT */
/*
 * demo: the bundled target of `make demo`. It does about a second of work
 * in a few nested functions (demo_outer -> demo_middle -> demo_inner, a loop
 * calling cos() from libm opened with dlopen), sleeping 2 ms in demo_nap()
 * every 20 rounds (the timeline shows it as [off-cpu]), runs a second
 * thread, then calls magic_trace_stop_indicator(): snaptrace's default
 * trigger, so the snapshot shows the work just before that call.
 *
 * Built with -O1 -g -fno-omit-frame-pointer so that sampled call stacks
 * (frame pointers) are complete.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef double (*cos_fn)(double);

static cos_fn demo_cos;
static volatile int worker_stop;
static volatile double sink;

/* The trigger: snaptrace (and magic-trace) snapshot when this is called. */
__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The innermost level: a loop of cos() calls. */
__attribute__((noinline)) double demo_inner(int n, double phase)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += demo_cos(phase + i * 1e-3);
	return s;
}

/* A leaf without calls: pure arithmetic. */
__attribute__((noinline)) double demo_arith(int n)
{
	double s = 1;

	for (int i = 1; i <= n; i++)
		s = s * 1.0000001 + 1.0 / i;
	return s;
}

__attribute__((noinline)) double demo_middle(int round)
{
	double s = demo_inner(20000, round * 0.5);

	s += demo_arith(20000);
	return s;
}

/* Off the CPU for 2 ms: blocked in nanosleep. */
__attribute__((noinline)) void demo_nap(void)
{
	struct timespec ts = { 0, 2000000 };

	nanosleep(&ts, NULL);
	sink += 1;	/* not a tail call: the frame stays on the stack */
}

__attribute__((noinline)) double demo_outer(double seconds)
{
	double end = now_s() + seconds, s = 0;
	int round = 0;

	while (now_s() < end) {
		s += demo_middle(round++);
		if (round % 20 == 0)
			demo_nap();
	}
	return s;
}

/* The second thread: its own loop until main is done. */
__attribute__((noinline)) double demo_worker_step(int i)
{
	return demo_arith(5000 + i % 100);
}

static void *demo_worker(void *arg)
{
	double s = 0;
	int i = 0;

	(void)arg;
	while (!worker_stop)
		s += demo_worker_step(i++);
	sink = s;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, result;
	pthread_t worker;
	void *libm;

	libm = dlopen("libm.so.6", RTLD_NOW);
	if (!libm) {
		fprintf(stderr, "demo: dlopen libm.so.6: %s\n", dlerror());
		return 1;
	}
	demo_cos = (cos_fn)dlsym(libm, "cos");
	if (!demo_cos) {
		fprintf(stderr, "demo: dlsym cos: %s\n", dlerror());
		return 1;
	}
	if (pthread_create(&worker, NULL, demo_worker, NULL)) {
		fprintf(stderr, "demo: cannot create a thread\n");
		return 1;
	}
	result = demo_outer(seconds);
	magic_trace_stop_indicator();
	worker_stop = 1;
	pthread_join(worker, NULL);
	printf("demo: result %.3f\n", result);
	dlclose(libm);
	return 0;
}
