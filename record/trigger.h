/* SPDX-License-Identifier: MIT */
/*
 * trigger: notices when a target thread executes the trigger address, with
 * perf_event_open(2) events that sample every hit (sample_period 1) into a
 * small ring buffer per event: a hardware execute breakpoint
 * (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X at the runtime address), or the
 * uprobe PMU (type from /sys/bus/event_source/devices/uprobe/type, config1 =
 * pointer to the file path, config2 = file offset).
 *
 * Breakpoints: one event per existing thread, each with inherit=1 so that
 * threads created later report into their creator's buffer (the kernel sends
 * the output of inherited events to the parent event). The kernel refuses to
 * mmap an inherited per-task event, so each thread also gets a dummy
 * software event that owns the ring, and PERF_EVENT_IOC_SET_OUTPUT sends the
 * trigger event's samples there.
 * Uprobes: one event per CPU for all processes, hits of other processes
 * dropped (an inherited uprobe makes the target's clone() fail with EFAULT:
 * the kernel re-reads config1, our pointer, in the target's memory). While
 * recording, every process that runs the probed code takes the trap.
 * Slow-call triggers (rec_trigger_init RETURNS) add a uretprobe per CPU
 * (config bit 0 "retprobe", /sys/bus/event_source/devices/uprobe/format),
 * which fires when a call of the function returns, and both events sample
 * the user stack pointer (PERF_SAMPLE_REGS_USER) so that a return can be
 * matched to its entry (slowcall.h); they wake the poller only when a ring
 * is half full, so the caller reads them on a timer too.
 * Events are opened disabled; the
 * caller puts their fds in its poll set and only then enables them, so a
 * single early hit cannot be missed. Sample records follow
 * include/uapi/linux/perf_event.h (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
 * PERF_SAMPLE_REGS_USER): the time is perf's clock, the same one `perf
 * record` stamps samples with; the user registers give the hit's ip and the
 * call's first two integer arguments (x86-64 rdi, rsi; arm64 x0, x1), and,
 * when returns are watched, the stack pointer.
 * Why: docs/design.md "Triggers".
 */
#ifndef SNAPTRACE_REC_TRIGGER_H
#define SNAPTRACE_REC_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rec_opts.h"

/* One perf event watching one thread (and the threads it creates later). */
struct rec_trig_event {
	int fd;                /* the ring holder to poll (a dummy event, or the uprobe) */
	int event_fd;          /* the breakpoint (inherit=1) or the uprobe */
	pid_t pid, tid;        /* -1 for a per-CPU uprobe */
	int cpu;               /* -1 for a per-thread breakpoint */
	void *ring;            /* mmap of 1 + REC_TRIG_PAGES pages */
	bool enabled;
	bool hup;              /* the thread exited: poll reports POLLHUP forever */
	bool ret;              /* the uretprobe: its samples are returns */
};

struct rec_trigger {
	enum rec_mechanism mech;   /* BREAKPOINT or UPROBE (never AUTO) */
	int uprobe_type;           /* PMU type of the uprobe PMU */
	char path[4096];           /* uprobe: the ELF file holding the trigger */
	uint64_t file_offset;      /* uprobe: offset of the instruction in PATH */
	bool returns;              /* uprobe: also a uretprobe, and the stack pointer */
	unsigned pages;            /* data pages of each ring (a power of two) */
	struct rec_trig_event *ev; /* owned */
	int nev, cap;
	uint64_t lost;             /* hits the kernel could not store (ring full) */
	uint64_t foreign;          /* uprobe hits of other processes, dropped */
	bool cpu_wide;             /* the per-CPU uprobe events are open */
	pid_t pids[REC_MAX_PIDS];  /* the target processes whose hits count */
	int npids;
};

/* One sample of a trigger event: the trigger executed, or (RET) a call returned. */
struct rec_trig_sample {
	pid_t pid, tid;
	uint64_t time_ns;          /* the recording's clock (rec_perf_set_clock()), ns */
	uint64_t sp;               /* RETURNS: the user stack pointer (0: unknown) */
	bool ret;                  /* from the uretprobe: the function returned */
	bool has_args;             /* the registers came with the sample (user space) */
	uint64_t ip;               /* the user ip (when has_args) */
	uint64_t args[2];          /* the call's first two integer arguments (when has_args;
				    * meaningful at a function's entry) */
};

