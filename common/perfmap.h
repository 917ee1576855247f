/* SPDX-License-Identifier: MIT */
/*
 * perfmap: a JIT's perf map (/tmp/perf-PID.map, perf's format: a line per
 * function, "START SIZE NAME", START and SIZE in hex: tools/perf/
 * Documentation/jit-interface.txt), which perf reads by that path only
 * when it names the JIT's code. The recorder keeps a copy of each recorded
 * process's map in the recording directory (PERFMAP_KEPT, "perf-PID.map"),
 * and the converter names a frame that perf left unnamed in such a map from
 * the copy: the original may be gone (a reboot, a tmp cleaner) or another
 * process's by then (pids are reused). Why: docs/design.md "JIT code".
 */
#ifndef SNAPTRACE_PERFMAP_H
#define SNAPTRACE_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PERFMAP_PATH "/tmp/perf-%d.map"  /* where perf reads process %d's map */
#define PERFMAP_KEPT "perf-%d.map"       /* its copy in the recording directory */
#define PERFMAP_MAX (256u << 20)          /* the largest map kept or read, bytes */
#define PERFMAP_TOTAL_MAX (256u << 20)    /* the maps one recording keeps, one perf's
					   * /tmp holds, one conversion reads: bytes in all */
#define PERFMAP_FILES_MAX 32u             /* ... and how many (one copy each) */

/*
 * What one recording keeps, one perf's /tmp holds or one conversion reads of
 * perf maps, at most PERFMAP_FILES_MAX files and PERFMAP_TOTAL_MAX bytes in
 * all: a user with many processes, each with a large map (a sparse file
 * costs them nothing), once had root copy or read them all. Zero is empty.
 */
struct perfmap_budget {
	uint64_t bytes;         /* taken */
	unsigned files;
	unsigned left_out;      /* refused */
	uint64_t left_bytes;
};

/* Whether a map of SIZE bytes fits what B has left (then taken), else it
 * is counted as left out. */
bool perfmap_budget_take(struct perfmap_budget *b, uint64_t size);

/* One warning saying what B left out, after WHAT ("not kept in the
 * recording"); nothing when it left out none. */
void perfmap_budget_warn(const struct perfmap_budget *b, const char *what);

/* The pid of a dso named "/tmp/perf-PID.map" (LEN bytes at DSO) as perf
 * spells it (PID in decimal digits, no leading 0, sign or blank; at most
 * 4194304, the kernel's pid_max), else -1. */
pid_t perfmap_pid(const char *dso, size_t len);

/* A recorded process and a user it had when the recorder saw it (attached
 * to or launched, its map first opened, its exit or the recording's end):
 * record.json's "uids" (common/record_json.h), one entry for each user a
 * process was seen as. */
struct perfmap_user {
	pid_t pid;
	uid_t uid[2];           /* its real and effective uids then */
	int64_t born;           /* when the process came to be, ns since the epoch
				 * (CLOCK_REALTIME); 0: not known */
};

/* How long before a process came to be a file at its map's name may have
 * last changed and still be its map: the file times are the kernel's
 * coarse clock, up to a tick behind the time a process's start is read
 * from, itself in clock ticks (1/100 s, floored). */
#define PERFMAP_BORN_SLACK_NS 30000000

/*
 * Whose a perf map may be (docs/design.md "Threat model", "JIT code"): the
 * map of a process that was recorded is its own user's, judged against that
 * user as the recorder saw the process, never against whoever has the pid
 * when the map is looked at (a process gone, its pid another's: root's
 * stale 0600 map of a JIT of root's once named another user's frames).
 */
struct perfmap_users {
	const struct perfmap_user *v;   /* the users the recorded processes were seen as
					 * (borrowed; a pid once for each user) */
	size_t n;               /* 0: none told (a perf.data alone, an older record.json) */
	uid_t owner;            /* then the only owner a map may have: the perf.data's
				 * (who vouches for its pids), and the live process's
				 * too; (uid_t)-1: nobody's */
	bool live;              /* the recorder, while it runs and holds each process
				 * of v: its map is judged against its user now (a
				 * launched program noted as root's before it ran
				 * that drops to another user, setpriv or su, is
				 * that user's now), v only for a process gone */
};

