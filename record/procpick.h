/* SPDX-License-Identifier: MIT */
/*
 * procpick: `snaptrace attach` without -p or -t: the user picks the process
 * on the terminal, with the picker of --trigger '?' (picker.h).
 */
#ifndef SNAPTRACE_REC_PROCPICK_H
#define SNAPTRACE_REC_PROCPICK_H

#include <stddef.h>
#include <sys/types.h>

#include "procfs.h"

/*
 * Lists the running processes that have a program (kernel threads, zombies
 * and this process left out), newest (highest pid) first, as
 * "PID USER COMM<TAB>COMMAND LINE" (USER: who started it, its real uid's
 * name: a process named as another user's is told apart), and lets the
 * user pick one, held from then on (rec_proc_hold()) into *PICKED when it
 * is still the process listed (the same start time: its pid may be another
 * process's by the time it is picked).
 * Returns 0; or a negative error with a one-line reason in WHY (SIZE
 * bytes): -ENOTTY stdin is not a terminal, -ECANCELED nothing was picked,
 * -ENOENT no process to pick, -ESRCH the process picked ended since it was
 * listed, -ENOMEM.
 */
int rec_procpick(struct rec_proc_held *picked, char *why, size_t size);

#endif
