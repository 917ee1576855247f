/* SPDX-License-Identifier: MIT */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child after a failed exec: says why on its stderr (which a caller
 * may capture), with write() alone, and exits 127. */
static _Noreturn void exec_failed(const char *prog, int err)
{
	char *why = strerror(err);
	struct iovec line[] = {
		{ (char *)prog, strlen(prog) }, { ": ", 2 }, { why, strlen(why) }, { "\n", 1 },
	};
	(void)writev(STDERR_FILENO, line, 4);	/* nothing more to do if stderr is gone */
	_exit(127);
}

pid_t run_start(char *const argv[], int out_fd, int err_fd)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		if (out_fd != STDOUT_FILENO)
			dup2(out_fd, STDOUT_FILENO);
		if (err_fd != STDERR_FILENO)
			dup2(err_fd, STDERR_FILENO);
		setenv("PAGER", "cat", 1);
		execvp(argv[0], argv);
		exec_failed(argv[0], errno);
	}
	return pid;
}

pid_t run_spawn(char *const argv[], int err_fd, int *fd)
{
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = run_start(argv, pipefd[1], err_fd < 0 ? pipefd[1] : err_fd);
	close(pipefd[1]);
	if (pid < 0)
		close(pipefd[0]);
	else
		*fd = pipefd[0];
	return pid;
}

/* waitpid(PID, FLAGS) as run_wait() and run_try_wait() return it. */
static int wait_for(pid_t pid, int flags)
{
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, flags)) < 0)
		if (errno != EINTR)
			return -errno;
	if (r == 0)
		return -EAGAIN;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int run_wait(pid_t pid)
{
	return wait_for(pid, 0);
}

int run_try_wait(pid_t pid)
{
	return wait_for(pid, WNOHANG);
}

int run_capture(char *const argv[], char *buf, size_t size)
{
	size_t len = 0;
	int fd;
	pid_t pid = run_spawn(argv, -1, &fd);

	if (size)
		buf[0] = '\0';
	if (pid < 0)
		return (int)pid;
	for (;;) {
		char tmp[4096];
		ssize_t n = read(fd, tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (size && len + 1 < size) {
			size_t take = (size_t)n;

			if (take > size - 1 - len)
				take = size - 1 - len;
			memcpy(buf + len, tmp, take);
			len += take;
			buf[len] = '\0';
		}
	}
	close(fd);
	return run_wait(pid);
}
