/* SPDX-License-Identifier: MIT */
/*
 * ptsplit: where to split the decoding of an Intel PT perf.data into time
 * ranges of about equal work, for one `perf script --time` process each
 * (docs/design.md "Parallel decoding"). perf can start decoding only at a
 * PSB packet, and it fast-forwards a range's decoder to the last PSB before
 * the range's start; so the boundaries are just after PSB times, and the
 * work of a range is the bytes of PT from its PSBs on.
 */
#ifndef SNAPTRACE_CONVERT_PTSPLIT_H
#define SNAPTRACE_CONVERT_PTSPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTSPLIT_MAX 64    /* most ranges */

/*
 * Reads the perf.data at PATH (its AUXTRACE_INFO for the TSC conversion and
 * the PSB+ packets of its AUXTRACE data) and chooses up to N - 1 boundaries
 * (N <= PTSPLIT_MAX): ascending perf times (ns) at which a range starts,
 * the one before ending 1 ns earlier. Returns how many it wrote into
 * BOUNDS: 0 when the file cannot be split (not a perf.data it can read, no
 * TSC conversion, fewer PSBs than ranges): then one range decodes all.
 * Memory: a read buffer and 16 bytes per PSB.
 */
size_t ptsplit_bounds(const char *path, unsigned n, uint64_t *bounds);

/*
 * Is PATH a perf.data of Intel PT (an AUXTRACE_INFO record of Intel PT among
 * its first records, where perf record writes it)? Returns false when it
 * is not, or cannot be read: then `perf evlist` is asked.
 */
bool ptsplit_intel_pt(const char *path);

#endif
