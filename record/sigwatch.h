/* SPDX-License-Identifier: MIT */
/*
 * sigwatch: the signals the kernel delivers to the traced processes, seen
 * as they happen, with perf_event_open(2) tracepoint events of the
 * recorder's own (perf records the same signal:signal_deliver into the
 * perf.data, with its call chain, for the converter; these wake the
 * recorder so that it takes the snapshot at the signal):
 *
 * - signal:signal_deliver on every thread of the targets (one event per
 *   thread that exists, inherit=1 so that threads created later report into
 *   their creator's ring, owned by a dummy event as in trigger.c), with the
 *   kernel filter sig_deliver_filter(): the signals that end a process, the
 *   crash signals and SIGABRT, the --trigger signal. Each sample has the
 *   tracepoint's fields (sig, code, errno, sa_handler: PERF_SAMPLE_RAW, read
 *   with libtraceevent from the format in tracefs) and the user ip
 *   (PERF_SAMPLE_REGS_USER): where the thread was when the signal came.
 * - exceptions:page_fault_user on the same threads, into an overwritable
 *   (write_backward) ring nobody wakes for: at a SIGSEGV or SIGBUS the
 *   thread's last page fault at the signal's ip gives the fault address,
 *   which signal_deliver does not carry. The ring holds the newest faults
 *   of the process (REC_SIGWATCH_FAULT_PAGES).
 * - signal:signal_generate on every CPU for all processes, with the kernel
 *   filter "pid == PID || ..." (the signal's receiver): who sent a signal
 *   to a target process (kill -9, the OOM killer), which signal_deliver in
 *   the receiver cannot tell; and which signal a SIGKILL of the kernel's
 *   stands for (sig_delivered_as_kill(): a Ctrl-C's SIGINT, a SIGTERM that
 *   ends the process unhandled is delivered as SIGKILL).
 *
 * - the abort probes (abortcause.h): one uprobe per file that holds the
 *   functions that abort a program on purpose (abort in the C library,
 *   libstdc++'s __terminate, Rust's panic hook), whose hit carries the user
 *   stack: the return addresses on it into the file's other such functions
 *   (assert()'s __assert_fail, __stack_chk_fail, the fortify checks, glibc's
 *   malloc_printerr) name the cause of a SIGABRT, which its call chain
 *   rarely shows (the C library has no frame pointers). On each thread of
 *   the targets (inherited by later threads) as signal_deliver, or on
 *   every CPU for all processes when the targets have more threads than
 *   there are CPUs (hits of other processes dropped): at most the smaller
 *   of the two per file, never one per function and CPU (each uprobe's
 *   close costs the kernel RCU grace periods: docs/design.md).
 *
 * Needs what sched:sched_switch samples need (CAP_PERFMON or paranoid -1,
 * tracefs readable: rec_host's sched_switch). Why: docs/design.md
 * "Signals and the exit".
 */
#ifndef SNAPTRACE_REC_SIGWATCH_H
#define SNAPTRACE_REC_SIGWATCH_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "abortcause.h"
#include "rec_opts.h"

#define REC_SIGWATCH_FAULT_PAGES 16   /* page faults kept: 64 KiB, about 1,300 */

/* One signal delivered to a thread of a target (the kernel's get_signal). */
struct rec_signal {
	pid_t pid, tid;
	uint64_t time_ns;          /* perf clock, ns */
	int sig, code, err;        /* si_signo, si_code, si_errno */
	bool handled;              /* the program's handler runs (sa_handler not SIG_DFL) */
	bool has_ip;
	uint64_t ip;               /* the user ip when it came (the faulting instruction) */
	bool has_addr;
	uint64_t addr;             /* the fault address (SIGSEGV, SIGBUS from a page fault) */
	pid_t sender_pid, sender_tid; /* who sent it (signal_generate), 0: unknown or itself */
	char sender_comm[16];
	const char *cause;         /* what aborted ("assert() failed": abortcause.c's
				    * abort_funcs[]), or NULL; static */
};

