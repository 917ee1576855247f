/* SPDX-License-Identifier: MIT */
/*
 * tmptree: emptying a private temporary directory (a converter's copy of a
 * recording's kept binaries, perf inject's directory, the kernel symbols
 * given to perf: convert/binaries.h), also from a signal handler, so that a
 * conversion stopped by SIGINT, SIGTERM, SIGHUP or SIGPIPE leaves nothing
 * in $TMPDIR (outpath_remove_on_signals(), outpath.h; docs/design.md
 * "Signals and the exit").
 */
#ifndef SNAPTRACE_TMPTREE_H
#define SNAPTRACE_TMPTREE_H

#include <sys/types.h>

/* How deep a tree is emptied (the kept-binaries tree's own limit). */
#define TMPTREE_DEPTH_MAX 64

/* How many passes over one directory it makes at most: entries removed as
 * it is read may move others past the read's offset, which a next pass
 * finds; a directory whose owner adds entries as fast as they go (another
 * user's stale copy root cleans: binaries.c remove_stale()) is left as it
 * is then, not emptied for as long as she keeps adding (hostile21 NEW 3:
 * root's conversion of her recording hung). */
#define TMPTREE_PASSES 8

/*
 * Removes every entry of directory FD (open O_RDONLY|O_DIRECTORY), DEPTH
 * levels below the top of the tree, leaving FD empty: files and links are
 * unlinked (no link followed), and a directory is entered (O_NOFOLLOW) and
 * emptied only when it is OWNER's and not sticky, so that only what OWNER
 * could remove goes, whatever OWNER put there (binaries_kept_give(): root's
 * tree given to the recording's owner). Entries that cannot be removed are
 * left, and so are those still coming after TMPTREE_PASSES passes. Async-signal-safe (getdents64, unlinkat, openat, fstat, close; a
 * 512-byte buffer per level on the stack); errno is kept.
 */
void tmptree_empty(int fd, int depth, uid_t owner);

#endif
