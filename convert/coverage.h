/* SPDX-License-Identifier: MIT */
/*
 * coverage.c: what the trace covers, in the summary: per thread, and the
 * call chains that cannot show the stack (counted by chaincheck.c).
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_COVERAGE_H
#define SNAPTRACE_CONVERT_COVERAGE_H

#include "state.h"

/* coverage.c: the entry of enum conv_every_event (state.h) that the event
 * name [NAME, NAME + LEN) is ("sched:sched_switch"), or CONV_EVERY_N. */
enum conv_every_event conv_every_event(const char *name, size_t len);

/* coverage.c: prints what the trace covers (per thread, the TOP longest,
 * then a total line), the broken-stack warning and those of switches and
 * signals not sampled (struct conv's every[]), on stderr (diag). */
void conv_coverage_report(struct conv *c, unsigned top);

#endif