struct rec_sigwatch_event;

struct rec_sigwatch {
	void *tep;                 /* struct tep_handle * (libtraceevent), owned */
	void *deliver, *generate, *fault; /* their struct tep_event *, NULL: not open */
	struct rec_sigwatch_event *ev; /* owned */
	int nev, cap;
	pid_t pids[REC_MAX_PIDS];  /* the target processes */
	int npids;
	int trigger;               /* --trigger signal:NAME's signal, 0: none */
	struct rec_signal sent[16];/* recent signal_generate of the targets, newest last
				    * (handled: ignored, never delivered) */
	int nsent;
	struct rec_signal aborts[16]; /* recent hits of the abort probes (tid, time,
				       * cause), newest last */
	int naborts;
	struct rec_abort_file abort_files[REC_ABORT_FILES]; /* the files probed (their
							     * fds closed once probed) */
	int nabort_files;
	bool abort_defined[REC_ABORT_FILES]; /* its uprobe defined in tracefs (uprobedef.h) */
	int abort_events;          /* the uprobe events opened on them */
	uint64_t lost;             /* samples the kernel dropped (a ring full) */
};

/*
 * Opens the events (disabled) for processes PIDS (NPIDS of them): every
 * thread of each, and the per-CPU signal_generate. TRIGGER: a signal to
 * watch however it is handled (0: none). Returns 0, or a negative errno
 * with WHY (SIZE bytes) saying what failed; *W is then closed.
 */
int rec_sigwatch_open(struct rec_sigwatch *w, const pid_t *pids, int npids, int trigger,
		      char *why, size_t size);

/*
 * Adds the abort probes on the files rec_abort_files_find() finds for EXE
 * (the target's executable) and PID (an attached target; 0: a launched
 * one), after rec_sigwatch_open(): each a uprobe defined in tracefs
 * (uprobedef.h) on each thread it watches, or on every CPU when they
 * outnumber the CPUs; without tracefs write access, of the uprobe PMU
 * (type UPROBE_TYPE, -1: none) on every CPU. Returns how many uprobe
 * events were opened, also in W->abort_events (0: none found or none could
 * be; the signals are still watched).
 */
int rec_sigwatch_probe_aborts(struct rec_sigwatch *w, const char *exe, pid_t pid,
			      int uprobe_type);

/* Enables every event. Returns 0 or a negative errno. */
int rec_sigwatch_enable(struct rec_sigwatch *w);

/* The fds to poll for signals (POLLIN: samples to read) into PF (at most
 * MAX entries). Returns how many. A ring whose thread ended reports POLLHUP
 * for ever: it gets fd -1 (poll skips it) and is read on a timer. */
int rec_sigwatch_fds(struct rec_sigwatch *w, struct pollfd *pf, int max);

/* Marks the rings whose entries of PF (N of them, as rec_sigwatch_fds()
 * filled them) report POLLHUP. Returns whether any ring of W has so far:
 * then read it every 100 ms. */
bool rec_sigwatch_hup(struct rec_sigwatch *w, const struct pollfd *pf, int n);

/*
 * Moves the signals delivered since the last call into OUT (at most MAX,
 * in each ring's order; the rest stay for the next call), each with its
 * sender and, for a fault, its address; a SIGKILL the kernel delivered for
 * another signal is that signal, and one the kernel gave without sending
 * it (the other threads' at exit_group, execve or a core dump) is left out.
 * Returns how many.
 */
int rec_sigwatch_read(struct rec_sigwatch *w, struct rec_signal *out, int max);

/* Whether signal SIG was sent to process PID (the newest signal_generate
 * read by rec_sigwatch_read() W keeps) and not ignored there: it is then
 * being delivered, or was. */
bool rec_sigwatch_sent(const struct rec_sigwatch *w, pid_t pid, int sig);

/* Closes every event and frees what W owns (W may be opened again). */
void rec_sigwatch_close(struct rec_sigwatch *w);

#endif
