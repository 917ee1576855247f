/* SPDX-License-Identifier: MIT */
/*
 * complete.c: a thread's slices as duration complete records (the leaves)
 * or begin/end pairs (docs/design.md "Complete events").
 * Its types are state.h's (struct conv_open_slice, conv_thread.open).
 */
#ifndef SNAPTRACE_CONVERT_COMPLETE_H
#define SNAPTRACE_CONVERT_COMPLETE_H

#include "state.h"

/* complete.c: writes EV, an event of T's track (koids set) that the cut
 * keeps: a begin is held until its end, then written with it as one
 * complete record, unless something is recorded inside it first (then
 * begin and end records: docs/design.md "Complete events"). Every record of
 * T is written in begin-time order but the begins written late (frames
 * inferred below the stack). An end is written no earlier than its slice's
 * begin, nor than what was written inside the slice: every record nests in
 * its parent. Out of memory sets c->nomem. */
void conv_complete_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev);

/* complete.c: writes the begin records of T's open slices still held (at
 * the input's end: a slice never ended shows as such). */
void conv_complete_flush(struct conv *c, struct conv_thread *t);

#endif
