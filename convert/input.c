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
	FILE *perf_err;          /* what perf script says on stderr, or NULL */
	bool eof;
	uint64_t bytes, size;
	const char *path;
};

/* perf script fields: branch traces (Intel PT) and sampled call chains. */
static const char branch_fields[] =
	"comm,pid,tid,time,flags,ip,addr,sym,symoff,dso,event,period";
static const char sample_fields[] = "comm,pid,tid,time,ip,sym,symoff,dso,event,period";
/* A recording of sched:sched_switch: the same per kind of event, and the
 * tracepoint's text (perf warns about `trace` for any other kind). */
static const char *const sched_fields[] = {
	"-F", "hw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
	"-F", "sw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
	"-F", "raw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
	"-F", "trace:comm,pid,tid,time,ip,sym,symoff,dso,event,period,trace",
};

/* Runs `perf evlist` on PATH: its event list in OUT. Returns 0, or -1 when
 * perf failed (its output is then in OUT). Every perf command run on an
 * input gets -f: without it perf refuses a file owned by another user even
 * to root. */
static int evlist(const char *perf, const char *path, char *out, size_t size)
{
	char *argv[] = { (char *)perf, "evlist", "-f", "-i", (char *)path, NULL };

	return run_capture(argv, out, size) != 0 ? -1 : 0;
}

static int run_perf_script(struct input *in, const struct input_perf *perf, char *errbuf,
			   size_t errlen)
{
	const char *argv[32 + 64];
	char out[4096];
	size_t n = 0;
	int fd;
	pid_t pid;

	if (evlist(perf->perf, in->path, out, sizeof(out))) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = 0;
		snprintf(errbuf, errlen, "%s: `%s evlist` failed (is perf installed, and the "
			 "file a perf.data?): %.200s", in->path, perf->perf, out);
		return -EINVAL;
	}
	argv[n++] = perf->perf;
	argv[n++] = "script";
	argv[n++] = "-f";	/* root reading another user's perf.data */
	argv[n++] = "-i";
	argv[n++] = in->path;
	argv[n++] = "--ns";
	argv[n++] = "--show-switch-events";	/* off-CPU time; none when not recorded */
	if (strstr(out, "intel_pt")) {
		argv[n++] = "--itrace=bep";
		argv[n++] = "-F";
		argv[n++] = branch_fields;
	} else if (strstr(out, "sched:sched_switch")) {
		for (size_t i = 0; i < sizeof(sched_fields) / sizeof(sched_fields[0]); i++)
			argv[n++] = sched_fields[i];
	} else {
		argv[n++] = "-F";
		argv[n++] = sample_fields;
	}
	for (size_t i = 0; i < perf->nargs && n < sizeof(argv) / sizeof(argv[0]) - 1; i++)
		argv[n++] = perf->args[i];
	argv[n] = NULL;
	in->perf_err = tmpfile();	/* shown as one line at the end; else inherited */
	pid = run_spawn((char *const *)argv, in->perf_err ? fileno(in->perf_err) : STDERR_FILENO,
			&fd);
	if (pid < 0) {
		if (in->perf_err)
			fclose(in->perf_err);
		in->perf_err = NULL;
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
	if (fstat(in->fd, &st))
		st.st_mode = 0;	/* unknown: read it as a stream */
	if (S_ISREG(st.st_mode)) {
		char head[512];
		ssize_t n = pread(in->fd, head, sizeof(head), 0);

		in->size = (uint64_t)st.st_size;
		if (n >= 8 && !memcmp(head, "PERFILE", 7)) {
			err = run_perf_script(in, perf, errbuf, errlen);
			if (err)
				goto fail;
		} else if (n > 0 && memchr(head, 0, (size_t)n)) {
			err = -EINVAL;
			snprintf(errbuf, errlen, "%s: a binary file, expected a perf.data or perf "
				 "script text", path);
			goto fail;
		}
	} else if (S_ISDIR(st.st_mode)) {
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

/* Reads what perf script wrote to stderr into BUF as one line: its lines
 * joined by a space, blank ones dropped, cut at SIZE. */
static void perf_said(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c, last = ' ';

	buf[0] = 0;
	rewind(f);
	while ((c = getc(f)) != EOF && n + 4 < size) {
		if (c == '\n' || c == '\t' || c == '\r')
			c = ' ';
		if (c == ' ' && last == ' ')
			continue;
		buf[n++] = (char)(c < 0x20 || c >= 0x7f ? '?' : c);
		last = c;
	}
	if (c != EOF)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
}

int input_close(struct input *in, char *errbuf, size_t errlen)
{
	char said[400] = "";
	int rc = 0;

	if (in->fd > STDIN_FILENO)
		close(in->fd);
	if (in->perf > 0) {
		int st;

		if (!in->eof)
			kill(in->perf, SIGTERM);
		st = run_wait(in->perf);
		if (in->perf_err)
			perf_said(in->perf_err, said, sizeof(said));
		if (st != 0 && in->eof) {
			snprintf(errbuf, errlen, "%s: perf script exited with status %d%s%s",
				 in->path, st, said[0] ? ": " : "", said);
			rc = -1;
		} else if (said[0]) {
			snprintf(errbuf, errlen, "%s: perf script: %s", in->path, said);
			rc = 1;
		}
	}
	if (in->perf_err)
		fclose(in->perf_err);
	free(in);
	return rc;
}
