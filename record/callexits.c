/* SPDX-License-Identifier: MIT */
/* exits: where a call of a function leaves it (see exits.h). */
#include "callexits.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <Zydis/Zydis.h>

#include "array.h"
#include "catchprobe.h"
#include "elfsym.h"
#include "insnstart.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

/* The general registers: Zydis's name and perf's number. */
static const struct {
	ZydisRegister zy;
	int perf;
} gprs[] = {
	{ ZYDIS_REGISTER_RAX, PERF_REG_X86_AX }, { ZYDIS_REGISTER_RBX, PERF_REG_X86_BX },
	{ ZYDIS_REGISTER_RCX, PERF_REG_X86_CX }, { ZYDIS_REGISTER_RDX, PERF_REG_X86_DX },
	{ ZYDIS_REGISTER_RSI, PERF_REG_X86_SI }, { ZYDIS_REGISTER_RDI, PERF_REG_X86_DI },
	{ ZYDIS_REGISTER_RBP, PERF_REG_X86_BP }, { ZYDIS_REGISTER_RSP, PERF_REG_X86_SP },
	{ ZYDIS_REGISTER_R8, PERF_REG_X86_R8 }, { ZYDIS_REGISTER_R9, PERF_REG_X86_R9 },
	{ ZYDIS_REGISTER_R10, PERF_REG_X86_R10 }, { ZYDIS_REGISTER_R11, PERF_REG_X86_R11 },
	{ ZYDIS_REGISTER_R12, PERF_REG_X86_R12 }, { ZYDIS_REGISTER_R13, PERF_REG_X86_R13 },
	{ ZYDIS_REGISTER_R14, PERF_REG_X86_R14 }, { ZYDIS_REGISTER_R15, PERF_REG_X86_R15 },
};

#define NGPRS (sizeof(gprs) / sizeof(gprs[0]))

/* perf's number of 64-bit register R, or -1 (none, rip, another width). */
static int perf_reg(ZydisRegister r)
{
	for (size_t i = 0; i < NGPRS; i++)
		if (gprs[i].zy == r)
			return gprs[i].perf;
	return -1;
}

/* EFLAGS bits */
#define F_CF (1u << 0)
#define F_PF (1u << 2)
#define F_ZF (1u << 6)
#define F_SF (1u << 7)
#define F_OF (1u << 11)

/* Whether conditional jump M is taken with FLAGS and RCX (the value before
 * the instruction; loop decrements it first). */
static bool taken(ZydisMnemonic m, uint64_t flags, uint64_t rcx)
{
	bool cf = flags & F_CF, pf = flags & F_PF, zf = flags & F_ZF, sf = flags & F_SF,
	     of = flags & F_OF;

	switch (m) {
	case ZYDIS_MNEMONIC_JO: return of;
	case ZYDIS_MNEMONIC_JNO: return !of;
	case ZYDIS_MNEMONIC_JB: return cf;
	case ZYDIS_MNEMONIC_JNB: return !cf;
	case ZYDIS_MNEMONIC_JZ: return zf;
	case ZYDIS_MNEMONIC_JNZ: return !zf;
	case ZYDIS_MNEMONIC_JBE: return cf || zf;
	case ZYDIS_MNEMONIC_JNBE: return !cf && !zf;
	case ZYDIS_MNEMONIC_JS: return sf;
	case ZYDIS_MNEMONIC_JNS: return !sf;
	case ZYDIS_MNEMONIC_JP: return pf;
	case ZYDIS_MNEMONIC_JNP: return !pf;
	case ZYDIS_MNEMONIC_JL: return sf != of;
	case ZYDIS_MNEMONIC_JNL: return sf == of;
	case ZYDIS_MNEMONIC_JLE: return zf || sf != of;
	case ZYDIS_MNEMONIC_JNLE: return !zf && sf == of;
	case ZYDIS_MNEMONIC_JRCXZ: return rcx == 0;
	case ZYDIS_MNEMONIC_JECXZ: return (uint32_t)rcx == 0;
	case ZYDIS_MNEMONIC_LOOP: return rcx - 1 != 0;
	case ZYDIS_MNEMONIC_LOOPE: return rcx - 1 != 0 && zf;
	case ZYDIS_MNEMONIC_LOOPNE: return rcx - 1 != 0 && !zf;
	default: return true;   /* not known: counted as leaving */
	}
}

