/* SPDX-License-Identifier: MIT */
/*
 * timeline: the inputs as snapshots of recordings, and what carries from
 * one to the next (timeline.h; docs/design.md "Recording directories").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

int timeline_files(struct recording *r, const char *const *paths, size_t n)
{
	*r = (struct recording){ .dirfd = -1, .fd = -1, .files = true };
	r->snapshots = calloc(n ? n : 1, sizeof(*r->snapshots));
	if (!r->snapshots)
		return -ENOMEM;
	for (; r->nsnapshots < n; r->nsnapshots++) {
		struct recording_snapshot *sn = &r->snapshots[r->nsnapshots];

		sn->path = strdup(paths[r->nsnapshots]);
		sn->file = strdup(paths[r->nsnapshots]);
		if (!sn->path || !sn->file) {
			r->nsnapshots++;	/* freed by recording_free() */
			return -ENOMEM;
		}
	}
	return 0;
}

enum timeline_next timeline_next(const struct recording *r, size_t k,
				 const struct recording *next, size_t next_k)
{
	if (next != r || next_k != k + 1)
		return TIMELINE_END;
	return r->files ? TIMELINE_FILE : TIMELINE_SNAPSHOT;
}
