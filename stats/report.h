/* SPDX-License-Identifier: MIT */
/*
 * report: the views of snaptrace-stats over aggregated traces (agg.h): the
 * function rows, one function in detail, and the comparison with a
 * baseline, each as a text table, CSV or JSON (table.h).
 */
#ifndef SNAPTRACE_STATS_REPORT_H
#define SNAPTRACE_STATS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agg.h"
#include "table.h"

enum report_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_P99, SORT_MAX };

struct report_opts {
	enum table_format format;
	enum report_sort sort;
	size_t limit;              /* rows at most; 0: all */
	const char *match;         /* fnmatch(3) pattern on the function name, or NULL */
	const char *function;      /* --function NAME (demangled) */
	const char *lib;           /* --function LIB:NAME's LIB, or NULL */
	enum agg_match function_match; /* the rows of NAME: those it matches this well
				    * (report_function() sets it) */
	bool off_cpu;              /* --off-cpu: the waits (report_waits) */
	bool baseline_paths;       /* --baseline pairs by the binary's full path, not
				    * its file name */
};

/* The header of a view of A (read from PATH): a line (text) or the opening
 * members of the JSON object (CSV: none). */
void report_head(const struct agg *a, const char *path, const struct report_opts *o, FILE *out);

/* Sorts the rows of A by O->sort (largest first, then by name). */
void report_sort_rows(struct agg *a, const struct report_opts *o);

/*
 * Whether O->match (none: true) selects a function of A or, with BASE (may be
 * NULL), of BASE: a row with a finished slice, a call's or a wait's, whose
 * name funcspec_pattern_matches(). False says the views print no row: the
 * caller says so.
 */
bool report_match_any(const struct agg *a, const struct agg *base, const struct report_opts *o);

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

/*
 * The order of two rows of a comparison, A (total OLD_A ns before, NEW_A
 * after) and B: the largest change of total time first (|new - old|, a
 * row of one trace only changed by its whole total), then the larger
 * total of both. Returns <0, 0 or >0 as qsort's comparison (0: the caller
 * breaks the tie by name).
 */
int report_cmp_change(uint64_t old_a, uint64_t new_a, uint64_t old_b, uint64_t new_b);

/*
 * Prints T, the rows of a comparison of OLD_PATH and NEW_PATH (sorted by CMP
 * on rows of cells, at most O->limit of them): in text under the line "OLD
 * (old) -> NEW (new): N WHAT, largest change of total time first NOTE", in
 * JSON as an object {"old", "new", "rows"}, in CSV the table alone.
 */
void report_compared(struct table *t, int (*cmp)(const void *, const void *),
		     const char *old_path, const char *new_path, const char *what,
		     const char *note, const struct report_opts *o, FILE *out);

/*
 * --off-cpu: A's wait rows (agg.h, A read with opts.off_cpu), by system
 * call, kernel function and caller: for each, those of all threads (largest
 * total first), then each thread's; O->match on their names, O->limit rows
 * at most per thread and kind. Text: a table per kind; CSV and JSON: one
 * table with a column "by". Returns 0 or -ENOMEM.
 */
int report_waits(const struct agg *a, const char *path, const struct report_opts *o, FILE *out);

/*
 * NEW's waits of all threads against OLD's (--off-cpu --baseline), paired
 * by kind, state, name and the dso's file name (O->baseline_paths: its
 * path): waits, p50, p99 and total
 * with their ratios new/old, the largest change of total first (a wait of
 * one trace only first). Returns 0 or -ENOMEM.
 */
int report_waits_baseline(const struct agg *old, const struct agg *new, const char *old_path,
			  const char *new_path, const struct report_opts *o, FILE *out);

#endif
