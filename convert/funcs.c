/* SPDX-License-Identifier: MIT */
/*
 * Interned functions: one struct conv_func per distinct (symbol, dso), and
 * per address for a sample's frames no symbol names (conv_func_at), found
 * by the hash of the key (common/hash.h's index). Memory grows with the
 * distinct functions and unnamed addresses of the input, never with its
 * length.
 */
#include "funcs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "demangle.h"
#include "funcspec.h"
#include "pltnames.h"

/* Mixes 8 bytes at a time (multiply and xor-shift); the lengths are mixed
 * in so that ("ab", "c") and ("a", "bc") differ. */
static uint64_t mix_bytes(uint64_t h, const char *s, uint32_t len)
{
	uint64_t w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = 0;
	if (len)
		memcpy(&w, s, len);
	h = (h ^ w ^ ((uint64_t)len << 56)) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static uint64_t func_hash(struct conv_span sym, struct conv_span dso, uint64_t at)
{
	uint64_t h = mix_bytes(mix_bytes(0xcbf29ce484222325ull ^ sym.len, sym.s, sym.len), dso.s,
			       dso.len);

	return at ? mix_bytes(h, (const char *)&at, sizeof(at)) : h;
}

/* Functions a complete user-space call chain ends in (glibc's, the dynamic
 * loader's and the kernel's thread entry points); ENTRY: where a thread the
 * kernel made (clone, clone3) starts, a process's main thread never. */
static const struct root {
	const char *name;
	bool entry;
} roots[] = {
	{ "_start", false }, { "__libc_start_main", false }, { "__libc_start_main_impl", false },
	{ "__libc_start_call_main", false }, { "clone", true }, { "clone3", true },
	{ "start_thread", false }, { "thread_start", true }, { "_dl_start", false },
	{ "_dl_start_user", false },
};

/* The root SYM is (a "@VERSION" suffix ignored: "clone3@@GLIBC_2.34"), or
 * NULL. */
static const struct root *root_of(struct conv_span sym)
{
	size_t len = symbol_unversioned_len(sym.s, sym.len);

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strlen(roots[i].name) == len && !memcmp(roots[i].name, sym.s, len))
			return &roots[i];
	return NULL;
}

/*
 * Whether SYM names data, never code: the C++ ABI's special names of
 * objects (typeinfo, its name, vtables, VTTs, guard variables), demangled as
 * perf prints them or mangled (_ZTI, _ZTS, _ZTV, _ZTT, _ZTC, _ZGV). A frame
 * there is no call site (a frame-pointer walk through code without frame
 * pointers read a stale word): its address is shown, not the object's name.
 */
static bool data_symbol(struct conv_span sym)
{
	static const char *const data[] = {
		"typeinfo for ", "typeinfo name for ", "vtable for ", "VTT for ",
		"construction vtable for ", "guard variable for ",
		"_ZTI", "_ZTS", "_ZTV", "_ZTT", "_ZTC", "_ZGV",
	};

	for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++)
		if (sym.len > strlen(data[i]) && !memcmp(sym.s, data[i], strlen(data[i])))
			return true;
	return false;
}

/* The interned function of SYM in DSO at AT (0: of no address). */
static const struct conv_func *func_get(struct conv *c, struct conv_span sym,
					struct conv_span dso, uint64_t at)
{
	uint64_t h = func_hash(sym, dso, at);
	const struct root *r;
	struct conv_func *f, **t;
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&c->func_index, h, &probe)) != HASH_NONE) {
		f = c->funcs[k];
		if (f->symlen == sym.len && f->dsolen == dso.len && f->at == at &&
		    (!sym.len || !memcmp(f->key, sym.s, sym.len)) &&
		    (!dso.len || !memcmp(f->key + sym.len, dso.s, dso.len)))
			return f;
	}
	t = array_grow(c->funcs, &c->capfuncs, c->nfuncs, sizeof(*t));
	if (t)
		c->funcs = t;
	f = t ? malloc(sizeof(*f) + sym.len + dso.len) : NULL;
	if (!f || hash_index_add(&c->func_index, h, (uint32_t)c->nfuncs)) {
		free(f);
		c->nomem = true;
		return NULL;
	}
	c->funcs[c->nfuncs++] = f;
	f->symlen = sym.len;
	f->dsolen = dso.len;
	f->at = at;
	if (sym.len)
		memcpy(f->key, sym.s, sym.len);
	if (dso.len)
		memcpy(f->key + sym.len, dso.s, dso.len);
	f->unknown = sym.len == 0 || data_symbol(sym);
	f->src_done = false;
	f->overload_done = f->overloaded = f->overload = false;
	f->unnamed = funcspec_is_unnamed(sym.s, sym.len);
	f->bin_done = false;
	f->bin = NULL;
	f->src_file = 0;
	f->src_line = 0;
	r = f->unknown ? NULL : root_of(sym);
	f->root = r != NULL;
	f->thread_entry = r && r->entry;
	f->name = f->unknown ? 0 : fxt_writer_string(c->w, sym.s, sym.len);
	f->dso = fxt_writer_string(c->w, dso.s, dso.len);
	conv_plt_cover(c, f, sym, dso);
	return f;
}

