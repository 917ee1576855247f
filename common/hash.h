/* SPDX-License-Identifier: MIT */
/* hash: mixing an integer key for the open-addressing tables (the
 * dlfilter's strings and threads, the binstream's functions), and hashing
 * bytes (source lines' symbols, side-band records). */
#ifndef SNAPTRACE_HASH_H
#define SNAPTRACE_HASH_H

#include <stddef.h>
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

/* Returns the 64-bit FNV-1a hash of the N bytes at P. */
static inline uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#endif
