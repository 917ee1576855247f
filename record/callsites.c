/* SPDX-License-Identifier: MIT */
/* callsites: the return sites of a function's direct calls (see callsites.h). */
#include "callsites.h"

#include <errno.h>
#include <string.h>

#include "elfsym.h"

#if defined(__x86_64__)
#include <Zydis/Zydis.h>

struct walk {
	uint64_t entry;
	struct rec_callsites *cs;
	ZydisDecoder dec;
};

/* Whether the kernel's uprobes may probe instruction IN (arch/x86/kernel/
 * uprobes.c refuses a branch with an operand-size prefix, and the traps
 * and halts a caller does not resume at). */
static bool probeable(const ZydisDecodedInstruction *in)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
		return false;
	default:
		break;
	}
	return !(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE &&
		 in->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE);
}

/* Adds the site at VADDR (file offset OFF) once, in address order. */
static void add_site(struct rec_callsites *cs, uint64_t vaddr, uint64_t off)
{
	int i = cs->n;

	if (rec_callsite_is(cs, cs->n, vaddr))
		return;   /* the function is in .symtab and .dynsym */
	if (cs->n == REC_CALLSITE_MAX) {
		cs->more = true;
		return;
	}
	for (; i > 0 && cs->site[i - 1].vaddr > vaddr; i--)
		cs->site[i] = cs->site[i - 1];
	cs->site[i] = (struct rec_callsite){ vaddr, off };
	cs->n++;
}

/* Decodes function C from its start; a `call ENTRY` followed by an
 * instruction of the function adds that instruction. Code that does not
 * decode ends the function's walk (no later boundary is known). */
static int code_cb(const struct rec_func_code *c, void *arg)
{
	struct walk *w = arg;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	bool after_call = false;

	for (size_t at = 0; at < c->size; at += in.length) {
		uint64_t target;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&w->dec, c->code + at, c->size - at,
							  &in, op)))
			break;
		if (after_call) {
			if (probeable(&in))
				add_site(w->cs, c->vaddr + at, c->file_offset + at);
			else
				w->cs->unprobed++;
		}
		after_call = in.mnemonic == ZYDIS_MNEMONIC_CALL &&
			     op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			     ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], c->vaddr + at,
								   &target)) &&
			     target == w->entry;
	}
	return 0;
}

int rec_callsites_find(const char *path, uint64_t entry, struct rec_callsites *cs)
{
	struct walk w = { .entry = entry, .cs = cs };
	int err;

	memset(cs, 0, sizeof(*cs));
	ZydisDecoderInit(&w.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	err = rec_elf_code(path, code_cb, &w);
	return err == REC_ELF_ENOSYMS ? 0 : err;
}

#else

int rec_callsites_find(const char *path, uint64_t entry, struct rec_callsites *cs)
{
	(void)path, (void)entry;
	memset(cs, 0, sizeof(*cs));
	return -EOPNOTSUPP;
}

#endif

bool rec_callsite_is(const struct rec_callsites *cs, int n, uint64_t vaddr)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (cs->site[mid].vaddr == vaddr)
			return true;
		if (cs->site[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}
