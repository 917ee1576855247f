/* SPDX-License-Identifier: MIT */
/*
 * stack.c: the branch stack machine (docs/design.md "Stack
 * reconstruction") and the [off-cpu] slice on top of a stack.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_STACK_H
#define SNAPTRACE_CONVERT_STACK_H

#include "state.h"

/* stack.c: processes branch B of T at time NOW (ns, already spread). */
void conv_stack_branch(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		       uint64_t now);

/* stack.c: a decode error named NAME at TS: closes every frame, emits the
 * instant and starts a new segment. */
void conv_stack_error(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts);

/* stack.c: closes T's gap and every frame at TS and starts a new segment. */
void conv_stack_close(struct conv *c, struct conv_thread *t, uint64_t ts);

/* stack.c: pushes a frame of SITE's function at TS (not inferred). The
 * frame's entry is SITE (a call's target) with a CALLSITE, else (NULL: a
 * sampled frame) the function's start. */
void conv_stack_push(struct conv *c, struct conv_thread *t, const struct conv_site *site,
		     const struct conv_site *callsite, uint64_t ts);

/* stack.c: pops T's top frame at TS. */
void conv_stack_pop(struct conv *c, struct conv_thread *t, uint64_t ts);

/* stack.c: pushes measured call M as the frame of SITE at TS (its entry, or
 * later when the trace begins later): a slice with its measured arguments,
 * which chain.c keeps until M's return. */
void conv_stack_push_measured(struct conv *c, struct conv_thread *t, const struct conv_site *site,
			      const struct conv_mcall *m, uint64_t ts);

/* stack.c: T left the CPU at TS: opens an [off-cpu] slice on top of its
 * stack (nothing when one is open) with OFF's arguments. */
void conv_offcpu_begin(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_offcpu *off);

/* stack.c: T is back on the CPU at TS: ends its [off-cpu] slice, if any. */
void conv_offcpu_end(struct conv *c, struct conv_thread *t, uint64_t ts);

#endif
