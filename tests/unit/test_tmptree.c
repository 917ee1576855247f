// SPDX-License-Identifier: MIT
/*
 * Unit tests of common/tmptree.c's tmptree_empty() and outpath.c's
 * registered temporary directories (outpath_temp_dir()), what a stopping
 * signal removes (issue 24 item 10: a stopped conversion left its copy of
 * the kept binaries in $TMPDIR):
 * - tree_emptied: a tree of 300 files (more than one 512-byte getdents64
 *   read, removed while it is read), nested directories, and links to a
 *   file and a directory outside it is emptied; what the links lead to
 *   stays;
 * - others_kept: a directory of another uid in it is not entered (root:
 *   chown), nor a sticky one;
 * - registered_removed: outpath_remove_temps(), what the signal handler
 *   calls, removes a registered directory with what is in it, and nothing
 *   once it is forgotten; the name is PREFIX and 6 characters, mode 0700;
 * - refilled_bounded: a directory that gains an entry for each one removed
 *   (its owner adding as fast as they go: this program's unlinkat() below
 *   adds one in the same directory, up to 100,000) is left after at most
 *   TMPTREE_PASSES passes, not emptied for as long as the adding goes on
 *   (hostile21 NEW 3).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "outpath.h"
#include "tmptree.h"
#include "unit.h"
#include "unit_tmp.h"

/* The directory refilled_bounded() refills (-1: none), and its count. */
static int refill_dir = -1;
static long refills;

/* tmptree.c's unlinkat(): the system call, and with REFILL_DIR set, a new
 * file in it for each entry removed there, up to 100,000. */
int unlinkat(int dirfd, const char *path, int flags)
{
	long rc = syscall(SYS_unlinkat, dirfd, path, flags);

	if (!rc && dirfd == refill_dir && refills < 100000) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "refill-%ld", refills++);
		if ((fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			close(fd);
	}
	return (int)rc;
}

/* Whether directory PATH has no entry. */
static bool empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return d && !n;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void tree_emptied(void)
{
	char p[400];
	int fd;

	CHECK(!mkdir(unit_tmp("t"), 0700) && !mkdir(unit_tmp("out"), 0700));
	touch(unit_tmp("out/keep"));
	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), "%s/file-with-a-longer-name-%03d", unit_tmp("t"), i);
		touch(p);
	}
	CHECK(!mkdir(unit_tmp("t/a"), 0700) && !mkdir(unit_tmp("t/a/b"), 0700));
	touch(unit_tmp("t/a/b/c"));
	CHECK(!symlink(unit_tmp("out/keep"), unit_tmp("t/a/tofile")));
	CHECK(!symlink(unit_tmp("out"), unit_tmp("t/todir")));
	fd = open(unit_tmp("t"), O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	tmptree_empty(fd, 0, geteuid());
	close(fd);
	CHECK(empty(unit_tmp("t")));
	CHECK(!access(unit_tmp("out/keep"), F_OK));
}

static void others_kept(void)
{
	int fd;

	CHECK(!mkdir(unit_tmp("o"), 0700) && !mkdir(unit_tmp("o/theirs"), 0700) &&
	      !mkdir(unit_tmp("o/sticky"), 01700));
	touch(unit_tmp("o/theirs/f"));
	touch(unit_tmp("o/sticky/f"));
	CHECK(!chown(unit_tmp("o/theirs"), 4242, 4242));
	fd = open(unit_tmp("o"), O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	tmptree_empty(fd, 0, geteuid());
	close(fd);
	CHECK(!access(unit_tmp("o/theirs/f"), F_OK));
	CHECK(!access(unit_tmp("o/sticky/f"), F_OK));
}

static void registered_removed(void)
{
	char name[32], kept[32];
	struct stat st;
	int parent = open(unit_tmpdir, O_RDONLY | O_DIRECTORY), slot, slot2, fd, fd2;

	fd = outpath_temp_dir(parent, "unit-dir-", name, sizeof(name), &slot);
	fd2 = outpath_temp_dir(parent, "unit-dir-", kept, sizeof(kept), &slot2);
	CHECK(fd >= 0 && fd2 >= 0 && slot >= 0 && slot2 >= 0);
	CHECK_INT_EQ(strlen(name), strlen("unit-dir-") + OUTPATH_TEMP_DIR_RANDOM);
	CHECK(!fstat(fd, &st) && (st.st_mode & 07777) == 0700);
	CHECK(!mkdirat(fd, "sub", 0700));
	close(openat(fd, "sub/f", O_WRONLY | O_CREAT | O_EXCL, 0600));
	outpath_temp_forget(&slot2);
	CHECK_INT_EQ(slot2, -1);
	outpath_remove_temps();
	CHECK(fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT);
	CHECK(!fstatat(parent, kept, &st, AT_SYMLINK_NOFOLLOW));
	outpath_temp_forget(&slot);
	CHECK(outpath_temp_dir(parent, "a-prefix-far-too-long-for-a-name-", name, sizeof(name),
			       &slot) == -ENAMETOOLONG && slot == -1);
	close(fd);
	close(fd2);
	close(parent);
}

static void refilled_bounded(void)
{
	char p[400];
	int fd;

	CHECK(!mkdir(unit_tmp("r"), 0700));
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "%s/first-%02d", unit_tmp("r"), i);
		touch(p);
	}
	fd = open(unit_tmp("r"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	refill_dir = fd;
	tmptree_empty(fd, 0, geteuid());
	refill_dir = -1;
	if (refills >= 100000)
		UNIT_FAIL("tmptree_empty() went on while entries came: %ld removed", refills);
	tmptree_empty(fd, 0, geteuid());	/* no longer refilled: emptied */
	CHECK(empty(unit_tmp("r")));
	close(fd);
}

int main(void)
{
	if (unit_tmp_init("test_tmptree"))
		return 1;
	UNIT_RUN(tree_emptied);
	if (geteuid() == 0)
		UNIT_RUN(others_kept);
	else
		UNIT_SKIP(others_kept, "second_user", "a directory of another uid: chown needs root");
	UNIT_RUN(registered_removed);
	UNIT_RUN(refilled_bounded);
	unit_tmp_fini();
	return unit_exit();
}
