/* SPDX-License-Identifier: MIT */
/*
 * sigdfl: runs a command with SIGINT, SIGQUIT, SIGTERM and SIGHUP at their
 * default action and unblocked.
 *
 *	sigdfl [-s] CMD [ARG...]
 *
 * A signal ignored when a shell starts (nohup; a background job of a
 * script, which starts with SIGINT and SIGQUIT ignored) stays ignored in
 * every child and cannot be reset from bash ("trap - INT" does nothing
 * there): tests/run.sh starts every suite through this, so a test of what
 * a signal does never depends on how the suite was started. Exec'd in
 * place: CMD keeps its pid, environment and file descriptors. -s: also in
 * a session of its own (setsid(2), as setsid(1) starts a command; where
 * the caller already leads a process group it stays in its own), one
 * process less for each suite the runner starts. Exits 127 with one line
 * on stderr when CMD cannot be run, 2 on a usage error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int reset[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };

int main(int argc, char **argv)
{
	sigset_t set;
	int session = argc > 1 && strcmp(argv[1], "-s") == 0;

	if (argc < 2 + session) {
		fprintf(stderr, "usage: sigdfl [-s] CMD [ARG...]\n");
		return 2;
	}
	if (session && setsid() < 0 && errno != EPERM) {
		fprintf(stderr, "sigdfl: setsid: %s\n", strerror(errno));
		return 127;
	}
	argv += session;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++) {
		signal(reset[i], SIG_DFL);
		sigaddset(&set, reset[i]);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "sigdfl: cannot run %s: %s\n", argv[1], strerror(errno));
	return 127;
}
