/* SPDX-License-Identifier: MIT */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runas.h"
#include "signals.h"
#include "spawn.h"
#include "tmpview.h"

/* spawn's setup: into the view ARG. */
static int enter_view(const void *arg)
{
	return tmpview_enter(arg);
}

/* run_start() and run_spawn(); OWN_PGROUP: the child in a process group of
 * its own, out of reach of the signals a terminal sends to ours; CWD_FD its
 * working directory (run.h: 0 "/", RUN_CWD_CALLER ours); VIEW its /tmp
 * (NULL: ours). */
static pid_t start(char *const argv[], int out_fd, int err_fd, bool own_pgroup, int cwd_fd,
		   const struct tmpview *view, pid_t *stopped)
{
	static const char *const pager[] = { "PAGER=cat", NULL };
	char prog[PATH_MAX];
	int root = -1, image = 0, err;
	pid_t pid;
	struct spawn s = {
		.path = argv[0], .argv = argv, .search_path = true, .env = pager,
		.nfds = 3, .fds = { SPAWN_DEVNULL, out_fd, err_fd },
		.cwd_fd = cwd_fd == RUN_CWD_CALLER ? 0 : cwd_fd, .new_pgroup = own_pgroup,
		.death_signal = SIGTERM, .setup = view ? enter_view : NULL, .setup_arg = view,
		.ignore_sigpipe = err_fd == STDERR_FILENO,
		.env_user = view && view->as.on ? &view->as.uid : NULL, .stopped = stopped,
	};

	if (cwd_fd != RUN_CWD_CALLER) {
		/* found from here, as the caller named it (PATH's "." included) */
		err = run_find_program(argv[0], prog, sizeof(prog));
		if (err)
			return err;
		s.path = prog;
		s.search_path = false;
	}
	/* run as another user: from an image they may not read, not theirs to
	 * ptrace (runas_image(); a script or no such image: from its path) */
	if (s.env_user) {
		char found[PATH_MAX];

		image = s.search_path ? run_find_program(s.path, found, sizeof(found)) : 0;
		if (!image)
			image = runas_image(s.search_path ? found : s.path);
		if (image < 0 && image != -ENOEXEC && image != -ENOSYS)
			return image;
		s.exec_fd = image > 0 ? image : 0;
	}
	if (cwd_fd == 0) {
		root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0) {
			err = -errno;
			if (image > 0)
				close(image);
			return err;
		}
		s.cwd_fd = root;
	}
	pid = spawn_start(&s);
	if (root >= 0)
		close(root);
	if (image > 0)
		close(image);
	return pid;
}

static pid_t start_piped(char *const argv[], int err_fd, int *fd, bool own_pgroup, int cwd_fd,
			 const struct tmpview *view, pid_t *stopped)
{
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = start(argv, pipefd[1], err_fd < 0 ? pipefd[1] : err_fd, own_pgroup, cwd_fd, view,
		    stopped);
	close(pipefd[1]);
	if (pid < 0)
		close(pipefd[0]);
	else
		*fd = pipefd[0];
	return pid;
}

pid_t run_start(char *const argv[], int out_fd, int err_fd, int cwd_fd, bool own_pgroup,
		const struct tmpview *view, pid_t *stopped)
{
	return start(argv, out_fd, err_fd, own_pgroup, cwd_fd, view, stopped);
}

pid_t run_spawn(char *const argv[], int err_fd, int *fd, int cwd_fd, bool own_pgroup,
		const struct tmpview *view, pid_t *stopped)
{
	return start_piped(argv, err_fd, fd, own_pgroup, cwd_fd, view, stopped);
}

ssize_t run_read(pid_t pid, int fd, void *buf, size_t cap)
{
	struct run_stopwatch w = { 0, 0 };

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int r = poll(&pf, 1, STOP_LOOK_MS);
		ssize_t n;

		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0) {
			do
				n = read(fd, buf, cap);
			while (n < 0 && errno == EINTR);
			return n;
		}
		if (r == 0 && run_held_stopped(pid, &w)) {
			errno = ETIME;
			return -1;
		}
	}
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
	return run_status_of(status);
}

int run_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return RUN_KILLED_BY + WTERMSIG(status);
}

const char *run_status_words(int st, char *buf, size_t size)
{
	char name[32];

	if (st == -ETIME)
		snprintf(buf, size, "stayed stopped %d s: given up", RUN_STOPPED_MS / 1000);
	else if (st < 0)
		snprintf(buf, size, "could not be waited for: %s", strerror(-st));
	else if (st >= RUN_KILLED_BY)
		snprintf(buf, size, "was killed by signal %d (%s)", st - RUN_KILLED_BY,
			 sig_name(st - RUN_KILLED_BY, name, sizeof(name)));
	else
		snprintf(buf, size, "exited with status %d", st);
	return buf;
}

