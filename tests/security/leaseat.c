/* SPDX-License-Identifier: MIT */
/*
 * leaseat: a user's write lease on a file of theirs, which makes every
 * other open of it, root's included, wait up to fs.lease-break-time
 * (rootsafe's theirs-lease and theirs-perf-prestop; hostile18 NEW 4). Run
 * as that user:
 *   leaseat FILE SECONDS keep|yield [PIDFILE]
 * takes the lease (fcntl F_SETLEASE F_WRLCK on FILE opened read-only: no
 * other open of FILE may exist then), prints "leased" and holds it up to
 * SECONDS, or until SIGTERM or SIGINT. When another open breaks it (the
 * kernel's SIGIO), prints "broken" once; with "keep" it holds on (the
 * kernel takes the lease away after fs.lease-break-time), with "yield" it
 * lets go at once (F_UNLCK), as a lease holder is meant to. With PIDFILE,
 * the break also stops (SIGSTOP) every process of its real uid that
 * descends from the process whose pid PIDFILE holds (the test's own, never
 * another suite's), and prints "stopped N" for each: the one that opens
 * FILE waits in that open, so a process of hers caught in its exec (FILE an
 * interpreter it loads) is stopped before the exec is done (hostile18
 * NEW 2; its argv is still its parent's). Exits 0; 1 when
 * the lease cannot be taken ("cannot lease FILE: ERRNO-NAME"); 2 for a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "procs.h"

/* Stops each process of ours that descends from ANCESTOR, but this one;
 * prints "stopped N" for each. */
static void stop_below(pid_t ancestor)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		long pid = atol(de->d_name);

		if (pid > 0 && pid != getpid() && proc_ours(pid) &&
		    proc_descends((pid_t)pid, ancestor) && !kill((pid_t)pid, SIGSTOP))
			printf("stopped %ld\n", pid);
	}
	if (d)
		closedir(d);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct timespec left = { 0, 0 };
	sigset_t set;
	bool yield, broken = false;
	int fd;

	if ((argc != 4 && argc != 5) || (strcmp(argv[3], "keep") && strcmp(argv[3], "yield"))) {
		fprintf(stderr, "usage: leaseat FILE SECONDS keep|yield [PIDFILE]\n");
		return 2;
	}
	yield = !strcmp(argv[3], "yield");
	left.tv_sec = atoi(argv[2]);
	/* the signals it waits for, blocked before the lease can send one */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK)) {
		printf("cannot lease %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("leased\n");
	fflush(stdout);
	for (;;) {
		struct timespec start, end;
		siginfo_t si;
		int sig;

		clock_gettime(CLOCK_MONOTONIC, &start);
		sig = sigtimedwait(&set, &si, &left);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig != SIGIO)	/* SIGTERM, SIGINT, or the time is up */
			break;
		if (!broken) {
			printf("broken\n");
			fflush(stdout);
			broken = true;
			if (argc == 5 && proc_pidfile(argv[4]))
				stop_below(proc_pidfile(argv[4]));
		}
		if (yield)
			fcntl(fd, F_SETLEASE, F_UNLCK);
		clock_gettime(CLOCK_MONOTONIC, &end);
		left.tv_sec -= end.tv_sec - start.tv_sec;
		if (left.tv_sec <= 0)
			break;
	}
	close(fd);
	return 0;
}
