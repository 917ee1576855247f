/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "events.h"
#include "numparse.h"
#include "opttab.h"

#define PID_MAX_LIMIT 4194304        /* the kernel's largest pid_max (2^22) */
#define SNAPSHOT_SIZE_MIN 4096ULL    /* one page */
#define DURATION_MAX_NS (366ULL * 86400 * 1000000000) /* a year */
#define ARM_AFTER_MAX_NS (86400ULL * 1000000000) /* a day */

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

/* -p PID[,PID...], repeatable: each process once. */
static int set_pids(void *ctx, const char *arg, uint64_t num)
{
	struct rec_cli *c = ctx;
	struct rec_opts *o = &c->rec;
	const char *p = arg;

	(void)num;
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
		if (has_pid(o->pids, o->npids, (pid_t)v)) {
			opt_error(c->prog, "--pid: expected each process once, found one named "
				  "twice in '%s'", arg);
			return OPT_FAILED;
		}
		o->pids[o->npids++] = (pid_t)v;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int set_duration(void *ctx, const char *arg, uint64_t ns)
{
	(void)arg;
	((struct rec_cli *)ctx)->rec.duration_s = (double)ns / 1e9;
	return 0;
}

static int set_arm_after(void *ctx, const char *arg, uint64_t ns)
{
	(void)arg;
	((struct rec_cli *)ctx)->rec.arm_after_s = (double)ns / 1e9;
	return 0;
}

/* --measure FUNC, repeatable. */
static int set_measure(void *ctx, const char *arg, uint64_t num)
{
	struct rec_opts *o = &((struct rec_cli *)ctx)->rec;

	(void)num;
	if (o->nmeasure >= REC_MAX_MEASURE || !*arg)
		return -EINVAL;
	o->measure[o->nmeasure++] = arg;
	return 0;
}

/* --event EVENT[/PERIOD], repeatable. */
static int set_event(void *ctx, const char *arg, uint64_t num)
{
	struct rec_opts *o = &((struct rec_cli *)ctx)->rec;
	struct rec_event *ev = &o->events[o->nevents];
	const char *term;
	int err, len;

	(void)num;
	if (o->nevents >= REC_MAX_EVENTS)
		return -ERANGE;
	err = rec_event_parse(arg, ev);
	if (err == -EEXIST) {
		len = rec_event_own_term(ev, &term);
		opt_error(((struct rec_cli *)ctx)->prog, "--event %s: expected the sampling once, "
			  "found both /%llu and the term %.*s (drop one)", arg,
			  (unsigned long long)ev->period, len, term);
		return OPT_FAILED;
	}
	if (err)
		return -EINVAL;
	o->nevents++;
	return 0;
}

static int set_perf_arg(void *ctx, const char *arg, uint64_t num)
{
	struct rec_cli *c = ctx;

	(void)num;
	return push(&c->rec.perf_args, &c->rec.nperf_args, arg);
}

static int set_convert_arg(void *ctx, const char *arg, uint64_t num)
{
	struct rec_cli *c = ctx;

	(void)num;
	return push(&c->convert_args, &c->nconvert_args, arg);
}

static int set_front_end(void *ctx, const char *arg, uint64_t num)
{
	(void)arg, (void)num;
	/* valid only as the first option, taken before the table's parsing */
	opt_error(((struct rec_cli *)ctx)->prog, "--front-end: expected as the first option");
	return OPT_FAILED;
}

static int show_help(void *ctx, const char *arg, uint64_t format)
{
	(void)arg;
	opt_print(stdout, ((struct rec_cli *)ctx)->prog, (enum opt_format)format);
	return OPT_DONE;
}

static int show_version(void *ctx, const char *arg, uint64_t num)
{
	(void)arg, (void)num;
	return opt_version(((struct rec_cli *)ctx)->prog);
}

/* The enums CHOICE options store into have the size of an int. */
#define ENUM_IS_INT(e) _Static_assert(sizeof(e) == sizeof(int), #e " is not an int")
ENUM_IS_INT(enum rec_mode);
ENUM_IS_INT(enum rec_timer_res);
ENUM_IS_INT(enum rec_callgraph);
ENUM_IS_INT(enum rec_mechanism);

#define BOTH (REC_CLI_RECORDER | REC_CLI_FRONTEND)
#define FIELD(m) OPT_FIELD(struct rec_cli, m)
#define FLAG(m) .kind = OPT_FLAG, FIELD(m)
#define STRING(a, m) .kind = OPT_STRING, .arg = a, FIELD(m)
#define PATH(a, m) .kind = OPT_PATH, .arg = a, FIELD(m)
#define CHOICE(a, c, m) .kind = OPT_CHOICE, .arg = a, .choices = c, FIELD(m)
#define HAND(a, s) .kind = OPT_STRING, .arg = a, .set = s   /* the setter reads it */

static const struct opt table[] = {
	{ "pid", 'p', HAND("PID[,PID]", set_pids), .repeatable = true, .expect = "PID[,PID...], each from 1 to 4194304",
	  .verbs = BOTH, .section = "target", .help = "attach (the processes keep running afterwards)" },
	{ "tid", 't', .kind = OPT_COUNT, .arg = "TID", .min = 1, .max = PID_MAX_LIMIT, FIELD(rec.tid),
	  .expect = "a thread id from 1 to 4194304", .verbs = BOTH, .section = "target",
	  .help = "attach to one thread" },
	{ "multi-thread", 0, FLAG(rec.multi_thread), .verbs = BOTH, .section = "target",
	  .help = "trace every thread and the processes the target forks\n"
	  "(default: the main thread only); triggers and measures\n"
	  "watch the target's own threads only" },
	{ "output", 'o', PATH("DIR", rec.outdir), .verbs = REC_CLI_RECORDER, .section = "recording",
	  .help = "working directory (default ./snaptrace-YYYYmmdd-HHMMSS, a random suffix added when that is taken)" },
	{ "mode", 0, CHOICE("MODE", modes, rec.mode), .verbs = BOTH, .section = "recording",
	  .help = "auto (default), pt (Intel PT) or sampling" },
	{ "timer-resolution", 0, CHOICE("R", timer_res, rec.timer_res), .verbs = BOTH,
	  .section = "recording", .help = "PT timing: low, normal (default) or high" },
	{ "snapshot-size", 0, .kind = OPT_SIZE, .arg = "BYTES", .min = SNAPSHOT_SIZE_MIN,
	  .max = REC_RING_MAX_PT, FIELD(rec.snapshot_size),
	  .expect = "BYTES from 4K to 2G, 1G when sampling (e.g. 4M)", .verbs = BOTH,
	  .section = "recording", .help = "ring buffer size (K/M/G suffixes; power-of-two pages)" },
	{ "kernel", 0, FLAG(rec.kernel), .verbs = BOTH, .section = "recording",
	  .help = "trace the kernel too (PT: --kcore where perf has it)" },
	{ "full-execution", 0, FLAG(rec.full_execution), .verbs = BOTH, .section = "recording",
	  .excludes = "multi-snapshot",
	  .help = "record everything from the start, no ring buffer" },
	{ "keep-binaries", 0, FLAG(rec.keep_binaries), .verbs = BOTH, .section = "recording",
	  .help = "copy the binaries the snapshots name into the recording\n"
	  "(DIR/binaries, perf's build-id cache): it stays convertible\n"
	  "when they are rebuilt or removed" },
	{ "sampling-freq", 0, .kind = OPT_COUNT, .arg = "N", .min = 1, .max = 1000000,
	  FIELD(rec.sampling_freq), .expect = "a rate in Hz from 1 to 1000000", .verbs = BOTH,
	  .section = "recording", .help = "sampling mode: samples per second (default 5000)" },
	{ "callgraph", 0, CHOICE("MODE", callgraphs, rec.callgraph), .verbs = BOTH,
	  .section = "recording",
	  .help = "sampling mode: fp (default), dwarf, lbr, or auto (dwarf\n"
	  "for a program built without frame pointers)" },
	{ "event", 0, HAND("EVENT[/N]", set_event), .repeatable = true, .expect = "EVENT[/PERIOD] without modifiers "
	  "(e.g. branch-misses/50, page-faults, sched:sched_wakeup), at most 8", .verbs = BOTH,
	  .section = "recording",
	  .help = "also sample a perf event (every Nth), shown as instants on\n"
	  "its own track; repeatable" },
	{ "trigger", 0, STRING("SPEC", rec.trigger), .verbs = BOTH, .section = "triggers",
	  .help = "NAME, symbol:NAME, line:FILE:LINE[:COL], addr:0xHEX,\n"
	  "LIB:NAME, LIB:addr:0xHEX (a stripped library's function, as\n"
	  "`snaptrace symbols LIB` lists it),\n"
	  "signal:NAME (the program receiving signal NAME),\n"
	  "'.', '?' (pick one) or none; NAME may be a\n"
	  "demangled C++/Rust name (default '.': magic_trace_stop_indicator\n"
	  "or snaptrace_trigger if present)" },
	{ "trigger-mechanism", 0, CHOICE("M", mechanisms, rec.mechanism), .verbs = BOTH,
	  .section = "triggers", .help = "auto (default: self-test), breakpoint or uprobe" },
	{ "trigger-slower-than", 0, .kind = OPT_SECONDS, .arg = "DURATION", .min = 1,
	  .max = DURATION_MAX_NS, FIELD(rec.slower_than_ns),
	  .expect = "a duration from 1ns to a year (a bare number: seconds; e.g. 10ms, 250us, "
	  "1.5s)", .verbs = BOTH, .section = "triggers",
	  .help = "a hit is a call of the trigger function that took\n"
	  "longer than DURATION (10ms, 250us, 1.5s; a bare number\n"
	  "is seconds: 5 is 5 s): snapshot at its return" },
	{ "measure", 0, HAND("FUNC", set_measure), .repeatable = true, .expect = "a function as --trigger names one "
	  "(NAME, symbol:NAME, LIB:NAME, [LIB:]addr: of its entry...), at most 8", .verbs = BOTH,
	  .section = "triggers",
	  .help = "time every call of FUNC for the whole recording (entry and\n"
	  "exit uprobes): exact slices in the trace, a histogram in\n"
	  "record.json; repeatable" },
	{ "multi-snapshot", 0, FLAG(rec.multi_snapshot), .verbs = BOTH, .section = "triggers",
	  .help = "snapshot at every hit, not only the first" },
	{ "arm-after", 0, .kind = OPT_SECONDS, .arg = "SECONDS", .max = ARM_AFTER_MAX_NS,
	  .set = set_arm_after, .expect = "seconds from 0 to 86400 (e.g. 0.5, 500ms)",
	  .verbs = BOTH, .section = "triggers",
	  .help = "ignore trigger hits until the recording has run this long\n"
	  "(default: a hit waits until the ring has filled; 0: at once)" },
	{ "min-interval", 0, .kind = OPT_MILLISECONDS, .arg = "MS", .max = 86400000000000ull,
	  FIELD(rec.min_interval_ns), .needs = "multi-snapshot",
	  .expect = "a duration from 0 to 86400s (a bare number: milliseconds; e.g. 100, 100ms, 0.5s)",
	  .verbs = BOTH,
	  .section = "triggers", .help = "least time between two snapshots (default 100)" },
	{ "duration", 0, .kind = OPT_SECONDS, .arg = "SECONDS", .min = 1000000,
	  .max = DURATION_MAX_NS, .set = set_duration,
	  .expect = "seconds from 0.001 to 31622400 (e.g. 2.5, 500ms)", .verbs = BOTH,
	  .section = "triggers", .help = "stop (and snapshot) after this time" },
	{ "perf", 0, PATH("PATH", rec.perf_path), .verbs = BOTH, .section = "perf",
	  .help = "the perf program (default: perf from PATH)" },
	{ "perf-arg", 0, HAND("ARG", set_perf_arg), .repeatable = true, .foreign = true,
	  .verbs = BOTH, .section = "perf",
	  .help = "pass ARG to perf record (repeatable)" },
	{ "dry-run", 0, FLAG(rec.dry_run), .verbs = BOTH, .section = "perf",
	  .help = "print the perf command line and exit, after resolving\n"
	  "the trigger and measures as a recording does" },
	{ "output", 'o', PATH("FILE", trace), .verbs = REC_CLI_FRONTEND, .section = "trace",
	  .help = "the trace: FILE.fxt.gz (default trace.fxt.gz), FILE.fxt\n"
	  "or - (raw FXT on stdout; the program's stdout then goes to stderr)" },
	{ "data-dir", 'd', PATH("DIR", data_dir), .verbs = REC_CLI_FRONTEND, .section = "trace",
	  .help = "keep the recording (perf.data files, record.json) in DIR;\n"
	  "by default it goes to a temporary directory removed afterwards" },
	{ "convert-arg", 0, HAND("ARG", set_convert_arg), .repeatable = true, .foreign = true,
	  .verbs = REC_CLI_FRONTEND,
	  .section = "trace", .help = "pass ARG to snaptrace-convert (repeatable)" },
	{ "check", 0, FLAG(check), .verbs = REC_CLI_RECORDER, .section = "other",
	  .help = "print the host report and exit" },
	{ "symbols", 0, PATH("PROG|PID", symbols), .verbs = REC_CLI_RECORDER, .section = "other",
	  .help = "list the functions that can be triggers and exit (then an\n"
	  "optional PATTERN; `snaptrace symbols`)" },
	{ "front-end", 0, .kind = OPT_CHOICE, .arg = "VERB", .choices = verbs, .set = set_front_end,
	  .verbs = REC_CLI_RECORDER, .section = "other",
	  .help = "be `snaptrace VERB` (run or attach): record, then convert\n"
	  "(first option only; what the snaptrace script runs)" },
	{ "quiet", 'q', FLAG(rec.quiet), .verbs = BOTH, .section = "other",
	  .help = "print errors only" },
	OPT_HELP_ROW(show_help, BOTH),
	OPT_VERSION_ROW('V', show_version, BOTH),
};

#define NOPTS (sizeof(table) / sizeof(table[0]))

static const char recorder_epilogue[] =
	"SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT (Ctrl-\\), SIGUSR1 or SIGUSR2 ends\n"
	"the recording: the snapshot is taken and kept. The output directory holds\n"
	"perf.data files and record.json; snaptrace-convert turns them into a trace.\n";

static const char frontend_epilogue[] =
	"SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT (Ctrl-\\), SIGUSR1 or SIGUSR2 ends\n"
	"the recording: the snapshot is taken and kept. The trace is then written; a\n"
	"signal while converting stops the conversion and keeps the recording. See\n"
	"README.md \"Signals\".\n";

/* snaptrace-record's command line. */
static const struct opt_prog recorder = {
	.name = "snaptrace-record",
	.help_cmd = "snaptrace-record --help",
	.summary = "record a process with perf around a trigger, into a recording directory",
	.synopsis = "snaptrace-record [OPTIONS] -- CMD [ARGS...]\n"
		    "snaptrace-record [OPTIONS] -p PID[,PID...] | -t TID\n"
		    "snaptrace-record --check\n"
		    "snaptrace-record --symbols PROG|PID [PATTERN]\n",
	.description = "Records with perf into a ring buffer and keeps the moments before the trigger:\n"
		       "of CMD it launches, of running processes (-p) or of one thread (-t).\n"
		       "--check reports what this host offers; --symbols lists the functions\n"
		       "that can be triggers.\n",
	.epilogue = recorder_epilogue,
	.see_also = "snaptrace(1), snaptrace-convert(1), snaptrace-stats(1), perf-record(1)",
	.opts = table,
	.nopts = NOPTS,
	.verbs = REC_CLI_RECORDER,
	.in_order = true,
};

/* `snaptrace run` and `snaptrace attach`: the front end, whose man page
 * is snaptrace(1) (run's: every verb); VERB: what its usage errors point
 * to; SYNOPSIS and DESCRIPTION: its --help's. */
#define FRONTEND(verb, synopsis_, description_) { \
	.name = "snaptrace", \
	.help_cmd = "snaptrace " verb " --help", \
	.summary = "record a process around the moment that matters and write a Perfetto trace", \
	.synopsis = synopsis_, \
	.description = description_, \
	.epilogue = frontend_epilogue, \
	.see_also = "snaptrace-record(1), snaptrace-convert(1), snaptrace-stats(1), perf(1)", \
	.opts = table, \
	.nopts = NOPTS, \
	.verbs = REC_CLI_FRONTEND, \
	.in_order = true, \
	.commands = "run attach convert stats check symbols", \
}

