/* SPDX-License-Identifier: MIT */
/* pltnames: frames in PLT entries named by the entry (see pltnames.h). */
#include "pltnames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "perfsym.h"
#include "srcline.h"

/* The symbol perf 6.1 stretches over a binary's PLT: the zero-size _init
 * of .init, which ld puts right before .plt (.plt.got, .plt.sec follow). */
#define PLT_COVER "_init"

struct conv_pltdso {
	char *path;                /* the dso as perf printed it; owned */
	size_t len;
	struct perfsym_dso *syms;  /* NULL: no PLT; else its syms are only those over
				    * an entry of its plt */
};

static bool overlaps(const struct perfsym *s, const struct perfsym_dso *d)
{
	uint64_t end = s->end > s->start ? s->end : s->start + 1;

	for (size_t i = 0; i < d->nplt; i++)
		if (s->start < d->plt[i].end && d->plt[i].start < end)
			return true;
	return false;
}

/* Reads the binary PATH: its PLT and the symbols over it (none kept when
 * none lies over it: its [unknown] frames are named by the entries alone),
 * NULL when it has no PLT. */
static struct perfsym_dso *read_plt(struct conv *c, const char *path)
{
	struct perfsym_dso *d;
	size_t i, j;

	/* the file perf named the frames from (under the symfs): the kept
	 * copy of a binary rebuilt since */
	if (!(d = srcline_symbols(c->srcline, path, strlen(path)))) {
		c->nomem = true;
		return NULL;
	}
	/* another build than the recording's: its PLT is not the one run */
	if (!d->nplt || !binaries_is_recorded(c->binaries, path, strlen(path), d->build_id)) {
		perfsym_free(d);
		return NULL;
	}
	for (i = 0, j = 0; i < d->n; i++) {
		if (overlaps(&d->syms[i], d))
			d->syms[j++] = d->syms[i];
		else
			free(d->syms[i].name);
	}
	d->n = j;
	return d;
}

static struct conv_pltdso *dso_of(struct conv *c, struct conv_span dso)
{
	struct conv_pltdso *p;
	char path[4096];

	for (size_t i = 0; i < c->npltdsos; i++)
		if (c->pltdsos[i].len == dso.len && !memcmp(c->pltdsos[i].path, dso.s, dso.len))
			return &c->pltdsos[i];
	if (dso.len >= sizeof(path) || !(p = array_grow(c->pltdsos, &c->cappltdsos, c->npltdsos,
							 sizeof(*p)))) {
		c->nomem |= dso.len < sizeof(path);
		return NULL;
	}
	c->pltdsos = p;
	memcpy(path, dso.s, dso.len);
	path[dso.len] = '\0';
	p = &c->pltdsos[c->npltdsos];
	/* all LEN bytes, a NUL among them too (a binary stream's name, which
	 * names no file: srcline_no_binary()): the name is compared by them */
	if (!(p->path = malloc(dso.len + 1))) {
		c->nomem = true;
		return NULL;
	}
	memcpy(p->path, path, dso.len + 1);
	p->len = dso.len;
	p->syms = srcline_no_binary(path, dso.len) ? NULL : read_plt(c, path);
	c->npltdsos++;
	return p;
}

void conv_plt_cover(struct conv *c, struct conv_func *f, struct conv_span sym,
		    struct conv_span dso)
{
	const struct conv_pltdso *p;

	f->plt = NULL;
	f->plt_cover = NULL;
	/* only the symbol perf stretches over a PLT and the [unknown] of a binary
	 * (perf 6.1 names no entry of .plt.got nor .plt.sec) read the binary:
	 * every other function would read each binary's whole symbol table for
	 * nothing */
	if (sym.len ? f->unknown || sym.len != sizeof(PLT_COVER) - 1 ||
		      memcmp(sym.s, PLT_COVER, sym.len) : !f->unknown)
		return;
	if (!dso.len || dso.s[0] != '/' || !(p = dso_of(c, dso)) || !p->syms)
		return;
	if (!sym.len) {
		f->plt = p->syms;
		return;
	}
	for (size_t i = 0; i < p->syms->n; i++) {
		const struct perfsym *s = &p->syms->syms[i];

		if (strlen(s->name) == sym.len && !memcmp(s->name, sym.s, sym.len)) {
			f->plt = p->syms;
			f->plt_cover = s;
			return;
		}
	}
}

bool conv_plt_name(const struct conv_func *f, bool chain, struct conv_loc *loc)
{
	uint64_t off;

	if (!f->plt || (f->plt_cover ? !loc->has_symoff : !chain))
		return false;
	off = f->plt_cover ? f->plt_cover->start + loc->symoff : loc->ip;
	for (size_t i = 0; i < f->plt->nplt; i++) {
		const struct perfsym *e = &f->plt->plt[i];

		if (off >= e->start && off < e->end) {
			loc->sym = (struct conv_span){ e->name, (uint32_t)strlen(e->name) };
			loc->symoff = off - e->start;
			loc->has_symoff = true;
			loc->func = NULL;
			return true;
		}
	}
	return false;
}

void conv_plts_free(struct conv *c)
{
	for (size_t i = 0; i < c->npltdsos; i++) {
		free(c->pltdsos[i].path);
		perfsym_free(c->pltdsos[i].syms);
	}
	free(c->pltdsos);
	c->pltdsos = NULL;
	c->npltdsos = c->cappltdsos = 0;
}
