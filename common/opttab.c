/* SPDX-License-Identifier: MIT */
#include "opttab.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "numparse.h"
#include "version.h"

#define MAX_OPTS 64          /* the bits of a uint64_t: what was given */
#define HELP_COLUMN 28       /* where --help's text of an option starts */
#define HELP_WIDTH 79

static bool takes(const struct opt_prog *p, const struct opt *o)
{
	return (o->verbs & p->verbs) != 0;
}

const struct opt *opt_find(const struct opt_prog *p, const char *name)
{
	for (size_t i = 0; i < p->nopts; i++)
		if (takes(p, &p->opts[i]) && !strcmp(p->opts[i].name, name))
			return &p->opts[i];
	return NULL;
}

int opt_error(const struct opt_prog *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error("%s (see %s)", msg, p->help_cmd);
	return EXIT_USAGE;
}

/* "a, b or c" of CHOICES (empty words left out). */
static void choice_list(const char *const *choices, char *buf, size_t size)
{
	size_t len = 0;
	int n = 0, i = 0;

	for (const char *const *c = choices; *c; c++)
		n += **c != '\0';
	buf[0] = '\0';
	for (const char *const *c = choices; *c && len < size; c++) {
		if (!**c)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0 ? "" : i == n - 1 ? " or " : ", ", *c);
		i++;
	}
}

/* Reads ARG as O's kind says into *NUM (a choice's index). Returns 0 or a negative errno. */
static int read_value(const struct opt *o, const char *arg, uint64_t *num)
{
	switch (o->kind) {
	case OPT_CHOICE:
		for (size_t i = 0; o->choices[i]; i++)
			if (*o->choices[i] && !strcmp(o->choices[i], arg ? arg : "")) {
				*num = i;
				return 0;
			}
		return arg ? -EINVAL : 0;   /* an optional value left out: index 0 */
	case OPT_COUNT:
		return num_parse_u64(arg, o->min, o->max, num);
	case OPT_SIZE:
		return num_parse_size(arg, o->min, o->max, num);
	case OPT_SECONDS:
		return num_parse_seconds(arg, o->min, o->max, num);
	case OPT_DURATION:
		return num_parse_duration(arg, o->min, o->max, num);
	case OPT_MILLISECONDS:
		return num_parse_time(arg, 1000000, o->min, o->max, num);
	case OPT_FLAG:
	case OPT_STRING:
	case OPT_PATH:
		break;
	}
	return 0;
}

/* Stores what O read into CTX's FIELD. */
static void store(const struct opt *o, void *ctx, const char *arg, uint64_t num)
{
	char *at = (char *)ctx + o->field;

	if (o->kind == OPT_FLAG) {
		*(bool *)(void *)at = true;
	} else if (o->kind == OPT_STRING || o->kind == OPT_PATH) {
		memcpy(at, &arg, sizeof(arg));
	} else if (o->kind == OPT_CHOICE || o->field_size == sizeof(uint32_t)) {
		uint32_t v = (uint32_t)num;   /* an enum, or an unsigned */

		memcpy(at, &v, sizeof(v));
	} else {
		memcpy(at, &num, sizeof(num));
	}
}

