/* SPDX-License-Identifier: MIT */
#include "input.h"

#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

/* Is PATH's recording an Intel PT one? Asks `perf evlist`. Returns 1, 0, or
 * -1 when perf failed (its output is then in OUT). */
static int is_intel_pt(const char *perf, const char *path, char *out, size_t size)
{
	char *argv[] = { (char *)perf, "evlist", "-i", (char *)path, NULL };

	if (run_capture(argv, out, size) != 0)
		return -1;
	return strstr(out, "intel_pt") != NULL;
}

static int run_perf_script(struct input *in, const struct input_perf *perf, char *errbuf,
			   size_t errlen)
{
	const char *argv[32 + 64];
	char out[4096];
	size_t n = 0;
	int pt = is_intel_pt(perf->perf, in->path, out, sizeof(out)), fd;
	pid_t pid;

	if (pt < 0) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = 0;
		snprintf(errbuf, errlen, "%s: `%s evlist` failed (is perf installed, and the "
			 "file a perf.data?): %.200s", in->path, perf->perf, out);
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
	pid = run_spawn((char *const *)argv, false, &fd);
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
		st = run_wait(in->perf);
		if (st != 0 && in->eof) {
			snprintf(errbuf, errlen, "%s: perf script exited with status %d", in->path,
				 st);
			rc = -1;
		}
	}
	free(in);
	return rc;
}
