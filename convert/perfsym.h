/* SPDX-License-Identifier: MIT */
/*
 * perfsym: the function symbols of one ELF file, named the way `perf script`
 * names them in its sym field (perf 6.1, tools/perf/util/symbol-elf.c and
 * symbol.c): .symtab of the build-id debug file (/usr/lib/debug/.build-id/
 * XX/REST.debug) or of the file itself, else .dynsym; functions and text
 * labels; zero-size symbols end where the next begins; of several symbols
 * at one address the best by perf's rules (sized, not weak, global, fewest
 * leading underscores, longest name); C++ and Rust names demangled as perf
 * prints them (demangle_frame_dup(): no parameters, no template function's
 * return type, "demo::twice<int>"; Rust's v0 too); NAME@plt for the entries of the PLT (pltents.h: .plt,
 * .plt.sec, .plt.got). Where a PLT entry also lies
 * in another symbol (a zero-size _init stretched over .plt in an unstripped
 * file), perf's choice depends on the shape of its red-black tree; this
 * names the PLT entry.
 *
 * Used by the in-process Intel PT decoder (ptdecode.c) and by the tests'
 * Intel PT generator (tests/ptsynth), whose naming the pt suite checks
 * against perf's own.
 */
#ifndef SNAPTRACE_CONVERT_PERFSYM_H
#define SNAPTRACE_CONVERT_PERFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

struct runas_set;

struct perfsym {
	uint64_t start, end;  /* file offsets, [start, end) (start == end: one byte) */
	uint64_t vaddr;       /* START's link-time address (st_value); 0: not known
			       * (the PLT's entries) */
	char *name;           /* owned */
	int bind, type;
};

struct perfsym_dso {
	struct perfsym *syms; /* owned, sorted by start, no two at one start */
	size_t n;
	struct perfsym *plt;  /* owned: the NAME@plt entries */
	size_t nplt;
	char build_id[41];    /* lowercase hex of its GNU build id, "" when none */
};

/*
 * Loads the symbols of the ELF file PATH, or of the LEN bytes at IMAGE when
 * IMAGE is not NULL (an in-memory copy: the vdso), PATH and its debug file
 * opened as runas_open(WHO) does (NULL: the caller's rights alone; a name
 * in another user's recording: only what its owner may open). A file that
 * cannot be read, or is no ELF, has no symbols (every address is
 * "[unknown]"). Returns the table (free with perfsym_free), or NULL when
 * out of memory.
 */
struct perfsym_dso *perfsym_load(const char *path, const void *image, size_t len,
				 const struct runas_set *who);

/*
 * The symbol of DSO covering file offset OFF (perf's choice), or NULL when
 * none does ("[unknown]"). Valid until perfsym_free().
 */
const struct perfsym *perfsym_lookup(const struct perfsym_dso *dso, uint64_t off);

/*
 * The symbol of DSO covering link-time address V (a symbol's st_value
 * space: what a sampled frame's ip - symoff gives), as perfsym_lookup()
 * chooses at the file offset of V, or NULL when none does. Linear in the
 * symbols: for a few addresses, not a sample stream.
 */
const struct perfsym *perfsym_lookup_vaddr(const struct perfsym_dso *dso, uint64_t v);

/*
 * perfsym_load() of ELF, an ELF file the caller opened and reads (borrowed;
 * NULL: none, no symbols), its debug file opened as runas_open(WHO) does:
 * a binary's file as the one rule chooses it (srcline_symbols()). Returns
 * the table (free with perfsym_free), or NULL when out of memory.
 */
struct perfsym_dso *perfsym_load_elf(Elf *elf, const struct runas_set *who);

void perfsym_free(struct perfsym_dso *dso);

/*
 * Finds the function NAME in the ELF file PATH and stores its file offset in
 * *OFF. Returns 0, -ENOENT when there is no such function, or another
 * negative errno when the file cannot be read.
 */
int perfsym_func_offset(const char *path, const char *name, uint64_t *off);

#endif
