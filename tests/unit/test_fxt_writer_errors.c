// SPDX-License-Identifier: MIT
/*
 * Unit tests of the FXT writer's failure paths (fxt/fxt_writer.h): an
 * unwritable directory, a write error mid-stream (sticky, reported by close),
 * a failing rename, an abort; none may leave a file under the final name or
 * a temporary file behind. Also "-" (stdout) output.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxt_reader.h"
#include "fxt_writer.h"
#include "unit.h"
#include "unit_tmp.h"
#include "unit_fxt.h"


static void writer_unwritable_directory(void)
{
	const char *path = unit_tmp("no/such/dir/out.fxt.gz");
	int err = 0;
	struct fxt_writer *w = fxt_writer_open(path, FXT_OUTPUT_AUTO, "x", &err);

	CHECK(w == NULL);
	CHECK_INT_EQ(err, -ENOENT);
	CHECK(!unit_exists(path));
	if (w)
		fxt_writer_abort(w);
}

/* Runs in a child: writes past RLIMIT_FSIZE; returns a bitmask of failed checks. */
static int sticky_child(const char *path)
{
	struct rlimit rl = { .rlim_cur = 256 << 10, .rlim_max = 256 << 10 };
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };
	struct fxt_writer *w;
	int err = 0, bad = 0, i;

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return 64;
	w = fxt_writer_open(path, FXT_OUTPUT_RAW, "x", &err);
	if (!w)
		return 128;
	ev.name = fxt_writer_cstring(w, "e");
	for (i = 0; i < 10000000 && !err; i++) {
		ev.ts = (uint64_t)i;
		err = fxt_writer_event(w, &ev);
	}
	bad |= err != -EFBIG;                             /* 1: the write error */
	bad |= (fxt_writer_event(w, &ev) != -EFBIG) << 1; /* 2: sticky */
	bad |= (fxt_writer_close(w) != -EFBIG) << 2;      /* 4: close reports it */
	bad |= unit_exists(path) << 3;                         /* 8: no final file */
	bad |= (unit_temps() != 0) << 4;                      /* 16: no temporary file */
	return bad;
}

static void writer_sticky_error(void)
{
	char path[256];
	pid_t pid;
	int status = 0;

	snprintf(path, sizeof(path), "%s", unit_tmp("big.fxt"));
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(sticky_child(path));
	if (pid < 0)
		return;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	if (WEXITSTATUS(status))
		UNIT_FAIL("child checks failed: mask %d (1 error, 2 sticky, 4 close, 8 file, "
			  "16 tmp, 64/128 setup)", WEXITSTATUS(status));
	CHECK(!unit_exists(path));
}

static void writer_rename_fails(void)
{
	const char *dir = unit_tmp("isdir.fxt");
	char inner[300];
	struct fxt_writer *w;
	int err = 0;
	FILE *f;

	/* a directory as the output is refused at once */
	CHECK_INT_EQ(mkdir(dir, 0755), 0);
	w = fxt_writer_open(dir, FXT_OUTPUT_RAW, "x", &err);
	CHECK(w == NULL);
	CHECK_INT_EQ(err, -EISDIR);
	if (w)
		fxt_writer_abort(w);
	CHECK_INT_EQ(rmdir(dir), 0);
	/* the final path becomes a non-empty directory while writing: rename() fails */
	w = open_or_fail(dir, FXT_OUTPUT_RAW);
	if (!w)
		return;
	CHECK_INT_EQ(mkdir(dir, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", dir);
	f = fopen(inner, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(fxt_writer_close(w) < 0);
	CHECK_INT_EQ(unit_temps(), 0);
	CHECK(unit_exists(inner));
}

static void writer_abort_leaves_nothing(void)
{
	const char *path = unit_tmp("aborted.fxt.gz");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_AUTO);

	if (!w)
		return;
	CHECK_INT_EQ(unit_temps(), 0);	/* an unnamed file (O_TMPFILE) until committed */
	CHECK(!unit_exists(path));
	fxt_writer_abort(w);
	CHECK_INT_EQ(unit_temps(), 0);
	CHECK(!unit_exists(path));
}

/* "-" writes raw FXT to stdout (redirected to a file in a child). */
static void writer_stdout(void)
{
	char path[256];
	pid_t pid;
	int status = 0;
	struct fxt_trace t;

	snprintf(path, sizeof(path), "%s", unit_tmp("stdout.fxt"));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), err;
		struct fxt_writer *w;
		struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = 5, .process_koid = 1, .thread_koid = 1 };

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(1);
		w = fxt_writer_open("-", FXT_OUTPUT_GZIP, "x", &err);
		if (!w)
			_exit(2);
		ev.name = fxt_writer_cstring(w, "on stdout");
		if (fxt_writer_event(w, &ev) || fxt_writer_close(w))
			_exit(3);
		_exit(0);
	}
	if (pid < 0)
		return;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (fxt_trace_read(path, &t, (char[128]){ 0 }, 128) != 0) {
		UNIT_FAIL("cannot read %s", path);
		return;
	}
	CHECK_INT_EQ(t.nevents, 1);
	if (t.nevents == 1)
		CHECK_STR_EQ(t.events[0].name, "on stdout");
	fxt_trace_free(&t);
}

/* CPU time of this process, s: the machine may be shared, wall time is noisy. */
int main(void)
{
	if (unit_tmp_init("test_fxt_writer_errors"))
		return 1;
	UNIT_RUN(writer_unwritable_directory);
	UNIT_RUN(writer_sticky_error);
	UNIT_RUN(writer_rename_fails);
	UNIT_RUN(writer_abort_leaves_nothing);
	UNIT_RUN(writer_stdout);
	unit_tmp_fini();
	return unit_exit();
}
