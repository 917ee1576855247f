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

int rec_hit_holder(const struct rec_snap_span *spans, int n, uint64_t entry_ns,
		   uint64_t return_ns)
{
	bool instant = !entry_ns || entry_ns >= return_ns;
	uint64_t most = 0;
	int best = -1;

	for (int k = 0; k < n; k++)
		if (holds_time(&spans[k], return_ns, instant))
			return k;
	if (instant)
		return -1;
	/* none spans the return: the largest part of [entry, return] */
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
