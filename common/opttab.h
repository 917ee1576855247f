/* SPDX-License-Identifier: MIT */
/*
 * opttab: the command line of a program as one table. Each row is one
 * option: its long and short name, its value (kind, name, bounds, accepted
 * words), the verbs that take it, the section and text of its help, what
 * it needs or excludes, and where it goes. From the table come the
 * getopt_long parsing, the checks of the values (common/numparse) and of
 * the options together, --help, the man page (roff, man(7)) and the bash
 * completion; `make` builds the man pages and the completion with
 * --help=man and --help=bash. (The models are uftrace's one option table
 * and perf's OPT_* tables, whose Documentation/ pages this generates.)
 *
 * Errors are one line on stderr through diag_error(), "--NAME VALUE:
 * expected WHAT (see PROGRAM --help)", and the exit status EXIT_USAGE.
 */
#ifndef SNAPTRACE_OPTTAB_H
#define SNAPTRACE_OPTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option's value is, and how it is read. */
enum opt_kind {
	OPT_FLAG,       /* no value: true into a bool at FIELD */
	OPT_STRING,     /* the argument itself (a const char *, into ARGV) at FIELD */
	OPT_PATH,       /* the same, a file or directory (the completion offers files) */
	OPT_CHOICE,     /* one of CHOICES: its index into an int (an enum) at FIELD */
	OPT_COUNT,      /* decimal digits, MIN..MAX (num_parse_u64) */
	OPT_SIZE,       /* bytes, K/M/G/T suffixes, MIN..MAX (num_parse_size) */
	OPT_SECONDS,    /* seconds, a fraction or a unit: ns, MIN..MAX ns (num_parse_seconds) */
	OPT_DURATION,   /* a duration, unit required: ns, MIN..MAX ns (num_parse_duration) */
	OPT_MILLISECONDS, /* a duration, a bare number in milliseconds: ns, MIN..MAX ns
			   * (num_parse_time) */
};

/* What a setter returns besides 0 and a negative errno. */
enum {
	OPT_DONE = 1000,   /* it printed what was asked (--help, --version): exit 0 now */
	OPT_FAILED,        /* it printed its own usage error (opt_error()): exit 2 */
};

/*
 * One option. The numbers (COUNT, SIZE, SECONDS, DURATION) go into the
 * unsigned integer of FIELD_SIZE bytes (4 or 8) at FIELD, or to SET as NUM.
 * SET, when there is one, takes the value instead of FIELD: it gets the
 * program's context, the argument (NULL for a flag or an optional value
 * left out) and the number read; it returns 0, -EINVAL or -ERANGE (the
 * value is not what EXPECT says), -ENOMEM, OPT_DONE or OPT_FAILED.
 */
struct opt {
	const char *name;            /* the long name, without "--" */
	char short_name;             /* 0: none */
	enum opt_kind kind;
	const char *arg;             /* the value's name in the help ("BYTES"); NULL for a flag */
	bool optional;               /* the value may be left out: --NAME[=ARG] */
	bool repeatable;             /* each value adds (--event A --event B); else an
				      * option with a value given twice is refused, never
				      * silently the last (a flag twice is the flag) */
	bool foreign;                /* the value is another program's argument (--perf-arg):
				      * it may be one of this program's options; a value
				      * of any other row given as a word of its own that
				      * is "--" or one of the options is refused (the
				      * value was left out), as "--" is for these */
	const char *const *choices;  /* OPT_CHOICE: the words, NULL-terminated */
	uint64_t min, max;           /* the numbers' bounds */
	const char *expect;          /* what a value must be, for the error (choices say it) */
	unsigned verbs;              /* the verbs that take it (struct opt_prog's bits) */
	const char *section;         /* the help's heading; rows of a section are together */
	const char *help;            /* '\n' between lines of --help */
	const char *needs;           /* the long name of an option it works only with */
	const char *excludes;        /* long names (space-separated) it does not go with */
	int (*set)(void *ctx, const char *arg, uint64_t num);
	size_t field, field_size;
};

/* Where a row stores, in struct T's member M. */
#define OPT_FIELD(T, m) .field = offsetof(T, m), .field_size = sizeof(((T *)0)->m)

