/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "events.h"
#include "numparse.h"
#include "version.h"

#define PID_MAX_LIMIT 4194304        /* the kernel's largest pid_max (2^22) */
#define SNAPSHOT_SIZE_MIN 4096ULL    /* one page */
#define DURATION_MAX_NS (366ULL * 86400 * 1000000000) /* a year */
#define ARM_AFTER_MAX_NS (86400ULL * 1000000000) /* a day */
#define DONE 1000                    /* a setter's "exit 0 now" (--help, --version) */

typedef int (*setter)(struct rec_cli *c, const char *arg);

/*
 * One option. CHOICES (NULL-terminated) lists the accepted words of an
 * option whose value is an enum: the word's index is the enum value. EXPECT says what a value must be, for the error message
 * (choices make their own). SET returns 0, a negative errno for a bad value,
 * or DONE. Without SET the option stores into the member of struct rec_cli
 * at offset FIELD: the word's index into an enum (CHOICES), true into a bool
 * (no value), or its value into a string.
 */
struct rec_cli_opt {
	const char *name;
	char short_name;
	const char *arg;             /* the help's name of the value; NULL: no value */
	const char *const *choices;
	const char *expect;
	unsigned modes;              /* enum rec_cli_mode bits */
	const char *section;         /* the help's heading */
	const char *help;            /* may hold '\n' for more lines */
	setter set;
	size_t field;
};

static const char *const modes[] = { "auto", "pt", "sampling", NULL };
static const char *const timer_res[] = { "low", "normal", "high", NULL };
static const char *const callgraphs[] = { "fp", "dwarf", "lbr", "auto", NULL };
static const char *const mechanisms[] = { "auto", "breakpoint", "uprobe", NULL };
static const char *const verbs[] = { "", "run", "attach", NULL };

