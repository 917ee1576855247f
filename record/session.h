/* SPDX-License-Identifier: MIT */
/*
 * session: one recording from start to finish. Starts perf per the plan,
 * waits until it is ready (control "enable" + ack, or its events open), arms
 * the trigger, lets a launched target run, then waits in one poll loop for
 * a trigger hit, a stop signal (sig_stops, through a signalfd), the
 * target's exit, perf's exit or the --duration deadline, and takes the
 * snapshots the options ask for. Never leaves perf running.
 * Why: docs/design.md "Process model" and "Snapshots".
 */
#ifndef SNAPTRACE_REC_SESSION_H
#define SNAPTRACE_REC_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "rec_state.h"
#include "signals.h"

/*
 * Runs a recording. S->o, S->h, S->plan, S->target (launched and stopped,
 * or attached), S->loc/S->have_trigger/S->mech/S->arm, S->outdir and
 * S->outdir_fd must be set.
 * Returns 0 when data was kept; a negative errno with S->error (and
 * S->said when perf's words tell why) filled otherwise (S->snaps then lists what perf did write). perf is stopped and
 * reaped in every case; a launched target and every process it started are
 * killed and reaped if still running. The signals S->sigfd held when perf
 * ended are read then (the recording's); one that comes later stays there.
 */
int rec_session_run(struct rec_session *s);

/*
 * How target I of S (an index into S->target.pids) ended, into *E: its exit
 * or the signal that killed it (with the signal's details from the watch),
 * or the crash signal it handled before it exited. Returns false when it
 * did not end during the recording, or the recorder's SIGTERM killed it
 * (rec_exit's by_recorder: not the program's own end).
 */
bool rec_session_ending(const struct rec_session *s, int i, struct sig_ending *e);

/*
 * The exit status `snaptrace run` passes on for the launched program of S:
 * its own exit status, or 128 + N when signal N killed it (130 for the
 * SIGINT of a Ctrl-C that reached both); 0 when the recording ended it
 * (the trigger, --duration, a stop signal to the recorder alone: the
 * program still ran when the recording ended) or its end is unknown.
 */
int rec_session_program_status(const struct rec_session *s);

#endif
