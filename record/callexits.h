/* SPDX-License-Identifier: MIT */
/*
 * exits: the instructions where a call of a function leaves it, so that the
 * slow-call trigger can watch its returns with plain uprobes on them instead
 * of a uretprobe. A uretprobe replaces the return address on the stack with
 * the kernel's trampoline: an unwinder (a C++ exception, perf's
 * --call-graph dwarf, a debugger) then cannot pass the frame, and an
 * exception thrown through the function ends the program in std::terminate.
 * A uprobe on an instruction of the function changes nothing on the stack.
 *
 * The function's code is the symbol's extent plus the parts the compiler
 * split off it (symbols NAME.cold, NAME.part.N and their like, from the
 * same symbol table). Decoded with Zydis (x86-64 only), an exit is:
 *   RET       ret, ret imm16
 *   JMP       a direct jmp to outside the code, or to the function's entry:
 *             a tail call
 *   JCC       a conditional jump (jcc, jrcxz, loop) to outside: a tail call
 *             when taken, told by the sampled flags (and rcx)
 *   JMP_IND   jmp *REG or jmp *MEM: a tail call when the target, from the
 *             sampled registers (and the target's memory), is outside the
 *             code or the entry; else a jump inside (a switch's table)
 * At each of them the stack pointer is the one at the entry (it points at
 * the return address), which is how slowcall.c matches an exit to its call.
 * A call that leaves by a tail call goes on in the function jumped to, which
 * returns in its place: when the function has such exits, the return sites
 * of its direct calls are found too (callsites.h), where its caller resumes
 * and the call really ends; a call from elsewhere ends at the jump.
 * Why: docs/design.md "Triggers".
 */
#ifndef SNAPTRACE_REC_CALLEXITS_H
#define SNAPTRACE_REC_CALLEXITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "callsites.h"

struct rec_trigger_loc;

#define REC_CALLEXIT_MAX_PARTS 16  /* the function and the parts split off it */
#define REC_CALLEXIT_NREGS 24      /* perf's x86-64 user registers (PERF_REG_X86_64_MAX) */

enum rec_callexit_kind {
	REC_CALLEXIT_RET,
	REC_CALLEXIT_JMP,
	REC_CALLEXIT_JCC,
	REC_CALLEXIT_JMP_IND,
};

struct rec_callexit {
	uint64_t vaddr;          /* link-time address of the instruction */
	uint64_t file_offset;    /* its offset in the file (the uprobe's) */
	enum rec_callexit_kind kind;
	uint64_t regs;           /* the perf registers (asm/perf_regs.h bits) that tell
				  * whether it leaves: flags, rcx, the jump's operands */
	bool part;               /* in a part split off the function, not in it */
	uint8_t len;             /* bytes of the instruction */
	uint8_t bytes[15];       /* the instruction (decoded again when it is sampled) */
};

/* A range of link-time addresses [start, end). */
struct rec_code_range {
	uint64_t start, end;
};

struct rec_callexits {
	uint64_t entry;          /* link-time address of the function's first instruction */
	struct rec_code_range code[REC_CALLEXIT_MAX_PARTS];   /* [0]: the function itself */
	int ncode;
	struct rec_callexit *exit;   /* owned, in address order */
	int n;
	struct rec_callsites sites;  /* when an exit is a jump (a tail call): where the
				      * function's direct calls return to (empty
				      * otherwise, or when they cannot be read) */
	struct rec_trigger_loc *catch_loc; /* the C++ runtime's catch entry (catchprobe.h),
				      * where a call left by an exception ends; owned,
				      * NULL: none (such calls are counted unended) */
};

/*
 * Finds the exits of the function that starts at link-time address ENTRY of
 * the ELF file PATH (its symbol gives the extent; parts are looked up by
 * name), named FILE in the reasons (PATH is often /proc/self/fd/N, the
 * file pinned when resolved: trigspec.h). Fills *X (free with
 * rec_callexits_free), with the return sites of its direct calls when an
 * exit is a jump (a file whose calls cannot be read has none: its calls that
 * leave by a jump end there). Returns 0; -ENOENT when the function has no exit at
 * all (*X filled, without exits: its calls end only when an exception or a
 * longjmp leaves it, which a catch probe can see, or never; the reason in
 * WHY); -EOPNOTSUPP (not x86-64), -EINVAL (no function symbol starting at
 * ENTRY, one of size 0, code that does not decode, or an exit the kernel's
 * uprobes cannot probe), -ENOMEM, or another negative errno when PATH
 * cannot be read; each error with a one-line reason in WHY (SIZE bytes).
 */
int rec_callexits_find(const char *path, const char *file, uint64_t entry,
		       struct rec_callexits *x, char *why, size_t size);

/*
 * Whether exit E of X, sampled at runtime address IP in process PID with
 * the user registers REGS (indexed by perf register number; those in
 * E->regs set), leaves the call: always for RET and JMP; for JCC when the
 * jump is taken; for JMP_IND when its target (runtime, made link-time by
 * IP - E->vaddr) is outside X's code or X's entry, its memory operand read
 * from PID (process_vm_readv) when it has one; a target that cannot be read
 * counts as leaving.
 */
bool rec_callexit_leaves(const struct rec_callexits *x, const struct rec_callexit *e, pid_t pid,
		     uint64_t ip, const uint64_t regs[REC_CALLEXIT_NREGS]);

/* Frees what X holds (its exits and its catch entry). */
void rec_callexits_free(struct rec_callexits *x);

#endif
