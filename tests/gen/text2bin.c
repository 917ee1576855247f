/* SPDX-License-Identifier: MIT */
/*
 * text2bin: rewrites perf script text into what perf script prints with
 * snaptrace's dlfilter (dlfilter/binrec.h): every branch line the dlfilter
 * would hand over becomes a BRANCH record (a jump within one function a
 * TICK), every other line stays text. Converting the result must write the
 * same FXT as converting the text (tests/cases/cases.test.sh): the binary
 * reader (convert/binstream.c) against the text parser, on every golden case.
 *   text2bin < input.txt > input.bin
 * A line the dlfilter leaves to perf's text stays text: flags other than
 * perf's plain names (tr strt, tr end, br miss), a location printed without
 * its sym or dso column, a symbol without its offset. Exit 1 on a read or
 * write error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binrec.h"
#include "parse.h"

#define MAX_STRINGS 65536

static struct conv_span strings[MAX_STRINGS];   /* [id], id >= 1 */
static uint32_t nstrings;

/* Returns the id of span S, writing its STRING record first when new; 0 for
 * an empty span or when the table is full. */
static uint32_t string_id(struct conv_span s)
{
	struct {
		struct binrec_header h;
		uint32_t id;
	} rec;

	if (s.len == 0 || s.len > BINREC_STRING_MAX)
		return 0;
	for (uint32_t i = 1; i <= nstrings; i++)
		if (conv_span_eq(strings[i], s))
			return i;
	if (nstrings + 1 >= MAX_STRINGS)
		return 0;
	strings[++nstrings] = (struct conv_span){ strndup(s.s, s.len), s.len };
	rec.h = (struct binrec_header){ BINREC_MARK, BINREC_STRING, (uint16_t)(8 + s.len) };
	rec.id = nstrings;
	fwrite(&rec, 1, sizeof(rec), stdout);
	fwrite(s.s, 1, s.len, stdout);
	return nstrings;
}

/* A location as the dlfilter writes it; false when perf's text of it is
 * not what the dlfilter reproduces. */
static int loc_of(const struct conv_loc *loc, struct binrec_loc *r)
{
	static const struct conv_span unknown = { "[unknown]", 9 };

	if (!loc->has_symtext || loc->dso.len == 0 || (loc->sym.len && !loc->has_symoff) ||
	    (!loc->sym.len && loc->has_symoff))
		return 0;
	r->ip = loc->ip;
	r->symoff = loc->symoff;
	r->sym = string_id(loc->sym);
	r->dso = conv_span_eq(loc->dso, unknown) ? 0 : string_id(loc->dso);
	return (r->sym || !loc->sym.len) && (r->dso || conv_span_eq(loc->dso, unknown));
}

/* Writes L (a branch line) as a record. Returns 0 when it stays text. */
static int branch(const struct conv_line *l)
{
	/* The stream's bit of each flag name the dlfilter hands over (binrec.h's
	 * numbers, written out here: the reference of convert/binstream.c's map). */
	static const struct {
		uint32_t conv, bit;
	} names[] = {
		{ CONV_F_CALL, 1u << 0 }, { CONV_F_RETURN, 1u << 1 }, { CONV_F_JCC, 1u << 2 },
		{ CONV_F_JMP, 1u << 3 }, { CONV_F_INT, 1u << 4 }, { CONV_F_IRET, 1u << 5 },
		{ CONV_F_SYSCALL, 1u << 6 }, { CONV_F_SYSRET, 1u << 7 }, { CONV_F_ASYNC, 1u << 8 },
		{ CONV_F_HW_INT, 1u << 9 }, { CONV_F_TX_ABORT, 1u << 10 },
		{ CONV_F_VMENTRY, 1u << 13 }, { CONV_F_VMEXIT, 1u << 14 },
	};
	uint32_t bits = 0, named = 0;
	struct binrec_branch b;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (l->flags & names[i].conv) {
			bits |= names[i].bit;
			named |= names[i].conv;
		}
	if (l->flags & CONV_F_IN_TX)
		bits |= 1u << 16;
	if (!l->has_time || !named || (l->flags & ~(named | CONV_F_IN_TX)) ||
	    l->pid != (int32_t)l->pid || l->tid != (int32_t)l->tid)
		return 0;
	memset(&b, 0, sizeof(b));
	if (!loc_of(&l->from, &b.from) || !loc_of(&l->to, &b.to))
		return 0;
	if (!(l->flags & ~(CONV_F_JCC | CONV_F_JMP | CONV_F_IN_TX)) &&
	    conv_span_eq(l->from.sym, l->to.sym) && conv_span_eq(l->from.dso, l->to.dso)) {
		struct binrec_tick t = { { BINREC_MARK, BINREC_TICK, sizeof(t) },
					 (int32_t)l->pid, (int32_t)l->tid, 0, l->ts };

		fwrite(&t, 1, sizeof(t), stdout);
		return 1;
	}
	b.h = (struct binrec_header){ BINREC_MARK, BINREC_BRANCH, sizeof(b) };
	b.flags = bits;
	b.time = l->ts;
	b.pid = (int32_t)l->pid;
	b.tid = (int32_t)l->tid;
	b.comm = string_id(l->comm);
	if (l->comm.len && !b.comm)
		return 0;
	fwrite(&b, 1, sizeof(b), stdout);
	return 1;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct binrec_version v = { { BINREC_MARK, BINREC_VERSION, sizeof(v) }, BINREC_FORMAT };

	fwrite(&v, 1, sizeof(v), stdout);   /* as the dlfilter starts its stream */
	while ((n = getline(&line, &cap, stdin)) > 0) {
		struct conv_line l;
		size_t len = (size_t)n - (line[n - 1] == '\n');

		conv_parse_line(line, len, &l);
		if (l.kind == CONV_LINE_BRANCH && branch(&l))
			continue;
		fwrite(line, 1, (size_t)n, stdout);
	}
	free(line);
	for (uint32_t i = 1; i <= nstrings; i++)
		free((char *)strings[i].s);
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}
