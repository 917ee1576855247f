/* SPDX-License-Identifier: MIT */
/*
 * fuzz_file.h: scratch files of one fuzzing process, DIR/EXT (one name per
 * extension, a new file under it for every run of the target), DIR made by
 * mkdtemp() as snaptrace-fuzz.XXXXXX in /dev/shm, or where that is no
 * directory we may write, in $TMPDIR (else /tmp). Memory, not a disk: ext4
 * looks for a free inode past the recently deleted ones for every file made
 * (its recently_deleted()), a fifth of fuzz_convert's CPU with its two new
 * files a run (the input, the FXT writer's temporary) in /tmp. A directory
 * of its own: the FXT writer sweeps its output's directory for stale
 * temporaries at every open (common/outpath.c), and a shared /tmp of
 * hundreds of entries made that listing a twentieth of a run. Removed,
 * with all it holds, when the process exits (not when it crashes: a few
 * files of a run stay there for a look).
 */
#ifndef SNAPTRACE_FUZZ_FILE_H
#define SNAPTRACE_FUZZ_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_file_dir[200];

static inline int fuzz_file_remove(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* atexit: the scratch directory and what it holds. */
static inline void fuzz_file_cleanup(void)
{
	nftw(fuzz_file_dir, fuzz_file_remove, 16, FTW_DEPTH | FTW_PHYS);
}

/* The scratch path for EXT ("txt", "fxt"), in one of two static buffers. */
static inline const char *fuzz_file_path(const char *ext)
{
	static char bufs[2][256];
	static int n;
	char *b = bufs[n++ % 2];

	if (!fuzz_file_dir[0]) {
		const char *tmp = getenv("TMPDIR");

		if (!access("/dev/shm", W_OK | X_OK))
			tmp = "/dev/shm";
		else if (!tmp || !*tmp)
			tmp = "/tmp";
		if (snprintf(fuzz_file_dir, sizeof(fuzz_file_dir), "%s/snaptrace-fuzz.XXXXXX",
			     tmp) >= (int)sizeof(fuzz_file_dir) ||
		    !mkdtemp(fuzz_file_dir) || atexit(fuzz_file_cleanup))
			abort();
	}
	if (snprintf(b, sizeof(bufs[0]), "%s/%s", fuzz_file_dir, ext) >= (int)sizeof(bufs[0]))
		abort();
	return b;
}

/* Writes SIZE bytes of DATA as the scratch file for EXT, a new file each
 * time (the last run's unlinked first: ext4 flushes a file truncated and
 * written again when it is closed, which held the targets to some 30 runs
 * a second); returns its path. Aborts on failure. */
static inline const char *fuzz_file_write(const char *ext, const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_path(ext);
	int fd;

	if (unlink(path) && errno != ENOENT)
		abort();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd))
		abort();
	return path;
}

#endif
