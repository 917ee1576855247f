// SPDX-License-Identifier: MIT
/* inpath (see inpath.h). */
#include "inpath.h"
#include "pathtrust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

const char *inpath_next_name(const char *p, size_t *len)
{
	for (;;) {
		while (*p == '/')
			p++;
		*len = strcspn(p, "/");
		if (*len != 1 || *p != '.')
			return p;
		p++;
	}
}

const char *inpath_proc(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
	return buf;
}

const char *inpath_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" :
	       S_ISDIR(mode) ? "a directory" : S_ISLNK(mode) ? "a symbolic link" : "a regular file";
}

#define MAX_LINKS 40           /* symbolic links followed, as the kernel's ELOOP */

/* Follows symbolic link FD (named COMP in directory CUR, REST the path after
 * it): by the kernel in /proc (its links name what the kernel knows: a
 * deleted file, a pipe); else by its text, into REST. Returns the new
 * directory to go on from (CUR, or another with CUR closed), an O_PATH
 * descriptor of what a /proc link names with *DONE set, or -1 (errno). */
static int follow(int cur, int fd, const char *comp, char *rest, char **r, bool *done)
{
	char target[PATH_MAX], joined[2 * PATH_MAX];
	struct statfs fs;
	ssize_t n;
	int to;

	if (!fstatfs(cur, &fs) && fs.f_type == PROC_SUPER_MAGIC) {
		to = openat(cur, comp, O_PATH | O_CLOEXEC);
		*done = to >= 0;
		return to;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n <= 0) {
		errno = n < 0 ? errno : ENOENT;
		return -1;
	}
	target[n] = 0;
	if ((size_t)snprintf(joined, sizeof(joined), "%s%s", target, *r) >= sizeof(joined)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(rest, joined);
	*r = rest;
	return *rest == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : fcntl(cur, F_DUPFD_CLOEXEC, 0);
}

/*
 * Looks PATH up from directory DIRFD one name at a time (O_PATH|O_NOFOLLOW),
 * following a symbolic link only where pathtrust.h's rule allows (not
 * PATHTRUST_OTHERS), the last
 * name not when NOFOLLOW. Returns the O_PATH descriptor (close-on-exec) of
 * what PATH names with *ST its stat, or a negative errno with WHY (SIZE
 * bytes): -EACCES for a link not followed.
 */
static int walk(int dirfd, const char *path, bool nofollow, struct stat *st, char *why,
		size_t size)
{
	char rest[2 * PATH_MAX], *r = rest;
	int cur, hops = 0, err;

	if (!*path || strlen(path) >= PATH_MAX) {
		err = *path ? -ENAMETOOLONG : -ENOENT;
		snprintf(why, size, "%s", strerror(-err));
		return err;
	}
	strcpy(rest, path);
	cur = openat(*r == '/' ? AT_FDCWD : dirfd, *r == '/' ? "/" : ".",
		     O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (cur >= 0) {
		char comp[NAME_MAX + 1], *end;
		struct stat dst;
		bool last, done = false;
		size_t len;
		int fd, next;

		while (*r == '/')
			r++;
		if (!*r) {	/* ends at a directory ("/", "dir/") */
			if (!fstat(cur, st))
				return cur;
			break;
		}
		end = strchrnul(r, '/');
		len = (size_t)(end - r);
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(comp, r, len);
		comp[len] = 0;
		r = end;
		last = !*r;
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, st)) {
			err = errno;
			if (fd >= 0)
				close(fd);
			errno = err;
			break;
		}
		if (S_ISLNK(st->st_mode) && !(last && nofollow)) {
			if (!fstat(cur, &dst) && pathtrust_of(&dst, st) == PATHTRUST_OTHERS) {
				bool sticky = dst.st_mode & S_ISVTX;

				snprintf(why, size, "not following the symbolic link %s of uid %u "
					 "in a %s directory of uid %u (%s)", comp,
					 (unsigned)st->st_uid, !sticky ? "non-sticky writable" :
					 dst.st_mode & S_IWOTH ? "world-writable sticky" :
					 "group-writable sticky", (unsigned)dst.st_uid, !sticky ?
					 "anyone who may write it may replace the link: stricter "
					 "than the kernel's fs.protected_symlinks rule" :
					 "the kernel's fs.protected_symlinks rule");
				close(fd);
				close(cur);
				return -EACCES;
			}
			next = ++hops > MAX_LINKS ? (errno = ELOOP, -1) :
						     follow(cur, fd, comp, rest, &r, &done);
			err = errno;
			close(fd);
			close(cur);
			errno = err;
			cur = next;
			if (!done || cur < 0)
				continue;
			if (fstat(cur, st))
				break;
		} else {
			close(cur);
			cur = fd;
		}
		if (last)
			return cur;
		if (!S_ISDIR(st->st_mode)) {
			errno = ENOTDIR;
			break;
		}
	}
	err = -errno;
	snprintf(why, size, "%s", strerror(errno));
	if (cur >= 0)
		close(cur);
	return err;
}

