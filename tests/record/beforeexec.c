/* SPDX-License-Identifier: MIT */
/*
 * beforeexec.so: preloaded into snaptrace-record (LD_PRELOAD), signals at
 * the moment a launched program is about to exec, in the child the
 * recorder forked, as it calls ptrace(PTRACE_TRACEME) (common/spawn.c; no
 * other child of the recorder's asks to be traced), for the record suites'
 * programs that never started:
 *
 *   SNAPTRACE_TEST_KILL_CHILD=N    signal N to the child itself: it dies
 *                                  before its exec (a kill from elsewhere,
 *                                  a Ctrl-C to the process group)
 *   SNAPTRACE_TEST_SIGNAL_PARENT=N signal N to the recorder, the child
 *                                  going on to its exec (a stop that came
 *                                  while the recording was starting)
 *
 * Anything else calls the C library's ptrace as it is.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <unistd.h>

/* The signal number in environment variable NAME, or 0. */
static int signal_in(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

long ptrace(enum __ptrace_request request, ...)
{
	long (*real)(enum __ptrace_request, pid_t, void *, void *);
	va_list ap;
	pid_t pid;
	void *addr, *data;
	int sig;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (request == PTRACE_TRACEME) {
		if ((sig = signal_in("SNAPTRACE_TEST_SIGNAL_PARENT")) > 0)
			kill(getppid(), sig);
		if ((sig = signal_in("SNAPTRACE_TEST_KILL_CHILD")) > 0)
			kill(getpid(), sig);
	}
	*(void **)&real = dlsym(RTLD_NEXT, "ptrace");
	return real ? real(request, pid, addr, data) : -1;
}
