/* SPDX-License-Identifier: MIT */
/*
 * dwalt: dwz's supplementary DWARF file, the one a binary's
 * .gnu_debugaltlink names (its name, then its build id), found and opened
 * by the tools, never by libdw. libdw 0.188 (dwarf_getalt(), reached from
 * any attribute of form DW_FORM_GNU_strp_alt or DW_FORM_GNU_ref_alt: a
 * CU's DW_AT_comp_dir once dwz -m moved it, read by dwarf_getsrclines())
 * opens /usr/lib/debug/.build-id/XX/REST.debug, then the name (relative to
 * the binary's directory), with a plain open(): another user's FIFO there
 * held root's conversion and recorder for ever (SIGTERM, Ctrl-C ignored),
 * and a link to a root-only ELF had its .debug_str strings read into the
 * trace as source paths. Why: docs/design.md "Threat model".
 *
 * The binary's .gnu_debugaltlink is hidden from libdw (SHT_NOBITS in the
 * caller's copy of the headers: dwelf_dwarf_gnu_debugaltlink() then finds none
 * and dwarf_getalt() looks nowhere); the file is looked for at the same
 * two places, each opened as runas_open() opens an input (a regular file,
 * never a FIFO or device; a symbolic link only where pathtrust.h lets an
 * input's be followed; for another user's recording, one they may open),
 * and taken only when it is an ELF file of the build
 * id the binary names whose compressed sections zdwarf.h bounds; libdw gets
 * it with dwarf_setalt().
 */
#ifndef SNAPTRACE_DWALT_H
#define SNAPTRACE_DWALT_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

#include "runas.h"

/* Where a separate debug file is kept by its build id, as libdw, perf and
 * Debian's -dbgsym packages keep it: DWALT_DEBUG_DIR "XX/REST.debug". */
#define DWALT_DEBUG_DIR "/usr/lib/debug/.build-id/"

/* The separate debug file of build id HEX (lowercase hex digits) into PATH
 * (SIZE bytes; sizeof(DWALT_DEBUG_DIR) + strlen(HEX) + 8 hold it); false,
 * PATH unset, when HEX is shorter than 4 digits. The one rule for the
 * binaries' debug files and dwz's supplementary one. */
bool dwalt_debug_file(const char *hex, char *path, size_t size);

/* The supplementary file dwalt_begin() gave libdw (all unset: none). */
struct dwalt {
	int fd;      /* -1: none */
	Elf *elf;
	Dwarf *dw;
};

/*
 * Opens the DWARF of ELF (elf_begin(ELF_C_READ) of the file, elfid.h
 * PATH, relative to directory DIRFD, AT_FDCWD: the current one; its section
 * headers edited as above) as dwarf_begin_elf(DWARF_C_READ) does, and gives
 * it the supplementary file its .gnu_debugaltlink names (one each user of
 * WHO may open, runas.h; NULL: the caller), kept in *ALT until
 * dwalt_end(). Returns the Dwarf; NULL with WHY empty when libdw cannot
 * read ELF's DWARF; NULL with WHY (SIZE bytes, at least 1) one phrase naming the file
 * and why, when one of the two places holds something that is not taken
 * ("its supplementary DWARF file (.gnu_debugaltlink) /home/u/alt.debug: a
 * FIFO, expected a regular file", "...: another build id"): nothing of the
 * binary's DWARF is then read. A file at neither place: the Dwarf without
 * it (what it names is not found, as libdw would not find it).
 */
Dwarf *dwalt_begin(Elf *elf, int dirfd, const char *path, const struct runas_set *who,
		   struct dwalt *alt, char *why, size_t size);

/* Ends DW (may be NULL) and what ALT holds; ALT is then unset. */
void dwalt_end(Dwarf *dw, struct dwalt *alt);

#endif
