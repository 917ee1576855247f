/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static void vprint(const char *kind, const char *fmt, va_list ap)
{
	clear_progress();
	fprintf(stderr, "%s: %s", program, kind);
	vfprintf(stderr, fmt, ap);
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
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	progress_shown = 1;
}
