/* SPDX-License-Identifier: MIT */
/*
 * pathtrust: the one rule for who, besides the caller and root, may have
 * put a name where it is or may replace it there: every program asks it of
 * a symbolic link before following it (an input's, inpath.c; an output's,
 * outpath.c; perf's /tmp, tmpview.c), of the directories on the way to a
 * binary perf opens by name (dsoview.c), of the directories a recording's path
 * goes through (the front end, which converts it by name later), and of a
 * directory it will write its own files in (a recording directory, the perf
 * version cache). Why: docs/design.md "Threat model".
 *
 * The kernel's rules for making and renaming a name in a directory (write
 * permission on the directory; in a sticky one, an entry only by its owner
 * or the directory's: may_delete()), and a directory's owner may always
 * give themselves that permission (chmod). So the users who may have put
 * ENTRY at its name in DIR, or may rename, remove or replace it, are:
 *   - DIR's owner;
 *   - where DIR is writable by its group or others (S_IWGRP | S_IWOTH):
 *     without the sticky bit, every such user; with it, ENTRY's owner
 *     (and, for a name not there yet, every such user: anyone may make it
 *     first).
 * ENTRY's owner counts only there: in a directory they cannot write, their
 * link was put by the directory's owner or root. Of those users, the
 * caller and root are not counted.
 *
 * What each program takes (the one threshold a caller picks):
 *   - following a link it reads (an input): not PATHTRUST_OTHERS. Naming a
 *     path in another user's directory trusts them with it, as the kernel's
 *     fs.protected_symlinks does (a third user's link in a sticky directory
 *     refused), and a link in a directory others may write without the
 *     sticky bit is refused too, where the kernel would follow it.
 *   - following a link it writes through, a directory on the way to what it
 *     reads again by name, a directory it writes its files in:
 *     PATHTRUST_US alone (root never writes where another user points).
 */
#ifndef SNAPTRACE_PATHTRUST_H
#define SNAPTRACE_PATHTRUST_H

#include <stdbool.h>
#include <sys/stat.h>

/* Who besides the caller and root may have put a name where it is, or may
 * replace it (pathtrust_of()): each value includes the ones before. */
enum pathtrust {
	PATHTRUST_US,          /* nobody else */
	PATHTRUST_DIR_OWNER,   /* the directory's owner, another user */
	PATHTRUST_OTHERS,      /* users who do not own the directory */
};

/* Whether UID is the caller (the effective uid) or root: the users whose
 * files, recordings and directories the tools trust as their own. */
bool pathtrust_uid_ours(uid_t uid);

/*
 * Who besides the caller (the effective uid) and root may have put the
 * entry of status ENTRY at its name in the directory of status DIR, or may
 * rename, remove or replace it there; ENTRY NULL: a name not there yet, or
 * any name DIR will hold. Returns the rule above's answer.
 */
enum pathtrust pathtrust_of(const struct stat *dir, const struct stat *entry);

/*
 * Asks pathtrust_of() of directory DIR (an absolute path without symbolic
 * links, as realpath() gives it; cut in place) for ENTRY (the status of the
 * entry on the way in it; for a name not there yet, .st_uid the caller's and
 * no other field), then of each directory above it for the one below, up to
 * "/". Returns 1 when each says PATHTRUST_US; 0 when one does not, DIR cut
 * to that directory and *AT its status; -1 when one cannot be lstat()ed
 * (errno set).
 */
int pathtrust_upward(char *dir, struct stat entry, struct stat *at);

#endif
