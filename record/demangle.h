/* SPDX-License-Identifier: MIT */
/*
 * demangle: C++ and Rust symbol names as users write them. The demangler is
 * the toolchain's own, __cxa_demangle of libstdc++ (Itanium C++ ABI,
 * "Demangler API"), which also reads Rust's legacy mangling (_ZN...17h<hash>E);
 * the Rust hash suffix "::h" and 16 hex digits is dropped, as rustfilt does.
 */
#ifndef SNAPTRACE_REC_DEMANGLE_H
#define SNAPTRACE_REC_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the demangled form of symbol NAME into OUT (SIZE bytes, truncated to
 * fit): "app::Store::load(int)" for _ZN3app5Store4loadEi; NAME itself when it
 * is not mangled (a C name). Returns true when NAME was mangled.
 */
bool rec_demangle(const char *name, char *out, size_t size);

/*
 * Length of the function name in DEMANGLED, i.e. without its parameter list
 * and what follows it (" const", "&"): 16 for "app::Store::load(int) const".
 * The whole length when there is no parameter list.
 */
size_t rec_demangled_base_len(const char *demangled);

/*
 * Whether WANTED names the function whose demangled name is DEMANGLED:
 * equal, or WANTED has no parameter list and equals DEMANGLED's name
 * without one ("app::Store::load" names "app::Store::load(int)").
 */
bool rec_demangled_matches(const char *demangled, const char *wanted);

#endif
