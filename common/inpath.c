// SPDX-License-Identifier: MIT
/* inpath (see inpath.h). */
#include "inpath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

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

/* Why FLAGS refuse the file ST in directory DIRFD; NULL: taken. */
static const char *refusal(int dirfd, int pf, const struct stat *st, unsigned flags, char *why,
			   size_t size)
{
	struct statfs fs;
	struct stat dir;

	if (S_ISLNK(st->st_mode))
		return "a symbolic link, not followed here";
	if (!S_ISREG(st->st_mode) &&
	    !((flags & INPATH_STREAM) && (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode)))) {
		snprintf(why, size, "%s, expected a regular file", inpath_kind(st->st_mode));
		return why;
	}
	if (!S_ISREG(st->st_mode) && st->st_uid != geteuid() && st->st_uid != 0 &&
	    !(S_ISFIFO(st->st_mode) && !fstatfs(pf, &fs) && fs.f_type == PIPEFS_MAGIC)) {
		/* fs.protected_fifos for reading: another user's named FIFO could
		 * hold the reader waiting, or feed it as it likes (a pipe handed to
		 * this process, /dev/stdin, is its caller's input) */
		snprintf(why, size, "%s of uid %u: only the caller's or root's is read as a "
			 "stream", inpath_kind(st->st_mode), (unsigned)st->st_uid);
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
	int cloexec = flags & INPATH_INHERIT ? 0 : O_CLOEXEC, fd, pf, err;
	const char *no;
	struct stat st;
	char proc[32];

	pf = openat(dirfd, path, O_PATH | O_CLOEXEC | (flags & INPATH_NOFOLLOW ? O_NOFOLLOW : 0));
	if (pf < 0 || fstat(pf, &st)) {
		err = -errno;
		snprintf(why, size, "%s", strerror(errno));
		if (pf >= 0)
			close(pf);
		return err;
	}
	no = refusal(dirfd, pf, &st, flags, why, size);
	if (no) {
		if (no != why)
			snprintf(why, size, "%s", no);
		close(pf);
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	}
	/* the checked file itself; a FIFO waits for its writer here, as asked */
	fd = open(inpath_proc(pf, proc, sizeof(proc)), O_RDONLY | O_NOCTTY | cloexec);
	err = -errno;
	if (fd < 0)
		snprintf(why, size, "%s", strerror(errno));
	close(pf);
	return fd < 0 ? err : fd;
}
