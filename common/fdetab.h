/* SPDX-License-Identifier: MIT */
/*
 * fdetab: the functions of an ELF file without symbols (stripped), from the
 * sorted table of its .eh_frame_hdr (PT_GNU_EH_FRAME; LSB "Exception Frame
 * Header"): the start of every function with unwind information, each
 * running to the end of its own FDE (pc_begin + pc_range, read where the
 * table points, when its pc_begin is encoded as the table's start says:
 * pcrel|sdata4, GCC's and clang's), else to the next start; the last
 * without that to its end by libdw's CFI. Code no FDE covers (the C
 * runtime's helpers between two functions) is in no function: once each
 * function ran to the next start, and a sample in register_tm_clones was
 * named after the function before it. Only the usual
 * encoding (version 1, eh_frame_ptr DW_EH_PE_pcrel|sdata4, fde_count
 * DW_EH_PE_udata4, table DW_EH_PE_datarel|sdata4) is read, with libelf
 * from a file opened ELF_C_READ (never mapped: elfid.h). The one reader of
 * it: `snaptrace symbols` and the recorder's addr: triggers
 * (record/elfsym.c), the converter's names of a stripped file's frames and
 * the places where a function's frame is not set up (convert/fdenames.c).
 */
#ifndef SNAPTRACE_FDETAB_H
#define SNAPTRACE_FDETAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

/* The entries read at most: a hostile file's fde_count is not believed past
 * it (8 bytes each: 64 MiB; a large C++ binary has some 10^5). */
#define FDETAB_MAX (UINT32_C(1) << 23)

/* A CFA rule "register + offset" (DWARF register numbers; REG -1: not of
 * that form, or no FDE row: not known). */
struct fdetab_cfa {
	int reg;
	int64_t offset;
};

struct fdetab {
	uint64_t *start;       /* the functions' link-time starts, in the table's
				* order (ascending in a well-formed file), owned;
				* none in a PLT section */
	uint64_t *end;         /* each one's FDE end (pc_begin + pc_range), 0 when
				* not read; owned */
	size_t n;
	uint64_t last_end;     /* where the last function ends (pc_begin + pc_range
				* of its FDE); 0 when unknown (it is then left out
				* by fdetab_func()) */
	bool capped;           /* the table listed more than FDETAB_MAX entries:
				* the first FDETAB_MAX were read */
	struct fdetab_cfa *cfa; /* each start's CFA rule (fdetab_read_entries()),
				* NULL until read; owned */
	struct fdetab_cfa entry_cfa; /* the rule at a function's entry, right after
				* a call (x86-64: rsp+8, the return address just
				* pushed) */
};


/*
 * Whether ELF has a .symtab (SHT_SYMTAB; at most 65536 sections looked at):
 * perf then names every function of it, and none comes from its unwind
 * table. A file without one (stripped: only .dynsym, or no symbol) has
 * the functions no symbol covers from this table, named by their start
 * (funcspec_unnamed()): the one rule of `snaptrace symbols` and the
 * recorder's addr: (record/elfsym.c) and of the converter's names of
 * frames perf left unnamed (convert/fdenames.c).
 */
bool fdetab_has_symtab(Elf *elf);

/*
 * Reads the .eh_frame_hdr table of ELF (begun with ELF_C_READ) into *T,
 * without the FDEs of PLT sections (.plt, .plt.got, .plt.sec: one FDE
 * covers a whole table of stubs that jump to other binaries' functions, no
 * function; perf names each stub NAME@plt itself).
 * Returns 0; -ENOENT when the file has no such table of the usual encoding
 * or it lists no function; -EIO when it cannot be read; -ENOMEM.
 * T is empty on error; free it with fdetab_free() either way.
 */
int fdetab_read(Elf *elf, struct fdetab *t);

/*
 * Reads into T->cfa the CFA rule at each of T's starts (libdw:
 * dwarf_cfi_addrframe, dwarf_frame_cfa), for fdetab_is_entry(): an FDE
 * whose start is no function's entry is code a jump enters (gcc's .cold
 * parts of a function and the like, python3.11: 4039 of 8747 FDEs), which
 * has the CFA of the function that jumped there (x86-64: rsp+32 where an
 * entry has rsp+8; gzip's 0x34f0: rbp+16). Only x86-64 (DWARF register 7,
 * offset 8) and i386 (4, 4) are read; on another machine every start is an
 * entry (T->cfa stays NULL). Returns 0, or -ENOMEM (T->cfa NULL).
 */
