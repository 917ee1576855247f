/* SPDX-License-Identifier: MIT */
/*
 * fuzz_file.h: scratch files of one fuzzing process, /tmp/snaptrace-fuzz.PID.EXT
 * (one per extension, reused by every run of the target).
 */
#ifndef SNAPTRACE_FUZZ_FILE_H
#define SNAPTRACE_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The scratch path for EXT ("txt", "fxt"), in one of two static buffers. */
static inline const char *fuzz_file_path(const char *ext)
{
	static char bufs[2][64];
	static int n;
	char *b = bufs[n++ % 2];

	snprintf(b, sizeof(bufs[0]), "/tmp/snaptrace-fuzz.%ld.%s", (long)getpid(), ext);
	return b;
}

/* Writes SIZE bytes of DATA to the scratch file for EXT; returns its path. Aborts on failure. */
static inline const char *fuzz_file_write(const char *ext, const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_path(ext);
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	return path;
}

#endif
