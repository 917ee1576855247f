/* SPDX-License-Identifier: MIT */
/*
 * slowcall: the slow-call trigger (--trigger-slower-than). Takes the
 * samples of a function's entry uprobe and of the uprobes on its exits
 * (trigger.h, callexits.h: its returns and tail calls, with the user stack
 * pointer) and measures every call: per thread, a stack of the calls
 * entered and not yet returned, each with its stack pointer and entry time.
 * A return (an exit's sample) is matched to its entry by the stack pointer
 * (at the exit instruction it points at the return address, as at the
 * entry), never by order alone, so recursion and nesting are measured call
 * by call. A call left by a C++ exception ends where the exception is
 * caught (a sample of the runtime's catch entry, catchprobe.h: it ends every
 * call its thread entered at the catch's stack pointer or deeper) and is
 * measured as any other, marked thrown. A call that leaves by a tail call
 * goes on in the function jumped to: when its return address is a watched
 * return site (callsites.h) it ends when its caller resumes there (a sample
 * at the site, with the stack pointer one word above the entry's and the
 * call's return address as ip), or when its chain of tail calls enters the
 * function again at its stack pointer; from another caller it ends at the
 * jump (counted tail_at_jump). Calls that end unseen (longjmp, exit,
 * an exception with no catch probe, a sample the kernel lost) are dropped,
 * and counted unended, as soon as a later entry or return
 * shows their frame is gone: an entry at the stack pointer S ends every
 * call entered at S or deeper (lower), a return ends every call deeper than
 * its own. Memory is bounded: REC_SLOW_DEPTH calls per thread (the returns
 * of deeper ones are recognised, not counted unmatched), REC_SLOW_THREADS
 * threads inside the function at once.
 *
 * The samples come from per-CPU rings, so a thread that moved between CPUs
 * may have its return read before its entry. The caller reads every ring
 * in passes and calls rec_slowcall_pass() after each one; a sample is
 * matched only after the pass following the one that read it, when every
 * earlier sample has been read too, and the samples are matched in time
 * order. Why: docs/design.md "Triggers".
 */
#ifndef SNAPTRACE_REC_SLOWCALL_H
#define SNAPTRACE_REC_SLOWCALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trigger.h"
#include "unrecorded.h"

/* Where a call that leaves by a tail call ends, as messages say it: the
 * function it jumped to returns in its place, and the recorder sees its
 * caller resume (callsites.h). */
#define REC_SLOW_TAIL_END "ends where its caller resumed"

#define REC_SLOW_DEPTH 64        /* calls of the function in one thread at once */
#define REC_SLOW_THREADS 4096    /* threads inside the function at once */

/* One call entered and not returned yet. */
struct rec_slow_entry {
	uint64_t sp;                 /* the user stack pointer at the entry */
	uint64_t time_ns;            /* perf clock */
	uint64_t ret_addr, ip;       /* its return address (0: not known) and entry */
	bool site;                   /* RET_ADDR is a watched return site (callsites.h) */
	uint64_t tail_ns;            /* when it left by a tail call, going on in the
				        function jumped to until its caller resumes at
				        RET_ADDR (0: it did not) */
};

/* The calls a thread is in, outermost first. */
struct rec_slow_thread {
	pid_t pid, tid;
	int depth;
	int deeper;                  /* calls entered deeper than the REC_SLOW_DEPTH kept */
	struct rec_slow_entry e[REC_SLOW_DEPTH];
};

/* Called with each slow call; HIT holds its return, entry and duration. */
typedef void (*rec_slowcall_fn)(const struct rec_hit *hit, void *arg);

struct rec_slowcall {
	uint64_t slower_than_ns;     /* a call longer than this is a hit */
	rec_slowcall_fn every;       /* called with every call measured (--measure), or NULL */
	void *every_arg;
	struct rec_trig_sample *pending; /* read, not matched yet (owned) */
	size_t npending, pending_cap;
	uint64_t read_max_ns;        /* the latest time of a sample added */
	uint64_t ready_ns;           /* samples up to this time can be matched */
	struct rec_slow_thread *threads; /* owned */
	int nthreads;
	size_t threads_cap;
	uint64_t calls;              /* calls measured (a return or a catch matched to
				        its entry) */
	uint64_t thrown;             /* of those, left by a C++ exception (ended at its catch) */
	uint64_t slow;               /* of the calls, longer than SLOWER_THAN_NS */
	uint64_t slow_thrown;        /* of those, left by a C++ exception */
	uint64_t tail;               /* of the calls, left by a tail call and measured to
				        their caller's resumption at a return site */
	uint64_t tail_at_jump;       /* of the calls, left by a tail call from a caller
				        whose return site is not watched (a call
				        through a pointer, from another file): measured
				        to the jump only */
	uint64_t unended;            /* calls whose end was not seen (longjmp, an exception
				        not caught through the catch probe, a lost
				        sample): their duration is not known */
	uint64_t unmatched;          /* returns without their entry (it came before the
				        trigger was armed, or was lost); the returns of
				        parts split off the function (rec_trig_sample
				        part) that match no call are not counted: others
				        may call those parts */
	uint64_t untracked;          /* entries not kept: too deep, too many threads,
				        no stack pointer, out of memory */
	uint64_t open_at_end;        /* calls entered and not ended when the matcher was
				        freed (rec_slowcall_free(): the recording's
				        end): still running then */
	const struct rec_recorded *recorded; /* the threads the trace holds (borrowed;
				        NULL: every one) */
	struct rec_unrecorded unrecorded;      /* of CALLS, those in other threads */
	struct rec_unrecorded unrecorded_slow; /* of SLOW, those in other threads */
};

/* Sets up *SC for calls longer than SLOWER_THAN_NS (> 0). */
void rec_slowcall_init(struct rec_slowcall *sc, uint64_t slower_than_ns);

/*
 * Adds sample S (an entry, a return: S->ret, a caller resumed: S->back, or a
 * catch: S->caught) read from a ring in the
 * current pass. Returns 0, or -ENOMEM (the sample is counted in untracked
 * or unmatched and dropped).
 */
int rec_slowcall_add(struct rec_slowcall *sc, const struct rec_trig_sample *s);

/*
 * Ends a pass over every ring: matches, in time order, the samples that no
 * sample still unread can precede (those up to the latest time added
 * before the previous pass ended), and calls FN(hit, ARG) for each call
 * longer than the threshold (FN may be NULL), and SC->every for every call,
 * in the order the calls returned (or were left by an exception: hit.thrown). Returns the
 * number of samples still pending (to be matched after the next pass).
 */
size_t rec_slowcall_pass(struct rec_slowcall *sc, rec_slowcall_fn fn, void *arg);

/* Frees what SC holds, counting the calls still open in SC->open_at_end. */
void rec_slowcall_free(struct rec_slowcall *sc);

#endif
