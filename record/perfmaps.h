/* SPDX-License-Identifier: MIT */
/*
 * perfmaps: keeps the perf map of each recorded process (a JIT's
 * /tmp/perf-PID.map, common/perfmap.h) in the recording directory, so that
 * a conversion later names the JIT's functions when the original is gone or
 * belongs to another process by then. Each is opened once, safely (not a
 * symbolic link, a regular file, not a hard link to another user's file,
 * the process's own user's as the recorder saw it when it attached to or
 * launched it, never whoever has the pid later: perfmap_open(),
 * no larger than PERFMAP_MAX; at most PERFMAP_FILES_MAX of them and
 * PERFMAP_TOTAL_MAX bytes in all, the rest named in one warning), and copied from that descriptor into a new file (O_EXCL |
 * O_NOFOLLOW, mode 0600). It is opened as soon as it appears while the
 * recording runs (inotify on /tmp: a new or renamed perf-*.map name) and
 * held until the end: a JIT that removes its map as it exits (LuaJIT,
 * a perf-map agent's cleanup) once left none to keep. Why: docs/design.md
 * "JIT code".
 */
#ifndef SNAPTRACE_REC_PERFMAPS_H
#define SNAPTRACE_REC_PERFMAPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "perfmap.h"
#include "rec_opts.h"

/* The targets' maps held while the recording runs. Zero: not started. */
struct rec_perfmaps {
	bool started;
	int notify;                /* inotify on /tmp, -1: none (no more needed) */
	int fd[REC_MAX_PIDS];      /* per target: its map, opened; -1: none yet */
	char path[REC_MAX_PIDS][64];   /* ... the name it was opened by */
	struct perfmap_user users[REC_MAX_PIDS];   /* whose each target's map may be */
	struct perfmap_users rule;     /* ... as perfmap_open() asks (users borrowed) */
};

/*
 * Starts M for the NPIDS targets PIDS (at most REC_MAX_PIDS), whose users
 * are USERS (NUSERS of them: rec_target_note_users(); a target not among
 * them has no map kept): watches /tmp for new perf maps (none when inotify
 * cannot: the maps are then opened at the end only) and, unless LAUNCHED
 * (a program started and not run yet: a map at its pid now is a stale one,
 * none of its, and its user may change as it runs: setpriv, su), opens the
 * maps already there (an attached JIT's).
 */
void rec_perfmaps_start(struct rec_perfmaps *m, const pid_t *pids, int npids,
			const struct perfmap_user *users, int nusers, bool launched);

/* The descriptor to poll for M's news (POLLIN), or -1 when none is needed. */
int rec_perfmaps_fd(const struct rec_perfmaps *m);

/*
 * Reads M's news (the descriptor polled readable) and, when a perf map
 * appeared in /tmp, opens the map of each of PIDS not held yet, when its
 * owner is the process's user as rec_perfmaps_start() was told. The watch
 * ends once every target's map is held.
 */
void rec_perfmaps_notified(struct rec_perfmaps *m, const pid_t *pids, int npids);

/*
 * Copies the perf map of each of the NPIDS processes PIDS that has one (the
 * one M holds, else the one there now: /tmp/perf-PID.map, or by the name the
 * process sees itself by: perfmap_open(), by M's users, also for a process
 * gone) into the directory OUTDIR_FD as
 * PERFMAP_KEPT, then frees M (M NULL: none held). Returns how many were
 * kept; a map that cannot be kept is said in a warning (none at all:
 * nothing).
 */
int rec_perfmaps_keep(struct rec_perfmaps *m, int outdir_fd, const pid_t *pids, int npids);

/* Closes what M holds. A zeroed M (never started) is fine. */
void rec_perfmaps_free(struct rec_perfmaps *m);

#endif
