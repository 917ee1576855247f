/* SPDX-License-Identifier: MIT */
/*
 * perfdata: writes a perf.data file (format of tools/perf/Documentation/
 * perf.data-file-format.txt, as read by perf 6.1) that holds synthesized
 * Intel PT data: the PERFILE2 header, one intel_pt attr, the features
 * EVENT_DESC and AUXTRACE (index entries {file offset, 48}), then the
 * records AUXTRACE_INFO (17 private words, identity TSC-to-time conversion),
 * COMM per thread, a loaded BPF program's KSYMBOL and BPF_EVENT where asked,
 * MMAP2 per executable mapping, ITRACE_START per CPU in
 * per-CPU layout, the context switches (PERF_RECORD_SWITCH, or
 * PERF_RECORD_SWITCH_CPU_WIDE to and from the idle task or another task in
 * per-CPU layout, as perf's --switch-events writes them), a second
 * process's COMM, MMAP2 and ITRACE_START (--then), FORK and EXIT where a queue has
 * their times (a thread's parent is the first thread, the first's PPID),
 * and one AUXTRACE record
 * (reference != 0) plus its data per queue.
 */
#ifndef PTSYNTH_PERFDATA_H
#define PTSYNTH_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace.h"

/* One AUX queue: a thread (per-thread layout) or a CPU running one thread. */
struct ps_pd_queue {
	pid_t tid;
	const char *comm;
	const uint8_t *data;   /* the Intel PT bytes (not owned) */
	size_t len;
	uint64_t fork_time;    /* perf time (ns) of its FORK record, 0: none */
	uint64_t exit_time;    /* perf time (ns) of its EXIT record, 0: none */
};

/* One context switch record. */
struct ps_pd_switch {
	pid_t pid;             /* its process, 0: ps_pd's */
	pid_t tid;
	pid_t np_pid, np_tid;  /* per-CPU layout: the next (out) or previous (in)
	                        * task, 0: the idle task */
	int cpu;               /* its queue's CPU in per-CPU layout, else 0 */
	uint64_t time;         /* perf time, ns */
	bool out;              /* switch out (else in) */
	bool preempt;          /* out while runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) */
};

/* A second process run on CPU 0 after the first's thread there (ptsynth
 * --then): its one thread's AUX data follows that thread's in queue 0; the
 * caller lists the switch records between them. */
struct ps_pd_then {
	pid_t pid;             /* its one thread's tid too */
	const char *comm;
	const struct ps_map *maps;
	size_t nmaps;
	const char *const *build_ids; /* as ps_pd's */
	uint64_t time;         /* perf time (ns) of its ITRACE_START on CPU 0 */
};

struct ps_pd {
	pid_t pid;
	pid_t ppid;            /* the process's parent (its EXIT record's) */
	int mtc;               /* the MTC period (attr config, AUXTRACE_INFO's CTC
	                        * ratio: encode.h PS_CTC_N/D), -1: no MTC */
	bool noretcomp;        /* config bit 0x800, priv NORETCOMP */
	bool cyc;              /* config bit 0x2 (priv CYC_BIT): cycle-accurate mode */
	bool per_cpu;          /* queue k is CPU k (with ITRACE_START), else thread */
	bool snapshot;         /* priv SNAPSHOT_MODE */
	bool bpf_records;      /* a KSYMBOL and a BPF_EVENT record (a loaded BPF program) */
	uint64_t meta_time;    /* perf time (ns) of the COMM/MMAP2 records */
	const struct ps_map *maps;
	size_t nmaps;
	const char *const *build_ids; /* each map's build id (lowercase hex, "": none),
				       * in its MMAP2 record as perf record --buildid-mmap
				       * writes it; NULL: none (maj, min, ino) */
	const struct ps_pd_queue *queues;
	size_t nqueues;
	const struct ps_pd_switch *switches; /* attr context_switch when any */
	size_t nswitches;
	const struct ps_pd_then *then;      /* NULL: none */
};

/*
 * Writes PD to PATH. Returns 0 or a negative errno (the file may then be
 * partly written).
 */
int ps_perf_write(const char *path, const struct ps_pd *pd);

#endif
