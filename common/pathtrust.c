/* SPDX-License-Identifier: MIT */
/* pathtrust (see pathtrust.h). */
#include "pathtrust.h"

#include <stdbool.h>
#include <unistd.h>

/* Whether UID is the caller or root. */
static bool ours(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

enum pathtrust pathtrust_of(const struct stat *dir, const struct stat *entry)
{
	bool shared = dir->st_mode & (S_IWGRP | S_IWOTH);

	if (shared && (!(dir->st_mode & S_ISVTX) || !entry ||
		       (!ours(entry->st_uid) && entry->st_uid != dir->st_uid)))
		return PATHTRUST_OTHERS;
	if (!ours(dir->st_uid))
		return PATHTRUST_DIR_OWNER;	/* an entry of theirs, or ours in their directory */
	return PATHTRUST_US;
}
