/* SPDX-License-Identifier: MIT */
/*
 * perfmaps: keeps the perf map of each recorded process (a JIT's
 * /tmp/perf-PID.map, common/perfmap.h) in the recording directory, so that
 * a conversion later names the JIT's functions when the original is gone or
 * belongs to another process by then. The recorded processes are the
 * targets and their descendants whose maps appear while the recording runs
 * (perf records the children a target forks: a JIT run by a shell, make, a
 * test runner). Each map is opened once, safely (not a symbolic link, a
 * regular file, not a hard link to another user's file, owned by the live
 * process's own user when it is opened, the process held: its pidfd and
 * start time say it is still the one judged, never whoever has the pid
 * later: perfmap_open(), no larger than PERFMAP_MAX; at most
 * PERFMAP_FILES_MAX of them and PERFMAP_TOTAL_MAX bytes in all, the rest
 * named in one warning), and copied from that descriptor into a new file
 * (O_EXCL | O_NOFOLLOW, mode 0600). It is opened as soon as it appears
 * while the recording runs (inotify on /tmp: a new or renamed perf-*.map
 * name) and held until the end: a JIT that removes its map as it exits
 * (LuaJIT, a perf-map agent's cleanup) once left none to keep; a map held
 * is let go when its process's user is no longer its owner. Never a file
 * at the name from before the process came to be (perfmap_file_ok()).
 * Every user each process was seen as (noted when the recording starts,
 * at each perf-*.map name, at its map's first open, at the launched
 * program's exit, at the end), with when it came to be, is what
 * record.json's "uids" lists: a process that changed user while recorded
 * (setpriv, su) gets no map from /tmp at conversion. Why: docs/design.md
 * "JIT code".
 */
#ifndef SNAPTRACE_REC_PERFMAPS_H
#define SNAPTRACE_REC_PERFMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "perfmap.h"
#include "procfs.h"
#include "rec_opts.h"

/* The processes whose maps one recording judges: its targets, and as many
 * descendants as keep twice the maps a recording keeps. */
#define REC_PERFMAPS_PROCS (REC_MAX_PIDS + 2 * PERFMAP_FILES_MAX)
/* The users they are noted as: two distinct users of one process already
 * refuse it every map from /tmp (perfmap_users_ok()), so no more are kept. */
#define REC_PERFMAPS_USERS (2 * REC_PERFMAPS_PROCS)

/* One process whose map is judged. */
struct rec_perfmap_proc {
	struct rec_proc_held held;  /* pid, pidfd (-1: none, the start time alone), start */
	int fd;                     /* its map, opened; -1: none yet */
	char path[64];              /* ... the name it was opened by */
	struct stat stale;          /* a launched target's: the file at its map's name
				     * before it ran (st_ino 0: none), never its map
				     * while unchanged */
	struct perfmap_user seen;   /* the user it was last seen as (pid 0: none yet),
				     * born: when it came to be */
};

/* The recorded processes' maps held while the recording runs. Zero: not started. */
struct rec_perfmaps {
	bool started;
	bool launched;             /* the target was launched: the recorder reaps orphans */
	bool children;             /* perf records the targets' children: their maps too */
	int notify;                /* inotify on /tmp, -1: none */
	struct rec_perfmap_proc proc[REC_PERFMAPS_PROCS];  /* the targets first */
	int nproc, ntargets;
	unsigned left_out;         /* descendants with a map past REC_PERFMAPS_PROCS */
	struct perfmap_user users[REC_PERFMAPS_USERS];     /* record.json's "uids" */
	size_t nusers;
	struct perfmap_users rule; /* as perfmap_open() asks (users borrowed, live) */
};

/*
 * Starts M for the NPIDS targets PIDS (at most REC_MAX_PIDS): holds each
 * (rec_proc_hold()), notes its real and effective uids (a process whose
 * uids cannot be read has no map kept), watches /tmp for new perf maps
 * (none when inotify cannot: the targets' maps are then opened at the end
 * only) and, unless LAUNCHED (a program started and not run yet: a map at
 * its pid now is a stale one, none of its, nor later while that file is
 * unchanged: the program, root's until a setpriv in it drops to another
 * user, could have had root's stale map judged its own), opens the maps already there
 * (an attached JIT's). With CHILDREN (perf records the children the targets
 * start: rec_opts_children()), their descendants' maps are judged too
 * (rec_perfmaps_notified()). Called right before rec_target_still_same() tells
 * the processes held are the ones attached to.
 */
void rec_perfmaps_start(struct rec_perfmaps *m, const pid_t *pids, int npids, bool launched,
			bool children);

/* The descriptor to poll for M's news (POLLIN), or -1 when none is needed. */
int rec_perfmaps_fd(const struct rec_perfmaps *m);

/*
 * Reads M's news (the descriptor polled readable), one read's worth (8 KiB
 * of names) a call, so that a flood of names in /tmp (anyone may make
 * them) leaves the recorder's signals, perf and triggers their turn
 * between calls (hostile21 NEW 1: Ctrl-C waited 27 s, a trigger 8 s, while
 * another user made and removed names); and when a perf map appeared in
 * /tmp, notes the user each process of M has now, lets go of
 * a map held that is not that user's, opens the map of each not held yet, and
 * with CHILDREN, that of the process the new name is of (perf-N.map) when it descends from
 * a target (its parents, each started no later than its child, lead to one;
 * for a launched target, to the recorder that reaps its orphans, through a
 * process that is not PERF, perf's pid), judged against the live process's
 * user, read as the map is opened, the process still the one held after.
 * When the kernel dropped names (its queue overflowed), rec_perfmaps_rescan().
 */
void rec_perfmaps_notified(struct rec_perfmaps *m, pid_t perf);

/*
 * With CHILDREN, judges, as if its map's name had just appeared, each
 * descendant of M's targets (for a launched one, of the recorder too: the
 * orphans it reaps) other than PERF that has a map in /tmp now: their
 * children by /proc/PID/task/TID/children, breadth first, at most 1024 of
 * them. What rec_perfmaps_notified() does when names were lost (the
 * queue overflowed: a child's JIT map was lost in a flood of another
 * user's names, hostile21 NEW 2).
 */
void rec_perfmaps_rescan(struct rec_perfmaps *m, pid_t perf);

/* Notes U, a user process U->pid of M had (the launched program's, seen as
 * it exited: rec_target's exit_user), into M's "uids", as the user that
 * process, when M holds it, was last seen as (with the time it came to be). */
void rec_perfmaps_note(struct rec_perfmaps *m, const struct perfmap_user *u);

/*
 * Notes the users of M's processes still held, then copies the perf map of
 * each that has one (the one M holds while it is the user's the process
 * was last seen as, else the one there now, by the same
 * rule: perfmap_open(), also for a process gone, whose map is then none)
 * into the directory OUTDIR_FD as PERFMAP_KEPT, and closes what M holds (M's
 * "uids" stay). Returns how many were kept; a map that cannot be kept is
 * said in a warning (none at all: nothing).
 */
int rec_perfmaps_keep(struct rec_perfmaps *m, int outdir_fd);

/* The users M's processes were seen as (record.json's "uids"), *N of them;
 * none before M started. */
const struct perfmap_user *rec_perfmaps_users(const struct rec_perfmaps *m, size_t *n);

/* Closes what M holds. A zeroed M (never started) is fine. */
void rec_perfmaps_free(struct rec_perfmaps *m);

#endif
