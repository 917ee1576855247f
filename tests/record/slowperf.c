/* SPDX-License-Identifier: MIT */
/*
 * slowperf: a perf that says where it is and waits 1 s before becoming
 * perf, for tests/record/lifecycle.test.sh: the "starting" phase of a
 * recording (the recorder's --perf) and a slow perf script (the
 * converter's --perf).
 *
 *   SLOWPERF_LOG=FILE SLOWPERF_PERF=PERF slowperf ARGS...
 *
 * Appends "PID ARG1" to FILE, sleeps 1 s unless ARG1 is --version (with
 * SLOWPERF_VERSION=wait in the environment: --version too, the recorder's
 * probe of perf), then execs PERF (a path) with ARGS. SIGINT, SIGTERM and SIGHUP take their
 * default action on it, however it was started (a background job of a
 * script starts with SIGINT ignored), so that a signal ends it at once.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int version_waits(void)
{
	const char *v = getenv("SLOWPERF_VERSION");

	return v && !strcmp(v, "wait");
}

int main(int argc, char **argv)
{
	const char *perf = getenv("SLOWPERF_PERF"), *path = getenv("SLOWPERF_LOG");
	struct timespec one = { 1, 0 };
	FILE *log;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (!perf || !path) {
		fprintf(stderr, "slowperf: expected SLOWPERF_PERF and SLOWPERF_LOG\n");
		return 127;
	}
	log = fopen(path, "a");
	if (log) {
		/* the command, after perf's global --buildid-dir DIR */
		int cmd = argc > 3 && !strcmp(argv[1], "--buildid-dir") ? 3 : 1;

		fprintf(log, "%d %s\n", (int)getpid(), argc > cmd ? argv[cmd] : "");
		fclose(log);
	}
	if (argc > 1 && (strcmp(argv[1], "--version") || version_waits()))
		nanosleep(&one, NULL);
	argv[0] = (char *)perf;
	execv(perf, argv);
	perror(perf);
	return 127;
}
