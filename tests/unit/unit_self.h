/* SPDX-License-Identifier: MIT */
/*
 * unit_self.h: the test program itself, an ELF file with known symbols (and,
 * built with -g, line tables) for the recorder's symbol tests.
 */
#ifndef SNAPTRACE_UNIT_SELF_H
#define SNAPTRACE_UNIT_SELF_H

#include <unistd.h>

/* The path of the running test program (/proc/self/exe resolved; static). */
static inline const char *unit_self_exe(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	path[n > 0 ? n : 0] = '\0';
	return path;
}

#endif