const struct conv_func *conv_func_get(struct conv *c, struct conv_span sym, struct conv_span dso)
{
	return func_get(c, sym, dso, 0);
}

const struct conv_func *conv_func_at(struct conv *c, const struct conv_func *f, uint64_t ip)
{
	if (!f || !f->unknown || f->at || conv_func_is_uprobes(f))
		return f;
	return func_get(c, (struct conv_span){ f->key, f->symlen },
			(struct conv_span){ f->key + f->symlen, f->dsolen }, ip);
}

fxt_string_id conv_name(struct conv *c, const char *pre, struct conv_span mid, size_t max,
			const char *post)
{
	char buf[2 * CONV_NAME_AFFIX_MAX + CONV_NAME_MID_MAX];
	size_t np = strnlen(pre, CONV_NAME_AFFIX_MAX), nq = strnlen(post, CONV_NAME_AFFIX_MAX);
	size_t nm = mid.len < max ? mid.len : max;

	if (nm > CONV_NAME_MID_MAX)
		nm = CONV_NAME_MID_MAX;
	memcpy(buf, pre, np);
	if (nm)
		memcpy(buf + np, mid.s, nm);
	memcpy(buf + np + nm, post, nq);
	return fxt_writer_string(c->w, buf, np + nm + nq);
}

bool conv_func_is_uprobes(const struct conv_func *f)
{
	return f->dsolen == 9 && !memcmp(f->key + f->symlen, "[uprobes]", 9);
}

bool conv_func_is_loop(const struct conv_func *f)
{
	return f->dsolen == sizeof(CONV_LOOP_DSO) - 1 &&
	       !memcmp(f->key + f->symlen, CONV_LOOP_DSO, f->dsolen);
}

/* Whether F is the kernel's entry of a breakpoint trap (x86-64). */
static bool int3_entry(const struct conv_func *f)
{
	static const char *const names[] = { "asm_exc_int3", "int3" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f->symlen == strlen(names[i]) && !memcmp(f->key, names[i], f->symlen))
			return true;
	return false;
}

size_t conv_chain_trap_frame(const struct conv_site *frames, size_t n)
{
	size_t i = 0;

	/* the kernel's frames come first (a kernel address has bit 63 set):
	 * the trap's entry is the outermost of them, a user frame next */
	while (i < n && frames[i].ip >> 63)
		i++;
	if (!i || i == n || !frames[i - 1].func || !int3_entry(frames[i - 1].func) ||
	    !frames[i].func)
		return n;
	for (size_t j = i; j < n; j++)
		if (frames[j].func && frames[j].func->root)
			return n;
	return i;
}

fxt_string_id conv_func_frame_name(struct conv *c, const struct conv_func *f, uint64_t ip)
{
	char pre[48];

	if (!f->unknown)
		return f->name;
	/* the kernel's page where a uprobe runs the instruction it replaced
	 * (single-stepped out of line): the program was at a probed
	 * instruction */
	if (conv_func_is_uprobes(f))
		return fxt_writer_cstring(c->w, "[uprobe: a probed instruction, run out of line]");
	if (conv_func_is_loop(f)) {
		snprintf(pre, sizeof(pre), "[call chain cut: 0x%" PRIx64 " repeats]", ip);
		return fxt_writer_cstring(c->w, pre);
	}
	snprintf(pre, sizeof(pre), "[unknown @ 0x%" PRIx64 "%s", ip, f->dsolen ? " (" : "");
	return conv_name(c, pre, (struct conv_span){ f->key + f->symlen, f->dsolen }, 400,
			 f->dsolen ? ")]" : "]");
}

/* Looks up F's entry at OFF in its binary: the file's string id (0: none,
 * or out of memory: c->nomem set) and *LINE. */
static fxt_string_id func_srcline(struct conv *c, const struct conv_func *f, uint64_t off,
				  uint64_t sym_start, uint32_t *line)
{
	const char *file;
	unsigned l;
	int found = srcline_lookup(c->srcline, f->key + f->symlen, f->dsolen, f->key, f->symlen,
				   off, sym_start, &file, &l);

	if (found < 0)
		c->nomem = true;
	if (found <= 0)
		return 0;
	*line = l;
	return fxt_writer_cstring(c->w, file);
}

