/* SPDX-License-Identifier: MIT */
/*
 * jitdump: a JIT's jitdump (perf's format: tools/perf/Documentation/
 * jitdump-specification.txt), the file jit-PID.dump that a JIT (V8's
 * --perf-prof, .NET, Wasmtime, Python's -X perf_jit...) writes and maps
 * executable, so that its MMAP record names it. `perf inject --jit` turns
 * it into an ELF file per function beside it (jitted-PID-N.so) and MMAP
 * records naming them, and perf script then names the JIT's frames. perf
 * inject opens the jitdump by the name in the record and creates those
 * files with no O_EXCL or O_NOFOLLOW: it is given only a private copy,
 * made here from what was opened and checked, in a private directory
 * where it also writes its ELF files. Why: docs/design.md "JIT code".
 */
#ifndef SNAPTRACE_CONVERT_JITDUMP_H
#define SNAPTRACE_CONVERT_JITDUMP_H

#include <stddef.h>

#include "binaries.h"
#include "runas.h"

/*
 * Finds the first jitdump the perf.data at PATH maps (an MMAP or MMAP2
 * record of a file named jit-NUMBER.dump) into DUMP (SIZE bytes). Returns
 * 1 when there is one, 0 when none (or PATH is no perf.data this reads).
 */
int jitdump_find(const char *path, char *dump, size_t size);

/*
 * Makes what perf inject --jit reads for the perf.data PERFDATA (a path)
 * and its jitdump DUMP (jitdump_find()) in a private directory K
 * (binaries_kept_dir()): DUMP opened as runas_open() opens (a regular
 * file, a symbolic link followed only as fs.protected_symlinks would) and
 * copied from that descriptor as "jit-PID.dump"; a copy "perf.data" of
 * PERFDATA whose every record naming a jitdump names "./jit-PID.dump"
 * instead (perf's rule wants a '/'), relative to K, where perf inject is
 * then run (its ELF files land there, named "./jitted-PID-N.so", and perf
 * script, run there too, reads them). A record whose name cannot hold its
 * relative form (a jitdump in "/") is left nameless. The two are copied
 * only when they are PERFDATA_BINARIES_BYTES_MAX in all at most (-EFBIG: a
 * crafted perf.data naming a sparse jitdump of 50 GiB, 20 KiB on disk, once
 * had the converter write 50 GiB). DUMP is copied only when AS's user (the
 * recording's owner perf runs as, runas.h; NULL or off: the caller) may open
 * it and finds there the file opened (runas_open()): another user's
 * perf.data may name a jitdump only root may read. Returns 0 with K
 * ready (the caller calls binaries_kept_remove()), or a negative errno
 * with the reason in WHY (WSIZE bytes), K empty.
 */
int jitdump_private(const char *perfdata, const char *dump, const struct runas *as,
		    struct binaries_kept *k, char *why, size_t wsize);

/* The name of the patched perf.data copy in jitdump_private()'s directory. */
#define JITDUMP_PERFDATA "perf.data"

#endif
