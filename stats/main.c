// SPDX-License-Identifier: MIT
/*
 * snaptrace-stats: per-function call statistics of an FXT trace, in the
 * terminal: how long each function really takes, per call.
 *   snaptrace-stats [OPTIONS] TRACE.fxt[.gz]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agg.h"
#include "diag.h"
#include "inpath.h"
#include "outpath.h"
#include "report.h"
#include "run.h"
#include "version.h"

enum { OPT_FORMAT = 256, OPT_SORT, OPT_LIMIT, OPT_BY_THREAD, OPT_THREAD, OPT_MATCH,
       OPT_FUNCTION, OPT_TOP, OPT_BASELINE, OPT_BASELINE_PATHS, OPT_OFF_CPU, OPT_VERSION,
       OPT_END };

static const struct option long_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "by-thread", no_argument, NULL, OPT_BY_THREAD },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "baseline-paths", no_argument, NULL, OPT_BASELINE_PATHS },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char usage_text[] =
	"usage: snaptrace-stats [OPTIONS] TRACE.fxt[.gz]|RECORDING_DIR\n"
	"\n"
	"Per-function statistics of the slices of a Fuchsia trace (snaptrace's or\n"
	"magic-trace's), or of a recording directory (snaptrace-convert beside this\n"
	"program converts it first): one row per function (name and dso) with\n"
	"  calls      slices of the function\n"
	"  total_ns   inclusive time; a call nested in a call of the same function\n"
	"             (recursion) counts as a call but adds nothing\n"
	"  self_ns    inclusive time minus the time of the calls it made\n"
	"  min_ns p50_ns p90_ns p99_ns max_ns   call durations; min and max are exact,\n"
	"             percentiles (nearest rank) come from a log-bucketed histogram and\n"
	"             are within 1% of the exact value (exact below 128 ns)\n"
	"Bracketed pseudo-frames ([untraced], [syscall], [off-cpu], ...) are rows of\n"
	"their own. On a sampled trace a slice is time on the stack in consecutive\n"
	"samples, not a call: the per-call columns are left out (\"-\", empty, null).\n"
	"\n"
	"      --format table|csv|json   default table (human units); csv and json in ns\n"
	"      --sort total|self|calls|p99|max   largest first (default total)\n"
	"      --limit N         at most N rows, N >= 1 (default all)\n"
	"      --by-thread       a row per thread and function (columns tid, thread)\n"
	"      --thread TID      only the slices of thread TID (a TID without events in\n"
	"                        the trace is an error)\n"
	"      --match PATTERN   only functions whose name matches the shell PATTERN\n"
	"                        (matching nothing is an empty table, not an error)\n"
	"      --function NAME   NAME in detail: its rows, a histogram of its call\n"
	"                        durations and its longest calls (thread, start time)\n"
	"      --top N           longest calls shown by --function, N >= 1 (default 10)\n"
	"      --baseline OLD    compare with the trace OLD: calls, p50, p99, total with\n"
	"                        their ratios new/old, largest change of total first;\n"
	"                        \"-\" (empty, null) where a value does not exist: the\n"
	"                        percentiles of a function absent from one trace, a\n"
	"                        ratio to 0, the per-call columns of a sampled trace;\n"
	"                        a function pairs with the one of the same name in the\n"
	"                        binary of the same file name (two builds at other\n"
	"                        paths pair)\n"
	"      --baseline-paths  pair by the binary's full path instead\n"
	"      --off-cpu         where the threads waited: the [off-cpu] slices by system\n"
	"                        call, kernel function and caller (the innermost function\n"
	"                        outside the C library and language runtimes), blocked\n"
	"                        or preempted: waits, total, p50, p99, max, of all threads\n"
	"                        then of each (with --baseline: of all threads)\n"
	"  -q, --quiet           only errors on stderr\n"
	"  -h, --help            this help\n"
	"      --version         print the version\n"
	"\n"
	"--top needs --function, --baseline-paths --baseline; --match and --baseline\n"
	"do not go with --function, nor --sort with --baseline, nor --function,\n"
	"--by-thread or --sort with --off-cpu (usage errors).\n"
	"\n"
	"Exit status: 0 done, 1 unreadable or not an FXT file, or --function or\n"
	"--thread names what the trace does not have (the message lists what it has),\n"
	"2 usage error.\n";

struct options {
	struct agg_opts agg;
	struct report_opts report;
	const char *baseline;
	bool quiet;
};

/* A table of the names of a choice, for --format and --sort. */
struct choice {
	const char *name;
	int value;
};

