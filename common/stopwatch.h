/* SPDX-License-Identifier: MIT */
/*
 * stopwatch: whether a helper, or a process it started, stays stopped: the
 * one watch every wait of ours on a child that is or becomes another user
 * keeps (run.h's waits, spawn_start()'s wait for the exec). Apart from
 * run.c so that spawn.c, below it, uses it too.
 */
#ifndef SNAPTRACE_STOPWATCH_H
#define SNAPTRACE_STOPWATCH_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * How long a helper, or a process it started, may stay stopped (a stop
 * signal, a debugger: state T or t in /proc) before the tools give it up:
 * perf run as a recording's owner (runas.h) is that user's process, which
 * they may stop, and root's conversion once waited on it for ever
 * (docs/design.md "Threat model").
 */
#define RUN_STOPPED_MS 5000

/* The pid of child PID, or of a process it started (a pid namespace's
 * first process: tmpview.h), that is stopped now, or 0. */
pid_t run_stopped(pid_t pid);

/* The looks of a wait on a helper at whether it is stopped: zeroed before
 * the first. */
struct run_stopwatch {
	long long looked;        /* when it last looked (ms, CLOCK_MONOTONIC), or 0 */
	long long since;         /* since when each look found it stopped, or 0 */
};

/* Whether child PID, or a process it started, has been stopped at every
 * look of W since the first that found it so, for RUN_STOPPED_MS. Called
 * each time a wait on PID finds nothing new; looks (run_stopped(): a walk
 * of /proc) at most every half second, else answers as at the last look. */
bool run_held_stopped(pid_t pid, struct run_stopwatch *w);

/* How often a wait on a helper looks whether it is stopped (ms). */
#define STOP_LOOK_MS 500

#endif
