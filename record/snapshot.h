/* SPDX-License-Identifier: MIT */
/*
 * snapshot: the snapshots of one recording (S->snaps of struct rec_session,
 * rec_state.h): taking one the way the plan says (plan.h enum
 * rec_snap_how), giving each file perf announces its snapshot, and, once
 * perf stopped, checking the files and which snapshot holds each hit. The
 * session (session.c) decides when; this module does it.
 * Why: docs/design.md "Snapshots".
 */
#ifndef SNAPTRACE_REC_SNAPSHOT_H
#define SNAPTRACE_REC_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "rec_state.h"

#define REC_SNAPSHOT_TIMEOUT_MS 10000   /* perf's ack or Dump line of a snapshot */
#define REC_SNAPSHOT_PENDING (-2)       /* a hit's or signal's snapshot that perf's stop takes */

/* Adds the threads of S's targets (with their names) to S->threads. */
void rec_snapshot_threads(struct rec_session *s);

/* Once perf records, before the targets run on: S->start_ns (perf clock:
 * the switch records are complete from then), S->threads, and for an attach
 * each thread's scheduler state and wait channel then (rec_proc_state():
 * what it was doing before its first switch record). */
void rec_snapshot_start(struct rec_session *s);

/* A new snapshot of S for REASON in FILE (a path or a name; "" while perf
 * writes it) whose data reaches at least LIVE_NS (perf clock; 0: unknown),
 * its times now. Returns it (in S->snaps), or NULL on out-of-memory. */
struct rec_snap *rec_snapshot_new(struct rec_session *s, enum record_end reason, const char *file,
				  uint64_t live_ns);

/*
 * Gives each file perf has announced (Dump lines) its snapshot: the one in
 * flight; else, once perf has stopped (FINAL), when the files hold only
 * post-trigger data, deletes it; else a snapshot of its own (perf's stop, or
 * a switch perf made by itself), so that record.json lists every file perf
 * wrote. A file named like one listed before replaced it (perf names its
 * files to the 10 ms): the snapshot before loses its file, and its problem
 * says why ("lost: ..."), so that no name is listed twice.
 */
void rec_snapshot_settle(struct rec_session *s, bool final);

/*
 * Once perf has stopped, after rec_snapshot_settle(S, true): the file perf
 * was writing into when it failed or was killed (its -o name, which a
 * switch would have renamed; only where it switched files before) is the
 * snapshot in flight's, else one of its own (perf's stop), so that
 * record.json lists it (rec_snapshot_check() then finds it unfinished);
 * after a single snapshot perf confirmed it is removed, as the stop's
 * dumps are.
 */
void rec_snapshot_leftover(struct rec_session *s);

/* Waits up to TIMEOUT_MS for perf to confirm S's snapshot in flight.
 * Returns 0, -EPIPE (perf's output closed) or -ETIMEDOUT. */
int rec_snapshot_wait(struct rec_session *s, int timeout_ms);

/*
 * Takes a snapshot for REASON the way the plan says (a hit's: its time is
 * how far perf is known to have recorded into it, so no live_ns is read,
 * which would delay the freeze: the first perf clock read costs ~8 ms).
 * Multi-snapshot recordings do not wait for perf's SIGUSR2 snapshot: it
 * stays in flight (S->inflight) until perf's Dump line, and the main loop
 * goes on. Returns the index of the new snapshot, REC_SNAPSHOT_PENDING when
 * perf's stop will take it, or -1 when it failed.
 */
int rec_snapshot_take(struct rec_session *s, enum record_end reason);

/*
 * The first snapshot of S whose ring was read at or after TIME_NS (perf
 * clock): one with a file and a time_ns (taken once the ring was frozen or
 * the snapshot asked for) at or after it; -1 when none (a later one, or
 * perf's last at its stop, will be). For a hit it decides whether the hit
 * takes a snapshot of its own, not which one holds it: in a sampling
 * recording that is hitholder.h's rule, once the files are read
 * (rec_snapshot_hits_held()).
 */
int rec_snapshot_read_after(const struct rec_session *s, uint64_t time_ns);

/* Checks each file perf wrote (perfdata.h): one it did not finish (a full
 * disk, perf killed while writing it) gets its problem, which record.json
 * shows. On a full disk perf may also finish a header over contents it
 * could not write, which no header check sees: there perf reads each file
 * itself. A file perf announced that is not there is lost: its snapshot
 * gets no file and a problem starting "lost: " (as one whose file perf
 * replaced, rec_snapshot_settle()). Returns how many snapshots have a
 * problem, lost ones included. */
int rec_snapshot_check(struct rec_session *s);

/*
 * Gives each hit of a sampling recording the snapshot that holds it, by
 * each file's samples of the sampled event (REC_PLAN_SAMPLED_EVENT), the
 * span of its samples and context switches (perfdata_sample_times) and the
 * rule of hitholder.h: the one holding the most of a slow call's samples,
 * else the first whose records span its return, else the one spanning the
 * largest part of the call; none when no file has a record of it (perf
 * lost them: its ring paused while it wrote an earlier snapshot, or
 * overwritten); and a slow call the first and last snapshot holding its
 * samples (call_first, call_last). A snapshot with a problem, or without
 * samples, holds none. Intel PT snapshots hold no samples to tell: their
 * hits keep theirs. The coalesced hits kept get theirs by the same rule.
 */
void rec_snapshot_hits_held(struct rec_session *s);

#endif
