/* SPDX-License-Identifier: MIT */
/*
 * timeline: a conversion's inputs as the snapshots of recordings, in the
 * order they are converted, and what each passes on to the next: the gap
 * rule and the carry-over rule, stated in docs/design.md "Recording
 * directories". A recording directory is a recording (recording.h); the
 * other inputs given in a row (perf.data files, perf script text, "-") are
 * one too, whose snapshots are those files (timeline_files()).
 */
#ifndef SNAPTRACE_CONVERT_TIMELINE_H
#define SNAPTRACE_CONVERT_TIMELINE_H

#include <stddef.h>

#include "recording.h"

/* What a snapshot passes on to the input converted after it (the driver
 * applies it at the input's end: driver.c thread_end_input()). */
enum timeline_next {
	TIMELINE_END,          /* nothing: its recording ends here (its last snapshot
				* converted, or the one before a snapshot left out: the
				* time between is unknown); every thread's frames and
				* [off-cpu] end by what the snapshot is known to reach */
	TIMELINE_SNAPSHOT,     /* the next snapshot of its recording directory: one
				* timeline (perf's normal ring ran on between the
				* files): a sampled thread's stack, on or off the CPU,
				* carries into it */
	TIMELINE_FILE,         /* the next of the files given in a row: whether it
				* follows at once is not known: a sampled thread off the
				* CPU stays so into it, the frames of one on the CPU end
				* by its first event there */
};

/*
 * Makes the N inputs PATHS (arguments that are no directory; borrowed) into
 * *R (zeroed first), a recording of files (R->files): snapshot K is
 * PATHS[K] (its path and file copies of it), of reason RECORD_END_NONE, no
 * time known. Free it with recording_free() whatever the result. Returns 0
 * or -ENOMEM.
 */
int timeline_files(struct recording *r, const char *const *paths, size_t n);

/*
 * What snapshot K of R passes on when the input converted after it is
 * snapshot NEXT_K of NEXT (NEXT NULL: no input follows): TIMELINE_SNAPSHOT
 * or TIMELINE_FILE (by R's kind) when it is the next snapshot of the same
 * recording, else TIMELINE_END (the gap rule: a snapshot left out between
 * two ends what the one before carries; another recording is another time).
 */
enum timeline_next timeline_next(const struct recording *r, size_t k,
				 const struct recording *next, size_t next_k);

#endif
