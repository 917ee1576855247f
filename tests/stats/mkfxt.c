// SPDX-License-Identifier: MIT
/*
 * mkfxt: writes an FXT file through the project's writer (fxt_writer.h) from
 * a script on stdin, for tests that need exact durations or another
 * writer's layout (magic-trace's). One command per line, fields separated by
 * single spaces; a NAME or CAT of "-" is the empty string:
 *
 *   process PID NAME                    a process kernel object
 *   thread PID TID NAME                 a thread kernel object
 *   B PID TID TS NAME CAT [ARG...]      duration begin
 *   E PID TID TS [NAME [CAT]]           duration end
 *   X PID TID TS END NAME CAT [ARG...]  duration complete
 *   I PID TID TS NAME                   instant
 *   info KEY VALUE                      fxt_writer_info(FXT_INFO_NAME, KEY, VALUE)
 *
 * ARG is KEY=0xHEX (pointer), KEY=DIGITS (int64), KEY=DIGITSu (uint64),
 * KEY=true or KEY=false (bool) or KEY=TEXT (string).
 *   mkfxt OUT.fxt[.gz] < SCRIPT
 * Exit 0; 2 on a bad line (FILE:LINE message), 1 when writing fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_writer.h"

enum { MAX_FIELDS = 24 };

static fxt_string_id str(struct fxt_writer *w, const char *s)
{
	return fxt_writer_cstring(w, strcmp(s, "-") ? s : "");
}

static struct fxt_arg parse_arg(struct fxt_writer *w, char *kv)
{
	char *eq = strchr(kv, '='), *end;
	struct fxt_arg a = { .type = FXT_ARG_STRING };

	*eq = 0;
	a.name = fxt_writer_cstring(w, kv);
	if (!strncmp(eq + 1, "0x", 2)) {
		a.type = FXT_ARG_POINTER;
		a.u64 = strtoull(eq + 3, NULL, 16);
		return a;
	}
	if (!strcmp(eq + 1, "true") || !strcmp(eq + 1, "false")) {
		a.type = FXT_ARG_BOOL;
		a.b = eq[1] == 't';
		return a;
	}
	a.u64 = strtoull(eq + 1, &end, 10);
	if (eq[1] >= '0' && eq[1] <= '9' && end[0] == 'u' && !end[1]) {
		a.type = FXT_ARG_UINT64;
		return a;
	}
	a.i64 = strtoll(eq + 1, &end, 10);
	if (eq[1] && !*end) {
		a.type = FXT_ARG_INT64;
		return a;
	}
	a.str = fxt_writer_cstring(w, eq + 1);
	return a;
}

/* One script line split into F[0..N); returns 0 or -1 for a bad line. */
static int command(struct fxt_writer *w, char **f, int n)
{
	struct fxt_arg args[15];
	struct fxt_event ev = { 0 };
	int first_arg;

	if (!strcmp(f[0], "process") && n == 3)
		return fxt_writer_process(w, strtoull(f[1], NULL, 10), str(w, f[2]));
	if (!strcmp(f[0], "thread") && n == 4)
		return fxt_writer_thread(w, strtoull(f[1], NULL, 10), strtoull(f[2], NULL, 10),
					 str(w, f[3]));
	if (!strcmp(f[0], "info") && n == 3)
		return fxt_writer_info(w, fxt_writer_cstring(w, FXT_INFO_NAME), str(w, f[1]),
				       str(w, f[2]));
	if (n < 4 || strlen(f[0]) != 1 || !strchr("BEXI", f[0][0]))
		return -1;
	ev.process_koid = strtoull(f[1], NULL, 10);
	ev.thread_koid = strtoull(f[2], NULL, 10);
	ev.ts = strtoull(f[3], NULL, 10);
	switch (f[0][0]) {
	case 'B':
		ev.type = FXT_EVENT_BEGIN;
		first_arg = 6;
		break;
	case 'E':
		ev.type = FXT_EVENT_END;
		first_arg = n;
		break;
	case 'X':
		ev.type = FXT_EVENT_COMPLETE;
		if (n < 7)
			return -1;
		ev.end_ts = strtoull(f[4], NULL, 10);
		f++;
		n--;
		first_arg = 6;
		break;
	default:
		ev.type = FXT_EVENT_INSTANT;
		first_arg = 5;
		break;
	}
	if (n > 4)
		ev.name = str(w, f[4]);
	if (n > 5 && ev.type != FXT_EVENT_INSTANT)
		ev.category = str(w, f[5]);
	for (int i = first_arg; i < n && ev.nargs < 15; i++) {
		if (!strchr(f[i], '='))
			return -1;
		args[ev.nargs++] = parse_arg(w, f[i]);
	}
	ev.args = args;
	return fxt_writer_event(w, &ev);
}

int main(int argc, char **argv)
{
	struct fxt_writer *w;
	char line[4096];
	unsigned lineno = 0;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: mkfxt OUT.fxt[.gz] < SCRIPT\n");
		return 2;
	}
	w = fxt_writer_open(argv[1], FXT_OUTPUT_AUTO, "mkfxt", &err);
	if (!w) {
		fprintf(stderr, "mkfxt: %s: cannot write\n", argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *f[MAX_FIELDS], *save = NULL;
		int n = 0;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		for (char *t = strtok_r(line, " ", &save); t && n < MAX_FIELDS;
		     t = strtok_r(NULL, " ", &save))
			f[n++] = t;
		if (!n || f[0][0] == '#')
			continue;
		if (command(w, f, n)) {
			fprintf(stderr, "mkfxt: stdin:%u: bad command (see mkfxt.c)\n", lineno);
			fxt_writer_abort(w);
			return 2;
		}
	}
	if (fxt_writer_close(w)) {
		fprintf(stderr, "mkfxt: %s: write failed\n", argv[1]);
		return 1;
	}
	return 0;
}