/* Adds ARG to the array *V of *N strings. Returns 0 or -ENOMEM. */
static int push(const char ***v, int *n, const char *arg)
{
	const char **p = realloc(*v, (size_t)(*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*v = p;
	p[(*n)++] = arg;
	return 0;
}

static bool has_pid(const pid_t *pids, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* -p PID[,PID...], repeatable: each process once (named twice: -EEXIST). */
static int set_pids(struct rec_cli *c, const char *arg)
{
	struct rec_opts *o = &c->rec;
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		char item[24];
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		uint64_t v;
		int err;

		if (len >= sizeof(item) || o->npids >= REC_MAX_PIDS)
			return -ERANGE;
		memcpy(item, p, len);
		item[len] = '\0';
		err = num_parse_u64(item, 1, PID_MAX_LIMIT, &v);
		if (err)
			return err;
		if (has_pid(o->pids, o->npids, (pid_t)v))
			return -EEXIST;
		o->pids[o->npids++] = (pid_t)v;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int set_tid(struct rec_cli *c, const char *arg)
{
	uint64_t v;
	int err = num_parse_u64(arg, 1, PID_MAX_LIMIT, &v);

	if (!err)
		c->rec.tid = (pid_t)v;
	return err;
}

static int set_unsigned(unsigned *out, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;
	int err = num_parse_u64(arg, min, max, &v);

	if (!err)
		*out = (unsigned)v;
	return err;
}

static int set_freq(struct rec_cli *c, const char *arg)
{
	return set_unsigned(&c->rec.sampling_freq, arg, 1, 1000000);
}

static int set_min_interval(struct rec_cli *c, const char *arg)
{
	return set_unsigned(&c->rec.min_interval_ms, arg, 0, 86400000);
}

static int set_snapshot_size(struct rec_cli *c, const char *arg)
{
	return num_parse_size(arg, SNAPSHOT_SIZE_MIN, REC_RING_MAX_PT, &c->rec.snapshot_size);
}

/* Seconds (a fraction allowed) from MIN_NS to MAX_NS into *OUT. */
static int set_seconds(double *out, const char *arg, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t ns;
	int err = num_parse_seconds(arg, min_ns, max_ns, &ns);

	if (!err)
		*out = (double)ns / 1e9;
	return err;
}

static int set_slower_than(struct rec_cli *c, const char *arg)
{
	return num_parse_seconds(arg, 1, DURATION_MAX_NS, &c->rec.slower_than_ns);
}

static int set_duration(struct rec_cli *c, const char *arg)
{
	return set_seconds(&c->rec.duration_s, arg, 1000000, DURATION_MAX_NS);
}

static int set_arm_after(struct rec_cli *c, const char *arg)
{
	return set_seconds(&c->rec.arm_after_s, arg, 0, ARM_AFTER_MAX_NS);
}

/* --measure FUNC, repeatable. */
static int set_measure(struct rec_cli *c, const char *arg)
{
	struct rec_opts *o = &c->rec;

	if (o->nmeasure >= REC_MAX_MEASURE || !*arg)
		return -EINVAL;
	o->measure[o->nmeasure++] = arg;
	return 0;
}

/* --event EVENT[/PERIOD], repeatable. */
static int set_event(struct rec_cli *c, const char *arg)
{
	struct rec_opts *o = &c->rec;

	if (o->nevents >= REC_MAX_EVENTS)
		return -ERANGE;
	if (rec_event_parse(arg, &o->events[o->nevents]))
		return -EINVAL;
	o->nevents++;
	return 0;
}

static int set_perf_arg(struct rec_cli *c, const char *arg)
{
	return push(&c->rec.perf_args, &c->rec.nperf_args, arg);
}

static int set_convert_arg(struct rec_cli *c, const char *arg)
{
	return push(&c->convert_args, &c->nconvert_args, arg);
}

static int set_front_end(struct rec_cli *c, const char *arg)
{
	(void)c, (void)arg;
	return -EINVAL;   /* valid only as the first option, taken before getopt */
}

static int show_help(struct rec_cli *c, const char *arg)
{
	(void)arg;
	rec_cli_usage(stdout, c->mode);
	return DONE;
}

static int show_version(struct rec_cli *c, const char *arg)
{
	(void)c, (void)arg;
	printf("%s %s\n", diag_program(), SNAPTRACE_VERSION);
	return DONE;
}

/* The enums CHOICES options store into have the size of an int. */
#define ENUM_IS_INT(e) _Static_assert(sizeof(e) == sizeof(int), #e " is not an int")
ENUM_IS_INT(enum rec_mode);
ENUM_IS_INT(enum rec_timer_res);
ENUM_IS_INT(enum rec_callgraph);
ENUM_IS_INT(enum rec_mechanism);

#define BOTH (REC_CLI_RECORDER | REC_CLI_FRONTEND)
#define FIELD(m) .field = offsetof(struct rec_cli, m)

static const struct rec_cli_opt table[] = {
	{ "pid", 'p', "PID[,PID]", NULL, "PID[,PID...], each from 1 to 4194304", BOTH, "target",
	  "attach (the processes keep running afterwards)", set_pids, 0 },
	{ "tid", 't', "TID", NULL, "a thread id from 1 to 4194304", BOTH, "target",
	  "attach to one thread", set_tid, 0 },
	{ "multi-thread", 0, NULL, NULL, NULL, BOTH, "target",
	  "trace every thread (default: the main thread only)", NULL, FIELD(rec.multi_thread) },
	{ "output", 'o', "DIR", NULL, NULL, REC_CLI_RECORDER, "recording",
	  "working directory (default ./snaptrace-YYYYmmdd-HHMMSS)", NULL, FIELD(rec.outdir) },
	{ "mode", 0, "MODE", modes, NULL, BOTH, "recording",
	  "auto (default), pt (Intel PT) or sampling", NULL, FIELD(rec.mode) },
	{ "timer-resolution", 0, "R", timer_res, NULL, BOTH, "recording",
	  "PT timing: low, normal (default) or high", NULL, FIELD(rec.timer_res) },
	{ "snapshot-size", 0, "BYTES", NULL, "BYTES from 4K to 2G, 1G when sampling (e.g. 4M)", BOTH, "recording",
	  "ring buffer size (K/M/G suffixes; power-of-two pages)", set_snapshot_size, 0 },
	{ "kernel", 0, NULL, NULL, NULL, BOTH, "recording",
	  "trace the kernel too (PT: --kcore where perf has it)", NULL, FIELD(rec.kernel) },
	{ "full-execution", 0, NULL, NULL, NULL, BOTH, "recording",
	  "record everything from the start, no ring buffer", NULL, FIELD(rec.full_execution) },
	{ "keep-binaries", 0, NULL, NULL, NULL, BOTH, "recording",
	  "copy the binaries the snapshots name into the recording\n"
	  "(DIR/binaries, perf's build-id cache): it stays convertible\n"
	  "when they are rebuilt or removed", NULL, FIELD(rec.keep_binaries) },
	{ "sampling-freq", 0, "N", NULL, "a rate in Hz from 1 to 1000000", BOTH, "recording",
	  "sampling mode: samples per second (default 5000)", set_freq, 0 },
	{ "callgraph", 0, "MODE", callgraphs, NULL, BOTH, "recording",
	  "sampling mode: fp (default), dwarf, lbr, or auto (dwarf\n"
	  "for a program built without frame pointers)", NULL, FIELD(rec.callgraph) },
	{ "event", 0, "EVENT[/N]", NULL, "EVENT[/PERIOD] without modifiers (e.g. branch-misses/50, "
	  "page-faults, sched:sched_wakeup), at most 8", BOTH, "recording",
	  "also sample a perf event (every Nth), shown as instants on\n"
	  "its own track; repeatable", set_event, 0 },
	{ "trigger", 0, "SPEC", NULL, NULL, BOTH, "triggers",
	  "NAME, symbol:NAME, line:FILE:LINE[:COL], addr:0xHEX,\n"
	  "LIB:NAME, signal:NAME (the program receiving signal NAME),\n"
	  "'.', '?' (pick one) or none; NAME may be a\n"
	  "demangled C++/Rust name (default '.': magic_trace_stop_indicator\n"
	  "or snaptrace_trigger if present)", NULL,
	  FIELD(rec.trigger) },
	{ "trigger-mechanism", 0, "M", mechanisms, NULL, BOTH, "triggers",
	  "auto (default: self-test), breakpoint or uprobe", NULL, FIELD(rec.mechanism) },
	{ "trigger-slower-than", 0, "DURATION", NULL,
	  "a duration from 1ns to a year (e.g. 10ms, 250us, 1.5s)", BOTH, "triggers",
	  "a hit is a call of the trigger function that took\n"
	  "longer than DURATION: snapshot at its return", set_slower_than, 0 },
	{ "measure", 0, "FUNC", NULL, "a function as --trigger names one (NAME, symbol:NAME, "
	  "LIB:NAME, addr: of its entry...), at most 8", BOTH, "triggers",
	  "time every call of FUNC for the whole recording (entry and\n"
	  "exit uprobes): exact slices in the trace, a histogram in\n"
	  "record.json; repeatable", set_measure, 0 },
	{ "multi-snapshot", 0, NULL, NULL, NULL, BOTH, "triggers",
	  "snapshot at every hit, not only the first", NULL, FIELD(rec.multi_snapshot) },
	{ "arm-after", 0, "SECONDS", NULL, "seconds from 0 to 86400 (e.g. 0.5, 500ms)", BOTH, "triggers",
	  "ignore trigger hits until the recording has run this long\n"
	  "(default: a hit waits until the ring has filled; 0: at once)",
	  set_arm_after, 0 },
	{ "min-interval", 0, "MS", NULL, "milliseconds from 0 to 86400000", BOTH, "triggers",
	  "least time between two snapshots (default 100)", set_min_interval, 0 },
	{ "duration", 0, "SECONDS", NULL, "seconds from 0.001 to 31622400 (e.g. 2.5, 500ms)", BOTH,
	  "triggers", "stop (and snapshot) after this time", set_duration, 0 },
	{ "perf", 0, "PATH", NULL, NULL, BOTH, "perf",
	  "the perf program (default: perf from PATH)", NULL, FIELD(rec.perf_path) },
	{ "perf-arg", 0, "ARG", NULL, NULL, BOTH, "perf",
	  "pass ARG to perf record (repeatable)", set_perf_arg, 0 },
	{ "dry-run", 0, NULL, NULL, NULL, BOTH, "perf",
	  "print the perf command line and exit", NULL, FIELD(rec.dry_run) },
	{ "output", 'o', "FILE", NULL, NULL, REC_CLI_FRONTEND, "trace",
	  "the trace: FILE.fxt.gz (default trace.fxt.gz), FILE.fxt\n"
	  "or - (raw FXT on stdout; the program's stdout then goes to stderr)", NULL,
	  FIELD(trace) },
	{ "data-dir", 'd', "DIR", NULL, NULL, REC_CLI_FRONTEND, "trace",
	  "keep the recording (perf.data files, record.json) in DIR;\n"
	  "by default it goes to a temporary directory removed afterwards", NULL,
	  FIELD(data_dir) },
	{ "convert-arg", 0, "ARG", NULL, NULL, REC_CLI_FRONTEND, "trace",
	  "pass ARG to snaptrace-convert (repeatable)", set_convert_arg, 0 },
	{ "check", 0, NULL, NULL, NULL, REC_CLI_RECORDER, "other",
	  "print the host report and exit", NULL, FIELD(check) },
	{ "symbols", 0, "PROG|PID", NULL, NULL, REC_CLI_RECORDER, "other",
	  "list the functions that can be triggers and exit (then an\n"
	  "optional PATTERN; `snaptrace symbols`)", NULL, FIELD(symbols) },
	{ "front-end", 0, "VERB", verbs, NULL, REC_CLI_RECORDER, "other",
	  "be `snaptrace VERB` (run or attach): record, then convert\n"
	  "(first option only; what the snaptrace script runs)", set_front_end, 0 },
	{ "quiet", 'q', NULL, NULL, NULL, BOTH, "other",
	  "print errors only", NULL, FIELD(rec.quiet) },
	{ "help", 'h', NULL, NULL, NULL, BOTH, "other", "this help", show_help, 0 },
	{ "version", 'V', NULL, NULL, NULL, BOTH, "other", "the version", show_version, 0 },
};

#define NOPTS (sizeof(table) / sizeof(table[0]))

/* "--NAME" or "-X/--NAME" for messages and help. */
static void opt_label(const struct rec_cli_opt *opt, char *buf, size_t size)
{
	if (opt->short_name)
		snprintf(buf, size, "-%c, --%s", opt->short_name, opt->name);
	else
		snprintf(buf, size, "    --%s", opt->name);
}

/* "a, b or c" of CHOICES (the empty word left out). */
static void choice_list(const char *const *choices, char *buf, size_t size)
{
	size_t len = 0;
	int n = 0, i = 0;

	for (const char *const *c = choices; *c; c++)
		n += **c != '\0';
	buf[0] = '\0';
	for (const char *const *c = choices; *c && len < size; c++) {
		if (!**c)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0 ? "" : i == n - 1 ? " or " : ", ", *c);
		i++;
	}
}

void rec_cli_usage(FILE *f, enum rec_cli_mode mode)
{
	const char *section = NULL;

	if (mode == REC_CLI_FRONTEND)
		fputs("usage: snaptrace run [OPTIONS] -- CMD [ARGS...]        launch CMD, record, convert\n"
		      "       snaptrace attach [OPTIONS] -p PID[,PID] | -t TID  attach, record, convert\n"
		      "       snaptrace attach [OPTIONS]                        pick the process first\n"
		      "\n"
		      "Records with perf into a ring buffer, keeps the moments before the trigger\n"
		      "and writes them as a Perfetto trace.\n", f);
	else
		fputs("usage: snaptrace-record [OPTIONS] -- CMD [ARGS...]   launch CMD and record it\n"
		      "       snaptrace-record [OPTIONS] -p PID[,PID...]    attach to running processes\n"
		      "       snaptrace-record [OPTIONS] -t TID             attach to one thread\n"
		      "       snaptrace-record --check                      report what this host offers\n"
		      "\n"
		      "Records with perf into a ring buffer and keeps the moments before the trigger.\n", f);
	for (size_t i = 0; i < NOPTS; i++) {
		const struct rec_cli_opt *opt = &table[i];
		char label[64];
		const char *h = opt->help;

		if (!(opt->modes & mode))
			continue;
		if (!section || strcmp(section, opt->section)) {
			section = opt->section;
			fprintf(f, "%s%s:\n", i ? "" : "\n", section);
		}
		opt_label(opt, label, sizeof(label));
		if (opt->arg)
			snprintf(label + strlen(label), sizeof(label) - strlen(label), " %s", opt->arg);
		/* a label too long for its column puts the help on the next line */
		if (strlen(label) > 25)
			fprintf(f, "  %s\n%28s", label, "");
		else
			fprintf(f, "  %-25s ", label);
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%28s", (int)(nl - h), h, "");
		fprintf(f, "%s\n", h);
	}
	fputs("\nSIGINT (Ctrl-C), SIGTERM or SIGHUP ends the recording: the snapshot is taken\n"
	      "and kept. ", f);
	if (mode == REC_CLI_FRONTEND)
		fputs("The trace is then written; a signal while converting stops the\n"
		      "conversion and keeps the recording. See README.md \"Signals\".\n", f);
	else
		fputs("The output directory holds perf.data files and record.json;\n"
		      "snaptrace-convert turns them into a trace.\n", f);
}

static const char *help_hint = "snaptrace-record --help";

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error("%s (try '%s')", msg, help_hint);
	return EXIT_USAGE;
}

/* Applies OPT with value ARG. Returns -1 to go on, or an exit status. */
static int apply(struct rec_cli *c, const struct rec_cli_opt *opt, const char *arg)
{
	char *base = (char *)c + opt->field, what[256];
	int choice = -1, err;

	if (opt->choices) {
		for (int i = 0; opt->choices[i]; i++)
			if (*opt->choices[i] && !strcmp(opt->choices[i], arg))
				choice = i;
		if (choice < 0) {
			choice_list(opt->choices, what, sizeof(what));
			return bad_usage("--%s: expected %s, found '%s'", opt->name, what, arg);
		}
	}
	if (!opt->set) {
		if (opt->choices)
			memcpy(base, &choice, sizeof(choice));   /* an enum (ENUM_IS_INT) */
		else if (opt->arg)
			memcpy(base, &arg, sizeof(arg));
		else
			*(bool *)(void *)base = true;
		return -1;
	}
	err = opt->set(c, arg);
	if (err == DONE)
		return EXIT_OK;
	if (err == -ENOMEM) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (err == -EINVAL && opt->set == set_front_end)
		return bad_usage("--front-end: expected as the first option");
	if (err == -EEXIST)
		return bad_usage("--%s: expected each process once, found one named twice in '%s'",
				 opt->name, arg);
	if (err)
		return bad_usage("--%s: expected %s, found '%s'", opt->name,
				 opt->expect ? opt->expect : "a value", arg);
	return -1;
}

/* Checks what the options say together. Returns -1 or EXIT_USAGE. */
static int check_combination(struct rec_cli *c)
{
	struct rec_opts *o = &c->rec;
	int targets = (o->ncmd > 0) + (o->npids > 0) + (o->tid > 0);

	if (c->symbols) {
		if (o->ncmd > 1)
			return bad_usage("--symbols: expected PROG|PID [PATTERN], found '%s' after "
					 "the pattern", o->cmd[1]);
		return -1;
	}
	if (c->check) {
		if (o->ncmd > 0)
			return bad_usage("--check: expected no other argument, found '%s'",
					 o->cmd[0]);
		return -1;
	}
	if (c->verb == REC_VERB_ATTACH && o->ncmd > 0)
		return bad_usage("attach: expected -p PID or -t TID, found a command '%s' "
				 "(use run)", o->cmd[0]);
	if (c->verb == REC_VERB_RUN && o->ncmd == 0)
		return bad_usage("run: expected a command after --");
	/* attach without -p or -t: the process is picked on the terminal (procpick.h) */
	if (c->verb == REC_VERB_ATTACH && targets == 0)
		return -1;
	if (targets != 1)
		return bad_usage("%s", targets ? "expected one target: -- CMD, -p PID or -t TID; "
				 "found several" : "expected a target: -- CMD, -p PID or -t TID");
	if (o->slower_than_ns && o->mechanism == REC_MECH_BREAKPOINT)
		return bad_usage("--trigger-slower-than: expected --trigger-mechanism uprobe or "
				 "auto (uprobes watch the returns), found breakpoint");
	if (o->nmeasure && o->mechanism == REC_MECH_BREAKPOINT)
		return bad_usage("--measure: expected --trigger-mechanism uprobe or auto (uprobes "
				 "watch the calls), found breakpoint");
	if (o->full_execution && o->multi_snapshot)
		return bad_usage("--full-execution records everything once: it does not go "
				 "with --multi-snapshot");
	return -1;
}

/* The error for what getopt_long returned '?' for; BAD: the argument it was
 * at, MODE: the options in force. Returns EXIT_USAGE. */
static int unknown_option(const char *bad, enum rec_cli_mode mode)
{
	if (optopt >= 256 && table[optopt - 256].arg)
		return bad_usage("--%s: expected a value", table[optopt - 256].name);
	if (optopt >= 256)
		return bad_usage("--%s: expected no value", table[optopt - 256].name);
	if (optopt)
		for (size_t i = 0; i < NOPTS; i++)
			if (table[i].short_name == optopt && table[i].arg && (table[i].modes & mode))
				return bad_usage("-%c: expected a value", optopt);
	if (optopt)
		return bad_usage("-%c: expected one of the options of --help", optopt);
	return bad_usage("%s: expected one of the options of --help", bad);
}

/* The option of MODE named NAME (its first LEN bytes), or NULL. */
static const struct rec_cli_opt *long_option(const char *name, size_t len, enum rec_cli_mode mode)
{
	for (size_t i = 0; i < NOPTS; i++)
		if ((table[i].modes & mode) && strlen(table[i].name) == len &&
		    !strncmp(table[i].name, name, len))
			return &table[i];
	return NULL;
}

/*
 * magic-trace's spelling of long options with one dash (-trigger X): getopt
 * reads it as short options (-t rigger). Looks through the options of
 * ARGV[FIRST..ARGC), up to "--" or the command, for a word "-NAME" or
 * "-NAME=..." whose NAME is a long option of MODE. Returns -1 when there is
 * none, else EXIT_USAGE after saying which option was meant.
 */
static int single_dash_long(int argc, char **argv, int first, enum rec_cli_mode mode)
{
	for (int i = first; i < argc; i++) {
		const char *w = argv[i];
		const struct rec_cli_opt *o;

		if (!strcmp(w, "--") || w[0] != '-' || w[1] == '\0')
			return -1;   /* the command begins */
		if (w[1] == '-') {
			o = long_option(w + 2, strcspn(w + 2, "="), mode);
			i += o && o->arg && !strchr(w, '=');   /* its value */
			continue;
		}
		o = w[2] ? long_option(w + 1, strcspn(w + 1, "="), mode) : NULL;
		if (o)
			return bad_usage("%s: did you mean --%s? (with one dash it reads as -%c %s)",
					 w, o->name, w[1], w + 2);
		for (size_t k = 0; k < NOPTS; k++)
			if (table[k].short_name == w[1] && (table[k].modes & mode) && table[k].arg &&
			    !w[2])
				i++;   /* -X VALUE */
	}
	return -1;
}

/* Takes "--front-end VERB" or "--front-end=VERB" from ARGV[1]. Returns the
 * number of arguments it used (0: not there), or -1 for a bad verb. */
static int take_front_end(int argc, char **argv, struct rec_cli *c)
{
	const char *v = NULL;
	int used = 0;

	if (argc > 1 && !strncmp(argv[1], "--front-end=", 12)) {
		v = argv[1] + 12;
		used = 1;
	} else if (argc > 2 && !strcmp(argv[1], "--front-end")) {
		v = argv[2];
		used = 2;
	}
	if (!used)
		return 0;
	for (int i = 1; verbs[i]; i++)
		if (!strcmp(verbs[i], v)) {
			c->verb = (enum rec_cli_verb)i;
			c->mode = REC_CLI_FRONTEND;
			diag_init("snaptrace");
			help_hint = c->verb == REC_VERB_RUN ? "snaptrace run --help" :
				    "snaptrace attach --help";
			return used;
		}
	return -1;
}

int rec_cli_parse(int argc, char **argv, struct rec_cli *c)
{
	struct option longs[NOPTS + 1];
	char shorts[2 * NOPTS + 2] = "+";
	size_t nl = 0, ns = 1;
	int skip, ch;

	memset(c, 0, sizeof(*c));
	c->rec = (struct rec_opts){
		.mode = REC_MODE_AUTO,
		.timer_res = REC_RES_NORMAL,
		.callgraph = REC_CG_FP,
		.mechanism = REC_MECH_AUTO,
		.sampling_freq = 5000,
		.min_interval_ms = REC_MIN_INTERVAL_MS,
		.arm_after_s = -1,
		.argc = argc,
		.argv = argv,
	};
	c->mode = REC_CLI_RECORDER;
	c->trace = "trace.fxt.gz";
	skip = take_front_end(argc, argv, c);
	if (skip < 0)
		return bad_usage("--front-end: expected run or attach, found '%s'",
				 argv[1][11] == '=' ? argv[1] + 12 : argv[2]);
	for (size_t i = 0; i < NOPTS; i++) {
		if (!(table[i].modes & c->mode))
			continue;
		longs[nl++] = (struct option){ table[i].name,
					       table[i].arg ? required_argument : no_argument,
					       NULL, 256 + (int)i };
		if (table[i].short_name) {
			shorts[ns++] = table[i].short_name;
			if (table[i].arg)
				shorts[ns++] = ':';
		}
	}
	longs[nl] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';
	ch = single_dash_long(argc, argv, 1 + skip, c->mode);
	if (ch >= 0)
		return ch;
	opterr = 0;
	optind = 1 + skip;   /* after --front-end VERB */
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct rec_cli_opt *opt = NULL;
		int r;

		if (ch >= 256) {
			opt = &table[ch - 256];
		} else {
			for (size_t i = 0; i < NOPTS && !opt; i++)
				if (table[i].short_name == ch && (table[i].modes & c->mode))
					opt = &table[i];
		}
		if (!opt)
			return unknown_option(argv[optind - 1], c->mode);
		r = apply(c, opt, optarg);
		if (r >= 0)
			return r;
	}
	c->rec.cmd = argv + optind;
	c->rec.ncmd = argc - optind;
	return check_combination(c);
}

void rec_cli_free(struct rec_cli *c)
{
	free(c->rec.perf_args);
	free(c->convert_args);
	c->rec.perf_args = NULL;
	c->convert_args = NULL;
}