static const struct choice formats[] = {
	{ "table", TABLE_TEXT }, { "csv", TABLE_CSV }, { "json", TABLE_JSON }, { NULL, 0 },
};

static const struct choice sorts[] = {
	{ "total", SORT_TOTAL }, { "self", SORT_SELF }, { "calls", SORT_CALLS },
	{ "p99", SORT_P99 }, { "max", SORT_MAX }, { NULL, 0 },
};

/*
 * Options that have an effect only with another (NEEDS) or none beside it
 * (!NEEDS): each breach is a usage error, never an option silently ignored.
 */
static const struct pairing {
	int opt, other;
	bool needs;
} pairings[] = {
	{ OPT_TOP, OPT_FUNCTION, true },        /* the longest calls of --function */
	{ OPT_MATCH, OPT_FUNCTION, false },     /* --function names one function */
	{ OPT_BASELINE, OPT_FUNCTION, false },  /* the comparison has no detail view */
	{ OPT_SORT, OPT_BASELINE, false },      /* --baseline sorts by the change */
	{ OPT_BASELINE_PATHS, OPT_BASELINE, true },   /* how --baseline pairs */
	{ OPT_FUNCTION, OPT_OFF_CPU, false },   /* waits are not calls of a function */
	{ OPT_BY_THREAD, OPT_OFF_CPU, false },  /* --off-cpu shows every thread */
	{ OPT_SORT, OPT_OFF_CPU, false },       /* waits come largest total first */
};

static const char *option_name(int opt)
{
	for (const struct option *l = long_options; l->name; l++)
		if (l->val == opt)
			return l->name;
	return "?";
}

static int usage_error(const char *what)
{
	diag_error("%s (see --help)", what);
	return EXIT_USAGE;
}

static bool pick(const struct choice *c, const char *arg, int *out)
{
	for (; c->name; c++)
		if (!strcmp(c->name, arg)) {
			*out = c->value;
			return true;
		}
	return false;
}

static bool number(const char *arg, uint64_t *out)
{
	char *end;

	if (!*arg || *arg == '-')
		return false;
	errno = 0;
	*out = strtoull(arg, &end, 10);
	return !errno && !*end;
}

