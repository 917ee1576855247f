/* SPDX-License-Identifier: MIT */
/*
 * failmalloc: allocation-failure injection for tests. A program linked with
 * failmalloc.o and FAILMALLOC_LDFLAGS (-Wl,--wrap=malloc,... see build.mk)
 * has every malloc, calloc, realloc, strdup, strndup and asprintf of its own
 * objects counted; the one numbered AT (from 1) fails as it would when out of
 * memory (NULL, -1), once. Allocations inside the libraries (libc's own,
 * zlib, libdw) are neither counted nor failed. AT comes from the
 * environment (FAILMALLOC_AT=N; unset or 0: none fails) or from
 * failmalloc_set(). With FAILMALLOC_COUNT_FILE=PATH, the count is written to
 * PATH at exit (one decimal number), so a test learns how many there are.
 * Thread-safe (the converter allocates on its parse threads).
 */
#ifndef SNAPTRACE_FAILMALLOC_H
#define SNAPTRACE_FAILMALLOC_H

#include <stdbool.h>

/* Restarts the count at 0 and makes allocation number AT (from 1) fail;
 * 0: none fails. */
void failmalloc_set(unsigned long at);

/* Returns how many allocations were counted since the start or the last
 * failmalloc_set(). */
unsigned long failmalloc_count(void);

/* Returns whether the allocation set to fail has failed. */
bool failmalloc_failed(void);

#endif
