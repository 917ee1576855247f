/* SPDX-License-Identifier: MIT */
/*
 * snaptrace: the front end. Records a program around a trigger and writes a
 * Perfetto trace.
 *
 *   snaptrace run [OPTIONS] -- CMD [ARGS...]
 *   snaptrace attach [OPTIONS] -p PID[,PID...] | -t TID
 *   snaptrace convert [CONVERT OPTIONS] INPUT... [-o OUT]
 *   snaptrace stats [STATS OPTIONS] TRACE.fxt[.gz]
 *   snaptrace check
 *   snaptrace symbols PROG|PID [PATTERN]
 *
 * run and attach exec snaptrace-record --front-end VERB, which records, then
 * converts with snaptrace-convert: this program's pid is the recorder's, so
 * signals to it reach the recorder, and nothing outlives it.
 *
 * A compiled program, linked statically where it can be, so that a stop
 * signal (sig_stops: SIGINT, SIGTERM, SIGHUP, SIGQUIT...) is handled from
 * its first instruction on: they are blocked first thing, and run and attach exec the recorder
 * with them still blocked (a pending one goes with it: the recorder reads it
 * from its signalfd and says what happened); before any other exec, one
 * that came ends this program with a line and 128 + N. (The bash front end
 * it replaces died silently in bash's first milliseconds, before its trap.)
 * A stop signal ignored when it started stays ignored.
 *
 * The programs are looked up in $SNAPTRACE_BIN alone when set; else next to
 * the name this program was run by, in ../libexec/snaptrace (the installed
 * layout) and in ../build/bin (a source tree), then the same from the
 * program's resolved path (/proc/self/exe).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "escape.h"
#include "outpath.h"
#include "signals.h"
#include "version.h"

#define PROG "snaptrace"

#ifdef __x86_64__
/* The program's entry point (front/build.mk links with -e snaptrace_entry):
 * its first instruction blocks the stop signals (rt_sigprocmask(SIG_BLOCK,
 * &snaptrace_entry_mask, NULL, 8): sig_stops), then it jumps to libc's
 * _start with %rdx (the loader's fini function) as it came. Before it, glibc's start-up
 * ran for a millisecond or more on a loaded host with the signals at their
 * default: one then ended this program silently. hold_stops() lets in the
 * ignored ones again. */
__asm__(".text\n"
	".globl snaptrace_entry\n"
	".type snaptrace_entry, @function\n"
	"snaptrace_entry:\n"
	"	mov %rdx, %r8\n"
	"	mov $14, %eax\n"                       /* SYS_rt_sigprocmask */
	"	xor %edi, %edi\n"                      /* SIG_BLOCK */
	"	lea snaptrace_entry_mask(%rip), %rsi\n"
	"	xor %edx, %edx\n"
	"	mov $8, %r10d\n"                       /* sizeof the kernel's sigset */
	"	syscall\n"
	"	mov %r8, %rdx\n"
	"	jmp _start\n"
	".size snaptrace_entry, . - snaptrace_entry\n");
/* read by snaptrace_entry's first instruction: global, so that the
 * assembler's reference reaches it */
extern const uint64_t snaptrace_entry_mask;
const uint64_t snaptrace_entry_mask = SIG_STOPS_MASK;
#endif

/*
 * The verbs: the program each runs and its first argument, its line of the
 * usage (synopsis, then what it does; '\n' between lines of that), and
 * whether this program answers its -h/--help (the program it runs has no
 * help of its own for it: check, symbols).
 */
