/* SPDX-License-Identifier: MIT */
/*
 * perfdata: the perf.data files perf wrote into a recording directory
 * ("perf.data", "perf.data.<timestamp>"), for a recording whose own list
 * of them is missing (its recorder was killed, or perf died first).
 */
#ifndef SNAPTRACE_PERFDATA_H
#define SNAPTRACE_PERFDATA_H

/*
 * Stores in *PATHS (owned by the caller: each string and the array, which
 * is NULL-terminated) "DIR/NAME" of every non-empty regular file of DIR
 * whose name starts with "perf.data", in name order. Returns their number,
 * or a negative errno (DIR cannot be listed, -ENOMEM) with *PATHS NULL.
 */
int perfdata_scan(const char *dir, char ***paths);

#endif
