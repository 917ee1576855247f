/* SPDX-License-Identifier: MIT */
#include "uprobedef.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

#define GROUP "snaptrace_"
#define EVENTS_MAX (1 << 20)   /* uprobe_events read, at most */

/* Removes the definitions of groups GROUP<PID> whose recorder no longer
 * runs ("p:GROUP<PID>/NAME PATH:OFFSET" lines of uprobe_events). */
static void reap(void)
{
	int fd = rec_tracefs_open("uprobe_events");
	size_t len = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n;

		if (len + 4096 > cap) {
			char *p = cap < EVENTS_MAX ? realloc(buf, cap + 65536) : NULL;

			if (!p)
				break;
			buf = p;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	for (char *line = buf, *end; buf && line < buf + len; line = end + 1) {
		char cmd[128];
		long pid;
		int at = 0;

		end = memchr(line, '\n', (size_t)(buf + len - line));
		if (!end)
			end = buf + len;
		*end = '\0';
		if (sscanf(line, "%*[pr]:" GROUP "%ld/%*[A-Za-z0-9_]%n", &pid, &at) != 1 || !at ||
		    pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		/* in use, the kernel refuses (EBUSY): never another's live probe */
		if (snprintf(cmd, sizeof(cmd), "-:%.*s\n", at - 2, line + 2) < (int)sizeof(cmd))
			rec_tracefs_write("uprobe_events", cmd, strlen(cmd));
	}
	free(buf);
}

int64_t rec_uprobedef_add(const char *name, const char *path, uint64_t offset)
{
	static bool reaped;
	char cmd[512], id[128];
	int fd, err;
	ssize_t n;

	if (!reaped) {
		reaped = true;
		reap();
	}
	if (snprintf(cmd, sizeof(cmd), "p:" GROUP "%d/%s %s:0x%" PRIx64 "\n", (int)getpid(), name,
		     path, offset) >= (int)sizeof(cmd))
		return -ENAMETOOLONG;
	err = rec_tracefs_write("uprobe_events", cmd, strlen(cmd));
	if (err)
		return err;
	snprintf(id, sizeof(id), "events/" GROUP "%d/%s/id", (int)getpid(), name);
	fd = rec_tracefs_open(id);
	n = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd) - 1);
	err = n < 0 ? (fd < 0 ? fd : -errno) : 0;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		cmd[n] = '\0';
		return strtoll(cmd, NULL, 10);
	}
	rec_uprobedef_remove(name);
	return err ? err : -EIO;
}

void rec_uprobedef_remove(const char *name)
{
	char cmd[128];

	if (snprintf(cmd, sizeof(cmd), "-:" GROUP "%d/%s\n", (int)getpid(), name) <
	    (int)sizeof(cmd))
		rec_tracefs_write("uprobe_events", cmd, strlen(cmd));
}
