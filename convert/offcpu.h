/* SPDX-License-Identifier: MIT */
/*
 * offcpu.c: why a thread left the CPU, from a sched_switch sample.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_OFFCPU_H
#define SNAPTRACE_CONVERT_OFFCPU_H

#include "state.h"

/* offcpu.c: fills *OFF from a sched_switch sample: PREV_STATE (R:
 * preempted; len 0: the fields were not printed, state unknown) and the N KERNEL frames of its call chain, innermost first
 * (the syscall, and the first function below the scheduler's). */
void conv_offcpu_of_switch(struct conv *c, const struct conv_site *kernel, size_t n,
			   struct conv_span prev_state, struct conv_offcpu *off);

#endif
