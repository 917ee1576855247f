/* SPDX-License-Identifier: MIT */
/*
 * pltents: the entries of an ELF file's procedure linkage table and the
 * function each one jumps to, named as objdump names them (NAME@plt) and
 * newer perf too: in .plt, .plt.sec (the IBT layout: -fcf-protection) and
 * .plt.got (a function whose address the program also takes). perf 6.1
 * knows .plt only, by position, and where the file has symbols a zero-size
 * _init stretched over the PLT wins: its frames read "_init+0x30".
 *
 * x86-64: each entry's jump through the GOT (ff 25 disp32, after an endbr64
 * and a bnd prefix when there are) names the GOT slot, and the relocation
 * of that slot (.rela.plt's JUMP_SLOT, .rela.dyn's GLOB_DAT) the symbol; a
 * lazy-binding entry that pushes a .rela.plt index (the IBT layout's .plt)
 * is named by that relocation. Other machines: perf's rule, .rela.plt's
 * N-th relocation for the N-th entry of .plt after its header.
 */
#ifndef SNAPTRACE_CONVERT_PLTENTS_H
#define SNAPTRACE_CONVERT_PLTENTS_H

#include <gelf.h>
#include <stdint.h>

/* Called for each named entry: file offset OFF, SIZE bytes, the symbol NAME
 * (as .dynsym has it, mangled; valid during the call). A non-zero return
 * stops the walk and is returned. */
typedef int (*pltents_fn)(void *arg, uint64_t off, uint64_t size, const char *name);

/* Calls FN for each entry of ELF's PLT sections that a relocation names.
 * Returns 0, FN's non-zero return, or -ENOMEM. */
int pltents_each(Elf *elf, pltents_fn fn, void *arg);

#endif
