/* SPDX-License-Identifier: MIT */
/*
 * repeat: makes a long trace out of a short run. In each thread, the steps
 * from the first entry of a function to its second entry (one turn of the
 * loop that calls it) lead from that entry back to it, with the call stack
 * as it was: repeating them is a control flow the program could have had,
 * and Intel PT encodes it like any other. Used by `make bench` to write
 * megabytes of PT in seconds instead of single-stepping for minutes.
 */
#ifndef PTSYNTH_REPEAT_H
#define PTSYNTH_REPEAT_H

#include <stdint.h>

#include "symtab.h"
#include "trace.h"

/*
 * In every thread of RUN that enters function FUNC (named as ST names it)
 * at least twice, inserts TIMES more copies of the steps from its first
 * entry to its second, right after them. Global step numbers stay unique
 * and increasing in every thread: every later step moves up. Returns the
 * number of threads repeated (0: FUNC is not entered twice in any thread),
 * or -ENOMEM.
 */
int ps_repeat(struct ps_run *run, const struct ps_symtab *st, const char *func, uint64_t times);

#endif
