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
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arming.h"
#include "host.h"
#include "measure.h"
#include "perfrun.h"
#include "plan.h"
#include "rec_opts.h"
#include "record_json.h"
#include "signals.h"
#include "forks.h"
#include "sigwatch.h"
#include "slowcall.h"
#include "target.h"
#include "trigger.h"
#include "trigspec.h"

#define REC_REPORT_RESERVE (256 * 1024)   /* bytes kept for record.json */

/* A trigger hit that asked for a snapshot. */
struct rec_hit_log {
	struct rec_hit hit;
	double seen_ms;      /* CLOCK_MONOTONIC ms when the recorder saw it */
	int snapshot;        /* index into snaps, -1: none (it failed, or came too late) */
	bool deferred;       /* came before the trigger was armed: its snapshot was
				taken when it was (arming.h) */
};

struct rec_snap {
	char file[NAME_MAX + 1]; /* the perf.data file holding it (basename); "" while
				    perf has not confirmed it */
	enum record_end reason;
	double requested_ms, done_ms; /* CLOCK_MONOTONIC */
	double frozen_ms;             /* perf's ring stopped (sampling), else requested_ms */
	uint64_t time_ns;             /* perf clock when it was asked for; 0: unknown */
	uint64_t live_ns;             /* perf clock just before the recorder asked perf to
				       * stop, for what perf's stop writes: perf still
				       * recorded then, so the file holds every switch record
				       * up to it; 0: unknown (perf had stopped by itself), or
				       * taken by a hit (whose time says as much) */
	char problem[160];            /* why the file is no finished perf.data (perfdata.h:
				       * "cut short inside its data section ..."), "": it is */
};

/* A signal delivered to a target that the recording keeps (sigwatch.h):
 * one that ends its process, a crash signal or SIGABRT however handled,
 * the --trigger signal. */
struct rec_signal_log {
	struct rec_signal s;
	int snapshot;        /* the snapshot it took, -1: none */
	bool fatal;          /* it ended its process (delivered with the default action) */
	bool by_stop;        /* the recorder's stop signal (Ctrl-C on the terminal)
				reached the program too: its end, yet no crash (no
				snapshot of its own, no marker) */
};

#define REC_SIGNALS_MAX 256   /* signals kept; later ones are counted */

/* How a target process ended during the recording. */
struct rec_exit {
	bool ended;          /* it ended before the recording did */
	bool has_status;     /* STATUS is known (a launched target; attached, from
				the pidfd: PIDFD_GET_INFO, Linux 6.15) */
	int status;          /* its wait status (WIFEXITED, WTERMSIG, WCOREDUMP) */
};

struct rec_thread_info {
	pid_t pid, tid;
	char comm[32];
};

/*
 * The arrays grow as needed (common/array.h): a recording has no fixed limit
 * on snapshots or threads. Hits are counted; only those that asked for a
 * snapshot are kept, so memory stays bounded whatever the hit rate.
 */
