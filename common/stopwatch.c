/* SPDX-License-Identifier: MIT */
#include "stopwatch.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The most processes a look at a helper's descendants takes in. */
#define STOP_LOOK_PROCS 4096

/* Process PID's parent and state from /proc/PID/stat (its comm, in
 * parentheses, may hold anything: the fields after the last ')'). Returns
 * 0, or -1 when it is gone. */
static int proc_state(pid_t pid, pid_t *ppid, char *state)
{
	char path[32], buf[512], *p;
	int fd, ppid_i;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &ppid_i) != 2)
		return -1;
	*ppid = ppid_i;
	return 0;
}

pid_t run_stopped(pid_t pid)
{
	pid_t tree[STOP_LOOK_PROCS], ppid;
	size_t n = 1, before = 0;
	char state;
	DIR *d;

	if (proc_state(pid, &ppid, &state))
		return 0;
	if (state == 'T' || state == 't')
		return pid;
	tree[0] = pid;
	/* the processes it started: each pass takes in the children of the
	 * ones found before it (a pid namespace's first process is a
	 * grandchild: tmpview.h); no child, no second pass */
	while (n > before && n < STOP_LOOK_PROCS && (d = opendir("/proc"))) {
		size_t known = n;
		struct dirent *de;

		while ((de = readdir(d)) && n < STOP_LOOK_PROCS) {
			char *end;
			long q = strtol(de->d_name, &end, 10);

			if (*end || q <= 0 || proc_state((pid_t)q, &ppid, &state))
				continue;
			for (size_t i = before; i < known; i++) {
				if (tree[i] != ppid)
					continue;
				if (state == 'T' || state == 't') {
					closedir(d);
					return (pid_t)q;
				}
				tree[n++] = (pid_t)q;
				break;
			}
		}
		closedir(d);
		before = known;
	}
	return 0;
}

/* A clock in ms, for how long a helper has been stopped. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool run_held_stopped(pid_t pid, struct run_stopwatch *w)
{
	long long now = now_ms();

	if (w->looked && now - w->looked < STOP_LOOK_MS)
		return w->since && now - w->since >= RUN_STOPPED_MS;
	w->looked = now;
	if (!run_stopped(pid)) {
		w->since = 0;
		return false;
	}
	if (!w->since)
		w->since = now;
	return now - w->since >= RUN_STOPPED_MS;
}

