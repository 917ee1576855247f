/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/slowcall: the matching of returns to entries by the
 * stack pointer (nesting, recursion, threads, calls that never return,
 * lost samples, depth and memory bounds) and the release of samples only
 * after the pass that follows the one that read them (a return read before
 * its entry). Synthetic samples: SP values as the kernel gives them (at an
 * exit instruction the stack pointer is the entry's).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "slowcall.h"
#include "unit.h"

#define MS 1000000ULL

/* The hits FN received, in order. */
static struct rec_hit got[256];
static int ngot;

static void collect(const struct rec_hit *hit, void *arg)
{
	(void)arg;
	if (ngot < 256)
		got[ngot++] = *hit;
}

static void entry(struct rec_slowcall *sc, pid_t tid, uint64_t sp, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = tid, .time_ns = t, .sp = sp };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

static void ret(struct rec_slowcall *sc, pid_t tid, uint64_t sp, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = tid, .time_ns = t, .sp = sp, .ret = true };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

/* Two passes: everything added so far is matched. */
static void settle(struct rec_slowcall *sc)
{
	rec_slowcall_pass(sc, collect, NULL);
	CHECK_INT_EQ((int)rec_slowcall_pass(sc, collect, NULL), 0);
}

static struct rec_slowcall start(uint64_t threshold)
{
	struct rec_slowcall sc;

	rec_slowcall_init(&sc, threshold);
	ngot = 0;
	return sc;
}

static void slowcall_outer_of_recursion(void)
{
	struct rec_slowcall sc = start(10 * MS);

	/* outer (16 ms) calls itself twice (3 ms), each calls itself twice (1 ms) */
	entry(&sc, 7, 0x1000, 100 * MS);
	for (int i = 0; i < 2; i++) {
		uint64_t t = 104 * MS + (uint64_t)i * 4 * MS;

		entry(&sc, 7, 0xf00, t);
		entry(&sc, 7, 0xe00, t + MS / 4);
		ret(&sc, 7, 0xe00, t + MS);
		entry(&sc, 7, 0xe00, t + MS + MS / 4);
		ret(&sc, 7, 0xe00, t + 2 * MS);
		ret(&sc, 7, 0xf00, t + 3 * MS);
	}
	ret(&sc, 7, 0x1000, 116 * MS);
	settle(&sc);
	CHECK_U64_EQ(sc.calls, 7);
	CHECK_INT_EQ(ngot, 1);
	CHECK_U64_EQ(got[0].entry_ns, 100 * MS);
	CHECK_U64_EQ(got[0].time_ns, 116 * MS);
	CHECK_U64_EQ(got[0].duration_ns, 16 * MS);
	CHECK_INT_EQ(got[0].tid, 7);
	CHECK_INT_EQ(sc.nthreads, 0);   /* no call in progress: nothing kept */
	CHECK_U64_EQ(sc.unmatched, 0);
	rec_slowcall_free(&sc);
}

static void slowcall_threads_apart(void)
{
	struct rec_slowcall sc = start(10 * MS);

	/* the same stack pointers in two threads, interleaved */
	entry(&sc, 1, 0x1000, 0);
	entry(&sc, 2, 0x1000, 1 * MS);
	ret(&sc, 1, 0x1000, 2 * MS);        /* thread 1: 2 ms */
	entry(&sc, 1, 0x1000, 3 * MS);
	ret(&sc, 2, 0x1000, 31 * MS);       /* thread 2: 30 ms */
	ret(&sc, 1, 0x1000, 18 * MS);       /* thread 1: 15 ms (read late) */
	settle(&sc);
	CHECK_U64_EQ(sc.calls, 3);
	CHECK_INT_EQ(ngot, 2);
	/* in the order of the returns */
	CHECK_INT_EQ(got[0].tid, 1);
	CHECK_U64_EQ(got[0].duration_ns, 15 * MS);
	CHECK_INT_EQ(got[1].tid, 2);
	CHECK_U64_EQ(got[1].duration_ns, 30 * MS);
	rec_slowcall_free(&sc);
}

/* A thread's return while a thread kept after it is in a call: the first
 * one is forgotten (its slot takes the last thread's), its call measured
 * from its own entry, not the other thread's. */
static void slowcall_return_before_other_thread(void)
{
	struct rec_slowcall sc = start(10 * MS);

	entry(&sc, 1, 0x1000, 0);
	entry(&sc, 2, 0x2000, 20 * MS);
	ret(&sc, 1, 0x1000, 30 * MS);       /* thread 1: 30 ms */
	ret(&sc, 2, 0x2000, 60 * MS);       /* thread 2: 40 ms */
	settle(&sc);
	CHECK_INT_EQ(ngot, 2);
	CHECK_U64_EQ(got[0].duration_ns, 30 * MS);
	CHECK_U64_EQ(got[1].duration_ns, 40 * MS);
	rec_slowcall_free(&sc);
}

static void slowcall_return_read_before_entry(void)
{
	struct rec_slowcall sc = start(10 * MS);

	/* the thread moved: its return is in a ring read before its entry's */
	ret(&sc, 3, 0x2000, 50 * MS);
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 1);
	entry(&sc, 3, 0x2000, 20 * MS);
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 0);
	CHECK_INT_EQ(ngot, 1);
	CHECK_U64_EQ(got[0].duration_ns, 30 * MS);
	CHECK_U64_EQ(sc.unmatched, 0);
	rec_slowcall_free(&sc);
}