/* Applies O with ARG. Returns -1 to go on, or an exit status. */
static int apply(const struct opt_prog *p, const struct opt *o, const char *arg, void *ctx)
{
	uint64_t num = 0;
	char what[256];
	int err = read_value(o, arg, &num);

	if (!err && !o->set) {
		store(o, ctx, arg, num);
		return -1;
	}
	if (!err)
		err = o->set(ctx, arg, num);
	switch (err) {
	case 0:
		return -1;
	case OPT_DONE:
		return EXIT_OK;
	case OPT_FAILED:
		return EXIT_USAGE;
	case -ENOMEM:
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (o->kind == OPT_CHOICE && !o->expect)
		choice_list(o->choices, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%s", o->expect ? o->expect : "a value");
	return opt_error(p, "--%s %s: expected %s", o->name, arg ? arg : "", what);
}

/* The row of P whose long name is NAME's first LEN bytes, or NULL. */
static const struct opt *long_option(const struct opt_prog *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nopts; i++)
		if (takes(p, &p->opts[i]) && strlen(p->opts[i].name) == len &&
		    !strncmp(p->opts[i].name, name, len))
			return &p->opts[i];
	return NULL;
}

static const struct opt *short_option(const struct opt_prog *p, int ch)
{
	for (size_t i = 0; i < p->nopts; i++)
		if (takes(p, &p->opts[i]) && p->opts[i].short_name == ch)
			return &p->opts[i];
	return NULL;
}

/*
 * magic-trace's spelling of long options with one dash (-trigger X): getopt
 * reads it as short options (-t rigger). Looks through ARGV[FIRST..ARGC)
 * up to "--" (or the first operand of an in-order P) for a word "-NAME" or
 * "-NAME=..." whose NAME is a long option. Returns -1 when there is none,
 * else EXIT_USAGE after saying which option was meant.
 */
static int single_dash_long(const struct opt_prog *p, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		const char *w = argv[i];
		const struct opt *o;

		if (!strcmp(w, "--"))
			return -1;
		if (w[0] != '-' || w[1] == '\0') {
			if (p->in_order)
				return -1;   /* the command begins */
			continue;
		}
		if (w[1] == '-') {
			o = long_option(p, w + 2, strcspn(w + 2, "="));
			i += o && o->arg && !o->optional && !strchr(w, '=');   /* its value */
			continue;
		}
		o = w[2] ? long_option(p, w + 1, strcspn(w + 1, "=")) : NULL;
		if (o)
			return opt_error(p, "%s: did you mean --%s? (with one dash it reads as -%c %s)",
					 w, o->name, w[1], w + 2);
		o = short_option(p, w[1]);
		i += o && o->arg && !o->optional && !w[2];   /* -X VALUE */
	}
	return -1;
}

/*
 * The long options of P that NAME's first LEN bytes begin: "--mode,
 * --multi-snapshot or --min-interval" into BUF (SIZE bytes). Returns how
 * many (one with LEN the whole of its name is the only one: getopt_long
 * takes an exact name over longer ones).
 */
static int prefix_matches(const struct opt_prog *p, const char *name, size_t len, char *buf,
			  size_t size)
{
	int n = 0, k = 0;

	if (long_option(p, name, len)) {
		snprintf(buf, size, "--%.*s", (int)len, name);
		return 1;
	}
	for (size_t i = 0; i < p->nopts; i++)
		n += takes(p, &p->opts[i]) && !strncmp(p->opts[i].name, name, len);
	buf[0] = '\0';
	for (size_t i = 0, at = 0; i < p->nopts && at < size; i++) {
		if (!takes(p, &p->opts[i]) || strncmp(p->opts[i].name, name, len))
			continue;
		at += (size_t)snprintf(buf + at, size - at, "%s--%s",
				       k == 0 ? "" : k == n - 1 ? " or " : ", ", p->opts[i].name);
		k++;
	}
	return n;
}

/* The error for what getopt_long returned '?' or ':' for: BAD, the argument
 * it was at. Returns EXIT_USAGE. */
static int unknown_option(const struct opt_prog *p, const char *bad)
{
	const struct opt *o;
	char names[1024];
	size_t len = strcspn(bad, "=");

	if (optopt >= 256) {
		o = &p->opts[optopt - 256];
		return opt_error(p, "--%s: expected %s", o->name, o->arg ? "a value" : "no value");
	}
	o = optopt ? short_option(p, optopt) : NULL;
	if (o)
		return opt_error(p, "-%c: expected a value", optopt);
	if (optopt)
		return opt_error(p, "-%c: unknown option", optopt);
	if (!strncmp(bad, "--", 2) && len > 2 &&
	    prefix_matches(p, bad + 2, len - 2, names, sizeof(names)) > 1)
		return opt_error(p, "%.*s: ambiguous, it begins %s: give more of the name",
				 (int)len, bad, names);
	return opt_error(p, "%.*s: unknown option", (int)len, bad);
}

/*
 * Whether WORD, given to O as a value of its own word, is "--" or (unless O
 * is FOREIGN) an option of P: a long name or a prefix of one, or -X with X
 * a short option. The user left the value out: says so and returns
 * EXIT_USAGE; else -1.
 */
