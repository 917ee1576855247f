/* SPDX-License-Identifier: MIT */
/*
 * insn: x86-64 instruction classification for the Intel PT generator, on
 * Zydis. Each instruction is classified by what an Intel PT encoder must emit
 * for it (Intel SDM vol. 3C, "Intel Processor Trace", table "Packet
 * generation"): nothing, a TNT bit, a TIP, or a TIP.PGD/PGE pair.
 */
#ifndef PTSYNTH_INSN_H
#define PTSYNTH_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ps_kind {
	PS_OTHER,          /* no control flow change */
	PS_JCC,            /* conditional direct branch (jcc, loop, jrcxz): TNT */
	PS_JMP,            /* direct unconditional jump: no packet */
	PS_JMP_INDIRECT,   /* TIP */
	PS_CALL,           /* direct call: no packet */
	PS_CALL_INDIRECT,  /* TIP */
	PS_RET,            /* near return: TNT (compressed) or TIP */
	PS_SYSCALL,        /* syscall: TIP.PGD in a user-only trace */
	PS_CPUID,          /* cpuid: no packet, but the step after it can be lost */
	PS_UNSUPPORTED,    /* far transfers, int, iret, ...: the generator refuses */
};

/* One decoded instruction: address, length in bytes, kind, direct target. */
struct ps_insn {
	uint64_t ip;
	uint64_t target;  /* PS_JCC, PS_JMP, PS_CALL: the branch target; else 0 */
	uint8_t len;
	uint8_t kind;     /* enum ps_kind */
};

/*
 * Decodes the instruction at IP from BUF (LEN bytes available, at most 15
 * used) into OUT. Returns 0, or -EINVAL when the bytes are no valid
 * instruction.
 */
int ps_insn_decode(uint64_t ip, const uint8_t *buf, size_t len, struct ps_insn *out);

/* The kind's name for messages ("jcc", "ret", ...). */
const char *ps_kind_name(int kind);

/* True when the kind needs a packet of its own or a TNT bit. */
bool ps_kind_needs_packet(int kind);

/*
 * A cache of decoded instructions keyed by address (open addressing, grows).
 * The cache owns its memory; ps_icache_free() releases it.
 */
struct ps_icache {
	struct ps_insn *slots;
	size_t cap, used;
};

/* Returns the cached instruction at IP or NULL. */
const struct ps_insn *ps_icache_get(const struct ps_icache *c, uint64_t ip);

/* Adds INSN (replacing one at the same ip). Returns 0 or -ENOMEM. */
int ps_icache_put(struct ps_icache *c, const struct ps_insn *insn);

void ps_icache_free(struct ps_icache *c);

#endif
