/* SPDX-License-Identifier: MIT */
/* pathtrust (see pathtrust.h). */
#include "pathtrust.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

bool pathtrust_uid_ours(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

enum pathtrust pathtrust_of(const struct stat *dir, const struct stat *entry)
{
	bool shared = dir->st_mode & (S_IWGRP | S_IWOTH);

	if (shared && (!(dir->st_mode & S_ISVTX) || !entry ||
		       (!pathtrust_uid_ours(entry->st_uid) && entry->st_uid != dir->st_uid)))
		return PATHTRUST_OTHERS;
	if (!pathtrust_uid_ours(dir->st_uid))
		return PATHTRUST_DIR_OWNER;	/* an entry of theirs, or ours in their directory */
	return PATHTRUST_US;
}

int pathtrust_upward(char *dir, struct stat entry, struct stat *at)
{
	char *slash;

	for (;;) {
		if (lstat(dir, at))
			return -1;
		if (pathtrust_of(at, &entry) != PATHTRUST_US)
			return 0;
		if (!strcmp(dir, "/"))
			return 1;
		entry = *at;
		slash = strrchr(dir, '/');
		slash[slash == dir] = '\0';	/* the directory above; "/" last */
	}
}
