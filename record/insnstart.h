/* SPDX-License-Identifier: MIT */
/*
 * insnstart: whether a probe address is the start of an instruction. A
 * uprobe (or breakpoint) placed inside an instruction never fires and its
 * int3 byte (0xCC) overwrites part of that instruction: the traced program
 * runs something else. So every address snaptrace-record probes passes
 * here (trigspec.c, the one place triggers are resolved). On x86-64 the
 * instructions are decoded with Zydis from the start of the function symbol
 * holding the address up to it; instruction boundaries cannot be known
 * outside a function symbol (data and padding may sit between functions),
 * so such an address is refused. Other machines are not checked.
 */
#ifndef SNAPTRACE_REC_INSNSTART_H
#define SNAPTRACE_REC_INSNSTART_H

#include <stddef.h>
#include <stdint.h>

/*
 * Checks that link-time address VADDR of the ELF file PATH (named FILE in
 * the reasons: PATH may be /proc/self/fd/N) is an instruction start. Returns 0 when it is (or PATH is not x86-64: not
 * checked); -EINVAL with a one-line reason in WHY (SIZE bytes) when it is
 * inside an instruction (naming VADDR, FUNCTION+OFFSET and the nearest
 * instruction starts before and after), in no function symbol, or when the
 * bytes before it do not decode; another negative error (from rec_elf_addr,
 * as rec_elf_errno gives it, or -EIO) with WHY when PATH cannot be read.
 */
int rec_insn_start_check(const char *path, const char *file, uint64_t vaddr, char *why,
			 size_t size);

/*
 * Reads N bytes of code at file OFFSET of PATH into a new buffer *BUF (freed
 * by the caller); bytes past the end of the file read as zeros (a function
 * running to the end of the file). Returns 0, -ENOMEM, -EIO or the negative
 * errno of open().
 */
int rec_insn_read(const char *path, uint64_t offset, size_t n, uint8_t **buf);

#endif
