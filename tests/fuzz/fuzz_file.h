/* SPDX-License-Identifier: MIT */
/*
 * fuzz_file.h: scratch files of one fuzzing process,
 * $TMPDIR/snaptrace-fuzz.PID/EXT (/tmp without TMPDIR; one name per
 * extension, a new file under it for every run of the target). A directory
 * of its own: the FXT writer sweeps its output's directory for stale
 * temporaries at every open (common/outpath.c), and a shared /tmp of
 * hundreds of entries made that listing a twentieth of a run.
 */
#ifndef SNAPTRACE_FUZZ_FILE_H
#define SNAPTRACE_FUZZ_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The scratch path for EXT ("txt", "fxt"), in one of two static buffers. */
static inline const char *fuzz_file_path(const char *ext)
{
	static char bufs[2][256], dir[200];
	static int n;
	char *b = bufs[n++ % 2];

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		if (!tmp || !*tmp)
			tmp = "/tmp";
		if (snprintf(dir, sizeof(dir), "%s/snaptrace-fuzz.%ld", tmp, (long)getpid()) >=
		    (int)sizeof(dir) || (mkdir(dir, 0700) && errno != EEXIST))
			abort();
	}
	if (snprintf(b, sizeof(bufs[0]), "%s/%s", dir, ext) >= (int)sizeof(bufs[0]))
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
