/* SPDX-License-Identifier: MIT */
/*
 * binaries: the binaries the perf.data inputs name by build id (what `perf
 * buildid-list` prints: perfdata_buildids()), checked against the files
 * there now. perf names no frame of a binary whose build id differs from
 * the recorded one (a program rebuilt since the recording): its frames are
 * [unknown], which is no missing symbol table. Each such binary is said
 * once, with the way back: a recording made with `snaptrace-record
 * --keep-binaries` holds a copy of each (DIR/binaries, perf's build-id cache
 * layout, which perf script reads with --buildid-dir), or the user's
 * --symfs DIR holding the binaries as they were. Why: docs/design.md
 * "Recording directories".
 */
#ifndef SNAPTRACE_CONVERT_BINARIES_H
#define SNAPTRACE_CONVERT_BINARIES_H

#include <stdbool.h>
#include <stddef.h>

#include <libelf.h>

#define BINARIES_ID_MAX 64        /* hex digits of the longest build id kept */

/* A binary a perf.data names. */
struct binary {
	char *path;                   /* as perf names it (owned) */
	char id[BINARIES_ID_MAX + 1]; /* the recorded build id, hex */
	bool changed;                 /* the file there now is another (or is gone) */
};

struct binaries {
	struct binary *b;             /* owned */
	size_t n, cap;
	const char *symfs;            /* perf's --symfs DIR the files are under ("": none; borrowed) */
};

/*
 * Reads the build ids the perf.data PERFDATA names and checks each binary
 * not seen before (a path: not [kernel.kallsyms], [vdso]) against the file
 * under B->symfs, unless the build-id cache CACHE (perf's layout; NULL:
 * none) holds it; a changed or missing one is warned of once, naming it,
 * both build ids and the remedies. Returns 0, -ENOMEM, or another negative
 * errno when the build ids cannot be read (nothing checked then).
 */
int binaries_check(struct binaries *b, const char *perfdata, const char *cache);

/* Whether the binary DSO (LEN bytes) was found changed by binaries_check(). */
bool binaries_changed(const struct binaries *b, const char *dso, size_t len);

/* The GNU build id of ELF in lowercase hex into HEX (BINARIES_ID_MAX + 1
 * bytes), "" when it has none. */
void binaries_elf_id(Elf *elf, char *hex);

/* Frees what B holds (B->symfs is borrowed). */
void binaries_free(struct binaries *b);

#endif
