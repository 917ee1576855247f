/* SPDX-License-Identifier: MIT */
/*
 * signals: the names and kinds of Linux signals, as both programs show them
 * (the recorder's summary, --trigger signal:NAME and record.json; the
 * converter's markers). Numbers are the kernel's (asm/signal.h, x86-64 and
 * arm64 alike for the ones named here), si_code values those of
 * asm-generic/siginfo.h; the default actions are signal(7)'s table.
 * Why: docs/design.md "Signals and the exit".
 */
#ifndef SNAPTRACE_SIGNALS_H
#define SNAPTRACE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the kernel does with a signal nobody handles (signal(7)). */
enum sig_action {
	SIG_ACTION_TERM,    /* terminate */
	SIG_ACTION_CORE,    /* terminate and dump core */
	SIG_ACTION_IGNORE,
	SIG_ACTION_STOP,
	SIG_ACTION_CONT,
};

#define SIG_NAME_MAX 16     /* "SIGRTMIN+15", with its NUL */

/* The name of signal SIG ("SIGSEGV", "SIGRTMIN+2", "SIG77" for a number no
 * signal has) into BUF (SIZE bytes, SIG_NAME_MAX is enough). Returns BUF. */
const char *sig_name(int sig, char *buf, size_t size);

/*
 * Reads a signal as a user writes it: "SIGSEGV", "SEGV", "segv",
 * "SIGRTMIN+2", or its number "11" (1 to 64). Returns 0 with *SIG, or -1.
 */
int sig_parse(const char *s, int *sig);

/* The name of si_code CODE of signal SIG ("SEGV_MAPERR", "SI_USER",
 * "SI_TKILL", "SI_KERNEL", ...), or NULL for a value it does not know. */
const char *sig_code_name(int sig, int code);

/* SIG's default action (signal(7)); real-time signals terminate. */
enum sig_action sig_default_action(int sig);

/* Whether a signal nobody handles ends the process (TERM or CORE). */
bool sig_fatal_by_default(int sig);

/*
 * Whether the kernel ends a process that does not handle SIG without ever
 * delivering SIG: as SIG is sent, a default action that terminates without
 * a core dump (TERM, SIGKILL aside) becomes a SIGKILL queued to every
 * thread (kernel/signal.c complete_signal(), the process not ptraced), and
 * signal:signal_deliver shows SIGKILL with si_code SI_USER, no siginfo;
 * signal:signal_generate and the exit status still say SIG.
 */
bool sig_delivered_as_kill(int sig);

/*
 * Whether SIG with CODE is a crash: the CPU faulted on the program's own
 * instruction (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS raised by
 * the kernel: CODE > 0, SI_KERNEL included), not a signal some process sent
 * (kill, raise, abort: CODE <= 0).
 */
bool sig_is_crash(int sig, int code);

/* Whether SIG's CODE carries a fault address (si_addr): SIGSEGV and
 * SIGBUS raised by a page fault. */
bool sig_has_fault_addr(int sig, int code);

/*
 * The kernel filter (ftrace filter syntax, over signal:signal_deliver's
 * fields sig and sa_handler) that passes the signals a recording watches:
 * those that end the process unhandled (sa_handler 0, SIG_DFL, and a
 * default action TERM or CORE), the crash signals and SIGABRT even when
 * handled, and TRIGGER (0: none) however it is handled. Into BUF (SIZE
 * bytes, 512 is enough). Returns BUF.
 */
const char *sig_deliver_filter(int trigger, char *buf, size_t size);

/* Whether a signal:signal_deliver of SIG with HANDLER (sa_handler; 0: SIG_DFL) passes
 * sig_deliver_filter(TRIGGER): the same rule, for the recorder's own check. */
bool sig_watched(int sig, unsigned long handler, int trigger);

