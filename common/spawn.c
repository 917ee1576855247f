/* SPDX-License-Identifier: MIT */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "childenv.h"
#include "stopwatch.h"
#include "signals.h"

extern char **environ;

/* In the child: tells the parent ERR through ERRFD and exits 127. */
static _Noreturn void child_failed(int errfd, int err)
{
	while (write(errfd, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/*
 * In the child: puts S->fds at 0..nfds-1. Each source is first copied
 * above SPAWN_MAX_FDS (close-on-exec) so that placing one never closes
 * another's source. Returns 0 or an errno.
 */
static int place_fds(const struct spawn *s)
{
	int high[SPAWN_MAX_FDS];

	for (int i = 0; i < s->nfds; i++) {
		int fd = s->fds[i], null = -1;

		if (fd == SPAWN_DEVNULL) {
			fd = null = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (fd < 0)
				return errno;
		}
		high[i] = fcntl(fd, F_DUPFD_CLOEXEC, SPAWN_MAX_FDS);
		if (high[i] < 0)
			return errno;
		if (null >= 0)
			close(null);
	}
	for (int i = 0; i < s->nfds; i++)
		if (dup2(high[i], i) < 0)	/* clears close-on-exec on i */
			return errno;
	return 0;
}

/* In the child: the fd number at the start of S (its digits), or -1. */
static int fd_number(const char *s)
{
	long n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((n = n * 10 + (*s - '0')) > 0x7fffffff)
			return -1;
	return (int)n;
}

/*
 * In the child of a helper (a program the tools run for themselves, not the
 * traced one): the fds from NFDS on that ARGV names ("/proc/self/fd/N" or
 * "/dev/fd/N" anywhere in an argument: perf's -i, --kallsyms,
 * --buildid-dir...) made inheritable: the tools open every fd close-on-exec
 * and a helper gets those it is given. With ONLY, every other fd from NFDS
 * on is made close-on-exec, those the caller handed the tools too: a helper
 * run as another user, who may read its fds, holds nothing else
 * (docs/design.md "Child processes"). Returns 0 or an errno.
 */
static int keep_named_fds(int nfds, char *const argv[], bool only)
{
	static const char *const prefixes[] = { "/proc/self/fd/", "/dev/fd/" };

	if (only && close_range((unsigned)nfds, ~0u, CLOSE_RANGE_CLOEXEC))
		return errno;
	for (char *const *a = argv; *a; a++)
		for (const char *p = *a; *p; p++)
			for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
				const char *x = prefixes[k], *q = p;
				int fd;

				while (*x && *q == *x)
					x++, q++;
				if (!*x && (fd = fd_number(q)) >= nfds)
					(void)fcntl(fd, F_SETFD, 0);	/* not open: nothing */
			}
	return 0;
}

/* In the child, once in a process group of its own: discards the stop
 * signals still pending (blocked since the fork) that were sent to the
 * group it left, e.g. a Ctrl-C that came between fork and setpgid; the
 * parent got them too and decides. Setting SIG_IGN discards a pending
 * signal; the disposition inherited is then put back. */
static void leave_group_signals(void)
{
	static const int group[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	sigemptyset(&ign.sa_mask);
	for (size_t i = 0; i < sizeof(group) / sizeof(group[0]); i++)
		if (!sigaction(group[i], &ign, &old))
			sigaction(group[i], &old, NULL);
}

/* In the child (async-signal-safe calls only): sets it up as S says and
 * execs ENVP; reports a failure through ERRFD (close-on-exec). */
static _Noreturn void child(const struct spawn *s, char *const envp[], pid_t parent, int errfd)
{
	/* the caller's own SIG_IGN is not the child's; the user's is */
	struct sigaction sa = { .sa_handler = s->ignore_sigpipe || sig_ignored_at_start(SIGPIPE) ?
					      SIG_IGN : SIG_DFL };
	sigset_t none;
	int err, exec_fd = -1;

	/* above the fds to place, so that placing them cannot close it */
	errfd = fcntl(errfd, F_DUPFD_CLOEXEC, SPAWN_MAX_FDS);
	if (errfd < 0)
		_exit(127);
	/* the same for the program's file */
	if (s->exec_fd > 0 && (exec_fd = fcntl(s->exec_fd, F_DUPFD_CLOEXEC, SPAWN_MAX_FDS)) < 0)
		child_failed(errfd, errno);
	if (s->new_pgroup) {
		if (setpgid(0, 0))
			child_failed(errfd, errno);
		leave_group_signals();
	}
	if (s->death_signal) {
		if (prctl(PR_SET_PDEATHSIG, s->death_signal))
			child_failed(errfd, errno);
		if (getppid() != parent)	/* it died before the prctl */
			_exit(127);
	}
	/* after those: the setup may go on in a child of this process (tmpview.h) */
	if (s->setup && (err = s->setup(s->setup_arg)))
		child_failed(errfd, err);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	/* before the fds are placed, which may take CWD_FD's number */
	if (s->cwd_fd > 0 && fchdir(s->cwd_fd))
		child_failed(errfd, errno);
	err = place_fds(s);
	if (!err && !s->inherit_env)
		err = keep_named_fds(s->nfds, s->argv, s->env_user != NULL);
	if (err)
		child_failed(errfd, err);
	if (s->no_aslr && personality((unsigned long)personality(0xffffffff) |
				      ADDR_NO_RANDOMIZE) < 0)
		child_failed(errfd, errno);
	if (s->trace_me && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		child_failed(errfd, errno);
	if (exec_fd >= 0)
		fexecve(exec_fd, s->argv, envp);
	else if (s->search_path)
		execvpe(s->path, s->argv, envp);
	else
		execve(s->path, s->argv, envp);
	child_failed(errfd, errno);
}

/* Reaps the failed child PID (killing it first: a traced one may be stopped). */
static void reap_failed(pid_t pid)
{
	int status;
	pid_t r;

	kill(pid, SIGKILL);
	do
		r = waitpid(pid, &status, 0);
	while ((r < 0 && errno == EINTR) || (r == pid && WIFSTOPPED(status)));
}

/* Reads from FD what child PID reports of its exec into *ERR (read(2)'s
 * return). A child stopped before its exec would never report: one that
 * became another user (runas.h) is that user's to stop (hostile17's
 * kill(-1, SIGSTOP) loop), and so is a pid namespace's first process, the
 * grandchild that becomes her and execs while the child stays ours
 * (tmpview.h; hostile18 NEW 2). The wait looks at the child's whole tree
 * with the helpers' one stop watch (run_held_stopped()): stopped for
 * RUN_STOPPED_MS, the start fails, -ETIME (the caller's reap_failed()
 * kills the child; the namespace's first process dies with it,
 * PR_SET_PDEATHSIG; S->stopped says which was stopped). */
static ssize_t read_exec_report(const struct spawn *s, pid_t pid, int fd, int *err)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct run_stopwatch w = { 0, 0 };

	for (;;) {
		int r = poll(&p, 1, 100);

		if (r > 0) {
			ssize_t n;

			do
				n = read(fd, err, sizeof(*err));
			while (n < 0 && errno == EINTR);
			return n;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (run_held_stopped(pid, &w)) {
			if (s->stopped)
				*s->stopped = run_stopped(pid);
			*err = ETIME;
			return (ssize_t)sizeof(*err);
		}
	}
}

pid_t spawn_start(const struct spawn *s)
{
	char **envp = environ, **built = NULL;
	int errpipe[2], child_err = 0;
	pid_t parent = getpid(), pid;
	ssize_t n;

	if (s->nfds < 0 || s->nfds > SPAWN_MAX_FDS)
		return -EINVAL;
	if (!s->inherit_env) {
		envp = built = childenv_build(s->env, s->env_user);
		if (!envp)
			return -ENOMEM;
	}
	if (pipe2(errpipe, O_CLOEXEC)) {
		int err = -errno;

		free(built);
		return err;
	}
	pid = fork();
	if (pid == 0)
		child(s, envp, parent, errpipe[1]);
	if (pid < 0)
		pid = -errno;
	free(built);
	close(errpipe[1]);
	/* EOF: the exec closed the write end; an int: why the child failed */
	n = pid > 0 ? read_exec_report(s, pid, errpipe[0], &child_err) : 0;
	close(errpipe[0]);
	if (n == (ssize_t)sizeof(child_err) && child_err > 0) {
		reap_failed(pid);
		return -child_err;
	}
	return pid;
}
