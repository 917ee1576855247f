/* SPDX-License-Identifier: MIT */
#include "forks.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perfring.h"
#include "tracefs.h"

/* CLONE_THREAD (sched.h): a new thread of the same process, not a child */
#define FORKS_FILTER "!(clone_flags & 65536)"

/* task:task_newtask's id in tracefs, or -1 when it cannot be read. */
static long long tracepoint_id(void)
{
	char buf[32];
	int fd = rec_tracefs_open("events/task/task_newtask/id");
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

/* A counting event of tracepoint ID on thread TID, inherited by its threads
 * only (inherit_thread, Linux 5.13; before it, on TID alone). Returns the
 * fd or a negative errno. */
static int open_count(long long id, pid_t tid)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.inherit = 1;
	a.inherit_thread = 1;
	fd = rec_perf_open(&a, tid, -1);
	if (fd == -EINVAL) {
		a.inherit = a.inherit_thread = 0;
		fd = rec_perf_open(&a, tid, -1);
	}
	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, FORKS_FILTER)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int rec_forks_open(struct rec_forks *f, const pid_t *pids, int n)
{
	long long id = tracepoint_id();
	int open = 0;

	f->n = n < REC_MAX_PIDS ? n : REC_MAX_PIDS;
	for (int i = 0; i < f->n; i++) {
		f->fd[i] = id < 0 ? -1 : open_count(id, pids[i]);
		if (f->fd[i] < 0)
			f->fd[i] = -1;
		else
			open++;
	}
	return open;
}

uint64_t rec_forks_count(const struct rec_forks *f, int i)
{
	uint64_t v;

	if (i < 0 || i >= f->n || f->fd[i] < 0 || read(f->fd[i], &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

void rec_forks_close(struct rec_forks *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->fd[i] >= 0)
			close(f->fd[i]);
	f->n = 0;
}
