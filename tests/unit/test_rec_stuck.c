/* SPDX-License-Identifier: MIT */
/* Unit tests of record/stuck.c: what a process that does not answer waits
 * on, named from /proc (a child of the test's held by a FIFO). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "stuck.h"
#include "unit.h"
#include "unit_tmp.h"

/* Whether CHILD sleeps in the kernel function WCHAN (polled up to 10 s). */
static int sleeps_in(pid_t child, const char *wchan)
{
	char path[64], now[128];

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)child);
	for (int i = 0; i < 1000; i++) {
		if (rec_proc_read(path, now, sizeof(now)) > 0 && strstr(now, wchan))
			return 1;
		poll(NULL, 0, 10);
	}
	return 0;
}

/* Ends CHILD, started by the test. */
static void end_child(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* A child opening a FIFO no one writes blocks in open(): named with the
 * FIFO's path and the kernel function it sleeps in. */
static void stuck_open_fifo(void)
{
	const char *fifo = unit_tmp("held fifo (deleted)");
	char what[PATH_MAX + 256], want[PATH_MAX + 64];
	pid_t child;

	CHECK_INT_EQ(mkfifo(fifo, 0600), 0);
	child = fork();
	if (child == 0)
		_exit(open(fifo, O_RDONLY) < 0);
	CHECK(child > 0);
	if (child <= 0)
		return;
	CHECK(sleeps_in(child, "wait_for_partner") || sleeps_in(child, "fifo_open"));
	CHECK_INT_EQ(rec_proc_stuck(child, what, sizeof(what)), 1);
	snprintf(want, sizeof(want), "pid %d is blocked in open", (int)child);
	CHECK(!strncmp(what, want, strlen(want)));
	snprintf(want, sizeof(want), " of %s (in the kernel's ", fifo);
	if (!strstr(what, want))
		UNIT_FAIL("no path: %s", what);
	end_child(child);
	unlink(fifo);
}

/* A child reading a FIFO it opened (O_RDWR, so the open returns) blocks in
 * read(): named by the file its descriptor is. */
static void stuck_read_fd(void)
{
	const char *fifo = unit_tmp("read fifo");
	char what[PATH_MAX + 256], want[PATH_MAX + 64];
	pid_t child;

	CHECK_INT_EQ(mkfifo(fifo, 0600), 0);
	child = fork();
	if (child == 0) {
		char c;
		int fd = open(fifo, O_RDWR);

		_exit(fd < 0 || read(fd, &c, 1) < 0);
	}
	CHECK(child > 0);
	if (child <= 0)
		return;
	CHECK(sleeps_in(child, "pipe_read"));
	CHECK_INT_EQ(rec_proc_stuck(child, what, sizeof(what)), 1);
	snprintf(want, sizeof(want), "pid %d is blocked in read of %s (in the kernel's ",
		 (int)child, fifo);
	if (strncmp(what, want, strlen(want)) || !strstr(what, "pipe_read)"))
		UNIT_FAIL("expected \"%s...pipe_read)\": %s", want, what);
	end_child(child);
	unlink(fifo);
}

/* A child in pause() waits on no file: said, not named (0). */
static void stuck_sleeping(void)
{
	char what[PATH_MAX + 256];
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	if (child <= 0)
		return;
	CHECK(sleeps_in(child, "sigsuspend") || sleeps_in(child, "pause") ||
	      sleeps_in(child, "do_sys_pause") || sleeps_in(child, "sys_pause"));
	CHECK_INT_EQ(rec_proc_stuck(child, what, sizeof(what)), 0);
	CHECK(strstr(what, "is blocked in system call") != NULL);
	end_child(child);
	/* gone: nothing to read */
	CHECK(rec_proc_stuck(child, what, sizeof(what)) < 0);
}

int main(void)
{
	if (unit_tmp_init("test_rec_stuck"))
		return 1;
	UNIT_RUN(stuck_open_fifo);
	UNIT_RUN(stuck_read_fd);
	UNIT_RUN(stuck_sleeping);
	unit_tmp_fini();
	return unit_exit();
}