static void decoder(ZydisDecoder *dec)
{
	ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

/* Whether link-time address A is outside X's code, or its entry. */
static bool leaves_to(const struct rec_callexits *x, uint64_t a)
{
	if (a == x->entry)
		return true;
	for (int i = 0; i < x->ncode; i++)
		if (a >= x->code[i].start && a < x->code[i].end)
			return false;
	return true;
}

bool rec_callexit_leaves(const struct rec_callexits *x, const struct rec_callexit *e, pid_t pid,
		     uint64_t ip, const uint64_t regs[REC_CALLEXIT_NREGS])
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisRegisterContext ctx;
	uint64_t target, bias = ip - e->vaddr;

	if (e->kind == REC_CALLEXIT_RET || e->kind == REC_CALLEXIT_JMP)
		return true;
	decoder(&dec);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, e->bytes, e->len, &in, op)))
		return true;
	if (e->kind == REC_CALLEXIT_JCC)
		return taken(in.mnemonic, regs[PERF_REG_X86_FLAGS], regs[PERF_REG_X86_CX]);
	if (op[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
		int r = perf_reg(op[0].reg.value);

		return r < 0 || leaves_to(x, regs[r] - bias);
	}
	memset(&ctx, 0, sizeof(ctx));
	for (size_t i = 0; i < NGPRS; i++)
		ctx.values[gprs[i].zy] = regs[gprs[i].perf];
	if (op[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&in, &op[0], ip, &ctx, &target)))
		return true;
	{
		struct iovec local = { &target, sizeof(target) };
		struct iovec remote = { (void *)(uintptr_t)target, sizeof(target) };

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(target))
			return true;
	}
	return leaves_to(x, target - bias);
}

/* What one search works on. */
struct find {
	const char *path;
	const char *file;        /* PATH's name in messages */
	const char *name;        /* the function's symbol */
	struct rec_callexits *x;
	uint64_t offset[REC_CALLEXIT_MAX_PARTS];   /* file offset of each code range */
	size_t cap;
	char *why;
	size_t size;
};

/* Whether symbol NAME is a part split off function F: F followed by a part
 * suffix (F.cold, F.cold.1, F.part.0, F.part.0.cold). */
static bool is_part(const char *name, const char *f)
{
	size_t len = strlen(f);

	return !strncmp(name, f, len) && rec_elf_part_suffix(name + len);
}

static int part_cb(const struct rec_sym *s, void *arg)
{
	struct find *f = arg;
	struct rec_callexits *x = f->x;

	if (!s->size || !is_part(s->name, f->name))
		return 0;
	for (int i = 0; i < x->ncode; i++)
		if (x->code[i].start == s->value)
			return 0;   /* in .symtab and .dynsym */
	if (x->ncode == REC_CALLEXIT_MAX_PARTS) {
		snprintf(f->why, f->size, "%s: %s has more than %d parts (%s...): its exits "
			 "cannot all be watched", f->file, f->name, REC_CALLEXIT_MAX_PARTS - 1, s->name);
		return -EINVAL;
	}
	f->offset[x->ncode] = s->file_offset;
	x->code[x->ncode++] = (struct rec_code_range){ s->value, s->value + s->size };
	return 0;
}

/* Appends exit E; returns 0 or -ENOMEM. */
static int add_exit(struct find *f, const struct rec_callexit *e)
{
	struct rec_callexits *x = f->x;
	void *p = array_grow(x->exit, &f->cap, (size_t)x->n, sizeof(*x->exit));

	if (!p)
		return -ENOMEM;
	x->exit = p;
	x->exit[x->n++] = *e;
	return 0;
}

/* The registers that tell whether indirect jump IN (operands OP) leaves. */
static uint64_t operand_regs(const ZydisDecodedOperand *op)
{
	uint64_t m = 0;
	int r;

	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && (r = perf_reg(op->reg.value)) >= 0)
		m |= 1ull << r;
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		if ((r = perf_reg(op->mem.base)) >= 0)
			m |= 1ull << r;
		if ((r = perf_reg(op->mem.index)) >= 0)
			m |= 1ull << r;
	}
	return m;
}

/* Classifies instruction IN at VADDR of range K: fills *E and returns true
 * when it may leave the call. */
static bool classify(const struct find *f, const ZydisDecodedInstruction *in,
		     const ZydisDecodedOperand *op, uint64_t vaddr, struct rec_callexit *e)
{
	uint64_t target;
	bool direct = op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		      ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &op[0], vaddr, &target));

	memset(e, 0, sizeof(*e));
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_RET:
		e->kind = REC_CALLEXIT_RET;
		return true;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (direct) {
			e->kind = REC_CALLEXIT_JMP;
			return leaves_to(f->x, target);
		}
		e->kind = REC_CALLEXIT_JMP_IND;
		e->regs = operand_regs(&op[0]);
		return true;
	case ZYDIS_CATEGORY_COND_BR:
		e->kind = REC_CALLEXIT_JCC;
		e->regs = 1ull << PERF_REG_X86_FLAGS | 1ull << PERF_REG_X86_CX;
		return direct && leaves_to(f->x, target);
	default:
		return false;
	}
}

/* Decodes code range K of F->x and adds its exits. Returns 0 or a negative
 * error after saying why. */
