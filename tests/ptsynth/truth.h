/* SPDX-License-Identifier: MIT */
/*
 * truth: the ground truth of a synthesized trace, as text. For each traced
 * thread, the control transfers that actually happened between functions,
 * in order, named like perf script's sym field (symtab.h). Format (one
 * record a line, fields separated by TAB, names last as they may hold
 * spaces):
 *
 *   # comment
 *   thread PID TID COMM FIRST END START_IP START_DSO START_SYM
 *       the trace of TID holds its steps [FIRST, END) (step = instruction
 *       executed, counted per thread from the start point) as far as perf's
 *       decoder can see them (encode.h); START_SYM is the function it
 *       starts in
 *   KIND TID STEP TIME SRC_IP DST_IP DST_OFF SRC_DSO DST_DSO SRC_SYM DST_SYM
 *       KIND is call, ret, jump (a jump or taken jcc to another function;
 *       DST_OFF 0 means a function entry, a tail call), syscall (DST_* are
 *       0 / "-": the kernel), or error (a decode error was injected before
 *       this step; SRC_SYM then holds the message perf prints, DST_* where the
 *       trace resumes; the events
 *       of the steps just before it, after the last packet, are lost and
 *       left out). TIME is the
 *       step's TSC (= perf time, ns); IPs in hex; a call to the next
 *       instruction (call next; pop) is not a function call and is left out.
 *   switch-out TID STEP TIME IP 0 0 DSO - SYM STATE
 *   switch-in TID STEP TIME IP 0 0 DSO - SYM -
 *       the thread left the CPU (STATE blocked: in the syscall before STEP;
 *       preempt: just before STEP) and came back, at TIME; IP/DSO/SYM are
 *       where it resumes (step STEP)
 *   fault TID STEP TIME IP 0 0 DSO - SYM SIGNAL
 *       the CPU faulted on the thread's last step (STEP, at IP in SYM):
 *       SIGNAL (SIGSEGV...) ended it there; its trace ends with an async
 *       exit (FUP, TIP.PGD) from that instruction
 *   end TID STEP
 *       closes the thread's records (STEP = END).
 */
#ifndef PTSYNTH_TRUTH_H
#define PTSYNTH_TRUTH_H

#include <stdint.h>
#include <stdio.h>

#include "encode.h"
#include "switches.h"
#include "symtab.h"
#include "trace.h"

/* What one thread contributes to one perf.data file. */
struct ps_truth_thread {
	const struct ps_thread *th;
	size_t from, end;       /* steps [from, end) can be decoded */
	size_t ovf_step;        /* an OVF before this step, SIZE_MAX: none */
	size_t lost_from;       /* steps [lost_from, ovf_step) cannot be decoded */
};

/* Counts of what a trace holds (for the summary). */
struct ps_truth_stats {
	uint64_t steps, taken, calls, rets, syscalls;
};

/*
 * Writes the truth of NT threads of RUN to F (times and switches from
 * CLOCK) and adds to STATS. Returns 0 or -EIO.
 */
int ps_truth_write(FILE *f, const struct ps_run *run, const struct ps_symtab *st,
		   const struct ps_truth_thread *tt, size_t nt, const struct ps_clock *clock,
		   struct ps_truth_stats *stats);

#endif
