/* SPDX-License-Identifier: MIT */
/*
 * forks: counts the child processes each target starts during a
 * recording (a fork, vfork or clone without CLONE_THREAD: the tracepoint
 * task:task_newtask, which fires in the parent, filtered in the kernel on
 * its clone_flags), so that a recording of one thread or process can say
 * that the work went to children it did not record (`snaptrace run -- sh -c
 * './prog; true'` records the shell; --multi-thread follows them). A
 * counting event on the target's main thread, inherited by the threads it
 * creates, never by the processes it forks; it changes nothing the program
 * does. Where the host allows tracepoints (as sigwatch.h), else nothing is
 * counted.
 */
#ifndef SNAPTRACE_REC_FORKS_H
#define SNAPTRACE_REC_FORKS_H

#include <stdint.h>
#include <sys/types.h>

#include "rec_opts.h"

struct rec_forks {
	int fd[REC_MAX_PIDS];   /* per target: the counting event, -1 when none */
	int n;                  /* targets */
};

/*
 * Opens the count on each of the N processes PIDS (their main threads),
 * counting from now on. A process that is gone, or a host without
 * tracepoints, gets none (-1). Returns how many counts are open.
 */
int rec_forks_open(struct rec_forks *f, const pid_t *pids, int n);

/* The child processes target I started so far (those of its exited threads
 * included); 0 when it has no count. */
uint64_t rec_forks_count(const struct rec_forks *f, int i);

/* Closes every count of F (zeroed F: nothing). */
void rec_forks_close(struct rec_forks *f);

#endif