/* A trigger hit: one that may take a snapshot. */
struct rec_hit {
	pid_t pid, tid;
	uint64_t time_ns;          /* perf clock (local_clock), ns; a slow call: its return */
	uint64_t entry_ns;         /* a slow call: its entry (perf clock), else 0 */
	uint64_t duration_ns;      /* a slow call: time_ns - entry_ns, else 0 */
	bool has_args;             /* the registers came with the hit (user space) */
	uint64_t ip;               /* the user ip hit (when has_args) */
	uint64_t args[2];          /* the call's first two integer arguments (when has_args) */
};

/* How the TSC converts to perf's clock, from an event's mmap page
 * (struct perf_event_mmap_page: time_shift, time_mult, time_zero). */
struct rec_tsc_conv {
	bool known;                /* the kernel offers it (cap_user_time_zero): a TSC
				    * clocksource with a native sched_clock */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
};

/*
 * Sets up *T (no event yet) for mechanism MECH (BREAKPOINT or UPROBE).
 * For the uprobe PATH and FILE_OFFSET say where to probe; UPROBE_TYPE is the
 * uprobe PMU's type. RETURNS (uprobe only; PATH/FILE_OFFSET the first
 * instruction of a function) watches every return as well, with the stack
 * pointer. Returns 0, -EINVAL, or -EOPNOTSUPP for RETURNS with a breakpoint
 * or on an architecture whose stack pointer register this file does not know.
 */
int rec_trigger_init(struct rec_trigger *t, enum rec_mechanism mech, int uprobe_type,
		     const char *path, uint64_t file_offset, bool returns);

/*
 * Breakpoints only: opens a disabled breakpoint at runtime address BP_ADDR
 * on thread TID of process PID, maps its ring and appends it to T.
 * Returns the new event's index, -EEXIST when TID already has one, -EINVAL
 * for a uprobe trigger, or a negative errno from perf_event_open/mmap.
 */
int rec_trigger_add_thread(struct rec_trigger *t, pid_t pid, pid_t tid, uint64_t bp_addr);

/*
 * Makes hits of process PID count. Breakpoints: adds every thread of PID
 * (rec_trigger_add_thread at BP_ADDR), enumerating /proc/PID/task again
 * until a pass finds no new thread. Uprobes: opens the per-CPU events the
 * first time. Returns the number of events added (0 is fine for a uprobe
 * already open), or a negative errno when none could be opened.
 */
int rec_trigger_add_process(struct rec_trigger *t, pid_t pid, uint64_t bp_addr);

/* Enables every event not enabled yet. Returns 0 or a negative errno. */
int rec_trigger_enable(struct rec_trigger *t);

/*
 * Moves the samples of the target processes stored in event IDX's ring into
 * OUT (at most MAX; the rest stay for the next call). Returns the number
 * stored.
 */
int rec_trigger_read(struct rec_trigger *t, int idx, struct rec_trig_sample *out, int max);

/*
 * The most samples one ring of T can hold: reading that many from each
 * event drains every ring.
 */
int rec_trigger_ring_samples(const struct rec_trigger *t);

/*
 * REC_RET_SP_DELTA: bytes the return instruction pops (the stack pointer in
 * a return's sample minus the one at its call's entry). Defined where
 * trigger.c knows the stack pointer register (REC_SAMPLE_SP_REG).
 */
#if defined(__x86_64__)
#define REC_RET_SP_DELTA 8     /* ret pops the return address */
#elif defined(__aarch64__)
#define REC_RET_SP_DELTA 0     /* ret branches to x30 */
#else
#define REC_RET_SP_DELTA 0     /* unused: rec_trigger_init refuses RETURNS */
#endif

/* The TSC conversion of T's first event's mmap page into *TSC (known false
 * when T has no event or the kernel offers none). */
void rec_trigger_tsc(const struct rec_trigger *t, struct rec_tsc_conv *tsc);

/* Closes every event and frees T's memory. T may be re-initialized. */
void rec_trigger_close(struct rec_trigger *t);

/*
 * Self-test in this process: whether a breakpoint and a uprobe fire when
 * this program calls a function of its own. UPROBE_TYPE < 0 skips the
 * uprobe test. Each result is 1 fired, 0 opened but did not fire, or a
 * negative errno when perf_event_open failed.
 */
void rec_trigger_selftest(int uprobe_type, int *breakpoint, int *uprobe);

/* "breakpoint", "uprobe" or "auto". */
const char *rec_mechanism_name(enum rec_mechanism m);

#endif
