/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "cut.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "opttab.h"
#include "outpath.h"
#include "perfcmd.h"
#include "ptsplit.h"

#define CONVERT 1   /* the one verb */

static const struct opt_prog convert_prog;

/* With --check-options (given first), OPTION, which prints something and
 * converts nothing, is the usage error: a caller running a conversion (the
 * front end's --convert-arg) would get no trace, and keep no recording. */
static bool no_trace(const struct conv_options *o, const char *option)
{
	if (o->check)
		opt_error(&convert_prog, "%s prints and writes no trace: not an option of a "
			  "conversion", option);
	return o->check;
}

/* The options of perf script (6.1, perf-script(1)) whose value is a path. */
static const char *const perf_path_options[] = {
	"-i", "--input", "-k", "--vmlinux", "--kallsyms", "--symfs", "-s", "--script",
	"--dlfilter", "--guestmount", "--guestvmlinux", "--guestkallsyms", "--guestmodules",
};

/* Where in ARG (a --perf-arg after PREV, or NULL) a path begins: all of
 * it after a path option, after "=" in "--symfs=DIR", else NULL. */
static const char *perf_arg_path(const char *prev, const char *arg)
{
	for (size_t i = 0; i < sizeof(perf_path_options) / sizeof(perf_path_options[0]); i++) {
		size_t n = strlen(perf_path_options[i]);

		if (prev && !strcmp(prev, perf_path_options[i]))
			return arg;
		if (!strncmp(arg, perf_path_options[i], n) && arg[n] == '=')
			return arg + n + 1;
	}
	return NULL;
}

/*
 * --perf-arg ARG: a relative path in it is made absolute (the current
 * directory's): perf script may run in another directory (the private one
 * of perf inject --jit's ELF files, jitdump.h).
 */
static int set_perf_arg(void *ctx, const char *arg, uint64_t num)
{
	struct conv_options *o = ctx;
	const char **a = realloc(o->perf_args, (o->nperf_args + 1) * sizeof(*a));
	const char *path = perf_arg_path(o->nperf_args ? a[o->nperf_args - 1] : NULL, arg);

	(void)num;
	if (!a)
		return -ENOMEM;
	o->perf_args = a;
	if (path && *path && *path != '/') {
		char cwd[PATH_MAX], *abs, **owned;

		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		owned = realloc(o->perf_owned, (o->nperf_owned + 1) * sizeof(*owned));
		if (!owned)
			return -ENOMEM;
		o->perf_owned = owned;
		if (asprintf(&abs, "%.*s%s/%s", (int)(path - arg), arg, cwd, path) < 0)
			return -ENOMEM;
		owned[o->nperf_owned++] = abs;
		arg = abs;
	}
	a[o->nperf_args++] = arg;
	return 0;
}

static int set_decoder(void *ctx, const char *arg, uint64_t which)
{
	(void)arg;
	((struct conv_options *)ctx)->perf_decoder = which == 1;
	return 0;
}

static int set_filter(void *ctx, const char *arg, uint64_t num)
{
	struct conv_options *o = ctx;

	(void)num;
	o->filter = arg;
	return conv_cut_parse_filter(arg, &o->cut) ? -EINVAL : 0;
}

static int set_window(void *ctx, const char *arg, uint64_t num)
{
	struct conv_options *o = ctx;

	(void)num;
	o->window = arg;
	return conv_cut_parse_window(arg, &o->before, &o->after) ? -EINVAL : 0;
}

static int print_perf_command(void *ctx, const char *arg, uint64_t num)
{
	enum perfcmd_kind kind = PERFCMD_BRANCHES;
	char cmd[512];

	(void)num;
	if (arg && perfcmd_kind_parse(arg, &kind))
		return -EINVAL;
	if (no_trace(ctx, "--print-perf-command"))
		return OPT_FAILED;
	perfcmd_text(kind, cmd, sizeof(cmd));
	printf("%s\n", cmd);
	return OPT_DONE;
}

static int set_dump(void *ctx, const char *arg, uint64_t view)
{
	struct conv_options *o = ctx;

	(void)arg;
	if (no_trace(o, "--dump"))
		return OPT_FAILED;
	o->dump = (enum dump_view)(DUMP_ALL + view);
	return 0;
}

