/* SPDX-License-Identifier: MIT */
/*
 * unit_tmp.h: a scratch directory for one unit-test program.
 *	if (unit_tmp_init("test_x")) return 1;   ... unit_tmp("a.fxt") ...
 *	unit_tmp_fini();
 */
#ifndef SNAPTRACE_UNIT_TMP_H
#define SNAPTRACE_UNIT_TMP_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char unit_tmpdir[64];

/* Makes /tmp/NAME.XXXXXX. Returns 0, or -1 after printing why. */
static inline int unit_tmp_init(const char *name)
{
	snprintf(unit_tmpdir, sizeof(unit_tmpdir), "/tmp/%.40s.XXXXXX", name);
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
	static char bufs[4][256];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", unit_tmpdir, name);
	return b;
}

/* Does PATH exist? */
static inline bool unit_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The number of named output temporaries (common/outpath.c: ".snaptrace-*.tmp") in the
 * scratch directory. */
static inline int unit_temps(void)
{
	DIR *d = opendir(unit_tmpdir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, ".snaptrace-", 11);
	closedir(d);
	return n;
}

/* Removes the scratch directory and everything in it. */
static inline void unit_tmp_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", unit_tmpdir);
}

#endif
