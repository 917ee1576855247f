/* SPDX-License-Identifier: MIT */
/*
 * sigmarks.c: the signals: [crash]/[signal] instants, the stack at the
 * signal, the abort's cause, how the program ended.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_SIGMARKS_H
#define SNAPTRACE_CONVERT_SIGMARKS_H

#include "state.h"

/* A signal:signal_deliver sample of the input (sigmarks.c): where the
 * thread was when the signal came. */
struct conv_signal_seen {
	int64_t pid, tid;
	uint64_t ts;                   /* ns */
	bool has_fields;               /* the tracepoint's text was printed: */
	int sig, code;
	bool handled;                  /* sa_handler not SIG_DFL */
	struct conv_site *frames;      /* its user-space call chain, innermost first; owned */
	size_t nframes;
};

/* sigmarks.c: keeps the signal:signal_deliver sample of T at TS (its fields
 * F, its chain FRAMES, N of them, kernel frames first) for the markers.
 * Returns its index in c->signals_seen, or -1 (too many, out of memory). */
int conv_signal_seen(struct conv *c, struct conv_thread *t, uint64_t ts,
		     const struct conv_signal_deliver *f, const struct conv_site *frames, size_t n);

/* sigmarks.c: the stack at signal I (c->signals_seen) closes T's sampled
 * stacks at TS (its time, in order with T's other events); nothing for a
 * thread traced by branches, which already end where it was. */
void conv_signal_stack(struct conv *c, struct conv_thread *t, size_t i, uint64_t ts);

/* sigmarks.c: the cause of an abort from its chain FRAMES (N, innermost
 * first): "assert() failed", "uncaught C++ exception", "Rust panic", "stack
 * smashing detected", "buffer overflow detected", "glibc malloc check
 * failed", "abort()"; NULL when no frame says. *SITE: the index of the
 * frame it came from, the first outside the abort's own functions and the
 * C library's that carry it out (raise, pthread_kill...); N when none is. */
const char *conv_abort_cause(const struct conv_site *frames, size_t n, size_t *site);

/* sigmarks.c: "[crash] SIGSEGV" / "[signal] SIGABRT" instants of every
 * recording's signals (with perf's samples of them) and of the samples no
 * recording lists, on the thread's track and the triggers track. */
void conv_sigmarks_write(struct conv *c);

/* sigmarks.c: how each recorded process ended ("the program was killed by
 * SIGSEGV (...) in boom (crash.c:7), thread 1234"): a summary line each
 * when PRINT, else the trace's fact FXT_INFO_ENDED. */
void conv_sigmarks_report(struct conv *c, bool print);

/* sigmarks.c: frees c->signals_seen. */
void conv_sigmarks_free(struct conv *c);

#endif
