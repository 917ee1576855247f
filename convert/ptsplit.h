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

/* How an Intel PT perf.data is split into time ranges. */
struct ptsplit {
	uint64_t bounds[PTSPLIT_MAX - 1];  /* ascending perf times (ns) at which a
					    * range starts, the one before ending
					    * 1 ns earlier */
	size_t nbounds;                    /* 0: one range decodes all */
	uint64_t *psbs;                    /* the time of every PSB+ (its TSC in perf
					    * time, ns), ascending; owned; NULL when
					    * nbounds is 0 */
	size_t npsbs;
};

/*
 * Reads the perf.data at PATH (its AUXTRACE_INFO for the TSC conversion and
 * the PSB+ packets of its AUXTRACE data) and chooses up to N - 1 boundaries
 * (N <= PTSPLIT_MAX) into *OUT. None (one range decodes all) when the file
 * cannot be split: not a perf.data it can read, no TSC conversion, fewer
 * PSBs than ranges, or a buffer whose PSB+ times go back (a damaged timing
 * packet: perf's decoder keeps its time from going back, so its times no
 * longer say where its PSBs are). Memory: a read buffer and 16 bytes per
 * PSB while reading, 8 bytes per PSB kept.
 *
 * Why OUT->psbs: range k is exactly the whole run's lines of its times only
 * when perf's decoder, run over the whole file, is at each PSB at that
 * PSB's own time (a decoder starting afresh at a PSB takes its time from
 * it). A damaged timing packet between PSBs (TSC, MTC, CYC) breaks that,
 * and only perf's output shows it: each PSB is a `psb` event at the
 * decoder's time, which must be the PSB's (docs/design.md "Parallel
 * decoding").
 */
void ptsplit_plan(const char *path, unsigned n, struct ptsplit *out);

/* Frees what ptsplit_plan() kept. */
void ptsplit_free(struct ptsplit *p);

/*
 * Is PATH a perf.data of Intel PT (an AUXTRACE_INFO record of Intel PT among
 * its first records, where perf record writes it)? Returns false when it
 * is not, or cannot be read: then `perf evlist` is asked.
 */
bool ptsplit_intel_pt(const char *path);

#endif
