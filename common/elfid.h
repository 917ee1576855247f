/* SPDX-License-Identifier: MIT */
/*
 * elfid: a binary's GNU build id (libdwelf's dwelf_elf_gnu_build_id()), the
 * one reader of the converter (convert/binaries.c, srcline.c) and the
 * recorder (record/buildcache.c, mapids.c, keepbin.c). The tools read an
 * ELF file with libelf's ELF_C_READ (pread), never a mapping
 * (ELF_C_READ_MMAP*): the binaries a recording names are other users'
 * files, and a file its owner truncates while it is mapped kills the
 * reader with SIGBUS at its next touch of the lost pages. Why:
 * docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_ELFID_H
#define SNAPTRACE_ELFID_H

#include <libelf.h>
#include <stddef.h>

/* The build id of ELF in lowercase hex into HEX (SIZE bytes, at least 1):
 * "" when it has none, or one longer than SIZE - 1 digits. */
void elfid_hex(Elf *elf, char *hex, size_t size);

/*
 * Reads the build id of the ELF file open at FD (read as above, from its
 * start; FD stays open) into HEX as elfid_hex() does. Returns 0, or
 * -ENOEXEC (HEX "") when FD is no ELF file.
 */
int elfid_fd(int fd, char *hex, size_t size);

#endif