/* Parses ARGV into O; returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct options *o)
{
	bool given[OPT_END - OPT_FORMAT] = { 0 };
	char msg[300];
	uint64_t n;
	int c, v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", long_options, NULL)) != -1) {
		if (c >= OPT_FORMAT && c < OPT_END)
			given[c - OPT_FORMAT] = true;
		switch (c) {
		case OPT_FORMAT:
		case OPT_SORT:
			if (!pick(c == OPT_FORMAT ? formats : sorts, optarg, &v)) {
				snprintf(msg, sizeof(msg), "--%s %s: expected %s", option_name(c),
					 optarg, c == OPT_FORMAT ?
					 "table, csv or json" : "total, self, calls, p99 or max");
				return usage_error(msg);
			}
			if (c == OPT_FORMAT)
				o->report.format = (enum table_format)v;
			else
				o->report.sort = (enum report_sort)v;
			break;
		case OPT_LIMIT:
		case OPT_TOP:
		case OPT_THREAD:
			if (!number(optarg, &n) ||
			    (c != OPT_THREAD && (n == 0 || n > SIZE_MAX / 64))) {
				snprintf(msg, sizeof(msg), "--%s %s: expected a number%s",
					 option_name(c), optarg, c == OPT_THREAD ? "" : ", 1 or more");
				return usage_error(msg);
			}
			if (c == OPT_LIMIT)
				o->report.limit = (size_t)n;
			else if (c == OPT_TOP)
				o->agg.top = (size_t)n;
			else {
				o->agg.one_thread = true;
				o->agg.tid = n;
			}
			break;
		case OPT_BY_THREAD:
			o->agg.by_thread = true;
			break;
		case OPT_MATCH:
			o->report.match = optarg;
			break;
		case OPT_FUNCTION:
			o->agg.function = o->report.function = optarg;
			break;
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case OPT_BASELINE_PATHS:
			o->report.baseline_paths = true;
			break;
		case OPT_OFF_CPU:
			o->agg.off_cpu = o->report.off_cpu = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case OPT_VERSION:
			printf("snaptrace-stats %s\n", SNAPTRACE_VERSION);
			return EXIT_OK;
		case ':':   /* only long options take a value */
			snprintf(msg, sizeof(msg), "--%s: expected a value", option_name(optopt));
			return usage_error(msg);
		default:
			if (optopt)
				snprintf(msg, sizeof(msg), "-%c: unknown option", optopt);
			else
				snprintf(msg, sizeof(msg), "%s: unknown option", argv[optind - 1]);
			return usage_error(msg);
		}
	}
	for (size_t i = 0; i < sizeof(pairings) / sizeof(pairings[0]); i++) {
		const struct pairing *p = &pairings[i];

		if (given[p->opt - OPT_FORMAT] && p->needs != given[p->other - OPT_FORMAT]) {
			snprintf(msg, sizeof(msg), p->needs ? "--%s needs --%s" :
				 "--%s does not go with --%s", option_name(p->opt),
				 option_name(p->other));
			return usage_error(msg);
		}
	}
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "expected a trace file" :
				   "expected one trace file");
	if (!strcmp(argv[optind], "-") || (o->baseline && !strcmp(o->baseline, "-")))
		return usage_error("-: a trace may be read twice: give a file, not standard input");
	return -1;
}

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
	pid = run_start(argv, fd, STDERR_FILENO);
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
 * prints the error and returns EXIT_RUNTIME on failure. */
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

	if (err) {
		diag_error("%s", errbuf);
		return EXIT_RUNTIME;
	}
	if (a->opts.one_thread && !agg_has_thread(a, a->opts.tid)) {
		diag_error("%s: no thread %" PRIu64 " (the trace has: %s)", path, a->opts.tid,
			   agg_list_threads(a, errbuf, sizeof(errbuf)));
		return EXIT_RUNTIME;
	}
	if (problems && !quiet)
		diag_warn("%s: %zu problems in the file (snaptrace-convert --dump lists them); "
			  "the statistics step over them", path, problems);
	if (a->unended && !quiet)
		diag_warn("%s: %llu slices never ended are left out", path,
			  (unsigned long long)a->unended);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = { .agg.top = 10 };
	struct agg cur = { 0 }, old = { 0 };
	const char *path;
	int rc, err;

	diag_init(argv[0]);
	rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	path = argv[optind];
	diag_set_quiet(o.quiet);
	cur.opts = o.agg;
	old.opts = o.agg;
	rc = load(&cur, path, o.quiet);
	if (rc == EXIT_OK && o.baseline)
		rc = load(&old, o.baseline, o.quiet);
	if (rc != EXIT_OK)
		goto out;
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
	rc = err ? EXIT_RUNTIME : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		diag_error("cannot write the output: %s", strerror(errno));
		rc = EXIT_RUNTIME;
	}
out:
	agg_free(&cur);
	agg_free(&old);
	return rc;
}
