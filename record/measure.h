/* SPDX-License-Identifier: MIT */
/*
 * measure: --measure FUNC. Every call of a function, in every thread of the
 * targets, timed for the whole recording by the probes of the slow-call
 * trigger (an entry uprobe and uprobes on the function's own exits:
 * trigger.h, callexits.h; nothing on the program's stack changes), each
 * exit matched to its entry by slowcall.c. Per function: the calls that
 * returned: their count, total,
 * a log-bucketed histogram (common/hist.h: percentiles within 1%), the
 * slowest calls, and the newest calls, which the recorder appends to the
 * recording's calls file (REC_MEASURE_CALLS_FILE) at every snapshot, for
 * the converter to draw as exact slices. A function that is also the
 * --trigger-slower-than trigger shares its probes (rec_measure.shared).
 * A call left by a C++ exception has a known end, its catch: it is measured
 * as any other, marked thrown (the matcher counts them too, slowcall.h
 * thrown). Calls whose end was not seen (longjmp, a lost sample) have no
 * duration: the matcher counts them (unended), the summary says so.
 * Why and what it costs: docs/design.md "Measured calls".
 */
#ifndef SNAPTRACE_REC_MEASURE_H
#define SNAPTRACE_REC_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "callexits.h"
#include "hist.h"
#include "slowcall.h"
#include "trigger.h"
#include "trigspec.h"

#define REC_MEASURE_SLOWEST 16     /* the slowest calls record.json keeps, per function */
#define REC_MEASURE_RECENT 65536   /* the newest calls kept for the snapshots, per
				    * function (40 bytes each) */
#define REC_MEASURE_CALLS_FILE "measured-calls.txt"
#define REC_MEASURE_LOAD 0.05      /* warn when measuring takes more of a CPU than this */

/* The first line of the calls file; then a line per call:
 * "INDEX PID TID ENTRY_NS END_NS CALLER" (INDEX: the function's place in
 * record.json's "measure", times in perf's clock; END_NS its return;
 * CALLER its return address less the function's entry, signed decimal
 * bytes with its sign, "?" when not known), then " exception" for a call
 * left by a C++ exception (END_NS: where it was caught). Version 1 had
 * neither CALLER nor calls left by an exception. */
#define REC_MEASURE_CALLS_HEADER \
	"# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]"

/* One measured call. */
struct rec_call {
	pid_t pid, tid;
	uint64_t entry_ns, duration_ns;   /* perf clock */
	bool thrown;                      /* left by a C++ exception: ended at its catch */
	bool has_caller;                  /* CALLER_OFF is known */
	int64_t caller_off;               /* its return address less the function's entry */
};

/* The statistics of one function's calls. Zero-initialise with
 * REC_CALL_STATS_INIT; rec_call_stats_free() when done. */
struct rec_call_stats {
	uint64_t calls, total_ns;         /* every call measured, those thrown included */
	struct hist hist;                 /* durations */
	struct rec_call slowest[REC_MEASURE_SLOWEST];   /* a min-heap by duration */
	int nslowest;
	struct rec_call *recent;          /* ring of the newest REC_MEASURE_RECENT (owned) */
	uint64_t written;                 /* calls (in return order) written to the calls file */
	uint64_t dropped;                 /* calls that left the ring before being written */
	uint64_t since_ns;                /* where the first second is counted from (perf
					   * clock; 0: not started) */
	uint64_t first_second;            /* calls that returned in that second */
	bool nomem;                       /* a call could not be kept in the histogram */
};
#define REC_CALL_STATS_INIT { .hist = HIST_INIT }

/* Adds call C (calls come in the order they return). Returns 0 or -ENOMEM
 * (counted, the call kept out of the histogram or the ring). */
int rec_call_stats_add(struct rec_call_stats *st, const struct rec_call *c);

/* Appends to F the calls of ST not written yet, oldest first, as lines of the
 * calls file with INDEX. Returns 0 or -EIO. */
int rec_call_stats_write(struct rec_call_stats *st, FILE *f, int index);

/* ST's slowest calls, longest first, into OUT (REC_MEASURE_SLOWEST). Returns their number. */
int rec_call_stats_slowest(const struct rec_call_stats *st, struct rec_call *out);

void rec_call_stats_free(struct rec_call_stats *st);

/* One --measure FUNC. */
struct rec_measure {
	const char *spec;                 /* as given (argv) */
	struct rec_trigger_loc loc;
	struct rec_callexits exits;       /* where its calls leave it (owned) */
	struct rec_trigger trig;          /* its probes; unused when SHARED */
	struct rec_slowcall match;        /* entries and exits matched into calls */
	bool shared;                      /* the --trigger-slower-than function: its calls
					   * come from the trigger's probes */
	bool opened;                      /* TRIG is open */
	bool warned;                      /* the first second's estimate was told */
	double first_ms;                  /* CLOCK_MONOTONIC ms when its first call was read */
	bool mapped;                      /* LOC's file was seen mapped by a target process
					   * (or it is the program: rec_measure_watch_map()) */
	unsigned map_looks;               /* how often the maps were looked at without it */
	double map_checked_ms;            /* when they were last, or the target let go */
	struct rec_call_stats st;
};