static int value_is_option(const struct opt_prog *p, const struct opt *o, const char *word)
{
	char names[1024];
	size_t len = strcspn(word, "=");

	if (!strcmp(word, "--"))
		return opt_error(p, "--%s: expected %s, found '--' (the end of the options): "
				 "give the value before it", o->name, o->arg);
	if (o->foreign || word[0] != '-' || !word[1])
		return -1;
	if (word[1] == '-' ? prefix_matches(p, word + 2, len - 2, names, sizeof(names)) == 0 :
			     !short_option(p, word[1]))
		return -1;
	return opt_error(p, "--%s: expected %s, found the option %.*s (a value that begins "
			 "with '-': --%s=VALUE)", o->name, o->arg, (int)len, word, o->name);
}

/* Whether the row named NAME (LEN bytes) is among GIVEN. */
static bool name_given(const struct opt_prog *p, const char *name, size_t len, uint64_t given)
{
	const struct opt *o = long_option(p, name, len);

	return o && (given >> (o - p->opts) & 1);
}

/* Checks the NEEDS and EXCLUDES of the options GIVEN. Returns -1 or EXIT_USAGE. */
static int check_together(const struct opt_prog *p, uint64_t given)
{
	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];
		const char *x = o->excludes;

		if (!(given >> i & 1))
			continue;
		if (o->needs && !name_given(p, o->needs, strlen(o->needs), given))
			return opt_error(p, "--%s needs --%s", o->name, o->needs);
		while (x && *x) {
			size_t len = strcspn(x, " ");

			if (name_given(p, x, len, given))
				return opt_error(p, "--%s does not go with --%.*s", o->name, (int)len, x);
			x += len + (x[len] == ' ');
		}
	}
	return -1;
}

/*
 * After "--" every word is an operand (an input file, where no command
 * follows): a word there that looks like an option and names no file
 * ("-- trace.data -o out.fxt") was meant as one. Returns -1, or EXIT_USAGE
 * after saying so. ARGV as getopt_long left it (operands after "--" last).
 */
static int option_after_dashes(const struct opt_prog *p, int argc, char **argv)
{
	struct stat st;

	if (optind < 2 || strcmp(argv[optind - 1], "--"))
		return -1;
	for (int i = optind; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] && lstat(argv[i], &st) && errno == ENOENT)
			return opt_error(p, "after --, '%s' is an input file, and there is none: "
					 "put options before --", argv[i]);
	return -1;
}

/* "--" ends the options once: the word after it is an operand, and a second
 * "--" there ("run --trigger F -- -- ./prog") was given twice. Returns -1,
 * or EXIT_USAGE after saying so. ARGV as getopt_long left it. */
static int second_dashes(const struct opt_prog *p, int argc, char **argv)
{
	if (optind < 2 || optind >= argc || strcmp(argv[optind - 1], "--") ||
	    strcmp(argv[optind], "--"))
		return -1;
	return opt_second_dashes(p);
}

int opt_second_dashes(const struct opt_prog *p)
{
	return opt_error(p, "found a second -- after the first: one -- ends the options; "
			 "give it once");
}

int opt_parse(const struct opt_prog *p, int argc, char **argv, int first, void *ctx,
	      int *operand, uint64_t *given_out)
{
	struct option longs[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 3];
	size_t nl = 0, ns = 0;
	uint64_t given = 0;
	int ch;

	if (p->nopts > MAX_OPTS) {
		diag_error("%s: %zu options, more than opttab takes (%d)", p->name, p->nopts,
			   MAX_OPTS);
		return EXIT_RUNTIME;
	}
	if (p->in_order)
		shorts[ns++] = '+';   /* the first operand ends the options */
	shorts[ns++] = ':';   /* a missing value is ':', not '?' */
	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];

		if (!takes(p, o))
			continue;
		longs[nl++] = (struct option){ o->name, !o->arg ? no_argument : o->optional ?
					       optional_argument : required_argument, NULL,
					       256 + (int)i };
		if (o->short_name) {
			shorts[ns++] = o->short_name;
			if (o->arg)
				ns += (size_t)sprintf(shorts + ns, "%s", o->optional ? "::" : ":");
		}
	}
	longs[nl] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';
	ch = single_dash_long(p, argc, argv, first);
	if (ch >= 0)
		return ch;
	/* getopt_long on ARGV[FIRST - 1..]: optind 0 starts it afresh (glibc reads
	 * the ordering, '+' or not, only then), at the word after ARGV[FIRST - 1] */
	argv += first - 1;
	argc -= first - 1;
	opterr = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt *o = ch >= 256 ? &p->opts[ch - 256] :
				      ch == '?' || ch == ':' ? NULL : short_option(p, ch);
		int r;

		if (!o)
			return unknown_option(p, argv[optind - 1]);
		if ((given >> (o - p->opts) & 1) && o->arg && !o->repeatable)
			return opt_error(p, "--%s given twice: give it once (only one value is "
					 "taken)", o->name);
		if (o->arg && !o->optional && optarg == argv[optind - 1] &&
		    (r = value_is_option(p, o, optarg)) >= 0)
			return r;
		given |= 1ULL << (o - p->opts);
		r = apply(p, o, optarg, ctx);
		if (r >= 0)
			return r;
	}
	if (given_out)
		*given_out = given;
	*operand = optind + first - 1;
	if ((ch = second_dashes(p, argc, argv)) >= 0)
		return ch;
	if (!p->in_order && (ch = option_after_dashes(p, argc, argv)) >= 0)
		return ch;
	return check_together(p, given);
}

