/* SPDX-License-Identifier: MIT */
/*
 * keepbin: --keep-binaries. Copies every binary the finished snapshot files
 * name by build id (perfdata_buildids) into OUTDIR/PERFDATA_BINARIES_DIR,
 * perf's build-id cache layout (buildcache.h), so that the recording
 * converts the same once they are rebuilt or removed (snaptrace-convert
 * runs perf script with --buildid-dir there).
 * Why: docs/design.md "Snapshots".
 */
#ifndef SNAPTRACE_REC_KEEPBIN_H
#define SNAPTRACE_REC_KEEPBIN_H

#include "rec_state.h"

/*
 * Keeps the binaries of the NSNAPS snapshots SNAPS (those with a file and no
 * problem) of the recording directory OUTDIR (as named, for messages), open
 * as OUTDIR_FD. A binary that cannot be kept is warned about and skipped.
 * Returns how many were copied, or -1 when the cache directory cannot be
 * made (warned).
 */
int rec_keep_binaries(const char *outdir, int outdir_fd, const struct rec_snap *snaps, int nsnaps);

#endif
