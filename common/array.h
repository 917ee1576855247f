/* SPDX-License-Identifier: MIT */
/* array: growth of the project's dynamic arrays (capacity doubling). */
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

#endif
