/* SPDX-License-Identifier: MIT */
/*
 * outpath: writing an output file without destroying what its path names.
 *
 *   - "-" is standard output.
 *   - Symbolic links are followed: the file written is the link's target
 *     (also for a link whose target does not exist yet); the link stays.
 *   - A regular file or a new name is written under a temporary name in the
 *     same directory (".st-PID-N.tmp": short, so a 255-byte output name
 *     still works) and renamed over the final name on outpath_commit(), so
 *     a failed or interrupted write never leaves a half-written file there.
 *   - Anything else (a device such as /dev/null, a FIFO, a socket) is opened
 *     and written straight, with no temporary: it stays what it is.
 *   - A directory is refused (-EISDIR).
 * Temporaries still open are removed when the process is killed by
 * SIGINT, SIGTERM or SIGHUP once outpath_remove_on_signals() was called, or
 * by a caller's own handler through outpath_remove_temps().
 */
#ifndef SNAPTRACE_OUTPATH_H
#define SNAPTRACE_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

/* An output being written. Fields are read-only for the caller. */
struct outpath {
	int fd;          /* write here; -1 when closed */
	char *path;      /* the file finally written (symlinks resolved), or "-"; owned */
	char *tmp;       /* the temporary renamed to PATH on commit, or NULL (straight); owned */
	int slot;        /* the temporary's place in the removal registry, or -1 */
};

/*
 * Opens PATH for writing as above (mode 0666 less the umask for a new file).
 * Returns 0 with *O ready, or a negative errno with a one-line reason in
 * ERRBUF ("PATH: cannot write: ..."); nothing is created on failure.
 */
int outpath_open(struct outpath *o, const char *path, char *errbuf, size_t errlen);

/*
 * Closes O's descriptor and renames its temporary over its path. Returns 0,
 * or a negative errno (the close or rename failed) after removing the
 * temporary. Frees what O holds either way.
 */
int outpath_commit(struct outpath *o);

/* Closes O and removes its temporary (a straight output keeps what was
 * written). Frees what O holds. */
void outpath_abort(struct outpath *o);

/*
 * Does output path OUT name the same file as input path IN: the same device
 * and inode when both exist, or the same path once symlinks are resolved?
 * "-" names standard input or output, never a file here.
 */
bool outpath_same_file(const char *out, const char *in);

/* The trace format an output path names (the one suffix rule of
 * snaptrace-convert -o and snaptrace run|attach -o). */
enum outpath_format {
	OUTPATH_FORMAT_NONE,  /* any other name (".zst", ".json", a directory, none...) */
	OUTPATH_FORMAT_RAW,   /* "-" (stdout), "*.fxt", or an existing device/FIFO/socket */
	OUTPATH_FORMAT_GZIP,  /* "*.fxt.gz" or "*.gz" */
};

/* The format PATH's name asks for (see enum outpath_format). */
enum outpath_format outpath_format(const char *path);

/*
 * Checks, before anything is recorded or converted, that a trace can be
 * written at PATH: a known format (outpath_format), not a directory, in an
 * existing, writable directory. "-" passes unless stdout was closed when
 * outpath_keep_std_fds() ran. Returns 0, or -1 with a
 * one-line reason naming PATH in ERRBUF (a usage error: exit 2).
 */
int outpath_check(const char *path, char *errbuf, size_t errlen);

/*
 * Call first in main(), before anything is opened: puts /dev/null on each of
 * stdin, stdout and stderr that is closed, so that no file opened later takes
 * their number (and the trace never goes into, say, a signalfd), and
 * remembers a closed stdout for outpath_check("-").
 */
void outpath_keep_std_fds(void);

/* Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every open
 * temporary, then die of the signal as they would have. */
void outpath_remove_on_signals(void);

/* Removes every open temporary (async-signal-safe: for a signal handler). */
void outpath_remove_temps(void);

/*
 * A new unnamed file for scratch data, open read-write: O_TMPFILE in
 * $TMPDIR (or /tmp), else a mkostemp file unlinked at once; it is gone when
 * its last descriptor closes, whatever ends the program. Returns its
 * descriptor (close-on-exec) or a negative errno.
 */
int outpath_unnamed(void);

#endif
