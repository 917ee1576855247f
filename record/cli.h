/* SPDX-License-Identifier: MIT */
/*
 * cli: the command line of snaptrace-record, and of the `snaptrace run` and
 * `snaptrace attach` front end (the recorder started with --front-end VERB
 * as its first option). One table in cli.c defines every option once, as
 * common/opttab.h's rows: its name, argument, accepted values, help text
 * and the modes it belongs to; the parsing, the checks, --help, the man
 * pages snaptrace-record(1) and snaptrace(1) and the bash completion all
 * come from it.
 */
#ifndef SNAPTRACE_REC_CLI_H
#define SNAPTRACE_REC_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "opttab.h"
#include "rec_opts.h"

/* Which program a command line is for (the modes an option belongs to). */
enum rec_cli_mode {
	REC_CLI_RECORDER = 1,   /* snaptrace-record */
	REC_CLI_FRONTEND = 2,   /* snaptrace run|attach (--front-end VERB) */
};

enum rec_cli_verb {
	REC_VERB_NONE,          /* plain snaptrace-record */
	REC_VERB_RUN,           /* snaptrace run: launch a command */
	REC_VERB_ATTACH,        /* snaptrace attach: -p or -t */
};

struct rec_cli {
	struct rec_opts rec;    /* the recording options (defaults set by rec_cli_parse) */
	enum rec_cli_mode mode;
	enum rec_cli_verb verb;
	const struct opt_prog *prog; /* the command line in force (MODE's, VERB's) */
	bool check;             /* --check */
	bool tool;              /* run as `snaptrace check` or `snaptrace symbols`: messages
				 * name that command (diag's prefix), not the option */
	const char *symbols;    /* --symbols PROG|PID: list its functions (rec.cmd[0]: a pattern) */
	const char *trace;      /* front end: -o FILE, "-" for stdout (default trace.fxt.gz) */
	const char *data_dir;   /* front end: -d DIR, NULL: a temporary directory */
	const char **convert_args; /* front end: --convert-arg values (owned array, argv strings) */
	int nconvert_args;
};

/*
 * Parses ARGV (ARGC of them) into CLI, setting the defaults first. Returns
 * -1 when the program is to go on, or the exit status to end with: EXIT_OK
 * after --help[=FORMAT] or --version (printed on stdout), EXIT_USAGE after a one-line
 * error on stderr naming the option, what it expects and what it found.
 * The strings in CLI point into ARGV; free the arrays with rec_cli_free().
 */
int rec_cli_parse(int argc, char **argv, struct rec_cli *cli);

/* Frees what rec_cli_parse() allocated in CLI. */
void rec_cli_free(struct rec_cli *cli);

#endif
