/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/pathtrust: who besides the caller and root may have
 * put a name in a directory or may replace it, for directories and entries
 * of the caller, root, a second user A and a third B. The expected answers
 * are written out from the kernel's rules for a directory (write
 * permission; the sticky bit: an entry only by its owner or the
 * directory's; a directory's owner may chmod it), row by row.
 */
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathtrust.h"
#include "unit.h"

#define NONE ((uid_t)-1)   /* no entry: a name not there yet */
#define ME   ((uid_t)-2)   /* the caller */
#define A    ((uid_t)-3)   /* a second user: neither the caller nor root */
#define B    ((uid_t)-4)   /* a third */

static uid_t uid_of(uid_t u)
{
	return u == ME ? geteuid() : u == A ? geteuid() + 1001 : u == B ? geteuid() + 1002 : u;
}

static void table(void)
{
	static const struct {
		mode_t mode;
		uid_t dir, entry;
		enum pathtrust want;
		const char *what;
	} rows[] = {
		{ 0755, ME, ME, PATHTRUST_US, "the caller's link in the caller's directory" },
		{ 0755, 0, A, PATHTRUST_US, "A's link in root's directory A cannot write (root put it)" },
		{ 0755, A, A, PATHTRUST_DIR_OWNER, "A's link in A's own directory" },
		{ 0755, A, ME, PATHTRUST_DIR_OWNER, "the caller's link in A's directory" },
		{ 01777, 0, A, PATHTRUST_OTHERS, "A's link in /tmp" },
		{ 01777, 0, ME, PATHTRUST_US, "the caller's link in /tmp" },
		{ 01777, 0, 0, PATHTRUST_US, "root's link in /tmp" },
		{ 01777, A, A, PATHTRUST_DIR_OWNER, "A's link in A's sticky directory" },
		{ 01777, A, 0, PATHTRUST_DIR_OWNER, "root's link in A's sticky directory" },
		{ 01777, A, B, PATHTRUST_OTHERS, "B's link in A's sticky directory" },
		{ 0777, 0, ME, PATHTRUST_OTHERS, "the caller's link where anyone may rename it" },
		{ 0775, ME, ME, PATHTRUST_OTHERS, "a group-writable directory without the sticky bit" },
		{ 01770, 0, A, PATHTRUST_OTHERS, "A's link in a group-writable sticky directory" },
		{ 01770, 0, 0, PATHTRUST_US, "root's link in a group-writable sticky directory" },
		{ 0755, ME, NONE, PATHTRUST_US, "a new name in the caller's directory" },
		{ 0700, A, NONE, PATHTRUST_DIR_OWNER, "a new name in A's directory" },
		{ 01777, 0, NONE, PATHTRUST_OTHERS, "a new name in /tmp" },
		{ 0720, ME, NONE, PATHTRUST_OTHERS, "a new name where the group may write" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct stat dir = { .st_mode = S_IFDIR | rows[i].mode, .st_uid = uid_of(rows[i].dir) };
		struct stat entry = { .st_mode = S_IFLNK | 0777, .st_uid = uid_of(rows[i].entry) };
		enum pathtrust got = pathtrust_of(&dir, rows[i].entry == NONE ? NULL : &entry);

		if (got != rows[i].want)
			UNIT_FAIL("%s: %d, expected %d", rows[i].what, (int)got, (int)rows[i].want);
	}
}

int main(void)
{
	UNIT_RUN(table);
	return unit_exit();
}