static const struct opt_prog frontend_run = FRONTEND("run",
	"snaptrace run [OPTIONS] -- CMD [ARGS...]\n"
	"snaptrace attach [OPTIONS] [-p PID[,PID...] | -t TID]\n"
	"snaptrace convert [CONVERT OPTIONS] INPUT... [-o OUT]\n"
	"snaptrace stats [STATS OPTIONS] TRACE.fxt[.gz]\n"
	"snaptrace check\n"
	"snaptrace symbols PROG|PID [PATTERN]\n",
	"Records with perf into a ring buffer, keeps the moments before the trigger\n"
	"and writes them as a Perfetto trace: run launches CMD, attach takes\n"
	"running processes (without -p or -t it lets you pick one). convert is\n"
	"snaptrace-convert(1), stats snaptrace-stats(1); check reports what this\n"
	"host offers for recording, symbols the functions that can be triggers.\n"
	"The options below are those of run and attach.\n");
static const struct opt_prog frontend_attach = FRONTEND("attach",
	"snaptrace attach [OPTIONS] [-p PID[,PID...] | -t TID]\n",
	"Attaches to running processes (-p) or one thread (-t), records with perf\n"
	"into a ring buffer, keeps the moments before the trigger and writes them\n"
	"as a Perfetto trace. Without -p or -t it lets you pick a process on the\n"
	"terminal. The processes are never signalled: the recording ends at the\n"
	"trigger, at --duration, when they exit, or with Ctrl-C.\n");