static int decode_range(struct find *f, int k)
{
	const struct rec_code_range *r = &f->x->code[k];
	size_t len = (size_t)(r->end - r->start), at = 0;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint8_t *code;
	int err = rec_insn_read(f->path, f->offset[k], len, &code);

	if (err) {
		snprintf(f->why, f->size, "%s: cannot read the code of %s: %s", f->file, f->name,
			 strerror(-err));
		return err;
	}
	decoder(&dec);
	for (; at < len && !err; at += in.length) {
		struct rec_callexit e;
		uint64_t vaddr = r->start + at;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + at, len - at, &in, op))) {
			snprintf(f->why, f->size, "%s: expected x86-64 instructions in %s, found "
				 "bytes that do not decode at 0x%" PRIx64 ": its returns cannot be "
				 "found", f->file, f->name, vaddr);
			err = -EINVAL;
			break;
		}
		if (!classify(f, &in, op, vaddr, &e))
			continue;
		/* the kernel's uprobes refuse a branch with an operand-size prefix */
		if (in.attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) {
			snprintf(f->why, f->size, "%s: the exit of %s at 0x%" PRIx64 " has an "
				 "operand-size prefix, which the kernel's uprobes cannot probe",
				 f->file, f->name, vaddr);
			err = -EINVAL;
			break;
		}
		e.vaddr = vaddr;
		e.file_offset = f->offset[k] + at;
		e.part = k > 0;
		e.len = in.length;
		memcpy(e.bytes, code + at, in.length);
		err = add_exit(f, &e);
	}
	free(code);
	return err;
}

int rec_callexits_find(const char *path, const char *file, uint64_t entry,
		       struct rec_callexits *x, char *why, size_t size)
{
	struct rec_sym s;
	struct find f = { .path = path, .file = file, .x = x, .why = why, .size = size };
	char label[300];
	int err;

	memset(x, 0, sizeof(*x));
	why[0] = '\0';
	err = rec_elf_addr(path, entry, &s);
	if (err) {
		snprintf(why, size, "%s: 0x%" PRIx64 ": %s", file, entry, rec_elf_strerror(err));
		return rec_elf_errno(err);
	}
	if (s.machine != EM_X86_64) {
		snprintf(why, size, "%s: the slow-call trigger finds a function's returns by "
			 "decoding x86-64 code; this file is for another machine", file);
		return -EOPNOTSUPP;
	}
	if (!s.func_value || !s.entry || !s.size) {
		snprintf(why, size, "%s: expected a function symbol with its size starting at "
			 "0x%" PRIx64 ", found %s%s: its returns cannot be found", file, entry,
			 s.func_value ? rec_sym_label(&s, label, sizeof(label)) : "none",
			 s.func_value && !s.size ? " of size 0" : s.func_value ? " around it" : "");
		return -EINVAL;
	}
	f.name = rec_sym_label(&s, label, sizeof(label));
	x->entry = entry;
	x->code[0] = (struct rec_code_range){ entry, entry + s.size };
	f.offset[0] = s.file_offset;
	x->ncode = 1;
	/* an unnamed function (a stripped file) has no parts by name */
	err = s.unnamed ? 0 : rec_elf_functions(path, part_cb, &f);
	for (int k = 0; !err && k < x->ncode; k++)
		err = decode_range(&f, k);
	for (int k = 0; !err && k < x->n; k++)
		if (x->exit[k].kind != REC_CALLEXIT_RET) {
			if (rec_callsites_find(path, entry, &x->sites) == -ENOMEM)
				err = -ENOMEM;
			break;
		}
	if (err == -ENOMEM && !why[0])
		snprintf(why, size, "out of memory");
	if (!err && !x->n) {
		snprintf(why, size, "%s: %s has no return and no jump out of it: its calls end "
			 "only when an exception (or a longjmp) leaves it, or never", file, f.name);
		return -ENOENT;   /* X holds its code: its calls may end at a catch */
	}
	if (err)
		rec_callexits_free(x);
	return err;
}

#else

bool rec_callexit_leaves(const struct rec_callexits *x, const struct rec_callexit *e, pid_t pid,
		     uint64_t ip, const uint64_t regs[REC_CALLEXIT_NREGS])
{
	(void)x, (void)e, (void)pid, (void)ip, (void)regs;
	return true;
}

int rec_callexits_find(const char *path, const char *file, uint64_t entry,
		       struct rec_callexits *x, char *why, size_t size)
{
	(void)path, (void)entry;
	memset(x, 0, sizeof(*x));
	snprintf(why, size, "%s: the slow-call trigger finds a function's returns by decoding "
		 "x86-64 code; snaptrace-record was built for another machine", file);
	return -EOPNOTSUPP;
}

#endif

void rec_callexits_free(struct rec_callexits *x)
{
	free(x->exit);
	x->exit = NULL;
	x->n = 0;
	rec_catch_free(x->catch_loc);
	x->catch_loc = NULL;
}
