/* SPDX-License-Identifier: MIT */
/* Unit tests of common/spawn.c (the one child-process setup) and of
 * common/run.c over it: what the child gets, and how failures come back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "signals.h"
#include "spawn.h"
#include "unit.h"

/* Reads FD to EOF into BUF (SIZE bytes, NUL-terminated); closes FD. */
static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && ((n = read(fd, buf + len, size - 1 - len)) > 0 ||
				  (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	buf[len] = '\0';
	close(fd);
}

/* Starts S with its stdout on a pipe; returns the output in BUF and the
 * wait status, or -1 when it did not start. */
static int output_of(struct spawn *s, char *buf, size_t size)
{
	int p[2], status = -1;
	pid_t pid;

	buf[0] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -1;
	s->fds[1] = p[1];
	if (s->nfds < 2)
		s->nfds = 2;
	pid = spawn_start(s);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	read_all(p[0], buf, size);
	waitpid(pid, &status, 0);
	return status;
}

/* A close-on-exec pipe at fds AT (read) and AT+1 (write), out of the way
 * of the low fds a test places. Returns 0 or -1. */
static int high_pipe(int p[2], int at)
{
	int q[2];

	if (pipe2(q, O_CLOEXEC))
		return -1;
	p[0] = dup3(q[0], at, O_CLOEXEC);
	p[1] = dup3(q[1], at + 1, O_CLOEXEC);
	close(q[0]);
	close(q[1]);
	return p[0] == at && p[1] == at + 1 ? 0 : -1;
}

/* The value of "KEY:\t..." in /proc/PID/status text BUF, as a number. */
static unsigned long long status_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 16) : ~0ULL;
}

/* ENV entries replace inherited ones of the same name, add the others, and
 * leave the rest; the parent's environment is untouched. */
static void spawn_environment(void)
{
	static const char *const env[] = { "PAGER=cat", "SPAWN_NEW=new", NULL };
	char *argv[] = { "sh", "-c", "echo \"$PAGER $SPAWN_NEW $SPAWN_KEPT $PAGERX\"; "
			 "env | grep -c '^PAGER='", NULL };
	struct spawn s = { .path = "/bin/sh", .argv = argv, .env = env,
			   .nfds = 1, .fds = { SPAWN_DEVNULL } };
	char out[256];

	setenv("PAGER", "less", 1);
	setenv("PAGERX", "x", 1);	/* a longer name with the same start stays */
	setenv("SPAWN_KEPT", "kept", 1);
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK_STR_EQ(out, "cat new kept x\n1\n");
	CHECK_STR_EQ(getenv("PAGER"), "less");
	CHECK(getenv("SPAWN_NEW") == NULL);
	/* run_start sets PAGER=cat over the caller's */
	{
		char *pager[] = { "sh", "-c", "echo $PAGER", NULL };

		CHECK_INT_EQ(run_capture(pager, out, sizeof(out)), 0);
		CHECK_STR_EQ(out, "cat\n");
	}
	unsetenv("PAGER");
	unsetenv("PAGERX");
	unsetenv("SPAWN_KEPT");
}

/* HOME set to DIR, what a helper's sh prints for "$HOME|$TRACEEVENT_PLUGIN_DIR|
 * $PERF_CONFIG|$PERF_EXEC_PATH|$SPAWN_KEPT" into OUT; the traced program's
 * (inherit_env) when INHERIT. */
static void helper_env(const char *dir, bool inherit, char *out, size_t size)
{
	char *argv[] = { "sh", "-c", "echo \"${HOME-unset}|$TRACEEVENT_PLUGIN_DIR|$PERF_CONFIG|"
			 "$PERF_EXEC_PATH|$SPAWN_KEPT\"", NULL };
	struct spawn s = { .path = "/bin/sh", .argv = argv, .inherit_env = inherit,
			   .nfds = 1, .fds = { SPAWN_DEVNULL } };

	setenv("HOME", dir, 1);
	CHECK_INT_EQ(output_of(&s, out, size), 0);
}

