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
#ifndef SNAPTRACE_REC_DEMANGLE_H
#define SNAPTRACE_REC_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the demangled form of symbol NAME into OUT (SIZE bytes, truncated to
 * fit): "app::Store::load(int)" for _ZN3app5Store4loadEi, "mycrate::f" for
 * _RNvCs1234_7mycrate1f; NAME itself when it is not mangled (a C name).
 * Returns true when NAME was mangled.
 */
bool rec_demangle(const char *name, char *out, size_t size);

/*
 * Writes the demangled form of Rust symbol NAME with its hash into OUT (SIZE
 * bytes), as rustfilt -v shows it: "mycrate::f::h0123456789abcdef" (legacy),
 * "mycrate[1234]::f" (v0). Returns false (OUT: rec_demangle's form) when
 * NAME is no Rust symbol with a hash.
 */
bool rec_demangle_hashed(const char *name, char *out, size_t size);

/*
 * Length of the function name in DEMANGLED, i.e. without its parameter list
 * and what follows it (" const", "&"): 16 for "app::Store::load(int) const".
 * The whole length when there is no parameter list.
 */
size_t rec_demangled_base_len(const char *demangled);

/*
 * Whether WANTED names the function of symbol SYMBOL whose demangled name
 * (rec_demangle) is DEMANGLED: equal, or WANTED has no parameter list and
 * equals DEMANGLED's name without one ("app::Store::load" names
 * "app::Store::load(int)"). A WANTED with a Rust hash
 * (a legacy "::h" and 16 hex digits at its end, or a v0 crate disambiguator
 * "crate[hex]") is compared with SYMBOL demangled with its hash.
 */
bool rec_demangled_matches(const char *symbol, const char *demangled, const char *wanted);


#endif
