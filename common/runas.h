/* SPDX-License-Identifier: MIT */
/*
 * runas: a helper (perf) run with another user's credentials: the user who
 * made a recording the caller may not trust (docs/design.md "Threat model":
 * a perf.data of another user's, not root's nor the caller's). perf then
 * opens only what that user may open (the binaries, debug files and maps
 * the perf.data names), and a crash of perf's reader on a crafted file is
 * that user's, not root's; run from runas_image()'s copy, it is not theirs
 * to ptrace.
 */
#ifndef SNAPTRACE_RUNAS_H
#define SNAPTRACE_RUNAS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The supplementary groups taken at most (the rest are left out: fewer
 * rights, never more). */
#define RUNAS_GROUPS_MAX 64

/* How long runas_may_open()'s child, which opens one file as the user,
 * may take before it is given up (ms): it opens no FIFO (O_NONBLOCK), so
 * only a stop or a hung file system holds it. */
#define RUNAS_CHILD_MS 5000

/* Whom a helper runs as. */
struct runas {
	bool on;                 /* false: as the caller */
	uid_t uid;
	gid_t gid;               /* the user's primary group (passwd), else GID as given */
	int ngroups;
	gid_t groups[RUNAS_GROUPS_MAX];  /* the user's groups (getgrouplist()), else GID */
};

/*
 * Fills R for user UID (its passwd entry's group and supplementary groups;
 * a uid with no passwd entry: GID alone, e.g. the file's group). Not in a
 * child: it reads the user and group databases.
 */
void runas_prepare(struct runas *r, uid_t uid, gid_t gid);

/*
 * In a child about to exec (async-signal-safe: raw system calls): when
 * R->on, gives up the caller's controlling terminal (the child must be no
 * session leader), takes R's groups, gid and uid (real, effective and
 * saved: every capability goes, the kernel clears them when no uid is 0),
 * sets again the parent-death signal the change cleared, and joins a new,
 * empty session keyring: nothing of the caller's the user could reach
 * through the process (hostile17: /dev/tty's TIOCSTI, root's keys).
 * Returns 0 or an errno.
 */
int runas_enter(const struct runas *r);

/*
 * The executable PATH (an ELF file, opened here: the caller's rights) as
 * an image a helper run as another user execs (fexecve()) without being
 * that user's to debug: a copy in an unnamed file of the caller's
 * (memfd_create(), sealed: nobody changes it), mode 0111, which that user
 * may execute but not read. The kernel makes a process non-dumpable when
 * it execs an image its credentials may not read (fs/exec.c would_dump(),
 * begin_new_exec(): dumpable then only when fs.suid_dumpable is 1), and a
 * non-dumpable process is not another user's to ptrace (PTRACE_ATTACH,
 * /proc/PID/mem, process_vm_readv: ptrace_may_access()); its /proc files
 * are root's. perf run as a recording's owner from its own file was theirs
 * to ptrace (hostile17: held in a pause() loop, root's conversion waited
 * for ever). Returns the image's descriptor (read-only, close-on-exec: an
 * ELF file needs no path at its exec), -ENOEXEC when PATH is no ELF file
 * (a script, which its interpreter must read: run from its path, theirs to
 * ptrace), -ENOSYS when the system makes no executable unnamed file
 * (memfd_create() refused: vm.memfd_noexec 2, no memfd: run from its
 * path), or another negative errno (PATH cannot be read or copied).
 */
int runas_image(const char *path);

/*
 * Whether R's user may open PATH (relative to directory DIRFD, AT_FDCWD:
 * the current one) for reading and finds there the file ST describes (the
 * caller's own open of it: device and inode): a child takes R's
 * credentials (runas_enter()) and opens PATH (O_NONBLOCK; a symbolic link
 * at its end followed only when FOLLOW, as the kernel lets that user), so
 * the kernel judges it (modes, ACLs, every directory and link on the way),
 * never a copy of its rules. True when R is not on; false when the child
 * cannot run.
 */
bool runas_may_open(const struct runas *r, int dirfd, const char *path, bool follow,
		    const struct stat *st);

/* The users every file read for their recordings must be open to (a
 * conversion of several users' recordings: each of them); N 0: the caller
 * alone. AS is borrowed. */
struct runas_set {
	const struct runas *as;
	size_t n;
};

/*
 * Opens PATH as inpath_open(DIRFD, PATH, FLAGS) does (inpath.h) and, when
 * WHO (may be NULL) names users, keeps it only when each of them may open
 * it (runas_may_open(), a link at its end followed unless INPATH_NOFOLLOW):
 * the one open of every file another user's recording names that the
 * tools read themselves (docs/design.md "Threat model"): one fork per
 * user a file. Returns the descriptor, or inpath_open()'s negative errno
 * and WHY, or -EPERM with WHY (SIZE bytes) "uid U, whose recording it is,
 * may not open it".
 */
int runas_open(const struct runas_set *who, int dirfd, const char *path, unsigned flags,
	       char *why, size_t size);

#endif
