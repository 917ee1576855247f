/* SPDX-License-Identifier: MIT */
/*
 * Measured calls (--measure; docs/design.md "Measured calls"): the measured
 * functions of the recordings converted, the calls their calls files hold
 * (record/measure.h: "INDEX PID TID ENTRY_NS RETURN_NS" a line), sorted by
 * thread and entry for the call-chain builder (chain.c), which draws each
 * as an exact slice, and each function's calls of the whole recording as
 * an info record for snaptrace-stats.
 */
#include "measured.h"

#include "demangle.h"
#include "escape.h"
#include "funcs.h"
#include "funcspec.h"
#include "perfsym.h"
#include "srcline.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"

/* The calls a recording's calls file may hold at most (40 bytes each). */
#define CONV_MCALLS_MAX (UINT64_C(1) << 24)

/* The function of a measured function's slices: its SYMBOL (record.json's,
 * or NULL) as perf names frames (demangle_frame_name), else NAME (perf's
 * name as the recorder wrote it: before issue 24's fix, a template
 * function's kept its return type, "int f<int>" where perf has "f<int>"),
 * in binary DSO, or the overload of that name whose entry is VADDR (its
 * link-time address), named as its sampled frames are (conv_func_overload).
 * A function with no name (a stripped file's: SYMBOL and NAME "", as older
 * recorders wrote them) is named by VADDR (funcspec_unnamed), never the
 * unknown function of DSO that every unsymbolized frame there is (issue 24:
 * its calls took the names of whatever frames of the file the samples
 * showed, one row each). NULL when out of memory. */
static const struct conv_func *measured_func(struct conv *c, const char *symbol,
					     const char *name, const char *dso, uint64_t vaddr)
{
	char buf[1024];
	const struct conv_func *f;

	if (symbol && demangle_frame_name(symbol, buf, sizeof(buf)))
		name = buf;
	else if (!*name)
		name = funcspec_unnamed(vaddr, buf, sizeof(buf));
	f = conv_func_get(c, (struct conv_span){ name, (uint32_t)strlen(name) },
			  (struct conv_span){ dso, (uint32_t)strlen(dso) });
	return symbol && !*symbol ? f : conv_func_overload(c, f, vaddr, vaddr != 0);
}

/* Writes M's calls of the whole recording, of function FN (its slices'
 * name), as an info record (fxt_writer.h FXT_INFO_MEASURED). */
static void info(struct conv *c, const struct recording_measure *m, const struct conv_func *fn)
{
	char *v = NULL, *p;
	size_t len = 0;
	FILE *f = fn ? open_memstream(&v, &len) : NULL;	/* !FN: out of memory */

	if (!f) {
		c->nomem = true;
		return;
	}
	fprintf(f, "function=%.*s\tdso=%s\tcalls=%" PRIu64 "\ttotal_ns=%" PRIu64, (int)fn->symlen,
		fn->key, m->file, m->calls, m->total_ns);
	if (m->calls)
		fprintf(f, "\tmin_ns=%" PRIu64 "\tp50_ns=%" PRIu64 "\tp90_ns=%" PRIu64 "\tp99_ns=%" PRIu64
			"\tmax_ns=%" PRIu64, m->min_ns, m->p50_ns, m->p90_ns, m->p99_ns, m->max_ns);
	if (m->calls_unrecorded) {
		fprintf(f, "\tcalls_unrecorded=%" PRIu64 "\tthreads_unrecorded=", m->calls_unrecorded);
		for (size_t i = 0; i < m->nthreads_unrecorded; i++)
			fprintf(f, "%s%" PRId64, i ? "," : "", m->threads_unrecorded[i]);
	}
	fputs("\tbuckets=", f);
	for (size_t i = 0; i < m->nbuckets; i++)
		fprintf(f, "%s%" PRIu64 ":%" PRIu64 ":%" PRIu64, i ? "," : "", m->buckets[i].from,
			m->buckets[i].below, m->buckets[i].calls);
	if (fclose(f)) {
		free(v);
		c->nomem = true;
		return;
	}
	for (p = v; *p; p++)	/* names hold no tab or newline: keep the fields apart */
		if (*p == '\n')
			*p = ' ';
	fxt_writer_info(c->w, fxt_writer_cstring(c->w, FXT_INFO_NAME),
			fxt_writer_cstring(c->w, FXT_INFO_MEASURED), fxt_writer_cstring(c->w, v));
	free(v);
}

/* Reads the unsigned decimal word at *P (then a blank or the end) into *OUT. */
static bool word(const char **p, uint64_t *out)
{
	const char *s = *p;

	*out = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (*out > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		*out = *out * 10 + (uint64_t)(*s - '0');
	}
	if (s == *p || (*s && *s != ' '))
		return false;
	*p = *s ? s + 1 : s;
	return true;
}

