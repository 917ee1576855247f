/* SPDX-License-Identifier: MIT */
/*
 * srcline: the source file and line of a function's entry, from the DWARF
 * line table of its binary (libdw). A function is named as perf names it:
 * its symbol and its dso's path; its entry is the symbol's address in the
 * binary (from the ELF symbol table: no load bias is needed) plus an offset.
 * Each binary is opened once (under perf's --symfs DIR when given; its
 * separate debug file /usr/lib/debug/.build-id/XX/YYYY.debug when it has no
 * DWARF of its own; of its DWARF, only the sections a line lookup reads,
 * at the first line looked up) and each looked-up address is cached per binary, so the
 * cost grows with the distinct functions of a trace, not its length.
 * Its symbol tables also name the overloads perf's names merge
 * (srcline_signature), with source lines or without (srcline_lines_off).
 */
#ifndef SNAPTRACE_CONVERT_SRCLINE_H
#define SNAPTRACE_CONVERT_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "runas.h"

struct srcline;

/* The page size of x86-64: load biases are multiples of it. */
#define SRCLINE_PAGE 4096u

/* Returns an empty srcline reading binaries under SYMFS (NULL or "": the
 * paths as they are; the string is copied), or NULL on out-of-memory. */
struct srcline *srcline_new(const char *symfs);

/*
 * Records the build ids the perf.data at PATH names (perfdata_buildids():
 * what `perf buildid-list -i PATH` prints, read without perf): a binary
 * whose build id differs from the recorded one gets no lines and one
 * warning. PATH that is not a perf.data (no "PERFILE" magic, or "-") is
 * ignored: the binaries of a text input are used unchecked. Returns 0;
 * -ENOMEM; or -EIO when PATH's build ids cannot be read (a header or
 * section cut short or damaged, another byte order: a one-line reason in
 * ERRBUF): then no binary gets lines from S, as none can be checked.
 */
int srcline_read_buildids(struct srcline *s, const char *path, char *errbuf, size_t errlen);

/* Records HEX as the build id of binary PATH, as the recording lists it
 * itself (recording.h: record.json "buildids"), as srcline_read_buildids()
 * records a perf.data's. Returns 0 or -ENOMEM. */
int srcline_add_buildid(struct srcline *s, const char *path, const char *hex);

/* From now on every file S opens (a binary, its debug file, its kept copy,
 * dwz's supplementary file) is one each user of WHO (borrowed, outliving S;
 * NULL: none) may open (runas_open()): another user's recording names
 * them (docs/design.md "Threat model"). One that is not is not there. */
void srcline_set_users(struct srcline *s, const struct runas_set *who);

/*
 * Looks up the entry of function SYM (SYMLEN bytes) of binary DSO (DSOLEN
 * bytes, an absolute path as perf prints it, or a relative one of the
 * directory srcline_set_dir() gave) at OFF bytes past the symbol's
 * start. SYM_START is where the symbol starts in the traced process (perf's
 * ip - symoff), 0 when unknown: a load bias is a whole number of pages
 * (SRCLINE_PAGE), so a symbol of the binary whose address is not SYM_START
 * modulo a page is not this function (the binary is not the one traced:
 * text from another machine), and of several local symbols of one name
 * only the one that agrees is taken. Returns 1 with *FILE (NUL-terminated,
 * owned by S, valid until srcline_free) and *LINE (1-based); 0 when there
 * is none: not a path, binary not found or changed, no binary at all (a
 * perf map, anonymous memory, not ELF: never opened as one), no debug info, symbol
 * not in its symbol table, not agreeing with SYM_START, or ambiguous;
 * -ENOMEM when out of memory (the binary's tables then stay incomplete: the
 * conversion must end).
 */
int srcline_lookup(struct srcline *s, const char *dso, size_t dsolen, const char *sym,
		   size_t symlen, uint64_t off, uint64_t sym_start, const char **file,
		   unsigned *line);

/*
 * Whether function SYM (SYMLEN bytes, perf's name: demangled without its
 * parameter list) of binary DSO (as srcline_lookup takes it) is one of
 * several overloads in that binary: C++ functions whose names differ only
 * in their parameter lists ("app::load(int)", "app::load(double)"), or
 * Rust functions whose names differ only in their hashes (the instances
 * of a generic function, legacy mangling: "main::crunch::h0123456789abcdef";
 * a crate linked twice, v0: "mycrate[5f3a]::f"), which perf names alike.
 * START is where the symbol starts: with LINKED, its
 * address in the binary (st_value, exact); else in the traced process
 * (perf's ip - symoff, agreeing modulo a page as srcline_lookup checks; 0:
 * unknown). Returns 0 when SYM is no overloaded name there (or the binary
 * cannot be read: not found, changed, not ELF); 1 with *SIGNATURE the
 * whole demangled name of the overload at START (a Rust one's with its hash) (owned by S, valid until
 * srcline_free), or NULL when none, or several, agree with START; -ENOMEM.
 */
