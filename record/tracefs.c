/* SPDX-License-Identifier: MIT */
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

/* statfs(2)'s f_type of a tracefs mount (linux/magic.h TRACEFS_MAGIC) */
#define TRACEFS_MAGIC_NR 0x74726163
#define TRACEFS_MOUNT "/sys/kernel/tracing"

static const char *const roots[] = { TRACEFS_MOUNT, "/sys/kernel/debug/tracing" };

/* Whether DIR is a mounted tracefs. */
static bool is_tracefs(const char *dir)
{
	struct statfs st;

	return statfs(dir, &st) == 0 && st.f_type == TRACEFS_MAGIC_NR;
}

/* Opens FILE below each root in turn with FLAGS. Returns the fd or the
 * last -errno. */
static int open_below_roots(const char *file, int flags)
{
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[256];
		int fd;

		if (snprintf(path, sizeof(path), "%s/%s", roots[i], file) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			return fd;
		err = -errno;
	}
	return err;
}

/* Opens FILE below the tracefs root with FLAGS (rec_tracefs_open()). */
static int tracefs_open(const char *file, int flags)
{
	static bool tried;
	int fd = open_below_roots(file, flags);

	if (fd >= 0 || tried)
		return fd;
	tried = true;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (is_tracefs(roots[i]))
			return fd;      /* mounted: the file itself is missing or closed to us */
	if (mount("nodev", TRACEFS_MOUNT, "tracefs", 0, NULL) != 0)
		return fd;
	return open_below_roots(file, flags);
}

int rec_tracefs_open(const char *file)
{
	return tracefs_open(file, O_RDONLY);
}

int rec_tracefs_write(const char *file, const char *text, size_t len)
{
	int fd = tracefs_open(file, O_WRONLY | O_APPEND);
	ssize_t n;
	int err;

	if (fd < 0)
		return fd;
	n = write(fd, text, len);
	err = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return err;
}
