/* SPDX-License-Identifier: MIT */
/*
 * threads.c: the thread table, naming, the tracks of no thread, the
 * sampling period, and the events written on a thread's track.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_THREADS_H
#define SNAPTRACE_CONVERT_THREADS_H

#include "state.h"

/* threads.c: returns the thread PID/TID, creating it; NULL on out-of-memory
 * (c->nomem set), or with c->odd_ids_full set when PID or TID is one id too many outside
 * 1..CONV_KOID_BAND-1. */
struct conv_thread *conv_thread_get(struct conv *c, int64_t pid, int64_t tid);

/* threads.c: names T's process and T itself "COMM [ID]" in the output when
 * not yet named or when COMM changed (len 0, or perf's ":TID" placeholder
 * for a thread it saw no COMM record of, keeps the current name; an unnamed
 * thread then gets the comm its recording's record.json gives). */
void conv_thread_name(struct conv *c, struct conv_thread *t, struct conv_span comm);

/* Tracks of a process that are no thread of the input (docs/design.md
 * "Trigger markers", "Extra events"): the triggers, then one per event
 * name of the event samples (CONV_TRACK_EVENTS + the name's index). */
#define CONV_TRACK_TRIGGERS 0u
#define CONV_TRACK_EVENTS 1u

/* threads.c: track INDEX of process PID, named NAME (a thread object of its
 * own, made once), whose koids go to *PKOID and *TKOID; the process is
 * named "COMM [PID]" (COMM may be NULL) when nothing named it yet. Returns
 * false when no koid is left for it (CONV_ODD_IDS_MAX) or memory ran out
 * (c->nomem set). */
bool conv_track(struct conv *c, int64_t pid, const char *comm, uint32_t index,
		fxt_string_id name, uint64_t *pkoid, uint64_t *tkoid);

/* threads.c: the triggers track (FXT_TRACK_TRIGGERS) of process PID, as
 * conv_track(). */
bool conv_triggers_track(struct conv *c, int64_t pid, const char *comm, uint64_t *pkoid,
			 uint64_t *tkoid);

/* threads.c: T's sampling period, ns: its own (conv_thread.period_ns),
 * else the recording's (conv.period_ns); 0: unknown. Set by chain.c, read
 * by chain.c and the coverage report. */
uint64_t conv_thread_period(const struct conv *c, const struct conv_thread *t);

/* threads.c: how far the trace of process PID reaches: true when its main
 * thread's exit is in it (an exit record, or a switch out as a zombie);
 * *LAST the latest time of any of its threads (ns; 0: none in the trace). */
bool conv_process_end(const struct conv *c, int64_t pid, uint64_t *last);

/* threads.c: calls FN on every thread. */
void conv_threads_each(struct conv *c, void (*fn)(struct conv *, struct conv_thread *));

/* threads.c: frees the thread table. */
void conv_threads_free(struct conv *c);

/* threads.c: output of one event on T's track. Returns nothing: every
 * error of the writer is sticky and reported at close. */
void conv_emit_begin(struct conv *c, struct conv_thread *t, const struct conv_frame *f,
		     uint64_t ts, bool inferred);
void conv_emit_end(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts);
void conv_emit_slice_begin(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
			   const struct fxt_arg *args, unsigned nargs);
/* An instant: left out (counted in stats.deep_instants) when it would
 * nest CONV_MAX_DEPTH deep: Perfetto nests the instants of one time on one
 * track in one another and in the slices open there. */
void conv_emit_instant(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *args, unsigned nargs);
void conv_emit_counter(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *arg);
/* threads.c: an event sample of T: an instant named EVENT at TS with NARGS
 * ARGS on the track EVENT of T's process (a thread object of its own, as
 * Perfetto keeps it inside the process: docs/design.md "Extra events"), as
 * far as T's cut keeps it. Returns false when no koid is left for the
 * track (c->odd_ids_full set) or memory ran out (c->nomem set). */
bool conv_emit_event_sample(struct conv *c, struct conv_thread *t, fxt_string_id event,
			    uint64_t ts, const struct fxt_arg *args, unsigned nargs);

#endif
