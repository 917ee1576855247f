/* SPDX-License-Identifier: MIT */
/*
 * stuck: what a process that does not answer waits on, read from /proc
 * (proc(5)): for each of its threads /proc/PID/task/TID/syscall (the system
 * call it is blocked in and its arguments) and wchan (the kernel function it
 * sleeps in). A thread blocked opening a file is named with the path it
 * opens (read from its memory, /proc/PID/mem: the address is the call's
 * argument), one blocked on a file descriptor with the file that descriptor
 * is (/proc/PID/task/TID/fd/N). Said when perf does not get ready or does
 * not stop (a FIFO another user put where perf opens a name holds it in
 * open() until killed): the message names the file, not what perf prints
 * as it is killed. Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_REC_STUCK_H
#define SNAPTRACE_REC_STUCK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Describes in BUF (LEN bytes, NUL-terminated, raw: the caller escapes it
 * when printing) what process PID waits on: its thread that waits in a
 * system call on a file (an open of a path, a read or write of a
 * descriptor), the main thread first, as "pid N is blocked in SYSCALL of
 * FILE (in the kernel's WCHAN)"; else what its main thread sleeps in.
 * Returns 1 when a file was named, 0 when only a sleep was (or nothing:
 * BUF ""), -errno when PID's /proc cannot be read.
 */
int rec_proc_stuck(pid_t pid, char *buf, size_t len);

#endif