/* Checks what the options say together (the table's NEEDS and EXCLUDES
 * are checked by opt_parse()). Returns -1 or EXIT_USAGE. */
static int check_combination(struct rec_cli *c)
{
	const struct opt_prog *p = c->prog;
	struct rec_opts *o = &c->rec;
	int targets = (o->ncmd > 0) + (o->npids > 0) + (o->tid > 0);

	if (c->symbols) {
		if (!strcmp(c->symbols, "--"))
			return opt_second_dashes(p);
		if (!*c->symbols)
			return opt_error(p, "expected PROG|PID [PATTERN], found none");
		if (o->ncmd > 1)
			return opt_error(p, "%sexpected PROG|PID [PATTERN], found '%s' after the "
					 "pattern", c->tool ? "" : "--symbols: ", o->cmd[1]);
		return -1;
	}
	if (c->check) {
		if (o->ncmd > 0)
			return opt_error(p, "%sexpected no other argument, found '%s'",
					 c->tool ? "" : "--check: ", o->cmd[0]);
		return -1;
	}
	if (c->verb == REC_VERB_ATTACH && o->ncmd > 0)
		return opt_error(p, "attach: expected -p PID or -t TID, found a command '%s' "
				 "(use run)", o->cmd[0]);
	if (c->verb == REC_VERB_RUN && o->ncmd == 0)
		return opt_error(p, "run: expected a command after --");
	/* attach without -p or -t: the process is picked on the terminal (procpick.h) */
	if (c->verb == REC_VERB_ATTACH && targets == 0)
		return -1;
	if (targets != 1)
		return opt_error(p, "%s", targets ? "expected one target: -- CMD, -p PID or -t TID; "
				 "found several" : "expected a target: -- CMD, -p PID or -t TID");
	/* an option the command line itself makes useless is a usage error;
	 * one the program makes useless (no default trigger in it) a warning */
	if (o->trigger && !strcmp(o->trigger, "none") &&
	    (o->arm_after_s >= 0 || o->multi_snapshot))
		return opt_error(p, "--%s: expected a trigger (it %s), found --trigger none",
				 o->arm_after_s >= 0 ? "arm-after" : "multi-snapshot",
				 o->arm_after_s >= 0 ? "delays the trigger" :
				 "takes a snapshot at each trigger hit");
	/* a mode given makes these useless; under --mode auto the host decides
	 * (plan.c warns) */
	if (o->mode == REC_MODE_PT && o->callgraph != REC_CG_FP)
		return opt_error(p, "--callgraph: expected --mode sampling or auto (call graphs "
				 "are sampled; Intel PT records every call), found --mode pt");
	if (o->mode == REC_MODE_SAMPLING && o->timer_res != REC_RES_NORMAL)
		return opt_error(p, "--timer-resolution: expected --mode pt or auto (it sets "
				 "Intel PT timing), found --mode sampling");
	if (o->slower_than_ns && o->mechanism == REC_MECH_BREAKPOINT)
		return opt_error(p, "--trigger-slower-than: expected --trigger-mechanism uprobe or "
				 "auto (uprobes watch the returns), found breakpoint");
	if (o->nmeasure && o->mechanism == REC_MECH_BREAKPOINT)
		return opt_error(p, "--measure: expected --trigger-mechanism uprobe or auto (uprobes "
				 "watch the calls), found breakpoint");
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
	/* snaptrace check, snaptrace symbols PROG|PID: the recorder's --check
	 * and --symbols, their messages naming the command the user ran */
	if (!strcmp(v, "check") || !strcmp(v, "symbols")) {
		static struct opt_prog tool;
		bool check = v[0] == 'c';

		tool = recorder;
		tool.help_cmd = check ? "snaptrace check --help" : "snaptrace symbols --help";
		c->prog = &tool;
		diag_init(check ? "snaptrace check" : "snaptrace symbols");
		c->check = check;
		c->tool = true;
		/* never a recording: a missing PROG is "" (refused); a "--" before
		 * PROG is the options' end, as for any program (opttab.h) */
		if (!check && used + 1 < argc && !strcmp(argv[used + 1], "--"))
			used++;
		if (!check)
			c->symbols = used + 1 < argc ? argv[++used] : "";
		return used;
	}
	for (int i = 1; verbs[i]; i++)
		if (!strcmp(verbs[i], v)) {
			c->verb = (enum rec_cli_verb)i;
			c->mode = REC_CLI_FRONTEND;
			c->prog = c->verb == REC_VERB_RUN ? &frontend_run : &frontend_attach;
			diag_init("snaptrace");
			return used;
		}
	return -1;
}

