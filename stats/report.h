/* SPDX-License-Identifier: MIT */
/*
 * report: the views of snaptrace-stats over aggregated traces (agg.h): the
 * function rows, one function in detail, and the comparison with a
 * baseline, each as a text table, CSV or JSON (table.h).
 */
#ifndef SNAPTRACE_STATS_REPORT_H
#define SNAPTRACE_STATS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "agg.h"
#include "table.h"

enum report_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_P99, SORT_MAX };

struct report_opts {
	enum table_format format;
	enum report_sort sort;
	size_t limit;              /* rows at most; 0: all */
	const char *match;         /* fnmatch(3) pattern on the function name, or NULL */
	const char *function;      /* --function NAME */
	bool baseline_paths;       /* --baseline pairs by the binary's full path, not
				    * its file name */
};

/* Sorts the rows of A by O->sort (largest first, then by name). */
void report_sort_rows(struct agg *a, const struct report_opts *o);

/* The rows of A (sorted), those matching O->match, at most O->limit. Returns 0 or -ENOMEM. */
int report_rows(const struct agg *a, const char *path, const struct report_opts *o, FILE *out);

/*
 * O->function in detail: its rows, a histogram of its call durations
 * (a bar per power of two) and its longest calls (A->top), each with its
 * thread and start time, since the trace's start as Perfetto shows it and
 * in trace ns. Returns 0, 1 when the trace has no such function (a message
 * on stderr), or -ENOMEM.
 */
int report_function(const struct agg *a, const char *path, const struct report_opts *o,
		    FILE *out);

/*
 * NEW against OLD function by function: calls, p50, p99 and total of each
 * with the ratio new/old, rows sorted by the largest change of total time
 * (a function in one trace only first). Returns 0 or -ENOMEM.
 */
int report_baseline(const struct agg *old, const struct agg *new, const char *old_path,
		    const char *new_path, const struct report_opts *o, FILE *out);

#endif
