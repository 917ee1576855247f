// SPDX-License-Identifier: MIT
/*
 * snaptrace-stats: per-function call statistics of an FXT trace, in the
 * terminal: how long each function really takes, per call.
 *   snaptrace-stats [OPTIONS] TRACE.fxt[.gz]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agg.h"
#include "fxt_reader.h"
#include "diag.h"
#include "inpath.h"
#include "options.h"
#include "outpath.h"
#include "funcspec.h"
#include "report.h"
#include "run.h"
#include "signals.h"

/*
 * A recording directory (DIR/record.json, as snaptrace-record leaves it)
 * given for a trace: converted by snaptrace-convert (beside this program)
 * into an unnamed file, whose path is put in DATA (SIZE bytes). Returns
 * the file's descriptor, -1 when PATH is no directory, or after an error
 * -2 (a failed conversion) or -3 (a directory that is no recording: a
 * usage error, as for snaptrace-convert).
 */
static int recording_trace(const char *path, char *data, size_t size)
{
	char convert[PATH_MAX];
	char *argv[] = { convert, "--quiet", (char *)path, "-o", "-", NULL };
	char why[PATH_MAX + 160];
	struct stat st;
	int fd = inpath_dir(AT_FDCWD, path, why, sizeof(why)), rc;
	pid_t pid;

	if (fd == -EACCES) {	/* a link not followed: said here once */
		diag_error("%s: %s", path, why);
		return -2;
	}
	if (fd < 0)
		return -1;	/* no directory: a trace, read (and its errors said) as such */
	rc = fstatat(fd, "record.json", &st, AT_SYMLINK_NOFOLLOW);
	close(fd);
	if (rc) {
		diag_error("%s: expected a trace file or a recording directory (record.json), "
			   "found a directory without record.json", path);
		return -3;
	}
	if (run_find_sibling("snaptrace-convert", convert, sizeof(convert))) {
		diag_error("%s: a recording: expected snaptrace-convert beside snaptrace-stats "
			   "to convert it (%s), found none", path, convert);
		return -2;
	}
	fd = outpath_unnamed();
	if (fd < 0) {
		diag_error("%s: a recording: no scratch file to convert it into: %s", path,
			   strerror(-fd));
		return -2;
	}
	pid = run_start(argv, fd, STDERR_FILENO, RUN_CWD_CALLER, false, NULL, NULL);
	rc = pid < 0 ? (int)pid : run_wait(pid);
	if (rc) {
		diag_error("%s: a recording: snaptrace-convert %s (its message above)", path,
			   rc < 0 ? strerror(-rc) : "failed");
		close(fd);
		return -2;
	}
	snprintf(data, size, "/proc/self/fd/%d", fd);
	return fd;
}

/* Reads PATH (a trace, or a recording directory converted first) into A;
 * prints the error and returns EXIT_USAGE (PATH is no regular file: a pipe,
 * a FIFO, a device) or EXIT_RUNTIME on failure. */
