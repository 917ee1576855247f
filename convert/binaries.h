/* SPDX-License-Identifier: MIT */
/*
 * binaries: the binaries the perf.data inputs name by build id (what `perf
 * buildid-list` prints: perfdata_buildids()), checked against the files
 * there now. perf names no frame of a binary whose build id differs from
 * the recorded one (a program rebuilt since the recording): its frames are
 * [unknown], which is no missing symbol table. Each such binary is said
 * once, with the way back: a recording made with `snaptrace-record
 * --keep-binaries` holds a copy of each (DIR/binaries, perf's build-id cache
 * layout, which perf script reads with --buildid-dir), or the user's
 * --symfs DIR holding the binaries as they were. Why: docs/design.md
 * "Recording directories".
 */
#ifndef SNAPTRACE_CONVERT_BINARIES_H
#define SNAPTRACE_CONVERT_BINARIES_H

#include <stdbool.h>
#include <stddef.h>

#include <libelf.h>

#include "runas.h"

#define BINARIES_ID_MAX 64        /* hex digits of the longest build id kept */

/* A binary a perf.data names. */
struct binary {
	char *path;                   /* as perf names it (owned) */
	char id[BINARIES_ID_MAX + 1]; /* the recorded build id, hex */
	bool changed;                 /* the file there now is another (or is gone) */
};

struct binaries {
	struct binary *b;             /* owned */
	size_t n, cap;
	const char *symfs;            /* perf's --symfs DIR the files are under ("": none; borrowed) */
	const struct runas_set *who;  /* whom a file checked must be open to (runas_open(): the
				       * recordings' other owners; NULL: none; borrowed) */
};

/*
 * Reads the build ids the perf.data PERFDATA names and checks each binary
 * not seen before (a path: not [kernel.kallsyms], [vdso]) against the file
 * under B->symfs, unless the build-id cache CACHE (perf's layout; NULL:
 * none) holds it; a changed or missing one is warned of once, naming it,
 * both build ids and the remedies. Returns 0, -ENOMEM, or another negative
 * errno when the build ids cannot be read (nothing checked then).
 */
int binaries_check(struct binaries *b, const char *perfdata, const char *cache);

/*
 * Checks the binary PATH, whose build id HEX the recording lists itself
 * (recording.h: record.json "buildids", for a perf.data that names none:
 * record/mapids.h), as binaries_check() checks the perf.data's, unless
 * seen before; a changed or missing one is warned of once (perf, which
 * has no build id to check, names its frames from the file there now).
 * Returns 0 or -ENOMEM.
 */
int binaries_check_recorded(struct binaries *b, const char *path, const char *hex);

/*
 * The path in perf's build-id cache CACHE (NULL: none) of the binary of
 * build id ID (hex; perf's zero padding dropped): CACHE/.build-id/XX/REST,
 * a link to the directory of that binary's copies, then "/FILE" when FILE
 * is not NULL ("elf": the binary itself), into P (SIZE bytes). Returns
 * false when there is none: no CACHE, an ID too short, or P too small.
 */
bool binaries_cache_path(const char *cache, const char *id, const char *file, char *p,
			 size_t size);

/* Whether the binary DSO (LEN bytes) was found changed by binaries_check(). */
bool binaries_changed(const struct binaries *b, const char *dso, size_t len);

/* Whether a file of build id HEX ("" when it has none) is the binary DSO
 * (LEN bytes) as recorded: true when no build id was recorded for DSO (a
 * binary kept in the build-id cache is not "changed", yet the file at its
 * path may be another). */
bool binaries_is_recorded(const struct binaries *b, const char *dso, size_t len, const char *hex);

/* A private copy of the binaries a recording keeps, for perf. */
struct binaries_kept {
	int fd;                    /* the copy (O_DIRECTORY, not close-on-exec); -1: none */
	char handle[32];           /* the path perf and this process reach it by
				    * (/proc/self/fd/N, inpath.h) */
	int parent;                /* the directory it was made in (O_PATH), -1: none */
	char name[32];             /* its name there */
	int slot;                  /* its slot in outpath's registry of what a
				    * signal removes (outpath_temp_dir()), -1: none */
};

/* A struct binaries_kept that holds nothing. */
#define BINARIES_KEPT_NONE ((struct binaries_kept){ .fd = -1, .parent = -1, .slot = -1 })

/*
 * Copies the binaries a recording keeps (PERFDATA_BINARIES_DIR in the
 * recording directory RECDIR, perf's build-id cache layout) into K, a new
 * directory of the caller's only (mode 0700, "snaptrace-kept-XXXXXX" in
 * $TMPDIR or /tmp), for perf script's --buildid-dir: perf then reads only
 * what was checked here, whatever the recording's owner changes meanwhile.
 * Taken are a directory (no symbolic link) whose tree holds only
 * directories, regular files (one name each, or the directory owner's),
 * and symbolic links that stay in it (perf's .build-id links: "../" then
 * names), each entry opened once, checked and copied from what was opened;
 * at most 100000 entries, 64 levels deep and 4 GiB in all.
 * Never a FIFO perf would wait on, a device it would open, a link to a
 * file out of the recording. Returns 0 with K ready (the caller calls
 * binaries_kept_remove()); -ENOENT when there is none; or another negative
 * errno with WHY (WSIZE bytes) the entry refused and what it is, K empty.
 */
int binaries_kept_copy(int recdir, struct binaries_kept *k, char *why, size_t wsize);

/*
 * A new empty private directory into K, as binaries_kept_copy() makes one
 * (mode 0700, the caller's, locked while this process lives, "snaptrace-kept-
 * XXXXXX" in $TMPDIR or /tmp, removed with what is in it by a signal
 * outpath_remove_on_signals() handles; one left by a converter killed with
 * SIGKILL removed by the next conversion there a minute later, also
 * one given to another user when the caller is root), for
 * other files perf must read only as checked here (a jitdump: jitdump.h).
 * Returns 0 with K ready (the caller calls binaries_kept_remove()), or a
 * negative errno with K empty.
 */
int binaries_kept_dir(struct binaries_kept *k);

/* The copy K as perf reaches it (its handle), or NULL when there is none. */
const char *binaries_kept_handle(const struct binaries_kept *k);

/*
 * Gives the copy K (if any), the directory and every entry in it, to user
 * UID and group GID (no link followed), when the caller is root and the
 * recording the copy is of is that user's (docs/design.md "Threat model"):
 * perf runs as that user then (runas.h) and reads, or writes (perf inject's
 * files), only there. The directory stays 0700: nobody else reaches it;
 * binaries_kept_remove() still removes it, and the next conversion does
 * when this one is killed (only what the user could remove: never following
 * a link they put there, nor entering a directory not theirs or sticky). Returns 0 or a negative errno (the first failure).
 */
int binaries_kept_give(const struct binaries_kept *k, uid_t uid, gid_t gid);

/* Removes the copy K (if any) and empties K. */
void binaries_kept_remove(struct binaries_kept *k);

/* Frees what B holds (B->symfs is borrowed). */
void binaries_free(struct binaries *b);

#endif
