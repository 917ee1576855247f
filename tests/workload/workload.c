/* SPDX-License-Identifier: MIT */
/*
 * workload: the program the recorder's suites record (tests/record,
 * tests/e2e), one named mode per behaviour, as `perf test -w` has:
 *
 *   workload MODE [ARGS...]      (no MODE, or an unknown one: the list, exit 2)
 *
 * The modes are the table modes[] below. tests/workload/workload.test.sh
 * checks that each does what its name says, by counting the calls of its
 * functions (tests/workload/callcount.c) and looking at it in /proc.
 *
 * Its functions are what the tests look for in traces and use as triggers:
 *   work_top > work_mid > work_leaf (> work_tick)   nested work
 *   snaptrace_trigger(a, b)       the trigger (snaptrace's default stop
 *                                 indicator), hit with two known arguments
 *   snaptrace_spin, snaptrace_nap, snaptrace_wait_pipe, snaptrace_pf_touch,
 *   early, late, mov_imm, snaptrace_e2e_outer > _middle > _inner > _leaf,
 *   snaptrace_fp_caller > snaptrace_fp_framed > snaptrace_fp_tick
 *
 * The work must happen as written on every call, whatever the compiler
 * proves: every function the tests name is noipa (GCC: no inlining,
 * cloning, nor pure/const discovery that would let a loop hoist the call;
 * an -O1 build of a former target ran work_mid() once, then only the
 * trigger), sizes are read from volatile variables, and results go to a
 * volatile sink. Built by tests/workload/build.mk with fixed flags (-O1 -g,
 * frame pointers; workload-nofp without), never with the sanitizers of the
 * build under test: the programs traced must look the same in every build.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOIPA __attribute__((noinline, used))
#else
#define NOIPA __attribute__((noipa, used))
#endif

static volatile double sink;            /* every result lands here */
static volatile int work_size = 20000;  /* work_leaf's loop per work_mid call: about 0.1 ms */
static volatile int storm_size = 64;    /* the same between two hits of a storm */

/* CLOCK_MONOTONIC in ns. Not inlined: a sample in clock_gettime (libc and
 * the vdso keep no frame pointer) then skips this frame, not its caller's. */
NOIPA static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The trigger: an empty function taking the two integers a marker shows
 * (arg0, arg1: rdi and rsi on x86-64). */
NOIPA void snaptrace_trigger(uint64_t a, uint64_t b)
{
	__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
}

/* Called by work_leaf, so that work_leaf is no leaf and keeps its frame. */
NOIPA void work_tick(void)
{
	__asm__ volatile("" ::: "memory");
}

NOIPA double work_leaf(int n)
{
	double s = 1;

	for (int i = 1; i <= n; i++) {
		s = s * 1.0000001 + 1.0 / i;
		if (i % 4096 == 0)
			work_tick();
	}
	sink = s;
	return s;
}

NOIPA double work_mid(int n)
{
	double s = work_leaf(n) + work_leaf(n / 2);

	sink = s;
	return s;
}

/* Works MS milliseconds (at least one round; MS < 0: for ever). */
NOIPA double work_top(double ms)
{
	long long end = now_ns() + (long long)(ms * 1e6);
	double s = 0;

	do
		s += work_mid(work_size);
	while (ms < 0 || now_ns() < end);
	sink = s;
	return s;
}

/* Spins NS of wall time on the CPU. */
NOIPA void snaptrace_spin(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink = sink + (double)i;
}

/* Spins until this thread has run NS of CPU time (its own clock, not the
 * wall's: however loaded the machine, it runs that long). */
NOIPA void snaptrace_cpu_spin(long long ns)
{
	struct timespec t;
	long long end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = t.tv_sec * 1000000000LL + t.tv_nsec + ns;
	do {
		for (int i = 0; i < 1000; i++)
			sink = sink + (double)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000000000LL + t.tv_nsec < end);
}

/* Sleeps NS (off the CPU). */
NOIPA void snaptrace_nap(long long ns)
{
	struct timespec t = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
	sink = sink + 1;  /* not a tail call: the frame stays on the stack */
}

/* Blocks in read() on a pipe that a child writes to after DELAY_NS. */
NOIPA void snaptrace_wait_pipe(long long delay_ns)
{
	int fd[2];
	char c;
	pid_t child;

	if (pipe(fd))
		exit(1);
	child = fork();
	if (child == 0) {
		struct timespec t = { delay_ns / 1000000000LL, delay_ns % 1000000000LL };

		nanosleep(&t, NULL);
		_exit(write(fd[1], "x", 1) == 1 ? 0 : 1);
	}
	close(fd[1]);
	if (child < 0 || read(fd[0], &c, 1) != 1)
		exit(1);
	close(fd[0]);
	waitpid(child, NULL, 0);
	sink = sink + 1;
}

