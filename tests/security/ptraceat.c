/* SPDX-License-Identifier: MIT */
/*
 * ptraceat: what a user may do to a helper root runs as them (rootsafe's
 * theirs-perf-ptrace). Run as that user:
 *   ptraceat PIDFILE PROG WORD SECONDS
 * prints "watching", then waits up to SECONDS for a process of its real
 * uid whose argv[0] ends in "/PROG" (or is PROG), that has WORD among its
 * arguments (perf script: "perf" "script") and that descends from the
 * process whose pid PIDFILE holds (once it is there: the test's own
 * converter, never another suite's perf); stops it (SIGSTOP: a user may signal their processes),
 * then tries PTRACE_ATTACH and an open of /proc/PID/mem, undoes what
 * worked (PTRACE_DETACH) and continues it (SIGCONT). Prints one line:
 *   "pid N attach ok|ERRNO-NAME mem ok|ERRNO-NAME"
 * and exits 0; "gone N" (it ended before the tries: exit 3) or "none"
 * (none appeared: exit 4). ERRNO-NAME is strerror()'s text.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procs.h"

/* Whether process PID is one of ours running PROG with WORD among its
 * arguments. */
static int matches(long pid, const char *prog, const char *word)
{
	char buf[4096];
	const char *base;
	int has_word = 0;
	ssize_t n;

	if (!proc_ours(pid) || !(n = proc_read(pid, "cmdline", buf, sizeof(buf))))
		return 0;
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strcmp(base, prog))
		return 0;
	for (const char *a = buf + strlen(buf) + 1; a < buf + n; a += strlen(a) + 1)
		has_word |= !strcmp(a, word);
	return has_word;
}

/* The first process matches() takes that descends from ANCESTOR, or 0. */
static pid_t find(pid_t ancestor, const char *prog, const char *word)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		long pid = atol(de->d_name);

		if (pid > 0 && matches(pid, prog, word) && proc_descends((pid_t)pid, ancestor))
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* Whether PID is in state T (stopped) now, waiting up to a second. */
static int stopped(pid_t pid)
{
	const struct timespec nap = { 0, 1000 * 1000 };
	char state;
	pid_t ppid;

	for (int i = 0; i < 1000; i++) {
		if (proc_stat(pid, &state, &ppid))
			return 0;
		if (state == 'T')
			return 1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct timespec nap = { 0, 2 * 1000 * 1000 };
	char path[64];
	const char *attach = "ok", *mem = "ok";
	struct timespec start, now;
	pid_t pid = 0;
	int fd, ancestor = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: ptraceat PIDFILE PROG WORD SECONDS\n");
		return 2;
	}
	printf("watching\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (!ancestor)
			ancestor = proc_pidfile(argv[1]);
		if (ancestor && (pid = find(ancestor, argv[2], argv[3])))
			break;
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < atoi(argv[4]));
	if (!pid) {
		printf("none\n");
		return 4;
	}
	if (kill(pid, SIGSTOP) || !stopped(pid)) {
		printf("gone %d\n", (int)pid);
		return 3;
	}
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL)) {
		attach = strerror(errno);
	} else {
		int status;

		while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
			;
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		mem = strerror(errno);
	else
		close(fd);
	kill(pid, SIGCONT);
	printf("pid %d attach %s mem %s\n", (int)pid, attach, mem);
	return 0;
}