int fdetab_read_entries(Elf *elf, struct fdetab *t);

/* Whether function I of T starts at a function's entry: its CFA rule there
 * (fdetab_read_entries(), when read) is T->entry_cfa, or not known. */
bool fdetab_is_entry(const struct fdetab *t, size_t i);

/* Says the CFA rule of function I of T against an entry's, for a message:
 * "the stack pointer+32, not +8" or "DWARF register 6+16, not the stack
 * pointer+8", into BUF (SIZE bytes); returns BUF. */
const char *fdetab_cfa_words(const struct fdetab *t, size_t i, char *buf, size_t size);

/*
 * Function I of T (0 <= I < T->n): *START and *SIZE in bytes (its FDE's
 * end when read and not past the next start, else the next start, or
 * LAST_END for the last, less START). Returns false for the
 * last when its end is unknown.
 */
bool fdetab_func(const struct fdetab *t, size_t i, uint64_t *start, uint64_t *size);

/*
 * The function of T holding link-time address VADDR: its index, or -1 when
 * none does (before the first start, past the last's end, or T not
 * ascending there). Binary search: T ascending, as a well-formed table is.
 */
ptrdiff_t fdetab_find(const struct fdetab *t, uint64_t vaddr);

/* Frees what T holds and empties it. */
void fdetab_free(struct fdetab *t);

/* A range of link-time addresses [lo, hi). */
struct fdetab_range {
	uint64_t lo, hi;
};

/* Whether the frame of the function running at an address is set up
 * (fdetab_frame_at()). */
enum fdetab_frame {
	FDETAB_FRAME_UNKNOWN,    /* no CFI there, a function that never sets one up
				  * (a frameless leaf), a rule of another kind */
	FDETAB_FRAME_SET,        /* the CFA is the frame pointer's: a frame-pointer
				  * walk from there reads its own return address */
	FDETAB_FRAME_UNSET,      /* the stack pointer's, where rows of its function
				  * have the frame pointer's: its prologue, its ret */
};

/* A range of link-time addresses [lo, hi) where the frame is SET or not. */
struct fdetab_frame_range {
	uint64_t lo, hi;
	bool set;
};

/* Where in a file the frame of the function running is set up and where
 * not (fdetab_read_frames()): ranges, ascending, not overlapping; an
 * address in none is FDETAB_FRAME_UNKNOWN. */
struct fdetab_frames {
	struct fdetab_frame_range *r;  /* owned */
	size_t n, cap;
};

/*
 * Reads into *U, from ELF's CFI (libdw: each FDE's rows, dwarf_cfi_addrframe,
 * dwarf_frame_info, dwarf_frame_cfa), where each function that sets up a
 * frame pointer has it set up and where not (docs/design.md "A frameless
 * leaf's skipped caller"): set where its CFA is the frame pointer plus an
 * offset (x86-64 rbp, i386 ebp); not set where it is the stack pointer's,
 * its first instructions, before `mov %rsp,%rbp`, its `ret` after `pop
 * %rbp` or `leave`. The frame pointer there is its caller's frame, so a
 * frame-pointer walk reads its caller's return address as its own and
 * skips its caller; where it is set, the walk misses no frame. A function
 * with no frame-pointer row (a frameless leaf) has no range. The functions
 * are those of ELF's .eh_frame_hdr (fdetab_read()); a file without one, or
 * of another machine, has none. Returns 0, or -ENOMEM (U empty). Free U
 * with fdetab_frames_free() either way.
 */
int fdetab_read_frames(Elf *elf, struct fdetab_frames *u);

/* Whether the frame is set up at link-time address VADDR, by U. */
enum fdetab_frame fdetab_frame_at(const struct fdetab_frames *u, uint64_t vaddr);

/* Frees what U holds and empties it. */
void fdetab_frames_free(struct fdetab_frames *u);

#endif