static int show_help(void *ctx, const char *arg, uint64_t format)
{
	char branches[512], samples[512], text[1536];
	struct opt_prog p = convert_prog;

	(void)arg;
	if (no_trace(ctx, "--help"))
		return OPT_FAILED;
	perfcmd_text(PERFCMD_BRANCHES, branches, sizeof(branches));
	perfcmd_text(PERFCMD_SAMPLES, samples, sizeof(samples));
	snprintf(text, sizeof(text), "Text input is what this prints (columns may be missing,\n"
		 "except flags, ip, addr, sym):\n %s\nor, for sampled call chains:\n %s\n",
		 branches, samples);
	p.epilogue = text;
	opt_print(stdout, &p, (enum opt_format)format);
	return OPT_DONE;
}

static int show_version(void *ctx, const char *arg, uint64_t num)
{
	(void)arg, (void)num;
	if (no_trace(ctx, "--version"))
		return OPT_FAILED;
	return opt_version(&convert_prog);
}

static const char *const decoders[] = { "builtin", "perf", NULL };
static const char *const views[] = { "", "records", "slices", "tree", "recording", NULL };

#define FIELD(m) OPT_FIELD(struct conv_options, m)

static const struct opt table[] = {
	{ "output", 'o', .kind = OPT_PATH, .arg = "FILE", FIELD(output), .verbs = CONVERT,
	  .section = "output",
	  .help = "output: FILE.fxt.gz or FILE.gz (gzip), FILE.fxt (raw) or -\n"
	  "(stdout); default trace.fxt.gz. A symlink is followed when\n"
	  "yours or root's, a device or FIFO written straight; the\n"
	  "input is refused" },
	{ "no-srcline", 0, .kind = OPT_FLAG, FIELD(no_srcline), .verbs = CONVERT,
	  .section = "output", .help = "no file/line arguments on slices (DWARF line tables)" },
	{ "filter", 0, .kind = OPT_STRING, .arg = "START,STOP", .set = set_filter,
	  .expect = "START,STOP: two function names as the trace shows them, one comma between "
	  "(outside (), <> and [])", .excludes = "window", .verbs = CONVERT, .section = "output",
	  .help = "keep what each thread does from a call of START to its\n"
	  "next call of STOP, repeatedly (symbols as the trace names\n"
	  "them); frames open at an edge are cut there" },
	{ "window", 0, .kind = OPT_STRING, .arg = "BEFORE[,AFTER]", .set = set_window,
	  .expect = "BEFORE[,AFTER]: durations with a unit (ns, us, ms, s), not both 0, e.g. "
	  "10ms,1ms", .verbs = CONVERT, .section = "output",
	  .help = "keep only that much time around each trigger hit of\n"
	  "a recording directory (10ms,1ms; units ns us ms s)" },
	{ "strict", 0, .kind = OPT_FLAG, FIELD(strict), .verbs = CONVERT, .section = "output",
	  .help = "an unrecognised line is an error, not a warning" },
	{ "perf", 0, .kind = OPT_PATH, .arg = "PATH", FIELD(perf), .verbs = CONVERT,
	  .section = "perf", .help = "perf binary for perf.data inputs (env SNAPTRACE_PERF; perf)" },
	{ "perf-arg", 0, .kind = OPT_STRING, .arg = "ARG", .set = set_perf_arg, .foreign = true,
	  .verbs = CONVERT, .repeatable = true,
	  .section = "perf", .help = "extra perf script argument, repeatable (--symfs=DIR,\n"
	  "--kallsyms=FILE for archived data)" },
	{ "decoder", 0, .kind = OPT_CHOICE, .arg = "WHICH", .choices = decoders,
	  .set = set_decoder, .verbs = CONVERT, .section = "perf",
	  .help = "who decodes Intel PT: builtin (default: in process, by\n"
	  "libipt; perf script where it cannot, with a note why)\n"
	  "or perf (perf script always)" },
	{ "no-dlfilter", 0, .kind = OPT_FLAG, FIELD(no_dlfilter), .verbs = CONVERT,
	  .section = "perf", .help = "decode Intel PT through perf's text only, not through\n"
	  "snaptrace's dlfilter (a perf allowed only fixed flags)" },
	{ "jobs", 'j', .kind = OPT_COUNT, .arg = "N", .min = 1, .max = PTSPLIT_MAX, FIELD(jobs),
	  .expect = "a number of perf script processes, 1 to 64", .verbs = CONVERT,
	  .section = "perf", .help = "decode Intel PT in up to N perf script processes, one\n"
	  "time range each (default: the online CPUs)" },
	{ "print-perf-command", 0, .kind = OPT_STRING, .arg = "KIND", .optional = true,
	  .set = print_perf_command, .expect = "branches, samples or sched", .verbs = CONVERT,
	  .section = "perf", .help = "print the perf script command line run on a perf.data\n"
	  "of KIND (branches, samples, sched; default branches),\n"
	  "less -i FILE, and exit" },
	{ "dump", 0, .kind = OPT_CHOICE, .arg = "VIEW", .optional = true, .choices = views,
	  .set = set_dump, .verbs = CONVERT, .section = "other",
	  .help = "print an FXT file: records, slices (TID DEPTH NAME), tree\n"
	  "(slices with times and arguments); default records + tree.\n"
	  "Exits 1 when the file has problems Perfetto would trip on.\n"
	  "recording DIR: its record.json, a field per line (PATH=VALUE)" },
	{ "check-options", 0, .kind = OPT_FLAG, FIELD(check), .verbs = CONVERT, .section = "other",
	  .help = "check the other options and arguments as a conversion would\n"
	  "take them, and exit: 0, or the usage error (2); one that\n"
	  "prints and writes no trace (--help...) is one here\n"
	  "(what `snaptrace run` checks its --convert-arg with)" },
	{ "quiet", 'q', .kind = OPT_FLAG, FIELD(quiet), .verbs = CONVERT, .section = "other",
	  .help = "no summary, no progress" },
	OPT_HELP_ROW(show_help, CONVERT),
	OPT_VERSION_ROW(0, show_version, CONVERT),
};

