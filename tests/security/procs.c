/* SPDX-License-Identifier: MIT */
#include "procs.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ssize_t proc_read(long pid, const char *name, char *buf, size_t size)
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

int proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char buf[512], *p;
	int parent;

	if (!proc_read(pid, "stat", buf, sizeof(buf)) || !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %d", state, &parent) != 2)
		return -1;
	*ppid = parent;
	return 0;
}

int proc_ours(long pid)
{
	char buf[4096], *uid;
	unsigned long real;

	return proc_read(pid, "status", buf, sizeof(buf)) && (uid = strstr(buf, "\nUid:")) &&
	       sscanf(uid + 5, "%lu", &real) == 1 && real == (unsigned long)getuid();
}

int proc_descends(pid_t pid, pid_t ancestor)
{
	char state;

	for (int depth = 0; pid > 1 && depth < 64; depth++)
		if (proc_stat(pid, &state, &pid) || pid == ancestor)
			return pid == ancestor;
	return 0;
}

pid_t proc_pidfile(const char *pidfile)
{
	FILE *f = fopen(pidfile, "re");
	int pid = 0;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}
