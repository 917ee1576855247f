/* SPDX-License-Identifier: MIT */
/* run: running a helper program (perf) and reading what it prints. */
#ifndef SNAPTRACE_RUN_H
#define SNAPTRACE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "stopwatch.h"

struct tmpview;

/*
 * The working directory a helper runs in, as CWD_FD below: 0 (the default)
 * is "/", where nobody but root may put a name: perf 6.1 looks for a
 * binary's .gnu_debuglink file first by the bare name, in its working
 * directory (dso.c debuglink_paths[0]), so perf run as root in /tmp read
 * another user's file there as libc's debug symbols. Every path a helper is
 * given is then absolute (a /proc/self/fd/N handle, or made so: the
 * converter's --perf-arg), and its program is found in the caller's
 * directory before it moves (run_find_program()). RUN_CWD_CALLER: the
 * caller's own, for this project's programs given the caller's relative
 * paths (the front end's and stats' snaptrace-convert).
 */
#define RUN_CWD_CALLER (-1)

/*
 * Starts ARGV (argv[0] a path, or a name looked up in PATH) through
 * spawn_start() with stdin from /dev/null, stdout on OUT_FD, stderr on
 * ERR_FD, PAGER=cat, an empty signal mask and SIGPIPE at its default (ignored
 * when ERR_FD is our STDERR_FILENO: the user's stderr, a pipe that may close
 * early (`2>&1 | head -3`), must not kill a converter that wrote its trace,
 * its lines then lost as ours; a write to its own output fails instead), in
 * the working directory CWD_FD (an open directory, 0: "/", RUN_CWD_CALLER:
 * the caller's; a relative argument is then relative to it, a relative
 * argv[0] the caller's), seeing VIEW as its
 * /tmp (tmpview.h; NULL: ours), as VIEW's user when it names one (an ELF
 * program then exec'd from runas_image()'s copy: not theirs to ptrace; a
 * script from its path); the child gets SIGTERM when the calling
 * thread ends (PR_SET_PDEATHSIG), so it never outlives its parent. With
 * OWN_PGROUP it runs in a process group of its own, out of reach of what
 * the terminal or a user's `kill -SIG -PGID` sends ours (the caller decides
 * and stops it): perf, which handles SIGINT even when it was ignored at
 * start (perf script then stops early and exits 0, its output cut); else in
 * ours (this project's programs, which keep the user's ignored signals
 * ignored: signals.h). Returns the child's pid, or a negative errno when it
 * could not be started (e.g. -ENOENT: no such program; runas_image()'s
 * errors but -ENOEXEC and -ENOSYS; -ETIME: stopped before its exec, the
 * pid of the process stopped then in *STOPPED when STOPPED is not NULL).
 */
pid_t run_start(char *const argv[], int out_fd, int err_fd, int cwd_fd, bool own_pgroup,
		const struct tmpview *view, pid_t *stopped);

/*
 * Starts ARGV as run_start() does, its stdout going to a pipe whose read end is returned in *FD (close-on-exec; the caller closes it),
 * and its stderr to ERR_FD (STDERR_FILENO: inherited), or to the same pipe
 * when ERR_FD < 0. Returns the child's pid, or a negative errno (STOPPED:
 * as run_start()'s).
 */
pid_t run_spawn(char *const argv[], int err_fd, int *fd, int cwd_fd, bool own_pgroup,
		const struct tmpview *view, pid_t *stopped);

/*
 * read(2) of FD, the output of child PID (a pipe), waiting as long as PID
 * runs: where PID, or a process it started, stays stopped RUN_STOPPED_MS,
 * returns -1 with errno ETIME, the process still stopped (run_stopped()
 * names it; run_end() ends it).
 */
ssize_t run_read(pid_t pid, int fd, void *buf, size_t cap);

/* What the waits below return for a child killed by signal N:
 * RUN_KILLED_BY + N, apart from every exit status (0..255, those above 128
 * included: perf exits 234 for -EINVAL). */
#define RUN_KILLED_BY 256

