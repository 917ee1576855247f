/* SPDX-License-Identifier: MIT */
/*
 * The option-table engine (common/opttab.c) on a table of its own: each
 * kind of value into its field (4 and 8 bytes), bounds, choices and
 * optional values, setters and their returns, a row of another verb
 * refused, needs and excludes, in-order and permuted operands, the
 * one-dash spelling of a long option, an ambiguous prefix, a value left
 * out ("--" or an option taken for it), and one line per usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "opttab.h"
#include "unit.h"
#include "unit_tmp.h"

struct ctx {
	bool flag, other;
	const char *name;
	int color;               /* an enum */
	unsigned count;          /* 4 bytes */
	uint64_t size, ns;       /* 8 bytes */
	const char *level;       /* --level[=L]: NULL, or the word */
	const char *pass;        /* --pass ARG: another program's argument */
	int nlevel;
	uint64_t setter_num;
};

static int set_ns(void *ctx, const char *arg, uint64_t num)
{
	(void)arg;
	((struct ctx *)ctx)->setter_num = num;
	return num == 42 ? -ERANGE : 0;   /* a setter's own refusal */
}

static int set_level(void *ctx, const char *arg, uint64_t num)
{
	struct ctx *c = ctx;

	c->level = arg;
	c->nlevel = (int)num;
	return 0;
}

static int say_done(void *ctx, const char *arg, uint64_t num)
{
	(void)ctx, (void)arg, (void)num;
	return OPT_DONE;
}

static const char *const colors[] = { "red", "green", "blue", NULL };
static const char *const levels[] = { "", "low", "high", NULL };

#define A 1
#define B 2
#define F(m) OPT_FIELD(struct ctx, m)

static const struct opt rows[] = {
	{ "flag", 'f', .kind = OPT_FLAG, F(flag), .verbs = A | B, .section = "s", .help = "h" },
	{ "name", 'n', .kind = OPT_STRING, .arg = "NAME", F(name), .verbs = A | B, .section = "s",
	  .help = "h" },
	{ "color", 0, .kind = OPT_CHOICE, .arg = "C", .choices = colors, F(color), .verbs = A,
	  .section = "s", .help = "h" },
	{ "count", 'c', .kind = OPT_COUNT, .arg = "N", .min = 1, .max = 10, F(count),
	  .expect = "1 to 10", .verbs = A, .section = "s", .help = "h", .needs = "flag" },
	{ "size", 0, .kind = OPT_SIZE, .arg = "BYTES", .min = 4096, .max = 1 << 30, F(size),
	  .verbs = A, .section = "s", .help = "h" },
	{ "wait", 0, .kind = OPT_SECONDS, .arg = "S", .max = 1000000000000ULL, .set = set_ns,
	  .verbs = A, .section = "s", .help = "h" },
	{ "within", 0, .kind = OPT_DURATION, .arg = "D", .min = 1, .max = 1000000000, F(ns),
	  .verbs = A, .section = "s", .help = "h", .excludes = "other level" },
	{ "level", 0, .kind = OPT_CHOICE, .arg = "L", .optional = true, .choices = levels,
	  .set = set_level, .verbs = A, .section = "s", .help = "h" },
	{ "other", 0, .kind = OPT_FLAG, F(other), .verbs = A, .section = "s", .help = "h" },
	{ "bonly", 0, .kind = OPT_FLAG, F(other), .verbs = B, .section = "s", .help = "h" },
	{ "done", 0, .kind = OPT_FLAG, .set = say_done, .verbs = A, .section = "s", .help = "h" },
	{ "pass", 0, .kind = OPT_STRING, .arg = "ARG", .foreign = true, F(pass), .verbs = A,
	  .section = "s", .help = "h" },
};

static struct opt_prog prog = {
	.name = "t", .help_cmd = "t --help", .summary = "s", .synopsis = "t\n",
	.description = "d\n", .see_also = "x(1)", .opts = rows,
	.nopts = sizeof(rows) / sizeof(rows[0]), .verbs = A,
};