static const struct opt_prog convert_prog = {
	.name = "snaptrace-convert",
	.help_cmd = "snaptrace-convert --help",
	.summary = "turn recordings, perf.data files or perf script text into a Perfetto trace",
	.synopsis = "snaptrace-convert [OPTIONS] INPUT... [-o OUT]\n"
		    "snaptrace-convert --dump[=records|slices|tree] FILE.fxt[.gz]\n"
		    "snaptrace-convert --dump=recording DIR\n",
	.description =
		"Converts a recording directory (snaptrace-record -o DIR, snaptrace run -d DIR:\n"
		"its snapshots, with their trigger hits as markers), perf.data files (perf\n"
		"script is run on them) or perf script text (a file, or - for standard\n"
		"input) into a Fuchsia trace for ui.perfetto.dev. Several inputs (the\n"
		"perf.data.<time> files of a multi-snapshot recording) go on one timeline.\n",
	.see_also = "snaptrace(1), snaptrace-record(1), snaptrace-stats(1), perf-script(1)",
	.opts = table,
	.nopts = sizeof(table) / sizeof(table[0]),
	.verbs = CONVERT,
};

int conv_options_parse(int argc, char **argv, struct conv_options *o, int *first)
{
	char err[PATH_MAX + 128];
	int rc;

	*o = (struct conv_options){
		.perf = getenv("SNAPTRACE_PERF") ? getenv("SNAPTRACE_PERF") : "perf",
	};
	rc = opt_parse(&convert_prog, argc, argv, 1, o, first, NULL);
	if (rc >= 0)
		return rc;
	if (*first >= argc)
		return opt_error(&convert_prog, o->dump == DUMP_RECORDING ?
				 "--dump=recording needs a recording directory" :
				 o->dump ? "--dump needs an FXT file" : "no input given");
	if (o->dump && argc - *first > 1)
		return opt_error(&convert_prog, "--dump reads one FXT file, got %d (the second: %s)",
				 argc - *first, argv[*first + 1]);
	if (o->dump && o->output)
		return opt_error(&convert_prog, "--dump prints to stdout: it takes no -o %s",
				 o->output);
	if (o->dump)
		return -1;
	if (!o->output)
		o->output = "trace.fxt.gz";
	switch (outpath_check(o->output, err, sizeof(err))) {
	case EXIT_OK:
		return -1;
	case EXIT_USAGE:
		return opt_error(&convert_prog, "%s", err);
	default:
		diag_error("%s", err);
		return EXIT_RUNTIME;
	}
}

void conv_options_free(struct conv_options *o)
{
	free(o->perf_args);
	o->perf_args = NULL;
	for (size_t i = 0; i < o->nperf_owned; i++)
		free(o->perf_owned[i]);
	free(o->perf_owned);
	o->perf_owned = NULL;
	o->nperf_owned = 0;
}
