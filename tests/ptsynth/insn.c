/* SPDX-License-Identifier: MIT */
/* insn: instruction classification on Zydis (see insn.h). */
#include "insn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

static const char *const kind_names[] = {
	[PS_OTHER] = "other", [PS_JCC] = "jcc", [PS_JMP] = "jmp",
	[PS_JMP_INDIRECT] = "jmp*", [PS_CALL] = "call", [PS_CALL_INDIRECT] = "call*",
	[PS_RET] = "ret", [PS_SYSCALL] = "syscall", [PS_CPUID] = "cpuid",
	[PS_UNSUPPORTED] = "unsupported",
};

const char *ps_kind_name(int kind)
{
	if (kind < 0 || kind > PS_UNSUPPORTED)
		return "?";
	return kind_names[kind];
}

bool ps_kind_needs_packet(int kind)
{
	return kind == PS_JCC || kind == PS_JMP_INDIRECT || kind == PS_CALL_INDIRECT ||
	       kind == PS_RET || kind == PS_SYSCALL || kind == PS_UNSUPPORTED;
}

/* The target of a relative branch, or false when the operand is not one. */
static bool direct_target(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
			  uint64_t ip, uint64_t *target)
{
	ZyanU64 addr;

	if (in->operand_count_visible < 1 || op->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    !op->imm.is_relative)
		return false;
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, op, ip, &addr)))
		return false;
	*target = addr;
	return true;
}

static int classify(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
		    uint64_t ip, struct ps_insn *out)
{
	bool direct = direct_target(in, &ops[0], ip, &out->target);
	bool far = in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		out->kind = direct ? PS_JCC : PS_UNSUPPORTED;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		out->kind = far ? PS_UNSUPPORTED : direct ? PS_JMP : PS_JMP_INDIRECT;
		break;
	case ZYDIS_CATEGORY_CALL:
		out->kind = far ? PS_UNSUPPORTED : direct ? PS_CALL : PS_CALL_INDIRECT;
		break;
	case ZYDIS_CATEGORY_RET:
		out->kind = in->mnemonic == ZYDIS_MNEMONIC_RET ? PS_RET : PS_UNSUPPORTED;
		break;
	case ZYDIS_CATEGORY_SYSCALL:
		out->kind = in->mnemonic == ZYDIS_MNEMONIC_SYSCALL ? PS_SYSCALL : PS_UNSUPPORTED;
		break;
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSRET:
		out->kind = PS_UNSUPPORTED;
		break;
	default:
		out->kind = in->mnemonic == ZYDIS_MNEMONIC_CPUID ? PS_CPUID : PS_OTHER;
		break;
	}
	if (out->kind != PS_JCC && out->kind != PS_JMP && out->kind != PS_CALL)
		out->target = 0;
	return 0;
}

int ps_insn_decode(uint64_t ip, const uint8_t *buf, size_t len, struct ps_insn *out)
{
	static ZydisDecoder dec;
	static bool dec_ready;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!dec_ready) {
		if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
						   ZYDIS_STACK_WIDTH_64)))
			return -EINVAL;
		dec_ready = true;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, buf, len, &in, ops)))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->len = in.length;
	return classify(&in, ops, ip, out);
}

static size_t slot_of(uint64_t ip, size_t cap)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

const struct ps_insn *ps_icache_get(const struct ps_icache *c, uint64_t ip)
{
	size_t i;

	if (!c->cap || !ip)
		return NULL;
	for (i = slot_of(ip, c->cap);; i = (i + 1) & (c->cap - 1)) {
		if (c->slots[i].ip == ip)
			return &c->slots[i];
		if (!c->slots[i].ip)
			return NULL;
	}
}

static int grow(struct ps_icache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 4096, i, j;
	struct ps_insn *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		if (!c->slots[i].ip)
			continue;
		for (j = slot_of(c->slots[i].ip, cap); slots[j].ip; j = (j + 1) & (cap - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

int ps_icache_put(struct ps_icache *c, const struct ps_insn *insn)
{
	size_t i;

	if (!insn->ip)
		return -EINVAL;
	if ((c->used + 1) * 2 > c->cap && grow(c) < 0)
		return -ENOMEM;
	for (i = slot_of(insn->ip, c->cap); c->slots[i].ip && c->slots[i].ip != insn->ip;
	     i = (i + 1) & (c->cap - 1))
		;
	if (!c->slots[i].ip)
		c->used++;
	c->slots[i] = *insn;
	return 0;
}

void ps_icache_free(struct ps_icache *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}