const char *run_start_words(int err, pid_t stopped, const char *who, char *buf, size_t size)
{
	if (err == -ETIME)
		snprintf(buf, size, "pid %d stopped for %d s before its exec (a stop signal or a "
			 "debugger%s): given up", (int)stopped, RUN_STOPPED_MS / 1000, who);
	else
		snprintf(buf, size, "%s", strerror(-err));
	return buf;
}

int run_wait_stopped(pid_t pid, pid_t *stopped)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0);	/* close-on-exec: always */
	struct run_stopwatch w = { 0, 0 };
	int st = -ETIME;

	if (stopped)
		*stopped = 0;
	if (pidfd < 0)	/* no pidfd (Linux < 5.3): a plain wait */
		return wait_for(pid, 0);
	for (;;) {
		struct pollfd pf = { .fd = (int)pidfd, .events = POLLIN };
		int r = poll(&pf, 1, STOP_LOOK_MS);

		if (r > 0 || (r < 0 && errno != EINTR)) {
			st = wait_for(pid, 0);
			break;
		}
		if (r == 0 && run_held_stopped(pid, &w)) {
			if (stopped)
				*stopped = run_stopped(pid);
			kill(pid, SIGKILL);	/* our child; a pid namespace's first process goes with it */
			(void)wait_for(pid, 0);
			break;
		}
	}
	close((int)pidfd);
	return st;
}

int run_wait(pid_t pid)
{
	return run_wait_stopped(pid, NULL);
}

int run_end(pid_t pid)
{
	kill(pid, run_stopped(pid) ? SIGKILL : SIGTERM);
	return run_wait(pid);
}

int run_try_wait(pid_t pid)
{
	return wait_for(pid, WNOHANG);
}

int run_capture(char *const argv[], char *buf, size_t size)
{
	return run_capture_in(0, NULL, argv, buf, size);
}

int run_capture_in(int cwd_fd, const struct tmpview *view, char *const argv[], char *buf,
		   size_t size)
{
	size_t len = 0;
	int fd, st;
	bool gave_up = false;
	pid_t stopped = 0, pid = start_piped(argv, -1, &fd, true, cwd_fd, view, &stopped);

	if (size)
		buf[0] = '\0';
	if (pid < 0) {
		char why[128];

		snprintf(buf, size, "%s: %s", argv[0],
			 run_start_words((int)pid, stopped, "", why, sizeof(why)));
		return (int)pid;
	}
	for (;;) {
		char tmp[4096];
		ssize_t n = run_read(pid, fd, tmp, sizeof(tmp));

		if (n < 0 && errno == ETIME) {
			stopped = run_stopped(pid);
			run_end(pid);
			gave_up = true;
			break;
		}
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
	st = gave_up ? -ETIME : run_wait_stopped(pid, &stopped);
	if (st == -ETIME)
		snprintf(buf, size, "%s (pid %d): stopped for %d s (a stop signal or a debugger): "
			 "given up", argv[0], (int)stopped, RUN_STOPPED_MS / 1000);
	return st;
}

int run_find_sibling(const char *name, char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	self[n] = '\0';
	snprintf(out, size, "%s/%s", dirname(self), name);
	return access(out, X_OK) ? -ENOENT : 0;
}

/* What is at PATH as a program: 0 (an executable regular file), or
 * run_find_program()'s negative errno. */
static int program_at(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -ENOENT;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	return access(path, X_OK) ? -EACCES : 0;
}

int run_find_program(const char *want, char *out, size_t size)
{
	const char *path, *p, *colon;
	char buf[PATH_MAX];
	int err, first = -ENOENT;

	if (!want || !*want)
		return -ENOENT;
	if (strchr(want, '/')) {
		err = program_at(want);
		if (err)
			return err;
		if (!realpath(want, buf))
			return -errno;
		snprintf(out, size, "%s", buf);
		return 0;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	for (p = path; *p; p = colon + 1) {
		size_t n;

		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		n = (size_t)(colon - p);
		if (n == 0)
			snprintf(buf, sizeof(buf), "./%s", want);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, want);
		err = program_at(buf);
		if (!err) {
			char real[PATH_MAX];

			if (!realpath(buf, real))
				return -errno;
			snprintf(out, size, "%s", real);
			return 0;
		}
		if (first == -ENOENT)
			first = err;
		if (!*colon)
			break;
	}
	return first;
}

const char *run_found(int err)
{
	switch (err) {
	case -EACCES:
		return "a file that is not executable";
	case -EISDIR:
		return "a directory";
	case -ENOEXEC:
		return "no regular file";
	default:
		return "none";
	}
}
