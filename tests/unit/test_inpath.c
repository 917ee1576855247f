/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/inpath: a name that ends in '/' after something
 * that is no directory (a file, a FIFO, a link to a file, /proc's link to
 * an open file) is refused as the kernel refuses it, ENOTDIR, by every
 * flag combination, and by inpath_dir(); the kernel's own open() of each
 * name is the reference (it shares nothing with inpath's walk); the files
 * named without the '/' are opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inpath.h"
#include "unit.h"
#include "unit_tmp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALL_FLAGS 16    /* every combination of INPATH_STREAM .. INPATH_INHERIT */

/* The kernel's answer for PATH: 0 when it opens (without waiting on a
 * FIFO), else its errno. */
static int kernel_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void trailing_slash(void)
{
	char proc[64], path[400];
	int file = -1;
	const char *names[] = { "file/", "file/.", "file//", "link/", "fifo/", "dir/file/" };
	const char *plain[] = { "file", "link", "dir/file" };

	CHECK(unit_tmp_write("file", "text\n", 5) != NULL);
	CHECK(!mkfifo(unit_tmp("fifo"), 0600));
	CHECK(!symlink("file", unit_tmp("link")));
	CHECK(!mkdir(unit_tmp("dir"), 0700));
	CHECK(unit_tmp_write("dir/file", "text\n", 5) != NULL);
	file = open(unit_tmp("file"), O_RDONLY | O_CLOEXEC);
	CHECK(file >= 0);
	for (size_t i = 0; i <= N(names); i++) {
		char why[300] = "";

		if (i < N(names))
			snprintf(path, sizeof(path), "%s", unit_tmp(names[i]));
		else	/* a link the kernel follows by what it knows */
			snprintf(path, sizeof(path), "%s/", inpath_proc(file, proc, sizeof(proc)));
		CHECK_INT_EQ(kernel_open(path), ENOTDIR);
		for (unsigned flags = 0; flags < ALL_FLAGS; flags++) {
			int fd = inpath_open(AT_FDCWD, path, flags, why, sizeof(why));

			if (fd >= 0)
				close(fd);
			if (fd != -ENOTDIR || strcmp(why, strerror(ENOTDIR)))
				UNIT_FAIL("inpath_open(%s, flags %u): %d (%s), expected -ENOTDIR",
					  path, flags, fd, why);
		}
		CHECK_INT_EQ(inpath_dir(AT_FDCWD, path, why, sizeof(why)), -ENOTDIR);
	}
	/* without the '/', what is a file is opened (a FIFO would wait) */
	for (size_t i = 0; i < N(plain); i++) {
		char why[300] = "";
		int fd = inpath_open(AT_FDCWD, unit_tmp(plain[i]), 0, why, sizeof(why));

		CHECK_INT_EQ(kernel_open(unit_tmp(plain[i])), 0);
		if (fd < 0)
			UNIT_FAIL("inpath_open(%s): %d (%s), expected it opened", plain[i], fd, why);
		else
			close(fd);
	}
	if (file >= 0)
		close(file);
}

int main(void)
{
	alarm(20);	/* a FIFO opened as a stream would wait: a failure, not a hang */
	if (unit_tmp_init("test_inpath"))
		return 1;
	UNIT_RUN(trailing_slash);
	unit_tmp_fini();
	return unit_exit();
}
