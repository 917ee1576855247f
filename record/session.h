/* SPDX-License-Identifier: MIT */
/*
 * session: one recording from start to finish. Starts perf per the plan,
 * waits until it is ready (control "enable" + ack, or its events open), arms
 * the trigger, lets a launched target run, then waits in one poll loop for
 * a trigger hit, a signal (SIGINT/SIGTERM/SIGHUP through a signalfd), the
 * target's exit, perf's exit or the --duration deadline, and takes the
 * snapshots the options ask for. Never leaves perf running.
 * Why: docs/design.md "Process model" and "Snapshots".
 */
#ifndef SNAPTRACE_REC_SESSION_H
#define SNAPTRACE_REC_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "perfrun.h"
#include "plan.h"
#include "rec_opts.h"
#include "target.h"
#include "trigger.h"
#include "trigspec.h"

#define REC_MAX_HITS 1024
#define REC_MAX_SNAPS 256
#define REC_MAX_THREADS 256

enum rec_end {
	REC_END_NONE,
	REC_END_TRIGGER,     /* the (first) trigger hit */
	REC_END_INTERRUPT,   /* SIGINT, SIGTERM or SIGHUP to the recorder */
	REC_END_EXIT,        /* the target exited */
	REC_END_DURATION,    /* --duration elapsed */
	REC_END_PERF_DIED,   /* perf exited on its own while the target ran */
};

struct rec_hit_log {
	struct rec_hit hit;
	double seen_ms;      /* CLOCK_MONOTONIC ms when the recorder saw it */
	int snapshot;        /* index into snaps, -1: none (rate-limited, or late) */
};

struct rec_snap {
	char file[PATH_MAX]; /* the perf.data file holding it (basename) */
	enum rec_end reason;
	double requested_ms, done_ms; /* CLOCK_MONOTONIC */
	double frozen_ms;             /* perf's ring stopped (sampling), else requested_ms */
};

struct rec_thread_info {
	pid_t pid, tid;
	char comm[32];
};

struct rec_session {
	const struct rec_opts *o;
	const struct rec_host *h;
	struct rec_plan plan;
	struct rec_target target;
	struct rec_perf perf;
	struct rec_trigger trig;
	struct rec_trigger_loc loc;
	bool have_trigger;
	enum rec_mechanism mech;      /* the one used */
	char outdir[PATH_MAX];
	char exe[PATH_MAX];           /* the target's executable (real path) */
	int sigfd;
	double start_ms, ready_ms;
	struct rec_hit_log hits[REC_MAX_HITS];
	int nhits;
	uint64_t hits_dropped;        /* beyond REC_MAX_HITS */
	struct rec_snap snaps[REC_MAX_SNAPS];
	int nsnaps;
	double last_snap_ms;
	uint64_t last_snap_hit_ns;    /* perf time of the hit of the last snapshot */
	int dumps_used;               /* perf Dump files accounted for by snaps */
	enum rec_end end;
	bool stop_requested;          /* we asked perf to stop */
	struct rec_thread_info threads[REC_MAX_THREADS];
	int nthreads;
	int exit_code;                /* EXIT_OK or EXIT_RUNTIME */
	char error[4096];             /* why the session failed */
};

/*
 * Runs a recording. S->o, S->h, S->plan, S->target (launched and stopped,
 * or attached), S->loc/S->have_trigger/S->mech and S->outdir must be set.
 * Returns 0 when data was kept; a negative errno with S->error filled
 * otherwise. perf is stopped and reaped in every case; a launched target is
 * killed and reaped if still running.
 */
int rec_session_run(struct rec_session *s);

/* The word record.json uses for END ("trigger", "interrupt", ...). */
const char *rec_end_name(enum rec_end end);

/*
 * Writes S as OUTDIR/record.json (format: see record/report.c).
 * Returns 0 or a negative errno.
 */
int rec_report_write(const struct rec_session *s);

#endif
