/* SPDX-License-Identifier: MIT */
/* array: growth of the project's dynamic arrays (capacity doubling), and
 * sorting and searching them. */
#ifndef SNAPTRACE_ARRAY_H
#define SNAPTRACE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/*
 * Returns ARR (of *CAP elements of SIZE bytes, N of them used) with room for
 * at least N + 1: ARR itself when it has room, else ARR reallocated to twice
 * its capacity (at least 16) with *CAP updated. Returns NULL on
 * out-of-memory, leaving ARR and *CAP as they were.
 */
static inline void *array_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return arr;
	if (c > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, c * size);
	if (p)
		*cap = c;
	return p;
}

/*
 * Grows *ARR (of *CAP elements of SIZE bytes) with array_grow() until it has
 * room for WANT elements. Returns 0, or -1 on out-of-memory with *ARR and
 * *CAP as they were after the last growth (still valid).
 */
static inline int array_reserve(void **arr, size_t *cap, size_t want, size_t size)
{
	while (*cap < want) {
		void *p = array_grow(*arr, cap, *cap, size);

		if (!p)
			return -1;
		*arr = p;
	}
	return 0;
}

/*
 * qsort(3), qsort_r(3) and bsearch(3) of N elements at BASE, but nothing for
 * N = 0: an array that never grew is NULL, and the C library's functions
 * must not be given a null pointer even for no element (C11 7.1.4, glibc's
 * nonnull attributes; the sanitizer build stops there: `snaptrace stats`
 * of an empty trace, `snaptrace symbols` matching nothing). The only sort
 * and search calls of the project (tests/tooling checks).
 */
static inline void array_sort(void *base, size_t n, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

static inline void array_sort_r(void *base, size_t n, size_t size,
				int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n)
		qsort_r(base, n, size, cmp, arg);
}

static inline void *array_search(const void *key, const void *base, size_t n, size_t size,
				 int (*cmp)(const void *, const void *))
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

#endif