const char *const opt_formats[] = { [OPT_TEXT] = "text", [OPT_MAN] = "man",
				    [OPT_BASH] = "bash", NULL };

int opt_format_parse(const char *format, enum opt_format *out)
{
	for (size_t i = 0; opt_formats[i]; i++)
		if (!strcmp(format ? format : "text", opt_formats[i])) {
			*out = (enum opt_format)i;
			return 0;
		}
	return -EINVAL;
}

int opt_version(const struct opt_prog *p)
{
	printf("%s %s\n", p->name, SNAPTRACE_VERSION);
	return OPT_DONE;
}

/* "-X, --NAME ARG", "    --NAME[=ARG]" into BUF. */
static void label(const struct opt *o, char *buf, size_t size)
{
	int n = o->short_name ? snprintf(buf, size, "-%c, --%s", o->short_name, o->name) :
				snprintf(buf, size, "    --%s", o->name);

	if (o->arg && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, o->optional ? "[=%s]" : " %s", o->arg);
}

/* Prints the sentence S on F at column *COL, wrapped at HELP_WIDTH. */
static void sentence(FILE *f, int *col, const char *s)
{
	int n = (int)strlen(s);

	if (*col && *col + 1 + n > HELP_WIDTH) {
		fputc('\n', f);
		*col = 0;
	}
	*col += fprintf(f, "%s%s", *col ? " " : "", s);
}

/* How every program reads its options (opt_parse()), said in its help and
 * man page: getopt_long's prefixes, and a value given twice. */
static const char opt_rules[] =
	"A long option may be shortened to any prefix that no other of its options "
	"starts with (one that several start with is refused, naming them). A value "
	"given as a word of its own is neither -- nor one of the options: one "
	"that begins with - is given as --NAME=VALUE. An option with a value is "
	"given once; those that say repeatable add each value.";

/* The rules of NEEDS and EXCLUDES as sentences, wrapped, on F. */
static void print_together(FILE *f, const struct opt_prog *p)
{
	int col = 0;

	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];
		char s[160];

		if (!takes(p, o))
			continue;
		if (o->needs) {
			snprintf(s, sizeof(s), "--%s needs --%s.", o->name, o->needs);
			sentence(f, &col, s);
		}
		for (const char *x = o->excludes; x && *x; ) {
			size_t len = strcspn(x, " ");

			snprintf(s, sizeof(s), "--%s does not go with --%.*s.", o->name, (int)len, x);
			sentence(f, &col, s);
			x += len + (x[len] == ' ');
		}
	}
	if (col)
		fputc('\n', f);
}

/* Prints TEXT's words (a space or '\n' between them) on F from column
 * INDENT, where the line is, wrapped at HELP_WIDTH to INDENT; then '\n'. */
static void wrap(FILE *f, const char *text, int indent)
{
	int col = indent;

	while (*text) {
		int len = (int)strcspn(text, " \n");

		if (len) {
			if (col > indent && col + 1 + len > HELP_WIDTH) {
				fprintf(f, "\n%*s", indent, "");
				col = indent;
			}
			col += fprintf(f, "%s%.*s", col > indent ? " " : "", len, text);
		}
		text += len + (text[len] != '\0');
	}
	fputc('\n', f);
}

