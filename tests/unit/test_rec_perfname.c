/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/perfrun.c's pacing of the signals that make perf
 * switch files: perf names each file by the wall time to the 10 ms, and a
 * second switch within them renames its file over the first's (issue 18:
 * CI's disk_full listed one file twice). The waits are written out by
 * hand; then a child stands in for perf and notes the wall time each
 * SIGUSR2 reaches it: never in the 10 ms of the last Dump line read.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfrun.h"
#include "unit.h"

#define MS 1000000ULL
#define T0 (1765100000ULL * 1000 * MS)   /* a wall time (s) on a 10 ms boundary */

static void name_wait_by_hand(void)
{
	/* no Dump line yet: nothing to wait for */
	CHECK_U64_EQ(rec_perf_name_wait_ns(0, T0 + 3 * MS), 0);
	/* read 2 ms into a 10 ms, now 3 ms into it: its last 7 ms */
	CHECK_U64_EQ(rec_perf_name_wait_ns(T0 + 2 * MS, T0 + 3 * MS), 7 * MS);
	/* read at its first ns: the whole 10 ms */
	CHECK_U64_EQ(rec_perf_name_wait_ns(T0, T0), 10 * MS);
	/* read at its last ns: 1 ns */
	CHECK_U64_EQ(rec_perf_name_wait_ns(T0 + 10 * MS - 1, T0 + 10 * MS - 1), 1);
	/* the next 10 ms has begun, or a later one */
	CHECK_U64_EQ(rec_perf_name_wait_ns(T0 + 2 * MS, T0 + 10 * MS), 0);
	CHECK_U64_EQ(rec_perf_name_wait_ns(T0 + 9 * MS, T0 + 25 * MS), 0);
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define ROUNDS 20

/* A child that writes to FD the wall time each of ROUNDS SIGUSR2 reach it. */
static void note_signals(int fd)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t t;

		if (sigwaitinfo(&set, NULL) < 0)
			_exit(1);
		t = real_ns();
		if (write(fd, &t, sizeof(t)) != (ssize_t)sizeof(t))
			_exit(1);
	}
	_exit(0);
}

/* Each SIGUSR2 sent just after a Dump line was read reaches perf in a
 * later 10 ms of the wall clock (without the wait, nearly all come in the
 * same 10 ms). */
static void signal_after_dump(void)
{
	struct rec_perf p;
	sigset_t set, old;
	int fds[2], status, later = 0;
	pid_t child;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK(!sigprocmask(SIG_BLOCK, &set, &old));   /* the child inherits it blocked */
	CHECK(!pipe2(fds, O_CLOEXEC));
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		close(fds[0]);
		note_signals(fds[1]);
	}
	close(fds[1]);
	memset(&p, 0, sizeof(p));
	p.pid = child;
	p.out_fd = p.ctl_fd = p.ack_fd = -1;
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t got = 0;

		p.dump_real_ns = real_ns();   /* a Dump line read now */
		CHECK_INT_EQ(rec_perf_signal(&p, SIGUSR2), 0);
		CHECK(read(fds[0], &got, sizeof(got)) == (ssize_t)sizeof(got));
		later += got / REC_PERF_NAME_NS > p.dump_real_ns / REC_PERF_NAME_NS;
	}
	CHECK_INT_EQ(later, ROUNDS);
	close(fds[0]);
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
	UNIT_RUN(name_wait_by_hand);
	UNIT_RUN(signal_after_dump);
	return unit_exit();
}
