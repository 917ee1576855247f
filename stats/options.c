/* SPDX-License-Identifier: MIT */
#include "options.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "demangle.h"
#include "diag.h"
#include "funcspec.h"
#include "opttab.h"

#define STATS 1   /* the one verb */
#define COUNT_MAX (SIZE_MAX / 64)   /* rows or calls: far above any trace's */

static int set_thread(void *ctx, const char *arg, uint64_t tid)
{
	struct stats_options *o = ctx;

	(void)arg;
	o->agg.one_thread = true;
	o->agg.tid = tid;
	return 0;
}

static const struct opt_prog stats_prog;

/* --function takes every spelling of a function the recorder takes and
 * prints (common/funcspec.h): NAME, symbol:NAME, LIB:NAME, a Rust name
 * with its hash, [LIB:]addr:0xHEX or [LIB:][unnamed @ 0xHEX] (a function
 * without a name, as the trace names it: funcspec_parse_fn_addr); a source
 * line names no function of a trace: refused, saying what to write. */
static int set_function(void *ctx, const char *arg, uint64_t num)
{
	struct stats_options *o = ctx;
	const char *name = arg, *colon;
	char file[256];
	unsigned line, col;
	uint64_t addr;

	bool symbol = !strncmp(arg, "symbol:", 7);

	(void)num;
	if (symbol)
		name = arg + 7;
	if (!strncmp(arg, "line:", 5) || (strncmp(arg, "addr:", 5) &&
					  !funcspec_parse_line(arg, file, sizeof(file), &line, &col))) {
		opt_error(&stats_prog, "--function %s: the trace names functions, not source "
			  "lines: give the function's name as the trace shows it (snaptrace stats "
			  "TRACE lists them), or LIB:NAME", arg);
		return OPT_FAILED;
	}
	colon = name == arg && strncmp(arg, "addr:", 5) ? funcspec_lib_colon(arg) : NULL;
	if (colon) {	/* LIB:NAME, as libc:nanosleep */
		if (colon == arg || (size_t)(colon - arg) >= sizeof(o->lib))
			return -EINVAL;
		memcpy(o->lib, arg, (size_t)(colon - arg));
		o->lib[colon - arg] = '\0';
		name = colon + 1;
		o->agg.lib = o->report.lib = o->lib;
	}
	if (!*name)
		return -EINVAL;
	switch (symbol ? -ENOENT : funcspec_parse_fn_addr(name, &addr)) {
	case 0:		/* a function without a name, as the trace names it */
		funcspec_unnamed(addr, o->function, sizeof(o->function));
		o->agg.function = o->report.function = o->function;
		return 0;
	case -EINVAL:
		opt_error(&stats_prog, "--function %s: expected %saddr:0xHEX", arg,
			  colon ? "LIB:" : "");
		return OPT_FAILED;
	}
	/* as the user may have it: _Z4worki is work(int), a Rust symbol keeps
	 * its hash, the one instance of a generic function (agg_function_match()) */
	demangle_hashed(name, o->function, sizeof(o->function));
	o->agg.function = o->report.function = o->function;
	return 0;
}

static int set_off_cpu(void *ctx, const char *arg, uint64_t num)
{
	struct stats_options *o = ctx;

	(void)arg, (void)num;
	o->agg.off_cpu = o->report.off_cpu = true;
	return 0;
}

static int show_help(void *ctx, const char *arg, uint64_t format)
{
	(void)ctx, (void)arg;
	opt_print(stdout, &stats_prog, (enum opt_format)format);
	return OPT_DONE;
}

static int show_version(void *ctx, const char *arg, uint64_t num)
{
	(void)ctx, (void)arg, (void)num;
	return opt_version(&stats_prog);
}

/* in the order of enum table_format and enum report_sort */
static const char *const formats[] = { "table", "csv", "json", NULL };
static const char *const sorts[] = { "total", "self", "calls", "p99", "max", NULL };

#define FIELD(m) OPT_FIELD(struct stats_options, m)

