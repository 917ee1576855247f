// SPDX-License-Identifier: MIT
/* buildcache: a binary into perf's build-id cache layout (see buildcache.h). */
#include "buildcache.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfid.h"
#include "outpath.h"
#include "perfdata.h"

int rec_build_id(int fd, char *hex)
{
	return elfid_fd(fd, hex, REC_BUILD_ID_HEX + 1);
}

/* Opens directory NAME of directory DIRFD, made first when missing (never
 * through a link). Returns its descriptor or a negative errno. */
static int subdir(int dirfd, const char *name)
{
	int fd;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Opens the directory of the names of PATH ("/"-separated) below DIRFD,
 * made as needed. Returns its descriptor or a negative errno. */
static int subdirs(int dirfd, const char *path)
{
	char name[NAME_MAX + 1];
	int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);

	if (cur < 0)
		return -errno;
	while (cur >= 0 && *path) {
		size_t n = strcspn(path, "/");
		int next;

		if (n > NAME_MAX) {
			close(cur);
			return -ENAMETOOLONG;
		}
		if (n) {
			memcpy(name, path, n);
			name[n] = 0;
			next = subdir(cur, name);
			close(cur);
			cur = next;
		}
		path += n + (path[n] == '/');
	}
	return cur;
}

int rec_build_cache_add(int dirfd, const char *path, int fd, const struct stat *st,
			const char *hex)
{
	char link[2 * PATH_MAX], rest[REC_BUILD_ID_HEX + 1], xx[3];
	size_t len = strlen(hex);
	int dir, err;

	if (path[0] != '/' || len < 3)
		return -EINVAL;	/* "." and ".." are refused on the way (subdir()) */
	if ((size_t)snprintf(link, sizeof(link), "../..%s/%s", path, hex) >= sizeof(link))
		return -ENAMETOOLONG;
	dir = subdirs(dirfd, link + 5);
	if (dir < 0)
		return dir;
	err = outpath_copy_at(dir, "elf", fd, st->st_size, st->st_mode & 0755);
	close(dir);
	if (err)
		return err;
	snprintf(xx, sizeof(xx), "%.2s", hex);
	snprintf(rest, sizeof(rest), "%s", hex + 2);
	dir = subdirs(dirfd, ".build-id");
	err = dir < 0 ? dir : subdir(dir, xx);
	if (dir >= 0)
		close(dir);
	if (err < 0)
		return err;
	dir = err;
	err = symlinkat(link, dir, rest) && errno != EEXIST ? -errno : 0;
	close(dir);
	return err;
}