unsigned conv_func_srcline(struct conv *c, const struct conv_func *f, uint64_t off,
			   uint64_t sym_start, bool kernel, struct fxt_arg *args)
{
	/* The table owns its functions; only this cache is written through
	 * the const pointers the rest of the converter holds. The check of
	 * SYM_START against the binary holds for every process alike (load
	 * biases are whole pages), so one answer serves them all. */
	struct conv_func *m = (struct conv_func *)f;
	fxt_string_id file;
	uint32_t line = 0;

	if (!c->srcline || f->unknown || f->unnamed || kernel)
		return 0;	/* an unnamed function is no symbol of its binary */
	if (off) {
		file = func_srcline(c, f, off, sym_start, &line);
	} else {
		if (!m->src_done) {
			m->src_done = true;
			m->src_file = func_srcline(c, f, 0, sym_start, &m->src_line);
		}
		file = m->src_file;
		line = m->src_line;
	}
	if (!file)
		return 0;
	args[0] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_file, .str = file };
	/* one word, not two: an eighth less to write and compress per slice */
	args[1] = (struct fxt_arg){ .type = FXT_ARG_UINT32, .name = c->s_line, .u64 = line };
	return 2;
}

const struct conv_func *conv_func_overload(struct conv *c, const struct conv_func *f,
					   uint64_t start, bool linked)
{
	struct conv_func *m = (struct conv_func *)f;	/* its cache, as conv_func_srcline's */
	struct conv_span dso;
	const char *sig = NULL;
	const struct conv_func *o;
	int found = 0;

	if (!f || !c->srcline || f->unknown || f->unnamed || f->overload || (f->overload_done && !f->overloaded) ||
	    !f->dsolen || f->key[f->symlen] == '[')
		return f;
	dso = (struct conv_span){ f->key + f->symlen, f->dsolen };
	found = srcline_signature(c->srcline, dso.s, dso.len, f->key, f->symlen, start, linked,
				  &sig);
	if (found < 0)
		c->nomem = true;
	m->overload_done = true;
	m->overloaded = found > 0;
	if (found <= 0)
		return f;
	if (sig) {
		o = conv_func_get(c, (struct conv_span){ sig, (uint32_t)strlen(sig) }, dso);
	} else {	/* none of them, or several, agree with START: not one of them */
		char name[CONV_NAME_MID_MAX + 4];
		int n = snprintf(name, sizeof(name), "%.*s(?)", (int)(f->symlen < CONV_NAME_MID_MAX ?
					f->symlen : CONV_NAME_MID_MAX), f->key);

		o = conv_func_get(c, (struct conv_span){ name, (uint32_t)n }, dso);
	}
	if (o)
		((struct conv_func *)o)->overload = true;
	return o;
}

/* F's binary as fdenames reads it (F->bin, looked up once), or NULL. */
static const struct fdenames_dso *func_bin(struct conv *c, const struct conv_func *f)
{
	struct conv_func *m = (struct conv_func *)f;	/* its cache, as conv_func_srcline's */
	bool nomem = false;

	if (!f || !c->fdenames || !f->dsolen)
		return NULL;
	if (!f->bin_done) {
		m->bin_done = true;
		m->bin = fdenames_dso(c->fdenames, f->key + f->symlen, f->dsolen, &nomem);
		c->nomem |= nomem;
	}
	return f->bin;
}

const struct conv_func *conv_func_linked(struct conv *c, const struct conv_func *f,
					 struct conv_site *s)
{
	char name[FUNCSPEC_UNNAMED_MAX];
	uint64_t start, vaddr;
	bool linked, data;

	if (!func_bin(c, f))
		return f;
	linked = fdenames_place(f->bin, s->ip, &vaddr, &data);
	s->nocode |= data;
	if (!linked)
		return f;
	s->ip = vaddr;
	s->linked = true;
	if (!f->unknown || f->symlen || !fdenames_lookup(f->bin, vaddr, &start))
		return f;
	funcspec_unnamed(start, name, sizeof(name));
	s->symoff = vaddr - start;
	return conv_func_get(c, (struct conv_span){ name, (uint32_t)strlen(name) },
			     (struct conv_span){ f->key, f->dsolen });
}

enum fdetab_frame conv_site_frame(struct conv *c, const struct conv_site *s)
{
	const struct fdenames_dso *bin = s->linked ? func_bin(c, s->func) : NULL;
	enum fdetab_frame f;
	bool nomem = false;

	if (!bin)
		return FDETAB_FRAME_UNKNOWN;
	f = fdenames_frame_at(c->fdenames, bin, s->ip, &nomem);
	c->nomem |= nomem;
	return nomem ? FDETAB_FRAME_UNKNOWN : f;
}

void conv_funcs_free(struct conv *c)
{
	for (size_t i = 0; i < c->nfuncs; i++)
		free(c->funcs[i]);
	free(c->funcs);
	hash_index_free(&c->func_index);
	c->funcs = NULL;
	c->capfuncs = c->nfuncs = 0;
}
