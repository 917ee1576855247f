/* SPDX-License-Identifier: MIT */
/*
 * lineaddr: source lines to addresses, from the DWARF line tables (DWARF 5,
 * 6.2 "Line Number Information") of an ELF file built with -g, read with
 * libdw (elfutils).
 */
#ifndef SNAPTRACE_REC_LINEADDR_H
#define SNAPTRACE_REC_LINEADDR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Finds the first address of line LINE (and column COL; 0: any) of source
 * FILE in the ELF file PATH: the lowest address the line tables give as the
 * start of a statement of that line. FILE matches a table's file name
 * equal to it or ending in "/FILE". Sets *VADDR (link-time).
 * Returns 0; -ENODATA when PATH has no line tables (not built with -g);
 * -ENOENT when no table names FILE; -ERANGE when FILE has no code at that
 * line (*VADDR is then the next line that has, 0 for none); -E2BIG when a
 * compressed section would inflate too far (zdwarf.h); -EPERM when the
 * supplementary file its .gnu_debugaltlink names is there but not taken
 * (dwalt.h: a FIFO, another build id...); or another negative
 * errno when PATH cannot be read, with WHY (SIZE bytes) saying why.
 */
int rec_srcline_find(const char *path, const char *file, unsigned line, unsigned col,
		     uint64_t *vaddr, char *why, size_t size);

#endif
