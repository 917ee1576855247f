/* SPDX-License-Identifier: MIT */
/*
 * snaptrace-record: records a process with perf around a trigger and keeps
 * the moments before it (docs/design.md "The recorder"). Option parsing and the
 * order of the steps live here; the work is in the record/ modules.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "host.h"
#include "plan.h"
#include "procfs.h"
#include "session.h"
#include "trigspec.h"
#include "version.h"

enum {
	OPT_MODE = 256, OPT_MULTI_THREAD, OPT_TIMER_RES, OPT_SNAPSHOT_SIZE, OPT_KERNEL,
	OPT_FULL, OPT_FREQ, OPT_CALLGRAPH, OPT_TRIGGER, OPT_MECH, OPT_MULTI_SNAP,
	OPT_MIN_INTERVAL, OPT_DURATION, OPT_PERF, OPT_PERF_ARG, OPT_DRY_RUN, OPT_CHECK,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "multi-thread", no_argument, NULL, OPT_MULTI_THREAD },
	{ "timer-resolution", required_argument, NULL, OPT_TIMER_RES },
	{ "snapshot-size", required_argument, NULL, OPT_SNAPSHOT_SIZE },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "full-execution", no_argument, NULL, OPT_FULL },
	{ "sampling-freq", required_argument, NULL, OPT_FREQ },
	{ "callgraph", required_argument, NULL, OPT_CALLGRAPH },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "trigger-mechanism", required_argument, NULL, OPT_MECH },
	{ "multi-snapshot", no_argument, NULL, OPT_MULTI_SNAP },
	{ "min-interval", required_argument, NULL, OPT_MIN_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "perf", required_argument, NULL, OPT_PERF },
	{ "perf-arg", required_argument, NULL, OPT_PERF_ARG },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: snaptrace-record [OPTIONS] -- CMD [ARGS...]   launch CMD and record it\n"
"       snaptrace-record [OPTIONS] -p PID[,PID...]    attach to running processes\n"
"       snaptrace-record [OPTIONS] -t TID             attach to one thread\n"
"       snaptrace-record --check                      report what this host offers\n"
"\n"
"Records with perf into a ring buffer and keeps the moments before the trigger.\n"
"\n"
"target:\n"
"  -p, --pid PID[,PID]       attach (the processes keep running afterwards)\n"
"  -t, --tid TID             attach to one thread\n"
"      --multi-thread        trace every thread (default: the main thread only)\n"
"recording:\n"
"  -o, --output DIR          working directory (default ./snaptrace-YYYYmmdd-HHMMSS)\n"
"      --mode MODE           auto (default), pt (Intel PT) or sampling\n"
"      --timer-resolution R  PT timing: low, normal (default) or high\n"
"      --snapshot-size BYTES ring buffer size (K/M/G suffixes; power-of-two pages)\n"
"      --kernel              trace the kernel too (PT: --kcore where perf has it)\n"
"      --full-execution      record everything from the start, no ring buffer\n"
"      --sampling-freq N     sampling mode: samples per second (default 5000)\n"
"      --callgraph MODE      sampling mode: fp (default), dwarf or lbr\n"
"triggers:\n"
"      --trigger SPEC        SYMBOL, LIB:SYMBOL, addr:0xHEX or none (default:\n"
"                            magic_trace_stop_indicator or snaptrace_trigger if present)\n"
"      --trigger-mechanism M auto (default: self-test), breakpoint or uprobe\n"
"      --multi-snapshot      snapshot at every hit, not only the first\n"
"      --min-interval MS     least time between two snapshots (default 100)\n"
"      --duration SECONDS    stop (and snapshot) after this time\n"
"perf:\n"
"      --perf PATH           the perf program (default: perf from PATH)\n"
"      --perf-arg ARG        pass ARG to perf record (repeatable)\n"
"      --dry-run             print the perf command line and exit\n"
"other:\n"
"      --check               print the host report and exit\n"
"  -q, --quiet               print errors only\n"
"  -h, --help, -V, --version\n"
"\n"
"Ctrl-C (SIGINT) or SIGTERM snapshots, stops and keeps the data. The output\n"
"directory holds perf.data files and record.json; snaptrace-convert turns them\n"
"into a trace.\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
	diag_error(fmt, arg);
	fprintf(stderr, "Try '%s --help'.\n", diag_program());
	return EXIT_USAGE;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || *s == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_pids(const char *s, struct rec_opts *o)
{
	const char *p = s;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || (*end && *end != ',') || o->npids >= REC_MAX_PIDS)
			return -EINVAL;
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return o->npids ? 0 : -EINVAL;
}

/* Parses one option; returns -1 to go on, or an exit status. */
static int parse_one(int c, const char *arg, struct rec_opts *o, bool *check)
{
	unsigned u;

	switch (c) {
	case 'p':
		if (parse_pids(arg, o))
			return bad_usage("-p: expected PID[,PID...], found '%s'", arg);
		break;
	case 't':
		if (parse_uint(arg, 1u << 30, &u) || !u)
			return bad_usage("-t: expected a thread id, found '%s'", arg);
		o->tid = (pid_t)u;
		break;
	case 'o': o->outdir = arg; break;
	case OPT_MODE:
		if (!strcmp(arg, "auto")) o->mode = REC_MODE_AUTO;
		else if (!strcmp(arg, "pt")) o->mode = REC_MODE_PT;
		else if (!strcmp(arg, "sampling")) o->mode = REC_MODE_SAMPLING;
		else return bad_usage("--mode: expected auto, pt or sampling, found '%s'", arg);
		break;
	case OPT_MULTI_THREAD: o->multi_thread = true; break;
	case OPT_TIMER_RES:
		if (!strcmp(arg, "low")) o->timer_res = REC_RES_LOW;
		else if (!strcmp(arg, "normal")) o->timer_res = REC_RES_NORMAL;
		else if (!strcmp(arg, "high")) o->timer_res = REC_RES_HIGH;
		else return bad_usage("--timer-resolution: expected low, normal or high, "
				      "found '%s'", arg);
		break;
	case OPT_SNAPSHOT_SIZE:
		if (parse_size(arg, &o->snapshot_size))
			return bad_usage("--snapshot-size: expected BYTES (e.g. 4M), "
					 "found '%s'", arg);
		break;
	case OPT_KERNEL: o->kernel = true; break;
	case OPT_FULL: o->full_execution = true; break;
	case OPT_FREQ:
		if (parse_uint(arg, 1000000, &o->sampling_freq) || !o->sampling_freq)
			return bad_usage("--sampling-freq: expected a rate in Hz, found '%s'", arg);
		break;
	case OPT_CALLGRAPH:
		if (!strcmp(arg, "fp")) o->callgraph = REC_CG_FP;
		else if (!strcmp(arg, "dwarf")) o->callgraph = REC_CG_DWARF;
		else if (!strcmp(arg, "lbr")) o->callgraph = REC_CG_LBR;
		else return bad_usage("--callgraph: expected fp, dwarf or lbr, found '%s'", arg);
		break;
	case OPT_TRIGGER: o->trigger = arg; break;
	case OPT_MECH:
		if (!strcmp(arg, "auto")) o->mechanism = REC_MECH_AUTO;
		else if (!strcmp(arg, "breakpoint")) o->mechanism = REC_MECH_BREAKPOINT;
		else if (!strcmp(arg, "uprobe")) o->mechanism = REC_MECH_UPROBE;
		else return bad_usage("--trigger-mechanism: expected auto, breakpoint or "
				      "uprobe, found '%s'", arg);
		break;
	case OPT_MULTI_SNAP: o->multi_snapshot = true; break;
	case OPT_MIN_INTERVAL:
		if (parse_uint(arg, 86400000, &o->min_interval_ms))
			return bad_usage("--min-interval: expected milliseconds, found '%s'", arg);
		break;
	case OPT_DURATION: {
		char *end;

		o->duration_s = strtod(arg, &end);
		if (end == arg || *end || o->duration_s <= 0)
			return bad_usage("--duration: expected seconds > 0, found '%s'", arg);
		break;
	}
	case OPT_PERF: o->perf_path = arg; break;
	case OPT_PERF_ARG: {
		const char **v = realloc(o->perf_args, (size_t)(o->nperf_args + 1) * sizeof(*v));

		if (!v)
			return EXIT_RUNTIME;
		o->perf_args = v;
		o->perf_args[o->nperf_args++] = arg;
		break;
	}
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_CHECK: *check = true; break;
	case 'q': o->quiet = true; break;
	case 'h': usage(stdout); return EXIT_OK;
	case 'V': printf("snaptrace-record %s\n", SNAPTRACE_VERSION); return EXIT_OK;
	default: fprintf(stderr, "Try '%s --help'.\n", diag_program()); return EXIT_USAGE;
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct rec_opts *o, bool *check)
{
	int c, targets;

	while ((c = getopt_long(argc, argv, "+p:t:o:qhV", long_opts, NULL)) != -1) {
		int r = parse_one(c, optarg, o, check);

		if (r >= 0)
			return r;
	}
	o->cmd = argv + optind;
	o->ncmd = argc - optind;
	if (*check)
		return -1;
	targets = (o->ncmd > 0) + (o->npids > 0) + (o->tid > 0);
	if (targets != 1)
		return bad_usage("%s", targets ? "expected one target: -- CMD, -p PID or -t TID; "
				 "found several" : "expected a target: -- CMD, -p PID or -t TID");
	if (o->full_execution && o->multi_snapshot)
		return bad_usage("%s", "--full-execution records everything once: it does not "
				 "go with --multi-snapshot");
	return -1;
}

/* The -t/-p part of perf's command line for the target(s). */
static void target_args(const struct rec_opts *o, const pid_t *pids, int npids,
			const char **flag, char *list, size_t size)
{
	size_t len = 0;

	*flag = o->multi_thread && !o->tid ? "-p" : "-t";
	list[0] = '\0';
	if (o->tid) {
		snprintf(list, size, "%d", (int)o->tid);
		return;
	}
	if (!npids) {
		snprintf(list, size, "PID");   /* --dry-run of a launch */
		return;
	}
	for (int i = 0; i < npids && len < size; i++)
		len += (size_t)snprintf(list + len, size - len, "%s%d", i ? "," : "", (int)pids[i]);
}

static bool outdir_created;

static int make_outdir(const struct rec_opts *o, char *out, size_t size)
{
	char path[PATH_MAX + 16];
	struct stat st;

	if (o->outdir) {
		snprintf(out, size, "%s", o->outdir);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(out, size, "snaptrace-%Y%m%d-%H%M%S", &tm);
	}
	if (mkdir(out, 0755) == 0) {
		outdir_created = true;
	} else if (errno != EEXIST) {
		diag_error("%s: cannot create the output directory: %s", out, strerror(errno));
		return -1;
	}
	if (stat(out, &st) || !S_ISDIR(st.st_mode)) {
		diag_error("%s: expected a directory, found a file", out);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/record.json", out);
	if (!access(path, F_OK)) {
		diag_error("%s: expected a new directory, found an earlier recording "
			   "(record.json); choose another -o", out);
		return -1;
	}
	return 0;
}

/* Picks the trigger mechanism; returns it, or REC_MECH_AUTO when none works. */
static enum rec_mechanism pick_mechanism(const struct rec_opts *o, const struct rec_host *h)
{
	int bp, up;

	if (o->mechanism != REC_MECH_AUTO)
		return o->mechanism;
	rec_trigger_selftest(h->uprobe_type, &bp, &up);
	return rec_check_pick_mechanism(bp, up);
}

static int dry_run(const struct rec_opts *o, const struct rec_host *h)
{
	struct rec_plan plan;
	char list[256], line[8192];
	const char *flag;
	int err;

	target_args(o, o->pids, o->npids, &flag, list, sizeof(list));
	err = rec_plan_build(o, h, flag, list, "snaptrace-DIR/perf.data", &plan);
	if (err) {
		diag_error("cannot build the perf command line: %s", strerror(-err));
		return EXIT_USAGE;
	}
	for (int i = 0; i < plan.nnotes; i++)
		diag_info("note: %s", plan.notes[i]);
	printf("%s\n", rec_plan_format(&plan, line, sizeof(line)));
	return EXIT_OK;
}

/* Checks what recording needs before anything starts. Returns -1 or an exit status. */
static int preflight(const struct rec_opts *o, const struct rec_host *h)
{
	char why[256];

	if (!h->perf_path[0]) {
		diag_error("perf: expected the perf program, found none ('%s' not in PATH); "
			   "install linux-perf or pass --perf PATH",
			   o->perf_path ? o->perf_path : "perf");
		return EXIT_RUNTIME;
	}
	if (!h->perf_runs) {
		diag_error("%s: expected `perf --version` to work, it failed", h->perf_path);
		return EXIT_RUNTIME;
	}
	if (rec_host_lacks_permission(h, o->kernel, why, sizeof(why))) {
		diag_error("no permission to record: %s", why);
		return EXIT_RUNTIME;
	}
	if (o->mode == REC_MODE_PT && !h->has_intel_pt) {
		diag_error("--mode pt: expected Intel PT (/sys/bus/event_source/devices/intel_pt), "
			   "found none; use --mode sampling or auto");
		return EXIT_RUNTIME;
	}
	return -1;
}

/* Resolves the target and the trigger; launches a command (stopped). */
static int prepare_target(struct rec_session *s, const struct rec_opts *o)
{
	char why[1024], path[PATH_MAX];
	pid_t bad = 0;
	int err;

	if (o->ncmd) {
		if (rec_find_program(o->cmd[0], path, sizeof(path))) {
			diag_error("%s: expected an executable program, found none", o->cmd[0]);
			return EXIT_USAGE;
		}
		snprintf(s->exe, sizeof(s->exe), "%s", path);
	} else {
		err = rec_target_attach(&s->target, o->pids, o->npids, o->tid, &bad);
		if (err) {
			diag_error("%s %d: expected a running %s, found none", o->tid ? "-t" : "-p",
				   (int)bad, o->tid ? "thread" : "process");
			return EXIT_RUNTIME;
		}
		if (!realpath(s->target.exe, s->exe))
			snprintf(s->exe, sizeof(s->exe), "%s", s->target.exe);
	}
	/* attached: read /proc/PID/exe, which works for a deleted or replaced file */
	err = rec_trigspec_resolve(o->trigger, o->ncmd ? s->exe : s->target.exe,
				   o->ncmd ? 0 : s->target.pids[0], &s->loc, why, sizeof(why));
	if (err < 0) {
		diag_error("--trigger: %s", why);
		return err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	s->have_trigger = err == 0;
	if (s->have_trigger) {
		s->mech = pick_mechanism(o, s->h);
		if (s->mech == REC_MECH_AUTO) {
			diag_error("trigger: expected a breakpoint or a uprobe to fire in the "
				   "self-test, neither did (see --check); use --trigger none");
			return EXIT_RUNTIME;
		}
	} else if (!o->trigger) {
		diag_info("no trigger symbol (magic_trace_stop_indicator, snaptrace_trigger) in "
			  "%s: recording until Ctrl-C, exit%s", s->exe,
			  o->duration_s > 0 ? " or --duration" : "");
	}
	if (o->ncmd) {
		err = rec_target_launch(&s->target, s->exe, o->cmd);
		if (err) {
			diag_error("%s: cannot run: %s", o->cmd[0], strerror(-err));
			return EXIT_RUNTIME;
		}
	}
	return -1;
}

static void print_summary(const struct rec_session *s)
{
	/* the front end converts the files and says where the trace is */
	if (getenv("SNAPTRACE_FRONTEND")) {
		diag_info("%d snapshot%s (end: %s)", s->nsnaps, s->nsnaps == 1 ? "" : "s",
			  rec_end_name(s->end));
		return;
	}
	diag_info("%d snapshot%s in %s (end: %s)", s->nsnaps, s->nsnaps == 1 ? "" : "s",
		  s->outdir, rec_end_name(s->end));
	for (int i = 0; i < s->nsnaps; i++)
		diag_info("  %s/%s (%s)", s->outdir, s->snaps[i].file,
			  rec_end_name(s->snaps[i].reason));
}

static int record(struct rec_opts *o, const struct rec_host *h, int sigfd)
{
	static struct rec_session s;
	char list[256], data[PATH_MAX + 16];
	const char *flag;
	int r, err;

	s.o = o;
	s.h = h;
	s.sigfd = sigfd;
	if (make_outdir(o, s.outdir, sizeof(s.outdir)))
		return EXIT_RUNTIME;
	r = prepare_target(&s, o);
	if (r >= 0) {
		if (outdir_created)
			rmdir(s.outdir);
		return r;
	}
	target_args(o, s.target.pids, s.target.npids, &flag, list, sizeof(list));
	if (o->tid)
		flag = "-t";
	snprintf(data, sizeof(data), "%s/perf.data", s.outdir);
	err = rec_plan_build(o, h, flag, list, data, &s.plan);
	if (err) {
		rec_target_finish(&s.target);
		diag_error("cannot build the perf command line: %s", strerror(-err));
		return EXIT_USAGE;
	}
	if (o->mode == REC_MODE_AUTO)
		diag_info("mode: %s", s.plan.mode == REC_MODE_PT ? "Intel PT" :
			  "sampling (no Intel PT on this host)");
	for (int i = 0; i < s.plan.nnotes; i++)
		diag_info("note: %s", s.plan.notes[i]);
	if (s.have_trigger)
		diag_info("trigger: %s (%s) by %s", s.loc.spec, s.loc.file,
			  rec_mechanism_name(s.mech));
	err = rec_session_run(&s);
	if (err && s.end == REC_END_NONE) {
		diag_error("%s", s.error);
		if (outdir_created)
			rmdir(s.outdir);   /* only when empty */
		return EXIT_RUNTIME;
	}
	if (rec_report_write(&s))
		diag_warn("%s/record.json: cannot write it", s.outdir);
	if (err) {
		diag_error("%s", s.error);
		return EXIT_RUNTIME;
	}
	print_summary(&s);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct rec_opts o = {
		.mode = REC_MODE_AUTO,
		.timer_res = REC_RES_NORMAL,
		.callgraph = REC_CG_FP,
		.mechanism = REC_MECH_AUTO,
		.sampling_freq = 5000,
		.min_interval_ms = 100,
		.argc = argc,
		.argv = argv,
	};
	static struct rec_host h;
	bool check = false;
	sigset_t set;
	int r, sigfd;

	diag_init(argv[0]);
	r = parse_args(argc, argv, &o, &check);
	if (r >= 0)
		goto out;
	diag_set_quiet(o.quiet);
	rec_host_probe(&h, o.perf_path);
	if (check) {
		r = rec_check_print(stdout, &h) ? EXIT_RUNTIME : EXIT_OK;
		goto out;
	}
	if (o.dry_run) {
		r = dry_run(&o, &h);
		goto out;
	}
	r = preflight(&o, &h);
	if (r >= 0)
		goto out;
	/* signals arrive through a signalfd; children unblock them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		diag_error("signalfd: %s", strerror(errno));
		r = EXIT_RUNTIME;
		goto out;
	}
	r = record(&o, &h, sigfd);
	close(sigfd);
out:
	free(o.perf_args);
	return r;
}
