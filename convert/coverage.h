/* SPDX-License-Identifier: MIT */
/*
 * coverage.c: what the trace covers, in the summary: per thread, and the
 * call chains that cannot show the stack (counted by chaincheck.c).
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_COVERAGE_H
#define SNAPTRACE_CONVERT_COVERAGE_H

#include "state.h"

/* coverage.c: prints what the trace covers (per thread, the TOP longest,
 * then a total line) and the broken-stack warning, on stderr (diag). */
void conv_coverage_report(struct conv *c, unsigned top);

#endif
