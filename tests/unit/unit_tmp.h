/* SPDX-License-Identifier: MIT */
/*
 * unit_tmp.h: a scratch directory for one unit-test program, in $TMPDIR
 * (tests/run.sh gives each program its own) or /tmp.
 *	if (unit_tmp_init("test_x")) return 1;   ... unit_tmp("a.fxt") ...
 *	unit_tmp_write("b.data", bytes, n);   unit_tmp_fini();
 */
#ifndef SNAPTRACE_UNIT_TMP_H
#define SNAPTRACE_UNIT_TMP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char unit_tmpdir[200];

/* Makes $TMPDIR/NAME.XXXXXX (/tmp without TMPDIR). Returns 0, or -1 after
 * printing why. */
static inline int unit_tmp_init(const char *name)
{
	const char *dir = getenv("TMPDIR");

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(unit_tmpdir, sizeof(unit_tmpdir), "%s/%.40s.XXXXXX", dir, name) >=
	    (int)sizeof(unit_tmpdir)) {
		fprintf(stderr, "TMPDIR too long: %s\n", dir);
		return -1;
	}
	if (!mkdtemp(unit_tmpdir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* The path of NAME in the scratch directory, in one of four static buffers
 * used in turn (so a call may hold up to four paths at once). */
static inline const char *unit_tmp(const char *name)
{
	static char bufs[4][320];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", unit_tmpdir, name);
	return b;
}

/* Writes LEN bytes of DATA as the scratch file NAME, a new file each time:
 * whatever NAME was is unlinked first (ext4 flushes a file truncated and
 * written again when it is closed: a test that rewrites one file thousands
 * of times waits on the disk). Returns its path (unit_tmp's), or NULL after
 * printing why. */
static inline const char *unit_tmp_write(const char *name, const void *data, size_t len)
{
	const char *path = unit_tmp(name);
	int fd;

	if (unlink(path) && errno != ENOENT) {
		perror(path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd)) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return path;
}

/* Does PATH exist? */
static inline bool unit_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The number of output temporaries (common/outpath.c: ".st-*.tmp") in the
 * scratch directory. */
static inline int unit_temps(void)
{
	DIR *d = opendir(unit_tmpdir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, ".st-", 4);
	closedir(d);
	return n;
}

/* Removes the scratch directory and everything in it. */
static inline void unit_tmp_fini(void)
{
	char cmd[sizeof(unit_tmpdir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", unit_tmpdir);
}

#endif