/* How a process ended, as both programs' summaries say it. */
struct sig_ending {
	bool exited;               /* it exited with STATUS */
	int status;
	int sig;                   /* the signal that killed it, or (EXITED) the crash
				    * signal it handled before; 0: none */
	bool has_code;
	int code;                  /* its si_code */
	bool core_known, core;     /* a core was dumped */
	bool has_addr, has_ip;
	uint64_t addr, ip;         /* fault address; user ip when it came */
	const char *cause;         /* what aborted: "assert() failed"...; NULL */
	const char *where;         /* "boom (crash.c:7)": the function it came in; NULL */
	const char *inside;        /* "abort": the library function WHERE called that
				    * raised it (an abort's), NULL: none */
	int64_t tid;               /* the thread it came to, 0: unknown */
	bool tid_unrecorded;       /* TID is a thread the recording leaves out */
	int64_t sender_pid;        /* another process that sent it, 0: none */
	const char *sender_comm;   /* its comm, NULL: unknown */
	bool by_stop;              /* the signal stopped the recording too (Ctrl-C on
				    * the terminal reached both): its end all the same */
};

/* What to do about threads the recording leaves out (without --multi-thread). */
#define SIG_UNRECORDED_HINT "record every thread with --multi-thread"

/*
 * E as words after "the program " / "process N ": "exited with status 3",
 * "was killed by SIGSEGV (SEGV_MAPERR, address 0x0) in boom (crash.c:7),
 * thread 1234, core dumped", "was killed by SIGABRT (abort()) in die
 * (crash.c:9), inside abort, thread 1234", "was killed by SIGKILL from process 99
 * (kill)", "was killed by SIGINT, which stopped the recording too", "...,
 * thread 1234 (not recorded: its stack is not in the trace; record every
 * thread with --multi-thread)" (TID_UNRECORDED), "exited
 * with status 1
 * after handling SIGSEGV (...) in boom (crash.c:7), thread 1234", "ended
 * (its exit status is unknown)". Into BUF
 * (SIZE bytes). Returns BUF.
 */
const char *sig_ending_text(const struct sig_ending *e, char *buf, size_t size);

/*
 * The one rule of every program here (the front end, the recorder, the
 * converter, stats) and of the children they start: a signal that was
 * ignored (SIG_IGN) when the program started stays ignored, whenever it
 * comes. The user or the shell asked for it (nohup ignores SIGHUP, a
 * background job of a script SIGINT and SIGQUIT) and exec keeps it, so it
 * was ignored before main() too; no handler, block or reset may undo it.
 * Why: docs/design.md "Process model" (its "Signals from the first line of
 * main()").
 *
 * sig_note_start() reads which of signals 1..64 are ignored now; each
 * main() calls it first thing, before it sets a disposition of its own
 * (later calls change nothing). sig_ignored_at_start(SIG) says whether SIG
 * was (noting them first when nobody did); async-signal-safe once noted (a
 * child between fork and exec asks it).
 */
void sig_note_start(void);
bool sig_ignored_at_start(int sig);

/* Into *SET the signals of SIGS (N of them) that were not ignored at start:
 * those the program may block, catch or read from a signalfd. Returns SET. */
sigset_t *sig_not_ignored(const int *sigs, size_t n, sigset_t *set);

/*
 * The stop signals of the front end and the recorder: each ends a recording
 * as Ctrl-C does (the snapshot, the trace written, the recording removed or
 * kept as -d says) and stops a conversion (the recording kept and named).
 * SIGINT, SIGTERM and SIGHUP, and every other signal a user or the kernel
 * sends whose default action would end the recorder without a word, its
 * recording left unnamed in TMPDIR: SIGQUIT (Ctrl-\\), SIGUSR1, SIGUSR2,
 * SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU. X(SIG)
 * for each; SIG_STOPS_MASK is them as the kernel's sigset (bit SIG - 1).
 */
#define SIG_STOPS(X) X(SIGINT) X(SIGTERM) X(SIGHUP) X(SIGQUIT) X(SIGUSR1) X(SIGUSR2) \
	X(SIGALRM) X(SIGVTALRM) X(SIGPROF) X(SIGIO) X(SIGPWR) X(SIGSTKFLT) X(SIGXCPU)
#define SIG_STOPS_BIT(sig) | (UINT64_C(1) << ((sig) - 1))
#define SIG_STOPS_MASK (0 SIG_STOPS(SIG_STOPS_BIT))
extern const int sig_stops[];
extern const size_t sig_nstops;

/* The first stop signal pending (blocked, not yet read), or 0. */
int sig_stop_pending(void);

#endif
