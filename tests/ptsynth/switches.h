/* SPDX-License-Identifier: MIT */
/*
 * switches: where the synthesized threads leave the CPU, and the clock that
 * makes room for it. A switch puts a thread off the CPU for a known time
 * just before one of its steps: blocked in a syscall (after the syscall
 * instruction, before the step it resumes at) or preempted (before a chosen
 * global step). Every step from that point on, in every thread, is that much
 * later, so the time of global step SEQ is
 *   base + SEQ * ns_per_step + (the off-CPU time of the switches at or before SEQ)
 * and the thread is out from half a step after the previous global step to
 * half a step before its resuming step: [out, in = out + ns).
 */
#ifndef PTSYNTH_SWITCHES_H
#define PTSYNTH_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace.h"

struct ps_switch {
	const struct ps_thread *th;
	size_t step;        /* index in th->steps of the step it resumes at */
	uint64_t seq;       /* that step's global number */
	uint64_t ns;        /* time off the CPU */
	bool preempt;       /* preempted (runnable), else blocked */
	uint64_t out, in;   /* perf times (ns) of the switch out and back in */
};

struct ps_clock {
	uint64_t base, ns_per_step;
	struct ps_switch *sw;  /* owned; by seq */
	size_t n;
	uint64_t *after;       /* after[i]: off-CPU time of sw[0..i] */
};

/*
 * Sets up C for RUN: every syscall of every thread that is followed by a
 * step blocks for BLOCK_NS (0: none), and the thread owning each global step
 * of PREEMPT_SEQ[i] (NPREEMPT of them) is preempted for PREEMPT_NS[i] just
 * before it. NS_PER_STEP must be >= 2. Returns 0, -ENOMEM, or -EINVAL with
 * ERR (ERRLEN bytes) saying which step was not usable.
 */
int ps_clock_init(struct ps_clock *c, const struct ps_run *run, uint64_t base,
		  uint64_t ns_per_step, uint64_t block_ns, const uint64_t *preempt_seq,
		  const uint64_t *preempt_ns, size_t npreempt, char *err, size_t errlen);

/* The perf time (ns) of global step SEQ. */
uint64_t ps_clock_time(const struct ps_clock *c, uint64_t seq);

void ps_clock_free(struct ps_clock *c);

#endif