/* Maps PAGES fresh pages, writes one byte into each (a page fault each), unmaps them. */
NOIPA void snaptrace_pf_touch(size_t pages)
{
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * 4096] = (char)i;
	munmap(p, pages * 4096);
}

/* early() and late() spin MS ms of the thread's CPU time (not the wall's):
 * however loaded the machine, each runs as many samples' worth as asked
 * (switches_no_stale_fragment: late() must outlast the ring). */
NOIPA void early(double ms)
{
	snaptrace_cpu_spin((long long)(ms * 1e6));
}

NOIPA void late(double ms)
{
	snaptrace_cpu_spin((long long)(ms * 1e6));
}

/* A 5-byte `mov $0x0, %eax` (an imm32 that a probe on any byte but the
 * first would corrupt), then 1000 more. */
NOIPA unsigned mov_imm(void)
{
	unsigned n;

	__asm__ volatile("movl $0x0, %0" : "=a"(n));
	return n + 1000;
}

/* The nest mode: main > outer > middle > inner, each checked level a
 * non-leaf (inner calls the leaf), most time in inner's own loop. */
NOIPA unsigned long snaptrace_e2e_leaf(unsigned long x)
{
	return (x * 2654435761u) ^ (x >> 7);
}

NOIPA unsigned long snaptrace_e2e_inner(unsigned long n)
{
	unsigned long acc = 1;

	for (unsigned long i = 0; i < n; i++) {
		acc += (i * i) ^ (acc >> 3);
		if ((i & 255) == 0)
			acc += snaptrace_e2e_leaf(acc);
	}
	return acc;
}

NOIPA unsigned long snaptrace_e2e_middle(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long k = 0; k < 4; k++)
		r += snaptrace_e2e_inner(n + k) + k;
	return r + 1;
}

NOIPA unsigned long snaptrace_e2e_outer(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long k = 0; k < 5; k++)
		r += snaptrace_e2e_middle(n + k) * (k + 1);
	return r * 3;
}

/* ---- the modes: each gets its arguments (after the mode's name) ---- */

static int run_mode(char **argv);

/* A number argument, or exit 2 naming it. */
static double num(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "workload: expected a number >= 0, found '%s'\n", s);
		exit(2);
	}
	return v;
}

static int m_work(char **a)
{
	work_top(a[0] ? num(a[0]) : -1);
	return 0;
}

static int m_hits(char **a)
{
	double n = num(a[0]), ms = num(a[1]);

	for (uint64_t i = 1; n == 0 || i <= n; i++) {
		work_top(ms);
		snaptrace_trigger(1000 + i, 0xfeed0000u + i);
	}
	work_top(ms);
	return 0;
}

static int m_storm(char **a)
{
	long long period = (long long)(num(a[0]) * 1e3), next = now_ns() + period;
	uint64_t i = 0;

	for (;;) {
		while (now_ns() < next)
			work_mid(storm_size);
		next += period;
		snaptrace_trigger(++i, 0);
	}
	return 0;
}

/* Nested work in short bursts with naps between: the recorded program of a
 * test whose subject is not a busy target (every function of the work is
 * called in each burst, at a fraction of a spinning target's CPU time). */
static int m_bursts(char **a)
{
	double ms = num(a[0]);
	long long nap = (long long)(num(a[1]) * 1e6);

	for (uint64_t i = 1;; i++) {
		work_top(ms);
		snaptrace_trigger(i, 0);
		snaptrace_nap(nap);
	}
	return 0;
}

static int m_until(char **a)
{
	while (access(a[0], F_OK))
		work_top(50);
	return 0;
}

static int m_fork(char **a)
{
	pid_t child = fork();

	if (child < 0) {
		perror("workload: fork");
		return 1;
	}
	if (child == 0) {
		setsid();
		if (fork() < 0)
			_exit(1);
		for (;;)
			pause();
	}
	return run_mode(a);
}

static volatile sig_atomic_t onterm_signal;

/* SIGTERM: the recorder ending this program after perf's end; its parent
 * (the recorder) gets onterm_signal, once, and the program goes on. */
static void onterm(int sig)
{
	(void)sig;
	if (onterm_signal)
		kill(getppid(), onterm_signal);
	onterm_signal = 0;
}

static int m_onterm(char **a)
{
	struct sigaction sa = { .sa_handler = onterm, .sa_flags = SA_RESTART };

	onterm_signal = (int)num(a[0]);
	sigemptyset(&sa.sa_mask);
	if (onterm_signal <= 0 || onterm_signal >= NSIG || sigaction(SIGTERM, &sa, NULL)) {
		fprintf(stderr, "workload: onterm: expected a signal number, found %s\n", a[0]);
		return 2;
	}
	return run_mode(a + 1);
}

