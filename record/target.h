/* SPDX-License-Identifier: MIT */
/*
 * target: the traced processes. Launch mode forks a child that asks to be
 * traced (PTRACE_TRACEME) and execs the command: the kernel stops it with
 * SIGTRAP right after execve, before the first instruction of the new
 * program, so perf and the trigger are armed before anything runs; then
 * PTRACE_DETACH lets it go (ptrace(2), "execve under ptrace"). The child
 * dies with the recorder (PR_SET_PDEATHSIG SIGKILL). The recorder is the
 * subreaper (PR_SET_CHILD_SUBREAPER) of what the child forks: those
 * processes come back to it when their parent dies, and end with the
 * recording. Attach mode only checks
 * that the processes exist; they are never signalled. Why: docs/design.md
 * "Process model".
 */
#ifndef SNAPTRACE_REC_TARGET_H
#define SNAPTRACE_REC_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfmap.h"
#include "procfs.h"
#include "rec_opts.h"

struct rec_target {
	bool launched;
	bool released;               /* launched child detached and running */
	bool exited;                 /* launched child reaped */
	int status;                  /* its wait status once exited */
	pid_t start_stopped;         /* the launch gave up on this pid, stopped before
				      * its exec (-ETIME: run_start_words()) */
	pid_t pids[REC_MAX_PIDS];    /* traced processes (launch: the child) */
	int npids;
	pid_t tid;                   /* -t TID, else 0 */
	int pidfds[REC_MAX_PIDS];    /* pidfd_open of each pid, -1 if unavailable */
	uint64_t starts[REC_MAX_PIDS]; /* attached: each one's start time (procfs.h) */
	uint64_t tid_start;          /* -t TID's */
	char exe[PATH_MAX];          /* main executable of pids[0] */
	struct perfmap_user exit_user;   /* the launched program's users as it exited
					  * (rec_target_wait()), when exit_noted */
	bool exit_noted;
};

/*
 * Launches ARGV with the executable at PATH (already resolved), stopped at
 * its first instruction (spawn_start() with trace_me). Returns 0, a negative
 * errno from spawn_start() (fork, the child's PTRACE_TRACEME or execve;
 * -ETIME: stopped before its exec, T->start_stopped; the child is then
 * reaped), or -ECHILD when it ended before its exec (a signal: T->status).
 */
int rec_target_launch(struct rec_target *t, const char *path, char *const argv[]);

/* Why rec_target_launch() of T at PATH failed with ERR, in words into BUF
 * (SIZE bytes; returned): a program there whose exec finds no file
 * (-ENOENT) lacks the interpreter it names ("#!", an ELF file's dynamic
 * loader): "its interpreter /usr/bin/python9: No such file or directory"
 * (it said "No such file or directory" of a file that is there); a child
 * stopped before its exec, run_start_words()' "pid N stopped ..."; else
 * strerror(). */
const char *rec_target_launch_words(const struct rec_target *t, int err, const char *path,
				    char *buf, size_t size);

/*
 * Whether ARGV (run as the executable PATH) is a shell given a command
 * string, `SHELL [-OPTS]c[OPTS] COMMAND ...` (SHELL one of the POSIX shells
 * by file name: sh, dash, bash, ...). Such a shell runs a command in a child
 * process of its own: dash always (even `sh -c ./prog`), bash for all but a
 * lone simple command; only `exec` replaces the shell. Returns COMMAND
 * (borrowed from ARGV), or NULL.
 */
const char *rec_target_shell_command(const char *path, char *const argv[]);

/* Lets the stopped launched child run. Returns 0 or a negative errno. */
int rec_target_release(struct rec_target *t);

/*
 * Attaches to processes PIDS (N of them) or, when N is 0, to thread TID:
 * holds each from now on (procfs.h rec_proc_hold()); PICKED (NULL: none),
 * a process held since the user picked it, is taken over (its pidfd then
 * T's) when it is among them. Returns 0, -ESRCH naming the first missing
 * one in *BAD (gone, or PICKED ended), -EPERM naming a kernel thread there
 * (nothing of it runs in user space), or -EINVAL.
 */
int rec_target_attach(struct rec_target *t, const pid_t *pids, int n, pid_t tid,
		      struct rec_proc_held *picked, pid_t *bad);

/*
 * Whether the attached processes (and -t's thread) are still the ones
 * attached to: each one's pidfd says it runs and its pid's start time is
 * the same (a pid is another process's once its own is reaped). Called
 * right before perf attaches to them by pid. Returns 0 (launched: always),
 * or -ESRCH naming the first that is not in *BAD.
 */
int rec_target_still_same(const struct rec_target *t, pid_t *bad);

/*
 * waitpid(PID, STATUS, OPTIONS) of the recorder's children (PID -1: any),
 * which, when it is T's launched program that exited, first notes the
 * users it exited as (a zombie's /proc still tells them) in T->exit_user:
 * a launched program that changed user as it ran (setpriv) is seen as both
 * (record/perfmaps.h). Returns what waitpid() does.
 */
pid_t rec_target_wait(struct rec_target *t, pid_t pid, int *status, int options);

/*
 * Whether any traced process is still running. For a launched child this
 * reaps it when it has exited (non-blocking).
 */
bool rec_target_alive(struct rec_target *t);

/*
 * Handles the exit of child PID with wait STATUS if PID is the launched
 * target. Returns true when it was.
 */
bool rec_target_reaped(struct rec_target *t, pid_t pid, int status);

/*
 * How target process I (an index into T->pids) ended. Returns 1 with its
 * wait status in *STATUS (WIFEXITED, WTERMSIG, WCOREDUMP); 0 when it ended
 * but the status is unknown (attached: the status comes from its pidfd,
 * PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15, once its parent has
 * reaped it: waited for up to WAIT_MS); -1 while it runs (launched: still
 * running after WAIT_MS, which a process a signal is ending may take).
 */
int rec_target_exit(struct rec_target *t, int i, int wait_ms, int *status);

/*
 * Ends and reaps a launched target that is still running (SIGTERM, SIGKILL
 * after 500 ms; SIGKILL right away if it never ran), said on stderr
 * (diag_info) for a target that ran, with the signals sent, after WHY, what
 * ended the recording (e.g. "the recording ended at its trigger"; NULL:
 * "the recording ended"). Returns 1 or 2 when the end is the program's own, its
 * wait status in T->status: 1 it had exited (nothing sent), 2 it exited with
 * a status after the SIGTERM (caught or ignored: said so); 0 when a signal
 * sent here ended it; -1 for an attached target (nothing done).
 */
int rec_target_end(struct rec_target *t, const char *why);

/* rec_target_end(), then ends every process the launched target left
 * running (perf must be reaped already: any other child of the recorder is
 * ended), said in one line: how many and the signals. Closes the pidfds. */
void rec_target_finish(struct rec_target *t, const char *why);

#endif
