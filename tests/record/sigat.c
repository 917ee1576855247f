/* SPDX-License-Identifier: MIT */
/*
 * sigat: runs a command and sends it SIGTERM at a given moment of its start,
 * for tests/record/frontend.test.sh (early signals):
 *
 *   sigat -1 CMD [ARG...]   SIGTERM is pending (and blocked) when CMD is
 *                           exec'd: it came before CMD's first instruction
 *   sigat US CMD [ARG...]   SIGTERM US microseconds after CMD first handles
 *                           it (its /proc status shows SIGTERM blocked or
 *                           caught: the program ran its first lines)
 *   sigat +US CMD [ARG...]  SIGTERM US microseconds after CMD's exec
 *                           succeeded, whatever CMD did by then (a shell
 *                           `cmd & kill $!`: the window before a program
 *                           handles signals, e.g. bash's start), or when it
 *                           first handles it if that is later: before, no
 *                           program can, and a loaded machine may not run
 *                           CMD for US (it once took over 10 ms)
 *
 * CMD runs with SIGTERM at its default action. Prints nothing; exits with
 * CMD's exit status, 128 + N when signal N killed it, 125 when CMD never
 * handled SIGTERM within 10 s (then it is killed), 127 when it cannot run.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Whether process PID has SIGTERM blocked or caught (its /proc status). */
static int handles_term(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask;
	int yes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if ((sscanf(line, "SigBlk: %llx", &mask) == 1 || sscanf(line, "SigCgt: %llx", &mask) == 1) &&
		    (mask & (1ull << (SIGTERM - 1))))
			yes = 1;
	fclose(f);
	return yes;
}

int main(int argc, char **argv)
{
	long us = argc > 2 ? strtol(argv[1], NULL, 10) : 0;
	int after_exec = argc > 2 && argv[1][0] == '+', seen[2];
	char c;
	struct timespec poll = { 0, 20000 };
	sigset_t term;
	pid_t pid;
	int st, i;

	if (argc < 3) {
		fprintf(stderr, "usage: sigat -1|US CMD [ARG...]\n");
		return 2;
	}
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	/* closed on exec: end of file on seen[0] once the exec succeeded */
	if (pipe2(seen, O_CLOEXEC))
		return 127;
	pid = fork();
	if (pid == 0) {
		if (us < 0) {
			sigprocmask(SIG_BLOCK, &term, NULL);
			raise(SIGTERM);
		}
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (pid < 0)
		return 127;
	close(seen[1]);
	if (after_exec) {
		struct timespec d = { us / 1000000, us % 1000000 * 1000 };

		while (read(seen[0], &c, 1) > 0)
			;
		nanosleep(&d, NULL);
		us = handles_term(pid) ? -1 : 0;
		if (us < 0)
			kill(pid, SIGTERM);   /* sent */
	}
	for (i = 0; us >= 0 && i < 500000 && !handles_term(pid); i++)
		nanosleep(&poll, NULL);
	if (us >= 0 && !handles_term(pid)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 125;
	}
	if (us >= 0) {
		struct timespec d = { us / 1000000, us % 1000000 * 1000 };

		nanosleep(&d, NULL);
		kill(pid, SIGTERM);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
