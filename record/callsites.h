/* SPDX-License-Identifier: MIT */
/*
 * callsites: where the direct calls of a function return to, so that a call
 * which leaves the function by a tail call (a jmp to another function, which
 * then returns in its place) can be measured to its real end: the moment its
 * caller resumes. Its caller resumes at the instruction after the `call`,
 * with the stack pointer one word above the one the function had at its
 * entry (the ret popped the return address): a plain uprobe on that
 * instruction (never a uretprobe, which would rewrite the return address on
 * the stack) and that stack pointer match it to exactly its call
 * (slowcall.h).
 *
 * Found by decoding (Zydis, x86-64) every function of the file that holds
 * the watched function, from each function's start (its symbol, or its
 * unwind table's entry in a stripped file): a `call rel32` whose target is
 * the function's entry. Not found, so not watched: calls through a pointer
 * (a virtual call, a callback, `call *GOT` with -fno-plt), calls from other
 * files (a library's function called by the program, or through its own
 * PLT), calls from code outside any function symbol, and calls past the
 * first REC_CALLSITE_MAX. Why: docs/design.md "Triggers".
 */
#ifndef SNAPTRACE_REC_CALLSITES_H
#define SNAPTRACE_REC_CALLSITES_H

#include <stdbool.h>
#include <stdint.h>

#define REC_CALLSITE_MAX 64    /* return sites watched: a uprobe each, per CPU */

/* The instruction after a direct call of the function: its caller resumes there. */
struct rec_callsite {
	uint64_t vaddr;          /* link-time address */
	uint64_t file_offset;    /* its offset in the file (the uprobe's) */
};

struct rec_callsites {
	struct rec_callsite site[REC_CALLSITE_MAX];   /* in address order */
	int n;
	bool more;               /* more direct calls than REC_CALLSITE_MAX: the
				  * others are not watched */
	int unprobed;            /* direct calls whose next instruction the kernel's
				  * uprobes refuse (not watched) */
};

/*
 * Finds the return sites of the direct calls of the function whose first
 * instruction is at link-time address ENTRY, in the x86-64 ELF file PATH.
 * Fills *CS. Returns 0 (possibly none), or an error of rec_elf_code
 * (elfsym.h); other machines: -EOPNOTSUPP.
 */
int rec_callsites_find(const char *path, uint64_t entry, struct rec_callsites *cs);

/* Whether link-time address VADDR is one of the first N of CS's sites (in
 * address order; N at most CS->n). */
bool rec_callsite_is(const struct rec_callsites *cs, int n, uint64_t vaddr);

#endif
