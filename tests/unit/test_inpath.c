/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/inpath: a name that ends in '/' after something
 * that is no directory (a file, a FIFO, a link to a file, /proc's link to
 * an open file) is refused as the kernel refuses it, ENOTDIR, by every
 * flag combination, and by inpath_dir(); the kernel's own open() of each
 * name is the reference (it shares nothing with inpath's walk); the files
 * named without the '/' are opened. What a stream input takes: a pipe,
 * never a named FIFO or a device.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inpath.h"
#include "unit.h"
#include "unit_tmp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALL_FLAGS 8     /* every combination of INPATH_STREAM .. INPATH_OWNED */

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

/* What INPATH_STREAM takes (issue 24: `stats FIFO` waited forever): a pipe
 * handed to the process, read; never a named FIFO, the caller's own with no
 * writer too, nor a device (/dev/zero never ends), each refused -EINVAL at
 * once with the kind and what was expected; without the flag the pipe too. */
static void streams(void)
{
	struct { const char *path, *why; unsigned flags; } refused[] = {
		{ unit_tmp("lonely"), "a FIFO, expected " INPATH_STREAM_EXPECTED, INPATH_STREAM },
		{ "/dev/zero", "a character device, expected " INPATH_STREAM_EXPECTED,
		  INPATH_STREAM },
		{ NULL, "a pipe, expected a regular file", 0 },	/* the pipe */
	};
	char proc[64], why[300], got[8] = "";
	int p[2], fd;

	CHECK(!mkfifo(unit_tmp("lonely"), 0600));
	CHECK(!pipe(p));
	refused[2].path = inpath_proc(p[0], proc, sizeof(proc));
	for (size_t i = 0; i < N(refused); i++) {
		why[0] = 0;
		fd = inpath_open(AT_FDCWD, refused[i].path, refused[i].flags, why, sizeof(why));
		if (fd >= 0)
			close(fd);
		if (fd != -EINVAL || strcmp(why, refused[i].why))
			UNIT_FAIL("inpath_open(%s, %u): %d (%s), expected -EINVAL (%s)",
				  refused[i].path, refused[i].flags, fd, why, refused[i].why);
	}
	CHECK(write(p[1], "pipe", 4) == 4);
	fd = inpath_open(AT_FDCWD, proc, INPATH_STREAM, why, sizeof(why));
	CHECK(fd >= 0);
	if (fd >= 0) {	/* blocking reads: the O_NONBLOCK of the open is gone */
		CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
		CHECK(read(fd, got, 4) == 4);
		CHECK_STR_EQ(got, "pipe");
		close(fd);
	}
	close(p[0]);
	close(p[1]);
}

/* A file held by a write lease (fcntl F_SETLEASE, its owner's: hostile18
 * NEW 4) is there: inpath_open() never waits the lease out (the kernel's
 * fs.lease-break-time, 45 s) and says so, "held by a lease of uid N", never
 * a file gone. The lease is a child's (a lease is broken by another open
 * file, any process's). */
static void leased(void)
{
	char why[300] = "", want[64];
	int ready[2], done[2], fd;
	pid_t pid;

	CHECK(unit_tmp_write("leased", "text\n", 5) != NULL);
	CHECK(!pipe2(ready, O_CLOEXEC) && !pipe2(done, O_CLOEXEC));
	pid = fork();
	if (pid == 0) {
		char c = 0;
		int f;

		close(ready[0]);
		close(done[1]);
		signal(SIGIO, SIG_IGN);	/* the break's notice */
		f = open(unit_tmp("leased"), O_RDONLY | O_CLOEXEC);
		c = f >= 0 && !fcntl(f, F_SETLEASE, F_WRLCK) ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	CHECK(pid > 0);
	close(ready[1]);
	close(done[0]);
	{
		char c = 0;

		CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
	}
	fd = inpath_open(AT_FDCWD, unit_tmp("leased"), 0, why, sizeof(why));
	CHECK_INT_EQ(fd, -EWOULDBLOCK);
	snprintf(want, sizeof(want), "held by a lease of uid %u", (unsigned)geteuid());
	CHECK_STR_EQ(why, want);
	if (fd >= 0)
		close(fd);
	close(done[1]);
	close(ready[0]);
	CHECK(waitpid(pid, NULL, 0) == pid);
}

int main(void)
{
	alarm(20);	/* a FIFO opened as a stream would wait: a failure, not a hang */
	if (unit_tmp_init("test_inpath"))
		return 1;
	UNIT_RUN(trailing_slash);
	UNIT_RUN(streams);
	UNIT_RUN(leased);
	unit_tmp_fini();
	return unit_exit();
}
