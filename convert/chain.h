/* SPDX-License-Identifier: MIT */
/*
 * chain.c: sampled call chains into slices (docs/design.md "Sampled call
 * chains").
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_CHAIN_H
#define SNAPTRACE_CONVERT_CHAIN_H

#include "state.h"

/*
 * chain.c: a sampled call chain of T at TS: FRAMES innermost first (as
 * perf prints them), N of them; builds slices by common prefix with the
 * thread's previous sample. A frame that is gone ends one sampling period
 * after the last sample that had it (or at TS if sooner); a hole of more
 * than CONV_GAP_PERIODS periods since the stack was last seen ends every
 * frame and is a "[no samples]" slice. PERIOD_NS is the sample's period
 * when it is time (cpu-clock, task-clock), else 0 (the median spacing of
 * the thread's samples is used). CALLCHAIN: the frames are a call chain
 * (else the one location of a sample recorded without -g).
 */
void conv_chain_sample(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns,
		       bool callchain);

/* chain.c: T left the CPU at TS (a sched_switch sample or a switch-out
 * record) with FRAMES (N, innermost first, user space only) on its stack;
 * N = 0 when the stack is not known: the sampled frames then end and the
 * [off-cpu] slice is at the root. */
void conv_chain_switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
			   const struct conv_site *frames, size_t n,
			   const struct conv_offcpu *off);

/* chain.c: the switch records processed until the next call come before
 * T's sample at TS of FRAMES (N, innermost first; borrowed until then):
 * a measured call of T that begins at one of them on T's empty stack is
 * placed as that sample shows it (docs/design.md "Measured calls"). T
 * NULL: none. */
void conv_chain_ahead(struct conv *c, const struct conv_thread *t, uint64_t ts,
		      const struct conv_site *frames, size_t n);

/* chain.c: T came back on the CPU at TS (a switch-in record). */
void conv_chain_switch_in(struct conv *c, struct conv_thread *t, uint64_t ts);

/* chain.c: ends the sampled frames of T one period after they were last
 * seen: PAST_TS, even past TS (the end of an input: the last sample's
 * frames ran for its period); else by TS at the latest (Intel PT branches
 * take over at TS). An [off-cpu] slice still open ends at TS. */
void conv_chain_close(struct conv *c, struct conv_thread *t, uint64_t ts, bool past_ts);

/* chain.c: draws T's held chain cut at a loop as it is (its callers cut),
 * if one is held: before anything else of T is written (an instant, a
 * counter, a branch) that is not a call chain, a switch or its close. A
 * chain cut at a loop (the outermost frame conv_chain_clean()'s, all
 * the others named) is held until T's next call chain: the open frames that
 * chain continues, but the innermost, are its callers (docs/design.md "A
 * chain cut at a loop"). */
void conv_chain_release(struct conv *c, struct conv_thread *t);

#endif
