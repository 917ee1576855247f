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
 *     the first snapshot whose samples span its return; else the one whose
 *     samples span the largest part of the call (the earlier of equals);
 *     else none. Never one holding only the call's start while another
 *     holds its return or more of it;
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
	uint64_t first_ns, last_ns;  /* perf clock: its first and last one's time */
	uint64_t read_ns;            /* perf clock at or before perf read its ring
				      * (record.json's time_ns); 0: unknown */
};

/*
 * The index into SPANS (N snapshots, in the recording's order) of the
 * snapshot holding a hit whose call ran from ENTRY_NS to RETURN_NS (perf
 * clock; ENTRY_NS = RETURN_NS or 0 for a plain hit at RETURN_NS), by the
 * rule above; -1 when none does.
 */
int rec_hit_holder(const struct rec_snap_span *spans, int n, uint64_t entry_ns,
		   uint64_t return_ns);

#endif