/* Sets up M for SPEC, resolved into LOC with EXITS found (moved into M). */
void rec_measure_init(struct rec_measure *m, const char *spec, const struct rec_trigger_loc *loc,
		      struct rec_callexits *exits);

/*
 * Opens M's probes (uprobe PMU type UPROBE_TYPE) on FILE (LOC's, or
 * /proc/PID/exe for an attached main executable) for the target processes
 * PIDS (NPIDS), disabled. Returns 0 or a negative errno.
 */
int rec_measure_open(struct rec_measure *m, int uprobe_type, const char *file,
		     const pid_t *pids, int npids);

/* Enables M's probes. Returns 0 or a negative errno. */
int rec_measure_enable(struct rec_measure *m);

/* Reads what M's rings hold and adds the calls matched (two passes, as the
 * trigger's: slowcall.h). */
void rec_measure_read(struct rec_measure *m);

/* How often, at most, the target's maps are looked at for a measured
 * library not seen mapped yet (a read of /proc/PID/maps each). */
#define REC_MEASURE_MAP_MS 100

/*
 * Sets M->mapped once M's file is the program's, has had a call, or is
 * mapped by one of PIDS (NPIDS; their /proc/PID/maps read every
 * REC_MEASURE_MAP_MS while it is not, the first that long after the target
 * was let go (M->map_checked_ms, the session's to set): the libraries the
 * dynamic loader maps at the start are there by then),
 * counting in M->map_looks the reads without it: a library the program
 * never loads (--measure libz:deflate of a program without libz) has no
 * call, and the end says why (never when the maps were not looked at).
 */
void rec_measure_watch_map(struct rec_measure *m, const pid_t *pids, int npids);

/* The slowcall.h callback that adds every call matched to the rec_measure ARG. */
void rec_measure_call(const struct rec_hit *hit, void *arg);

/*
 * The share of one CPU that measuring M's calls is estimated to take, from
 * the calls that returned within a second of the first one's entry at
 * COST_NS each (over the part of that second seen: ELAPSED_MS since the
 * first call was read, at most 1000); 0 without calls or cost.
 */
double rec_measure_load(const struct rec_measure *m, uint64_t cost_ns, double elapsed_ms);

/*
 * The CPU time one call of a function costs a thread when measured here: a
 * function of the recorder's own, called with and without its probes
 * (entry and exits, sampled into a ring as the target's are). Returns ns,
 * or 0 when it cannot be told (no uprobe PMU: UPROBE_TYPE < 0, or the
 * probes do not open).
 */
uint64_t rec_measure_cost_ns(int uprobe_type);

/*
 * What a measured call costs, in words, into BUF (SIZE bytes; returns
 * BUF): COST_NS (rec_measure_cost_ns()) is the least of its rounds on an
 * idle function of the recorder's own, so a lower bound ("at least 9.8 us
 * of CPU"; a program under load paid about 30); "an unknown CPU time" when
 * 0. The one wording of every line that gives it.
 */
const char *rec_measure_cost_words(uint64_t cost_ns, char *buf, size_t size);

/*
 * What a measured function with no call was measured over, in words, into
 * BUF (SIZE bytes; returns BUF): "no call in the 0.181 ms recorded" from
 * START_NS to END_NS (perf clock: record.json's start_ns and end_ns; either
 * 0: not known), and when STOPPED_AT_START (the recording was stopped while
 * it was starting) that this was too short to say the function is not
 * called. Never a bare "no call" when the span is known: a recording
 * stopped 0.2 ms in saw no call of a function called every 10 ms (issue
 * 24). UNMATCHED returns of calls entered before the recording and OPEN
 * calls still running at its end (struct rec_slowcall's unmatched and
 * open_at_end) make it "no whole call ... (N calls entered before it
 * returned in it, M calls still running at its end: ...)": the function was
 * in a call, not never called (an attach stopped 7 ms in, in a call of
 * 10 ms, said "no call"). ATTACHED (the recording attached to running
 * processes), none of those: "no call entered or returned in the ...
 * recorded (...)": a call running all along, main's, has neither (issue
 * 24's trial: "no call in the 500.871 ms recorded" of a main that ran
 * throughout). The one wording of the summary's line and its test.
 */
const char *rec_measure_none_words(uint64_t start_ns, uint64_t end_ns, bool stopped_at_start,
				   bool attached, uint64_t unmatched, uint64_t open, char *buf,
				   size_t size);

/* Closes M's probes and frees its matcher; its statistics stay. */
void rec_measure_close(struct rec_measure *m);

/* Frees everything M holds (rec_measure_close first when still open). */
void rec_measure_free(struct rec_measure *m);

#endif
