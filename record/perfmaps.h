/* SPDX-License-Identifier: MIT */
/*
 * perfmaps: keeps the perf map of each recorded process (a JIT's
 * /tmp/perf-PID.map, common/perfmap.h) in the recording directory, so that
 * a conversion later names the JIT's functions when the original is gone or
 * belongs to another process by then. Each is opened once, safely (not a
 * symbolic link, a regular file, not a hard link to another user's file,
 * the process's own user's: perfmap_open(),
 * no larger than PERFMAP_MAX; at most PERFMAP_FILES_MAX of them and
 * PERFMAP_TOTAL_MAX bytes in all, the rest named in one warning), and copied from that descriptor into a new file (O_EXCL |
 * O_NOFOLLOW, mode 0600). Why: docs/design.md "JIT code".
 */
#ifndef SNAPTRACE_REC_PERFMAPS_H
#define SNAPTRACE_REC_PERFMAPS_H

#include <sys/types.h>

/*
 * Copies the perf map of each of the NPIDS processes PIDS that has one
 * (/tmp/perf-PID.map, or by the name the process sees itself by:
 * perfmap_open()) into the directory OUTDIR_FD as PERFMAP_KEPT. Returns how many were kept;
 * a map that cannot be kept is said in a warning (none at all: nothing).
 */
int rec_perfmaps_keep(int outdir_fd, const pid_t *pids, int npids);

#endif
