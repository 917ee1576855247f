/* SPDX-License-Identifier: MIT */
/*
 * runcache: a traced run (trace.h) kept on disk, so that a program is
 * single-stepped once per build, not once per suite and variant (the
 * generator's options change the packets, never the run; a step costs some
 * 30 us of ptrace, a C++ throw 1.2 s).
 *
 * An entry is the file DIR/KEY.run, KEY a 64-bit FNV-1a hash (16 hex
 * digits) of what decides the run: this format's version, the generator's
 * own executable, the program's bytes and arguments, the start symbol, the
 * step limit and the kernel (uname: its vdso and syscalls). An entry is
 * used only while every file it maps is unchanged (device, inode, size,
 * modification time: a rebuilt program or an upgraded libc is traced
 * again). Entries are written under a temporary name and renamed, and
 * DIR/KEY.lock (flock) makes a second generator of the same KEY wait for
 * the first's entry instead of tracing too (the suites run side by side).
 * The format is native-endian and private to one build directory.
 */
#ifndef PTSYNTH_RUNCACHE_H
#define PTSYNTH_RUNCACHE_H

#include <stdint.h>

#include "trace.h"

/*
 * ps_run_trace() through the cache in DIR (made if missing): fills RUN from
 * the entry of this run when there is a valid one, else traces and stores
 * the entry (a failure to store is only a warning: the run is good).
 * Returns what ps_run_trace() returns; *CACHED says whether RUN came from
 * the cache. ERR as ps_run_trace().
 */
int ps_runcache_trace(const char *dir, struct ps_run *run, char *const argv[],
		      const char *start_sym, uint64_t max_steps, int *cached, char *err,
		      size_t errlen);

#endif
