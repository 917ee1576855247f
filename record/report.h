/* SPDX-License-Identifier: MIT */
/*
 * report: the recording's record.json (format: common/record_json.h), kept
 * from the start (a killed recorder leaves "end": "none") and rewritten in
 * place at the end. Why: docs/design.md "Snapshots".
 */
#ifndef SNAPTRACE_REC_REPORT_H
#define SNAPTRACE_REC_REPORT_H

#include "rec_state.h"

#define REC_REPORT_RESERVE (256 * 1024)   /* bytes kept for record.json */

/*
 * Creates S->outdir_fd's record.json (it must not exist: O_EXCL|O_NOFOLLOW)
 * into S->report_fd and writes the report of S as it stands (a recording
 * that has not ended: "end": "none", what a killed recorder leaves) with
 * REC_REPORT_RESERVE more bytes allocated past its end, so that the final
 * report still fits when perf fills the disk (rec_report_write truncates
 * the file first, freeing that room). Returns 0 or a negative errno.
 */
int rec_report_reserve(struct rec_session *s);

/* Removes record.json (a recording that kept nothing). */
void rec_report_unreserve(struct rec_session *s);

/*
 * Writes S as record.json (format: common/record_json.h): into the file
 * rec_report_reserve() made, rewritten in place and closed (a name swapped
 * meanwhile changes nothing), else a new one. Returns 0 or a negative errno
 * (-ENOSPC when the disk is full).
 */
int rec_report_write(struct rec_session *s);

#endif
