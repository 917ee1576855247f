/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/dsoview: which directories of a perf.data's dso
 * paths another user may change (pathtrust.h) are hidden in perf's view,
 * what is bound there, what is left out; and, as root, the view itself in
 * a mount namespace of the test's: the file the converter checked is there,
 * a FIFO or link swapped in later is not. The scratch tree: D/ok (0755), D/w
 * (0777, no sticky bit: anyone may rename its entries), D/to-w (a link of
 * D to w), D/s (01777) holding root's mine/ and another uid's other/.
 */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsoview.h"
#include "unit.h"
#include "unit_tmp.h"

#define OTHER_UID 54321

static char top[PATH_MAX];   /* the scratch directory, links resolved */

/* TOP/REL into a static buffer (one of four, in turn). */
static const char *at(const char *rel)
{
	static char bufs[4][PATH_MAX + 64];
	static int n;
	char *b = bufs[n++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", top, rel);
	return b;
}

static void touch(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL, 0755);

	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static int make_tree(void)
{
	if (unit_tmp_init("test_dsoview") || !realpath(unit_tmpdir, top))
		return -1;
	CHECK(!chmod(top, 0755));
	CHECK(!mkdir(at("ok"), 0755));
	touch("ok/file");
	CHECK(!mkdir(at("w"), 0755) && !chmod(at("w"), 0777));
	CHECK(!mkdir(at("w/sub"), 0755));
	touch("w/sub/file");
	touch("w/x");
	CHECK(!mkfifo(at("w/fifo"), 0644));
	CHECK(!symlink("x", at("w/link")));
	CHECK(!symlink("w", at("to-w")));
	CHECK(!mkdir(at("s"), 0755) && !chmod(at("s"), 01777));
	CHECK(!mkdir(at("s/mine"), 0755));
	touch("s/mine/f");
	CHECK(!mkdir(at("s/other"), 0755));
	touch("s/other/prog");
	return 0;
}

/* The index of cover DIR (TOP-relative) in V, or -1. */
static long cover_of(const struct dsoview *v, const char *dir)
{
	for (size_t c = 0; c < v->ncovers; c++)
		if (!strcmp(v->covers[c], at(dir)))
			return (long)c;
	return -1;
}

/* Whether V binds REL in cover DIR. */
static bool binds(const struct dsoview *v, const char *dir, const char *rel)
{
	long c = cover_of(v, dir);

	for (size_t i = 0; c >= 0 && i < v->nfiles; i++)
		if (v->files[i].cover == (size_t)c && !strcmp(v->files[i].rel, rel))
			return true;
	return false;
}

static void trusted_paths(void)
{
	struct dsoview v = { 0 };

	CHECK_INT_EQ(dsoview_add(&v, at("ok/file")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("ok/missing")), 0);
	CHECK_INT_EQ(dsoview_add(&v, "//anon"), 0);
	CHECK_INT_EQ(dsoview_add(&v, "[vdso]"), 0);
	CHECK_INT_EQ(dsoview_finish(&v, NULL), 0);
	CHECK(!dsoview_any(&v));
	dsoview_free(&v);
}

static void covers(void)
{
	struct dsoview v = { 0 };

	CHECK_INT_EQ(dsoview_add(&v, at("w/sub/file")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("w/sub/file")), 0);        /* a repeat */
	CHECK_INT_EQ(dsoview_add(&v, at("to-w/sub/file")), 0);     /* through root's link */
	CHECK_INT_EQ(dsoview_add(&v, at("ok/../w/./x")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("w/missing")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("w/fifo")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("w/link")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("w/sub/../x")), 0);
	CHECK_INT_EQ(dsoview_finish(&v, NULL), 0);
	CHECK_INT_EQ((long)v.ncovers, 1);
	CHECK(cover_of(&v, "w") == 0);
	CHECK(binds(&v, "w", "sub/file"));
	CHECK(binds(&v, "w", "x"));
	CHECK_INT_EQ((long)v.nfiles, 2);
	CHECK_INT_EQ((long)v.left, 3);       /* the FIFO, the link, the ".." */
	CHECK_STR_EQ(v.left_path, at("w/fifo"));
	CHECK_STR_EQ(v.left_why, "a FIFO");
	dsoview_free(&v);
}

/* Many files of one cover, each named twice (the second time by another
 * spelling): the first DSOVIEW_FILES_MAX are bound once each (the index of
 * the bound files finds the repeats), the rest left out and counted. */
static void many_files(void)
{
	struct dsoview v = { 0 };
	const unsigned n = DSOVIEW_FILES_MAX + 76;
	char rel[64];

	CHECK(!mkdir(at("w/many"), 0755));
	for (unsigned i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "w/many/f%u", i);
		touch(rel);
	}
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n; i++) {
			snprintf(rel, sizeof(rel), pass ? "w/./many/f%u" : "w/many/f%u", i);
			CHECK_INT_EQ(dsoview_add(&v, at(rel)), 0);
		}
	CHECK_INT_EQ((long)v.ncovers, 1);
	CHECK_INT_EQ((long)v.nfiles, (long)DSOVIEW_FILES_MAX);
	CHECK(binds(&v, "w", "many/f0"));
	snprintf(rel, sizeof(rel), "many/f%u", DSOVIEW_FILES_MAX - 1);
	CHECK(binds(&v, "w", rel));
	snprintf(rel, sizeof(rel), "many/f%u", DSOVIEW_FILES_MAX);
	CHECK(!binds(&v, "w", rel));
	CHECK_INT_EQ((long)v.left_over, 2 * 76);   /* each spelling of those past the bound */
	CHECK_INT_EQ(dsoview_finish(&v, NULL), 0);
	dsoview_free(&v);
}

