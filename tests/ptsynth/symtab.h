/* SPDX-License-Identifier: MIT */
/*
 * symtab: function symbols of the traced program's mappings, named the way
 * `perf script` names them in its sym field (perf 6.1, tools/perf/util/
 * symbol-elf.c and symbol.c): .symtab of the build-id debug file
 * (/usr/lib/debug/.build-id/XX/REST.debug) or of the file itself, else
 * .dynsym; functions and text labels; zero-size symbols end where the next
 * begins; of several symbols at one address the best by perf's rules
 * (sized, not weak, global, fewest leading underscores, longest name);
 * NAME@plt for the entries of .plt; "[unknown]" where no symbol covers an
 * address. Where a PLT entry also lies in another symbol (a zero-size _init
 * stretched over .plt in an unstripped file), perf's choice depends on the
 * shape of its red-black tree; we name the PLT entry, and the test programs
 * are built with -fno-plt so that their own PLT is never run.
 */
#ifndef PTSYNTH_SYMTAB_H
#define PTSYNTH_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct ps_sym {
	uint64_t start, end;  /* file offsets, [start, end) (start == end: one byte) */
	char *name;           /* owned */
	int bind, type;
};

struct ps_dso {
	char *path;           /* owned */
	struct ps_sym *syms;  /* owned, sorted by start, no two at one start */
	size_t n;
	struct ps_sym *plt;   /* owned: the NAME@plt entries */
	size_t nplt;
};

struct ps_symmap {
	uint64_t start, end, pgoff;
	struct ps_dso *dso;   /* shared between the mappings of one file */
};

struct ps_symtab {
	struct ps_symmap *maps;
	size_t nmaps;
	struct ps_dso **dsos;
	size_t ndsos;
};

/*
 * Finds the function NAME in the ELF file PATH and stores its file offset in
 * *OFF. Returns 0, -ENOENT when there is no such function, or another
 * negative errno when the file cannot be read.
 */
int ps_elf_func_offset(const char *path, const char *name, uint64_t *off);

/*
 * Loads the symbols of every executable mapping of RUN (the vdso from its
 * in-memory copy). Mappings whose file cannot be read have no symbols.
 * Returns 0 or -ENOMEM.
 */
int ps_symtab_load(struct ps_symtab *st, const struct ps_run *run);

/*
 * Names the function containing IP: perf's sym field, "[unknown]" when no
 * symbol covers it. *START gets the symbol's start address (IP when none),
 * *DSO (if not NULL) the mapping's path (NULL outside every mapping). The
 * name stays valid until ps_symtab_free.
 */
const char *ps_symtab_lookup(const struct ps_symtab *st, uint64_t ip, uint64_t *start,
			     const char **dso);

void ps_symtab_free(struct ps_symtab *st);

#endif
