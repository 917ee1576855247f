/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/trigger with real perf events: a child process runs
 * the trigger function in its main thread and in a thread created after the
 * trigger was armed; both hits must arrive with their thread ids, the
 * child's pthread_create must still work (an inherited uprobe would make it
 * fail with EFAULT), and hits of other processes are dropped. Skips when
 * this host does not allow the events (not root, no uprobe PMU).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsym.h"
#include "procfs.h"
#include "trigger.h"
#include "unit.h"

__attribute__((noinline)) void trigger_probe_fn(void);
__attribute__((noinline)) void trigger_probe_fn(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *thread_fn(void *arg)
{
	(void)arg;
	trigger_probe_fn();
	return NULL;
}

static int read_uprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

/* The child: waits for the go, hits in a new thread, then in main; exit
 * status 0 when pthread_create worked. */
static void child_main(int go)
{
	pthread_t t;
	char c;
	int err;

	if (read(go, &c, 1) != 1)
		_exit(3);
	err = pthread_create(&t, NULL, thread_fn, NULL);
	if (err)
		_exit(10 + err % 100);
	pthread_join(t, NULL);
	trigger_probe_fn();
	_exit(0);
}

static int uprobe_type;

static void run_mechanism(enum rec_mechanism mech, int uprobe_type)
{
	struct rec_trigger t;
	struct rec_map m;
	struct rec_trig_sample hits[16];
	uintptr_t addr = (uintptr_t)&trigger_probe_fn;
	int go[2], nh = 0, status = -1, err;
	pid_t child;

	CHECK_INT_EQ(rec_proc_find_map(getpid(), NULL, 0, addr, &m), 0);
	CHECK_INT_EQ(pipe(go), 0);
	child = fork();
	if (child == 0)
		child_main(go[0]);
	CHECK_INT_EQ(rec_trigger_init(&t, mech, uprobe_type, m.path, addr - m.start + m.pgoff,
				      NULL), 0);
	err = rec_trigger_add_process(&t, child, addr);
	if (err < 0) {
		UNIT_FAIL("rec_trigger_add_process: %s", strerror(-err));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		rec_trigger_close(&t);
		return;
	}
	CHECK_INT_EQ(rec_trigger_enable(&t), 0);
	trigger_probe_fn();            /* this process: not a target, dropped */
	CHECK_INT_EQ(write(go[1], "g", 1), 1);
	waitpid(child, &status, 0);
	/* the hits are in the rings by now; read them all */
	for (int i = 0; i < t.nev; i++)
		nh += rec_trigger_read(&t, i, hits + nh, 16 - nh);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT_EQ(nh, 2);
	if (nh == 2) {
		CHECK_INT_EQ(hits[0].pid, child);
		CHECK_INT_EQ(hits[1].pid, child);
		CHECK(hits[0].tid != hits[1].tid);
		CHECK(hits[0].tid == child || hits[1].tid == child);
		CHECK(hits[0].time_ns > 0 && hits[1].time_ns > 0);
	}
	if (mech == REC_MECH_UPROBE)
		CHECK(t.foreign >= 1);
	rec_trigger_close(&t);
	close(go[0]);
	close(go[1]);
}

/* The return address of the innermost call of trigger_recursive_fn, as
 * the program itself sees it on its stack. */
static void *innermost_return;

__attribute__((noinline)) int trigger_recursive_fn(int depth);
__attribute__((noinline)) int trigger_recursive_fn(int depth)
{
	int r = depth ? trigger_recursive_fn(depth - 1) + 1 : 0;

	if (!depth)
		innermost_return = __builtin_return_address(0);
	__asm__ volatile("" : "+r"(r) :: "memory");
	return r;
}

/* Whether the innermost call's return address lies in trigger_recursive_fn
 * (its caller), not in the kernel's [uprobes] page. */
static bool return_seen_in_main(void)
{
	uintptr_t a = (uintptr_t)innermost_return, f = (uintptr_t)&trigger_recursive_fn;

	return a > f && a < f + 256;
}

static int by_time(const void *a, const void *b)
{
	const struct rec_trig_sample *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/*
 * EXITS: a child calls the function recursively (4 calls deep); the exit
 * probes' samples are the returns, each at the stack pointer of an entry
 * (the return address still on the stack), innermost first, and the
 * child's stack is untouched: it unwinds through the calls
 * (__builtin_return_address of the innermost call is its caller's code, not
 * the kernel's uretprobe trampoline).
 */
static void trigger_uprobe_returns(void)
{
	struct rec_trigger t;
	struct rec_map m;
	struct rec_sym sym;
	struct rec_callexits x;
	struct rec_trig_sample smp[32], in[8], out[8];
	uintptr_t addr = (uintptr_t)&trigger_recursive_fn;
	int go[2], n = 0, nin = 0, nout = 0, status = -1, err;
	char why[256];
	pid_t child;
	char c;

	CHECK_INT_EQ(rec_proc_find_map(getpid(), NULL, 0, addr, &m), 0);
	CHECK_INT_EQ(rec_elf_lookup(m.path, "trigger_recursive_fn", &sym), 0);
	err = rec_callexits_find(m.path, m.path, sym.value, &x, why, sizeof(why));
	CHECK_INT_EQ(err, 0);
	if (err) {
		printf("  %s\n", why);
		return;
	}
	CHECK_INT_EQ(pipe(go), 0);
	child = fork();
	if (child == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(trigger_recursive_fn(3) == 3 && return_seen_in_main() ? 0 : 4);
	}
	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_UPROBE, uprobe_type, m.path,
				      addr - m.start + m.pgoff, &x), 0);
	err = rec_trigger_add_process(&t, child, addr);
	CHECK(err > 0);
	CHECK_INT_EQ(rec_trigger_enable(&t), 0);
	CHECK_INT_EQ(write(go[1], "g", 1), 1);
	waitpid(child, &status, 0);
	for (int i = 0; i < t.nev; i++)
		n += rec_trigger_read(&t, i, smp + n, 32 - n);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < n && nin < 8 && nout < 8; i++) {
		CHECK_INT_EQ(smp[i].tid, child);
		CHECK(smp[i].sp != 0);
		if (smp[i].ret)
			out[nout++] = smp[i];
		else
			in[nin++] = smp[i];
	}
	CHECK_INT_EQ(nin, 4);
	CHECK_INT_EQ(nout, 4);
	/* in time order (the rings are per CPU): entries go deeper (lower), the
	 * returns come back up, each at its entry's stack pointer */
	qsort(in, (size_t)nin, sizeof(in[0]), by_time);
	qsort(out, (size_t)nout, sizeof(out[0]), by_time);
	for (int i = 0; nin == 4 && nout == 4 && i < 4; i++) {
		if (i)
			CHECK(in[i].sp < in[i - 1].sp && out[i].sp > out[i - 1].sp);
		CHECK_U64_EQ(out[i].sp, in[3 - i].sp);
		CHECK(out[i].time_ns > in[3 - i].time_ns);
	}
	rec_trigger_close(&t);
	rec_callexits_free(&x);
	close(go[0]);
	close(go[1]);
}

