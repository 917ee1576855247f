/* SPDX-License-Identifier: MIT */
/*
 * tmpview: the /tmp that perf sees. perf (6.1: map__new(), symbol.c
 * dso__load(), dso__find_perf_map(), dso__load_perf_map()) reads a JIT's
 * perf map, /tmp/perf-N.map, by that name, with fopen: for every process
 * with anonymous executable memory in a perf.data (N its pid, or the Tgid
 * or innermost NStgid of the live process of that pid: nsinfo__new()),
 * and for every mapping whose name starts with "/tmp/perf-". Another
 * user's FIFO there holds the reader until killed; their symbolic link
 * (fs.protected_symlinks=0) has root read the file it leads to as symbols.
 * The live process's /proc/N/status is read loosely (the first line
 * holding "NStgid:": a process named so had perf open /tmp/perf-0.map).
 * So the perf a converter starts (on such a perf.data; as root on every
 * one: perf's vdso copy, /tmp/perf-vdso.so-XXXXXX, whose debug file it then
 * looks for in /tmp/.debug, another user's directory) runs as the first process of a mount and
 * pid namespace of its own, with a /proc of that namespace (no live
 * process of a perf.data's pid: perf names each map by that pid alone),
 * whose /tmp is a private tmpfs holding every such perf-N.map (N each pid
 * and tid of such a mapping) as the converter opened it itself: the
 * recording's kept copy (common/perfmap.h PERFMAP_KEPT), else the map
 * perfmap_open() finds (the live process's other names too) when it is a
 * regular file (no link) of the recorded process's user (record.json's
 * "uids"; with none told, the perf.data's owner: perfmap_users_ok()), else
 * an empty file; one file of contents once (the threads of one
 * process share it: hard links), at most PERFMAP_FILES_MAX of them and
 * PERFMAP_TOTAL_MAX bytes in all (perfmap.h: the rest empty, said in one
 * warning); and the names of the real /tmp perf opens a file through, as
 * they were when the view was made, but those perf opens by its own rule
 * ("perf-...", "jit-..."): the name of /tmp each mapping's file is in (and
 * ".debug" for a file right in /tmp, when a directory nobody else may put
 * a name in: perf opens its debug file there by name), those of the paths the caller gives
 * perf (its program, options), this program's (the dlfilter beside it) and
 * $HOME's (.perfconfig), and those the symbolic links among them lead to;
 * at most TMPVIEW_ENTRIES_MAX (the rest left out, said in one warning): a
 * directory or regular file bound there with the mounts inside it (a
 * build tree on a tmpfs at /tmp/build), a symbolic link the kernel would
 * follow for the caller made again; never the other names of /tmp, however
 * many (a user's 100,000 names once had every conversion bind them all:
 * 3 s, then "No space left on device" past the kernel's mount-max). So a
 * perf map perf names otherwise
 * than predicted (after the thread's process, or -1) is not there at all:
 * never another user's FIFO or link. Whatever perf
 * writes into /tmp (perf-vdso.so-XXXXXX) stays in that tmpfs and goes with
 * it. A perf.data whose records are compressed (perf record -z) is refused:
 * its mappings are not read. Root does it with CAP_SYS_ADMIN (kept
 * permitted for this: nsenter.h); another user in a user namespace of
 * their own (their uid and gid mapped to themselves), where the system
 * allows it; else no view, and a conversion is refused while a name
 * "perf-..." or "jit-..." of /tmp is a FIFO, device or socket (a check,
 * not a guarantee: the name may change after it).
 * The same namespace also hides the directories another user may change
 * that the perf.data's binaries are in (dsoview.h): made for a perf.data
 * that names such a binary too, /tmp then hidden only when it is one of
 * them (or perf maps are read); a name of the real /tmp that a mapping
 * leads through and another user may change is never bound by name there.
 * Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_TMPVIEW_H
#define SNAPTRACE_TMPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "dsoview.h"
#include "perfmap.h"
#include "runas.h"

/* The most perf-N.map names a view holds (each a file, most of them
 * empty): a perf.data naming more processes with JIT memory is refused. */
#define TMPVIEW_NAMES_MAX 65536u

/* The most names of the real /tmp a view shows (each a bind mount): the
 * files perf opens there are in a few. */
#define TMPVIEW_ENTRIES_MAX 1024u

