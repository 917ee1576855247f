/* SPDX-License-Identifier: MIT */
/*
 * hist: a log-bucketed histogram of durations in ns (snaptrace-stats' rows,
 * the recorder's --measure), for percentiles in
 * bounded memory. Durations below 128 ns have a bucket each (exact); above,
 * each power of two is cut into 64 equal buckets, so a bucket is at most 1/64
 * of its lower bound wide and its middle is within 1/128 (0.8%) of any value
 * in it: a percentile read from it is within 1% of the exact one (the nearest
 * rank: the ceil(p * n / 100)-th smallest duration), and it is clamped to the
 * exact minimum and maximum. A histogram stores only the range of buckets
 * between its smallest and largest duration (at most 3,776 counters).
 */
#ifndef SNAPTRACE_STATS_HIST_H
#define SNAPTRACE_STATS_HIST_H

#include <stddef.h>
#include <stdint.h>

struct hist {
	uint64_t *counts;      /* counts[i]: bucket lo + i; owned */
	uint32_t lo, n;        /* first bucket, number of buckets stored */
	uint64_t total;        /* durations added */
	uint64_t min, max;     /* exact; min = UINT64_MAX when empty */
};

/* An empty histogram (no allocation until the first hist_add). */
#define HIST_INIT { .min = UINT64_MAX }

/* Adds one duration V (ns). Returns 0, or -ENOMEM leaving H as it was. */
int hist_add(struct hist *h, uint64_t v);

/* Adds every duration of SRC to DST. Returns 0 or -ENOMEM. */
int hist_merge(struct hist *dst, const struct hist *src);

/* The P-th percentile (0 < P <= 100) in ns, within 1% (see above); 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);

/* Bucket index of V, and the lowest value and width (ns) of bucket I. */
uint32_t hist_bucket(uint64_t v);
uint64_t hist_bucket_low(uint32_t i);
uint64_t hist_bucket_width(uint32_t i);

/* The power of two bucket I lies in: [*FROM, *BELOW) = [2^k, 2^(k+1)), or
 * [0, 1) for the bucket of 0 (the coarse view of a histogram's durations). */
void hist_bucket_pow2(uint32_t i, uint64_t *from, uint64_t *below);

/* Frees H's counters and empties it. */
void hist_free(struct hist *h);

#endif
