/* SPDX-License-Identifier: MIT */
#include "jitdump.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"

struct find {
	char *dump;
	size_t size;
};

/* perfdata_mmaps()'s callback: FILE named jit-NUMBER.dump (perf's jit_detect()). */
static int is_jitdump(void *arg, const char *file)
{
	struct find *f = arg;
	const char *base = strrchr(file, '/');
	char *end;

	if (!base || strncmp(base + 1, "jit-", 4) || base[5] < '0' || base[5] > '9')
		return 0;
	strtoul(base + 5, &end, 10);
	if (strcmp(end, ".dump") || strlen(file) >= f->size)
		return 0;
	strcpy(f->dump, file);
	return 1;
}

int jitdump_find(const char *path, char *dump, size_t size)
{
	struct find f = { dump, size };

	return perfdata_mmaps(path, is_jitdump, &f) == 1;
}

/* The integer in /proc/sys/FILE, or 0. */
static long sysctl_value(const char *file)
{
	char path[128];
	long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", file);
	f = fopen(path, "re");
	if (f && fscanf(f, "%ld", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

int jitdump_safe(const char *dump, char *why, size_t size)
{
	char dir[PATH_MAX];
	struct stat st;

	if (stat(dump, &st)) {
		snprintf(why, size, "%s", strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, size, "not a regular file");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", dump);
	if (stat(dirname(dir), &st)) {
		snprintf(why, size, "%s: %s", dir, strerror(errno));
		return 0;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, size, "%s belongs to another user (uid %u), and perf inject would "
			 "create files there as this one", dir, (unsigned)st.st_uid);
		return 0;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    !((st.st_mode & S_ISVTX) && sysctl_value("fs/protected_symlinks") >= 1 &&
	      sysctl_value("fs/protected_regular") >= 1)) {
		snprintf(why, size, "other users can create files in %s, and perf inject would "
			 "create files there without checking what it opens", dir);
		return 0;
	}
	return 1;
}
