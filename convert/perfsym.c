/* SPDX-License-Identifier: MIT */
/* perfsym: perf-compatible function naming from ELF files (see perfsym.h). */
#include "perfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "demangle.h"
#include "inpath.h"
#include "pltents.h"
#include "runas.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_open(struct elf_file *f, const char *path, const void *image, size_t len,
		    const struct runas_set *who)
{
	f->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	if (image) {
		f->elf = elf_memory((char *)image, len);
	} else {
		char why[8];

		/* only a regular file (inpath.h): never a FIFO waited on;
		 * another user's recording: one its owner may open */
		f->fd = runas_open(who, AT_FDCWD, path, 0, why, sizeof(why));
		if (f->fd < 0)
			return f->fd;
		f->elf = elf_begin(f->fd, ELF_C_READ, NULL);	/* never mapped: elfid.h */
	}
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		if (f->fd >= 0)
			close(f->fd);
		return -EINVAL;
	}
	return 0;
}

static void elf_close(struct elf_file *f)
{
	elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

static Elf_Scn *section_by_type(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* File offset of virtual address V, by the PT_LOAD segments. */
static bool vaddr_to_offset(Elf *elf, uint64_t v, uint64_t *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_memsz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

int perfsym_func_offset(const char *path, const char *name, uint64_t *off)
{
	struct elf_file f;
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *data;
	size_t i, n;
	int rc = -ENOENT;

	if ((rc = elf_open(&f, path, NULL, 0, NULL)) < 0)
		return rc;
	rc = -ENOENT;
	scn = section_by_type(f.elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = section_by_type(f.elf, SHT_DYNSYM, &sh);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	for (i = 0; i < n; i++) {
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(f.elf, sh.sh_link, sym.st_name);
		if (s && !strcmp(s, name) && vaddr_to_offset(f.elf, sym.st_value, off)) {
			rc = 0;
			break;
		}
	}
	elf_close(&f);
	return rc;
}

struct symvec {
	struct perfsym *v;
	size_t n, cap;
};

static int sym_add(struct symvec *sv, uint64_t start, uint64_t vaddr, uint64_t size, int bind,
		   int type, const char *name)
{
	struct perfsym *s;

	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 1024;

		s = realloc(sv->v, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		sv->v = s;
		sv->cap = cap;
	}
	s = &sv->v[sv->n];
	s->start = start;
	s->end = start + size;
	s->vaddr = vaddr;
	s->bind = bind;
	s->type = type;
	s->name = demangle_frame_dup(name);	/* as perf 6.1 names it */
	if (!s->name)
		return -ENOMEM;
	sv->n++;
	return 0;
}

/* The GNU build-id note of ELF as lowercase hex, or false. */
static bool build_id(Elf *elf, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off, noff, doff, i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		for (off = 0; data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz * 2 >= hexlen)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x",
					((unsigned char *)data->d_buf)[doff + i]);
			return true;
		}
	}
	return false;
}

/*
 * Reads the function symbols and text labels of SYMS (perf's symsrc with the
 * symbols) into SV as file offsets of RUNTIME (the mapped file).
 */
static int read_symbols(Elf *syms, Elf *runtime, Elf_Scn *scn, const GElf_Shdr *symsh,
			struct symvec *sv)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = data && symsh->sh_entsize ? symsh->sh_size / symsh->sh_entsize : 0;
	size_t strndx, rstrndx;
	GElf_Sym sym;
	GElf_Shdr sh;
	Elf_Scn *sec;
	uint64_t off;
	const char *name, *secname;
	int type, rc;
	bool label;

	if (elf_getshdrstrndx(syms, &strndx) || elf_getshdrstrndx(runtime, &rstrndx))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS)
			continue;
		label = type == STT_NOTYPE;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		sec = elf_getscn(syms, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		secname = elf_strptr(syms, strndx, sh.sh_name);
		if (sh.sh_type == SHT_NOBITS) {
			sec = elf_getscn(runtime, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &sh))
				continue;
			secname = elf_strptr(runtime, rstrndx, sh.sh_name);
		}
		if (label && (!secname || !strstr(secname, "text")))
			continue;
		if (!vaddr_to_offset(runtime, sym.st_value, &off))
			off = sym.st_value - (sh.sh_addr - sh.sh_offset);
		name = elf_strptr(syms, symsh->sh_link, sym.st_name);
		if (!name)
			continue;
		rc = sym_add(sv, off, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info), type, name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* pltents_each()'s callback: the entry as the symbol NAME@plt. */