static int load(struct agg *a, const char *path, bool quiet)
{
	char errbuf[512], data[64];
	size_t problems = 0;
	int fd = recording_trace(path, data, sizeof(data)), err;

	if (fd < -1)
		return fd == -3 ? EXIT_USAGE : EXIT_RUNTIME;
	err = agg_read(a, fd >= 0 ? data : path, &problems, errbuf, sizeof(errbuf));
	if (fd >= 0)
		close(fd);

	if (err) {	/* a pipe, a FIFO or a device given for a trace: a usage error */
		diag_error("%s", errbuf);
		return err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (a->opts.one_thread && !agg_has_thread(a, a->opts.tid)) {
		const char *have = agg_list_threads(a, errbuf, sizeof(errbuf));

		diag_error("%s: no thread %" PRIu64 " (the trace has%s%s)", path, a->opts.tid,
			   *have ? ": " : " none", have);
		return EXIT_RUNTIME;
	}
	if (problems && !quiet)
		diag_warn("%s: %zu problem%s in the file (snaptrace-convert --dump lists them); "
			  "the statistics step over them", path, problems, diag_s(problems));
	if (a->deep && !quiet)
		diag_warn("%s: %llu slice%s nested deeper than %d on %s thread %s left out",
			  path, (unsigned long long)a->deep, diag_s(a->deep), FXT_MAX_DEPTH,
			  a->deep == 1 ? "its" : "their", a->deep == 1 ? "is" : "are");
	if (a->unended && !quiet)
		diag_warn("%s: %llu slice%s never ended %s left out", path,
			  (unsigned long long)a->unended, diag_s(a->unended),
			  a->unended == 1 ? "is" : "are");
	return EXIT_OK;
}

/* --match PATTERN selected no function of the trace at PATH: one line
 * (the table printed is empty), with the other form of a pattern
 * (funcspec_pattern_matches()). Returns 1. */
static int match_none(const char *path, const char *pattern)
{
	if (funcspec_pattern_is_glob(pattern))
		diag_error("--match %s: no function of %s matches (a pattern with *, ? or [ "
			   "is of the whole name; without them, names containing it)", pattern,
			   path);
	else
		diag_error("--match %s: no function of %s has '%s' in its name", pattern, path,
			   pattern);
	return 1;
}

/*
 * Says in one line that the trace at PATH (read into A) has no slices (in
 * the thread --thread names), as the converter's summary does: with
 * --function or --match, which have nothing to select, an error (returns
 * EXIT_RUNTIME); else a warning, the tables then printed empty (returns
 * EXIT_OK). Returns -1 when A has slices.
 */
static int no_slices(const struct agg *a, const char *path, const struct stats_options *o)
{
	char thread[40] = "";

	if (a->slices || a->unended)
		return -1;
	if (a->opts.one_thread)
		snprintf(thread, sizeof(thread), " in thread %" PRIu64, a->opts.tid);
	if (o->report.function) {
		diag_error("%s " FXT_NO_SLICES "%s: no function \"%s\" to show", path, thread,
			   o->report.function);
		return EXIT_RUNTIME;
	}
	if (o->report.match) {
		diag_error("--match %s: %s " FXT_NO_SLICES "%s", o->report.match, path, thread);
		return EXIT_RUNTIME;
	}
	diag_warn("%s " FXT_NO_SLICES "%s: %s", path, thread,
		  o->report.off_cpu ? "no wait to count" : "no function to count");
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct stats_options o;
	struct agg cur = { 0 }, old = { 0 };
	const char *path;
	int rc, err, trace;

	sig_note_start();	/* first: signals.h */
	diag_init(argv[0]);
	rc = stats_options_parse(argc, argv, &o, &trace);
	if (rc >= 0)
		return outpath_stdout_done(rc);   /* --help */
	path = argv[trace];
	diag_set_quiet(o.quiet);
	cur.opts = o.agg;
	old.opts = o.agg;
	rc = load(&cur, path, o.quiet);
	if (rc == EXIT_OK && o.baseline)
		rc = load(&old, o.baseline, o.quiet);
	if (rc != EXIT_OK)
		goto out;
	if (no_slices(&cur, path, &o) == EXIT_RUNTIME ||
	    (o.baseline && no_slices(&old, o.baseline, &o) == EXIT_RUNTIME)) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (agg_sampled(&cur) && o.report.format == TABLE_CSV && !o.report.off_cpu && !o.quiet)
		diag_warn("%s: a sampled trace: rows are time on the stack, not calls; "
			  "the per-call columns are left empty", path);
	report_sort_rows(&cur, &o.report);
	if (o.baseline && o.report.off_cpu)
		err = report_waits_baseline(&old, &cur, o.baseline, path, &o.report, stdout);
	else if (o.report.off_cpu)
		err = report_waits(&cur, path, &o.report, stdout);
	else if (o.baseline)
		err = report_baseline(&old, &cur, o.baseline, path, &o.report, stdout);
	else if (o.report.function)
		err = report_function(&cur, path, &o.report, stdout);
	else
		err = report_rows(&cur, path, &o.report, stdout);
	if (err < 0)
		diag_error("out of memory");
	else if (!o.report.function && !report_match_any(&cur, o.baseline ? &old : NULL, &o.report))
		err = match_none(path, o.report.match);
	rc = outpath_stdout_done(err ? EXIT_RUNTIME : EXIT_OK);
out:
	agg_free(&cur);
	agg_free(&old);
	return rc;
}
