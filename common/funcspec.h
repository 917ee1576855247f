/* SPDX-License-Identifier: MIT */
/*
 * funcspec: the spellings of a function users write to the recorder
 * (--trigger, --measure: README "Triggers") and that snaptrace stats takes
 * back (--function): their forms' one definition.
 */
#ifndef SNAPTRACE_FUNCSPEC_H
#define SNAPTRACE_FUNCSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first ':' of S that is not part of "::" (a C++ or Rust scope), or
 * NULL: LIB:NAME's. */
const char *funcspec_single_colon(const char *s);

/* The ':' of S that ends LIB in LIB:WHAT: the last one followed by an
 * address (funcspec_parse_fn_addr()'s "addr:" or "[unnamed @ "), so that
 * a path with a ':' is LIB whole, as `snaptrace symbols` prints
 * FILE:addr:0xSTART; else funcspec_single_colon(S). */
const char *funcspec_lib_colon(const char *s);

/*
 * Reads S as FILE:LINE[:COL] (LINE and COL decimal, 1 to 100,000,000; FILE
 * without ':'): FILE into FILE (SIZE bytes), *LINE, *COL (0: none).
 * Returns 0, or -EINVAL when S is not of that form (or FILE is too long).
 */
int funcspec_parse_line(const char *s, char *file, size_t size, unsigned *line, unsigned *col);

/* Whether file name NAME (no directory) is the library LIB asks for:
 * "libm", "m", "libm.so" and "libm.so.6" all ask for libm.so.6, and
 * "libc" for libc-2.31.so. */
bool funcspec_lib_matches(const char *name, const char *lib);

/* Whether binary DSO (a path, as perf names a frame's dso) is LIB's: LIB
 * with a '/' is a path (DSO itself), else a library name
 * (funcspec_lib_matches of DSO's file name). */
bool funcspec_dso_matches(const char *dso, const char *lib);

/*
 * Whether function NAME is one PATTERN selects, the one rule of `snaptrace
 * symbols PROG PATTERN` and `snaptrace stats --match PATTERN`: a PATTERN
 * with a shell wildcard (*, ? or [) is a shell pattern of the whole name
 * (fnmatch(3)), else NAME contains it; letters match either case.
 */
bool funcspec_pattern_matches(const char *pattern, const char *name);

/* Whether PATTERN has a shell wildcard (*, ? or [): a pattern of the whole
 * name, for funcspec_pattern_matches(). */
bool funcspec_pattern_is_glob(const char *pattern);

/* Reads HEX, the address of addr:0xHEX ("0x" optional), into *ADDR.
 * Returns 0, or -EINVAL when HEX is not a hexadecimal number of 64 bits. */
int funcspec_parse_addr(const char *hex, uint64_t *addr);

/*
 * The name of a function that has no symbol (a stripped file's, known from
 * its unwind table: `snaptrace symbols` lists it "(unnamed)" at START) by
 * START, its link-time address: "[unnamed @ 0xSTART]", the one name of its
 * calls (record.json's "name" of a trigger or --measure on it, the
 * converter's slices, snaptrace stats' row, which --function addr:0xSTART
 * names), its binary apart (the slice's category, stats' dso). Into BUF
 * (SIZE bytes, FUNCSPEC_UNNAMED_MAX will do); returns BUF.
 */
#define FUNCSPEC_UNNAMED_MAX 32
const char *funcspec_unnamed(uint64_t start, char *buf, size_t size);

/* Whether the LEN bytes at S are a name funcspec_unnamed() writes. */
bool funcspec_is_unnamed(const char *s, size_t len);

/*
 * Reads S as a function's address, the one rule of --trigger, --measure
 * and stats --function, alone (the main executable's) or after LIB: (a
 * library's, as `snaptrace symbols LIB` prints it): "addr:0xHEX" (HEX as
 * funcspec_parse_addr() reads it) or the name funcspec_unnamed() gives a
 * function without one ("[unnamed @ 0xHEX]"). Into *ADDR. Returns 0;
 * -EINVAL when S is "addr:" with no address after it; -ENOENT when S is of
 * neither form (a function's name).
 */
int funcspec_parse_fn_addr(const char *s, uint64_t *addr);

#endif
