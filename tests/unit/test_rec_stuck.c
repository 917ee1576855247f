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

/* Whether CHILD sleeps in one of the kernel functions WCHANS (NULL-ended;
 * polled up to 10 s: one poll for all, as a kernel names one of them). */
static int sleeps_in_any(pid_t child, const char *const *wchans)
{
	char path[64], now[128];

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)child);
	for (int i = 0; i < 1000; i++) {
		if (rec_proc_read(path, now, sizeof(now)) > 0)
			for (const char *const *w = wchans; *w; w++)
				if (strstr(now, *w))
					return 1;
		poll(NULL, 0, 10);
	}
	return 0;
}

/* Whether CHILD sleeps in the kernel function WCHAN (polled up to 10 s). */
static int sleeps_in(pid_t child, const char *wchan)
{
	const char *const wchans[] = { wchan, NULL };

	return sleeps_in_any(child, wchans);
}

/* Ends CHILD, started by the test. */
static void end_child(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* A child held by the FIFO FIFO (made here): in open() when it opens it
 * for reading only (no writer), else in read() (O_RDWR: the open returns).
 * Returns its pid once it sleeps there, or -1 after a FAIL. */
static pid_t held_child(const char *fifo, int flags, const char *wchan)
{
	pid_t child;

	if (mkfifo(fifo, 0600)) {
		UNIT_FAIL("mkfifo %s: %s", fifo, strerror(errno));
		return -1;
	}
	child = fork();
	if (child == 0) {
		char c;
		int fd = open(fifo, flags);

		_exit(fd < 0 || read(fd, &c, 1) < 0);
	}
	if (child < 0 || !sleeps_in(child, wchan)) {
		UNIT_FAIL("the child (%d) never slept in %s", (int)child, wchan);
		if (child > 0)
			end_child(child);
		return -1;
	}
	return child;
}

/* What rec_proc_stuck() says of a child held in CALL by a FIFO (opened
 * with FLAGS, the kernel sleeping in WCHAN): "pid N is blocked in CALL of
 * PATH (in the kernel's ...WCHAN...)", the file named (1). */
static void held_named(const char *name, int flags, const char *call, const char *wchan)
{
	const char *fifo = unit_tmp(name);
	char what[PATH_MAX + 256], want[PATH_MAX + 64];
	pid_t child = held_child(fifo, flags, wchan);

	if (child < 0)
		return;
	CHECK_INT_EQ(rec_proc_stuck(child, what, sizeof(what)), 1);
	snprintf(want, sizeof(want), "pid %d is blocked in %s of %s (in the kernel's ", (int)child,
		 call, fifo);
	if (strncmp(what, want, strlen(want)) || !strstr(what + strlen(want), wchan))
		UNIT_FAIL("expected \"%s...%s...)\": %s", want, wchan, what);
	end_child(child);
	unlink(fifo);
}

/* A child opening a FIFO no one writes blocks in openat(2) (glibc's
 * open()): named with the FIFO's path (one /proc/PID/maps shows of a
 * removed file, here). */
static void stuck_open_fifo(void)
{
	held_named("held fifo (deleted)", O_RDONLY, "openat", "wait_for_partner");
}

/* A child reading a FIFO it opened blocks in read(): named by the file
 * its descriptor is. */
static void stuck_read_fd(void)
{
	held_named("read fifo", O_RDWR, "read", "pipe_read");
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
	CHECK(sleeps_in_any(child, (const char *const[]){ "sigsuspend", "pause", NULL }));
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
