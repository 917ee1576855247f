/* SPDX-License-Identifier: MIT */
/*
 * rec_opts: the options of snaptrace-record, filled by cli.c and read by the
 * other record modules. Plain data; the strings and arrays point into argv
 * (or are owned by main) and outlive every module that reads them.
 */
#ifndef SNAPTRACE_REC_OPTS_H
#define SNAPTRACE_REC_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum rec_mode {
	REC_MODE_AUTO,      /* Intel PT when the host has it, else sampling */
	REC_MODE_PT,
	REC_MODE_SAMPLING,
};

/* Intel PT timing presets (docs/design.md "perf command lines"). */
enum rec_timer_res {
	REC_RES_LOW,        /* intel_pt//            */
	REC_RES_NORMAL,     /* cyc=1,cyc_thresh=1,mtc_period=0 */
	REC_RES_HIGH,       /* normal + noretcomp=1  */
};

enum rec_callgraph {
	REC_CG_FP,
	REC_CG_DWARF,
	REC_CG_LBR,
	REC_CG_AUTO,        /* dwarf when the main binary has no frame pointers, else
			     * fp: resolved before the plan (rec_callgraph_pick) */
};

enum rec_mechanism {
	REC_MECH_AUTO,       /* start-up self-test picks the one that fires */
	REC_MECH_BREAKPOINT, /* PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X */
	REC_MECH_UPROBE,     /* the uprobe PMU */
};

#define REC_MAX_PIDS 64

/* An extra event to sample beside the branches or the samples (--event
 * EVENT[/PERIOD]): perf's event is the first name_len bytes of spec (a name
 * such as branch-misses, a tracepoint SUBSYS:NAME, or PMU/TERMS/), without
 * modifiers (the recorder adds u or k). */
struct rec_event {
	const char *spec;           /* as given (points into argv) */
	unsigned name_len;
	uint64_t period;            /* a sample every PERIOD events; 0: the default
				     * (rec_event_arg(): REC_EVENT_FREQ samples a
				     * second, a tracepoint every one) */
};
#define REC_MAX_EVENTS 8


/*
 * The largest ring a recording can map (--snapshot-size), bytes. The kernel
 * keeps a perf ring's page list in one allocation of at most 4 MiB
 * (KMALLOC_MAX_SIZE: 4 KiB pages << MAX_PAGE_ORDER 10 on x86-64): 2^19 page
 * pointers for the AUX area of Intel PT (rb_alloc_aux(): 2 GiB), fewer for
 * a sampling ring, whose list also holds its header (rb_alloc(): 2 GiB
 * fails with ENOMEM, so 1 GiB). perf 6.1 given 4 GiB records nothing.
 */
#define REC_RING_MAX_PT (2ULL << 30)
#define REC_RING_MAX_SAMPLING (1ULL << 30)

#define REC_MAX_MEASURE 8   /* --measure functions at most */

/* --min-interval when not given, in milliseconds */
#define REC_MIN_INTERVAL_NS 100000000ull   /* 100 ms */

struct rec_opts {
	enum rec_mode mode;
	enum rec_timer_res timer_res;
	enum rec_callgraph callgraph;
	enum rec_mechanism mechanism;
	uint64_t snapshot_size;     /* bytes, 0: perf's default buffer; at most
				     * REC_RING_MAX_PT, or REC_RING_MAX_SAMPLING
				     * when sampling (rec_host_refuses()) */
	unsigned sampling_freq;     /* Hz */
	uint64_t min_interval_ns;   /* between two --multi-snapshot snapshots
	                             * (default REC_MIN_INTERVAL_NS) */
	double duration_s;          /* 0: no limit */
	uint64_t slower_than_ns;    /* --trigger-slower-than: a hit is a call of the
	                             * trigger function longer than this; 0: every
	                             * execution of the trigger is a hit */
	double arm_after_s;         /* --arm-after; < 0: when the ring has filled (arming.h) */
	bool kernel;                /* also trace the kernel */
	bool full_execution;        /* record everything, no snapshot ring */
	bool multi_thread;          /* every thread (-p) rather than the main one */
	bool multi_snapshot;        /* snapshot at every trigger hit */
	bool keep_binaries;         /* copy the binaries the snapshots name into the
				     * recording (keepbin.c) */
	bool dry_run;               /* print the perf command line and exit */
	bool others_mapped;         /* no option: set by the recorder once the targets are
				     * known, when another user names what a process
				     * recorded maps (attached or launched: it is theirs,
				     * or maps a file where they may change a name:
				     * procfs.h): perf record then opens none of the
				     * mapped files by name (plan.c buildid_args()) */
	bool quiet;
	const char *trigger;        /* SPEC; NULL: the default symbols; "none" */
	const char *outdir;         /* NULL: ./snaptrace-YYYYmmdd-HHMMSS */
	const char *perf_path;      /* NULL: "perf" from PATH */
	pid_t pids[REC_MAX_PIDS];   /* attach: -p PID[,PID] */
	int npids;
	pid_t tid;                  /* attach: -t TID, 0 when not given */
	char **cmd;                 /* launch: CMD ARGS... (NULL-terminated) */
	int ncmd;
	struct rec_event events[REC_MAX_EVENTS];   /* --event, in order */
	int nevents;
	const char *measure[REC_MAX_MEASURE];      /* --measure FUNC (trigger SPECs), in order */
	int nmeasure;
	const char **perf_args;     /* extra arguments for perf record */
	int nperf_args;
	int argc;                   /* the recorder's own command line, for record.json */
	char **argv;
};

/* Whether perf records every thread of the targets and the children they
 * start (perf record -p, which inherits into new tasks), rather than one
 * thread (-t): --multi-thread without -t. */
static inline bool rec_opts_children(const struct rec_opts *o)
{
	return o->multi_thread && !o->tid;
}

#endif
