/* SPDX-License-Identifier: MIT */
/*
 * perfdata: the perf.data files perf wrote into a recording directory
 * ("perf.data", "perf.data.<timestamp>"): finding them, for a recording
 * whose own list of them is missing (its recorder was killed, or perf died
 * first), and telling a file perf finished from one it did not (a full
 * disk, perf killed while writing, a file cut short since).
 * Why: docs/design.md "Unfinished perf.data files".
 */
#ifndef SNAPTRACE_PERFDATA_H
#define SNAPTRACE_PERFDATA_H

#include <stddef.h>

/*
 * Stores in *PATHS (owned by the caller: each string and the array, which
 * is NULL-terminated) "DIR/NAME" of every non-empty regular file of DIR
 * whose name starts with "perf.data", in name order. Returns their number,
 * or a negative errno (DIR cannot be listed, -ENOMEM) with *PATHS NULL.
 */
int perfdata_scan(const char *dir, char ***paths);

/* What perfdata_check() found in a file. */
enum perfdata_state {
	PERFDATA_FINISHED,   /* a perf.data whose header, attributes, data section and
			      * feature sections all lie within the file; or a pipe-mode
			      * perf.data (a stream: nothing to check) */
	PERFDATA_UNFINISHED, /* a perf.data perf did not finish (or cut short since): its
			      * header never written (zero bytes), cut short inside it,
			      * data size 0, or a section past the end of the file */
	PERFDATA_OTHER,      /* not a perf.data: empty, another kind of file (text), or
			      * not a regular file (a FIFO, a device: never opened) */
	PERFDATA_UNREADABLE, /* cannot be opened or read */
};

/*
 * Checks the perf.data PATH against its header (perf's struct
 * perf_file_header, either byte order): reads the header and the feature
 * section table, at most 4 KiB, never the data. Returns what it found; for
 * every state but PERFDATA_FINISHED, WHY (SIZE bytes) holds one phrase
 * without the path, e.g. "cut short inside its data section (ending at byte
 * 458968; the file ends at byte 100000)", "its header was never written
 * (zero bytes)", "empty", "No such file or directory".
 */
enum perfdata_state perfdata_check(const char *path, char *why, size_t size);

#endif