/* One perf-N.map of the view. */
struct tmpview_file {
	char name[32];           /* "perf-N.map" */
	int fd;                  /* its contents: a regular file (owned), or -1: empty,
				  * or the same as files[same]'s */
	off_t size;              /* bytes of FD to copy (as it was when checked) */
	long same;               /* the index of an earlier file of the same contents
				  * (the threads of one process), linked to it; -1: none */
};

/* A name of the real /tmp shown in the view too (one perf opens a file
 * through): none "perf-..." or "jit-..." (the names perf opens there by its
 * own rule). */
struct tmpview_entry {
	char *name;              /* owned */
	char *link;              /* a symbolic link the kernel would follow for the caller
				  * (pathtrust.h, as an input's): its target, made again in the view
				  * (owned); NULL: a directory or regular file, bound there */
};

/* How the view is made. */
enum tmpview_how {
	TMPVIEW_ADMIN,           /* CAP_SYS_ADMIN (root) */
	TMPVIEW_USERNS,          /* in a user namespace of the caller's own */
};

struct tmpview {
	enum tmpview_how how;
	uid_t uid;               /* the caller's, mapped to itself (TMPVIEW_USERNS) */
	gid_t gid;
	struct tmpview_file *files;   /* owned */
	size_t n, cap;
	struct tmpview_entry *entries;   /* the names of the real /tmp the view shows (owned) */
	size_t nentries, capentries;
	bool tmp;                /* /tmp is hidden (perf maps, or a dsoview cover) */
	bool pidns;              /* a pid namespace too, with its /proc: perf maps (perf
				  * names each by the perf.data's pid alone). Only then: the
				  * first process of a pid namespace ignores every signal it
				  * has no handler for but SIGKILL and SIGSTOP, from outside
				  * too, so a SIGINT or SIGTERM sent to perf did nothing */
	struct dsoview dso;      /* the directories another user may change that the
				  * perf.data's files are in, hidden (dsoview.h) */
	struct runas as;         /* whom perf runs as in the view (runas.h: the
				  * recording's owner, tmpview_make()'s AS), its /tmp then
				  * writable by all, sticky (perf writes its vdso copy) */
};

/*
 * Reads the perf.data PERFDATA (a path perf reads too: /proc/self/fd/N)
 * for the perf maps perf would open and makes the view of them: the copies
 * kept in the recording directory RECDIR (an open directory, or -1: none),
 * else the map in /tmp whose owner USERS allows (perfmap.h);
 * PATHS (NULL-terminated, or NULL) the paths the caller gives perf (its
 * program as found, options: "--symfs=/tmp/x" counts), whose names of /tmp
 * the view shows; AS (copied; NULL: as the caller) whom perf runs as there
 * (struct tmpview's as: a map that user may not open is empty there).
 * A map that cannot be used is said in a warning naming it and why.
 * Returns 0 with *VIEW a new view, or NULL when perf opens no perf map and
 * no binary dsoview.h hides and the caller is not root (CAP_SYS_ADMIN
 * permitted), or when no view can be made and none of the names perf would
 * open is a FIFO, device or socket; or a negative errno with WHY (SIZE
 * bytes) one phrase naming the path and the rule (-EPERM: such a file, and
 * no view; -E2BIG: more than TMPVIEW_NAMES_MAX names, or dsoview.h's bounds),
 * or why the perf.data could not be read (records damaged or cut short:
 * the mappings before them, where perf stops too; -ENOTSUP: compressed
 * records, perf record -z).
 */
int tmpview_make(const char *perfdata, int recdir, const struct perfmap_users *users,
		 const char *const *paths, const struct runas *as, struct tmpview **view, char *why, size_t size);

/*
 * In a child about to exec perf (async-signal-safe system calls only):
 * enters a mount namespace (and for TMPVIEW_USERNS a user namespace) of its
 * own whose /tmp is V's view (nosuid, nodev); with V->pidns a pid namespace
 * too: the child stays the namespace's parent, ending as its first process
 * ends (the exit status, or the same signal; killed, or its parent gone,
 * that process gets SIGKILL), and the call returns in that first process,
 * its /proc mounted. CAP_SYS_ADMIN dropped for good; then, when V->as.on,
 * the credentials of V->as (runas_enter(): no capability left). V NULL:
 * nothing.
 * Returns 0 or an errno.
 */
int tmpview_enter(const struct tmpview *v);

/* Frees V (closes its files); NULL is fine. */
void tmpview_free(struct tmpview *v);

#endif