static void slowcall_pass_waits_for_the_next(void)
{
	struct rec_slowcall sc = start(10 * MS);

	entry(&sc, 3, 0x2000, 20 * MS);
	ret(&sc, 3, 0x2000, 50 * MS);
	/* read in this pass: an earlier sample may still be unread in another ring */
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 2);
	CHECK_INT_EQ(ngot, 0);
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 0);
	CHECK_INT_EQ(ngot, 1);
	rec_slowcall_free(&sc);
}

static void slowcall_never_returned(void)
{
	struct rec_slowcall sc = start(10 * MS);

	/* longjmp out of a call at 0x1000; later calls at the same depth */
	entry(&sc, 4, 0x1000, 0);
	entry(&sc, 4, 0x1000, 40 * MS);
	ret(&sc, 4, 0x1000, 41 * MS);
	/* longjmp out of a nested call (0x900): the outer call's return ends it */
	entry(&sc, 4, 0x1000, 50 * MS);
	entry(&sc, 4, 0x900, 51 * MS);
	ret(&sc, 4, 0x1000, 52 * MS);
	settle(&sc);
	CHECK_U64_EQ(sc.calls, 2);
	CHECK_U64_EQ(sc.unended, 2);
	CHECK_INT_EQ(ngot, 0);   /* the abandoned call is not a 41 ms call */
	CHECK_INT_EQ(sc.nthreads, 0);
	/* lost returns: entries at one depth, over and over, keep one */
	for (int i = 0; i < 1000; i++)
		entry(&sc, 4, 0x1000, 100 * MS + (uint64_t)i * 1000);
	settle(&sc);
	CHECK_INT_EQ(sc.threads[0].depth, 1);
	rec_slowcall_free(&sc);
}

static void caught(struct rec_slowcall *sc, pid_t tid, uint64_t sp, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = tid, .time_ns = t, .sp = sp, .caught = true };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

/* A catch at SP S (the catching frame's calls were entered at S) ends the
 * calls entered at S or deeper, each measured to it and marked thrown; a
 * catch inside the call (deeper) or in another thread ends nothing. */
static void slowcall_left_by_exception(void)
{
	struct rec_slowcall sc = start(10 * MS);

	/* recursion 0x1000 -> 0xf00, thrown from the inner one, caught by the caller */
	entry(&sc, 4, 0x1000, 0);
	entry(&sc, 4, 0xf00, 1 * MS);
	caught(&sc, 4, 0xe00, 5 * MS);      /* caught inside the inner call */
	caught(&sc, 5, 0x1000, 6 * MS);     /* another thread's catch */
	caught(&sc, 4, 0x1000, 30 * MS);
	entry(&sc, 4, 0x1000, 31 * MS);
	ret(&sc, 4, 0x1000, 32 * MS);
	settle(&sc);
	CHECK_U64_EQ(sc.calls, 3);
	CHECK_U64_EQ(sc.thrown, 2);
	CHECK_U64_EQ(sc.slow, 2);
	CHECK_U64_EQ(sc.slow_thrown, 2);
	CHECK_U64_EQ(sc.unended, 0);
	CHECK_INT_EQ(ngot, 2);
	/* the innermost first, each to the catch */
	CHECK_U64_EQ(got[0].entry_ns, 1 * MS);
	CHECK_U64_EQ(got[0].duration_ns, 29 * MS);
	CHECK_U64_EQ(got[1].entry_ns, 0);
	CHECK_U64_EQ(got[1].time_ns, 30 * MS);
	CHECK(got[0].thrown && got[1].thrown);
	CHECK_INT_EQ(sc.nthreads, 0);
	rec_slowcall_free(&sc);
}

