/* SPDX-License-Identifier: MIT */
/* fdetab: a stripped file's functions from its .eh_frame_hdr (fdetab.h). */
#include "fdetab.h"

#include "array.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header's first four bytes that this reads: version 1, eh_frame_ptr
 * pcrel|sdata4, fde_count udata4, table datarel|sdata4. */
static const uint8_t usual[4] = { 1, 0x1b, 0x03, 0x3b };

/*
 * The end of the code that the last FDE of a file's table, starting at
 * link-time address START, covers (pc_begin + pc_range) when fde_ends()
 * could not read it (another encoding), or 0 when libdw
 * finds no FDE there. libdw gives one row of the FDE's CFA table at a time
 * (dwarf_frame_info: the range its rules hold for); rows follow rows to the
 * FDE's end, past which no FDE holds an address (START is the highest).
 */
static uint64_t last_fde_end(Elf *elf, uint64_t start)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Dwarf_Addr lo, end = start, hi;

	if (!cfi)
		return 0;
	for (;;) {
		Dwarf_Frame *frame = NULL;
		bool row = dwarf_cfi_addrframe(cfi, end, &frame) == 0 &&
			   dwarf_frame_info(frame, &lo, &hi, NULL) >= 0 && lo <= end && hi > end;

		free(frame);
		if (!row)
			break;
		end = hi;
	}
	dwarf_cfi_end(cfi);
	return end > start ? end : 0;
}

/* The section of ELF holding link-time address VADDR (.eh_frame for an
 * FDE's), its data into *D and its address into *BASE; false: none. */
static bool section_at(Elf *elf, uint64_t vaddr, Elf_Data **d, uint64_t *base)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && sh.sh_addr <= vaddr &&
		    vaddr - sh.sh_addr < sh.sh_size) {
			*d = elf_getdata(scn, NULL);
			*base = sh.sh_addr;
			return *d && (*d)->d_buf;
		}
	return false;
}

/*
 * The FDE ends of T's functions into T->end: table entry I (TAB, 8 bytes
 * each: initial_location, then the FDE's address, both relative to the
 * header at HDR) points at an FDE (length, CIE pointer, pc_begin, pc_range)
 * whose pc_begin, read as pcrel|sdata4, must be the table's start, its
 * pc_range then udata4; else (another encoding, out of the section) 0.
 */
static void fde_ends(Elf *elf, struct fdetab *t, const uint8_t *tab, uint64_t hdr)
{
	Elf_Data *d = NULL;
	uint64_t base = 0;

	for (size_t i = 0; i < t->n; i++) {
		int32_t rel, begin;
		uint32_t len, range;
		uint64_t fde, off;

		memcpy(&rel, tab + i * 8 + 4, 4);
		fde = hdr + (uint64_t)(int64_t)rel;
		if ((!d || fde < base || fde - base >= d->d_size) && !section_at(elf, fde, &d, &base))
			continue;
		off = fde - base;
		if (d->d_size < 16 || off > d->d_size - 16)
			continue;
		memcpy(&len, (const uint8_t *)d->d_buf + off, 4);
		memcpy(&begin, (const uint8_t *)d->d_buf + off + 8, 4);
		memcpy(&range, (const uint8_t *)d->d_buf + off + 12, 4);
		if (len >= 12 && len != UINT32_MAX && fde + 8 + (uint64_t)(int64_t)begin == t->start[i])
			t->end[i] = t->start[i] + range;
	}
}

bool fdetab_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	for (int n = 0; n < 65536 && (scn = elf_nextscn(elf, scn)); n++)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* The PLT sections of ELF (.plt, .plt.got, .plt.sec...: executable, named
 * .plt or .plt.*), up to MAX address ranges [start, end) into R. Returns how
 * many. */
#define PLT_MAX 8
static size_t plt_ranges(Elf *elf, uint64_t (*r)[2], size_t max)
{
	Elf_Scn *scn = NULL;
	size_t shstr, n = 0;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstr))
		return 0;
	for (int k = 0; k < 65536 && n < max && (scn = elf_nextscn(elf, scn)); k++) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && (!strcmp(name, ".plt") || !strncmp(name, ".plt.", 5))) {
			r[n][0] = sh.sh_addr;
			r[n][1] = sh.sh_addr + sh.sh_size;
			n++;
		}
	}
	return n;
}

/* Leaves out of T the entries that start in a PLT section of ELF. */
static void drop_plt(Elf *elf, struct fdetab *t)
{
	uint64_t r[PLT_MAX][2];
	size_t nr = plt_ranges(elf, r, PLT_MAX), k = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t j = 0;

		while (j < nr && (t->start[i] < r[j][0] || t->start[i] >= r[j][1]))
			j++;
		if (j < nr)
			continue;
		t->start[k] = t->start[i];
		t->end[k++] = t->end[i];
	}
	t->n = k;
}