static int plt_symbol(void *arg, uint64_t off, uint64_t size, const char *name)
{
	char buf[1024], *demangled = demangle_frame_dup(name);

	if (!demangled)
		return -ENOMEM;
	snprintf(buf, sizeof(buf), "%s@plt", demangled);
	free(demangled);
	return sym_add(arg, off, 0, size, STB_GLOBAL, STT_FUNC, buf);
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when A is kept over B. */
static bool better(const struct perfsym *a, const struct perfsym *b)
{
	uint64_t sa = a->end - a->start, sb = b->end - b->start;
	size_t ua, ub, la, lb;

	if (sb == 0 && sa > 0)
		return true;
	if (sa == 0 && sb > 0)
		return false;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return true;
}

static int by_start(const void *x, const void *y)
{
	const struct perfsym *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* stable: the order of insertion (kept in .type's upper bits) */
	return (a->type >> 8) - (b->type >> 8);
}

/* Sorts, fixes zero sizes and removes aliases as perf does. */
static void fixup(struct symvec *sv)
{
	size_t i, j;

	for (i = 0; i < sv->n; i++)
		sv->v[i].type |= (int)(i << 8);
	array_sort(sv->v, sv->n, sizeof(*sv->v), by_start);
	for (i = 0; i < sv->n; i++)
		sv->v[i].type &= 0xff;
	for (i = 1; i < sv->n; i++)
		if (sv->v[i - 1].end == sv->v[i - 1].start)
			sv->v[i - 1].end = sv->v[i].start;
	if (sv->n && sv->v[sv->n - 1].end == sv->v[sv->n - 1].start)
		sv->v[sv->n - 1].end = (sv->v[sv->n - 1].start + 4095) / 4096 * 4096 + 4096;
	for (i = 0, j = 0; i < sv->n; i++) {
		if (j && sv->v[j - 1].start == sv->v[i].start) {
			if (better(&sv->v[j - 1], &sv->v[i])) {
				free(sv->v[i].name);
			} else {
				free(sv->v[j - 1].name);
				sv->v[j - 1] = sv->v[i];
			}
			continue;
		}
		sv->v[j++] = sv->v[i];
	}
	sv->n = j;
}

/* Reads into DSO the symbols of the ELF file RT (its debug file by build
 * id opened as runas_open(WHO) does). Returns 0, or -ENOMEM with what was
 * read in DSO (perfsym_free() frees it). */
static int load(struct perfsym_dso *dso, Elf *rt, const struct runas_set *who)
{
	struct symvec sv = { 0 }, plt = { 0 };
	int rc = 0, prc;
	struct elf_file dbg;
	char id[128], dpath[256];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *syms = NULL;
	bool have_dbg = false;

	if (build_id(rt, id, sizeof(id))) {
		if (strlen(id) < sizeof(dso->build_id))
			memcpy(dso->build_id, id, strlen(id) + 1);
		snprintf(dpath, sizeof(dpath), "/usr/lib/debug/.build-id/%.2s/%s.debug", id,
			 id + 2);
		if (elf_open(&dbg, dpath, NULL, 0, who) == 0) {
			have_dbg = true;
			if ((scn = section_by_type(dbg.elf, SHT_SYMTAB, &sh)))
				syms = dbg.elf;
		}
	}
	if (!syms && (scn = section_by_type(rt, SHT_SYMTAB, &sh)))
		syms = rt;
	if (!syms && (scn = section_by_type(rt, SHT_DYNSYM, &sh)))
		syms = rt;
	if (!syms || (rc = read_symbols(syms, rt, scn, &sh, &sv)) == 0)
		fixup(&sv);
	dso->syms = sv.v;
	dso->n = sv.n;
	/* the entries read so far are DSO's to free (the walk stops at an
	 * error: only out of memory) */
	prc = pltents_each(rt, plt_symbol, &plt);
	dso->plt = plt.v;
	dso->nplt = plt.n;
	if (have_dbg)
		elf_close(&dbg);
	return rc ? rc : prc;
}

struct perfsym_dso *perfsym_load(const char *path, const void *image, size_t len,
				 const struct runas_set *who)
{
	struct perfsym_dso *dso = calloc(1, sizeof(*dso));
	struct elf_file rt;

	if (!dso)
		return NULL;
	if (elf_open(&rt, path, image, len, who) < 0)
		return dso;  /* no symbols: every address is [unknown] */
	if (load(dso, rt.elf, who)) {
		perfsym_free(dso);
		dso = NULL;
	}
	elf_close(&rt);
	return dso;
}

struct perfsym_dso *perfsym_load_elf(Elf *elf, const struct runas_set *who)
{
	struct perfsym_dso *dso = calloc(1, sizeof(*dso));

	if (dso && elf && elf_kind(elf) == ELF_K_ELF && load(dso, elf, who)) {
		perfsym_free(dso);
		return NULL;
	}
	return dso;
}

const struct perfsym *perfsym_lookup(const struct perfsym_dso *dso, uint64_t off)
{
	size_t i, lo, hi, mid;

	for (i = 0; i < dso->nplt; i++)
		if (off >= dso->plt[i].start && off < dso->plt[i].end)
			return &dso->plt[i];
	/* the last symbol starting at or before off */
	for (lo = 0, hi = dso->n; lo < hi;) {
		mid = (lo + hi) / 2;
		if (dso->syms[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		const struct perfsym *s = &dso->syms[i];

		if (off < s->end || (off == s->start && s->start == s->end))
			return s;
		if (lo - i > 8)
			break;
	}
	return NULL;
}

const struct perfsym *perfsym_lookup_vaddr(const struct perfsym_dso *dso, uint64_t v)
{
	for (size_t i = 0; i < dso->n; i++) {
		const struct perfsym *s = &dso->syms[i];

		if (s->vaddr && v >= s->vaddr && v - s->vaddr < s->end - s->start)
			return perfsym_lookup(dso, s->start + (v - s->vaddr));
	}
	return NULL;
}

void perfsym_free(struct perfsym_dso *dso)
{
	if (!dso)
		return;
	for (size_t j = 0; j < dso->n; j++)
		free(dso->syms[j].name);
	for (size_t j = 0; j < dso->nplt; j++)
		free(dso->plt[j].name);
	free(dso->syms);
	free(dso->plt);
	free(dso);
}