/* Reads at *P the caller word of the calls file (a signed decimal with its
 * sign, or "?"), then a blank or the end, into *OFF (*KNOWN: not "?"). */
static bool caller_word(const char **p, int64_t *off, bool *known)
{
	const char *s = *p;
	uint64_t v;

	*known = false;
	*off = 0;
	if (s[0] == '?' && (!s[1] || s[1] == ' ')) {
		*p = s[1] ? s + 2 : s + 1;
		return true;
	}
	if (*s != '+' && *s != '-')
		return false;
	*p = s + 1;
	if (!word(p, &v) || v > INT64_MAX)
		return false;
	*off = *s == '-' ? -(int64_t)v : (int64_t)v;
	*known = true;
	return true;
}

/* Appends call M to C->mcalls (at most CONV_MCALLS_MAX). Returns 0, or -1
 * when out of memory (c->nomem set). */
static int add_call(struct conv *c, const struct conv_mcall *m)
{
	struct conv_mcall *mc;

	if (c->nmcalls >= CONV_MCALLS_MAX)
		return 0;
	mc = array_grow(c->mcalls, &c->capmcalls, c->nmcalls, sizeof(*mc));
	if (!mc) {
		c->nomem = true;
		return -1;
	}
	c->mcalls = mc;
	c->mcalls[c->nmcalls++] = *m;
	return 0;
}

/* Reads the calls file of M, a measure of recording R whose functions are
 * mfuncs [FIRST, FIRST + R->nmeasures). Returns 0 (out of memory sets
 * c->nomem), or -EINVAL with ERR (SIZE bytes) set. */
static int read_calls(struct conv *c, const struct recording *r, const struct recording_measure *m,
		      size_t first, char *err, size_t size)
{
	const char *path = m->calls_path;
	size_t lineno = 0, n = r->nmeasures;
	char line[256], why[160];
	int fd = recording_open(r, m->calls_file, 0, why, sizeof(why));
	FILE *f;

	if (fd < 0) {
		snprintf(err, size, "%s: expected the recording's file of measured calls, found %s",
			 path, why);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		c->nomem = true;
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;
		uint64_t idx, pid, tid, entry, ret;
		int64_t off = 0;
		bool thrown, known = false;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (lineno == 1 && !strncmp(line, "# ", 2))
			continue;
		bool ok = word(&p, &idx) && word(&p, &pid) && word(&p, &tid) && word(&p, &entry) &&
			  word(&p, &ret);

		/* version 2 (version 1 ends here): where the caller resumes, then
		 * "exception" for a call left by one, ended at its catch */
		if (ok && *p)
			ok = caller_word(&p, &off, &known);
		thrown = ok && !strcmp(p, "exception");
		if (!ok || (*p && !thrown) || idx >= n || !pid || pid > 0x7fffffff || !tid ||
		    tid > 0x7fffffff || entry > ret || ret > CONV_TS_MAX) {
			char shown[ESC_EXCERPT_SIZE];

			snprintf(err, size, "%s:%zu: expected INDEX PID TID ENTRY_NS END_NS CALLER "
				 "[exception] (an index of record.json's measure, entry at or before "
				 "the end, CALLER +N, -N or ?), found '%s'", path, lineno,
				 esc_excerpt(shown, line, strlen(line)));
			fclose(f);
			return -EINVAL;
		}
		if (add_call(c, &(struct conv_mcall){ .pid = (int64_t)pid, .tid = (int64_t)tid,
					.entry = entry, .ret = ret, .mfunc = (uint32_t)(first + idx),
					.thrown = thrown,
					.caller = known && c->mfuncs[first + idx].vaddr ?
						  c->mfuncs[first + idx].vaddr + (uint64_t)off : 0 }))
			break;
	}
	fclose(f);
	return 0;
}

static int by_thread_entry(const void *x, const void *y)
{
	const struct conv_mcall *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->entry != b->entry)
		return a->entry < b->entry ? -1 : 1;
	return a->ret > b->ret ? -1 : a->ret < b->ret;   /* an outer call first */
}

/* The hits of a slow-call trigger read as calls of its function (MFUNC). */
struct hit_calls {
	struct conv *c;
	uint32_t mfunc;
};

/* recording_hits()'s callback: hit H, the return (or catch) of a call
 * slower than the threshold, with its "entry_ns" and "duration_ns", as a
 * call of the trigger's function. Returns 0 (out of memory: c->nomem). */