int srcline_signature(struct srcline *s, const char *dso, size_t dsolen, const char *sym,
		      size_t symlen, uint64_t start, bool linked, const char **signature);

/* From now on S looks up no source line (srcline_lookup returns 0, no count
 * kept: --no-srcline); srcline_signature still reads the symbols. */
void srcline_lines_off(struct srcline *s);

/*
 * A recording's kept binaries (record --keep-binaries: perf's build-id
 * cache layout, binaries.h binaries_kept_handle()), borrowed while lines are
 * looked up: a binary changed or gone since the recording is read from the
 * copy there of the build id recorded for its path, as perf names its
 * frames from it. At most SRCLINE_CACHES_MAX (the rest ignored); NULL and
 * one given before are ignored.
 */
#define SRCLINE_CACHES_MAX 64
void srcline_add_cache(struct srcline *s, const char *cache);

/*
 * The one file read for the binary DSO (LEN bytes, as perf names it), by
 * every reader of binaries (lines, symbols, fdenames.h's unwind tables):
 * the file at its path (under the symfs, opened for the users
 * srcline_set_users() gave) when its build id is the one recorded for it
 * (or none was), else the copy of that build id a recording kept
 * (srcline_add_cache()). Returns its fd (the caller closes it and ends
 * *ELF, read and never mapped: elfid.h); -1 with *ELF NULL when there is
 * none (no path to a binary, gone, changed with no copy kept, the build
 * ids unreadable: nothing checked); -2 when the file is not ELF.
 */
int srcline_open_binary(const struct srcline *s, const char *dso, size_t len, Elf **elf);

/*
 * The symbols, named as perf names frames (perfsym.h), of the file
 * srcline_open_binary() gives for the binary DSO (LEN bytes), its debug
 * file opened for S's users: every reader of a binary's symbols besides
 * perf (a measured call's caller, PLT stubs, an unsampled address) names
 * from the file perf named the frames from, the recording's kept copy when
 * the binary was rebuilt since. An empty table when there is no such
 * file. Returns it (free with perfsym_free()), or NULL when out of memory.
 */
struct perfsym_dso *srcline_symbols(const struct srcline *s, const char *dso, size_t len);

/*
 * Relative dso names (perf inject --jit's "./jitted-PID-N.so", jitdump.h:
 * relative to the private directory perf ran in) name files of directory
 * DIRFD from now on: an open directory, borrowed (open while lines are
 * looked up), or -1: none, such a name is then never opened (it would be
 * looked up in this process's working directory). A binary opened under a
 * relative name before is not taken for DIRFD's (its lines found so far
 * stay valid).
 */
void srcline_set_dir(struct srcline *s, int dirfd);

/* Counts of distinct functions looked up (srcline_lookup with OFF 0). */
struct srcline_stats {
	uint64_t functions;      /* looked up */
	uint64_t found;          /* with a line */
	uint64_t no_binary;      /* the binary was not found, or changed (build id,
				  * or a symbol not where the trace has it) */
	uint64_t no_debuginfo;   /* in a binary without DWARF */
	uint64_t no_file;        /* in code with no binary file: JIT code (a perf
				  * map), anonymous or memfd memory, a file that
				  * is not ELF */
};

/* The counts so far. */
struct srcline_stats srcline_stats(const struct srcline *s);

/* Frees S and every string it gave out. NULL is fine. */
/*
 * Is PATH (LEN bytes) a name perf gives code that has no binary file here: a
 * perf map (/tmp/perf-PID.map, the symbols of JIT code), anonymous memory
 * (//anon, /dev/zero, /anon_hugepage), a memfd (/memfd:NAME (deleted)), a
 * relative name, or a name with a NUL byte in it (the dlfilter's stream can
 * hold one)? Such a path is never opened: at best it is a text file, at
 * worst a name anyone can create (a relative one in this process's working
 * directory).
 */
bool srcline_no_binary(const char *path, size_t len);

void srcline_free(struct srcline *s);

#endif
