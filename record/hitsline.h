/* SPDX-License-Identifier: MIT */
/*
 * hitsline: the recorder's summary line of trigger hits (record/main.c
 * prints it after "trigger hits (numbered as in record.json) and the
 * snapshot to open for each: "): every hit record.json lists with the
 * snapshot that shows it (hitholder.h's rule; runs of hits in one
 * snapshot as a range, both numbered from 0 as record.json numbers them),
 * a hit whose live line named another snapshot said so with the one to
 * open ("hits 1-2: snapshot 1 (hit 2 took snapshot 2, but open snapshot 1
 * for it)"), a slow call whose samples more than one snapshot holds said so
 * ("hit 3: snapshot 1 (hit 3's call has samples in snapshots 1 to 2)"),
 * and the hits that took no snapshot of their own counted, with
 * those a snapshot holds. Pure, so the words are tested alone
 * (tests/unit/test_rec_hitsline.c). Why: docs/design.md "Snapshots".
 */
#ifndef SNAPTRACE_REC_HITSLINE_H
#define SNAPTRACE_REC_HITSLINE_H

#include <stddef.h>
#include <stdint.h>

#include "rec_state.h"

/*
 * Writes the line of HITS (NHITS, record.json's order, .snapshot the one
 * holding each, -1: none) and of COALESCED hits that took no snapshot, of
 * which KEPT (NKEPT) were kept with the snapshot holding each, into LINE
 * (SIZE bytes, NUL-terminated; bounded: past the first 4 runs of hits in
 * one snapshot, or about 100 bytes, the rest of the hits are counted, "; and
 * 28 more in record.json"). Returns its length, 0
 * (LINE "") when there is nothing to say: no hit, none coalesced.
 */
size_t rec_hits_line(const struct rec_hit_log *hits, int nhits, uint64_t coalesced,
		     const struct rec_hit_log *kept, int nkept, char *line, size_t size);

#endif
