/* SPDX-License-Identifier: MIT */
/*
 * The target of tests/record/slowcall.test.sh (the slow-call trigger). Every
 * call of the watched function timed() prints one line on stderr, with its
 * own measure of the call (CLOCK_MONOTONIC, inside the call):
 *   call N tid TID ms MS depth D
 * Modes:
 *   seq N SLOW        N calls of about 1 ms, 0.5 ms apart (spinning in main),
 *                     each also measured by its caller ("outer N ms MS");
 *                     call SLOW takes about 20 ms
 *   tail N SLOW       N calls of tail_timed(), which tail-calls clock_spin():
 *                     1 ms on the clock each, call SLOW 12 ms; main reads
 *                     the clock around each call
 *   recurse           the call at depth 2 takes about 66 ms: it calls itself
 *                     twice at depth 1 (3 ms each), each of which calls
 *                     itself twice at depth 0 (1 ms each); then 20 fast calls
 *   threads           two threads call timed() at the same time, 700 calls
 *                     of 1 ms each; thread A's 50th call takes about 15 ms,
 *                     thread B's 600th about 30 ms (half a second later)
 *   jump              timed() leaves its 5th call by longjmp (it never
 *                     returns), then 10 calls of 1 ms, then one of 60 ms
 *   loop N            N calls of an empty timed_empty() and as many of
 *                     other_empty() (the same, never watched) in blocks
 *                     taken in turn; on stdout the CPU time per call of
 *                     each, the cheapest block's ("loop N calls watched_ns
 *                     W unwatched_ns U")
 *   naps N            N rounds of a call of timed_empty() from main, then
 *                     a 2 ms sleep (nanosleep) from main: a sample seldom
 *                     falls between a wakeup and the call's return, as in
 *                     a new user's slow.c (issue 24, trial 16)
 *   deep N            deep_call() calls itself until N calls of it are
 *                     running at once, 3 times; prints "deep N calls 3N"
 *   unread N          stops its parent (the recorder) with SIGSTOP, makes
 *                     N calls of timed_empty() and N of other_empty(),
 *                     then lets it go on (SIGCONT): the probes' ring fills
 *                     unread, as on a machine too busy for the recorder;
 *                     prints "unread N parent PID"
 * A call spins SPIN_MS at each end and sleeps the rest, so that a loaded
 * machine seldom stretches a fast call past the slow ones. Built with frame
 * pointers so that sampled stacks are complete, and with -z now (no lazy
 * binding inside the first call).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile double spin_sink;

/* CLOCK_MONOTONIC in milliseconds. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Spins MS milliseconds of wall time (a function of its own in the stacks). */
__attribute__((noinline)) void spin(double ms);
__attribute__((noinline)) void spin(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		spin_sink = spin_sink * 1.0000001 + 1.0;
}

static int ncalls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static jmp_buf escape;
static int jump_at = -1;

#define SPIN_MS 0.1   /* on the CPU at each end of a call: the samples show it */

/* Sleeps MS milliseconds (off the CPU: a loaded machine stretches it little). */
static void nap(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3), (long)((ms - (time_t)(ms / 1e3) * 1e3) * 1e6) };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

/*
 * The watched function: takes about MS (a little spinning at its start and
 * end, sleeping in between, in two halves around its inner calls when it
 * makes some), makes INNER calls of itself at DEPTH - 1 when DEPTH > 0,
 * then prints its line.
 */
__attribute__((noinline)) void timed(double ms, int depth, int inner)
{
	double t0 = now_ms();
	int n;

	pthread_mutex_lock(&lock);
	n = ++ncalls;
	pthread_mutex_unlock(&lock);
	spin(SPIN_MS);
	nap((depth ? ms / 2 : ms) - SPIN_MS * 2);   /* BODY_LINE */
	for (int i = 0; depth > 0 && i < inner; i++)
		timed(1, depth - 1, depth - 1 > 0 ? inner : 0);
	if (n == jump_at)
		longjmp(escape, 1);
	nap(depth ? ms / 2 : 0);
	spin(SPIN_MS);
	fprintf(stderr, "call %d tid %ld ms %.3f depth %d\n", n, (long)syscall(SYS_gettid),
		now_ms() - t0, depth);
}

/* Spins MS milliseconds on the clock: its time is in clock_gettime (the
 * vDSO, no frame pointers). */
__attribute__((noinline)) void clock_spin(double ms)
{
	double t = now_ms();

	while (now_ms() - t < ms)
		spin_sink += 1;
}

/* timed's twin that leaves by a tail call (jmp clock_spin): a sample in it
 * shows main straight under clock_spin, its own frame never. */
__attribute__((noinline, optimize("optimize-sibling-calls"))) void tail_timed(int slow)
{
	clock_spin(slow ? 12 : 1);
}

__attribute__((noinline)) void timed_empty(int x)
{
	__asm__ volatile("" : "+r"(x) :: "memory");
}

struct worker {
	int slow_call;
	double slow_ms;
};