/* A helper (every child but the traced program) never gets the variables
 * that name where perf or libtraceevent load code or configuration from,
 * and gets HOME only when it is a directory of ours nobody else may write
 * on a path nobody else may change (childenv.h); else our passwd home
 * under the same rule, else none. The traced program gets all as is. */
static void spawn_helper_environment(void)
{
	char top[] = "/tmp/st-childenv-XXXXXX", own[64], open_dir[64], below[64], link[64];
	char out[PATH_MAX + 64], want[PATH_MAX + 64], passwd_home[PATH_MAX];
	const char *saved = getenv("HOME");
	char *old = saved ? strdup(saved) : NULL;
	struct passwd *pw = getpwuid(geteuid());
	bool pw_safe;

	if (!mkdtemp(top)) {
		UNIT_FAIL("mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(own, sizeof(own), "%s/own", top);
	snprintf(open_dir, sizeof(open_dir), "%s/open", top);
	snprintf(below, sizeof(below), "%s/open/below", top);
	snprintf(link, sizeof(link), "%s/link", top);
	CHECK_INT_EQ(mkdir(own, 0700), 0);
	CHECK_INT_EQ(mkdir(open_dir, 0700), 0);
	CHECK_INT_EQ(chmod(open_dir, 0777), 0);	/* not sticky: below may be renamed */
	CHECK_INT_EQ(mkdir(below, 0700), 0);
	CHECK_INT_EQ(symlink(own, link), 0);
	setenv("TRACEEVENT_PLUGIN_DIR", top, 1);
	setenv("PERF_CONFIG", "/x/perfconfig", 1);
	setenv("PERF_EXEC_PATH", "/x/libexec", 1);
	setenv("SPAWN_KEPT", "kept", 1);
	/* the fallback: our passwd home, when it passes the rule itself */
	pw_safe = pw && pw->pw_dir[0] == '/' && realpath(pw->pw_dir, passwd_home);
	if (pw_safe) {
		struct stat st;

		pw_safe = !stat(passwd_home, &st) && st.st_uid == geteuid() && !(st.st_mode & 022);
	}
	helper_env(own, false, out, sizeof(out));
	snprintf(want, sizeof(want), "%s||||kept\n", own);
	CHECK_STR_EQ(out, want);
	helper_env(link, false, out, sizeof(out));	/* the directory it leads to */
	CHECK_STR_EQ(out, want);
	helper_env(open_dir, false, out, sizeof(out));	/* others may write it */
	snprintf(want, sizeof(want), "%s||||kept\n", pw_safe ? passwd_home : "unset");
	CHECK_STR_EQ(out, want);
	helper_env(below, false, out, sizeof(out));	/* others may rename it away */
	CHECK_STR_EQ(out, want);
	helper_env("relative", false, out, sizeof(out));
	CHECK_STR_EQ(out, want);
	{	/* a HOME given over the environment is the one HOME */
		static const char *const given[] = { "HOME=/given", NULL };
		char *argv[] = { "sh", "-c", "env | grep -c '^HOME='; echo $HOME", NULL };
		struct spawn s = { .path = "/bin/sh", .argv = argv, .env = given,
				   .nfds = 1, .fds = { SPAWN_DEVNULL } };

		setenv("HOME", own, 1);	/* one a helper would get */
		CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
		CHECK_STR_EQ(out, "1\n/given\n");
	}
	helper_env(open_dir, true, out, sizeof(out));
	snprintf(want, sizeof(want), "%s|%s|/x/perfconfig|/x/libexec|kept\n", open_dir, top);
	CHECK_STR_EQ(out, want);
	CHECK_STR_EQ(getenv("PERF_CONFIG"), "/x/perfconfig");	/* ours untouched */
	unsetenv("TRACEEVENT_PLUGIN_DIR");
	unsetenv("PERF_CONFIG");
	unsetenv("PERF_EXEC_PATH");
	unsetenv("SPAWN_KEPT");
	if (old)
		setenv("HOME", old, 1);
	else
		unsetenv("HOME");
	free(old);
	unlink(link);
	rmdir(below);
	rmdir(open_dir);
	rmdir(own);
	rmdir(top);
}

/* A missing program comes back as -ENOENT from the parent's call, the
 * child reaped; run_capture says "ARGV0: REASON". */
static void spawn_exec_error(void)
{
	char *argv[] = { "/nonexistent/prog", NULL }, *bare[] = { "no-such-prog-st", NULL };
	char out[256];
	struct spawn s = { .path = argv[0], .argv = argv };
	struct spawn p = { .path = bare[0], .argv = bare, .search_path = true };

	CHECK_INT_EQ(spawn_start(&s), -ENOENT);
	CHECK_INT_EQ(spawn_start(&p), -ENOENT);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	CHECK_INT_EQ(run_capture(argv, out, sizeof(out)), -ENOENT);
	CHECK_STR_EQ(out, "/nonexistent/prog: No such file or directory");
	/* a directory: execve's EACCES */
	s.path = argv[0] = "/";
	CHECK_INT_EQ(spawn_start(&s), -EACCES);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* exec_fd: the program is the open file, whatever PATH says (runas_image()'s
 * copy is exec'd so); one that cannot be exec'd fails the start with
 * fexecve()'s errno. The fd the program is given as may be one the child's
 * fds are placed at (0..nfds-1): it is moved out of their way first. */
static void spawn_exec_fd(void)
{
	char *argv[] = { "echo", "from-the-fd", NULL };
	char out[256];
	int fd = open("/bin/echo", O_RDONLY | O_CLOEXEC), dir = open("/", O_RDONLY | O_CLOEXEC);
	int saved, status;
	struct spawn s = { .path = "/nonexistent/echo", .argv = argv, .exec_fd = fd };

	CHECK(fd > 2 && dir > 2);
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK_STR_EQ(out, "from-the-fd\n");
	/* at fd 1, where the child's stdout is placed */
	saved = dup(1);
	CHECK(saved >= 0 && dup2(fd, 1) == 1);
	s.exec_fd = 1;
	s.nfds = 3;
	s.fds[0] = SPAWN_DEVNULL;
	s.fds[2] = SPAWN_DEVNULL;
	status = output_of(&s, out, sizeof(out));
	CHECK(dup2(saved, 1) == 1);
	close(saved);
	CHECK_INT_EQ(status, 0);
	CHECK_STR_EQ(out, "from-the-fd\n");
	s.exec_fd = dir;
	s.nfds = 0;
	CHECK_INT_EQ(spawn_start(&s), -EACCES);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	close(fd);
	close(dir);
}

/* A failure of the child's setup (here a bad fd to place) comes back too. */
static void spawn_setup_error(void)
{
	char *argv[] = { "true", NULL };
	struct spawn s = { .path = "/bin/true", .argv = argv, .nfds = 1, .fds = { 1000 } };

	CHECK(fcntl(1000, F_GETFD) < 0);
	CHECK_INT_EQ(spawn_start(&s), -EBADF);
	s.nfds = SPAWN_MAX_FDS + 1;
	CHECK_INT_EQ(spawn_start(&s), -EINVAL);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* spawn's setup for spawn_grandchild_stopped(): as tmpview's pid
 * namespace (tmpview_enter()), the child stays outside waiting and a child
 * of it goes on to the exec; that grandchild (another user's, who may stop
 * it) writes its pid to *ARG, a pipe, and stops before its exec. */
static int stop_in_grandchild(const void *arg)
{
	int fd = *(const int *)arg, status;
	pid_t pid = fork();

	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	if (pid < 0)
		return errno;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return errno;
	pid = getpid();
	if (write(fd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		return EIO;
	raise(SIGSTOP);
	return 0;
}

/* A process the child started, stopped before its exec (hostile18 NEW 2:
 * the pid namespace's first process, hers, stopped between its uid change
 * and its exec, while the child, ours, waits), fails the start after the
 * stop watch's RUN_STOPPED_MS with -ETIME instead of a wait for ever; the
 * stopped grandchild, named in .stopped, is ended with the child. (An
 * alarm ends the test where the start would wait for ever.) */
static void spawn_grandchild_stopped(void)
{
	char *argv[] = { "true", NULL };
	int p[2];
	pid_t grandchild = 0, stopped = 0;
	struct spawn s = { .path = "/bin/true", .argv = argv, .setup = stop_in_grandchild,
			   .stopped = &stopped };

	CHECK_INT_EQ(pipe2(p, O_CLOEXEC), 0);
	s.setup_arg = &p[1];
	alarm(60);
	CHECK_INT_EQ(spawn_start(&s), -ETIME);
	alarm(0);
	close(p[1]);
	CHECK(read(p[0], &grandchild, sizeof(grandchild)) == (ssize_t)sizeof(grandchild));
	close(p[0]);
	CHECK_INT_EQ(stopped, grandchild);	/* the one named as given up */
	for (int i = 0; i < 200 && grandchild > 0 && !kill(grandchild, 0); i++)
		usleep(10000);	/* killed by its death signal; reaped by init */
	CHECK(grandchild > 0 && kill(grandchild, 0) < 0 && errno == ESRCH);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* fds are placed even when the sources sit where others go (3 and 4
 * swapped), stdin from /dev/null, and close-on-exec fds not placed stay
 * closed. */
static void spawn_fds(void)
{
	char *argv[] = { "sh", "-c", "cat; echo three >&3; echo four >&4; "
			 "{ echo five >&5; } 2>/dev/null || echo closed", NULL };
	int a[2], b[2], c[2];
	char out[64], three[64], four[64];
	struct spawn s = { .path = "/bin/sh", .argv = argv, .nfds = 5 };

	/* a's write end at fd 4, b's at fd 3, c's at 5 (close-on-exec all) */
	CHECK_INT_EQ(high_pipe(a, 20), 0);
	CHECK_INT_EQ(high_pipe(b, 22), 0);
	CHECK_INT_EQ(high_pipe(c, 24), 0);
	CHECK_INT_EQ(dup3(a[1], 4, O_CLOEXEC), 4);
	CHECK_INT_EQ(dup3(b[1], 3, O_CLOEXEC), 3);
	CHECK_INT_EQ(dup3(c[1], 5, O_CLOEXEC), 5);   /* not placed: closed in the child */
	s.fds[0] = SPAWN_DEVNULL;
	s.fds[2] = STDERR_FILENO;
	s.fds[3] = 4;	/* child's 3 := a */
	s.fds[4] = 3;	/* child's 4 := b */
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	close(a[1]);
	close(b[1]);
	close(c[1]);
	close(3);
	close(4);
	close(5);
	read_all(a[0], three, sizeof(three));
	read_all(b[0], four, sizeof(four));
	read_all(c[0], out + strlen(out), sizeof(out) - strlen(out));
	CHECK_STR_EQ(out, "closed\n");
	CHECK_STR_EQ(three, "three\n");
	CHECK_STR_EQ(four, "four\n");
}

/* A helper gets the close-on-exec fd its argv names (/proc/self/fd/N); the
 * parent's inheritable one too, unless it runs as another user (env_user),
 * who gets nothing but what is named; the traced program (inherit_env) gets
 * no fd for being named. */
static void spawn_named_fds(void)
{
	char *argv[] = { "sh", "-c", "{ echo named >/proc/self/fd/30; } 2>/dev/null || echo shut; "
			 "{ echo other >&8; } 2>/dev/null || echo closed", NULL };
	const uid_t me = getuid();
	const struct { bool inherit_env; const uid_t *user; const char *out, *named, *other; } cases[] = {
		{ false, NULL, "", "named\n", "other\n" },
		{ false, &me, "closed\n", "named\n", "" },
		{ true, NULL, "shut\n", "", "other\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spawn s = { .path = "/bin/sh", .argv = argv, .nfds = 3,
				   .fds = { SPAWN_DEVNULL, -1, STDERR_FILENO },
				   .inherit_env = cases[i].inherit_env, .env_user = cases[i].user };
		int named[2], other[2];
		char out[64], got_named[64], got_other[64];

		CHECK_INT_EQ(high_pipe(named, 29), 0);	/* write end 30, close-on-exec */
		CHECK_INT_EQ(high_pipe(other, 7), 0);	/* write end 8 (sh: one digit), inheritable */
		CHECK_INT_EQ(fcntl(other[1], F_SETFD, 0), 0);
		CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
		close(named[1]);
		close(other[1]);
		read_all(named[0], got_named, sizeof(got_named));
		read_all(other[0], got_other, sizeof(got_other));
		CHECK_STR_EQ(out, cases[i].out);
		CHECK_STR_EQ(got_named, cases[i].named);
		CHECK_STR_EQ(got_other, cases[i].other);
	}
}

/* The child's signal mask is empty and SIGPIPE as asked, whatever the
 * parent's; it gets a process group of its own when asked. */
static void spawn_signals_pgroup(void)
{
	char *argv[] = { "cat", "/proc/self/status", NULL };
	char *stat[] = { "cat", "/proc/self/stat", NULL };
	struct spawn s = { .path = "/bin/cat", .argv = argv, .nfds = 1, .fds = { SPAWN_DEVNULL } };
	char out[4096];
	sigset_t block, old;
	int pid, pgrp;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGPIPE, SIG_IGN);
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK_U64_EQ(status_field(out, "SigBlk:"), 0);
	CHECK_U64_EQ(status_field(out, "SigIgn:") & (1ULL << (SIGPIPE - 1)), 0);
	s.ignore_sigpipe = true;
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK_U64_EQ(status_field(out, "SigIgn:") & (1ULL << (SIGPIPE - 1)), 1ULL << (SIGPIPE - 1));
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	s.argv = stat;
	s.ignore_sigpipe = false;
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK(sscanf(out, "%d (cat) %*c %*d %d", &pid, &pgrp) == 2 && pgrp == getpgrp());
	s.new_pgroup = true;
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK(sscanf(out, "%d (cat) %*c %*d %d", &pid, &pgrp) == 2 && pgrp == pid);
}

/* Set while spawn_group_signals runs: the child of each fork finds a
 * SIGINT and a SIGTERM pending, as when a terminal's Ctrl-C (or a kill
 * to the group) comes between the fork and the child's setpgid. */
static volatile sig_atomic_t group_signal_at_fork;

static void signal_at_fork(void)
{
	if (group_signal_at_fork) {
		kill(getpid(), SIGINT);
		kill(getpid(), SIGTERM);
	}
}

/* new_pgroup: the stop signals sent to the group the child leaves, pending
 * since the fork, are discarded (its parent got them and decides); without
 * it the child dies of them. run_capture() (the probes: perf --version)
 * runs its child in a group of its own. */
static void spawn_group_signals(void)
{
	char *argv[] = { "true", NULL };
	char *stat[] = { "cat", "/proc/self/stat", NULL };
	struct spawn s = { .path = "/bin/true", .argv = argv, .new_pgroup = true };
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_int, old_term;
	sigset_t block, old;
	char out[4096];
	int status = -1, pid, pgrp;
	pid_t child;

	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, &old_int);
	sigaction(SIGTERM, &dfl, &old_term);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	CHECK_INT_EQ(pthread_atfork(NULL, NULL, signal_at_fork), 0);
	group_signal_at_fork = 1;
	for (int own = 1; own >= 0; own--) {
		s.new_pgroup = own;
		child = spawn_start(&s);
		CHECK(child > 0);
		if (child > 0)
			CHECK_INT_EQ(waitpid(child, &status, 0), child);
		if (own)
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		else	/* the test can tell: a child left in the group dies */
			CHECK(WIFSIGNALED(status));
	}
	group_signal_at_fork = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	CHECK_INT_EQ(run_capture(stat, out, sizeof(out)), 0);
	CHECK(sscanf(out, "%d (cat) %*c %*d %d", &pid, &pgrp) == 2 && pgrp == pid);
}

/* trace_me: the child stops with SIGTRAP after its execve, before it runs. */
static void spawn_trace_me(void)
{
	char *argv[] = { "true", NULL };
	struct spawn s = { .path = "/bin/true", .argv = argv, .trace_me = true };
	pid_t pid = spawn_start(&s);
	int status = 0;

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK_INT_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP);
	CHECK_INT_EQ(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0);
	CHECK_INT_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* death_signal: the child ends when the process that started it ends. */
static void spawn_death_signal(void)
{
	int p[2], status;
	pid_t mid, child = 0;

	CHECK_INT_EQ(pipe(p), 0);
	mid = fork();	/* a parent that ends: the child of the test, no exec */
	if (mid == 0) {
		char *argv[] = { "sleep", "60", NULL };
		struct spawn s = { .path = "/bin/sleep", .argv = argv, .death_signal = SIGTERM };
		pid_t pid = spawn_start(&s);

		_exit(write(p[1], &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
	}
	close(p[1]);
	CHECK(mid > 0);
	CHECK_INT_EQ(read(p[0], &child, sizeof(child)), sizeof(child));
	close(p[0]);
	waitpid(mid, &status, 0);
	CHECK(child > 0);
	if (child <= 0)
		return;
	/* gone (or a zombie of its new parent) within 10 s */
	for (int i = 0; i < 1000; i++) {
		char path[64], st[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		f = fopen(path, "r");
		if (!f || !fgets(st, sizeof(st), f) || strstr(st, ") Z ")) {
			if (f)
				fclose(f);
			return;
		}
		fclose(f);
		poll(NULL, 0, 10);
	}
	UNIT_FAIL("the child %d outlived its parent", (int)child);
	kill(child, SIGKILL);
}

/* perf 6.1's path variables of Android and cross builds (a dso path
 * replaced by one under APK_PATH or NDK_ROOT, objdump's CROSS_COMPILE
 * prefix) never reach a helper; the traced program keeps them. */
static void spawn_perf_path_vars(void)
{
	static const char *const vars[] = { "APK_PATH", "NDK_ROOT", "APP_PLATFORM", "APP_ABI",
					    "CROSS_COMPILE" };
	char *argv[] = { "sh", "-c", "echo \"$APK_PATH|$NDK_ROOT|$APP_PLATFORM|$APP_ABI|"
			 "$CROSS_COMPILE\"", NULL };
	struct spawn s = { .path = "/bin/sh", .argv = argv, .inherit_env = true,
			   .nfds = 1, .fds = { SPAWN_DEVNULL } };
	char out[256];

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		setenv(vars[i], "/x", 1);
	CHECK_INT_EQ(run_capture(argv, out, sizeof(out)), 0);
	CHECK_STR_EQ(out, "||||\n");
	CHECK_INT_EQ(output_of(&s, out, sizeof(out)), 0);
	CHECK_STR_EQ(out, "/x|/x|/x|/x|/x\n");
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* A helper runs in "/" (run.h: perf looks for debug files by bare name in
 * its working directory), its program found from the caller's directory
 * first; RUN_CWD_CALLER keeps the caller's. */
static void run_cwd(void)
{
	char dir[] = "/tmp/st-run-cwd-XXXXXX", old[PATH_MAX], prog[PATH_MAX + 8], out[PATH_MAX + 8];
	char *pwd[] = { "sh", "-c", "pwd", NULL }, *rel[] = { "./here.sh", NULL };
	int fd, outfd;
	pid_t pid;

	CHECK(getcwd(old, sizeof(old)) != NULL);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT_EQ(chdir(dir), 0);
	fd = open("here.sh", O_WRONLY | O_CREAT | O_EXCL, 0755);
	CHECK(fd >= 0);
	CHECK(write(fd, "#!/bin/sh\npwd\n", 15) == 15);
	close(fd);
	CHECK_INT_EQ(run_capture(pwd, out, sizeof(out)), 0);
	CHECK_STR_EQ(out, "/\n");
	CHECK_INT_EQ(run_capture(rel, out, sizeof(out)), 0);	/* ./here.sh: ours */
	CHECK_STR_EQ(out, "/\n");
	pid = run_spawn(pwd, STDERR_FILENO, &outfd, RUN_CWD_CALLER, false, NULL, NULL);
	CHECK(pid > 0);
	read_all(outfd, out, sizeof(out));
	CHECK_INT_EQ(run_wait(pid), 0);
	snprintf(prog, sizeof(prog), "%s\n", dir);
	CHECK_STR_EQ(out, prog);
	unlink("here.sh");
	CHECK_INT_EQ(chdir(old), 0);
	rmdir(dir);
}

/* A helper that stays stopped (here by itself; perf run as another user
 * by that user) is given up after RUN_STOPPED_MS, named, and ended: the
 * wait on its output, and the wait for its end once it closed its output. */
static void run_stopped_given_up(void)
{
	char *in_output[] = { "sh", "-c", "echo $$; kill -STOP $$", NULL };
	char *at_end[] = { "sh", "-c", "echo $$; exec >&- 2>&-; kill -STOP $$", NULL };
	char *const *argvs[] = { in_output, at_end };

	for (size_t i = 0; i < 2; i++) {
		char out[256], want[64];
		int pid;

		CHECK_INT_EQ(run_capture(argvs[i], out, sizeof(out)), -ETIME);
		CHECK(sscanf(out, "sh (pid %d): stopped for", &pid) == 1);
		snprintf(want, sizeof(want), "sh (pid %d): stopped for %d s", pid,
			 RUN_STOPPED_MS / 1000);
		CHECK(!strncmp(out, want, strlen(want)));
		CHECK(kill(pid, 0) < 0 && errno == ESRCH);	/* ended and reaped */
	}
}

/* A helper's end in words, from a real wait: an exit status above 128
 * (perf's 234 for -EINVAL) is an exit status, never "killed by signal 106";
 * only a signal that ended it is said as one. */
static void run_status_in_words(void)
{
	static const struct {
		const char *script;
		const char *want;
	} ends[] = {
		{ "exit 234", "exited with status 234" },
		{ "exit 129", "exited with status 129" },
		{ "exit 0", "exited with status 0" },
		{ "kill -KILL $$", "was killed by signal 9 (SIGKILL)" },
		{ "kill -TERM $$", "was killed by signal 15 (SIGTERM)" },
	};

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		char *argv[] = { "sh", "-c", (char *)ends[i].script, NULL }, out[64];
		int st = run_capture(argv, out, sizeof(out));

		CHECK_STR_EQ(run_status_words(st, out, sizeof(out)), ends[i].want);
	}
	CHECK_STR_EQ(run_status_words(-ETIME, (char[64]){ 0 }, 64), "stayed stopped 5 s: given up");
}

int main(void)
{
	sig_note_start();	/* as each program's main(): SIGPIPE below is ours, not the user's */
	UNIT_RUN(spawn_environment);
	UNIT_RUN(spawn_helper_environment);
	UNIT_RUN(spawn_exec_error);
	UNIT_RUN(spawn_exec_fd);
	UNIT_RUN(spawn_setup_error);
	UNIT_RUN(spawn_grandchild_stopped);
	UNIT_RUN(spawn_fds);
	UNIT_RUN(spawn_named_fds);
	UNIT_RUN(run_stopped_given_up);
	UNIT_RUN(run_status_in_words);
	UNIT_RUN(spawn_signals_pgroup);
	UNIT_RUN(spawn_group_signals);
	UNIT_RUN(spawn_trace_me);
	UNIT_RUN(spawn_death_signal);
	UNIT_RUN(run_cwd);
	UNIT_RUN(spawn_perf_path_vars);
	return unit_exit();
}
