/* SPDX-License-Identifier: MIT */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct input {
	int fd;
	pid_t perf;              /* perf script child, or 0 */
	bool eof;
	uint64_t bytes, size;
	const char *path;
};

/* perf script fields: branch traces (Intel PT) and sampled call chains. */
static const char branch_fields[] =
	"comm,pid,tid,time,flags,ip,addr,sym,symoff,dso,event,period";
static const char sample_fields[] = "comm,pid,tid,time,ip,sym,symoff,dso,event,period";

/* Runs ARGV with stdout to a pipe, stdin from
 * /dev/null, PAGER=cat. Returns the child's pid and *RFD, or -errno. */
static pid_t spawn(char *const argv[], int *rfd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		setenv("PAGER", "cat", 1);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* Waits for PID; returns its exit status, 128+signal, or -1. */
static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Is PATH's recording an Intel PT one? Asks `perf evlist`. Returns 1, 0, or
 * -1 when perf could not be run. */
static int is_intel_pt(const char *perf, const char *path)
{
	char *argv[] = { (char *)perf, "evlist", "-i", (char *)path, NULL };
	char out[4096];
	size_t n = 0;
	ssize_t r;
	int fd, found;
	pid_t pid = spawn(argv, &fd);

	if (pid < 0)
		return -1;
	while ((r = read(fd, out + n, sizeof(out) - 1 - n)) > 0 && n < sizeof(out) - 1)
		n += (size_t)r;
	out[n] = 0;
	close(fd);
	found = strstr(out, "intel_pt") != NULL;
	return reap(pid) == 0 ? found : -1;
}

static int run_perf_script(struct input *in, const struct input_perf *perf, char *errbuf,
			   size_t errlen)
{
	const char *argv[32 + 64];
	size_t n = 0;
	int pt = is_intel_pt(perf->perf, in->path), fd;
	pid_t pid;

	if (pt < 0) {
		snprintf(errbuf, errlen, "%s: `%s evlist` failed: is perf installed and the file a "
			 "perf.data?", in->path, perf->perf);
		return -EINVAL;
	}
	argv[n++] = perf->perf;
	argv[n++] = "script";
	argv[n++] = "-i";
	argv[n++] = in->path;
	argv[n++] = "--ns";
	if (pt) {
		argv[n++] = "--itrace=bep";
		argv[n++] = "-F";
		argv[n++] = branch_fields;
	} else {
		argv[n++] = "-F";
		argv[n++] = sample_fields;
	}
	for (size_t i = 0; i < perf->nargs && n < sizeof(argv) / sizeof(argv[0]) - 1; i++)
		argv[n++] = perf->args[i];
	argv[n] = NULL;
	pid = spawn((char *const *)argv, &fd);
	if (pid < 0) {
		snprintf(errbuf, errlen, "%s: cannot run %s: %s", in->path, perf->perf,
			 strerror((int)-pid));
		return (int)pid;
	}
	close(in->fd);
	in->fd = fd;
	in->perf = pid;
	in->size = 0;
	return 0;
}

int input_open(const char *path, const struct input_perf *perf, struct input **out,
	       char *errbuf, size_t errlen)
{
	struct input *in = calloc(1, sizeof(*in));
	struct stat st;
	int err;

	if (!in) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	in->path = path;
	in->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in->fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		char magic[8];

		in->size = (uint64_t)st.st_size;
		if (pread(in->fd, magic, sizeof(magic), 0) == sizeof(magic) &&
		    !memcmp(magic, "PERFILE", 7)) {
			err = run_perf_script(in, perf, errbuf, errlen);
			if (err)
				goto fail;
		}
	} else if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		snprintf(errbuf, errlen, "%s: is a directory, expected a perf.data or text file",
			 path);
		goto fail;
	}
	*out = in;
	return 0;
fail:
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	free(in);
	return err;
}

long input_read(struct input *in, char *buf, size_t cap, char *errbuf, size_t errlen)
{
	ssize_t r;

	do
		r = read(in->fd, buf, cap);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		snprintf(errbuf, errlen, "%s", strerror(errno));
		return -errno;
	}
	if (r == 0)
		in->eof = true;
	in->bytes += (uint64_t)r;
	return (long)r;
}

uint64_t input_bytes(const struct input *in)
{
	return in->bytes;
}

uint64_t input_size(const struct input *in)
{
	return in->size;
}

int input_close(struct input *in, char *errbuf, size_t errlen)
{
	int rc = 0;

	if (in->fd > STDIN_FILENO)
		close(in->fd);
	if (in->perf > 0) {
		int st;

		if (!in->eof)
			kill(in->perf, SIGTERM);
		st = reap(in->perf);
		if (st != 0 && in->eof) {
			snprintf(errbuf, errlen, "%s: perf script exited with status %d", in->path,
				 st);
			rc = -1;
		}
	}
	free(in);
	return rc;
}
