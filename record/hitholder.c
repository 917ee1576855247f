/* SPDX-License-Identifier: MIT */
#include "hitholder.h"

#include <stdbool.h>

/* Whether SP has a sample at or before T and reaches T: a sample at or
 * after it, or (READ) its ring read at or after it. */
static bool holds_time(const struct rec_snap_span *sp, uint64_t t, bool read)
{
	return sp->samples && sp->first_ns <= t &&
	       (sp->last_ns >= t || (read && sp->read_ns >= t));
}

/* How many of T (N, ascending) are before LIMIT. */
static size_t before(const uint64_t *t, size_t n, uint64_t limit)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] < limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* SP's samples of the sampled event from ENTRY_NS to RETURN_NS. */
static size_t call_samples(const struct rec_snap_span *sp, uint64_t entry_ns, uint64_t return_ns)
{
	if (!sp->samples || !sp->nsampled)
		return 0;
	return before(sp->sampled, sp->nsampled, return_ns + 1) -
	       before(sp->sampled, sp->nsampled, entry_ns);
}

/* The snapshot of SPANS (N) by the span of its samples and switches: the
 * first spanning RETURN_NS, else (a call) the one spanning the largest part
 * of [ENTRY_NS, RETURN_NS], the earlier of equals; -1: none. */
static int by_span(const struct rec_snap_span *spans, int n, uint64_t entry_ns,
		   uint64_t return_ns, bool instant)
{
	uint64_t most = 0;
	int best = -1;

	for (int k = 0; k < n; k++)
		if (holds_time(&spans[k], return_ns, instant))
			return k;
	if (instant)
		return -1;
	for (int k = 0; k < n; k++) {
		const struct rec_snap_span *sp = &spans[k];
		uint64_t from, to;

		if (!sp->samples || sp->first_ns > return_ns || sp->last_ns < entry_ns)
			continue;
		from = sp->first_ns > entry_ns ? sp->first_ns : entry_ns;
		to = sp->last_ns < return_ns ? sp->last_ns : return_ns;
		if (best < 0 || to - from > most) {
			best = k;
			most = to - from;
		}
	}
	return best;
}

struct rec_hit_place rec_hit_holder(const struct rec_snap_span *spans, int n,
				    uint64_t entry_ns, uint64_t return_ns)
{
	struct rec_hit_place p = { -1, -1, -1 };
	bool instant = !entry_ns || entry_ns >= return_ns;
	size_t most = 0;

	if (!instant)
		for (int k = 0; k < n; k++) {
			size_t c = call_samples(&spans[k], entry_ns, return_ns);

			if (!c)
				continue;
			if (p.call_first < 0)
				p.call_first = k;
			p.call_last = k;
			if (c > most || (c == most && !holds_time(&spans[p.snapshot], return_ns, false) &&
					 holds_time(&spans[k], return_ns, false))) {
				most = c;
				p.snapshot = k;
			}
		}
	if (p.snapshot < 0)
		p.snapshot = by_span(spans, n, entry_ns, return_ns, instant);
	return p;
}