static int hit_call(void *arg, const struct recording_hit *h)
{
	const struct hit_calls *hc = arg;
	struct conv_mcall m = { .pid = h->pid, .tid = h->tid, .mfunc = hc->mfunc };
	uint64_t dur = 0, vaddr = hc->c->mfuncs[hc->mfunc].vaddr;
	int known = 0;

	for (size_t k = 0; k < h->nextra; k++) {
		const struct recording_field *f = &h->extra[k];
		bool num = !f->str && !f->is_bool && !f->is_unsigned && f->i64 >= 0;

		if (num && !strcmp(f->name, "entry_ns") && ++known)
			m.entry = (uint64_t)f->i64;
		else if (num && !strcmp(f->name, "duration_ns") && ++known)
			dur = (uint64_t)f->i64;
		else if (f->str && !strcmp(f->name, "left_by"))
			m.thrown = !strcmp(f->str, "exception");
		else if (!f->str && !f->is_bool && !f->is_unsigned && !strcmp(f->name, "caller") &&
			 vaddr)   /* where the caller resumes, as the calls file's CALLER */
			m.caller = vaddr + (uint64_t)f->i64;
	}
	if (known != 2 || m.entry > CONV_TS_MAX || dur > CONV_TS_MAX - m.entry)
		return 0;	/* no call known: a plain trigger's hit */
	m.ret = m.entry + dur;
	add_call(hc->c, &m);
	return 0;
}

/* Whether R's slow-call trigger has calls to draw from its hits: it has
 * them, its function is known, and no --measure of R draws it already. */
static bool slow_trigger_calls(const struct recording *r)
{
	if (!r->slower_than_ns || !r->trigger_name || !r->trigger_file || !r->nhits)
		return false;
	for (size_t i = 0; i < r->nmeasures; i++)
		if (!strcmp(r->measures[i].file, r->trigger_file) &&
		    (r->measures[i].vaddr == r->trigger_vaddr ||
		     (*r->trigger_name && !strcmp(r->measures[i].name, r->trigger_name))))
			return false;
	return true;
}

int conv_measured_add(struct conv *c, const struct recording *r, char *err, size_t size)
{
	size_t first = c->nmfuncs;
	bool hits = slow_trigger_calls(r);
	struct conv_mfunc *mf;

	if (!r->nmeasures && !hits)
		return 0;
	mf = realloc(c->mfuncs, (first + r->nmeasures + hits) * sizeof(*mf));
	if (!mf) {
		c->nomem = true;
		return 0;
	}
	c->mfuncs = mf;
	for (size_t i = 0; i < r->nmeasures; i++) {
		const struct recording_measure *m = &r->measures[i];
		const struct conv_func *f = measured_func(c, m->symbol, m->name, m->file, m->vaddr);

		c->mfuncs[c->nmfuncs++] = (struct conv_mfunc){
			.func = f, .file = m->file, .vaddr = m->vaddr,
		};
		info(c, m, f);
	}
	/* the functions of one recording share one calls file */
	for (size_t i = 0; i < r->nmeasures; i++) {
		if (!r->measures[i].calls_path || (i && r->measures[i - 1].calls_path &&
		    !strcmp(r->measures[i].calls_path, r->measures[i - 1].calls_path)))
			continue;
		if (read_calls(c, r, &r->measures[i], first, err, size))
			return -EINVAL;
	}
	if (hits) {
		struct hit_calls hc = { .c = c, .mfunc = (uint32_t)c->nmfuncs };

		c->mfuncs[c->nmfuncs++] = (struct conv_mfunc){
			.func = measured_func(c, r->trigger_symbol, r->trigger_name, r->trigger_file,
					      r->trigger_vaddr),
			.file = r->trigger_file,
			.vaddr = r->trigger_vaddr,
		};
		if (recording_hits(r, hit_call, &hc, err, size) < 0)
			return -EINVAL;
	}
	if (c->nmcalls)
		array_sort(c->mcalls, c->nmcalls, sizeof(*c->mcalls), by_thread_entry);
	return 0;
}

