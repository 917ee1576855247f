/* SPDX-License-Identifier: MIT */
/*
 * symtab: function symbols of the traced program's mappings, named the way
 * `perf script` names them in its sym field (perf 6.1, tools/perf/util/
 * symbol-elf.c and symbol.c), by the converter's convert/perfsym.c (the
 * in-process decoder's naming, which the pt suite checks against perf's);
 * "[unknown]" where no symbol covers an address. The test programs are
 * built with -fno-plt so that their own PLT is never run (perfsym.h).
 */
#ifndef PTSYNTH_SYMTAB_H
#define PTSYNTH_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "perfsym.h"
#include "trace.h"

struct ps_dso {
	char *path;                /* owned */
	struct perfsym_dso *syms;  /* owned */
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
