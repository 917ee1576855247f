// SPDX-License-Identifier: MIT
/*
 * Unit tests of common/hist: every value falls in its bucket, buckets are at
 * most 1/64 of their lower bound wide, percentiles are exact below 128 ns
 * and within 1% of the exact nearest rank above (the bound --help states),
 * and merging equals adding.
 */
#include <stdlib.h>

#include "hist.h"
#include "unit.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void check_bucket(uint64_t v)
{
	uint32_t b = hist_bucket(v);
	uint64_t low = hist_bucket_low(b), w = hist_bucket_width(b);

	if (v < low || v - low >= w)
		UNIT_FAIL("%" PRIu64 " outside its bucket %u [%" PRIu64 ", +%" PRIu64 ")", v, b,
			  low, w);
	if (v >= 128 && w * 64 > low)
		UNIT_FAIL("bucket %u of %" PRIu64 " is %" PRIu64 " wide", b, low, w);
	if (v < 128 && w != 1)
		UNIT_FAIL("bucket of %" PRIu64 " is not exact", v);
}

static void hist_buckets(void)
{
	for (uint64_t v = 0; v < 100000; v++)
		check_bucket(v);
	for (int i = 0; i < 100000; i++)
		check_bucket(rng() >> (rng() % 64));
	check_bucket(UINT64_MAX);
	CHECK_INT_EQ(hist_bucket(UINT64_MAX), 3775);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact nearest-rank percentile of sorted V[0..N). */
static uint64_t exact(const uint64_t *v, size_t n, double p)
{
	size_t r = (size_t)(p / 100 * (double)n);

	if ((double)r < p / 100 * (double)n)
		r++;
	return v[r ? r - 1 : 0];
}

static void hist_percentile_error(void)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof(*v));

	for (int round = 0; round < 50 && v; round++) {
		struct hist h = HIST_INIT;
		size_t n = 1 + rng() % N;

		for (size_t i = 0; i < n; i++) {
			v[i] = rng() >> (20 + rng() % 44);   /* log-uniform-ish, 0 .. 2^44 */
			CHECK_INT_EQ(hist_add(&h, v[i]), 0);
		}
		qsort(v, n, sizeof(*v), cmp_u64);
		CHECK_U64_EQ(h.min, v[0]);
		CHECK_U64_EQ(h.max, v[n - 1]);
		CHECK_U64_EQ(h.total, n);
		for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			uint64_t e = exact(v, n, ps[k]), got = hist_percentile(&h, ps[k]);
			uint64_t d = e > got ? e - got : got - e;

			if (e < 128 ? d != 0 : d * 100 > e)
				UNIT_FAIL("p%g of %zu values: exact %" PRIu64 ", histogram %" PRIu64,
					  ps[k], n, e, got);
		}
		hist_free(&h);
	}
	free(v);
}

static void hist_merge_adds(void)
{
	struct hist a = HIST_INIT, b = HIST_INIT, all = HIST_INIT;

	for (uint64_t v = 1; v < 5000000; v = v * 3 + 1) {
		CHECK_INT_EQ(hist_add(v % 2 ? &a : &b, v), 0);
		CHECK_INT_EQ(hist_add(&all, v), 0);
	}
	CHECK_INT_EQ(hist_merge(&a, &b), 0);
	CHECK_U64_EQ(a.total, all.total);
	CHECK_U64_EQ(a.min, all.min);
	CHECK_U64_EQ(a.max, all.max);
	for (double p = 5; p <= 100; p += 5)
		CHECK_U64_EQ(hist_percentile(&a, p), hist_percentile(&all, p));
	CHECK_U64_EQ(hist_percentile(&(struct hist)HIST_INIT, 50), 0);
	hist_free(&a);
	hist_free(&b);
	hist_free(&all);
}

int main(void)
{
	UNIT_RUN(hist_buckets);
	UNIT_RUN(hist_percentile_error);
	UNIT_RUN(hist_merge_adds);
	return unit_exit();
}