static const struct opt table[] = {
	{ "format", 0, .kind = OPT_CHOICE, .arg = "FORMAT", .choices = formats,
	  FIELD(report.format), .verbs = STATS, .section = "output",
	  .help = "table (default, human units), csv or json (in ns)" },
	{ "sort", 0, .kind = OPT_CHOICE, .arg = "KEY", .choices = sorts, FIELD(report.sort),
	  .excludes = "baseline off-cpu", .verbs = STATS, .section = "output",
	  .help = "total, self, calls, p99 or max: largest first\n(default total)" },
	{ "limit", 0, .kind = OPT_COUNT, .arg = "N", .min = 1, .max = COUNT_MAX,
	  FIELD(report.limit), .expect = "a number, 1 or more", .verbs = STATS,
	  .section = "output", .help = "at most N rows (default all)" },
	{ "by-thread", 0, .kind = OPT_FLAG, FIELD(agg.by_thread), .excludes = "off-cpu",
	  .verbs = STATS, .section = "output",
	  .help = "a row per thread and function (columns tid, thread)" },
	{ "thread", 0, .kind = OPT_COUNT, .arg = "TID", .max = UINT64_MAX, .set = set_thread,
	  .expect = "a number", .verbs = STATS, .section = "selection",
	  .help = "only the slices of thread TID (a TID without events\n"
	  "in the trace is an error)" },
	{ "match", 0, .kind = OPT_STRING, .arg = "PATTERN", FIELD(report.match),
	  .excludes = "function", .verbs = STATS, .section = "selection",
	  .help = "only functions whose name contains PATTERN (any case)\n"
	  "or, with * ? [, matches it as a shell pattern; matching\n"
	  "nothing is an empty table and exit 1, as snaptrace symbols" },
	{ "function", 0, .kind = OPT_STRING, .arg = "NAME", .set = set_function,
	  .excludes = "off-cpu", .verbs = STATS, .section = "selection",
	  .help = "NAME in detail: its rows, a histogram of its call\n"
	  "durations and its longest calls (thread, start time);\n"
	  "NAME demangled with or without its parameters, or mangled;\n"
	  "symbol:NAME; LIB:NAME (a library's, as libc:nanosleep);\n"
	  "addr:0xHEX (a function with no name: [unnamed @ 0xHEX])" },
	{ "top", 0, .kind = OPT_COUNT, .arg = "N", .min = 1, .max = COUNT_MAX, FIELD(agg.top),
	  .expect = "a number, 1 or more", .needs = "function", .verbs = STATS,
	  .section = "selection", .help = "longest calls shown by --function (default 10)" },
	{ "baseline", 0, .kind = OPT_PATH, .arg = "OLD", FIELD(baseline),
	  .excludes = "function", .verbs = STATS, .section = "comparison",
	  .help = "compare with the trace OLD: calls, p50, p99, total\n"
	  "with their ratios new/old, largest change of total\n"
	  "first; \"-\" (empty, null) where a value does not exist:\n"
	  "the percentiles of a function absent from one trace, a\n"
	  "ratio to 0, the per-call columns of a sampled trace; a\n"
	  "function pairs with the one of the same name in the\n"
	  "binary of the same file name (two builds at other\n"
	  "paths pair)" },
	{ "baseline-paths", 0, .kind = OPT_FLAG, FIELD(report.baseline_paths),
	  .needs = "baseline", .verbs = STATS, .section = "comparison",
	  .help = "pair by the binary's full path instead" },
	{ "off-cpu", 0, .kind = OPT_FLAG, .set = set_off_cpu, .verbs = STATS,
	  .section = "waits",
	  .help = "where the threads waited: the [off-cpu] slices by\n"
	  "system call, kernel function and caller (the innermost\n"
	  "function outside the C library and language runtimes),\n"
	  "blocked or preempted: waits, total, p50, p99, max, of\n"
	  "all threads then of each (with --baseline: of all)" },
	{ "quiet", 'q', .kind = OPT_FLAG, FIELD(quiet), .verbs = STATS, .section = "other",
	  .help = "only errors on stderr" },
	OPT_HELP_ROW(show_help, STATS),
	OPT_VERSION_ROW(0, show_version, STATS),
};

static const struct opt_prog stats_prog = {
	.name = "snaptrace-stats",
	.help_cmd = "snaptrace-stats --help",
	.summary = "per-function call statistics of a trace, in the terminal",
	.synopsis = "snaptrace-stats [OPTIONS] TRACE.fxt[.gz]|RECORDING_DIR\n",
	.description =
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
		"samples, not a call: the per-call columns are left out (\"-\", empty, null).\n",
	.epilogue = "Exit status: 0 done, 1 unreadable, not an FXT file or cut short, or\n"
		    "--function or --thread names what the trace does not have (the message\n"
		    "lists what it has), 2 usage error.\n",
	.see_also = "snaptrace(1), snaptrace-convert(1)",
	.opts = table,
	.nopts = sizeof(table) / sizeof(table[0]),
	.verbs = STATS,
};

int stats_options_parse(int argc, char **argv, struct stats_options *o, int *trace)
{
	struct stat old, cur;
	int rc;

	*o = (struct stats_options){ .agg.top = 10 };
	rc = opt_parse(&stats_prog, argc, argv, 1, o, trace, NULL);
	if (rc >= 0)
		return rc;
	if (*trace + 1 != argc)
		return opt_error(&stats_prog, *trace == argc ? "expected a trace file" :
				 "expected one trace file");
	if (!strcmp(argv[*trace], "-") || (o->baseline && !strcmp(o->baseline, "-")))
		return opt_error(&stats_prog, "-: a trace may be read twice: give a file, not "
				 "standard input");
	if (o->baseline && !stat(o->baseline, &old) && !stat(argv[*trace], &cur) &&
	    old.st_dev == cur.st_dev && old.st_ino == cur.st_ino)
		return opt_error(&stats_prog, "%s and %s are the same file: --baseline compares "
				 "two traces", o->baseline, argv[*trace]);
	return -1;
}
