/* SPDX-License-Identifier: MIT */
/*
 * dsoview: the binaries perf opens by name that another user could swap.
 * perf script (6.1: dso.c open_dso(), symbol.c dso__load()) stats each
 * dso a perf.data's MMAP/MMAP2 records name and then opens it by that
 * name: where another user may rename entries in a directory on its way
 * (pathtrust.h: not PATHTRUST_US), they can exchange the file for a FIFO
 * between the two in a loop (renameat2 RENAME_EXCHANGE: root's perf once
 * hung in open(), 3 conversions of 12), or for a symbolic link to a
 * root-only file. So in perf's mount namespace (tmpview.h) the topmost
 * such directory of each such path (a "cover": one whose own name nobody
 * else may change, its parent's entry being PATHTRUST_US) is hidden by a
 * tmpfs holding the dsos under it, each the regular file the converter
 * found there (looked up without following a link, never out of the
 * cover): the child that makes the view looks it up again the same way,
 * binds it from that descriptor (a bind of /proc/self/fd/N mounts the file
 * itself, which later renames cannot change) when it is the same file
 * (device and inode), else leaves it out (a mount of the converter's own
 * namespace cannot be bound in another: EINVAL); and the names other paths
 * perf is given lead through there, bound by name where nobody else may
 * change them (the caller's paths: as they are, the caller named them).
 * A FIFO, device, socket or link at such a path is left out (perf finds
 * no file), said in one warning. Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_DSOVIEW_H
#define SNAPTRACE_DSOVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "hash.h"

/* The most distinct file names of a perf.data's mappings looked up (a
 * lookup each, a few lstat()s): a perf.data naming more is refused. */
#define DSOVIEW_PATHS_MAX 65536u

/* The most bytes of those names kept while they are looked up. */
#define DSOVIEW_BYTES_MAX (16u << 20)

/* The most dsos bound in covers (a bind mount each, as tmpview.h's
 * TMPVIEW_ENTRIES_MAX): the rest are left out, said in one warning. */
#define DSOVIEW_FILES_MAX 1024u

/* A dso bound in a cover. */
struct dsoview_file {
	size_t cover;            /* the index of its cover */
	char *rel;               /* its path below the cover: names joined by '/', no "."
				  * or ".." (owned) */
	dev_t dev;               /* the regular file found there: the one bound */
	ino_t ino;
};

/* A name of a cover's real directory shown there too, bound by name. */
struct dsoview_name {
	size_t cover;
	char *name;              /* owned */
};

struct dsoview {
	char **covers;           /* each an absolute path without links or "." (owned),
				  * sorted: a directory before those below it */
	size_t ncovers, capcovers;
	struct dsoview_file *files;
	size_t nfiles, capfiles;
	struct dsoview_name *names;
	size_t nnames, capnames;
	/* while the paths are added */
	struct dsoview_seen {
		char *path;      /* a distinct path added (owned) */
		char *trusted;   /* its path, links resolved, when nobody else may replace
				  * it; or NULL (owned) */
	} *seen;
	size_t nseen, capseen;
	uint64_t bytes;          /* of SEEN */
	struct hash_index index; /* SEEN's */
	struct hash_index findex; /* FILES': a cover's index and its path below it, hashed */
	struct hash_index cindex; /* COVERS': the path hashed */
	size_t left, left_over;  /* left out: not a regular file, past DSOVIEW_FILES_MAX */
	char left_path[256];     /* the first one left out, and why */
	char left_why[64];
	int err;                 /* sticky: -ENOMEM, -E2BIG */
};

/*
 * Adds the dso PATH (absolute, as a mapping names it; anything else is
 * passed over) to V: looked up one name at a time from "/", following the
 * symbolic links nobody else may change; at the first name another user
 * may change (its directory the cover), the rest is looked up below the
 * cover without following a link, and a regular file is kept to be bound.
 * Repeats cost a hash lookup. Returns 0, or V's sticky error: -ENOMEM, or
 * -E2BIG past DSOVIEW_PATHS_MAX names or DSOVIEW_BYTES_MAX bytes.
 */
int dsoview_add(struct dsoview *v, const char *path);

/*
 * Ends the adding: the names of each cover that the trusted dsos and
 * PATHS (NULL-terminated, or NULL: the paths the caller gives perf; an
 * option's value after '=' too) lead through are shown there, but a cover
 * "/tmp" (tmpview.c shows /tmp's names); says in one warning what was left
 * out. Frees what only the adding needed. Returns 0 or a negative errno.
 */
int dsoview_finish(struct dsoview *v, const char *const *paths);

/* Whether V hides a directory (perf needs a mount namespace of its own). */
bool dsoview_any(const struct dsoview *v);

/* Whether NAME of /tmp is one V builds a tree at (a cover "/tmp"):
 * tmpview.c then shows no name of the real /tmp there. */
bool dsoview_tmp_builds(const struct dsoview *v, const char *name);

/* Whether V has the cover "/tmp". */
bool dsoview_covers_tmp(const struct dsoview *v);

/*
 * In a child about to exec perf, in a mount namespace of its own
 * (async-signal-safe system calls only): hides each cover by a tmpfs
 * (nosuid, nodev) holding its dsos (each bound when it is still the file
 * checked) and its names, bound from the real directory; the cover "/tmp"
 * is TMPFD's (the tmpfs tmpview.c mounted there, open; TMPLOWER the real
 * /tmp below it), else not done. Covers are made parents first; one the
 * view does not show (a name of /tmp left out) is not made. Returns 0 or
 * an errno (a cover that cannot be made).
 */
int dsoview_mount(const struct dsoview *v, int tmplower, int tmpfd);

/*
 * In that child: binds SRC (a descriptor; ST its status: a directory or a
 * regular file) at REL below directory TOP (names joined by '/', made
 * there: the directories on the way, an empty file or directory to mount
 * on). What cannot be made is left out (perf finds nothing there).
 */
void dsoview_bind(int src, const struct stat *st, int top, const char *rel);

/* In that child: binds NAME of directory LOWER, looked up without
 * following a link, at NAME in TOP (dsoview_bind()), when it is a
 * directory or regular file; else nothing. */
void dsoview_show(int lower, int top, const char *name);

/* Frees what V holds (closes its descriptors); V stays valid, empty. */
void dsoview_free(struct dsoview *v);

#endif
