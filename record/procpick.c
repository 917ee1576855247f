/* SPDX-License-Identifier: MIT */
#include "procpick.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "picker.h"
#include "procfs.h"

#define CMDLINE_SHOWN 200   /* bytes of a command line shown */

struct proc_row {
	pid_t pid;
	uint64_t start;  /* its start time when listed */
	char *row;     /* "PID USER COMM<TAB>COMMAND LINE", owned */
};

/* The name of user UID into BUF (its number when it has none). */
static const char *user_name(long uid, char *buf, size_t size)
{
	struct passwd pw, *found = NULL;
	char tmp[1024];

	if (uid >= 0 && !getpwuid_r((uid_t)uid, &pw, tmp, sizeof(tmp), &found) && found)
		snprintf(buf, size, "%s", pw.pw_name);
	else
		snprintf(buf, size, "%ld", uid);
	return buf;
}

/* Reads process PID's command line (arguments joined by spaces) into BUF.
 * Returns its length; 0 for a kernel thread (none) or a process gone. */
static size_t read_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = rec_proc_read(path, buf, size);
	if (n <= 0)
		return 0;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\t' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
	return (size_t)n;
}

static int newest_first(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->pid < y->pid ? 1 : x->pid > y->pid ? -1 : 0;
}

/* Fills *ROWS (*N of them) with the processes to pick from. Returns 0 or -ENOMEM. */
static int collect(struct proc_row **rows, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t cap = 0;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char cmd[CMDLINE_SHOWN + 1], comm[32], user[64], *end;
		long pid = strtol(de->d_name, &end, 10), uid;
		uint64_t start = *end ? 0 : rec_proc_start_time((pid_t)pid);
		struct proc_row *r;

		if (*end || pid <= 0 || pid == getpid() || !start || !rec_proc_alive((pid_t)pid) ||
		    !read_cmdline((pid_t)pid, cmd, sizeof(cmd)) ||
		    rec_proc_comm((pid_t)pid, (pid_t)pid, comm, sizeof(comm)) ||
		    (uid = rec_proc_uid((pid_t)pid)) < 0)
			continue;
		r = array_grow(*rows, &cap, *n, sizeof(**rows));
		if (!r) {
			err = -ENOMEM;
			break;
		}
		*rows = r;
		r = &(*rows)[*n];
		r->pid = (pid_t)pid;
		r->start = start;
		if (asprintf(&r->row, "%ld %s %s\t%s", pid, user_name(uid, user, sizeof(user)), comm,
			     cmd) < 0)
			err = -ENOMEM;
		else
			(*n)++;
	}
	closedir(d);
	array_sort(*rows, *n, sizeof(**rows), newest_first);
	return err;
}

int rec_procpick(struct rec_proc_held *picked, char *why, size_t size)
{
	static const struct rec_picker picker = {
		"process", "the process to attach to and record",
	};
	struct proc_row *rows = NULL;
	char **text = NULL;
	size_t n = 0, pick;
	int err;

	if (!isatty(STDIN_FILENO)) {
		snprintf(why, size, "attach: expected -p PID, -t TID, or a terminal to pick a "
			 "process on, found none (stdin is not a terminal)");
		return -ENOTTY;
	}
	err = collect(&rows, &n);
	if (!err && !n)
		err = -ENOENT;
	if (!err && !(text = calloc(n, sizeof(*text))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++)
		text[i] = rows[i].row;
	if (!err)
		err = rec_pick(&picker, text, n, &pick);
	if (!err && (err = rec_proc_hold(rows[pick].pid, rows[pick].start, picked)) == -ESRCH)
		snprintf(why, size, "attach: process %d ended since it was listed (its pid may be "
			 "another process's now): not attached", (int)rows[pick].pid);
	else if (err == -ECANCELED)
		snprintf(why, size, "attach: no process picked");
	else if (err == -ENOENT)
		snprintf(why, size, "attach: expected processes to pick from, found none");
	else if (err)
		snprintf(why, size, "attach: cannot pick a process: %s", strerror(-err));
	for (size_t i = 0; i < n; i++)
		free(rows[i].row);
	free(rows);
	free(text);
	return err;
}
