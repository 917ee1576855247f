/* SPDX-License-Identifier: MIT */
/*
 * plan: turns the options and the host's capabilities into the exact
 * `perf record` command line and the way snapshots are taken. Building it is
 * a pure function of its inputs (no I/O), so --dry-run and the unit tests see
 * exactly what a recording runs.
 *
 * Command lines (why each part: docs/design.md "perf command lines"):
 * (--no-bpf-event follows --timestamp where perf >= 5.1 has it.)
 *   PT:       perf record -o OUT --timestamp -e intel_pt/CFG/SEL [-e EXTRA...]
 *             [--buildid-mmap | --no-buildid: a target of another user's]
 *             (--per-thread -t TID | -p PIDS) --snapshot[=e] [-m,AUXPAGES] [--kcore]
 *             --switch-events [--switch-output=signal] [-D -1 --control=fd:3,4]
 *   sampling: perf record -o OUT --timestamp -e dummy:u -e EVENT [-e EXTRA...]
 *             [-e sched:sched_switch/overwrite/] [-e TWIN] --call-graph MODE [--buildid-mmap|--no-buildid]
 *             [-m PAGES] (--per-thread -t TID | -p PIDS) --switch-events
 *             --switch-output=signal [-D -1 --control=fd:3,4]
 *             where EVENT is cpu-clock/freq=N,overwrite/u or cycles/freq=N,overwrite/u
 *             and sched:sched_switch is there where the host allows tracepoints
 *             (see sampling_args() in plan.c for why not --overwrite or -F);
 *             with it and MODE fp, TWIN is the unwound twin of each switch,
 *             context-switches/period=1,overwrite,call-graph=dwarf,stack-size=512/,
 *             and the dummy is dummy/call-graph=dwarf/u (data mappings)
 *   EXTRA:    each --event (rec_event_arg(): NAME/period=N[,overwrite]/u)
 *   SIGNALS:  -e signal:signal_deliver[/call-graph=fp/] --filter FILTER after
 *             the events where the host allows tracepoints (sig_deliver_filter)
 * perf receives the control pipe as its fds 3 (commands) and 4 (acks).
 */
#ifndef SNAPTRACE_REC_PLAN_H
#define SNAPTRACE_REC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "rec_opts.h"

/* How a snapshot is taken and how the recorder knows it is done. */
enum rec_snap_how {
	/* SIGUSR2 to perf; done when perf prints "[ perf record: Dump FILE ]"
	 * (needs --switch-output=signal: one file per snapshot). */
	REC_SNAP_SIGNAL_DUMP,
	/* "snapshot" on the control fd, done at its ack; then "disable" so
	 * that perf's exit snapshot (--snapshot=e) adds nothing after it. */
	REC_SNAP_CONTROL,
	/* Stopping perf takes the snapshot (--snapshot=e, --full-execution). */
	REC_SNAP_AT_STOP,
	/* SIGUSR2 with nothing to wait for (PT on perf < 5.4), then stop. */
	REC_SNAP_SIGNAL_BLIND,
};

/* perf's fd numbers for --control=fd:CTL,ACK (set up by perfrun.c). */
#define REC_PERF_CTL_FD 3
#define REC_PERF_ACK_FD 4

/* The user stack copied at a switch out with --callgraph fp (the unwound
 * twin of the sched_switch sample): enough for the C library's frames
 * between a blocking system call and the function that called into the
 * library, as measured in docs/design.md "The caller a library hides". */
#define REC_SWITCH_STACK_BYTES 512

/* The user stack copied at a signal with --callgraph fp: the C library that
 * raises SIGABRT (raise, pthread_kill, abort, assert's and the checks'
 * functions) has no frame pointers, and a frame-pointer chain from there
 * loops in the thread's own data; unwound from this copy with .eh_frame it
 * reaches the program's function that called abort(). perf's own default
 * for call-graph=dwarf; signals are rare. */
#define REC_SIGNAL_STACK_BYTES 8192

/* A slow-call threshold under this many sampling periods gets a note: such
 * a call holds a sample or two. */
#define REC_SLOW_PERIODS 3

