/* SPDX-License-Identifier: MIT */
/*
 * sigdfl: runs a command with SIGINT, SIGQUIT, SIGTERM and SIGHUP at their
 * default action and unblocked.
 *
 *	sigdfl CMD [ARG...]
 *
 * A signal ignored when a shell starts (nohup; a background job of a
 * script, which starts with SIGINT and SIGQUIT ignored) stays ignored in
 * every child and cannot be reset from bash ("trap - INT" does nothing
 * there): tests/run.sh starts every suite through this, so a test of what
 * a signal does never depends on how the suite was started. Exec'd in
 * place: CMD keeps its pid, environment and file descriptors. Exits 127
 * with one line on stderr when CMD cannot be run, 2 on a usage error.
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

	if (argc < 2) {
		fprintf(stderr, "usage: sigdfl CMD [ARG...]\n");
		return 2;
	}
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