static int bp_ok, uprobe_ok;

static void trigger_uprobe_threads(void)
{
	run_mechanism(REC_MECH_UPROBE, uprobe_type);
}

static void trigger_breakpoint_threads(void)
{
	run_mechanism(REC_MECH_BREAKPOINT, -1);
}

static void trigger_init_rejects(void)
{
	struct rec_trigger t;

	static const struct rec_callexits exits;

	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_AUTO, 8, "/x", 0, NULL), -EINVAL);
	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_UPROBE, -1, "/x", 0, NULL), -EINVAL);
	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_UPROBE, 8, NULL, 0, NULL), -EINVAL);
	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_BREAKPOINT, -1, NULL, 0, &exits), -EOPNOTSUPP);
	CHECK_INT_EQ(rec_trigger_init(&t, REC_MECH_UPROBE, 8, "/x", 0, NULL), 0);
	CHECK_INT_EQ(rec_trigger_add_thread(&t, getpid(), getpid(), 0), -EINVAL);
	rec_trigger_close(&t);
	CHECK_STR_EQ(rec_mechanism_name(REC_MECH_UPROBE), "uprobe");
}

int main(void)
{
	uprobe_type = read_uprobe_type();
	rec_trigger_selftest(uprobe_type, &bp_ok, &uprobe_ok);
	UNIT_RUN(trigger_init_rejects);
	if (uprobe_ok == 1) {
		UNIT_RUN(trigger_uprobe_threads);
		UNIT_RUN(trigger_uprobe_returns);
	} else {
		UNIT_SKIP(trigger_uprobe_threads, "uprobes", "uprobe self-test: %d", uprobe_ok);
		UNIT_SKIP(trigger_uprobe_returns, "uprobes", "uprobe self-test: %d", uprobe_ok);
	}
	if (bp_ok == 1)
		UNIT_RUN(trigger_breakpoint_threads);
	else
		UNIT_SKIP(trigger_breakpoint_threads, "breakpoints", "breakpoint self-test: %d", bp_ok);
	return unit_exit();
}
