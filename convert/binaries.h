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

/*
 * Opens the binaries a recording keeps (PERFDATA_BINARIES_DIR in the
 * recording directory RECDIR) for perf script's --buildid-dir, when they
 * are what snaptrace-record writes there and perf reads nothing else
 * through them: a directory (no symbolic link) whose tree holds only
 * directories, regular files (one name each, or the directory owner's), and
 * symbolic links that stay in it (perf's .build-id links: "../" then names).
 * Never a FIFO perf would wait on, a device it would open, a link to a
 * file out of the recording. Returns the directory's descriptor, not
 * close-on-exec, with HANDLE (SIZE >= 32 bytes) the path perf and this
 * process reach it by (/proc/self/fd/N, inpath.h; the caller closes it);
 * -ENOENT when there is none; or another negative errno with WHY (WSIZE
 * bytes) the entry refused and what it is. The owner of the recording can
 * still change the tree while perf reads it: docs/design.md "Threat model".
 */
int binaries_kept_open(int recdir, char *handle, size_t size, char *why, size_t wsize);

/* Frees what B holds (B->symfs is borrowed). */
void binaries_free(struct binaries *b);

#endif