/* Why FLAGS refuse the file ST (its O_PATH descriptor PF) in directory
 * DIRFD; NULL: taken. */
static const char *refusal(int dirfd, int pf, const struct stat *st, unsigned flags, char *why,
			   size_t size)
{
	struct statfs fs;
	struct stat dir;
	bool pipe;

	if (S_ISLNK(st->st_mode))
		return "a symbolic link, not followed here";
	/* a pipe is on pipefs: handed to this process (<(...), /dev/stdin), its
	 * writer its caller's; a named FIFO could wait for a writer forever, a
	 * device (/dev/zero, a terminal) never end */
	pipe = S_ISFIFO(st->st_mode) && !fstatfs(pf, &fs) && fs.f_type == PIPEFS_MAGIC;
	if (!S_ISREG(st->st_mode) && !((flags & INPATH_STREAM) && pipe)) {
		snprintf(why, size, "%s, expected %s", pipe ? "a pipe" : inpath_kind(st->st_mode),
			 flags & INPATH_STREAM ? INPATH_STREAM_EXPECTED : "a regular file");
		return why;
	}
	if ((flags & INPATH_OWNED) && st->st_nlink > 1 && !fstat(dirfd, &dir) &&
	    st->st_uid != dir.st_uid) {
		snprintf(why, size, "a hard link to a file of uid %u, not of the directory's "
			 "owner (uid %u)", (unsigned)st->st_uid, (unsigned)dir.st_uid);
		return why;
	}
	return NULL;
}

int inpath_open(int dirfd, const char *path, unsigned flags, char *why, size_t size)
{
	int fd, pf, err;
	const char *no;
	struct stat st;
	char proc[32];

	pf = walk(dirfd, path, flags & INPATH_NOFOLLOW, &st, why, size);
	if (pf < 0)
		return pf;
	no = refusal(dirfd, pf, &st, flags, why, size);
	if (no) {
		if (no != why)
			snprintf(why, size, "%s", no);
		close(pf);
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	}
	/* the checked file itself, never waited on (a pipe whose writer is gone
	 * reads its end), then read blocking */
	fd = open(inpath_proc(pf, proc, sizeof(proc)), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	err = -errno;
	if (fd < 0 && err == -EWOULDBLOCK)	/* a file lease: there, but not ours to wait for */
		snprintf(why, size, "held by a lease of uid %u", (unsigned)st.st_uid);
	else if (fd < 0)
		snprintf(why, size, "%s", strerror(errno));
	close(pf);
	return fd < 0 ? err : fd;
}

int inpath_dir(int dirfd, const char *path, char *why, size_t size)
{
	struct stat st;
	char proc[32];
	int pf = walk(dirfd, path, false, &st, why, size), fd;

	if (pf < 0)
		return pf;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s, expected a directory", inpath_kind(st.st_mode));
		close(pf);
		return -ENOTDIR;
	}
	fd = open(inpath_proc(pf, proc, sizeof(proc)), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, size, "%s", strerror(errno));
	fd = fd < 0 ? -errno : fd;
	close(pf);
	return fd;
}
