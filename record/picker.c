/* SPDX-License-Identifier: MIT */
#include "picker.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "host.h"
#include "run.h"
#include "signals.h"
#include "spawn.h"

#define LIST_ROWS 20    /* rows the numbered list shows at a time */

/* Writes ROW's NAME, then BETWEEN and its DETAIL (when it has one) and
 * AFTER, each part escaped (escape.h): a process's command line or a
 * function's name is anybody's text, shown on the user's terminal. */
static void put_row(FILE *f, const char *row, const char *between, const char *after)
{
	const char *tab = strchr(row, '\t');
	char *name = tab ? strndup(row, (size_t)(tab - row)) : NULL;

	esc_fputs(f, tab ? (name ? name : "?") : row, ESC_TEXT);
	if (tab) {
		fputs(between, f);
		esc_fputs(f, tab + 1, ESC_TEXT);
	}
	fputs(tab ? after : "\n", f);
	free(name);
}

/* Runs fzf (at FZF) on ROWS; sets *PICK. Returns 0, -ECANCELED or an error. */
static int pick_fzf(const char *fzf, const struct rec_picker *p, char *const *rows, size_t n,
		    size_t *pick)
{
	char buf[64], prompt[64], header[256];
	int fd = memfd_create("snaptrace-pick", MFD_CLOEXEC), pp[2], status;
	ssize_t got = 0, r;
	pid_t child;
	FILE *f;

	if (fd < 0)
		return -errno;
	f = fdopen(fcntl(fd, F_DUPFD_CLOEXEC, 0), "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%zu\t", i);
		put_row(f, rows[i], "\t", "\n");
	}
	if (fclose(f) || lseek(fd, 0, SEEK_SET) || pipe2(pp, O_CLOEXEC)) {
		close(fd);
		return -EIO;
	}
	snprintf(prompt, sizeof(prompt), "--prompt=%s> ", p->what);
	snprintf(header, sizeof(header), "--header=%s", p->header);
	char *argv[] = { "fzf", "--delimiter=\t", "--with-nth=2..", prompt, header, NULL };
	child = spawn_start(&(struct spawn){
		.path = fzf, .argv = argv, .nfds = 2, .fds = { fd, pp[1] },
		.death_signal = SIGTERM,	/* never outlives the recorder */
	});
	close(fd);
	close(pp[1]);
	while (child > 0 && got < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(pp[0], buf + got, sizeof(buf) - 1 - (size_t)got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += r;
	}
	close(pp[0]);
	if (child < 0)
		return (int)child;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	buf[got] = '\0';
	if (!got || !isdigit((unsigned char)buf[0]))
		return -ECANCELED;
	*pick = strtoull(buf, NULL, 10);
	return *pick < n ? 0 : -ECANCELED;
}

/*
 * Reads a line typed on the terminal (stdin, canonical mode) into LINE.
 * Returns 0, or -ECANCELED at the end of input or when a stop signal
 * (sig_stops: SIGINT, SIGTERM, SIGHUP...) is pending (the recorder blocks them to read them later: Ctrl-C
 * cancels the pick, and the recorder then ends).
 */
static int read_answer(char *line, size_t size)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	ssize_t n;

	for (;;) {
		if (sig_stop_pending())
			return -ECANCELED;
		if (poll(&p, 1, 200) > 0)
			break;
	}
	n = read(STDIN_FILENO, line, size - 1);
	if (n <= 0)
		return -ECANCELED;
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	return 0;
}

/* Shows ROW as "NAME  (DETAIL)" after its number K. */
static void show_row(size_t k, const char *row)
{
	fprintf(stderr, "%3zu) ", k);
	put_row(stderr, row, "  (", ")\n");
}

/* The numbered list on stderr, narrowed by lines read from stdin; sets *PICK. */
static int pick_list(const struct rec_picker *p, char *const *rows, size_t count, size_t *pick)
{
	char filter[256] = "", line[256], shown_text[4 * sizeof(filter)];
	size_t shown[LIST_ROWS];

	for (;;) {
		size_t n = 0, total = 0;

		for (size_t i = 0; i < count; i++) {
			if (*filter && !strcasestr(rows[i], filter))
				continue;
			if (n < LIST_ROWS) {
				shown[n] = i;
				show_row(++n, rows[i]);
			}
			total++;
		}
		if (total > n)
			fprintf(stderr, "     ... %zu more: type part of a name to narrow the list\n",
				total - n);
		else if (!total)
			fprintf(stderr, "     (none contains '%s')\n",
				esc_str(shown_text, sizeof(shown_text), filter, ESC_TEXT));
		fprintf(stderr, "%s: a number, part of a name, or nothing to cancel: ", p->what);
		if (read_answer(line, sizeof(line)) || !*line)
			return -ECANCELED;
		if (line[strspn(line, "0123456789")] == '\0') {
			unsigned long k = strtoul(line, NULL, 10);

			if (k >= 1 && k <= n) {
				*pick = shown[k - 1];
				return 0;
			}
			if (n)
				fprintf(stderr, "%s: expected a number from 1 to %zu, found %s\n",
					p->what, n, line);
			else
				fprintf(stderr, "%s: expected part of a name (the list is empty), "
					"found %s\n", p->what, line);
			continue;
		}
		snprintf(filter, sizeof(filter), "%s", line);
	}
}

int rec_pick(const struct rec_picker *p, char *const *rows, size_t n, size_t *pick)
{
	char fzf[4096];

	if (!isatty(STDIN_FILENO))
		return -ENOTTY;
	if (run_find_program("fzf", fzf, sizeof(fzf)))
		return pick_list(p, rows, n, pick);
	return pick_fzf(fzf, p, rows, n, pick);
}
