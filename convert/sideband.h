/* SPDX-License-Identifier: MIT */
/*
 * sideband: what names a recording's samples and lets perf unwind them (the
 * side-band records COMM, MMAP, MMAP2 and FORK: each process's name and
 * mappings), carried from its earlier snapshot files into every later one.
 * perf writes a --switch-output file's side-band by reading /proc when it
 * switches to that file, and lists only the executable mappings there: a
 * library's read-only segment (its .eh_frame_hdr, which perf's unwinder
 * reads to unwind a context switch's stack copy) is in the records of the
 * file that was current when it was mapped, the first one, and a later file
 * lacks it (its off-CPU stacks stop in the C library); a switch after the
 * target exited (a snapshot perf took late, the exit snapshot) finds
 * nothing at all, and perf script then names no frame of the file's samples
 * ([unknown]) and no thread (":TID"). Side-band records are perf's own,
 * copied as they are, before the later file's records (perfdata_rewrite()):
 * the earlier files hold every record up to the later one's start (the
 * tracking event's ring is written into the file current at the time), as
 * one perf.data of the whole recording would. Why: docs/design.md
 * "Snapshots".
 */
#ifndef SNAPTRACE_CONVERT_SIDEBAND_H
#define SNAPTRACE_CONVERT_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define SIDEBAND_MAX (64u << 20)   /* bytes carried at most */

/* The side-band of a recording's snapshot files so far. */
struct sideband {
	unsigned char *recs;       /* whole records, in file order, each once (owned) */
	size_t len, cap;
	struct hash_index index;   /* hash_bytes() of a record -> its offset in recs */
	size_t nrecs;
	unsigned char *mine;       /* the last file scanned's (owned) */
	size_t mine_len, mine_cap;
	bool complete;             /* that file holds a COMM of every traced process */
};

/*
 * Reads the side-band records of the perf.data PATH into SB's "mine", and
 * whether it names every process of PIDS (NPIDS of them: a COMM record of
 * each). Returns 0; -ENOMEM; or a negative error of the records' walk
 * (perfdata.h), with nothing to carry.
 */
int sideband_scan(struct sideband *sb, const char *path, const int64_t *pids, size_t npids);

/*
 * Whether the file last scanned is to be read with SB's earlier side-band:
 * earlier files of its recording hold some (it is not the first).
 */
bool sideband_wanted(const struct sideband *sb);

/*
 * Writes a copy of the perf.data PATH (the file last scanned) with SB's
 * earlier side-band before its own records into a new unnamed file in
 * $TMPDIR or /tmp (O_TMPFILE). Returns the file's descriptor,
 * close-on-exec (perf, whose argv names it as /proc/self/fd/N, gets it:
 * spawn.h; the caller closes it, which removes it), or a negative errno (-ENOTSUP: a file
 * whose records cannot move, perfdata_rewrite()).
 */
int sideband_carry(const struct sideband *sb, const char *path);

/*
 * Appends the side-band of the file last scanned to SB's earlier side-band,
 * each record not already there (a record equal byte for byte to one held,
 * as perf's synthesized ones of every switch are while nothing changed,
 * says nothing new): what is held grows with what the program did, not
 * with the number of snapshots. Returns 0, or -ENOMEM (more than
 * SIDEBAND_MAX, or no memory: SB keeps the records that fit).
 */
int sideband_next(struct sideband *sb);

/* Frees what SB holds and zeroes it. */
void sideband_free(struct sideband *sb);

#endif
