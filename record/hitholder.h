/* SPDX-License-Identifier: MIT */
/*
 * hitholder: which snapshot of a sampling recording holds a trigger hit,
 * from what each snapshot file holds (the times of its first and last
 * sample or context switch, perfdata_sample_times()). Pure: every input is given, so the rule
 * is tested alone (tests/unit/test_rec_hitholder.c); snapshot.c
 * rec_snapshot_hits_held() reads the files and applies it.
 *
 * The rule (docs/design.md "Snapshots", "Which snapshot holds a hit"): a
 * user opening a hit's snapshot expects to see the hit in it.
 *   - a slow call (entry before its return, the moment the trigger fired):
 *     the snapshot holding the most of the call's samples (those of the
 *     sampled event from its entry to its return: what shows the call
 *     running), the one whose samples span its return among equals, else
 *     the earlier; when none holds one (a call asleep throughout, or
 *     shorter than a sampling period), the first snapshot whose samples
 *     and switches span its return, else the one whose span holds the
 *     largest part of the call (the earlier of equals), else none. Never
 *     one holding only switch records of the call while another holds its
 *     samples (perf read the ring while the call slept: the next file
 *     holds only its switch-in and return), nor one holding a sample of
 *     its start while another holds more of them. When the call's samples
 *     are in more than one snapshot, the first and the last holding one
 *     are said (record.json, the summary);
 *   - a plain hit (an instant): the first snapshot with a sample at or
 *     before it whose data reaches it (a sample at or after it, or its ring
 *     read at or after it); else none.
 * A snapshot without samples (the empty exit snapshot of a target that
 * exited, a file perf did not finish) holds no hit.
 */
#ifndef SNAPTRACE_REC_HITHOLDER_H
#define SNAPTRACE_REC_HITHOLDER_H

#include <stddef.h>
#include <stdint.h>

/* What one snapshot file holds. */
struct rec_snap_span {
	size_t samples;              /* its samples and context switches; 0: none (or
				      * unreadable, unfinished) */
	const uint64_t *sampled;     /* the times (perf clock, ascending) of its
				      * samples of the sampled event, NSAMPLED;
				      * borrowed */
	size_t nsampled;
	uint64_t first_ns, last_ns;  /* perf clock: its first and last one's time */
	uint64_t read_ns;            /* perf clock at or before perf read its ring
				      * (record.json's time_ns); 0: unknown */
};

/* Where a hit is: the snapshot holding it, and for a slow call the first
 * and the last snapshot holding its samples. Indexes into the spans, -1:
 * none. */
struct rec_hit_place {
	int snapshot;
	int call_first, call_last;   /* equal when one snapshot holds them all */
};

/*
 * Where a hit whose call ran from ENTRY_NS to RETURN_NS (perf clock;
 * ENTRY_NS = RETURN_NS or 0 for a plain hit at RETURN_NS) is in SPANS (N
 * snapshots, in the recording's order), by the rule above.
 */
struct rec_hit_place rec_hit_holder(const struct rec_snap_span *spans, int n,
				    uint64_t entry_ns, uint64_t return_ns);

#endif