struct rec_session {
	const struct rec_opts *o;
	const struct rec_host *h;
	struct rec_plan plan;
	struct rec_target target;
	struct rec_perf perf;
	struct rec_trigger trig;
	struct rec_slowcall slow;     /* --trigger-slower-than: the calls measured */
	struct rec_trigger_loc loc;
	struct rec_callexits callexits; /* --trigger-slower-than: where the function's calls
				       * leave it (freed by rec_session_run) */
	bool have_trigger;
	struct rec_measure measures[REC_MAX_MEASURE];   /* --measure (measure.h) */
	int nmeasures;
	uint64_t measure_cost_ns;     /* the CPU time a measured call costs here, 0: unknown */
	FILE *calls;                  /* the calls file (REC_MEASURE_CALLS_FILE) while open */
	bool calls_made;              /* it was created */
	bool calls_failed;            /* it could not be written (said once) */
	int sig_trigger;              /* --trigger signal:NAME: the signal, else 0 */
	bool watch_signals;           /* S->sig is open (sigwatch.h) */
	bool sig_hup;                 /* a ring of S->sig lost its thread: read it on a timer */
	int stop_signo;               /* the SIGINT/SIGTERM/SIGHUP that stopped the
					 recording, 0: none */
	struct rec_sigwatch sig;
	struct rec_forks forks;       /* the child processes each target starts (not
				       * with --multi-thread, which records them) */
	uint64_t children_unrecorded; /* child processes the targets started, not recorded
				       * (forks.h; 0 also where it cannot be counted) */
	struct rec_signal_log *signals; /* owned, in the order seen */
	int nsignals;
	size_t signals_cap;
	uint64_t signals_dropped;     /* watched signals past REC_SIGNALS_MAX */
	int fatal;                    /* index into signals of the first that ended a
					 target, -1: none */
	struct rec_exit exits[REC_MAX_PIDS]; /* per target.pids[] */
	struct rec_arming arm;        /* when hits start to count (set by the caller) */
	double armed_ms;              /* CLOCK_MONOTONIC ms when the trigger arms (0: not
				       * recording yet) */
	enum rec_mechanism mech;      /* the one used */
	char outdir[PATH_MAX];        /* the recording directory as named (for messages) */
	int outdir_fd;                /* it, open (outpath_dir()): every file in it is
				       * reached through this, perf runs in it */
	int report_fd;                /* its record.json while the recording runs
				       * (rec_report_reserve()), else -1 */
	char exe[PATH_MAX];           /* the target's executable (real path) */
	int sigfd;
	double start_ms, ready_ms;
	int stopped_at_start;         /* SIGINT/SIGTERM/SIGHUP that came before the target
	                               * ran under perf (nothing recorded), else 0 */
	struct rec_hit_log *hits;     /* owned */
	int nhits;
	size_t hits_cap;
	uint64_t hits_seen;           /* every hit in the targets (a slow call, with
					 --trigger-slower-than) */
	uint64_t hits_before_armed;   /* hits before the trigger was armed that took no
					 snapshot of their own: ignored (--arm-after), or
					 followed by a later one that waited for it */
	uint64_t hits_coalesced;      /* hits that took no snapshot of their own: within
					 --min-interval of the last one's hit, while
					 one was waiting or in flight, or after the end */
	int want;                     /* index into hits of the hit whose snapshot is
					 to be taken, -1: none */
	struct rec_snap *snaps;       /* owned */
	int nsnaps;
	size_t snaps_cap;
	int inflight;                 /* snapshot perf is writing (SIGUSR2 sent, no Dump
					 line yet), -1: none */
	bool drop_dumps;              /* files perf writes from now on hold only
					 post-trigger data: delete them */
	size_t dumps_used;            /* perf Dump files accounted for by snaps */
	uint64_t last_snap_hit_ns;    /* perf time of the hit of the last snapshot */
	enum record_end end;
	uint64_t end_ns;              /* perf clock when the recording ended; 0: unknown */
	uint64_t stop_live_ns;        /* the live_ns of the snapshots perf's stop writes
				       * (end_ns when perf still ran then, else 0) */
	struct rec_tsc_conv tsc;      /* TSC -> perf clock, from the trigger's mmap page */
	bool stop_requested;          /* we asked perf to stop */
	uint64_t hits_unrecorded;     /* hits in threads the recording leaves out: they
					 take no snapshot */
	int binaries_kept;            /* --keep-binaries: binaries copied, -1: not asked */
	struct rec_thread_info *threads; /* owned */
	int nthreads;
	size_t threads_cap;
	struct pollfd *pf;            /* the main loop's poll set (owned) */
	size_t pf_cap;
	int exit_code;                /* EXIT_OK or EXIT_RUNTIME */
	char error[4096];             /* why the session failed: one line */
	bool failed;                  /* it failed before perf recorded: record.json says
				       * so ("error") where perf left files */
	char said[4608];              /* what perf said about it (lines; "": nothing), shown
				       * after the error with diag_block() */
};

/*
 * Runs a recording. S->o, S->h, S->plan, S->target (launched and stopped,
 * or attached), S->loc/S->have_trigger/S->mech/S->arm, S->outdir and
 * S->outdir_fd must be set.
 * Returns 0 when data was kept; a negative errno with S->error (and
 * S->said when perf's words tell why) filled otherwise (S->snaps then lists what perf did write). perf is stopped and
 * reaped in every case; a launched target and every process it started are
 * killed and reaped if still running.
 */
int rec_session_run(struct rec_session *s);

/*
 * How a user stops this recording, for the lines that say it, into BUF of
 * SIZE bytes (returns BUF): "Ctrl-C", or, when SIGINT was ignored at start
 * (a background job of a script: it stays ignored), the first stop signal
 * not ignored with the command that sends it ("SIGTERM (kill PID)"), or
 * "--duration or the program's exit" when all three are ignored.
 */
const char *rec_stop_how(char *buf, size_t size);

/*
 * How target I of S (an index into S->target.pids) ended, into *E: its exit
 * or the signal that killed it (with the signal's details from the watch),
 * or the crash signal it handled before it exited. Returns false when it
 * did not end during the recording.
 */
bool rec_session_ending(const struct rec_session *s, int i, struct sig_ending *e);

/*
 * The exit status `snaptrace run` passes on for the launched program of S:
 * its own exit status, or 128 + N when signal N killed it (130 for the
 * SIGINT of a Ctrl-C that reached both); 0 when the recording ended it
 * (the trigger, --duration, a stop signal to the recorder alone: the
 * program still ran when the recording ended) or its end is unknown.
 */
int rec_session_program_status(const struct rec_session *s);

/*
 * Creates S->outdir_fd's record.json (it must not exist: O_EXCL|O_NOFOLLOW)
 * into S->report_fd and writes the report of S as it stands (a recording
 * that has not ended: "end": "none", what a killed recorder leaves) with
 * REC_REPORT_RESERVE more bytes allocated past its end, so that the final
 * report still fits when perf fills the disk (rec_report_write truncates
 * the file first, freeing that room). Returns 0 or a negative errno.
 */
int rec_report_reserve(struct rec_session *s);

/* Removes record.json (a recording that kept nothing). */
void rec_report_unreserve(struct rec_session *s);

/*
 * Writes S as record.json (format: common/record_json.h): into the file
 * rec_report_reserve() made, rewritten in place and closed (a name swapped
 * meanwhile changes nothing), else a new one. Returns 0 or a negative errno
 * (-ENOSPC when the disk is full).
 */
int rec_report_write(struct rec_session *s);

#endif
