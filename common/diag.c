/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <errno.h>
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

/*
 * Writes "PROGRAM: " (when NAMED), KIND, TEXT escaped (escape.h: a name or a
 * path in it may hold anything) and END with one write(2), after the
 * progress line's erasure: the traced program's own output, which often
 * shares the terminal or the file, cannot land inside the line (stderr is
 * unbuffered, and piece by piece a line took dozens of writes: a hit's line
 * was once cut in two by the program's). Without memory, the pieces one by one.
 */
static void put(bool named, const char *kind, const char *text, const char *end)
{
	char *buf = NULL;
	size_t len = 0, at = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		clear_progress();
		if (named)
			fprintf(stderr, "%s: ", program);
		fputs(kind, stderr);
		esc_fputs(stderr, text, ESC_TEXT);
		fputs(end, stderr);
		return;
	}
	if (progress_shown)
		fputs("\r\033[K", m);
	progress_shown = 0;
	if (named)
		fprintf(m, "%s: ", program);
	fputs(kind, m);
	esc_fputs(m, text, ESC_TEXT);
	fputs(end, m);
	if (!fclose(m)) {
		fflush(stderr);
		while (at < len) {
			ssize_t n = write(STDERR_FILENO, buf + at, len - at);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			at += (size_t)n;
		}
	}
	free(buf);
}

/* put() of FMT's text, formatted. */
static void vput(const char *kind, const char *fmt, va_list ap, const char *end)
{
	char *msg = NULL;

	put(true, kind, vasprintf(&msg, fmt, ap) >= 0 ? msg : "(out of memory)", end);
	free(msg);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput("", fmt, ap, "\n");
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput("warning: ", fmt, ap, "\n");
	va_end(ap);
}

void diag_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vput("", fmt, ap, "\n");
	va_end(ap);
}

void diag_progress(const char *fmt, ...)
{
	va_list ap;

	if (quiet || !isatty(STDERR_FILENO))
		return;
	if (!fmt[0]) {
		clear_progress();
		return;
	}
	va_start(ap, fmt);
	vput("", fmt, ap, "");
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
		put(false, "  ", copy ? copy : "(out of memory)", "\n");
		free(copy);
	}
}
