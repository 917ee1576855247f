/* SPDX-License-Identifier: MIT */
/*
 * inpath: opening a file to read it, knowing what it is before anything
 * reads it or waits on it (docs/design.md "Threat model"). The name is
 * looked up once, one name at a time (O_PATH: a FIFO is not waited on, a
 * device not opened), following a symbolic link on the way only where
 * pathtrust.h's rule allows an input's: not PATHTRUST_OTHERS (the kernel's
 * fs.protected_symlinks, whatever the sysctl says, and no link in a
 * directory others may write without the sticky bit: another user's link
 * in /tmp never leads root);
 * what it names is checked; only then is it opened to read, through
 * /proc/self/fd, so the checked file is the one read. Every later use goes
 * through the descriptor, or through "/proc/self/fd/N" (inpath_proc()) for
 * code and programs that take a path: a name swapped meanwhile changes
 * nothing.
 */
#ifndef SNAPTRACE_INPATH_H
#define SNAPTRACE_INPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum {
	INPATH_STREAM = 1,    /* a pipe handed to this process is taken too ("<(...)",
			       * /dev/stdin on a pipe); never a named FIFO (it could hold
			       * the reader waiting for a writer forever: issue 24) nor a
			       * device (a terminal, /dev/zero: no end) */
	INPATH_NOFOLLOW = 2,  /* a symbolic link (the last name) is refused, not followed */
	INPATH_OWNED = 4,     /* a file of a directory someone else may fill (DIRFD): a
			       * hard link (more than one name) to another user's file
			       * than the directory's owner's is refused */
};

/* What an input that takes a stream (INPATH_STREAM) expects, the one
 * wording of its refusals: the pipe is one handed over, never a named FIFO
 * (which may wait for a writer forever). */
#define INPATH_STREAM_EXPECTED "a regular file, or a pipe as standard input or from <(...)"

/*
 * Opens PATH, relative to directory DIRFD (AT_FDCWD: the current one), to
 * read as FLAGS allow; the open itself never waits (O_NONBLOCK, cleared
 * after). Returns the descriptor (blocking reads); or a negative errno with
 * WHY (SIZE bytes) a phrase without the path: -EINVAL for a file of a kind
 * FLAGS do not take ("a FIFO, expected a regular file" (or, with
 * INPATH_STREAM, INPATH_STREAM_EXPECTED), "a pipe, expected a regular
 * file", "a character device, ...", "a hard link to a file of uid
 * 0, not of the directory's owner"): the caller's input is the wrong
 * thing, a usage error where the user named it; -EACCES "not following the
 * symbolic link NAME of uid U in a world-writable sticky directory of uid
 * D (the kernel's fs.protected_symlinks rule)" (or "a non-sticky writable
 * directory", "a group-writable sticky" one); -ELOOP "a symbolic link, not
 * followed here"; strerror() (-ENOENT when there is nothing).
 */
int inpath_open(int dirfd, const char *path, unsigned flags, char *why, size_t size);

/*
 * Opens directory PATH (relative to DIRFD) to read, walked as inpath_open()
 * walks (a link at its end followed as the rule allows). Returns its
 * descriptor (O_DIRECTORY, close-on-exec) or a negative errno with WHY as
 * above (-ENOTDIR: something else).
 */
int inpath_dir(int dirfd, const char *path, char *why, size_t size);

/* What MODE's file is, for a message: "a FIFO", "a character device",
 * "a block device", "a socket", "a directory", "a symbolic link", "a
 * regular file". */
const char *inpath_kind(mode_t mode);

/* The next name of path P at or after P (empty and "." names skipped; ".."
 * is a name): returns where it starts, its length in *LEN (0: none). */
const char *inpath_next_name(const char *p, size_t *len);

/* "/proc/self/fd/FD" into BUF (SIZE >= 32 bytes); returns BUF. */
const char *inpath_proc(int fd, char *buf, size_t size);

#endif
