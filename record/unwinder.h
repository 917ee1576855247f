/* SPDX-License-Identifier: MIT */
/*
 * unwinder: what --callgraph auto picks for a target. Frame-pointer call
 * chains cost about 115 bytes a sample, dwarf's about 8,300 (8 KiB of stack
 * copied for perf to unwind later): with fp a snapshot reaches back about
 * 70 times further. But fp chains of code built without frame pointers are
 * broken (callers missing or garbage). So: fp when at least half of the
 * main binary's code (by function size) sets up frame pointers (elfsym.h),
 * else dwarf. A script ("#!") is judged by its interpreter, the program
 * that runs (followed through scripts and /usr/bin/env); a shell script is
 * a launcher (pyenv's shims) whose program is not known before it runs:
 * judged nothing, fp, said so in the one line.
 */
#ifndef SNAPTRACE_REC_UNWINDER_H
#define SNAPTRACE_REC_UNWINDER_H

#include <stddef.h>

#include "rec_opts.h"

/*
 * Picks REC_CG_FP or REC_CG_DWARF for the executable EXE and says why in WHY
 * (SIZE bytes, one line naming EXE and, for a script, what was judged). An
 * executable it cannot read (or not x86-64) gets fp.
 */
enum rec_callgraph rec_callgraph_pick(const char *exe, char *why, size_t size);

#endif
