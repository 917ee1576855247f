/* SPDX-License-Identifier: MIT */
/*
 * cut.c: --filter and --window: which of a thread's events reach the
 * writer (docs/design.md "Cutting at edges").
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_CUT_H
#define SNAPTRACE_CONVERT_CUT_H

#include "state.h"

/* cut.c: writes EV (an event of T's track, koids set) as far as the cut
 * keeps it: all of it when c->cut.on is false; else a begin or end only
 * within T's kept intervals, the slices open at an interval's edges begun
 * or ended there. Counts slices and instants written, and what is left out
 * (c->stats). Write errors are sticky in the writer. */
void conv_cut_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev);

/* cut.c: writes EV, an instant of T on another track (an event sample),
 * when T's kept intervals hold its time (all of it when c->cut.on is
 * false), without moving T's intervals; counts it written or left out. */
void conv_cut_track_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev);

/* cut.c: T calls F at TS (a frame pushed for a call, a tail call or a
 * sampled frame, before its begin is written): with --filter, a call of
 * START begins a kept interval of T at TS, a call of STOP ends it there (the
 * STOP call itself is left out). */
void conv_cut_call(struct conv *c, struct conv_thread *t, const struct conv_func *f, uint64_t ts);

/* cut.c: reads --filter's ARG, "START,STOP" (split at the one comma outside
 * (), <> and []: C++ names keep theirs), into CUT (pointing into ARG).
 * Returns 0, or -1 when ARG is not two non-empty names so separated. */
int conv_cut_parse_filter(const char *arg, struct conv_cut *cut);

/* cut.c: reads --window's ARG, "BEFORE[,AFTER]" (durations with a unit:
 * num_parse_duration; AFTER 0 when absent), into *BEFORE and *AFTER, ns.
 * Returns 0, or -1 when ARG is not of that form or keeps no time. */
int conv_cut_parse_window(const char *arg, uint64_t *before, uint64_t *after);

/* cut.c: sorts the N windows W by start and merges those that overlap, in
 * place. Returns how many are left. */
size_t conv_cut_windows(struct conv_window *w, size_t n);

#endif
