// SPDX-License-Identifier: MIT
/* tmptree (see tmptree.h). readdir() may allocate, so a signal handler
 * cannot use it: the directory is read with getdents64 into the stack. */
#include "tmptree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* getdents64's record (linux/dirent.h: struct linux_dirent64). */
struct dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Removes entry NAME of directory FD as tmptree_empty() says. Returns
 * whether it went. */
static bool remove_entry(int fd, const char *name, int depth, uid_t owner)
{
	struct stat st;
	int sub;

	if (!unlinkat(fd, name, 0))
		return true;
	if (errno != EISDIR || depth >= TMPTREE_DEPTH_MAX)
		return false;
	sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return false;
	if (!fstat(sub, &st) && st.st_uid == owner && !(st.st_mode & S_ISVTX))
		tmptree_empty(sub, depth + 1, owner);
	close(sub);
	return !unlinkat(fd, name, AT_REMOVEDIR);
}

void tmptree_empty(int fd, int depth, uid_t owner)
{
	_Alignas(8) char buf[512];
	int saved = errno;
	bool removed;
	int pass = 0;

	/* entries removed while the directory is read may move others past
	 * the offset: passes from its start until one removes nothing, at
	 * most TMPTREE_PASSES */
	do {
		long n;

		removed = false;
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *de = (struct dirent64 *)(buf + off);

				off += de->d_reclen;
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
				    remove_entry(fd, de->d_name, depth, owner))
					removed = true;
			}
		}
	} while (removed && ++pass < TMPTREE_PASSES);
	errno = saved;
}
