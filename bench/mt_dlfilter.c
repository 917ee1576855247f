/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's stand-in for magic-trace's perf dlfilter (reference (b) of
 * bench/pipeline.sh): perf script keeps printing text, minus the jumps
 * (jcc, jmp) whose source and target have the same symbol.
 */
#include <perf/perf_dlfilter.h>

#include <string.h>

/* Filled in by perf when it loads the filter. */
struct perf_dlfilter_fns perf_dlfilter_fns;

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	const unsigned jump = PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_CONDITIONAL;
	const struct perf_dlfilter_al *from, *to;

	(void)data;
	if ((sample->flags & ~jump) || !(sample->flags & PERF_DLFILTER_FLAG_BRANCH))
		return 0;
	from = perf_dlfilter_fns.resolve_ip(ctx);
	to = perf_dlfilter_fns.resolve_addr(ctx);
	return from && to && from->sym && to->sym && !strcmp(from->sym, to->sym);
}