static const struct verb {
	const char *name, *program, *first;
	int keep;               /* the stop signals stay blocked: the recorder reads them */
	const char *synopsis, *about;
	int own_help;
} verbs[] = {
	{ "run", "snaptrace-record", "--front-end", 1, "run [OPTIONS] -- CMD [ARGS...]",
	  "launch CMD, record, convert", 0 },
	{ "attach", "snaptrace-record", "--front-end", 1,
	  "attach [OPTIONS] -p PID[,PID] | -t TID", "attach, record, convert", 0 },
	{ "convert", "snaptrace-convert", NULL, 0, "convert [OPTIONS] INPUT... [-o OUT]",
	  "convert a recording directory,\nperf.data or perf script text", 0 },
	{ "stats", "snaptrace-stats", NULL, 0, "stats [OPTIONS] TRACE.fxt[.gz]",
	  "per-function call statistics of a trace", 0 },
	{ "check", "snaptrace-record", "--front-end=check", 0, "check",
	  "what this host offers for recording", 1 },
	{ "symbols", "snaptrace-record", "--front-end=symbols", 0, "symbols PROG|PID [PATTERN]",
	  "the functions that can be triggers:\ndemangled name, symbol, file, address", 1 },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))
#define ABOUT_COLUMN 57   /* where a verb's text starts in the usage */

/* Prints the usage line(s) of V on F: "snaptrace SYNOPSIS", its text from
 * ABOUT_COLUMN, after HEAD ("usage: " or as many spaces). */
static void print_verb(FILE *f, const struct verb *v, const char *head)
{
	const char *a = v->about;
	int col = fprintf(f, "%s" PROG " %s", head, v->synopsis);

	for (;;) {
		size_t len = strcspn(a, "\n");

		fprintf(f, "%*s%.*s\n", col < ABOUT_COLUMN ? ABOUT_COLUMN - col : 1, "", (int)len, a);
		if (!a[len])
			return;
		a += len + 1;
		col = 0;
	}
}

/* The usage of every verb, on F. */
static void print_usage(FILE *f)
{
	for (size_t i = 0; i < NVERBS; i++)
		print_verb(f, &verbs[i], i == 0 ? "usage: " : "       ");
	fputs("\n"
	      "The options: snaptrace run --help, snaptrace convert --help, snaptrace stats --help;\n"
	      "the man pages snaptrace(1), snaptrace-record(1), snaptrace-convert(1), snaptrace-stats(1).\n"
	      "Ctrl-C stops the recording and keeps what was captured.\n", f);
}

/* A stop signal before another program took over: said, and 128 + N. Only
 * async-signal-safe calls. */
static void stopped(int sig)
{
	static const char head[] = PROG ": stopped by SIG", tail[] = " before it started: nothing "
		"recorded, no trace written\n";
	const char *name = sig == SIGINT ? "INT" : sig == SIGTERM ? "TERM" : "HUP";

	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0 ||
	    write(STDERR_FILENO, name, strlen(name)) < 0 ||
	    write(STDERR_FILENO, tail, sizeof(tail) - 1) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

/* Blocks the stop signals not ignored into *BLOCKED (snaptrace_entry
 * blocked them all already on x86-64), and makes each end this program with
 * a line (stopped()) once unblocked. */
static void hold_stops(sigset_t *blocked)
{
	struct sigaction sa;
	sigset_t ignored;

	/* an ignored one stays ignored, and unblocked: a blocked signal is
	 * never discarded, it would wait for the recorder */
	sig_note_start();
	sig_not_ignored(sig_stops, sig_nstops, blocked);
	sigemptyset(&ignored);
	for (size_t i = 0; i < sig_nstops; i++)
		if (!sigismember(blocked, sig_stops[i]))
			sigaddset(&ignored, sig_stops[i]);
	sigprocmask(SIG_BLOCK, blocked, NULL);
	sigprocmask(SIG_UNBLOCK, &ignored, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stopped;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sig_nstops; i++)
		if (sigismember(blocked, sig_stops[i]))
			sigaction(sig_stops[i], &sa, NULL);
}

/* Whether DIR holds both programs. */
static int has_programs(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/snaptrace-record", dir);
	if (access(p, X_OK))
		return 0;
	snprintf(p, sizeof(p), "%s/snaptrace-convert", dir);
	return !access(p, X_OK);
}

/* Finds the programs' directory near HERE into BIN; 1 when found. */
static int look_near(const char *here, char *bin, size_t size)
{
	static const char *const rel[] = { "", "/../libexec/snaptrace", "/../build/bin" };

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(bin, size, "%s%s", here, rel[i]);
		if (has_programs(bin))
			return 1;
	}
	return 0;
}