int rec_cli_parse(int argc, char **argv, struct rec_cli *c)
{
	int skip, operand, r;

	memset(c, 0, sizeof(*c));
	c->rec = (struct rec_opts){
		.mode = REC_MODE_AUTO,
		.timer_res = REC_RES_NORMAL,
		.callgraph = REC_CG_FP,
		.mechanism = REC_MECH_AUTO,
		.sampling_freq = 5000,
		.min_interval_ns = REC_MIN_INTERVAL_NS,
		.arm_after_s = -1,
		.argc = argc,
		.argv = argv,
	};
	c->mode = REC_CLI_RECORDER;
	c->prog = &recorder;
	c->trace = "trace.fxt.gz";
	skip = take_front_end(argc, argv, c);
	if (skip < 0)
		return opt_error(c->prog, "--front-end: expected run, attach, check or symbols, "
				 "found '%s'",
				 argv[1][11] == '=' ? argv[1] + 12 : argv[2]);
	r = opt_parse(c->prog, argc, argv, 1 + skip, c, &operand, NULL);
	if (r >= 0)
		return r;
	c->rec.cmd = argv + operand;
	c->rec.ncmd = argc - operand;
	return check_combination(c);
}

void rec_cli_free(struct rec_cli *c)
{
	free(c->rec.perf_args);
	free(c->convert_args);
	c->rec.perf_args = NULL;
	c->convert_args = NULL;
}
