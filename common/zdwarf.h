/* SPDX-License-Identifier: MIT */
/*
 * zdwarf: the compressed DWARF sections of a binary bounded before libdw
 * inflates them (docs/design.md "Threat model"). dwarf_begin_elf() inflates
 * every DWARF section it reads that is compressed (SHF_COMPRESSED, the ELF
 * gABI's Elf64_Chdr; or a GNU ".zdebug_" section, "ZLIB" and the size as
 * 8 big-endian bytes) into memory of its own, as large as the section's
 * header says: zlib inflates up to about 1000 times, zstd far more, so a
 * binary of 1 MiB (another user's, named by a perf.data or traced) would
 * hold a gigabyte of the reader's memory per section. Real DWARF inflates
 * 1.5 to 7 times (gcc 12's, zlib and zstd; Debian's -dbg packages).
 */
#ifndef SNAPTRACE_ZDWARF_H
#define SNAPTRACE_ZDWARF_H

#include <gelf.h>
#include <stddef.h>

/* A compressed section may inflate to this many times its size in the
 * file, or to ZDWARF_FLOOR bytes, whichever is more. */
#define ZDWARF_RATIO 64
#define ZDWARF_FLOOR (1u << 20)

/*
 * Checks every compressed section of ELF that is not SHT_NOBITS (which
 * libdw skips: a caller hides the sections it does not want that way):
 * each inflates to at most the bound above. Returns 0; or -E2BIG with WHY
 * (SIZE bytes) naming the first section over it ("section
 * .debug_info inflates to 1073741824 bytes from 1044660 (more than 64
 * times)"); or -EINVAL with WHY when ELF's section headers cannot be read.
 */
int zdwarf_check(Elf *elf, char *why, size_t size);

#endif