/* A program, or one verb of it: the rows of OPTS sharing a bit with VERBS. */
struct opt_prog {
	const char *name;         /* "snaptrace-record": the man page's and the messages' */
	const char *help_cmd;     /* what a usage error points to: "snaptrace run --help" */
	const char *summary;      /* one line: the man page's NAME */
	const char *synopsis;     /* the usage lines, '\n' after each */
	const char *description;  /* text; an empty line between paragraphs; lines
				   * starting with a space are kept as they are */
	const char *epilogue;     /* text after the options (man: NOTES), or NULL */
	const char *see_also;     /* "snaptrace(1), snaptrace-convert(1)" */
	const struct opt *opts;
	size_t nopts;             /* at most 64 */
	unsigned verbs;
	bool in_order;            /* options end at the first operand (a command follows) */
	const char *commands;     /* a front end's verbs, space-separated, or NULL: the
				   * completion offers them first, then the options of
				   * the program _NAME_VERB completes when there is one */
};

/*
 * Parses ARGV[FIRST..ARGC) with P's options into CTX (getopt_long; "--"
 * ends them, once: a second "--" right after it is a usage error). Returns -1 to go on, with *OPERAND the index of the first
 * operand (operands are moved after the options unless P->in_order), or
 * the exit status to end with: EXIT_OK after a setter's OPT_DONE,
 * EXIT_USAGE after a one-line error, EXIT_RUNTIME when out of memory.
 * Checks, after the last option, each given option's NEEDS and EXCLUDES; an
 * option with a value given twice that is not REPEATABLE is a usage error.
 * *GIVEN (may be NULL): bit I set when P->opts[I] was given.
 */
int opt_parse(const struct opt_prog *p, int argc, char **argv, int first, void *ctx,
	      int *operand, uint64_t *given);

/*
 * The usage error of a "--" given after the "--" that ended P's options
 * ("run --trigger F -- -- ./prog"): opt_parse() gives it, and a program that
 * takes an operand before opt_parse() (snaptrace symbols -- PROG) calls it
 * for one. Returns EXIT_USAGE.
 */
int opt_second_dashes(const struct opt_prog *p);

/* The output forms of --help[=FORMAT]. */
enum opt_format {
	OPT_TEXT,   /* the help a person reads */
	OPT_MAN,    /* a man page, section 1, in roff (man(7)) */
	OPT_BASH,   /* a bash completion function _NAME (dashes as underscores) and its
		     * `complete` line */
};

/* The words of enum opt_format, in its order, NULL-terminated. */
extern const char *const opt_formats[];

/* Parses FORMAT ("text", "man", "bash"; NULL: text) into *OUT. Returns 0 or -EINVAL. */
int opt_format_parse(const char *format, enum opt_format *out);

/* The row of -h, --help[=FORMAT] for VERBS: SET gets the enum opt_format
 * as its number and prints (opt_print()). */
#define OPT_HELP_ROW(set_, verbs_) \
	{ "help", 'h', .kind = OPT_CHOICE, .arg = "FORMAT", .optional = true, \
	  .choices = opt_formats, .set = (set_), .verbs = (verbs_), .section = "other", \
	  .help = "this help; FORMAT man: as a man page, bash: as the completion" }

/* The row of --version (and SHORT, or 0) for VERBS: SET prints it (opt_version()). */
#define OPT_VERSION_ROW(short_, set_, verbs_) \
	{ "version", (short_), .kind = OPT_FLAG, .set = (set_), .verbs = (verbs_), \
	  .section = "other", .help = "print the version" }

/* Prints "P->name VERSION" on stdout. Returns OPT_DONE (a setter's return). */
int opt_version(const struct opt_prog *p);

/* Prints P's help as FORMAT on F. */
void opt_print(FILE *f, const struct opt_prog *p, enum opt_format format);

/* The row of P named NAME (long), or NULL. */
const struct opt *opt_find(const struct opt_prog *p, const char *name);

/* Prints "MESSAGE (see P->help_cmd)" as an error. Returns EXIT_USAGE. */
int opt_error(const struct opt_prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