void conv_measured_thread(struct conv *c, struct conv_thread *t)
{
	size_t lo = 0, hi = c->nmcalls;

	t->mlooked = true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct conv_mcall *m = &c->mcalls[mid];

		if (m->pid < t->pid || (m->pid == t->pid && m->tid < t->tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	t->mnext = t->mend = lo;
	while (t->mend < c->nmcalls && c->mcalls[t->mend].pid == t->pid &&
	       c->mcalls[t->mend].tid == t->tid)
		t->mend++;
}

bool conv_measured_frame(const struct conv *c, const struct conv_func *func, uint64_t sym_start,
			 uint32_t mfunc)
{
	const struct conv_mfunc *m = &c->mfuncs[mfunc];
	size_t len = strlen(m->file);

	if (func == m->func)
		return true;
	return sym_start == m->vaddr && func->dsolen == len &&
	       !memcmp(func->key + func->symlen, m->file, len);
}

/* Whether sampled frame F is a call site of MF learned. */
static bool learned_site(const struct conv_mfunc *mf, const struct conv_site *f)
{
	for (unsigned i = 0; i < mf->nsites; i++)
		if (mf->sites[i].func == f->func && mf->sites[i].ip == f->ip)
			return true;
	return false;
}

void conv_measured_learn(struct conv *c, const struct conv_site *frames, size_t n)
{
	for (uint32_t k = 0; k < c->nmfuncs; k++) {
		struct conv_mfunc *mf = &c->mfuncs[k];

		for (size_t i = 0; i + 1 < n && mf->nsites < CONV_MSITES; i++) {
			const struct conv_site *f = &frames[i], *caller = &frames[i + 1];

			if (!conv_measured_frame(c, f->func, f->has_symoff ? f->ip - f->symoff : 0, k) ||
			    learned_site(mf, caller))
				continue;
			mf->sites[mf->nsites++] = (struct conv_msite){ caller->func, caller->ip };
		}
	}
}

/* Whether FUNC is of MF's binary (the dso its samples name). */
static bool in_binary(const struct conv_mfunc *mf, const struct conv_func *func)
{
	size_t len = strlen(mf->file);

	return func->dsolen == len && !memcmp(func->key + func->symlen, mf->file, len);
}

bool conv_measured_in_binary(const struct conv *c, uint32_t mfunc, const struct conv_func *func)
{
	return in_binary(&c->mfuncs[mfunc], func);
}

bool conv_measured_callsite(const struct conv *c, const struct conv_site *f, uint32_t mfunc,
			    uint64_t caller)
{
	const struct conv_mfunc *mf = &c->mfuncs[mfunc];

	if (caller)
		return f->ip == caller && in_binary(mf, f->func);
	return learned_site(mf, f);
}

/* The entry of MF's names of return addresses for CALLER, or NULL. */
static const struct conv_mnamed *named(const struct conv_mfunc *mf, uint64_t caller)
{
	for (unsigned i = 0; i < CONV_MSITES; i++)
		if (mf->named[i].caller == caller)
			return &mf->named[i];
	return NULL;
}

void conv_measured_name_caller(struct conv *c, const struct conv_mcall *m)
{
	struct conv_mfunc *mf = &c->mfuncs[m->mfunc];
	struct conv_mnamed *e;
	const struct perfsym *s;

	if (!m->caller || named(mf, m->caller))
		return;
	if (!mf->syms_read) {
		mf->syms_read = true;
		/* the file perf named the frames from: the kept copy of a
		 * binary rebuilt since, none when it changed without one */
		if (!(mf->syms = srcline_symbols(c->srcline, mf->file, strlen(mf->file))))
			c->nomem = true;
	}
	e = &mf->named[mf->nnamed++ % CONV_MSITES];
	*e = (struct conv_mnamed){ .caller = m->caller };
	if (!mf->syms || !(s = perfsym_lookup_vaddr(mf->syms, m->caller)) || !*s->name)
		return;
	e->start = s->vaddr;
	e->func = conv_func_get(c, (struct conv_span){ s->name, (uint32_t)strlen(s->name) },
				(struct conv_span){ mf->file, (uint32_t)strlen(mf->file) });
	if (e->func)
		e->func = conv_func_overload(c, e->func, e->start, false);
}

bool conv_measured_caller_site(const struct conv *c, const struct conv_mcall *m,
			       struct conv_site *site)
{
	const struct conv_mnamed *e = m->caller ? named(&c->mfuncs[m->mfunc], m->caller) : NULL;

	if (!e || !e->func)
		return false;
	*site = (struct conv_site){ .ip = m->caller, .func = e->func,
				    .symoff = m->caller - e->start, .has_symoff = true };
	return true;
}

bool conv_measured_caller_may_be(const struct conv *c, const struct conv_mcall *m,
				 const struct conv_func *func, uint64_t sym_start)
{
	const struct conv_mfunc *mf = &c->mfuncs[m->mfunc];
	const struct conv_mnamed *e;

	if (!m->caller || !in_binary(mf, func))
		return false;
	if ((e = named(mf, m->caller)) && e->func)
		return e->func == func;		/* its symbol says */
	for (unsigned i = 0; i < mf->nsites; i++)
		if (mf->sites[i].ip == m->caller && in_binary(mf, mf->sites[i].func))
			return mf->sites[i].func == func;	/* the return address's function */
	return sym_start && sym_start <= m->caller;
}

void conv_measured_free(struct conv *c)
{
	for (size_t i = 0; i < c->nmfuncs; i++)
		perfsym_free(c->mfuncs[i].syms);
	free(c->mcalls);
	free(c->mfuncs);
	c->mcalls = NULL;
	c->mfuncs = NULL;
	c->nmcalls = c->nmfuncs = 0;
}
