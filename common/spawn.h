/* SPDX-License-Identifier: MIT */
/*
 * spawn: starting a child program, the one place that forks. A struct
 * spawn says what the child gets (program, argv, environment, fds, working
 * directory, process group, death signal, SIGPIPE, ptrace); spawn_start() forks and execs it
 * and reports a failed setup or exec to the parent through a close-on-exec
 * pipe. Everything that allocates (the environment array) or is not
 * async-signal-safe (the error text) happens in the parent: the converter
 * forks while its deflate thread runs, and POSIX allows only
 * async-signal-safe calls in the child of a multi-threaded process. Why:
 * docs/design.md "Child processes".
 */
#ifndef SNAPTRACE_SPAWN_H
#define SNAPTRACE_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/* How many of the child's fds a struct spawn can place (0..SPAWN_MAX_FDS-1). */
#define SPAWN_MAX_FDS 8
/* In struct spawn.fds: /dev/null (opened read-write). */
#define SPAWN_DEVNULL (-2)

struct spawn {
	const char *path;        /* the program: a path, or with search_path a name
				  * looked up in PATH when it has no '/' */
	char *const *argv;       /* its arguments, NULL-terminated (argv[0] is what
				  * the program sees) */
	bool search_path;        /* execvpe (PATH lookup) instead of execve */
	int exec_fd;             /* > 0: the program is this open file, exec'd as
				  * it is (fexecve(); PATH then names it in
				  * messages alone): runas_image()'s; 0: PATH */
	const char *const *env;  /* "NAME=VALUE" entries put over a helper's
				  * environment (childenv.h), NULL-terminated, or NULL */
	bool inherit_env;        /* the environment inherited as is, ENV unused: the
				  * traced program's (a tracer changes nothing of
				  * it); else a helper's, childenv_build()'s */
	const uid_t *env_user;   /* a helper run as this other user (SETUP takes its
				  * credentials: runas_enter()): the environment
				  * childenv_build() makes for that user; NULL: as
				  * the caller */
	int nfds;                /* the child's fds 0..nfds-1 become fds[0..nfds-1] */
	int fds[SPAWN_MAX_FDS];  /* a parent fd (close-on-exec or not) or
				  * SPAWN_DEVNULL; the child's fds from nfds on are
				  * the parent's that are not close-on-exec and, for
				  * a helper (!inherit_env), those its argv names as
				  * /proc/self/fd/N or /dev/fd/N (close-on-exec or
				  * not); a helper run as another user (env_user)
				  * gets those named alone */
	int cwd_fd;              /* the child's working directory: an open directory (a
				  * relative path in argv is then relative to it, not
				  * to a name that may be swapped), or 0: the parent's
				  * (fd 0 is standard input, never a directory here) */
	bool new_pgroup;         /* in a process group of its own (setpgid(0, 0));
				  * the INT, QUIT, TERM, HUP sent to the old group
				  * before then are discarded */
	int death_signal;        /* PR_SET_PDEATHSIG: sent to the child when the
				  * forking thread ends; 0 for none */
	bool ignore_sigpipe;     /* SIGPIPE ignored (exec keeps SIG_IGN); else as at the
				  * caller's start (sig_ignored_at_start()) */
	bool trace_me;           /* PTRACE_TRACEME: the kernel stops the child with
				  * SIGTRAP right after execve (the caller waits
				  * for that stop) */
	bool no_aslr;            /* personality ADDR_NO_RANDOMIZE (fixed addresses) */
	int (*setup)(const void *arg);  /* run in the child after its process group
				  * and death signal (async-signal-safe calls only;
				  * it may go on in a child of the child, which
				  * then sets its own: tmpview_enter()), or NULL:
				  * 0 or an errno that fails the start */
	const void *setup_arg;
	pid_t *stopped;          /* where spawn_start() puts the pid of the
				  * process it found stopped when it gives the
				  * start up (-ETIME: the child, or the process
				  * it started, run_stopped()), or NULL */
};

/*
 * Forks and execs S. The child starts with an empty signal mask, SIGPIPE
 * as S says, and every other signal as exec leaves it. Returns the child's
 * pid once its execve has succeeded, or a negative errno: from the parent
 * (pipe, fork, out of memory, more than SPAWN_MAX_FDS fds) or from the
 * child's setup or execve (e.g. -ENOENT for a missing program), -ETIME for a
 * child, or a process it started (a pid namespace's first process:
 * tmpview.h), stopped RUN_STOPPED_MS before the execve (its new user
 * stopped it: runas.h; run.h's stop watch; its pid then in *S->stopped); a
 * child that failed is reaped (killed first) before the return. The caller owns the pid (waits for it).
 */
pid_t spawn_start(const struct spawn *s);

#endif
