/* SPDX-License-Identifier: MIT */
/*
 * procs: the /proc looks of the tools that play another user against the
 * helpers root runs as them (ptraceat, leaseat): a process's files, state,
 * parent and real uid, and whether it descends from the test's own process
 * (never another suite's).
 */
#ifndef SNAPTRACE_TEST_PROCS_H
#define SNAPTRACE_TEST_PROCS_H

#include <sys/types.h>

/* /proc/PID/NAME into BUF (SIZE bytes, NUL-terminated). Returns its
 * length, or 0 (gone, unreadable, empty). */
ssize_t proc_read(long pid, const char *name, char *buf, size_t size);

/* Process PID's state and parent (/proc/PID/stat, after its comm's last
 * ')'): 0, or -1 when it is gone. */
int proc_stat(pid_t pid, char *state, pid_t *ppid);

/* Whether process PID is of our real uid (its status's "Uid:": a process of
 * ours that is not dumpable has root's /proc files). */
int proc_ours(long pid);

/* Whether process PID descends from ANCESTOR. */
int proc_descends(pid_t pid, pid_t ancestor);

/* The pid PIDFILE holds (the test's own process, once it wrote it), or 0. */
pid_t proc_pidfile(const char *pidfile);

#endif