static void slowcall_bounded_depth(void)
{
	struct rec_slowcall sc = start(10 * MS);
	int deep = REC_SLOW_DEPTH + 6;

	for (int i = 0; i < deep; i++)
		entry(&sc, 5, 0x100000 - (uint64_t)i * 0x40, (uint64_t)i * MS);
	for (int i = deep - 1; i >= 0; i--)
		ret(&sc, 5, 0x100000 - (uint64_t)i * 0x40, 1000 * MS - (uint64_t)i * MS);
	settle(&sc);
	/* the returns of the calls too deep to keep are theirs, not unmatched */
	CHECK_U64_EQ(sc.untracked, 6);
	CHECK_U64_EQ(sc.unmatched, 0);
	CHECK_U64_EQ(sc.calls, (uint64_t)REC_SLOW_DEPTH);
	CHECK_INT_EQ(sc.nthreads, 0);
	/* the outermost call was kept and measured */
	CHECK_U64_EQ(got[ngot - 1].entry_ns, 0);
	CHECK_U64_EQ(got[ngot - 1].duration_ns, 1000 * MS);
	rec_slowcall_free(&sc);
}

static void slowcall_unmatched_returns(void)
{
	struct rec_slowcall sc = start(10 * MS);
	struct rec_trig_sample nosp = { .pid = 1, .tid = 6, .time_ns = 40 * MS };   /* no user registers */

	ret(&sc, 6, 0x1000, 5 * MS);          /* entered before the trigger was armed */
	entry(&sc, 6, 0x800, 6 * MS);
	ret(&sc, 6, 0x1000, 30 * MS);         /* an outer call's, entered before */
	CHECK_INT_EQ(rec_slowcall_add(&sc, &nosp), 0);
	settle(&sc);
	CHECK_U64_EQ(sc.unmatched, 2);
	CHECK_U64_EQ(sc.untracked, 1);
	CHECK_U64_EQ(sc.calls, 0);
	CHECK_INT_EQ(ngot, 0);
	CHECK_INT_EQ(sc.nthreads, 0);
	rec_slowcall_free(&sc);
}

/* The exits of a part split off the function (F.part.0, called by others
 * too) that match no call are no unmatched returns of F; F's own are. */
static void slowcall_part_exits(void)
{
	struct rec_slowcall sc = start(10 * MS);
	struct rec_trig_sample part = { .pid = 1, .tid = 8, .time_ns = 5 * MS, .sp = 0x700,
					.ret = true, .part = true };

	CHECK_INT_EQ(rec_slowcall_add(&sc, &part), 0);   /* no call in the thread */
	entry(&sc, 8, 0x1000, 6 * MS);
	part.time_ns = 7 * MS;                           /* deeper: called from F */
	CHECK_INT_EQ(rec_slowcall_add(&sc, &part), 0);
	part.time_ns = 30 * MS;                          /* F tail-called it: F's return */
	part.sp = 0x1000;
	CHECK_INT_EQ(rec_slowcall_add(&sc, &part), 0);
	ret(&sc, 8, 0x2000, 31 * MS);                    /* F's own, entered before */
	settle(&sc);
	CHECK_U64_EQ(sc.calls, 1);
	CHECK_U64_EQ(sc.unmatched, 1);
	CHECK_INT_EQ(ngot, 1);
	CHECK_U64_EQ(got[0].duration_ns, 24 * MS);
	rec_slowcall_free(&sc);
}

/* Passes before any sample (the recorder makes them every few ms): nothing,
 * and no NULL array handed to qsort (UBSan). */
static void slowcall_pass_without_samples(void)
{
	struct rec_slowcall sc = start(10 * MS);

	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 0);
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 0);
	CHECK_INT_EQ(ngot, 0);
	rec_slowcall_free(&sc);
	CHECK_INT_EQ((int)rec_slowcall_pass(&sc, collect, NULL), 0);   /* after free too */
}

/* Samples of a call left by a tail call: an entry with its return address
 * (RA, at a watched return site when SITE), a jump out, and its caller
 * resuming at RA one word above the entry's stack pointer. */
static void tail_entry(struct rec_slowcall *sc, uint64_t sp, uint64_t ra, bool site, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = 7, .time_ns = t, .sp = sp,
				     .ret_addr = ra, .site = site };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

static void jump_out(struct rec_slowcall *sc, uint64_t sp, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = 7, .time_ns = t, .sp = sp, .ret = true,
				     .tail = true };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

/* The sample at a return site gives the entry's stack pointer (trigger.c). */
static void back(struct rec_slowcall *sc, uint64_t sp, uint64_t ra, uint64_t t)
{
	struct rec_trig_sample s = { .pid = 1, .tid = 7, .time_ns = t, .sp = sp, .back = true,
				     .ip = ra, .has_args = true };

	CHECK_INT_EQ(rec_slowcall_add(sc, &s), 0);
}

