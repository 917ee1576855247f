/* SPDX-License-Identifier: MIT */
/*
 * rec_state: what one recording holds while it runs and once it ended:
 * struct rec_session and the logs it keeps (hits, snapshots, signals,
 * exits, threads). The modules that work on it each take it: session.c
 * (the poll loop), snapshot.c (taking and settling snapshots), report.c
 * (record.json); this header defines it alone, so none of them depends on
 * another for it (docs/design.md "The recorder").
 */
#ifndef SNAPTRACE_REC_STATE_H
#define SNAPTRACE_REC_STATE_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arming.h"
#include "hitpolicy.h"
#include "mapids.h"
#include "host.h"
#include "measure.h"
#include "perfmaps.h"
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

/* A trigger hit that asked for a snapshot. */
struct rec_hit_log {
	struct rec_hit hit;
	double seen_ms;      /* CLOCK_MONOTONIC ms when the recorder saw it */
	int snapshot;        /* index into snaps, -1: none (it failed, or came too late) */
	int call_first, call_last; /* a slow call's: the first and the last snapshot
				      holding its samples (hitholder.h), -1: none */
	int said;            /* the snapshot its live line named (multi-snapshot: the
				one it took, or the one in flight it came in), -1: none */
	bool came_in_flight; /* SAID is the one in flight it came in (it took none of
				its own), not one it took */
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
	bool ended;          /* it ended before the recording did, or AFTER_END */
	bool has_status;     /* STATUS is known (a launched target; attached, from
				the pidfd: PIDFD_GET_INFO, Linux 6.15) */
	int status;          /* its wait status (WIFEXITED, WTERMSIG, WCOREDUMP) */
	bool after_end;      /* a launched target that still ran when the recording
				ended (its trigger, --duration, a stop signal) and
				exited by itself before the recorder ended it: while
				perf stopped, or (--duration) as the loop ended
				(ENDED too, with its status) */
	bool sigterm;        /* AFTER_END at the SIGTERM the recorder then sent it:
				with a status of its own (it caught the signal),
				or killed by it (BY_RECORDER) */
	bool by_recorder;    /* AFTER_END and SIGTERM, killed by the recorder's
				signal (SIGTERM, or SIGKILL 500 ms later): no end
				of the program's own (its exit status passed on,
				said: none) */
};

struct rec_thread_info {
	pid_t pid, tid;
	char comm[32];
	char state;                  /* attached: its scheduler state at start_ns ('S'...); 0 */
	char wchan[64];              /* attached: where it waited in the kernel then; "" */
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
	struct rec_perfmaps maps;     /* the targets' perf maps, held from when they appear */
	struct rec_proc_held picked;  /* attach without -p: the process picked, held since
				       * (pid 0: none; its pidfd goes to target) */
	struct rec_recorded recorded; /* which of its threads the trace holds */
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
	int stop_signo;               /* the stop signal (sig_stops) that stopped the
					 recording, 0: none */
	struct rec_sigwatch sig;
	struct rec_forks forks;       /* the child processes each target starts (with
				       * --multi-thread, which records them, only when
				       * probes watch: children_unwatched) */
	uint64_t children_unrecorded; /* child processes the targets started, not recorded
				       * (forks.h; 0 also where it cannot be counted) */
	uint64_t children_unwatched;  /* --multi-thread with a function trigger or
				       * --measure: child processes the targets started,
				       * recorded, whose calls the probes do not count */
	int abort_probes;             /* uprobe events opened for the abort causes
				       * (sigwatch.h), 0: none */
	struct rec_signal_log *signals; /* owned, in the order seen */
	int nsignals;
	size_t signals_cap;
	uint64_t signals_dropped;     /* watched signals past REC_SIGNALS_MAX */
	int fatal;                    /* index into signals of the first that ended a
					 target, -1: none */
	struct rec_exit exits[REC_MAX_PIDS]; /* per target.pids[] */
	struct rec_arming arm;        /* when hits start to count (set by the caller) */
	struct rec_hitpolicy pol;     /* which hits take a snapshot, the counts of those
				       * that do not (set by rec_session_run) */
	enum rec_mechanism mech;      /* the one used */
	char outdir[PATH_MAX];        /* the recording directory as named (for messages) */
	int outdir_fd;                /* it, open (outpath_dir()): every file in it is
				       * reached through this, perf runs in it */
	int report_fd;                /* its record.json while the recording runs
				       * (rec_report_reserve()), else -1 */
	char exe[PATH_MAX];           /* the target's executable (real path) */
	int sigfd;
	double start_ms, ready_ms;
	int stopped_at_start;         /* the stop signal that came before the target
	                               * ran under perf (nothing recorded), else 0 */
	struct rec_hit_log *hits;     /* owned */
	int nhits;
	size_t hits_cap;
	struct rec_hit_log *coalesced; /* the coalesced hits kept (at most
					* RECORD_COALESCED_MAX), with the snapshot
					* holding each once the files are read; owned */
	int ncoalesced;
	size_t coalesced_cap;
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
	enum record_end end;
	uint64_t end_ns;              /* perf clock when the recording ended; 0: unknown */
	uint64_t start_ns;            /* perf clock once perf recorded (its switch records
				       * complete from then); 0: unknown */
	uint64_t stop_live_ns;        /* the live_ns of the snapshots perf's stop writes
				       * (end_ns when perf still ran then, else 0) */
	struct rec_tsc_conv tsc;      /* TSC -> perf clock, from the trigger's mmap page */
	double stop_ms;               /* when we asked perf to stop (rec_now_ms()): the
				       * request of the snapshots its stop writes; 0: not
				       * yet, or perf had stopped by itself */
	int binaries_kept;            /* --keep-binaries: binaries copied, -1: not asked */
	struct rec_mapids mapids;     /* where another user names what the targets map
				       * (o->others_mapped): the build ids of the files they
				       * map (mapids.h), read as perf starts and as it stops */
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

#endif