static void print_text(FILE *f, const struct opt_prog *p)
{
	const char *section = NULL, *s = p->synopsis;

	/* the synopsis and the description are printed as they are written */
	for (int first = 1; *s; first = 0) {
		size_t len = strcspn(s, "\n");

		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)len, s);
		s += len + (s[len] == '\n');
	}
	fprintf(f, "\n%s", p->description);
	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];
		char lab[80];

		if (!takes(p, o))
			continue;
		if (!section || strcmp(section, o->section)) {
			section = o->section;
			fprintf(f, "\n%s:\n", section);
		}
		label(o, lab, sizeof(lab));
		/* a label too long for its column puts the help on the next line */
		if (strlen(lab) > HELP_COLUMN - 3)
			fprintf(f, "  %s\n%*s", lab, HELP_COLUMN, "");
		else
			fprintf(f, "  %-*s ", HELP_COLUMN - 3, lab);
		wrap(f, o->help, HELP_COLUMN);
	}
	fputc('\n', f);
	wrap(f, opt_rules, 0);
	print_together(f, p);
	if (p->epilogue)
		fprintf(f, "\n%s", p->epilogue);
}

/* TEXT (LEN bytes) in roff: backslashes and dashes escaped, and a line
 * starting with a control character (. or ') made text. */
static void roff(FILE *f, const char *text, size_t len)
{
	bool bol = true;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (bol && (c == '.' || c == '\''))
			fputs("\\&", f);
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else
			fputc(c, f);
		bol = c == '\n';
	}
}

static void roff_str(FILE *f, const char *s)
{
	roff(f, s, strlen(s));
}

/* Paragraphs of TEXT as roff: an empty line is .PP; lines starting with a
 * space are shown as they are (.nf). */
static void roff_text(FILE *f, const char *text)
{
	bool fill = true;

	while (*text) {
		size_t len = strcspn(text, "\n");

		if (len == 0) {
			fputs(fill ? ".PP\n" : ".fi\n.PP\n", f);
			fill = true;
		} else {
			if (fill && text[0] == ' ') {
				fputs(".nf\n", f);
				fill = false;
			} else if (!fill && text[0] != ' ') {
				fputs(".fi\n", f);
				fill = true;
			}
			roff(f, text, len);
			fputc('\n', f);
		}
		text += len + (text[len] == '\n');
	}
	if (!fill)
		fputs(".fi\n", f);
}

static void print_man(FILE *f, const struct opt_prog *p)
{
	const char *section = NULL;

	fputs(".\\\" Generated by opttab (common/opttab.c) from the option table: do not edit.\n",
	      f);
	fputs(".TH ", f);
	for (const char *c = p->name; *c; c++)
		fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, f);
	fprintf(f, " 1 \"\" \"snaptrace %s\" \"snaptrace manual\"\n.SH NAME\n", SNAPTRACE_VERSION);
	roff_str(f, p->name);
	fputs(" \\- ", f);
	roff_str(f, p->summary);
	fputs("\n.SH SYNOPSIS\n.nf\n", f);
	roff_str(f, p->synopsis);
	fputs(".fi\n.SH DESCRIPTION\n", f);
	roff_text(f, p->description);
	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];

		if (!takes(p, o))
			continue;
		if (!section || strcmp(section, o->section)) {
			section = o->section;
			fputs(".SS ", f);
			roff_str(f, section);
			fputc('\n', f);
		}
		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", f);
		roff_str(f, o->name);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(o->optional ? "[=\\fI" : " \\fI", f);
			roff_str(f, o->arg);
			fputs(o->optional ? "\\fR]" : "\\fR", f);
		}
		fputc('\n', f);
		roff_str(f, o->help);
		fputs(o->help[strlen(o->help) - 1] == '.' ? "\n" : ".\n", f);
		if (o->expect) {
			fputs("The value: ", f);
			roff_str(f, o->expect);
			fputs(".\n", f);
		}
		if (o->needs)
			fprintf(f, "Needs \\fB\\-\\-%s\\fR.\n", o->needs);
		if (o->excludes) {
			fputs("Does not go with ", f);
			for (const char *x = o->excludes; *x; ) {
				size_t len = strcspn(x, " ");

				fprintf(f, "%s\\fB\\-\\-", x == o->excludes ? "" : ", ");
				roff(f, x, len);
				fputs("\\fR", f);
				x += len + (x[len] == ' ');
			}
			fputs(".\n", f);
		}
	}
	fputs(".SH NOTES\n", f);
	roff_str(f, opt_rules);
	fputc('\n', f);
	if (p->epilogue) {
		fputs(".PP\n", f);
		roff_text(f, p->epilogue);
	}
	fputs(".SH EXIT STATUS\n0: done; 1: the work failed (bad input, I/O, perf); 2: a usage "
	      "error, said in one line.\n.SH SEE ALSO\n", f);
	roff_str(f, p->see_also);
	fputs("\n.PP\nThe README and docs/design.md of the source tree.\n", f);
}

