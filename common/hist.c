// SPDX-License-Identifier: MIT
/*
 * hist: log-bucketed durations (see hist.h). Bucket of V: V itself below
 * 128; else with k = floor(log2 V) >= 7, the top 7 bits of V (64..127) give
 * the bucket 128 + (k - 7) * 64 + (top - 64).
 */
#include "hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { EXACT = 128, SUB_BITS = 6, SUB = 1 << SUB_BITS };

uint32_t hist_bucket(uint64_t v)
{
	unsigned k;

	if (v < EXACT)
		return (uint32_t)v;
	k = 63u - (unsigned)__builtin_clzll(v);
	return EXACT + (k - 7) * SUB + (uint32_t)((v >> (k - SUB_BITS)) - SUB);
}

uint64_t hist_bucket_low(uint32_t i)
{
	unsigned k;

	if (i < EXACT)
		return i;
	k = 7 + (i - EXACT) / SUB;
	return (uint64_t)(SUB + (i - EXACT) % SUB) << (k - SUB_BITS);
}

uint64_t hist_bucket_width(uint32_t i)
{
	return i < EXACT ? 1 : UINT64_C(1) << (7 + (i - EXACT) / SUB - SUB_BITS);
}

void hist_bucket_pow2(uint32_t i, uint64_t *from, uint64_t *below)
{
	uint64_t low = hist_bucket_low(i);
	unsigned k = low ? 63u - (unsigned)__builtin_clzll(low) : 0;

	*from = low ? UINT64_C(1) << k : 0;
	*below = low ? (k == 63 ? UINT64_MAX : UINT64_C(1) << (k + 1)) : 1;
}

/* Makes H's stored range include buckets [A, B]. */
static int cover(struct hist *h, uint32_t a, uint32_t b)
{
	uint32_t lo = h->n && h->lo < a ? h->lo : a;
	uint32_t hi = h->n && h->lo + h->n - 1 > b ? h->lo + h->n - 1 : b;
	uint64_t *c;

	if (h->n && lo == h->lo && hi - lo + 1 == h->n)
		return 0;
	c = calloc(hi - lo + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (h->n)
		memcpy(c + (h->lo - lo), h->counts, h->n * sizeof(*c));
	free(h->counts);
	h->counts = c;
	h->lo = lo;
	h->n = hi - lo + 1;
	return 0;
}

int hist_add(struct hist *h, uint64_t v)
{
	uint32_t b = hist_bucket(v);

	if ((!h->n || b < h->lo || b >= h->lo + h->n) && cover(h, b, b))
		return -ENOMEM;
	h->counts[b - h->lo]++;
	h->total++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->n)
		return 0;
	if (cover(dst, src->lo, src->lo + src->n - 1))
		return -ENOMEM;
	for (uint32_t i = 0; i < src->n; i++)
		dst->counts[src->lo + i - dst->lo] += src->counts[i];
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->total)
		return 0;
	rank = (uint64_t)(p / 100.0 * (double)h->total);
	if ((double)rank < p / 100.0 * (double)h->total)
		rank++;
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < h->n; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint32_t b = h->lo + i;
			uint64_t v = hist_bucket_low(b) + (hist_bucket_width(b) - 1) / 2;

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

void hist_free(struct hist *h)
{
	free(h->counts);
	*h = (struct hist)HIST_INIT;
}