static int m_cpufirst(char **a)
{
	snaptrace_cpu_spin((long long)(num(a[0]) * 1e6));
	return run_mode(a + 1);
}

static int m_echo(char **a)
{
	printf("%s\n", a[0]);
	fflush(stdout);
	return run_mode(a + 1);
}

static volatile int worker_done;

static void *worker(void *arg)
{
	double ms = *(double *)arg;

	pthread_setname_np(pthread_self(), "worker");
	work_top(ms);
	snaptrace_trigger(1, 0);
	work_top(ms);
	worker_done = 1;
	return NULL;
}

static int m_thread(char **a)
{
	double ms = num(a[0]);
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &ms))
		return 1;
	while (!worker_done)
		work_top(10);
	return pthread_join(t, NULL) != 0;
}

static void *worker_forever(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	for (;;)
		work_top(10);
	return NULL;
}

static int m_leave(char **a)
{
	pthread_t t;

	for (int i = 0; i < num(a[0]); i++)
		if (pthread_create(&t, NULL, worker_forever, NULL))
			return 1;
	work_top(num(a[1]));
	return 0;
}

static cpu_set_t allowed;  /* the CPUs the program started with */

/* Pins the calling thread to the N-th CPU it was allowed; -1 if none. */
static int pin_nth(int n)
{
	cpu_set_t one;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed) || n--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return sched_setaffinity(0, sizeof(one), &one) ? -1 : c;
	}
	return -1;
}

static int m_migrate(char **a)
{
	if (sched_getaffinity(0, sizeof(allowed), &allowed) || pin_nth(0) < 0) {
		fprintf(stderr, "workload: migrate: cannot pin to a first CPU\n");
		return 1;
	}
	early(num(a[0]));
	if (pin_nth(1) < 0) {
		fprintf(stderr, "workload: migrate: expected a second CPU to move to\n");
		return 1;
	}
	late(num(a[1]));
	snaptrace_trigger(1, 0);
	return 0;
}

static int m_naps(char **a)
{
	double n = num(a[0]);
	long long spin = (long long)(num(a[1]) * 1e3), nap = (long long)(num(a[2]) * 1e3);

	for (int i = 0; i < n; i++) {
		long long t0 = now_ns(), t1, t2;

		snaptrace_spin(spin);
		t1 = now_ns();
		snaptrace_nap(nap);
		t2 = now_ns();
		printf("spin %lld\nsleep %lld\n", t1 - t0, t2 - t1);
	}
	return fflush(stdout) != 0;
}

static int m_pipe(char **a)
{
	double n = num(a[0]);

	for (int i = 0; i < n; i++)
		snaptrace_wait_pipe((long long)(num(a[1]) * 1e3));
	return 0;
}

static int m_spin(char **a)
{
	snaptrace_spin((long long)(num(a[0]) * 1e6));
	return 0;
}

static int m_faults(char **a)
{
	long long end = now_ns() + (long long)(num(a[0]) * 1e6);

	do {
		snaptrace_pf_touch(256);
		snaptrace_spin(2000000);
	} while (now_ns() < end);
	return 0;
}

static int m_nest(char **a)
{
	sink = (double)snaptrace_e2e_outer(a[0] ? (unsigned long)num(a[0]) : 3000000);
	return 0;
}

/* The prologues mode: snaptrace_fp_caller calls snaptrace_fp_framed, which
 * sets up a frame around one call of the frameless leaf snaptrace_fp_tick,
 * N times: a quarter of the time or so is framed's push %rbp, mov
 * %rsp,%rbp and ret, where its frame is not set up. */
NOIPA unsigned long snaptrace_fp_tick(unsigned long x)
{
	return x + 1;
}

NOIPA unsigned long snaptrace_fp_framed(unsigned long x)
{
	return snaptrace_fp_tick(x);
}

NOIPA unsigned long snaptrace_fp_caller(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long i = 0; i < n; i++)
		r = snaptrace_fp_framed(r);
	return r;
}

static int m_prologues(char **a)
{
	sink = (double)snaptrace_fp_caller(a[0] ? (unsigned long)num(a[0]) : 200000000);
	return 0;
}

static int m_movimm(char **a)
{
	FILE *f = fopen(a[0], "w");
	unsigned long sum = 0;

	if (!f) {
		perror(a[0]);
		return 1;
	}
	fputs("started\n", f);
	fflush(f);
	for (int i = 0; i < 200; i++)
		for (unsigned j = mov_imm(); j; j--)
			sum += j;
	fprintf(f, "%lu\n", sum);
	return fclose(f) != 0;
}

