/* SPDX-License-Identifier: MIT */
/*
 * diag: one-line diagnostics on stderr, prefixed with the program's name, in
 * the project's form "PROGRAM: FILE:LINE: what was expected, what was found".
 * Only a program's main() decides to exit; library code returns errors.
 * Every message is printed escaped (escape.h, ESC_TEXT): a newline, an
 * escape sequence or invalid UTF-8 in a name or path it quotes shows as
 * "\xHH", so that a message stays one line and the terminal only shows it.
 * Each line (and a progress line with its erasure) is written with one
 * write(2): the traced program's output sharing stderr never lands inside it.
 */
#ifndef SNAPTRACE_DIAG_H
#define SNAPTRACE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

/* Exit statuses shared by every program. */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,  /* the work failed: bad input, I/O, perf failed */
	EXIT_USAGE = 2,    /* bad command line, or input lacking a required column */
};

/* Sets the program name printed before every message (basename of ARGV0). */
void diag_init(const char *argv0);

/* Returns the name given to diag_init() ("snaptrace" before it), never NULL. */
const char *diag_program(void);

/* Prints "PROGRAM: MESSAGE" and a newline. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROGRAM: warning: MESSAGE" and a newline. */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROGRAM: MESSAGE" unless quiet mode is set (summaries, hints). */
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints TEXT (several lines of another program's words, e.g. what perf
 * said after a diag_error() about it) one line at a time, each indented by
 * two spaces and escaped. Not silenced by quiet mode. */
void diag_block(const char *text);

/* Quiet mode silences diag_info() and diag_progress(); errors still print. */
void diag_set_quiet(bool quiet);

/* The plural ending of a count's noun: "s" unless N is 1 ("%d snapshot%s",
 * n, diag_s(n)): the one rule for every message that counts. */
static inline const char *diag_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/*
 * Progress line: rewrites one status line on stderr when stderr is a
 * terminal and quiet mode is off; does nothing otherwise. An empty format
 * clears the line.
 */
void diag_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
