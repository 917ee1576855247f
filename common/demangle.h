/* SPDX-License-Identifier: MIT */
/*
 * demangle: C++ and Rust symbol names as users write them. The demangler is
 * the toolchain's own, libiberty's cplus_demangle (binutils' c++filt and
 * perf use it): the Itanium C++ ABI, Rust's legacy mangling
 * (_ZN...17h<hash>E) and Rust's v0 mangling (_R..., RFC 2603). Rust names
 * are shown without their hash, as rustfilt shows them ("mycrate::f"); a
 * name given with its hash ("mycrate::f::h0123456789abcdef" legacy,
 * "mycrate[5f3a]::f" v0) matches only the function of that hash.
 */
#ifndef SNAPTRACE_DEMANGLE_H
#define SNAPTRACE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the demangled form of symbol NAME into OUT (SIZE bytes, truncated to
 * fit): "app::Store::load(int)" for _ZN3app5Store4loadEi, "mycrate::f" for
 * _RNvCs1234_7mycrate1f; NAME itself when it is not mangled (a C name).
 * Returns true when NAME was mangled.
 */
bool demangle_name(const char *name, char *out, size_t size);

/*
 * Writes symbol NAME as perf names its frames into OUT (SIZE bytes, truncated
 * to fit): demangled without the parameter list and, for a template
 * function, without its return type ("accumulate_sq<int>" for
 * _Z13accumulate_sqIiET_RKSt6vectorIS0_SaIS0_EE, "app::load" for
 * _ZN3app4loadEi); NAME itself when it is not mangled. Returns true when
 * NAME was mangled.
 */
bool demangle_frame_name(const char *name, char *out, size_t size);

/* demangle_frame_name()'s name of NAME whole, malloc'ed (the caller frees
 * it); NULL when out of memory. */
char *demangle_frame_dup(const char *name);

/*
 * Writes the demangled form of Rust symbol NAME with its hash into OUT (SIZE
 * bytes), as rustfilt -v shows it: "mycrate::f::h0123456789abcdef" (legacy),
 * "mycrate[1234]::f" (v0). Returns false (OUT: demangle_name's form) when
 * NAME is no Rust symbol with a hash.
 */
bool demangle_hashed(const char *name, char *out, size_t size);

/*
 * Writes perf's name of a function the converter named apart from others
 * perf names alike (S: its name) into OUT (SIZE bytes, truncated to fit):
 * without its Rust hashes (a legacy "::h" and 16 hex digits at its end, v0
 * crate disambiguators: "mycrate[5f3a]::f" -> "mycrate::f") or its source
 * file (a C static function's " [FILE]" at its end: "helper [a.c]" ->
 * "helper"). Returns whether S had either (else OUT is S); OUT may be NULL
 * when SIZE is 0.
 */
bool demangled_perf_name(const char *s, char *out, size_t size);

/*
 * Length of the function name in DEMANGLED, i.e. without its parameter list
 * and what follows it (" const", "&"): 16 for "app::Store::load(int) const".
 * The whole length when there is no parameter list (a parenthesised group
 * followed by "::" is a scope: "(anonymous namespace)::f").
 */
size_t demangled_base_len(const char *demangled);

/*
 * Length of the symbol name in the LEN bytes at S without its ELF symbol
 * version ("clock_gettime@@GLIBC_2.17", "memcpy@GLIBC_2.2.5": perf prints
 * the version, `snaptrace symbols` and users do not): up to its first '@',
 * except that "@plt", a PLT stub's own name, is kept. LEN when none.
 */
size_t symbol_unversioned_len(const char *s, size_t len);

/*
 * Whether symbol SYM (LEN bytes: perf's name, which may carry an ELF symbol
 * version, or the symbol table's, which has none) is the one a user names
 * WANTED (WLEN bytes): the same, or the same but for the version one of
 * them has ("clock_nanosleep" is perf's "clock_nanosleep@GLIBC_2.2.5", and
 * "clock_nanosleep@GLIBC_2.2.5" .dynsym's "clock_nanosleep"); two versions
 * only when equal; a PLT stub ("NAME@plt") only by its own name. The one
 * rule of every place a user types a function name: the converter's
 * --filter, stats' --function, the recorder's --trigger and --measure.
 */
bool symbol_version_matches(const char *sym, size_t len, const char *wanted, size_t wlen);

/*
 * Whether WANTED names the function of symbol SYMBOL whose demangled name
 * (demangle_name) is DEMANGLED: equal, or WANTED has no parameter list and
 * equals DEMANGLED's name without one ("app::Store::load" names
 * "app::Store::load(int)"), or equals SYMBOL as perf names its frames
 * (demangle_frame_name: "accumulate_sq<int>" names "int
 * accumulate_sq<int>(std::vector<int> const&)"). A WANTED with a Rust hash
 * (a legacy "::h" and 16 hex digits at its end, or a v0 crate disambiguator
 * "crate[hex]") is compared with SYMBOL demangled with its hash.
 */
bool demangled_matches(const char *symbol, const char *demangled, const char *wanted);

/* Levenshtein distance of A and B (their first 254 bytes), capped at 255. */
unsigned edit_distance(const char *a, const char *b);

#define DEMANGLED_SUGGEST_LEN 128   /* the bytes of a suggested name */
#define DEMANGLED_SUGGEST_MAX 16    /* the most names a suggestion keeps */

/* The names closest to WANTED among those offered: OUT[0..N) best first
 * (the caller's arrays of MAX rows, MAX at most DEMANGLED_SUGGEST_MAX). */
struct demangled_suggest {
	const char *wanted;
	char (*out)[DEMANGLED_SUGGEST_LEN];
	unsigned *score;           /* OUT's scores: lower is closer */
	int max, n;
};

/*
 * Offers the demangled function name DEMANGLED to SG, compared as the user
 * wrote WANTED (without its parameter list when WANTED, or DEMANGLED, has
 * none): a name
 * containing WANTED, or contained in it, ranks first (closer in length
 * first), then the others by edit distance. Each name is kept once and
 * whole (with the parameter list or the "(dso)" it was compared without);
 * one longer than DEMANGLED_SUGGEST_LEN is left out.
 */
void demangled_suggest(struct demangled_suggest *sg, const char *demangled);

/* Ends SG's offers: drops the far-fetched names at its end (more than half of
 * WANTED changed), but the closest when KEEP_ONE. Returns how many names OUT
 * holds. */
int demangled_suggest_end(struct demangled_suggest *sg, bool keep_one);


#endif
