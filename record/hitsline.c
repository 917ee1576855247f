/* SPDX-License-Identifier: MIT */
#include "hitsline.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* The line lists the first few runs of hits, until this long (the rest are
 * counted): 32 hits once made a line of over 1000 characters. */
#define HITSLINE_RUNS_MAX 4
#define HITSLINE_LIST_MAX 100

/* Appends FMT's text to LINE (SIZE bytes, N used): the new length, at most
 * SIZE - 1 (what does not fit is cut). */
static size_t line_add(char *line, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(line + n, size - n, fmt, ap);
	va_end(ap);
	return w < 0 ? n : n + (size_t)w < size ? n + (size_t)w : size - 1;
}

/* Appends HITS[I..J]'s note (all in snapshot K, -1: none): each hit whose
 * live line named another snapshot, and which one to open for it. */
static size_t group_note(const struct rec_hit_log *hits, int i, int j, int k, char *line,
			 size_t size, size_t n)
{
	int others = 0;

	for (int h = i; h <= j; h++) {
		const struct rec_hit_log *l = &hits[h];

		if (l->said < 0 || l->said == k)
			continue;
		n = line_add(line, size, n, l->came_in_flight ? "%shit %d came while snapshot %d "
			     "was being written" : "%shit %d took snapshot %d", others++ ? ", " : " (",
			     h, l->said);
	}
	if (others && k >= 0)
		n = line_add(line, size, n, ", but open snapshot %d for %s)", k,
			     others > 1 ? "each" : "it");
	else if (others)
		n = line_add(line, size, n, ", but no snapshot holds a sample of %s)",
			     others > 1 ? "them" : "it");
	else if (k < 0)
		n = line_add(line, size, n, " (no snapshot kept a sample of %s)",
			     j > i ? "them" : "it");
	/* a call whose samples more than one snapshot holds */
	for (int h = i; h <= j; h++)
		if (hits[h].call_first >= 0 && hits[h].call_last != hits[h].call_first)
			n = line_add(line, size, n, " (hit %d's call has samples in snapshots %d to %d)",
				     h, hits[h].call_first, hits[h].call_last);
	return n;
}

size_t rec_hits_line(const struct rec_hit_log *hits, int nhits, uint64_t coalesced,
		     const struct rec_hit_log *kept, int nkept, char *line, size_t size)
{
	size_t n = 0;
	int i = 0, runs = 0;

	if (!size)
		return 0;
	line[0] = 0;
	while (i < nhits) {
		int j = i, k = hits[i].snapshot;

		while (j + 1 < nhits && hits[j + 1].snapshot == k)
			j++;
		/* the last run is listed rather than counted ("and 1 more") */
		if ((runs++ >= HITSLINE_RUNS_MAX || n >= HITSLINE_LIST_MAX) && j + 1 < nhits)
			break;
		if (j > i)
			n = line_add(line, size, n, "%shits %d-%d", i ? "; " : "", i, j);
		else
			n = line_add(line, size, n, "%shit %d", i ? "; " : "", i);
		n = line_add(line, size, n, k >= 0 ? ": snapshot %d" : ": none", k);
		n = group_note(hits, i, j, k, line, size, n);
		i = j + 1;
	}
	if (i < nhits)
		n = line_add(line, size, n, "; and %d more in record.json", nhits - i);
	if (coalesced) {
		int held = 0;

		for (int c = 0; c < nkept; c++)
			held += kept[c].snapshot >= 0;
		n = line_add(line, size, n, "%s%" PRIu64 " coalesced (no snapshot of their own",
			     n ? "; " : "", coalesced);
		if (held)
			n = line_add(line, size, n, ", %d of them drawn in the snapshot holding %s",
				     held, held == 1 ? "it" : "each");
		n = line_add(line, size, n, ")");
	}
	return n;
}
