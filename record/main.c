/* SPDX-License-Identifier: MIT */
/*
 * snaptrace-record: records a process with perf around a trigger and keeps
 * the moments before it (docs/design.md "The recorder"). The order of the
 * steps lives here; the options are in cli.c, the work in the other record/
 * modules, and `snaptrace run|attach` (--front-end) in frontend.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catchprobe.h"
#include "check.h"
#include "events.h"
#include "cli.h"
#include "demangle.h"
#include "elfsym.h"
#include "diag.h"
#include "frontend.h"
#include "hitsline.h"
#include "host.h"
#include "run.h"
#include "inpath.h"
#include "outpath.h"
#include "perfdata.h"
#include "plan.h"
#include "procfs.h"
#include "procpick.h"
#include "report.h"
#include "session.h"
#include "signals.h"
#include "symbols.h"
#include "trigspec.h"
#include "unwinder.h"

/* The -t/-p part of perf's command line for the target(s). */
static void target_args(const struct rec_opts *o, const pid_t *pids, int npids,
			const char **flag, char *list, size_t size)
{
	size_t len = 0;

	*flag = rec_opts_children(o) ? "-p" : "-t";
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

/* Names with a random suffix tried after the dated one (make_outdir()). */
#define OUTDIR_TRIES 8

/*
 * Opens the recording directory O->outdir (or a new dated one) into S: its
 * name in S->outdir, its descriptor in S->outdir_fd (outpath_dir()); FLAG
 * is the option that names it (-o, or the front end's -d). Returns -1, or
 * an exit status after a one-line error: a usage error for a name that is
 * no directory, holds something already, is another user's or can never be
 * written (outpath_dir()), a runtime failure when it cannot be created
 * otherwise. The dated name not to be had (made first by anybody who may
 * write the current directory) is said in a warning, and the recording goes
 * into that name with an unpredictable suffix.
 */
static int make_outdir(const struct rec_opts *o, const char *flag, struct rec_session *s)
{
	char err[PATH_MAX + 256], taken[PATH_MAX + 256] = "", dated[64];
	size_t n;

	if (o->outdir) {
		snprintf(s->outdir, sizeof(s->outdir), "%s", o->outdir);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(dated, sizeof(dated), "snaptrace-%Y%m%d-%H%M%S", &tm);
		snprintf(s->outdir, sizeof(s->outdir), "%s", dated);
	}
	s->outdir_fd = outpath_dir(o->outdir ? flag : NULL, s->outdir, &outdir_created, err,
				   sizeof(err));
	/* the dated name is anybody's to make first (another user's, in /tmp):
	 * a name with an unpredictable suffix then, said */
	for (int i = 0; !o->outdir && s->outdir_fd < 0 && i < OUTDIR_TRIES; i++) {
		if (!taken[0])
			snprintf(taken, sizeof(taken), "%s", err);
		n = (size_t)snprintf(s->outdir, sizeof(s->outdir), "%s-", dated);
		if (outpath_random(s->outdir + n, 8))
			break;
		s->outdir_fd = outpath_dir(NULL, s->outdir, &outdir_created, err, sizeof(err));
	}
	if (s->outdir_fd < 0) {
		diag_error("%s", taken[0] ? taken : err);
		/* the name the user gave is wrong; the default name is taken */
		return o->outdir && (s->outdir_fd == -ENOTDIR || s->outdir_fd == -ENOTEMPTY ||
				     s->outdir_fd == -EPERM || s->outdir_fd == -EACCES ||
				     s->outdir_fd == -EROFS) ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (taken[0])
		diag_warn("%s; recording into %s instead", taken, s->outdir);
	return -1;
}

/* Picks the trigger mechanism; returns it, or REC_MECH_AUTO when none works. */
static enum rec_mechanism pick_mechanism(const struct rec_opts *o, const struct rec_host *h)
{
	int bp, up;

	rec_trigger_selftest(h->uprobe_type, &bp, &up);
	if (o->mechanism == REC_MECH_AUTO)
		return rec_check_pick_mechanism(bp, up);
	/* asked for: kept, but said when the self-test saw it not fire */
	if ((o->mechanism == REC_MECH_BREAKPOINT ? bp : up) != 1)
		diag_warn("--trigger-mechanism %s: it did not fire in the start-up self-test "
			  "on this host (see --check): the trigger will likely never fire%s",
			  rec_mechanism_name(o->mechanism),
			  (o->mechanism == REC_MECH_BREAKPOINT ? up : bp) == 1 ?
			  (o->mechanism == REC_MECH_BREAKPOINT ? "; --trigger-mechanism uprobe does"
			   : "; --trigger-mechanism breakpoint does") : "");
	return o->mechanism;
}

/* Resolves --callgraph auto in O for the executable EXE (in sampling mode). */
static void pick_callgraph(struct rec_opts *o, const struct rec_host *h, const char *exe)
{
	char why[PATH_MAX + 256];
	enum rec_mode mode = o->mode == REC_MODE_AUTO ? rec_host_auto_mode(h) : o->mode;

	if (o->callgraph != REC_CG_AUTO)
		return;
	o->callgraph = REC_CG_FP;
	if (mode != REC_MODE_SAMPLING)
		return;
	o->callgraph = rec_callgraph_pick(exe, why, sizeof(why));
	diag_info("%s", why);
}

/* Checks what recording needs before anything starts. Returns -1 or an exit status. */
static int preflight(const struct rec_opts *o, const struct rec_host *h)
{
	char why[256];

	if (!h->perf_path[0]) {
		diag_error("perf: expected the perf program, found %s ('%s'%s); install "
			   "linux-perf or pass --perf PATH", run_found(h->perf_found), h->perf_want,
			   h->perf_found != -ENOENT ? "" : strchr(h->perf_want, '/') ?
			   " does not exist" : " not in PATH");
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
	if (rec_host_refuses(h, o, why, sizeof(why)) ||
	    !rec_events_usable(h->perf_path, o, why, sizeof(why))) {
		diag_error("%s", why);
		return EXIT_USAGE;
	}
	if (o->mode == REC_MODE_PT && !h->has_intel_pt) {
		/* what the host lacks for an option asked is a usage error, as
		 * rec_host_refuses() says for --callgraph lbr and --sampling-freq */
		diag_error("--mode pt: expected Intel PT (/sys/bus/event_source/devices/intel_pt), "
			   "found none; use --mode sampling or auto");
		return EXIT_USAGE;
	}
	return -1;
}

/* The name a user knows LOC's function by: its demangled symbol ("f(int)"
 * for _Z1fi) into BUF (SIZE bytes), else the spec that named it. */
static const char *loc_name(const struct rec_trigger_loc *loc, char *buf, size_t size)
{
	if (!loc->symbol[0])
		return loc->spec;
	demangle_name(loc->symbol, buf, size);
	return buf;
}

/* Says which clone OPT's function name chose when the binary has only gcc's
 * clones of it (LOC->clone). */
static void say_clone(const char *opt, const struct rec_trigger_loc *loc)
{
	char name[1024];

	if (loc->clone)
		diag_info("%s: %s has that function only as the clone gcc made of it "
			  "(its calls enter it as they would the function): using %s", opt,
			  loc->file, loc_name(loc, name, sizeof(name)));
}

/*
 * OPT (--trigger-slower-than, or --measure) needs LOC at a function's first
 * instruction (each hit a call) and the places its calls leave it
 * (callexits.h), found into *X with the C++ runtime's catch entry of the
 * target (catchprobe.h: where a call left by an exception ends); WHAT names
 * LOC's kind ("a trigger", "a function") and NAMED the option that takes a
 * function (--trigger, --measure). An attached program's executable is read
 * through /proc/PID/exe, as its uprobes are. Returns -1, EXIT_USAGE or
 * EXIT_RUNTIME (the file is unreadable).
 */
/*
 * Says when calls of LOC's function may leave it by a jump out (a tail call)
 * and end at the jump, not when the function jumped to returns: the calls
 * whose return site is not watched (callsites.h). Said only where it is
 * true: no direct call of it in its file was found (it is called through
 * pointers or from other files), or some direct calls are not watched; with
 * every direct call watched, only the calls through a pointer or from
 * another file end so, and the summary counts them (trial 10: a handler
 * ending in `jmp busy` measured 0.07 ms where its work took 21 ms, without
 * a word).
 */
static void tail_calls_said(const char *opt, const struct rec_trigger_loc *loc,
			    const struct rec_callexits *x)
{
	const struct rec_callsites *cs = &x->sites;
	const struct rec_callexit *jump = NULL;
	const char *name = loc->symbol[0] ? loc->symbol : loc->spec;

	for (int i = 0; i < x->n && !jump; i++)
		if (x->exit[i].kind == REC_CALLEXIT_JMP || x->exit[i].kind == REC_CALLEXIT_JCC)
			jump = &x->exit[i];
	if (!jump)
		return;
	if (!cs->n)
		diag_warn("%s: %s leaves by jumps out (tail calls, the first at 0x%" PRIx64
			  "), and no direct call of it was found in %s (it is called through "
			  "pointers or from other files): a call that leaves so ends at the jump, "
			  "not when the function jumped to returns; to time that too, name that "
			  "function", opt, name, jump->vaddr, loc->file);
	else if (cs->more || cs->unprobed)
		diag_warn("%s: %s leaves by jumps out (tail calls, the first at 0x%" PRIx64
			  "): a call from its %d direct call sites followed that leaves so "
			  REC_SLOW_TAIL_END "; from the others (%s), at the jump", opt, name,
			  jump->vaddr, cs->n,
			  cs->more ? "past the first ones" : "whose next instruction the kernel's "
			  "uprobes cannot probe");
}

static int function_exits(const struct rec_session *s, const char *opt, const char *what,
			  const char *named, const struct rec_trigger_loc *loc,
			  struct rec_callexits *x)
{
	char why[1024];
	int err;

	if (!loc->entry && loc->symbol[0]) {
		diag_error("%s: expected %s at a function's entry, found '%s' at 0x%" PRIx64
			   " inside %s; name the function: %s %s", opt, what, loc->spec, loc->vaddr,
			   loc->symbol, named, loc->symbol);
		return EXIT_USAGE;
	}
	if (!loc->entry && loc->func_vaddr) {
		diag_error("%s: expected %s at a function's entry, found '%s' at 0x%" PRIx64
			   " inside the function at 0x%" PRIx64 "; give its start: %s addr:0x%"
			   PRIx64, opt, what, loc->spec, loc->vaddr, loc->func_vaddr, named,
			   loc->func_vaddr);
		return EXIT_USAGE;
	}
	if (!loc->entry) {
		diag_error("%s: expected %s at a function's entry, found '%s' at 0x%" PRIx64
			   ", in no function", opt, what, loc->spec, loc->vaddr);
		return EXIT_USAGE;
	}
	err = rec_callexits_find(loc->probe, loc->file, loc->vaddr, x, why, sizeof(why));
	if (err && err != -ENOENT) {
		diag_error("%s: %s", opt, why);
		return err == -EINVAL || err == -EOPNOTSUPP ? EXIT_USAGE : EXIT_RUNTIME;
	}
	tail_calls_said(opt, loc, x);
	x->catch_loc = rec_catch_find(s->o->ncmd ? s->exe : s->target.exe,
				      s->o->ncmd ? 0 : s->target.pids[0]);
	/* no exit: its calls end at the catch of the exception that leaves it,
	 * in a binary where exceptions are thrown */
	if (err == -ENOENT && (!x->catch_loc || !rec_elf_cxx_exceptions(loc->probe))) {
		diag_error("%s: %s; %s uses no C++ exceptions: nothing to measure", opt, why,
			   loc->file);
		rec_callexits_free(x);
		return EXIT_USAGE;
	}
	if (err == -ENOENT)
		diag_warn("%s: %s leaves only by exceptions: each call is measured to the "
			  "catch of the exception that leaves it (a longjmp out is not seen)",
			  opt, loc_name(loc, why, sizeof(why)));
	return -1;
}

/*
 * --trigger-slower-than needs a function trigger: its exits into
 * S->callexits. Returns -1, EXIT_USAGE or EXIT_RUNTIME.
 */
static int check_slow_call(struct rec_session *s, const struct rec_opts *o)
{
	if (!o->slower_than_ns)
		return -1;
	if (!s->have_trigger) {
		diag_error("--trigger-slower-than: expected a function trigger (--trigger NAME), "
			   "found %s", s->sig_trigger ? "a signal" : o->trigger ? "--trigger none" :
			   "no default stop indicator");
		return EXIT_USAGE;
	}
	return function_exits(s, "--trigger-slower-than", "a trigger", "--trigger", &s->loc,
			      &s->callexits);
}

/*
 * Each --measure FUNC resolved (as a trigger is) to a function's entry and
 * its exits, into S->measures; the slow-call trigger's own function shares
 * its probes. The uprobe must fire here (the self-test). Returns -1,
 * EXIT_USAGE or EXIT_RUNTIME.
 */
static int resolve_measures(struct rec_session *s, const struct rec_opts *o)
{
	char why[1024], opt[300];
	int bp, up, err, r;

	if (!o->nmeasure)
		return -1;
	rec_trigger_selftest(s->h->uprobe_type, &bp, &up);
	if (up != 1) {
		diag_error("--measure: expected the uprobe to fire in the self-test (uprobes "
			   "watch the calls), it did not (see --check)");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < o->nmeasure; i++) {
		struct rec_trigger_loc loc;
		struct rec_callexits exits = { 0 };
		struct rec_measure *m = &s->measures[i];

		snprintf(opt, sizeof(opt), "--measure %s", o->measure[i]);
		err = rec_trigspec_resolve(o->measure[i], o->ncmd ? s->exe : s->target.exe,
					   o->ncmd ? 0 : s->target.pids[0], &loc, why, sizeof(why));
		if (err == REC_TRIGSPEC_NONE || rec_trigspec_signal(o->measure[i])) {
			diag_error("%s: expected a function, found none", opt);
			return EXIT_USAGE;
		}
		if (err < 0) {
			diag_error("%s: %s", opt, why);
			return err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		}
		say_clone(opt, &loc);
		for (int k = 0; k < i; k++)
			if (!strcmp(s->measures[k].loc.file, loc.file) &&
			    s->measures[k].loc.file_offset == loc.file_offset) {
				char name[512];

				diag_error("%s: expected each function once, found %s measured "
					   "already (--measure %s)", opt,
					   loc_name(&loc, name, sizeof(name)), o->measure[k]);
				return EXIT_USAGE;
			}
		r = function_exits(s, opt, "a function", "--measure", &loc, &exits);
		if (r >= 0)
			return r;
		rec_measure_init(m, o->measure[i], &loc, &exits);
		s->nmeasures++;
		m->shared = o->slower_than_ns && s->have_trigger &&
			    !strcmp(s->loc.file, loc.file) && s->loc.file_offset == loc.file_offset;
	}
	return -1;
}

/* The program to launch (its path in S->exe), or the processes to attach
 * to (S->target). Returns -1 to go on, else the exit status after an error. */
static int find_target(struct rec_session *s, const struct rec_opts *o)
{
	char path[PATH_MAX];
	pid_t bad = 0;
	int err;

	if (o->ncmd) {
		err = run_find_program(o->cmd[0], path, sizeof(path));
		if (err) {
			diag_error("%s: expected an executable program, found %s", o->cmd[0],
				   run_found(err));
			return EXIT_USAGE;
		}
		snprintf(s->exe, sizeof(s->exe), "%s", path);
	} else {
		err = rec_target_attach(&s->target, o->pids, o->npids, o->tid,
					s->picked.pid ? &s->picked : NULL, &bad);
		rec_proc_release(&s->picked);
		if (err == -EPERM) {
			char comm[32] = "?";

			rec_proc_comm(bad, bad, comm, sizeof(comm));
			diag_error("%s %d: expected a user process, found a kernel thread (%s): "
				   "no code of it runs in user space, where snaptrace records",
				   o->tid ? "-t" : "-p", (int)bad, comm);
			return EXIT_USAGE;
		}
		if (err && s->picked.pid) {
			diag_error("attach: process %d ended since it was picked (its pid may be "
				   "another process's now): not attached", (int)bad);
			return EXIT_RUNTIME;
		}
		if (err) {
			diag_error("%s %d: expected a running %s, found none", o->tid ? "-t" : "-p",
				   (int)bad, o->tid ? "thread" : "process");
			return EXIT_RUNTIME;
		}
		/* another mount namespace's path names another file here */
		if (!rec_proc_same_mntns(s->target.pids[0]) ||
		    !rec_proc_exe_name(s->target.exe, s->exe, sizeof(s->exe)))
			snprintf(s->exe, sizeof(s->exe), "%s", s->target.exe);
	}
	return -1;
}

/* The command string of a launched `SHELL -c COMMAND` (target.h), or NULL. */
static const char *shell_command(const struct rec_session *s)
{
	return s->o->ncmd ? rec_target_shell_command(s->exe, s->o->cmd) : NULL;
}

/* What S's probes are, as the subject of "watch": "the trigger watches",
 * "--measure watches" or "the trigger and --measure watch" (a function
 * trigger; a signal's is no probe). */
static const char *probes_watch(const struct rec_session *s)
{
	bool trigger = s->have_trigger && !s->sig_trigger;

	return trigger && s->nmeasures ? "the trigger and --measure watch" :
	       trigger ? "the trigger watches" : "--measure watches";
}

/*
 * Resolves the trigger (a signal, a function, or none), the slow-call
 * trigger's exits, each --measure and the probe mechanism for the target
 * found (S->exe, S->target): the real run and --dry-run both, so a dry run
 * refuses what the recording would. Returns -1 to go on, else the exit
 * status after an error.
 */
static int resolve_probes(struct rec_session *s, const struct rec_opts *o)
{
	char why[1024], opt[320];
	int err, r;

	s->sig_trigger = rec_trigspec_signal(o->trigger);
	if (s->sig_trigger < 0) {
		diag_error("--trigger %s: expected a signal name or number after 'signal:' "
			   "(SIGSEGV, SEGV, usr1, 11), found '%s'", o->trigger, o->trigger + 7);
		return EXIT_USAGE;
	}
	/* attached: read /proc/PID/exe, which works for a deleted or replaced file */
	err = s->sig_trigger ? REC_TRIGSPEC_NONE : rec_trigspec_resolve(o->trigger, o->ncmd ? s->exe : s->target.exe,
				   o->ncmd ? 0 : s->target.pids[0], &s->loc, why, sizeof(why));
	if (err < 0) {
		bool shell = shell_command(s) != NULL;

		diag_error("--trigger %s: %s%s%s%s", o->trigger ? o->trigger : s->loc.spec, why,
			   shell ? "; the shell runs its command in a child process, whose "
			   "functions are not looked for: give the program itself (snaptrace run -- "
			   "PROG ARGS) or `" : "", shell ? o->cmd[0] : "",
			   shell ? " -c 'exec PROG ARGS'`" : "");
		return err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	s->have_trigger = err == 0;
	if (s->have_trigger) {
		snprintf(opt, sizeof(opt), "--trigger %s", s->loc.spec);
		say_clone(opt, &s->loc);
	}
	r = check_slow_call(s, o);
	if (r < 0)
		r = resolve_measures(s, o);
	if (r >= 0)
		return r;
	if (s->have_trigger) {
		s->mech = pick_mechanism(o, s->h);
		if (s->mech == REC_MECH_AUTO) {
			diag_error("trigger: expected a breakpoint or a uprobe to fire in the "
				   "self-test, neither did (see --check); use --trigger none");
			return EXIT_RUNTIME;
		}
		if (o->slower_than_ns && s->mech != REC_MECH_UPROBE) {
			diag_error("--trigger-slower-than: expected the uprobe to fire in the "
				   "self-test (uprobes watch the returns), it did not (see "
				   "--check)");
			return EXIT_RUNTIME;
		}
	} else if (s->sig_trigger) {
		snprintf(s->loc.spec, sizeof(s->loc.spec), "%s", o->trigger);
	} else if (!o->trigger) {
		/* the options that act on trigger hits, in a recording without
		 * any (with --trigger none they are usage errors: cli.c) */
		const struct { bool given; const char *option, *does; } on_hits[] = {
			{ o->arm_after_s >= 0, "--arm-after", "it delays the trigger" },
			{ o->multi_snapshot, "--multi-snapshot", "it takes a snapshot at each "
			  "trigger hit" },
		};

		/* how to stop is said once recording has started (session.c): said
		 * now, before perf runs, a stop would find nothing recorded yet */
		diag_info("no trigger symbol (magic_trace_stop_indicator, snaptrace_trigger) in "
			  "%s: one snapshot, at the recording's end", s->exe);
		for (size_t i = 0; i < sizeof(on_hits) / sizeof(on_hits[0]); i++)
			if (on_hits[i].given)
				diag_warn("%s is ignored: %s, and %s has no trigger symbol (one "
					  "snapshot at the end)", on_hits[i].option, on_hits[i].does,
					  s->exe);
	}
	/* perf follows the children; the probes count the targets' own hits
	 * (trigger.h: other processes' are dropped) */
	if (o->multi_thread && ((s->have_trigger && !s->sig_trigger) || s->nmeasures))
		diag_info("note: --multi-thread records the processes %s forks too, but %s "
			  "only %s: a call in a child process is not seen (to watch one, record "
			  "the child's program itself)", o->ncmd ? "the program" : "each one attached to",
			  probes_watch(s), o->ncmd ? "the launched process" : "the processes attached to");
	return -1;
}

/* Frees what resolve_probes() found: the measures and the slow-call
 * trigger's exits. */
static void free_probes(struct rec_session *s)
{
	for (int i = 0; i < s->nmeasures; i++)
		rec_measure_free(&s->measures[i]);
	s->nmeasures = 0;
	rec_callexits_free(&s->callexits);
	if (s->have_trigger && s->loc.probe_fd >= 0)
		close(s->loc.probe_fd);
	s->have_trigger = false;
}

/* Says the trigger S has (resolve_probes()), as the recording's start-up
 * line and the dry run's. */
static void say_trigger(const struct rec_session *s)
{
	char name[SIG_NAME_MAX];

	if (s->sig_trigger)
		diag_info("trigger: the program receiving %s",
			  sig_name(s->sig_trigger, name, sizeof(name)));
	else if (s->have_trigger)
		diag_info("trigger: %s (%s) by %s", s->loc.spec, s->loc.file,
			  rec_mechanism_name(s->mech));
}

/* Resolves the target and the trigger; launches a command (stopped). */
static int prepare_target(struct rec_session *s, const struct rec_opts *o)
{
	int err, r = find_target(s, o);

	if (r >= 0)
		return r;
	r = resolve_probes(s, o);
	if (r >= 0)
		return r;
	if (o->ncmd) {
		err = rec_target_launch(&s->target, s->exe, o->cmd);
		if (err == -ECHILD) {
			/* it ended before its exec: a signal to the process group
			 * while starting (Ctrl-C), or to it alone, not a program
			 * that cannot run (its exec's failure is said below) */
			char how[96];

			diag_error("%s: not run: it %s before its exec, as the recording started: "
				   "nothing recorded", o->cmd[0],
				   run_status_words(run_status_of(s->target.status), how,
						    sizeof(how)));
			return EXIT_RUNTIME;
		}
		if (err) {
			char why[256];

			diag_error("%s: cannot run: %s", o->cmd[0],
				   rec_target_launch_words(&s->target, err, s->exe, why,
							   sizeof(why)));
			return EXIT_RUNTIME;
		}
	}
	return -1;
}

/* Of the CALLS of function NAME counted, those U counted in threads the trace
 * does not hold, said with their threads: the summary's numbers are of the
 * process, the trace shows only the threads recorded. */
static void warn_unrecorded_calls(const struct rec_session *s, const char *name,
				  const struct rec_unrecorded *u, uint64_t calls)
{
	char text[256];

	if (u->n)
		diag_warn("%s: %" PRIu64 " of the %" PRIu64 " call%s %s %s", name, u->n,
			  calls, diag_s(calls), u->n == 1 ? "was" : "were",
			  rec_unrecorded_text(u, &s->recorded, text, sizeof(text)));
}

/* Says that UNTRACKED calls of WHAT were not followed (slowcall.h: deeper
 * than REC_SLOW_DEPTH calls of it in one thread, recursion; more than
 * REC_SLOW_THREADS threads in it at once; out of memory), so no count
 * or duration holds them. */
static void warn_untracked(const char *what, uint64_t untracked)
{
	if (untracked)
		diag_warn("%s: %" PRIu64 " call%s not measured: more than %d calls of it in one "
			  "thread at once (recursion), or more than %d threads in it at once: no "
			  "count or duration holds %s", what, untracked, diag_s(untracked),
			  REC_SLOW_DEPTH, REC_SLOW_THREADS, untracked == 1 ? "it" : "them");
}

/* Says that the kernel dropped LOST samples of WHAT's probes (their ring
 * was full: the recorder did not read it in time) and what the samples
 * lost mean, SO (a clause). */
static void warn_lost(const char *what, uint64_t lost, const char *so)
{
	if (lost)
		diag_warn("%s: %" PRIu64 " sample%s of its probes lost (their ring was full: the "
			  "machine was too busy for the recorder to read it in time): %s", what,
			  lost, diag_s(lost), so);
}

/* Says that TAIL_AT_JUMP of the CALLS of WHAT left by a tail call from a
 * caller whose return site is not watched (callsites.h), so each was
 * measured to the jump only. */
static void warn_tail_at_jump(const char *what, uint64_t tail_at_jump, uint64_t calls)
{
	if (tail_at_jump)
		diag_warn("%s: %" PRIu64 " of the %" PRIu64 " call%s left by a tail call from a "
			  "caller not followed (a call through a pointer, or from another file): "
			  "%s measured to the jump, not to when the function jumped to returned",
			  what, tail_at_jump, calls, diag_s(calls),
			  tail_at_jump == 1 ? "it is" : "they are");
}

/* The slow-call trigger's account: the calls measured, the slow ones, the first. */
static void print_slow_calls(const struct rec_session *s)
{
	const struct rec_hit *first = s->nhits ? &s->hits[0].hit : NULL;
	char name[512], thrown[64] = "", tail[96] = "";

	if (!s->o->slower_than_ns || !s->have_trigger)
		return;
	if (s->slow.slow_thrown)
		snprintf(thrown, sizeof(thrown), " (%" PRIu64 " left by an exception)",
			 s->slow.slow_thrown);
	if (s->slow.tail)
		snprintf(tail, sizeof(tail), "; %" PRIu64 " left by a tail call (each "
			 REC_SLOW_TAIL_END ")", s->slow.tail);
	diag_info("%" PRIu64 " call%s of %s measured, %" PRIu64 " longer than %.3f ms%s%s%s",
		  s->slow.calls, diag_s(s->slow.calls),
		  loc_name(&s->loc, name, sizeof(name)), s->slow.slow,
		  s->o->slower_than_ns / 1e6, thrown, tail, first ? ":" : "");
	if (first)
		diag_info("  first: %.3f ms in thread %d, entered at %" PRIu64 " ns, %s at %"
			  PRIu64 " ns (perf clock)", first->duration_ns / 1e6, (int)first->tid,
			  first->entry_ns, first->thrown ? "left by an exception caught" :
			  "returned", first->time_ns);
	warn_lost(name, s->trig.lost, "the calls among them are not counted above, and "
		  "a slow one among them took no snapshot");
	warn_untracked(name, s->slow.untracked);
	warn_tail_at_jump(name, s->slow.tail_at_jump, s->slow.calls);
	warn_unrecorded_calls(s, name, &s->slow.unrecorded, s->slow.calls);
	if (s->slow.unrecorded_slow.n) {
		char text[256];

		diag_warn("%s: %" PRIu64 " of the %" PRIu64 " call%s longer than %.3f ms took no "
			  "snapshot: %s %s", name, s->slow.unrecorded_slow.n, s->slow.slow,
			  diag_s(s->slow.slow), s->o->slower_than_ns / 1e6,
			  s->slow.unrecorded_slow.n == 1 ? "it was" : "they were",
			  rec_unrecorded_text(&s->slow.unrecorded_slow, &s->recorded, text,
					      sizeof(text)));
	}
	if (s->slow.unended)
		diag_warn("%" PRIu64 " call%s of %s ended unseen (a longjmp, an exception no "
			  "catch probe saw, a lost sample): %s duration is not known, not "
			  "counted above", s->slow.unended, diag_s(s->slow.unended), name,
			  s->slow.unended == 1 ? "its" : "their");
}

/* How each target that ended during the recording ended (the front end's
 * converter says it with the function and line, from record.json). */
static void print_endings(const struct rec_session *s)
{
	char text[512];

	for (int i = 0; i < s->target.npids; i++) {
		struct sig_ending e;

		if (!rec_session_ending(s, i, &e))
			continue;
		sig_ending_text(&e, text, sizeof(text));
		if (s->target.launched)
			diag_info("the program %s", text);
		else
			diag_info("process %d %s", (int)s->target.pids[i], text);
	}
}

/* Each --measure function's account: calls, percentiles, what a call cost. */
static void print_measures(const struct rec_session *s)
{
	for (int i = 0; i < s->nmeasures; i++) {
		const struct rec_measure *m = &s->measures[i];
		const struct hist *h = &m->st.hist;

		const struct rec_slowcall *match = m->shared ? &s->slow : &m->match;
		char thrown[80] = "", what[512], cost[160];

		snprintf(what, sizeof(what), "measured %s", m->spec);
		if (!m->shared) {
			warn_lost(what, m->trig.lost, "the calls among them are not counted");
			warn_untracked(what, match->untracked);
			warn_tail_at_jump(what, match->tail_at_jump, match->calls);
		}
		if (match->unended)
			diag_warn("measured %s: %" PRIu64 " call%s not measured: left without a return "
				  "or a catch the probes saw (longjmp, an exception caught by no "
				  "__cxa_begin_catch, a sample the kernel lost), so %s duration is not "
				  "known; the statistics leave %s out", m->spec, match->unended,
				  match->unended == 1 ? "" : "s", match->unended == 1 ? "its" : "their",
				  match->unended == 1 ? "it" : "them");
		if (!m->st.calls) {
			bool unloaded = !m->mapped && m->map_looks;

			char none[256];

			diag_info("measured %s: %s%s%s%s", m->spec,
				  rec_measure_none_words(s->start_ns, s->end_ns,
							 s->stopped_at_start != 0, !s->target.launched,
							 match->unmatched, match->open_at_end, none,
							 sizeof(none)),
				  unloaded ? " (" : "", unloaded ? m->loc.file : "",
				  unloaded ? " was never seen loaded by the program: its maps "
				  "never had it)" : "");
			continue;
		}
		if (match->thrown)
			snprintf(thrown, sizeof(thrown), " (%" PRIu64 " left by an exception, "
				 "measured to its catch)", match->thrown);
		diag_info("measured %s: %" PRIu64 " calls%s, %.3f ms in all; min %.3f, p50 %.3f, "
			  "p99 %.3f, max %.3f ms; measuring a call costs the program %s",
			  m->spec, m->st.calls, thrown, m->st.total_ns / 1e6,
			  h->min / 1e6, hist_percentile(h, 50) / 1e6, hist_percentile(h, 99) / 1e6,
			  h->max / 1e6, rec_measure_cost_words(s->measure_cost_ns, cost, sizeof(cost)));
		warn_unrecorded_calls(s, what, &match->unrecorded, m->st.calls);
	}
}

/* The line of every hit record.json lists with the snapshot to open for it
 * (hitsline.h). */
static void print_hits(const struct rec_session *s)
{
	char line[1024];

	if (rec_hits_line(s->hits, s->nhits, s->pol.coalesced, s->coalesced, s->ncoalesced, line,
			  sizeof(line)))
		diag_info("trigger hits (numbered as in record.json) and the snapshot to open for "
			  "each: %s", line);
}

static void print_summary(const struct rec_session *s, bool front_end)
{
	print_slow_calls(s);
	if (!s->o->slower_than_ns)
		warn_lost("the trigger", s->trig.lost, "the hits among them took no snapshot");
	print_hits(s);
	if (s->children_unrecorded && shell_command(s))
		diag_warn("the shell (%s -c) ran its command in %" PRIu64 " child process%s, not "
			  "recorded (only the shell is; dash forks even for one command): give the "
			  "program itself (snaptrace run -- PROG ARGS), `%s -c 'exec PROG ARGS'`, or "
			  "--multi-thread", s->o->cmd[0], s->children_unrecorded,
			  s->children_unrecorded == 1 ? "" : "es", s->o->cmd[0]);
	else if (s->children_unrecorded)
		diag_warn("the %s started %" PRIu64 " child process%s, not recorded (only %s is): "
			  "record %s with --multi-thread", s->target.launched ? "program" :
			  "process", s->children_unrecorded, s->children_unrecorded == 1 ? "" : "es",
			  s->target.tid ? "the thread given" : "its main thread",
			  s->children_unrecorded == 1 ? "it" : "them");
	if (s->children_unwatched)
		diag_warn("the %s started %" PRIu64 " child process%s: recorded (--multi-thread), "
			  "but %s only %s: %s calls are in no count nor hit", s->target.launched ?
			  "program" : "process", s->children_unwatched,
			  s->children_unwatched == 1 ? "" : "es", probes_watch(s), s->target.launched ?
			  "the launched process" : "the processes attached to",
			  s->children_unwatched == 1 ? "its" : "their");
	print_measures(s);
	bool deferred = s->nhits && s->hits[0].deferred;
	uint64_t early = s->pol.early;

	if (early)
		diag_info("%" PRIu64 " trigger hit%s in the first %.0f ms, before the trigger "
			  "was armed: %s", early, diag_s(early), s->arm.after_ms,
			  deferred ? "the last one's snapshot waited for it (the others are "
			  "coalesced into it)" : "ignored (--arm-after): in no snapshot");
	/* a trigger that never fired: the snapshot is not the moment asked for
	 * (a slow-call trigger says its calls above) */
	if ((s->have_trigger || s->sig_trigger) && !s->o->slower_than_ns && !s->nhits &&
	    !s->pol.before_armed && !s->pol.coalesced && !s->pol.unrecorded) {
		char name[SIG_NAME_MAX];

		diag_warn("the trigger (%s) never fired: the snapshot holds the recording's last "
			  "moments (end: %s), not the trigger's", s->sig_trigger ?
			  sig_name(s->sig_trigger, name, sizeof(name)) : s->loc.spec,
			  record_end_name(s->end));
	}
	/* the front end converts the files and says where the trace is */
	if (front_end) {
		diag_info("%d snapshot%s (end: %s)", s->nsnaps, diag_s(s->nsnaps),
			  record_end_name(s->end));
		return;
	}
	diag_info("%d snapshot%s in %s (end: %s)", s->nsnaps, diag_s(s->nsnaps),
		  s->outdir, record_end_name(s->end));
	print_endings(s);
	for (int i = 0; i < s->nsnaps; i++)
		diag_info("  %s/%s (%s)", s->outdir, s->snaps[i].file,
			  record_end_name(s->snaps[i].reason));
}

/* One warning per snapshot file perf did not finish, and per snapshot
 * whose file perf lost (record.json marks each). */
static void warn_unfinished(const struct rec_session *s)
{
	for (int i = 0; i < s->nsnaps; i++)
		if (s->snaps[i].problem[0] && s->snaps[i].file[0])
			diag_warn("%s/%s: an unfinished perf.data, kept but not to be converted "
				  "(record.json marks it): %s", s->outdir, s->snaps[i].file,
				  s->snaps[i].problem);
		else if (s->snaps[i].problem[0])
			diag_warn("%s: snapshot %d has no file (record.json marks it): %s",
				  s->outdir, i + 1, s->snaps[i].problem);
}

/* After a recording that recorded nothing: names the perf.data files perf
 * left in directory DIRFD (named DIR) anyway (a header, no data; record.json
 * says the recording failed), and what each is,
 * or says nothing when there are none. (The front end says it itself.) */
static void name_leftovers(int dirfd, const char *dir)
{
	char **names, why[160], handle[32];
	int n = perfdata_scan(dirfd, &names);

	for (int i = 0; i < n; i++) {
		/* through the directory held open, as every file of it */
		int fd = inpath_open(dirfd, names[i], INPATH_NOFOLLOW, why, sizeof(why));

		if (fd >= 0 && perfdata_check(inpath_proc(fd, handle, sizeof(handle)), why,
					      sizeof(why)) == PERFDATA_FINISHED)
			snprintf(why, sizeof(why), "perf finished it");
		if (fd >= 0)
			close(fd);
		diag_error("%s/%s: what perf wrote before it failed stays (nothing was recorded; "
			   "record.json says so): %s", dir, names[i], why);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static int report(struct rec_session *s, int err, bool front_end);

/* Whether another user names what a process recorded (the N PIDS, or the
 * thread TID when not 0) maps (plan.c buildid_args()): one is theirs
 * (rec_proc_others()), or maps a file where they may change a name
 * (rec_proc_maps_others()): a launched program too, stopped at its exec,
 * its program and loader mapped (what perf opens by name as it starts:
 * root's program in another user's directory, which she swaps for a FIFO);
 * a pid no process has (a dry run's: the recording refuses it) is
 * nobody's. */
static bool others_mapped(const pid_t *pids, int n, pid_t tid)
{
	if (tid && rec_proc_alive(tid) && rec_proc_others(tid))
		return true;
	for (int i = 0; i < n; i++)
		if (rec_proc_alive(pids[i]) &&
		    (rec_proc_others(pids[i]) || rec_proc_maps_others(pids[i])))
			return true;
	return false;
}

/* Records into S per O. Returns the exit status; S->nsnaps tells what was kept. */
static int record(struct rec_session *s, struct rec_opts *o, const struct rec_host *h,
		  int sigfd, bool front_end)
{
	char list[REC_MAX_PIDS * 12];
	const char *flag;
	int r, err;

	s->o = o;
	s->h = h;
	s->sigfd = sigfd;
	s->report_fd = -1;
	r = make_outdir(o, front_end ? "-d" : "-o", s);
	if (r >= 0)
		return r;
	r = prepare_target(s, o);
	if (r >= 0) {
		if (outdir_created)
			rmdir(s->outdir);
		return r;
	}
	pick_callgraph(o, h, o->ncmd ? s->exe : s->target.exe);
	o->others_mapped = others_mapped(s->target.pids, s->target.npids, s->target.tid);
	target_args(o, s->target.pids, s->target.npids, &flag, list, sizeof(list));
	if (o->tid)
		flag = "-t";
	/* perf runs in the recording directory: it writes nowhere else */
	err = rec_plan_build(o, h, flag, list, "perf.data", &s->plan);
	if (err) {
		rec_target_finish(&s->target, NULL);
		diag_error("cannot build the perf command line: %s", strerror(-err));
		return EXIT_USAGE;
	}
	if (o->mode == REC_MODE_AUTO)
		diag_info("mode: %s", s->plan.mode == REC_MODE_PT ? "Intel PT" :
			  "sampling (no Intel PT on this host)");
	rec_plan_print_notes(&s->plan);
	if (s->have_trigger || s->sig_trigger) {
		rec_arming_decide(o, h, &s->plan, &s->arm);
		say_trigger(s);
	}
	err = rec_session_run(s);
	if (err && s->end == RECORD_END_NONE) {
		diag_error("%s", s->error);
		diag_block(s->said);
		if (outdir_created && !rmdir(s->outdir))   /* rmdir: only when empty */
			diag_error("nothing was recorded: %s, empty, is removed", s->outdir);
		else if (!front_end)
			name_leftovers(s->outdir_fd, s->outdir);
		return EXIT_RUNTIME;
	}
	r = report(s, err, front_end);
	for (int i = 0; i < s->nmeasures; i++)
		rec_measure_free(&s->measures[i]);
	rec_mapids_free(&s->mapids);
	return r;
}

/* Whether each process (or -t's thread) O attaches to is a user process
 * running now, whose executable a dry run reads; the first that is not is
 * said (the recording would refuse it). */
static bool dry_run_attachable(const struct rec_opts *o)
{
	int n = o->tid ? 1 : o->npids;

	for (int i = 0; i < n; i++) {
		pid_t pid = o->tid ? o->tid : o->pids[i];
		bool alive = rec_proc_alive(pid);

		if (!alive || rec_proc_kernel_thread(pid)) {
			diag_info("%s %d: %s now, which the recording refuses: the trigger and "
				  "measures are not resolved", o->tid ? "-t" : "-p", (int)pid,
				  alive ? "a kernel thread" : "no process runs");
			return false;
		}
	}
	return true;
}

/*
 * --dry-run: the perf command line a recording with OPTS would run, after
 * the checks the recording makes before it starts perf: the program found,
 * the trigger, the slow-call trigger and each --measure resolved by the same
 * code (resolve_probes()), so a dry run fails where the recording would, and
 * says the trigger it would use. An attached process is not held: its
 * probes are resolved in /proc/PID/exe when it is a user process running
 * now; any other PID gets its command line, with no trigger looked for
 * (dry_run_attachable() says so). S: the session (zeroed), used for that.
 */
static int dry_run(struct rec_session *s, const struct rec_opts *opts, const struct rec_host *h)
{
	struct rec_opts oo = *opts, *o = &oo;
	struct rec_plan plan;
	char list[REC_MAX_PIDS * 12], line[8192];
	pid_t pid = o->tid ? o->tid : o->pids[0];
	const char *flag;
	bool trigger;
	int err, r = -1;

	s->o = o;
	s->h = h;
	if (rec_host_refuses(h, o, line, sizeof(line))) {
		diag_error("%s", line);
		return EXIT_USAGE;
	}
	if (o->ncmd) {
		r = find_target(s, o);
	} else {
		s->target.pids[0] = pid;
		s->target.npids = 1;
		snprintf(s->target.exe, sizeof(s->target.exe), "/proc/%d/exe", (int)pid);
		snprintf(s->exe, sizeof(s->exe), "%s", s->target.exe);
	}
	if (r < 0 && (o->ncmd || dry_run_attachable(o)))
		r = resolve_probes(s, o);
	if (r >= 0) {
		free_probes(s);
		return r;
	}
	pick_callgraph(o, h, o->ncmd ? s->exe : s->target.exe);
	/* no program launched: its path, as the recording's maps name it */
	o->others_mapped = o->ncmd ? realpath(s->exe, line) && rec_proc_path_others(line) :
			   others_mapped(o->pids, o->npids, o->tid);
	target_args(o, o->pids, o->npids, &flag, list, sizeof(list));
	err = rec_plan_build(o, h, flag, list, "snaptrace-DIR/perf.data", &plan);
	if (err) {
		free_probes(s);
		diag_error("cannot build the perf command line: %s", strerror(-err));
		return EXIT_USAGE;
	}
	rec_plan_print_notes(&plan);
	trigger = s->have_trigger || s->sig_trigger;
	if (trigger) {
		struct rec_arming arm;

		say_trigger(s);
		rec_arming_decide(o, h, &plan, &arm);
		diag_info("would have the %s", rec_arming_describe(&arm, line, sizeof(line)));
	}
	diag_info("would record (%s)", rec_plan_describe(&plan, trigger, line, sizeof(line)));
	rec_events_say(o);
	printf("%s\n", rec_plan_format(&plan, line, sizeof(line)));
	free_probes(s);
	return EXIT_OK;
}

/* Writes S's record.json and says how the recording ended (ERR: the
 * session's). Returns the exit status. */
static int report(struct rec_session *s, int err, bool front_end)
{
	int r;

	if (s->stopped_at_start)
		diag_warn("SIG%s came while the recording was starting: it was stopped at once; "
			  "%s", sigabbrev_np(s->stopped_at_start),
			  s->target.launched ? "the program was never started, so the trace holds "
			  "nothing of it" : "the trace holds at most the moments right after the "
			  "attach");
	r = rec_report_write(s);
	if (r)
		diag_error("%s/record.json: cannot write it: %s", s->outdir, strerror(-r));
	if (err) {
		diag_error("%s", s->error);
		diag_block(s->said);
	}
	warn_unfinished(s);
	if (err || r)
		return EXIT_RUNTIME;
	print_summary(s, front_end);
	return EXIT_OK;
}

/* --symbols PROG|PID [PATTERN]: exit 0 when a function was listed, 1 when
 * none matched or the target cannot be read, 2 when it is no file to read
 * (a FIFO, a device). */
static int list_symbols(const struct rec_cli *cli)
{
	char why[PATH_MAX + 256];
	int n = rec_symbols_list(stdout, cli->symbols, cli->rec.ncmd ? cli->rec.cmd[0] : NULL,
				 why, sizeof(why));

	if (n < 0)
		diag_error("%s", why);
	else if (n == 0 && cli->rec.ncmd)
		diag_info("%s: no function matches '%s'", cli->symbols, cli->rec.cmd[0]);
	else if (n == 0)
		diag_info("%s: expected functions, found no symbol and no unwind table",
			  cli->symbols);
	return n > 0 ? EXIT_OK : n == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;   /* main() checks stdout */
}

/* snaptrace attach without -p or -t: the user picks the process (into O),
 * held from then on in *PICKED. Returns -1 to go on, or the exit status
 * after a one-line error. */
static int pick_process(struct rec_opts *o, struct rec_proc_held *picked)
{
	char why[256], comm[32] = "";
	int err = rec_procpick(picked, why, sizeof(why));
	pid_t pid = picked->pid;

	if (err) {
		picked->pid = 0;
		diag_error("%s", why);
		return err == -ENOTTY ? EXIT_USAGE : EXIT_RUNTIME;
	}
	o->pids[0] = pid;
	o->npids = 1;
	rec_proc_comm(pid, pid, comm, sizeof(comm));
	diag_info("attaching to process %d (%s)", (int)pid, comm);
	return -1;
}

/* Blocks the signals the recorder handles and returns a signalfd for them
 * (children unblock them), or -1 after an error. A stop signal (sig_stops:
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1...) ignored when the recorder started stays ignored: the
 * shell asked for it (a background job of a script ignores SIGINT, nohup
 * SIGHUP), and it was ignored before main() too, so the recording behaves
 * the same whenever such a signal comes. */
static int signals_to_fd(void)
{
	sigset_t set;
	int fd;

	sig_note_start();
	sig_not_ignored(sig_stops, sig_nstops, &set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		diag_error("signalfd: %s", strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	static struct rec_session session;
	static struct rec_host h;
	struct rec_frontend fe;
	struct rec_cli cli;
	struct rec_opts *o = &cli.rec;
	bool front_end;
	int r, sigfd = -1;

	outpath_keep_std_fds();
	diag_init(argv[0]);
	/* first: from here on a signal ends the recording instead of the program */
	sigfd = signals_to_fd();
	r = rec_cli_parse(argc, argv, &cli);
	if (r >= 0)
		goto out;
	front_end = cli.mode == REC_CLI_FRONTEND;
	diag_set_quiet(o->quiet);
	if (cli.symbols) {
		r = list_symbols(&cli);
		goto out;
	}
	if (sigfd < 0) {
		r = EXIT_RUNTIME;
		goto out;
	}
	rec_host_probe(&h, o->perf_path);
	if (cli.check) {
		r = rec_check_print(stdout, &h) ? EXIT_RUNTIME : EXIT_OK;
		goto out;
	}
	if (o->dry_run) {
		r = dry_run(&session, o, &h);
		goto out;
	}
	r = preflight(o, &h);
	if (r >= 0)
		goto out;
	if (cli.verb == REC_VERB_ATTACH && !o->npids && !o->tid) {
		r = pick_process(o, &session.picked);
		if (r >= 0)
			goto out;
	}
	if (front_end) {
		r = rec_frontend_prepare(&fe, &cli);
		if (r >= 0)
			goto out;
	}
	r = record(&session, o, &h, sigfd, front_end);
	if (front_end)
		r = rec_frontend_finish(&fe, &session, r, sigfd);
	/* run passes the program's status on, once the trace is written */
	if (front_end && cli.verb == REC_VERB_RUN && r == EXIT_OK)
		r = rec_session_program_status(&session);
out:
	if (sigfd >= 0)
		close(sigfd);
	rec_cli_free(&cli);
	return outpath_stdout_done(r);   /* --symbols, --check, --dry-run, --help */
}
