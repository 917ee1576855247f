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
 * Slow-call triggers (rec_trigger_init EXITS) add, per CPU, a uprobe on each
 * instruction where a call of the function leaves it (callexits.h: its returns
 * and tail calls; never a uretprobe, which would rewrite the return address
 * on the stack), on the return sites of its direct calls when it has tail
 * calls (callsites.h), and on the C++ runtime's catch entry (catchprobe.h), writing into the entry uprobe's ring
 * (PERF_EVENT_IOC_SET_OUTPUT), each sample led by its event's id
 * (PERF_SAMPLE_IDENTIFIER); every sample carries the user stack pointer
 * (PERF_SAMPLE_REGS_USER) so that an exit can be matched to its entry
 * (slowcall.h), and an exit's sample the registers that tell whether it
 * leaves (a jump taken, a jump's target). They wake the poller only when a
 * ring is half full, so the caller reads them on a timer too.
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

#include "callexits.h"
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
};

#define REC_TRIG_CATCH (-1)    /* rec_trig_exit_event exit: the C++ runtime's catch entry */
#define REC_TRIG_SITE(i) (-2 - (i)) /* rec_trig_exit_event exit: return site I of the
				    * function's direct calls (callsites.h) */

/* An exit probe's event (slow-call triggers), writing into its CPU's ring. */
struct rec_trig_exit_event {
	int fd;
	uint64_t id;           /* PERF_EVENT_IOC_ID: its samples' PERF_SAMPLE_IDENTIFIER */
	int exit;              /* index in the trigger's exits, REC_TRIG_CATCH or
				* REC_TRIG_SITE(I) */
	bool enabled;
};

struct rec_trigger {
	enum rec_mechanism mech;   /* BREAKPOINT or UPROBE (never AUTO) */
	int uprobe_type;           /* PMU type of the uprobe PMU */
	char path[4096];           /* uprobe: the ELF file holding the trigger */
	uint64_t file_offset;      /* uprobe: offset of the instruction in PATH */
	const struct rec_callexits *callexits; /* uprobe: the exits watched too, with the stack
				    * pointer (borrowed); NULL: the entry only */
	unsigned pages;            /* data pages of each ring (a power of two) */
	struct rec_trig_event *ev; /* owned: the rings, one per CPU or thread */
	int nev, cap;
	uint64_t *entry_ids;       /* EXITS: the id of each ring's entry event (owned,
				    * parallel to EV) */
	struct rec_trig_exit_event *xev; /* EXITS: the exit probes' events (owned),
				    * sorted by id once enabled */
	int nxev;
	size_t xev_cap;
	int nsites;                /* EXITS: the return sites watched, the first of
				    * callexits->sites (as many as the descriptors allow) */
	int entry_exit;            /* EXITS: the exit at the entry (a function that is
				    * one ret), whose samples are the entry's; -1: none */
	uint64_t inside;           /* exit samples of jumps that stayed in the function */
	uint64_t lost;             /* samples the kernel could not store (ring full):
				    * PERF_RECORD_LOST, and at close the events' counts */
	uint64_t foreign;          /* uprobe hits of other processes, dropped */
	bool cpu_wide;             /* the per-CPU uprobe events are open */
	pid_t pids[REC_MAX_PIDS];  /* the target processes whose hits count */
	int npids;
};

/* One sample of a trigger event: the trigger executed, or (RET) a call returned. */
struct rec_trig_sample {
	pid_t pid, tid;
	uint64_t time_ns;          /* the recording's clock (rec_perf_set_clock()), ns */
	uint64_t sp;               /* EXITS: the user stack pointer (0: unknown) */
	bool ret;                  /* at an exit: the call left the function (a return
				    * or a tail call), at stack pointer SP = its entry's */
	bool tail;                 /* RET at a jump out (a tail call): the call goes on in
				    * the function jumped to */
	bool back;                 /* at a return site of the function's direct calls
				    * (callsites.h): the caller of a call entered at
				    * stack pointer SP resumes, at IP */
	bool site;                 /* at an entry: its return address is a watched return
				    * site (a tail call out of it ends there) */
	bool part;                 /* RET at an exit of a part split off the function
				    * (callexits.h), which other callers may call too */
	bool caught;               /* the thread entered the C++ runtime's catch entry
				    * (catchprobe.h) at stack pointer SP: the calls entered
				    * at SP or deeper were left by an exception */
	bool has_args;             /* the registers came with the sample (user space) */
	uint64_t ip;               /* the user ip (when has_args) */
	uint64_t args[2];          /* the call's first two integer arguments (when has_args;
				    * meaningful at a function's entry) */
	uint64_t ret_addr;         /* EXITS, at the entry: the call's return address, the
				    * word at SP (0: not known) */
};

/* A trigger hit: one that may take a snapshot. */
struct rec_hit {
	pid_t pid, tid;
	uint64_t time_ns;          /* perf clock (local_clock), ns; a slow call: its return */
	uint64_t entry_ns;         /* a slow call: its entry (perf clock), else 0 */
	uint64_t duration_ns;      /* a slow call: time_ns - entry_ns, else 0 */
	bool thrown;               /* a slow call left by a C++ exception: TIME_NS is when
				    * the exception was caught (catchprobe.h), not a return */
	bool has_caller;           /* a slow call: CALLER_OFF is known */
	int64_t caller_off;        /* its return address less its entry's (bytes): where
				    * its caller resumes, from the function's entry */
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
 * uprobe PMU's type. EXITS (uprobe only; PATH/FILE_OFFSET the first
 * instruction of that function; borrowed, must outlive T) watches every
 * exit of each call as well, with the stack pointer; NULL: the entry only.
 * Returns 0, -EINVAL, or -EOPNOTSUPP for EXITS with a breakpoint or on an
 * architecture whose registers this file does not know.
 */
int rec_trigger_init(struct rec_trigger *t, enum rec_mechanism mech, int uprobe_type,
		     const char *path, uint64_t file_offset, const struct rec_callexits *exits);

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
 * OUT (at most MAX; the rest stay for the next call). With EXITS, an exit's
 * sample is kept (RET) only when the call leaves there (rec_callexit_leaves:
 * a jump that stays in the function is counted in T->inside and dropped).
 * Returns the number stored.
 */
int rec_trigger_read(struct rec_trigger *t, int idx, struct rec_trig_sample *out, int max);

/*
 * The most samples one ring of T can hold: reading that many from each
 * event drains every ring.
 */
int rec_trigger_ring_samples(const struct rec_trigger *t);

/* The TSC conversion of T's first event's mmap page into *TSC (known false
 * when T has no event or the kernel offers none). */
void rec_trigger_tsc(const struct rec_trigger *t, struct rec_tsc_conv *tsc);

/* Closes every event and frees T's memory; T->lost first takes the per-CPU
 * uprobes' own counts of the samples dropped (PERF_FORMAT_LOST) when they
 * are more. T may be re-initialized. */
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
