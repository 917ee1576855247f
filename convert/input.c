/* SPDX-License-Identifier: MIT */
#include "input.h"

#include "binrec.h"
#include "diag.h"
#include "perf_version.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_ARGS (32 + 64)
#define PIPE_SIZE (1 << 20)      /* bytes of perf's output the pipe holds */

struct input {
	int fd;
	pid_t perf;              /* perf script child, or 0 */
	bool reaped;             /* perf was waited for already: its status is STATUS */
	int status;
	FILE *perf_err;          /* what perf script says on stderr, or NULL */
	bool eof;
	uint64_t bytes, size;
	const char *path;
	const char *argv[MAX_ARGS];  /* perf script's command line */
	size_t dlfilter_arg;     /* argv index of "--dlfilter", or 0: the text path */
	bool binrec;             /* a saved output of perf script with the dlfilter */
	char dlfilter[PATH_MAX]; /* the dlfilter's path */
};

/* The name of the dlfilter, installed beside snaptrace-convert. */
static const char dlfilter_name[] = "snaptrace-dlfilter.so";

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

static void perf_said(FILE *f, char *buf, size_t size);

/* Runs `perf evlist` on PATH: its event list in OUT. Returns 0, or -1 when
 * perf failed (its output is then in OUT). Every perf command run on an
 * input gets -f: without it perf refuses a file owned by another user even
 * to root. */
static int evlist(const char *perf, const char *path, char *out, size_t size)
{
	char *argv[] = { (char *)perf, "evlist", "-f", "-i", (char *)path, NULL };

	return run_capture(argv, out, size) != 0 ? -1 : 0;
}

/* Finds the dlfilter beside this program into IN->dlfilter and checks that
 * PERF is at least the version that has --dlfilter (unknown versions are
 * tried: input_read() falls back when perf refuses it). Returns true when
 * the fast path can be tried. */
static bool dlfilter_usable(struct input *in, const char *perf)
{
	char self[PATH_MAX], out[256];
	char *argv[] = { (char *)perf, "--version", NULL };
	struct perf_version v;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = 0;
	if ((size_t)snprintf(in->dlfilter, sizeof(in->dlfilter), "%s/%s", dirname(self),
			     dlfilter_name) >= sizeof(in->dlfilter) ||
	    access(in->dlfilter, R_OK))
		return false;
	if (run_capture(argv, out, sizeof(out)) != 0)
		return false;
	perf_version_parse(out, &v);
	return perf_version_has(&v, PERF_FEAT_DLFILTER) != 0;
}

/* Starts perf script with IN->argv; stderr into IN->perf_err (made when
 * missing, emptied when there). Returns 0 or a negative errno. */
static int spawn(struct input *in)
{
	int fd;
	pid_t pid;

	if (!in->perf_err)
		in->perf_err = tmpfile();	/* shown as one line at the end; else inherited */
	else if (ftruncate(fileno(in->perf_err), 0) == 0)
		rewind(in->perf_err);
	pid = run_spawn((char *const *)in->argv,
			in->perf_err ? fileno(in->perf_err) : STDERR_FILENO, &fd);
	if (pid < 0)
		return (int)pid;
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	(void)fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE);	/* fewer switches; a hint only */
	in->fd = fd;
	in->perf = pid;
	in->reaped = false;
	return 0;
}

static int run_perf_script(struct input *in, const struct input_perf *perf, char *errbuf,
			   size_t errlen)
{
	const char **argv = in->argv;
	char out[4096];
	size_t n = 0;
	int err;

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
		/* The branches in binary (docs/design.md "Decoding"). */
		if (!perf->no_dlfilter && dlfilter_usable(in, perf->perf)) {
			in->dlfilter_arg = n;
			argv[n++] = "--dlfilter";
			argv[n++] = in->dlfilter;
		}
	} else if (strstr(out, "sched:sched_switch")) {
		for (size_t i = 0; i < sizeof(sched_fields) / sizeof(sched_fields[0]); i++)
			argv[n++] = sched_fields[i];
	} else {
		argv[n++] = "-F";
		argv[n++] = sample_fields;
	}
	for (size_t i = 0; i < perf->nargs && n < MAX_ARGS - 1; i++)
		argv[n++] = perf->args[i];
	argv[n] = NULL;
	err = spawn(in);
	if (err) {
		snprintf(errbuf, errlen, "%s: cannot run %s: %s", in->path, perf->perf,
			 strerror(-err));
		return err;
	}
	in->size = 0;
	return 0;
}

/* perf script ended with no output while given the dlfilter: when it
 * failed (a perf that refuses --dlfilter, or cannot load it), runs it again
 * without. Returns 1 when it was restarted, 0 when not, or a negative errno. */
static int without_dlfilter(struct input *in)
{
	char said[400] = "";
	size_t n = in->dlfilter_arg;
	int err;

	in->status = run_wait(in->perf);
	in->reaped = true;
	if (in->status == 0)
		return 0;
	if (in->perf_err) {
		fflush(in->perf_err);
		perf_said(in->perf_err, said, sizeof(said));
	}
	diag_info("%s: perf script failed with the dlfilter (status %d%s%.200s): decoding "
		  "through text", in->path, in->status, said[0] ? ": " : "", said);
	memmove(&in->argv[n], &in->argv[n + 2], (MAX_ARGS - n - 2) * sizeof(in->argv[0]));
	in->dlfilter_arg = 0;
	err = spawn(in);
	if (err)
		return err;
	in->eof = false;
	return 1;
}

/* Does HEAD (N bytes) hold a binary record of the dlfilter at a line's
 * start (a saved output of perf script --dlfilter snaptrace-dlfilter.so)? */
static bool holds_binrec(const char *head, size_t n)
{
	for (size_t i = 0; i + sizeof(struct binrec_header) <= n; i++)
		if (head[i] == BINREC_MARK && (i == 0 || head[i - 1] == '\n'))
			return head[i + 1] >= BINREC_STRING && head[i + 1] <= BINREC_TICK;
	return false;
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
		char head[1 << 16];	/* where a saved dlfilter output shows its first record */
		ssize_t n = pread(in->fd, head, sizeof(head), 0);

		in->size = (uint64_t)st.st_size;
		if (n >= 8 && !memcmp(head, "PERFILE", 7)) {
			err = run_perf_script(in, perf, errbuf, errlen);
			if (err)
				goto fail;
		} else if (n > 0 && holds_binrec(head, (size_t)n)) {
			in->binrec = true;
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
	if (r == 0 && in->dlfilter_arg && in->bytes == 0 && in->perf > 0) {
		int again = without_dlfilter(in);

		if (again < 0) {
			snprintf(errbuf, errlen, "cannot run perf again: %s", strerror(-again));
			return again;
		}
		if (again)
			return input_read(in, buf, cap, errbuf, errlen);
	}
	if (r == 0)
		in->eof = true;
	in->bytes += (uint64_t)r;
	return (long)r;
}

bool input_binstream(const struct input *in)
{
	return in->dlfilter_arg != 0 || in->binrec;
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

		if (!in->eof && !in->reaped)
			kill(in->perf, SIGTERM);
		st = in->reaped ? in->status : run_wait(in->perf);
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