static char errpath[300];

/* Parses the words of ARGS (NULL-terminated) into *C; *OPERAND: the first
 * operand's index; *LINES: the lines it printed on stderr. Returns opt_parse()'s. */
static int parse(struct ctx *c, int *operand, int *lines, const char *const *args)
{
	char *argv[32] = { "t" };
	int argc = 1, rc, ch;
	FILE *f;

	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	*c = (struct ctx){ 0 };
	*operand = -1;
	fflush(stderr);
	if (!freopen(errpath, "w", stderr))
		return -100;
	rc = opt_parse(&prog, argc, argv, 1, c, operand, NULL);
	fflush(stderr);
	*lines = 0;
	f = fopen(errpath, "r");
	while (f && (ch = fgetc(f)) != EOF)
		*lines += ch == '\n';
	if (f)
		fclose(f);
	return rc;
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void values_into_fields(void)
{
	struct ctx c;
	int op, lines;

	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("-f", "--name=x", "--color", "blue", "-c", "7",
						 "--size", "8K", "--within", "1.5ms", "in")), -1);
	CHECK(c.flag);
	CHECK_STR_EQ(c.name, "x");
	CHECK_INT_EQ(c.color, 2);
	CHECK_INT_EQ(c.count, 7);
	CHECK_U64_EQ(c.size, 8192);
	CHECK_U64_EQ(c.ns, 1500000);
	CHECK_INT_EQ(op, 11);
	CHECK_INT_EQ(lines, 0);
}

static void setters(void)
{
	struct ctx c;
	int op, lines;

	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--wait", "0.25")), -1);
	CHECK_U64_EQ(c.setter_num, 250000000);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--level")), -1);
	CHECK(c.level == NULL);
	CHECK_INT_EQ(c.nlevel, 0);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--level=high")), -1);
	CHECK_STR_EQ(c.level, "high");
	CHECK_INT_EQ(c.nlevel, 2);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--wait", "42ns")), EXIT_USAGE);
	CHECK_INT_EQ(lines, 1);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--done", "--bogus")), EXIT_OK);
	CHECK_INT_EQ(lines, 0);
}

/* Each of these is one line on stderr and exit 2. */
static void usage_errors(void)
{
	const char *const *const bad[] = {
		ARGS("-c", "0", "-f"), ARGS("-c", "11", "-f"), ARGS("-c", "1e1", "-f"),
		ARGS("--size", "1K"), ARGS("--size", "nan"), ARGS("--within", "5"),
		ARGS("--color", "pink"), ARGS("--color", ""), ARGS("--level=mid"),
		ARGS("--flag=yes"), ARGS("--name"), ARGS("-n"), ARGS("-x"), ARGS("--bogus"),
		ARGS("--bonly"), ARGS("-count", "3"), ARGS("-c", "3"),
		ARGS("--within", "1ms", "--other"), ARGS("--level", "--within", "1ms"),
		/* a prefix of several (issue 24: "unknown option") */
		ARGS("--w", "1"), ARGS("--co=3", "-f"),
		/* a value left out: "--" or an option taken as the value (issue 24) */
		ARGS("--name", "--", "cmd"), ARGS("--name", "--flag"), ARGS("-n", "-f"),
		ARGS("--name", "--fl"), ARGS("--count", "--", "-f"), ARGS("--pass", "--"),
	};
	struct ctx c;
	int op, lines;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(&c, &op, &lines, bad[i]);

		if (rc != EXIT_USAGE || lines != 1)
			UNIT_FAIL("case %zu (%s %s): exit %d, %d lines", i, bad[i][0],
				  bad[i][1] ? bad[i][1] : "", rc, lines);
	}
}

/* The candidates of an ambiguous prefix are named; a value that looks like
 * an option is taken when it is none, when given with '=', or by a foreign row. */
