/* SPDX-License-Identifier: MIT */
/*
 * uprobedef: uprobes the recorder defines in tracefs (uprobe_events), in a
 * group of its own, "snaptrace_PID" (PID the recorder's), so that a perf
 * event of the uprobe's tracepoint on a thread can be inherited by the
 * threads it creates later. The uprobe PMU's cannot: the kernel reads an
 * inherited copy's file name (attr.config1, an address in the recorder)
 * again in the thread that clones, where it means nothing, and the clone
 * fails (pthread_create() returns an error: the program changed).
 *
 * A definition outlives its recorder when that is killed: the next
 * recorder removes those of groups whose recorder no longer runs.
 * Needs write access to tracefs (root). Why: docs/design.md "Signals and
 * the exit".
 */
#ifndef SNAPTRACE_REC_UPROBEDEF_H
#define SNAPTRACE_REC_UPROBEDEF_H

#include <stdint.h>

/*
 * Defines uprobe NAME (letters, digits and '_') at OFFSET of file PATH (a
 * path the kernel resolves now, in the recorder: "/proc/self/fd/N" names
 * the file opened) in the recorder's group, after removing the definitions
 * of recorders gone (once per process). Returns its tracepoint id (the
 * config of a PERF_TYPE_TRACEPOINT event), or a negative errno (-EACCES:
 * tracefs not writable here, -ENOENT: no uprobe_events).
 */
int64_t rec_uprobedef_add(const char *name, const char *path, uint64_t offset);

/* Removes uprobe NAME of the recorder's group (once its events are closed:
 * the kernel keeps one in use). */
void rec_uprobedef_remove(const char *name);

#endif