/* The directory holding snaptrace-record and snaptrace-convert into BIN, or
 * exit 1 with a line saying where it looked. */
static void find_bin(const char *argv0, char *bin, size_t size)
{
	const char *env = getenv("SNAPTRACE_BIN");
	char run_by[PATH_MAX], self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		if (has_programs(env)) {
			snprintf(bin, size, "%s", env);
			return;
		}
		fputs(PROG ": SNAPTRACE_BIN=", stderr);
		esc_fputs(stderr, env, ESC_TEXT);
		fputs(": expected snaptrace-record and snaptrace-convert there, found none\n",
		      stderr);
		exit(1);
	}
	snprintf(run_by, sizeof(run_by), "%s", argv0);
	if (strchr(argv0, '/') && look_near(dirname(run_by), bin, size))
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (n > 0 && look_near(dirname(self), bin, size))
		return;
	fputs(PROG ": cannot find snaptrace-record and snaptrace-convert next to ", stderr);
	esc_fputs(stderr, argv0, ESC_TEXT);
	fputs(", in ", stderr);
	esc_fputs(stderr, self, ESC_TEXT);
	fputs("/../libexec/snaptrace or in ", stderr);
	esc_fputs(stderr, self, ESC_TEXT);
	fputs("/../build/bin (run make?)\n", stderr);
	exit(1);
}

/* Execs program NAME of BIN with ARGV[0] its path, FIRST (NULL: none) and
 * ARGS; the stop signals of BLOCKED stay blocked when KEEP, else are let in
 * first. Returns only after an error (exit 1). */
static int run(const char *bin, const char *name, const char *first, char **args, int nargs,
	       const sigset_t *blocked, int keep)
{
	char path[PATH_MAX];
	char **argv = calloc((size_t)nargs + 3, sizeof(*argv));
	int k = 0, err;

	if (!argv) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", bin, name);
	argv[k++] = path;
	if (first)
		argv[k++] = (char *)first;
	for (int i = 0; i < nargs; i++)
		argv[k++] = args[i];
	if (!keep)
		sigprocmask(SIG_UNBLOCK, blocked, NULL);   /* one pending: stopped() */
	execv(path, argv);
	err = errno;
	fputs(PROG ": ", stderr);
	esc_fputs(stderr, path, ESC_TEXT);
	fprintf(stderr, ": cannot run it: %s\n", strerror(err));
	free(argv);
	return 1;
}

int main(int argc, char **argv)
{
	char bin[PATH_MAX];
	sigset_t blocked;
	const char *verb = argc > 1 ? argv[1] : NULL;

	hold_stops(&blocked);   /* first: from here on a stop signal is handled */
	diag_init(PROG);
	if (!verb) {
		print_usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < NVERBS; i++) {
		const struct verb *v = &verbs[i];

		if (strcmp(verb, v->name))
			continue;
		if (v->own_help && argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
			print_verb(stdout, v, "usage: ");
			return outpath_stdout_done(0);
		}
		find_bin(argv[0], bin, sizeof(bin));
		if (v->keep)
			return run(bin, v->program, v->first, argv + 1, argc - 1, &blocked, 1);
		return run(bin, v->program, v->first, argv + 2, argc - 2, &blocked, 0);
	}
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help")) {
		print_usage(stdout);
		return outpath_stdout_done(0);
	}
	if (!strcmp(verb, "-V") || !strcmp(verb, "--version")) {
		printf(PROG " %s\n", SNAPTRACE_VERSION);
		return outpath_stdout_done(0);
	}
	fputs(PROG ": expected run, attach, convert, stats, check or symbols, found '", stderr);
	esc_fputs(stderr, verb, ESC_TEXT);
	fputs("'\n", stderr);
	print_usage(stderr);
	return 2;
}