static void prefixes_and_values(void)
{
	struct ctx c;
	int op, lines;
	char line[512] = "";
	FILE *f;

	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--wi", "1ms")), -1);   /* one: within */
	CHECK_U64_EQ(c.ns, 1000000);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--w", "1ms")), EXIT_USAGE);
	f = fopen(errpath, "r");
	CHECK(f && fgets(line, sizeof(line), f));
	if (f)
		fclose(f);
	CHECK(strstr(line, "--w: ambiguous") && strstr(line, "--wait or --within"));
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--name=--flag")), -1);
	CHECK_STR_EQ(c.name, "--flag");
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--name", "-x")), -1);   /* no option -x */
	CHECK_STR_EQ(c.name, "-x");
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--name", "-")), -1);
	CHECK_STR_EQ(c.name, "-");
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--pass", "--flag")), -1);
	CHECK_STR_EQ(c.pass, "--flag");
	CHECK(!c.flag);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--pass=--", "-f")), -1);
	CHECK_STR_EQ(c.pass, "--");
	CHECK(c.flag);
}

static void operands(void)
{
	struct ctx c;
	int op, lines;
	char line[512] = "";
	FILE *f;
	int here;

	/* permuted: an option after an operand is still one */
	prog.in_order = false;
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("in", "-f")), -1);
	CHECK(c.flag);
	CHECK_INT_EQ(op, 2);
	/* in order: the first operand ends the options (a command and its own) */
	prog.in_order = true;
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("-f", "cmd", "-x", "-other")), -1);
	CHECK_INT_EQ(op, 2);
	CHECK(!c.other);
	/* "--" ends them too */
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--", "-x")), -1);
	CHECK_INT_EQ(op, 2);
	prog.in_order = false;
	/* operands that are files: after "--", a word like an option that names no
	 * file was meant as one (issue 24: "-- in -o out" read "-o" as an input) */
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("-f", "--", "in", "-o", "out")), EXIT_USAGE);
	CHECK_INT_EQ(lines, 1);
	f = fopen(errpath, "r");
	CHECK(f && fgets(line, sizeof(line), f));
	if (f)
		fclose(f);
	CHECK(strstr(line, "after --, '-o' is an input file") &&
	      strstr(line, "put options before --"));
	/* "-" (standard input) and a file that is there are inputs */
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--", "in", "-", "-minus")), EXIT_USAGE);
	f = fopen(unit_tmp("-minus"), "w");
	if (f)
		fclose(f);
	here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(here >= 0 && chdir(unit_tmp(".")) == 0);
	CHECK_INT_EQ(parse(&c, &op, &lines, ARGS("--", "in", "-", "-minus")), -1);
	CHECK_INT_EQ(op, 2);
	CHECK(here >= 0 && fchdir(here) == 0);
	if (here >= 0)
		close(here);
}

static void formats(void)
{
	enum opt_format f;

	CHECK_INT_EQ(opt_format_parse(NULL, &f), 0);
	CHECK_INT_EQ(f, OPT_TEXT);
	CHECK_INT_EQ(opt_format_parse("man", &f), 0);
	CHECK_INT_EQ(f, OPT_MAN);
	CHECK_INT_EQ(opt_format_parse("bash", &f), 0);
	CHECK_INT_EQ(f, OPT_BASH);
	CHECK_INT_EQ(opt_format_parse("html", &f), -EINVAL);
	CHECK(opt_find(&prog, "count") == &rows[3]);
	CHECK(opt_find(&prog, "bonly") == NULL);   /* verb B's */
}

int main(void)
{
	if (unit_tmp_init("test_opttab"))
		return 1;
	snprintf(errpath, sizeof(errpath), "%s", unit_tmp("stderr"));
	diag_init("t");
	UNIT_RUN(values_into_fields);
	UNIT_RUN(setters);
	UNIT_RUN(usage_errors);
	UNIT_RUN(prefixes_and_values);
	UNIT_RUN(operands);
	UNIT_RUN(formats);
	unit_tmp_fini();
	return unit_exit();
}
