/* SPDX-License-Identifier: MIT */
/*
 * demangle: C++ symbol names the way perf script prints them (demangled,
 * without the parameter list: "ns::f" for _ZN2ns1fEi).
 */
#ifndef PTSYNTH_DEMANGLE_H
#define PTSYNTH_DEMANGLE_H

/* Returns NAME demangled (or a copy of NAME when it is not mangled), owned
 * by the caller; NULL when out of memory. */
char *ps_demangle(const char *name);

#endif