static void names(void)
{
	const char *paths[] = { "perf", NULL, NULL };
	char symfs[PATH_MAX + 64];
	struct dsoview v = { 0 };
	long c;

	CHECK(!chown(at("s/other"), OTHER_UID, OTHER_UID));
	CHECK(!mkdir(at("s/tools"), 0755));
	snprintf(symfs, sizeof(symfs), "--symfs=%s", at("s/tools"));
	paths[1] = symfs;
	CHECK_INT_EQ(dsoview_add(&v, at("s/other/prog")), 0);
	CHECK_INT_EQ(dsoview_add(&v, at("s/mine/f")), 0);
	CHECK_INT_EQ(dsoview_finish(&v, paths), 0);
	c = cover_of(&v, "s");
	CHECK(c >= 0 && v.ncovers == 1);
	CHECK(binds(&v, "s", "other/prog"));
	CHECK_INT_EQ((long)v.nnames, 2);
	for (size_t i = 0; i < v.nnames; i++)
		CHECK(v.names[i].cover == (size_t)c &&
		      (!strcmp(v.names[i].name, "mine") || !strcmp(v.names[i].name, "tools")));
	dsoview_free(&v);
}

/* In a child in a mount namespace of its own: mounts V, then checks what
 * the paths show: PROG the file bound at s/other/prog (NULL: none there);
 * exits 0 when all is as expected, else the number of the check. */
static int child_mount(const struct dsoview *v, const struct stat *prog)
{
	struct stat st;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	if (dsoview_mount(v, -1, -1))
		return 2;
	if (prog ? stat(at("s/other/prog"), &st) || st.st_ino != prog->st_ino :
		   !lstat(at("s/other/prog"), &st))
		return 3;	/* the checked file bound, or nothing */
	if (stat(at("s/mine/f"), &st) || !S_ISREG(st.st_mode))
		return 4;	/* root's name shown */
	if (!lstat(at("s/x"), &st) || !lstat(at("s/other/real"), &st))
		return 5;	/* nothing else */
	return 0;
}

/* Mounts V in a child (child_mount()). */
static void view_shows(const struct dsoview *v, const struct stat *prog)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(child_mount(v, prog));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		UNIT_FAIL("the view: status %#x (the child's check that failed)", status);
}

/* V made of s/other/prog and s/mine/f. */
static void make(struct dsoview *v)
{
	*v = (struct dsoview){ 0 };
	CHECK_INT_EQ(dsoview_add(v, at("s/other/prog")), 0);
	CHECK_INT_EQ(dsoview_add(v, at("s/mine/f")), 0);
	CHECK_INT_EQ(dsoview_finish(v, NULL), 0);
}

static void mounted(void)
{
	struct dsoview v;
	struct stat prog;

	CHECK(!stat(at("s/other/prog"), &prog));
	touch("s/x");
	make(&v);
	view_shows(&v, &prog);
	/* a FIFO swapped in at the name after the check: never bound */
	CHECK(!rename(at("s/other/prog"), at("s/other/real")));
	CHECK(!mkfifo(at("s/other/prog"), 0644));
	view_shows(&v, NULL);
	dsoview_free(&v);
	/* a FIFO there at the check: left out */
	make(&v);
	CHECK_INT_EQ((long)v.left, 1);
	CHECK_INT_EQ((long)v.nfiles, 0);
	CHECK_STR_EQ(v.left_why, "a FIFO");
	view_shows(&v, NULL);
	dsoview_free(&v);
}

int main(void)
{
	if (make_tree())
		return 1;
	UNIT_RUN(trusted_paths);
	UNIT_RUN(covers);
	UNIT_RUN(many_files);
	if (geteuid() == 0) {
		UNIT_RUN(names);
		UNIT_RUN(mounted);
	} else {
		UNIT_SKIP(names, "second_user", "a file of another uid: chown needs root");
		UNIT_SKIP(mounted, "mount_namespace", "a mount namespace needs root");
	}
	unit_tmp_fini();
	return unit_exit();
}