int fdetab_read(Elf *elf, struct fdetab *t)
{
	size_t nph, i, fit;
	GElf_Phdr ph;
	Elf_Data *d;
	const uint8_t *h;
	uint32_t count;

	memset(t, 0, sizeof(*t));
	if (elf_getphdrnum(elf, &nph))
		return -ENOENT;
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == nph || ph.p_filesz < 12)
		return -ENOENT;
	d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, 12, ELF_T_BYTE);
	if (!d || d->d_size < 12)
		return -EIO;
	h = d->d_buf;
	if (memcmp(h, usual, sizeof(usual)))
		return -ENOENT;
	memcpy(&count, h + 8, 4);
	fit = (ph.p_filesz - 12) / 8;	/* the entries the segment holds */
	t->n = count < fit ? count : fit;
	if (t->n > FDETAB_MAX) {
		t->n = FDETAB_MAX;
		t->capped = true;
	}
	if (!t->n)
		return -ENOENT;
	d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + 12), t->n * 8, ELF_T_BYTE);
	if (!d || d->d_size < t->n * 8) {
		t->n = 0;
		return -EIO;
	}
	t->start = malloc(t->n * sizeof(*t->start));
	t->end = calloc(t->n, sizeof(*t->end));
	if (!t->start || !t->end) {
		fdetab_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++) {
		int32_t rel;	/* initial_location, relative to the header */

		memcpy(&rel, (const uint8_t *)d->d_buf + i * 8, 4);
		t->start[i] = ph.p_vaddr + (uint64_t)(int64_t)rel;
	}
	fde_ends(elf, t, d->d_buf, ph.p_vaddr);
	drop_plt(elf, t);
	if (!t->n) {
		fdetab_free(t);
		return -ENOENT;
	}
	t->last_end = t->end[t->n - 1] ? t->end[t->n - 1] : last_fde_end(elf, t->start[t->n - 1]);
	return 0;
}

/* Each machine's CFA rule at a function's entry: its stack pointer (DWARF
 * register number) plus the return address just pushed; and its frame
 * pointer's DWARF register number. */
static const struct {
	uint16_t machine;
	struct fdetab_cfa entry;
	int fp;
} entry_cfas[] = {
	{ EM_X86_64, { 7, 8 }, 6 },
	{ EM_386, { 4, 4 }, 5 },
};

/* The index in entry_cfas[] of ELF's machine, or the table's size. */
static size_t machine_of(Elf *elf)
{
	GElf_Ehdr eh;
	size_t m = 0;

	if (!gelf_getehdr(elf, &eh))
		return sizeof(entry_cfas) / sizeof(entry_cfas[0]);
	while (m < sizeof(entry_cfas) / sizeof(entry_cfas[0]) && entry_cfas[m].machine != eh.e_machine)
		m++;
	return m;
}

/* The CFA rule at VADDR by CFI ("register + offset" is one DW_OP_bregx in
 * libdw's form of it), or REG -1; the range of addresses the row holding
 * VADDR covers into *ROW when not NULL (hi 0: none). */
static struct fdetab_cfa cfa_row(Dwarf_CFI *cfi, uint64_t vaddr, struct fdetab_range *row)
{
	struct fdetab_cfa c = { -1, 0 };
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Op *ops;
	size_t nops = 0;

	if (row)
		*row = (struct fdetab_range){ 0, 0 };
	if (dwarf_cfi_addrframe(cfi, vaddr, &frame)) {
		free(frame);
		return c;
	}
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1 && ops[0].atom == DW_OP_bregx &&
	    ops[0].number < 1024) {
		c.reg = (int)ops[0].number;
		c.offset = (int64_t)ops[0].number2;
	}
	if (row && dwarf_frame_info(frame, &lo, &hi, NULL) >= 0 && lo <= vaddr && hi > vaddr)
		*row = (struct fdetab_range){ lo, hi };
	free(frame);
	return c;
}

static struct fdetab_cfa cfa_at(Dwarf_CFI *cfi, uint64_t vaddr)
{
	return cfa_row(cfi, vaddr, NULL);
}

int fdetab_read_entries(Elf *elf, struct fdetab *t)
{
	Dwarf_CFI *cfi;
	size_t m;

	if (t->cfa || !t->n)
		return 0;
	m = machine_of(elf);
	if (m == sizeof(entry_cfas) / sizeof(entry_cfas[0]) || !(cfi = dwarf_getcfi_elf(elf)))
		return 0;
	t->cfa = malloc(t->n * sizeof(*t->cfa));
	if (!t->cfa) {
		dwarf_cfi_end(cfi);
		return -ENOMEM;
	}
	t->entry_cfa = entry_cfas[m].entry;
	for (size_t i = 0; i < t->n; i++)
		t->cfa[i] = cfa_at(cfi, t->start[i]);
	dwarf_cfi_end(cfi);
	return 0;
}

bool fdetab_is_entry(const struct fdetab *t, size_t i)
{
	return !t->cfa || t->cfa[i].reg < 0 ||
	       (t->cfa[i].reg == t->entry_cfa.reg && t->cfa[i].offset == t->entry_cfa.offset);
}

