/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/runas.c's runas_open(): a file is kept only when
 * each user of the set may open it, judged by a child with their
 * credentials (uid 65534 here, as the rootsafe suite's second user): a
 * root-only file is -EPERM with one phrase naming the uid, a file they may
 * read is opened, a link at the end is followed as they would follow it
 * (and refused with INPATH_NOFOLLOW, as inpath_open() refuses it), a name
 * relative to a directory descriptor is theirs to open too; no users: the
 * caller's open alone. Needs root (it sets another user's credentials).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inpath.h"
#include "runas.h"
#include "unit.h"

#define NOBODY 65534

/* A directory others may search (the unit scratch directory is 0700). */
static char dir[64];

static const char *at(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void make_file(const char *name, mode_t mode)
{
	FILE *f = fopen(at(name), "w");

	CHECK(f && fputs("x\n", f) >= 0 && !fclose(f) && !chmod(at(name), mode));
}

static void test_open_as(void)
{
	struct runas as;
	struct runas_set who = { &as, 1 }, none = { NULL, 0 };
	char why[200] = "";
	int fd, dfd;

	runas_prepare(&as, NOBODY, NOBODY);
	make_file("rootonly", 0600);
	make_file("public", 0644);
	CHECK(!symlink("public", at("link")));

	fd = runas_open(&who, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK_INT_EQ(fd, -EPERM);
	CHECK_STR_EQ(why, "uid 65534, whose recording it is, may not open it");
	fd = runas_open(&none, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	fd = runas_open(NULL, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);

	fd = runas_open(&who, AT_FDCWD, at("public"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	fd = runas_open(&who, AT_FDCWD, at("link"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT_EQ(runas_open(&who, AT_FDCWD, at("link"), INPATH_NOFOLLOW, why, sizeof(why)),
		     -ELOOP);
	CHECK_INT_EQ(runas_open(&who, AT_FDCWD, at("missing"), 0, why, sizeof(why)), -ENOENT);

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0);
	fd = runas_open(&who, dfd, "public", 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT_EQ(runas_open(&who, dfd, "rootonly", 0, why, sizeof(why)), -EPERM);
	close(dfd);

	unlink(at("rootonly"));
	unlink(at("public"));
	unlink(at("link"));
}

int main(void)
{
	if (geteuid() != 0) {
		UNIT_SKIP(test_open_as, "second_user", "not root");
		return unit_exit();
	}
	snprintf(dir, sizeof(dir), "/tmp/test_runas.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0711))
		return 1;
	UNIT_RUN(test_open_as);
	rmdir(dir);
	return unit_exit();
}