/* SC counted CALLS calls, TAIL followed past a tail call, AT_JUMP ended at
 * one, UNENDED ended unseen, no return unmatched, and forgot every thread. */
static void tail_counts(const struct rec_slowcall *sc, uint64_t calls, uint64_t tail,
			uint64_t at_jump, uint64_t unended)
{
	CHECK_U64_EQ(sc->calls, calls);
	CHECK_U64_EQ(sc->tail, tail);
	CHECK_U64_EQ(sc->tail_at_jump, at_jump);
	CHECK_U64_EQ(sc->unended, unended);
	CHECK_U64_EQ(sc->unmatched, 0);
	CHECK_INT_EQ(sc->nthreads, 0);
}

/* Hit K entered at ENTRY and ended at END. */
static void hit_is(int k, uint64_t entry, uint64_t end)
{
	CHECK(k < ngot);
	CHECK_U64_EQ(got[k].entry_ns, entry);
	CHECK_U64_EQ(got[k].time_ns, end);
	CHECK_U64_EQ(got[k].duration_ns, end - entry);
}

/* A call from a watched return site that leaves by a tail call ends when
 * its caller resumes there (the function jumped to took 30 ms), not at
 * the jump; one from elsewhere ends at the jump, counted so. */
static void slowcall_tail_call_followed(void)
{
	struct rec_slowcall sc = start(10 * MS);

	tail_entry(&sc, 0x1000, 0x4005, true, 100 * MS);
	jump_out(&sc, 0x1000, 102 * MS);
	entry(&sc, 7, 0xf00, 110 * MS);   /* the function jumped to calls it again */
	ret(&sc, 7, 0xf00, 111 * MS);
	back(&sc, 0x1000, 0x4005, 132 * MS);
	tail_entry(&sc, 0x1000, 0x7777, false, 140 * MS);
	jump_out(&sc, 0x1000, 142 * MS);
	back(&sc, 0x1000, 0x7777, 172 * MS);   /* not watched: no sample comes */
	settle(&sc);
	tail_counts(&sc, 3, 1, 1, 0);
	CHECK_INT_EQ(ngot, 1);
	hit_is(0, 100 * MS, 132 * MS);
	rec_slowcall_free(&sc);
}

/* A return site's sample after a plain return finds no call (nothing
 * counted); one with another return address or stack pointer ends nothing;
 * a chain of tail calls that enters the function again at the same stack
 * pointer and return address ends the call there; a call deeper than the
 * one whose caller resumed is gone (unended). */
static void slowcall_tail_call_edges(void)
{
	struct rec_slowcall sc = start(10 * MS);

	tail_entry(&sc, 0x1000, 0x4005, true, 100 * MS);
	ret(&sc, 7, 0x1000, 101 * MS);
	back(&sc, 0x1000, 0x4005, 101 * MS + 10);
	tail_entry(&sc, 0x1000, 0x4005, true, 110 * MS);
	jump_out(&sc, 0x1000, 111 * MS);
	back(&sc, 0x1000, 0x4010, 112 * MS);        /* another caller's site */
	back(&sc, 0xf00, 0x4005, 113 * MS);         /* a deeper frame */
	tail_entry(&sc, 0x1000, 0x4005, true, 125 * MS);   /* the chain enters it again */
	entry(&sc, 7, 0xe00, 126 * MS);             /* then a call that never returns */
	back(&sc, 0x1000, 0x4005, 140 * MS);
	settle(&sc);
	tail_counts(&sc, 3, 1, 0, 1);
	CHECK_INT_EQ(ngot, 2);
	hit_is(0, 110 * MS, 125 * MS);
	hit_is(1, 125 * MS, 140 * MS);
	rec_slowcall_free(&sc);
}

int main(void)
{
	UNIT_RUN(slowcall_pass_without_samples);
	UNIT_RUN(slowcall_outer_of_recursion);
	UNIT_RUN(slowcall_threads_apart);
	UNIT_RUN(slowcall_return_before_other_thread);
	UNIT_RUN(slowcall_return_read_before_entry);
	UNIT_RUN(slowcall_pass_waits_for_the_next);
	UNIT_RUN(slowcall_never_returned);
	UNIT_RUN(slowcall_left_by_exception);
	UNIT_RUN(slowcall_bounded_depth);
	UNIT_RUN(slowcall_unmatched_returns);
	UNIT_RUN(slowcall_part_exits);
	UNIT_RUN(slowcall_tail_call_followed);
	UNIT_RUN(slowcall_tail_call_edges);
	return unit_exit();
}