const char *fdetab_cfa_words(const struct fdetab *t, size_t i, char *buf, size_t size)
{
	const struct fdetab_cfa *c = t->cfa ? &t->cfa[i] : &t->entry_cfa;

	if (c->reg == t->entry_cfa.reg)
		snprintf(buf, size, "the stack pointer%+" PRId64 ", not %+" PRId64, c->offset,
			 t->entry_cfa.offset);
	else
		snprintf(buf, size, "DWARF register %d%+" PRId64 ", not the stack pointer%+" PRId64,
			 c->reg, c->offset, t->entry_cfa.offset);
	return buf;
}

bool fdetab_func(const struct fdetab *t, size_t i, uint64_t *start, uint64_t *size)
{
	*start = t->start[i];
	if (i + 1 < t->n) {
		uint64_t next = t->start[i + 1];

		*size = (t->end[i] > *start && t->end[i] < next ? t->end[i] : next) - *start;
		return true;
	}
	if (t->last_end <= t->start[i])
		return false;
	*size = t->last_end - t->start[i];
	return true;
}

ptrdiff_t fdetab_find(const struct fdetab *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n;	/* the answer is below HI */
	uint64_t start, size;

	while (lo < hi) {	/* the first start above VADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (t->start[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !fdetab_func(t, lo - 1, &start, &size) || vaddr < start ||
	    vaddr - start >= size)
		return -1;
	return (ptrdiff_t)(lo - 1);
}

void fdetab_free(struct fdetab *t)
{
	free(t->start);
	free(t->end);
	free(t->cfa);
	memset(t, 0, sizeof(*t));
}

/* Adds [LO, HI), SET or not, to U, merged with the last range when it is
 * one of the same function's (past the first FIRST), they touch and agree:
 * never with another function's, which a frameless function's rows, taken
 * back, would have left extended. Returns 0 or -ENOMEM. */
static int frame_add(struct fdetab_frames *u, size_t first, uint64_t lo, uint64_t hi, bool set)
{
	if (u->n > first && u->r[u->n - 1].hi == lo && u->r[u->n - 1].set == set) {
		u->r[u->n - 1].hi = hi;
		return 0;
	}
	if (array_reserve((void **)&u->r, &u->cap, u->n + 1, sizeof(*u->r)))
		return -ENOMEM;
	u->r[u->n++] = (struct fdetab_frame_range){ lo, hi, set };
	return 0;
}

/* Adds to U the rows of function [START, END) whose CFA is the stack
 * pointer's (SP: not set) or the frame pointer's (FP: set), when a row of
 * it is the frame pointer's. Returns 0 or -ENOMEM. */
static int frames_func(Dwarf_CFI *cfi, uint64_t start, uint64_t end, int sp, int fp,
		       struct fdetab_frames *u)
{
	size_t first = u->n;
	bool has_fp = false;
	struct fdetab_range row;

	for (uint64_t a = start; a < end; a = row.hi) {
		struct fdetab_cfa c = cfa_row(cfi, a, &row);

		if (!row.hi)
			break;
		if (row.hi > end)
			row.hi = end;
		has_fp |= c.reg == fp;
		if ((c.reg == sp || c.reg == fp) && frame_add(u, first, a, row.hi, c.reg == fp))
			return -ENOMEM;
	}
	if (!has_fp)
		u->n = first;	/* a frameless function: its frame pointer is never its own */
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fdetab_frame_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int fdetab_read_frames(Elf *elf, struct fdetab_frames *u)
{
	struct fdetab t;
	Dwarf_CFI *cfi = NULL;
	size_t m = machine_of(elf);
	int err = 0;

	memset(u, 0, sizeof(*u));
	if (m == sizeof(entry_cfas) / sizeof(entry_cfas[0]))
		return 0;
	err = fdetab_read(elf, &t);
	if (!err && !(cfi = dwarf_getcfi_elf(elf)))
		err = -ENOENT;
	for (size_t i = 0; !err && i < t.n; i++) {
		uint64_t start, size;

		if (fdetab_func(&t, i, &start, &size))
			err = frames_func(cfi, start, start + size, entry_cfas[m].entry.reg,
					  entry_cfas[m].fp, u);
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	fdetab_free(&t);
	if (err == -ENOMEM) {
		fdetab_frames_free(u);
		return err;
	}
	array_sort(u->r, u->n, sizeof(*u->r), range_cmp);
	return 0;
}

enum fdetab_frame fdetab_frame_at(const struct fdetab_frames *u, uint64_t vaddr)
{
	size_t lo = 0, hi = u->n;	/* the answer is below HI */

	while (lo < hi) {	/* the first range starting above VADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (u->r[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= u->r[lo - 1].hi)
		return FDETAB_FRAME_UNKNOWN;
	return u->r[lo - 1].set ? FDETAB_FRAME_SET : FDETAB_FRAME_UNSET;
}

void fdetab_frames_free(struct fdetab_frames *u)
{
	free(u->r);
	memset(u, 0, sizeof(*u));
}