/* Waits for child PID. Returns its exit status (0..255), RUN_KILLED_BY + N
 * when killed by signal N, or a negative errno: -ETIME when PID, or a process it
 * started, stayed stopped RUN_STOPPED_MS: PID is then killed (SIGKILL) and
 * reaped, and *STOPPED (when STOPPED is not NULL) is the stopped one. */
int run_wait_stopped(pid_t pid, pid_t *stopped);

/* A wait status of a child that ended (waitpid(2)'s STATUS) as run_wait()
 * returns it: the exit status (0..255), or RUN_KILLED_BY + the signal. */
int run_status_of(int status);

/* What run_wait() returned, ST, in words after the program's name, in BUF
 * (SIZE bytes), which it returns: "exited with status 234", "was killed by
 * signal 9 (SIGKILL)", "stayed stopped 5 s: given up" (-ETIME), "could not
 * be waited for: REASON" (another negative errno). The one place a wait
 * status becomes words. */
const char *run_status_words(int st, char *buf, size_t size);

/* Why a start (run_start(), run_spawn(), spawn_start()) failed with ERR,
 * in BUF (SIZE bytes), which it returns: for -ETIME "pid STOPPED stopped
 * for 5 s before its exec (a stop signal or a debugger WHO): given up",
 * WHO what follows in the parentheses ("; it runs as uid N, who may stop
 * it", or ""); else strerror(). */
const char *run_start_words(int err, pid_t stopped, const char *who, char *buf, size_t size);

/* run_wait_stopped(PID, NULL). */
int run_wait(pid_t pid);

/* Ends child PID: SIGTERM, or SIGKILL when it or a process it started is
 * stopped (a stopped process never acts on a SIGTERM), and reaps it.
 * Returns what run_wait() returns. */
int run_end(pid_t pid);

/* Reaps child PID when it has ended, without waiting. Returns what
 * run_wait() returns, or -EAGAIN while it runs. */
int run_try_wait(pid_t pid);

/*
 * Runs ARGV as run_spawn() with stdout+stderr captured into BUF (SIZE bytes,
 * NUL-terminated, truncated) and waits for it. The child (a probe such as
 * `perf --version`) runs in a process group of its own: a Ctrl-C at the
 * terminal reaches the caller, which decides, and never cuts the probe
 * short into a false answer. Returns what run_wait()
 * returns, or a negative errno when it could not be started (BUF then says
 * "ARGV0: REASON", e.g. "No such file or directory", run_start_words()'s;
 * -ETIME once started: it stayed stopped, BUF "ARGV0 (pid N): stopped
 * ...", and it is ended).
 */
int run_capture(char *const argv[], char *buf, size_t size);

/* run_capture() with the child in working directory CWD_FD and /tmp VIEW
 * (as run_start()). */
int run_capture_in(int cwd_fd, const struct tmpview *view, char *const argv[], char *buf,
		   size_t size);

/*
 * Resolves WANT ("perf", a name looked up in $PATH, or a path containing '/')
 * to an executable's absolute path in OUT (SIZE bytes).
 * Returns 0, or a negative errno when there is no executable file: -ENOENT
 * (nothing of that name), -EACCES (a regular file without execute
 * permission), -EISDIR (a directory), -ENOEXEC (another file that is no
 * regular file); looked up in $PATH, the first of these found there, else
 * -ENOENT.
 */
int run_find_program(const char *want, char *out, size_t size);

/* What run_find_program() found when it returned ERR, worded to follow
 * "expected an executable program, found ": "none", "a file that is not
 * executable", "a directory", "no regular file". */
const char *run_found(int err);

/*
 * The path of program NAME installed beside the running one (the directory
 * of /proc/self/exe: snaptrace-convert beside snaptrace-record) into OUT.
 * Returns 0; -ENOENT when there is no executable NAME there (OUT holds the
 * path looked at); or the negative errno of reading /proc/self/exe.
 */
int run_find_sibling(const char *name, char *out, size_t size);

#endif
