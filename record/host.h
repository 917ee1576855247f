/* SPDX-License-Identifier: MIT */
/*
 * host: what this machine offers for recording. Finds perf, asks its version
 * (common/perf_version), and reads the PMUs and limits under
 * /sys/bus/event_source/devices and /proc/sys/kernel (docs/design.md
 * "perf command lines").
 * Probing runs `perf --version` (and `perf record -h` when the version is
 * unknown) but never records anything.
 */
#ifndef SNAPTRACE_REC_HOST_H
#define SNAPTRACE_REC_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "perf_version.h"
#include "rec_opts.h"

struct rec_host {
	char perf_path[PATH_MAX];   /* absolute path of perf, "" when not found */
	const char *perf_want;      /* perf as asked for (--perf PATH, or "perf"); borrowed */
	int perf_found;             /* run_find_program()'s result for it: 0 or -errno */
	struct perf_version perf_version;
	bool perf_runs;             /* `perf --version` ran and exited 0 */
	bool feat[PERF_FEAT_COUNT]; /* from the version, or probed from `perf record -h` */
	bool feat_probed;           /* the version was unknown: feat[] came from -h */
	bool has_intel_pt;          /* /sys/bus/event_source/devices/intel_pt exists */
	int pt_psb_cyc;             /* caps/psb_cyc: 1, 0, or -1 when unreadable */
	bool has_hw_pmu;            /* devices/cpu (or cpu_core) exists: "cycles" works */
	int uprobe_type;            /* devices/uprobe/type, -1 when absent */
	int paranoid;               /* kernel.perf_event_paranoid, INT_MIN when unreadable */
	int max_sample_rate;        /* kernel.perf_event_max_sample_rate, 0 when unreadable */
	bool root;                  /* effective uid 0 */
	bool cap_perfmon;           /* CAP_PERFMON or CAP_SYS_ADMIN in the effective set */
	/* sched:sched_switch samples work: CAP_PERFMON (or paranoid <= -1, the raw
	 * tracepoint data) and the tracepoint's id readable in tracefs */
	bool sched_switch;
};


/*
 * Fills *H for perf at PERF_PATH (NULL: look up "perf" in $PATH). Never fails:
 * a missing perf leaves perf_path "" and perf_runs false.
 */
void rec_host_probe(struct rec_host *h, const char *perf_path);


/* The mode auto picks on H: Intel PT when present, else sampling. */
enum rec_mode rec_host_auto_mode(const struct rec_host *h);

/* Whether recording needs privileges this process lacks (paranoid > 1 and no
 * CAP_PERFMON/root, or kernel tracing with paranoid > 0). Returns true and a
 * one-line reason in WHY (SIZE bytes) when it does. */
bool rec_host_lacks_permission(const struct rec_host *h, bool kernel, char *why, size_t size);

/*
 * Whether O asks for something H cannot do, the facts --check reports: a
 * sampling frequency above kernel.perf_event_max_sample_rate (in sampling
 * mode), --callgraph lbr without a hardware PMU. Returns true and a one-line
 * reason naming the option and the limit in WHY (SIZE bytes): a usage
 * error, refused before anything starts (perf would fail confusingly).
 */
bool rec_host_refuses(const struct rec_host *h, const struct rec_opts *o, char *why, size_t size);

#endif
