/* SPDX-License-Identifier: MIT */
/*
 * origins: whether the inputs of one conversion come from one place. The
 * converter draws every input on one timeline, at its perf clock's times
 * (-k mono: the time since the boot): inputs recorded on another host or
 * in another boot are drawn at times unrelated to each other, and inputs of
 * different programs side by side. Either is likely a mistake (two
 * directories given where one was meant) or at least a surprise, so it is
 * said in one line naming two such inputs and what the trace will show.
 */
#ifndef SNAPTRACE_CONV_ORIGINS_H
#define SNAPTRACE_CONV_ORIGINS_H

#include <stddef.h>

#include "recording.h"

/*
 * Looks at the NRECS recordings RECS (the snapshots the converter takes:
 * those with a path), each recording directory as one origin (its
 * record.json's boot id, its first perf.data's host and programs) and each
 * file of a recording of files as one (its host and programs: a perf.data
 * tells no boot); a file that is no perf.data (perf script text) or is no
 * regular file (a pipe, read once) is left out. Warns (diag_warn(), one
 * line) of the first origin that differs from the first one: another host,
 * another boot, or programs none of which the first recorded.
 */
void conv_origins_check(const struct recording *recs, size_t nrecs);

#endif
