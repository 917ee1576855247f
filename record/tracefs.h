/* SPDX-License-Identifier: MIT */
/*
 * tracefs: where the recorder reads the kernel's tracepoints (their ids and
 * formats: sched:sched_switch, signal:signal_deliver, task:task_newtask).
 * One place for the two paths the kernel offers (/sys/kernel/tracing, and
 * /sys/kernel/debug/tracing where debugfs is mounted). On a machine just
 * booted neither may be mounted yet: perf mounts tracefs at
 * /sys/kernel/tracing the first time an event needs it
 * (tools/lib/api/fs/tracing_path.c), so the recorder does the same when it
 * may (root, or CAP_SYS_ADMIN), instead of saying the tracepoints need a
 * privilege the caller has.
 */
#ifndef SNAPTRACE_REC_TRACEFS_H
#define SNAPTRACE_REC_TRACEFS_H

#include <stddef.h>

/*
 * Opens FILE, a path below the tracefs root ("events/sched/sched_switch/id"),
 * read-only (O_CLOEXEC | O_NOFOLLOW), trying each tracefs path in turn; when
 * none holds it and tracefs is mounted nowhere, mounts it at
 * /sys/kernel/tracing (once per process) and tries again. Returns the fd, or
 * -errno of the last attempt (-ENOENT: no such tracepoint, -EACCES: not
 * readable by the caller).
 */
int rec_tracefs_open(const char *file);

/*
 * Writes TEXT (LEN bytes) in one write(2) to FILE below the tracefs root
 * ("uprobe_events"), opened O_WRONLY | O_APPEND (O_CLOEXEC | O_NOFOLLOW),
 * as rec_tracefs_open() finds it. Returns 0 or a negative errno (the
 * kernel's answer to the text: -EINVAL malformed, -EBUSY in use, -EEXIST).
 */
int rec_tracefs_write(const char *file, const char *text, size_t len);

#endif