static const struct mode {
	const char *name, *args, *does;
	int min, max;        /* arguments taken; then ("MODE..."): a mode to run */
	int (*run)(char **args);
} modes[] = {
	{ "work", "[MS]", "nested work (work_top > work_mid > work_leaf) for MS ms, then exit; "
	  "without MS for ever", 0, 1, m_work },
	{ "hits", "N MS", "N times: MS ms of work, then snaptrace_trigger(1000 + i, "
	  "0xfeed0000 + i) (i = 1..N); then MS ms of work and exit; N 0: for ever", 2, 2, m_hits },
	{ "storm", "US", "snaptrace_trigger every US microseconds, working (work_mid) in "
	  "between, for ever", 1, 1, m_storm },
	{ "bursts", "MS NAP_MS", "for ever: MS ms of nested work (work_top > work_mid > "
	  "work_leaf), snaptrace_trigger(i, 0) (i = 1, 2...), snaptrace_nap NAP_MS",
	  2, 2, m_bursts },
	{ "until", "FILE", "work until FILE exists, then exit", 1, 1, m_until },
	{ "fork", "MODE...", "leave a child and a grandchild in a session of their own, "
	  "sleeping for ever, then run MODE", 0, 0, m_fork },
	{ "cpufirst", "MS MODE...", "snaptrace_cpu_spin for MS ms of the thread's CPU time "
	  "(however loaded the machine), then run MODE", 1, 1, m_cpufirst },
	{ "echo", "TEXT MODE...", "print TEXT on stdout, then run MODE", 1, 1, m_echo },
	{ "onterm", "SIGNO MODE...", "run MODE; the first SIGTERM sends signal SIGNO to the "
	  "parent process (the recorder, ending the program after perf's end), the others are "
	  "ignored", 1, 1, m_onterm },
	{ "thread", "MS", "a thread named worker works MS ms, hits snaptrace_trigger, works "
	  "MS ms; the main thread works until it ends, then exit", 1, 1, m_thread },
	{ "leave", "N MS", "N threads named worker work for ever; the main thread works MS ms "
	  "and returns from main: the kernel ends the workers (exit_group)", 2, 2, m_leave },
	{ "migrate", "MS1 MS2", "early() spins MS1 ms of its CPU time on the first allowed CPU, "
	  "late() MS2 ms on the second, then snaptrace_trigger and exit", 2, 2, m_migrate },
	{ "naps", "N SPIN_US SLEEP_US", "N times: snaptrace_spin SPIN_US, snaptrace_nap "
	  "SLEEP_US; prints \"spin NS\" and \"sleep NS\" of each, as measured", 3, 3, m_naps },
	{ "pipe", "N DELAY_US", "N times: snaptrace_wait_pipe blocks in read() on a pipe a "
	  "child writes to after DELAY_US", 2, 2, m_pipe },
	{ "spin", "MS", "snaptrace_spin for MS ms", 1, 1, m_spin },
	{ "faults", "MS", "for MS ms: snaptrace_pf_touch faults 256 fresh pages in, "
	  "snaptrace_spin 2 ms", 1, 1, m_faults },
	{ "nest", "[N]", "main > snaptrace_e2e_outer > _middle > _inner (> _leaf): 20 inner "
	  "calls of N (3000000) rounds each", 0, 1, m_nest },
	{ "prologues", "[N]", "snaptrace_fp_caller calls snaptrace_fp_framed N (200000000) "
	  "times, which calls the leaf snaptrace_fp_tick once", 0, 1, m_prologues },
	{ "movimm", "FILE", "write \"started\" into FILE, call mov_imm() 200 times summing "
	  "1000..1 each time, write the sum (100100000)", 1, 1, m_movimm },
};

static int usage(void)
{
	fprintf(stderr, "usage: workload MODE [ARGS...]\n");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(stderr, "  %s %s\n      %s\n", modes[i].name, modes[i].args, modes[i].does);
	return 2;
}

/* Runs the mode ARGV[0] with its arguments; a mode that takes a mode after
 * its own arguments finds it at their end. */
static int run_mode(char **argv)
{
	const struct mode *m = NULL;
	int n = 0;

	for (size_t i = 0; argv[0] && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[0], modes[i].name))
			m = &modes[i];
	if (!m)
		return usage();
	while (argv[1 + n])
		n++;
	if (strstr(m->args, "MODE") ? n <= m->max : n < m->min || n > m->max)
		return usage();
	return m->run(argv + 1);
}

int main(int argc, char **argv)
{
	(void)argc;
	return run_mode(argv + 1);
}