/* P's name as a shell function name: "_snaptrace_record". */
static void bash_name(FILE *f, const struct opt_prog *p)
{
	fputc('_', f);
	for (const char *c = p->name; *c; c++)
		fputc(*c == '-' ? '_' : *c, f);
}

/*
 * Prints the words ("-X", "--NAME") of P's options on F, SEP between them:
 * all of them when KINDS is 0, else those taking a required value of a
 * kind among the bits of KINDS (1 << enum opt_kind). Returns how many.
 */
static int bash_words(FILE *f, const struct opt_prog *p, const char *sep, unsigned kinds)
{
	int n = 0;

	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];

		if (!takes(p, o) ||
		    (kinds && (!o->arg || o->optional || !(kinds >> o->kind & 1))))
			continue;
		if (o->short_name)
			fprintf(f, "%s-%c", n++ ? sep : "", o->short_name);
		fprintf(f, "%s--%s", n++ ? sep : "", o->name);
	}
	return n;
}

static void print_bash(FILE *f, const struct opt_prog *p)
{
	fputs("# Generated by opttab (common/opttab.c) from the option table of ", f);
	fprintf(f, "%s: do not edit.\n", p->name);
	bash_name(f, p);
	fputs("()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n", f);
	fputs("\tlocal opts='", f);
	bash_words(f, p, " ", 0);
	fputs("'\n", f);
	if (p->commands) {
		fprintf(f, "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W '%s' "
			"-- \"$cur\"))\n\t\treturn\n\tfi\n", p->commands);
		fputs("\tif declare -F \"", f);
		bash_name(f, p);
		fputs("_${COMP_WORDS[1]}\" >/dev/null; then\n\t\t\"", f);
		bash_name(f, p);
		fputs("_${COMP_WORDS[1]}\"\n\t\treturn\n\tfi\n", f);
	}
	fputs("\tcase $prev in\n", f);
	for (size_t i = 0; i < p->nopts; i++) {
		const struct opt *o = &p->opts[i];
		if (!takes(p, o) || o->kind != OPT_CHOICE || !o->arg || o->optional)
			continue;
		fputs("\t", f);
		if (o->short_name)
			fprintf(f, "-%c|", o->short_name);
		fprintf(f, "--%s) COMPREPLY=($(compgen -W '", o->name);
		for (const char *const *c = o->choices, *sep = ""; *c; c++)
			if (**c) {
				fprintf(f, "%s%s", sep, *c);
				sep = " ";
			}
		fputs("' -- \"$cur\")); return ;;\n", f);
	}
	/* files for a path, nothing to offer for another string or a number */
	fputs("\t", f);
	if (bash_words(f, p, "|", 1u << OPT_PATH))
		fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n\t", f);
	if (bash_words(f, p, "|", 1u << OPT_STRING | 1u << OPT_COUNT | 1u << OPT_SIZE |
		       1u << OPT_SECONDS | 1u << OPT_DURATION | 1u << OPT_MILLISECONDS))
		fputs(") return ;;\n\t", f);
	fputs("esac\n", f);
	fputs("\tcase $cur in\n\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
	      "\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n\tesac\n}\n", f);
	fprintf(f, "complete -F ");
	bash_name(f, p);
	fprintf(f, " %s\n", p->name);
}

void opt_print(FILE *f, const struct opt_prog *p, enum opt_format format)
{
	switch (format) {
	case OPT_TEXT:
		print_text(f, p);
		break;
	case OPT_MAN:
		print_man(f, p);
		break;
	case OPT_BASH:
		print_bash(f, p);
		break;
	}
}
