/* SPDX-License-Identifier: MIT */
/*
 * jitdump: a JIT's jitdump (perf's format: tools/perf/Documentation/
 * jitdump-specification.txt), the file jit-PID.dump that a JIT (V8's
 * --perf-prof, .NET, Wasmtime, Python's -X perf_jit...) writes and maps
 * executable, so that its MMAP record names it. `perf inject --jit` turns
 * it into an ELF file per function beside it (jitted-PID-N.so) and MMAP
 * records naming them, and perf script then names the JIT's frames. It
 * writes those files into the jitdump's directory with no O_EXCL or
 * O_NOFOLLOW: only a directory no other user can plant a file in is
 * given to it. Why: docs/design.md "JIT code".
 */
#ifndef SNAPTRACE_CONVERT_JITDUMP_H
#define SNAPTRACE_CONVERT_JITDUMP_H

#include <stddef.h>

/*
 * Finds the first jitdump the perf.data at PATH maps (an MMAP or MMAP2
 * record of a file named jit-NUMBER.dump) into DUMP (SIZE bytes). Returns
 * 1 when there is one, 0 when none (or PATH is no perf.data this reads).
 */
int jitdump_find(const char *path, char *dump, size_t size);

/*
 * Whether `perf inject --jit` may write beside the jitdump DUMP: it is a
 * regular file, and its directory belongs to this process's user or root
 * and no other user can create a file there (not writable by group or
 * others; or sticky with fs.protected_symlinks and fs.protected_regular
 * on, as /tmp is on Debian). Returns 1, or 0 with the reason in WHY.
 */
int jitdump_safe(const char *dump, char *why, size_t size);

#endif