/* Sampling: the index of the sampled event (p->event) among a recording's
 * events, perf's attributes in the order of the -e options (perf evlist):
 * sampling_events() lists the dummy first, then it. */
#define REC_PLAN_SAMPLED_EVENT 1

#define REC_PLAN_MAX_ARGS 64
#define REC_PLAN_MAX_NOTES 4

struct rec_plan {
	enum rec_mode mode;         /* resolved: REC_MODE_PT or REC_MODE_SAMPLING */
	enum rec_snap_how snap;
	bool control;               /* perf starts disabled; "enable" + ack = ready */
	bool switch_output;         /* every SIGUSR2 rotates into OUT.<timestamp> */
	bool snapshot_on_exit;      /* PT --snapshot=e */
	bool freeze;                /* single snapshot: "disable" the events before it */
	bool sched_switch;          /* sampling: sched:sched_switch samples are recorded */
	int clockid;                /* the clock of every time recorded: CLOCK_MONOTONIC
				     * when sampling (perf -k mono: the clock programs
				     * and their jitdumps stamp with), -1 with Intel PT
				     * (perf's own, which its TSC conversion reaches) */
	unsigned switch_stack;      /* sampling: bytes of user stack copied at each switch
				     * out for its unwound twin (context-switches with
				     * call-graph=dwarf); 0: none */
	const char *output;         /* the -o argument (points into storage) */
	char event[160];            /* the -e argument */
	const char *unwinder;       /* sampling: "fp", "dwarf", "lbr"; PT: NULL */
	uint64_t ring_bytes;        /* sampling: the ring asked for (-m, bytes as given,
				     * perf rounds them up to pages); 0: perf's default */
	/* when snapshots are taken (the options, as this plan runs them) */
	bool multi_snapshot;        /* one at every hit, min_interval_ns apart at least */
	bool full_execution;        /* none: everything from the start, at the stop */
	uint64_t min_interval_ns;
	double duration_s;          /* stops (and snapshots) after this time; 0: no limit */
	uint64_t slower_than_ns;    /* a hit is a call longer than this; 0: any hit */
	char *argv[REC_PLAN_MAX_ARGS]; /* NULL-terminated; points into storage */
	int argc;
	char notes[REC_PLAN_MAX_NOTES][200]; /* fallbacks worth telling the user */
	int nnotes;
	char warnings[REC_PLAN_MAX_NOTES][400]; /* options this plan ignores, a ring
					      * too small for a slow call */
	int nwarnings;
	char storage[8192];
	size_t used;
};

/*
 * Builds *P for recording with options O on host H into perf data file OUT,
 * where TARGET_FLAG is "-t" or "-p" and TARGETS the comma-separated ids (or a
 * placeholder for --dry-run). O->mode AUTO resolves with H.
 * Returns 0, -E2BIG when the command line does not fit, or -EINVAL for an
 * impossible combination (--full-execution with --multi-snapshot).
 */
int rec_plan_build(const struct rec_opts *o, const struct rec_host *h, const char *target_flag,
		   const char *targets, const char *out, struct rec_plan *p);

/*
 * Writes what plan P records, as the line starting a recording says it (the
 * one source of it: --dry-run prints it too), into BUF (SIZE bytes): the
 * mode and when snapshots are taken, e.g. "sampling, a snapshot at each
 * trigger hit, at most one per 100 ms". TRIGGER: whether a trigger is armed
 * (none without a trigger symbol, --trigger none). Returns BUF.
 */
char *rec_plan_describe(const struct rec_plan *p, bool trigger, char *buf, size_t size);

/* Prints P's notes (as information, silenced by --quiet) and warnings. */
void rec_plan_print_notes(const struct rec_plan *p);

/*
 * Writes P's command line into BUF (SIZE bytes) as one shell line, quoting
 * arguments that need it. Returns BUF.
 */
char *rec_plan_format(const struct rec_plan *p, char *buf, size_t size);

/* Rounds BYTES up to a power-of-two number of 4 KiB pages (at least 1). */
unsigned long rec_plan_pages(unsigned long long bytes);

#endif
