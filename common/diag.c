/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

static const char *program = "snaptrace";
static bool quiet;
static int progress_shown;

void diag_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	program = slash ? slash + 1 : argv0;
}

const char *diag_program(void)
{
	return program;
}

void diag_set_quiet(bool q)
{
	quiet = q;
}

static void clear_progress(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

/* Prints FMT's text escaped (escape.h): a name or a path in it may hold anything. */
static void print_escaped(const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) >= 0)
		esc_fputs(stderr, msg, ESC_TEXT);
	else
		fputs("(out of memory)", stderr);
	free(msg);
}

static void vprint(const char *kind, const char *fmt, va_list ap)
{
	clear_progress();
	fprintf(stderr, "%s: %s", program, kind);
	print_escaped(fmt, ap);
	fputc('\n', stderr);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("", fmt, ap);
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("warning: ", fmt, ap);
	va_end(ap);
}

void diag_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vprint("", fmt, ap);
	va_end(ap);
}

void diag_progress(const char *fmt, ...)
{
	va_list ap;

	if (quiet || !isatty(STDERR_FILENO))
		return;
	clear_progress();
	if (!fmt[0])
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program);
	print_escaped(fmt, ap);
	va_end(ap);
	progress_shown = 1;
}

void diag_block(const char *text)
{
	const char *line = text, *nl;

	clear_progress();
	for (; line && *line; line = nl ? nl + 1 : NULL) {
		char *copy;

		nl = strchr(line, '\n');
		copy = strndup(line, nl ? (size_t)(nl - line) : strlen(line));
		fputs("  ", stderr);
		esc_fputs(stderr, copy ? copy : "(out of memory)", ESC_TEXT);
		fputc('\n', stderr);
		free(copy);
	}
}
