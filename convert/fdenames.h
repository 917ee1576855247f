/* SPDX-License-Identifier: MIT */
/*
 * fdenames: where a call chain's frames are in their binaries, and the
 * functions of those perf could not name ([unknown]) in a binary without a
 * symbol table (.symtab stripped: `strip`, Debian's own binaries). perf
 * prints a call chain's frame at its map-relative address (perf's map_ip:
 * ip - start + pgoff, the offset in the file), taken here to the link-time
 * address through the executable PT_LOAD segment holding it (what nm,
 * `snaptrace symbols`, addr: and record.json say: 0x401338 where perf says
 * 0x1338 in a -no-pie program). In a file without a .symtab, the frame is
 * in the function whose FDE (common/fdetab.h) starts at START, named
 * "[unnamed @ 0xSTART]" (funcspec_unnamed(): the address `snaptrace
 * symbols` lists, a measured call's name), so all its samples are one
 * function and not a slice per address. Where in a binary no frame can
 * be (its data: fdenames_place()) tells conv_chain_clean() a junk frame.
 * Each binary is read once per conversion (its program headers, its
 * sections of code, its .symtab's presence and its .eh_frame_hdr; its CFI's
 * rows at the first fdenames_frame_at() of it) from the file
 * srcline_open_binary() gives, the one every
 * reader of binaries reads: the file at its path when it is the binary
 * that ran, else the copy a recording kept of it (--keep-binaries); a
 * binary changed or gone with no copy tells nothing. Why: docs/design.md
 * "Functions without a name".
 */
#ifndef SNAPTRACE_CONVERT_FDENAMES_H
#define SNAPTRACE_CONVERT_FDENAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fdetab.h"
#include "srcline.h"

struct fdenames;
struct fdenames_dso;

/* A new empty table, reading each binary's file as SL (borrowed, outliving
 * it) opens it: srcline_open_binary(). NULL when out of memory. */
struct fdenames *fdenames_new(const struct srcline *sl);

/*
 * The binary DSO (LEN bytes, as perf names it) in N: the one entry of that
 * path, read at its first use, or NULL when its frames' places are not
 * known here (no path to a binary, not ELF, no executable segment, gone or
 * changed) or out of memory (*NOMEM set). Valid until fdenames_free().
 */
const struct fdenames_dso *fdenames_dso(struct fdenames *n, const char *dso, size_t len,
					bool *nomem);

/*
 * Where file offset OFF of D is, in one look at D's segments. Returns true
 * when OFF is in an executable segment of D, its link-time address then
 * in *VADDR; false when it is in none. *DATA says whether OFF is a place
 * of data, where no frame of a call chain is (conv_chain_clean): in a
 * loaded segment of D that is not executable (the ELF header, .interp,
 * .rodata, .data) and in no executable one, or in an executable one but,
 * when D's section headers list its sections of code (SHF_EXECINSTR), in
 * none of them nor at the end of one (a return address past a call that
 * ends it). *DATA is false for an offset past every segment's bytes (perf
 * prints no such offset: an older perf's address in the process, which
 * tells nothing).
 */
bool fdenames_place(const struct fdenames_dso *d, uint64_t off, uint64_t *vaddr, bool *data);

/* The start (link-time) of the function of D holding link-time address
 * VADDR, into *START. Returns false when none is known: D has a .symtab
 * (perf names its functions) or no unwind table, or no FDE covers VADDR. */
bool fdenames_lookup(const struct fdenames_dso *d, uint64_t vaddr, uint64_t *start);

/* Whether at link-time address VADDR of D, an entry of N, the frame of the
 * function running is set up (fdetab_read_frames(): FDETAB_FRAME_UNSET,
 * its CFA the stack pointer's there, the frame pointer's in other rows of
 * its FDE: a frame-pointer walk from there skips its caller;
 * FDETAB_FRAME_SET: the frame pointer's, the walk skips nothing;
 * FDETAB_FRAME_UNKNOWN: no such row, a frameless function). D's CFI is
 * read at the first call, once (*NOMEM set when out of memory: then
 * unknown). */
enum fdetab_frame fdenames_frame_at(struct fdenames *n, const struct fdenames_dso *d,
				   uint64_t vaddr, bool *nomem);

/* Frees N and every entry. NULL is fine. */
void fdenames_free(struct fdenames *n);

#endif
