/* SPDX-License-Identifier: MIT */
/* hash: mixing an integer key for the open-addressing tables (the
 * dlfilter's strings and threads, the binstream's functions). */
#ifndef SNAPTRACE_HASH_H
#define SNAPTRACE_HASH_H

#include <stdint.h>

/* Returns X's bits mixed so that the low ones depend on all of them
 * (MurmurHash3's 64-bit finalizer, one round): pointers and small ids
 * spread over a power-of-two table. */
static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

#endif
