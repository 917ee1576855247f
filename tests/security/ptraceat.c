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

/* /proc/PID/NAME into BUF (SIZE bytes, NUL-terminated). Returns its
 * length, or 0 (gone, unreadable, empty). */
static ssize_t proc_read(long pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	n = n < 0 ? 0 : n;
	buf[n] = 0;
	return n;
}

/* Process PID's state and parent (/proc/PID/stat, after its comm's last
 * ')'): 0, or -1 when it is gone. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char buf[512], *p;
	int parent;

	if (!proc_read(pid, "stat", buf, sizeof(buf)) || !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %d", state, &parent) != 2)
		return -1;
	*ppid = parent;
	return 0;
}

/* Whether process PID descends from ANCESTOR. */
static int descends(pid_t pid, pid_t ancestor)
{
	char state;

	for (int depth = 0; pid > 1 && depth < 64; depth++)
		if (proc_stat(pid, &state, &pid) || pid == ancestor)
			return pid == ancestor;
	return 0;
}

/* Whether process PID is one of ours running PROG with WORD among its
 * arguments. */
static int matches(long pid, const char *prog, const char *word)
{
	char buf[4096], *uid;
	unsigned long real;
	const char *base;
	int has_word = 0;
	ssize_t n;

	/* a process of ours that is not dumpable has root's /proc files: the real uid is in status */
	if (!proc_read(pid, "status", buf, sizeof(buf)) || !(uid = strstr(buf, "\nUid:")) ||
	    sscanf(uid + 5, "%lu", &real) != 1 || real != (unsigned long)getuid())
		return 0;
	if (!(n = proc_read(pid, "cmdline", buf, sizeof(buf))))
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

		if (pid > 0 && matches(pid, prog, word) && descends((pid_t)pid, ancestor))
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
		FILE *f = ancestor ? NULL : fopen(argv[1], "re");

		if (f) {
			if (fscanf(f, "%d", &ancestor) != 1)
				ancestor = 0;
			fclose(f);
		}
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