/*
 * Whether a perf map owned by UID may be process PID's by U's rule: a user
 * is a process's real and effective uid both (a setuid program's effective
 * uid is not its user's). For a process of U->v, the user it had every time
 * it was seen (one seen as two users: no map at all), or with U->live, its
 * user now, as it runs (a process gone: none); a pid U->v does not hold (a
 * thread, a process the recorder did not judge) is nobody's map by this
 * rule: only the copy the recorder judged and kept while it ran names its
 * frames; with none told, U->owner
 * when the process PID lives now and that is its user (none for a process
 * gone: its pid may have been another user's when recorded). When not, WHY
 * (WSIZE bytes) says so: "owned by uid U, not by process P's user (uid V)"
 * and the like.
 */
bool perfmap_users_ok(const struct perfmap_users *u, uid_t uid, pid_t pid, char *why,
		      size_t wsize);

/*
 * Whether the perf map file ST (fstat of it) may be process PID's: not a
 * stale one, the file at its name last changed (its ctime: written,
 * renamed, made) more than PERFMAP_BORN_SLACK_NS before PID came to be as
 * U->v tells it ("born": an earlier process of that pid left it, root's
 * stale 0600 map once was judged a child's of root's launch that became
 * another user's), and owned as perfmap_users_ok(U) allows. WHY (WSIZE
 * bytes) says why not.
 */
bool perfmap_file_ok(const struct perfmap_users *u, const struct stat *st, pid_t pid, char *why,
		     size_t wsize);

/*
 * Opens the perf map of process PID (a pid of the perf.data, live or gone):
 * /tmp/perf-N.map for N, in order, the live process's innermost NStgid
 * (a JIT in a pid namespace of its own names its map by the pid it sees),
 * its Tgid (a thread's process), then PID; the first name that is there
 * and that perfmap_file_ok(U) allows decides (another user's
 * process in a pid namespace of hers may see itself by the pid of root's
 * JIT: root's map is not hers). The converter gives perf this file under
 * PID's own name (tmpview.h): perf never reads /proc for the other names.
 * Opened with inpath_open(AT_FDCWD, path, INPATH_NOFOLLOW | FLAGS): a
 * regular file, no link. A stale file (perfmap_file_ok(): from before PID
 * came to be) is no map of PID's, and nothing is said of it: /tmp keeps
 * earlier processes' maps, and a program without a JIT was warned of them.
 * Returns the descriptor with PATH (SIZE bytes) the name opened, or a
 * negative errno (-ENOENT: none there, or a stale one; -EPERM: another
 * user's) with PATH the first name refused and WHY (WSIZE bytes) why, as
 * inpath_open() or perfmap_file_ok() says it.
 */
int perfmap_open(pid_t pid, const struct perfmap_users *u, unsigned flags, char *path,
		 size_t size, char *why, size_t wsize);

/* One function of a perf map. */
struct perfmap_sym {
	uint64_t start, size;
	const char *name;       /* into the map's text (perfmap.text) */
	size_t len;
};

/* A perf map read into memory. */
struct perfmap {
	pid_t pid;
	char *text;             /* the file, owned */
	struct perfmap_sym *sym;   /* owned, sorted by start */
	size_t n;
};

/*
 * Reads the perf map of FD (a regular file, at most PERFMAP_MAX bytes) into
 * *M for process PID; lines that do not parse are skipped. Returns 0 or a
 * negative errno (-EFBIG: too large).
 */
int perfmap_read(int fd, pid_t pid, struct perfmap *m);

/* The function of M holding address IP, or NULL. */
const struct perfmap_sym *perfmap_lookup(const struct perfmap *m, uint64_t ip);

void perfmap_free(struct perfmap *m);

#endif
