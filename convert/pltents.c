/* SPDX-License-Identifier: MIT */
/* pltents: a PLT's entries named by their relocations (see pltents.h). */
#include "pltents.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* A relocation with a symbol: the GOT slot it fills and the symbol's name. */
struct slot {
	uint64_t at;
	const char *name;
};

struct relocs {
	struct slot *v;            /* sorted by at */
	size_t n, cap;
	const char **plt;          /* .rela.plt's names by index (NULL: none) */
	size_t nplt;
};

static int by_at(const void *x, const void *y)
{
	const struct slot *a = x, *b = y;

	return a->at < b->at ? -1 : a->at > b->at;
}

/* Reads the relocations with a symbol of every SHT_RELA section over a
 * SHT_DYNSYM into R; .rela.plt's also by index. */
static int read_relocs(Elf *elf, size_t shstrndx, struct relocs *r)
{
	Elf_Scn *scn = NULL, *dyn;
	GElf_Shdr sh, dynsh;
	Elf_Data *d, *dd;
	GElf_Rela ra;
	GElf_Sym sym;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *secname, *name;
		size_t n, i;
		bool plt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(dyn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(dyn, &dynsh) ||
		    dynsh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)) ||
		    !(dd = elf_getdata(dyn, NULL)))
			continue;
		secname = elf_strptr(elf, shstrndx, sh.sh_name);
		plt = secname && !strcmp(secname, ".rela.plt");
		n = sh.sh_size / sh.sh_entsize;
		if (plt && !r->plt) {
			if (!(r->plt = calloc(n ? n : 1, sizeof(*r->plt))))
				return -ENOMEM;
			r->nplt = n;
		}
		for (i = 0; i < n; i++) {
			struct slot *s;

			if (!gelf_getrela(d, (int)i, &ra) || !GELF_R_SYM(ra.r_info) ||
			    !gelf_getsym(dd, (int)GELF_R_SYM(ra.r_info), &sym) ||
			    !(name = elf_strptr(elf, dynsh.sh_link, sym.st_name)) || !name[0])
				continue;
			if (plt && r->nplt == n)
				r->plt[i] = name;
			if (!(s = array_grow(r->v, &r->cap, r->n, sizeof(*r->v))))
				return -ENOMEM;
			r->v = s;
			r->v[r->n++] = (struct slot){ ra.r_offset, name };
		}
	}
	array_sort(r->v, r->n, sizeof(*r->v), by_at);
	return 0;
}

static const char *slot_name(const struct relocs *r, uint64_t at)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->v[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->v[lo].at == at ? r->v[lo].name : NULL;
}

static int32_t le32(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* The symbol the x86-64 PLT entry P (LEN bytes, at address ADDR) jumps to. */
static const char *x86_64_entry(const struct relocs *r, const unsigned char *p, size_t len,
				uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = 0;

	if (len >= 4 && !memcmp(p, endbr64, 4))
		k = 4;
	if (k < len && p[k] == 0xf2)   /* bnd */
		k++;
	if (k + 6 <= len && p[k] == 0xff && p[k + 1] == 0x25)   /* jmp *disp32(%rip) */
		return slot_name(r, addr + k + 6 + (uint64_t)(int64_t)le32(p + k + 2));
	if (k + 5 <= len && p[k] == 0x68) {   /* push $index: lazy binding */
		uint32_t i = (uint32_t)le32(p + k + 1);

		return i < r->nplt ? r->plt[i] : NULL;
	}
	return NULL;
}

int pltents_each(Elf *elf, pltents_fn fn, void *arg)
{
	static const char *const sections[] = { ".plt", ".plt.sec", ".plt.got" };
	struct relocs r = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shstrndx;
	int rc;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	if ((rc = read_relocs(elf, shstrndx, &r)))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *secname, *name;
		uint64_t entsize, i;
		Elf_Data *d;
		bool known = false;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(secname = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			known |= !strcmp(secname, sections[i]);
		entsize = sh.sh_entsize ? sh.sh_entsize : 16;
		if (!known || !(d = elf_getdata(scn, NULL)) || d->d_size < sh.sh_size)
			continue;
		for (i = 0; i + entsize <= sh.sh_size; i += entsize) {
			if (eh.e_machine == EM_X86_64)
				name = x86_64_entry(&r, (const unsigned char *)d->d_buf + i, entsize,
						    sh.sh_addr + i);
			else   /* perf's rule: entry N after the header, relocation N - 1 */
				name = !strcmp(secname, ".plt") && i && i / entsize - 1 < r.nplt ?
				       r.plt[i / entsize - 1] : NULL;
			if (name && (rc = fn(arg, sh.sh_offset + i, entsize, name)))
				goto out;
		}
	}
out:
	free(r.v);
	free(r.plt);
	return rc;
}
