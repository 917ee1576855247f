/* SPDX-License-Identifier: MIT */
/*
 * markers.c: a recording's hits and snapshots as instants on the
 * triggers track.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_MARKERS_H
#define SNAPTRACE_CONVERT_MARKERS_H

#include "state.h"

/* markers.c: writes recording R's trigger hits ("[trigger] SPEC" instants;
 * a function with no name "[trigger] [unnamed @ 0xSTART]", as its slices,
 * with SPEC as argument `trigger`;
 * and the span from a start TSC passed to magic_trace_stop_indicator) and
 * its snapshots that no hit took ("[snapshot] REASON") on a track
 * "triggers" in each traced process; a hit's extra fields while FXT's 15
 * arguments hold them (the rest named by one argument, with a warning).
 * Returns true, or false when record.json, read again for its hits, no
 * longer reads (the reason in ERR, SIZE bytes; the driver's
 * CONV_ERR_INPUT). */
bool conv_markers_write(struct conv *c, const struct recording *r, char *err, size_t size);

/* markers.c: the time of the last hit in process PID of any recording into
 * *NS, and their number into *N. Returns false when there is none. */
bool conv_markers_last_hit(const struct conv *c, int64_t pid, uint64_t *ns, size_t *n);

#endif