static void *worker_main(void *arg)
{
	const struct worker *w = arg;

	for (int i = 1; i <= 700; i++)
		timed(i == w->slow_call ? w->slow_ms : 1, 0, 0);
	return NULL;
}

static int threads_mode(void)
{
	struct worker a = { 50, 15 }, b = { 600, 30 };
	pthread_t ta, tb;

	if (pthread_create(&ta, NULL, worker_main, &a) || pthread_create(&tb, NULL, worker_main, &b))
		return 1;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}

__attribute__((noinline)) void other_empty(int x)
{
	__asm__ volatile("" : "+r"(x) :: "memory");
}

/* CPU time (this thread, kernel time included) of N calls of FN, in ns. */
static double cpu_ns(void (*fn)(int), long n)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (long i = 0; i < n; i++)
		fn((int)i);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
}

/* Recursion N deep: calls of deep_call running at once. */
__attribute__((noinline)) int deep_call(int n)
{
	volatile int keep = n;

	return n > 1 ? deep_call(n - 1) + keep : keep;
}

/* Blocks of calls of timed_empty (watched) and other_empty (the same, not
 * watched) in turn; the cheapest block of each, per call. */
static int loop_mode(long n)
{
	double best_w = 0, best_u = 0;

	for (int b = 0; b < 20; b++) {
		double w = cpu_ns(timed_empty, n / 20) / (double)(n / 20);
		double u = cpu_ns(other_empty, n / 20) / (double)(n / 20);

		best_w = b == 0 || w < best_w ? w : best_w;
		best_u = b == 0 || u < best_u ? u : best_u;
	}
	printf("loop %ld calls watched_ns %.0f unwatched_ns %.1f\n", n, best_w, best_u);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "seq";

	/* the first call's own measure misses what a first use costs (stdio's
	 * set-up, page faults): done here, outside the calls measured; and the
	 * recording's start (perf reading the maps) is left to settle, as the
	 * kernel's first uprobe hit in the process maps a page */
	fprintf(stderr, "start tid %ld ms %.3f\n", (long)syscall(SYS_gettid), now_ms());
	spin(SPIN_MS);
	nap(50);

	if (!strcmp(mode, "seq")) {
		int n = argc > 2 ? atoi(argv[2]) : 60, slow = argc > 3 ? atoi(argv[3]) : 37;

		for (int i = 1; i <= n; i++) {
			double t = now_ms();

			timed(i == slow ? 20 : 1, 0, 0);
			/* the call measured by its caller too: what a probe at its
			 * entry and return sees lies between the two measures */
			fprintf(stderr, "outer %d ms %.3f\n", i, now_ms() - t);
			spin(0.5);   /* samples outside timed() between two calls */
		}
		return 0;
	}
	if (!strcmp(mode, "tail")) {
		int n = argc > 2 ? atoi(argv[2]) : 60, slow = argc > 3 ? atoi(argv[3]) : 30;

		for (int i = 1; i <= n; i++) {
			double t = now_ms();

			tail_timed(i == slow);
			fprintf(stderr, "outer %d ms %.3f\n", i, now_ms() - t);
		}
		return 0;
	}
	if (!strcmp(mode, "recurse")) {
		timed(60, 2, 2);
		for (int i = 0; i < 20; i++)
			timed(1, 0, 0);
		return 0;
	}
	if (!strcmp(mode, "threads"))
		return threads_mode();
	if (!strcmp(mode, "jump")) {
		jump_at = 5;
		for (int i = 1; i <= 4; i++)
			timed(1, 0, 0);
		if (!setjmp(escape))
			timed(1, 0, 0);
		for (int i = 0; i < 10; i++)
			timed(1, 0, 0);
		timed(60, 0, 0);
		return 0;
	}
	if (!strcmp(mode, "naps")) {
		int n = argc > 2 ? atoi(argv[2]) : 40;

		for (int i = 0; i < n; i++) {
			timed_empty(i);
			nap(2);
		}
		return 0;
	}
	if (!strcmp(mode, "loop"))
		return loop_mode(argc > 2 ? atol(argv[2]) : 1000000);
	if (!strcmp(mode, "deep") && argc > 2) {
		int n = atoi(argv[2]);

		for (int i = 0; i < 3; i++)
			deep_call(n);
		printf("deep %d calls %d\n", n, 3 * n);
		return 0;
	}
	if (!strcmp(mode, "unread") && argc > 2) {
		long n = atol(argv[2]);
		pid_t parent = getppid();

		kill(parent, SIGSTOP);
		for (long i = 0; i < n; i++) {
			timed_empty((int)i);
			other_empty((int)i);
		}
		kill(parent, SIGCONT);
		printf("unread %ld parent %d\n", n, (int)parent);
		return 0;
	}
	fprintf(stderr, "usage: %s seq [N SLOW] | tail [N SLOW] | recurse | threads | jump | loop [N] | deep N | "
		"unread N\n", argv[0]);
	return 2;
}
