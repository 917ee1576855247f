/* SPDX-License-Identifier: MIT */
/*
 * hash: the one hash index (a u64 key -> a u32 value, open addressing with
 * linear probing, grown to stay at most half full) that every table mapping
 * keys to entries uses: the table keeps its entries (an array, or pointers
 * to them) and the index maps a key to an entry's number. A key is an
 * entry's identity when it fits in 64 bits (an address, a thread id, a pair
 * of string ids), else a hash of it (a name: hash_bytes()): several entries
 * may then share a key, and hash_index_next() hands each in turn for the
 * caller to compare. Also: mixing an integer (hash64) and hashing bytes
 * (hash_bytes).
 */
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

/* Returns a key for the pair (A, B) (a thread's pid and tid): the two mixed
 * so that neither alone decides the low bits. */
static inline uint64_t hash_pair(uint64_t a, uint64_t b)
{
	return (b * 0x9e3779b97f4a7c15ull) ^ (a * 0xc2b2ae3d27d4eb4full);
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

/* A slot: KEY and its value + 1; VAL 0 is a free slot. */
struct hash_slot {
	uint64_t key;
	uint32_t val;
};

/* An index: zero it to start (no memory until the first add); CAP slots
 * (0, or a power of two), COUNT of them used. */
struct hash_index {
	struct hash_slot *slots;
	size_t cap, count;
};

#define HASH_NONE UINT32_MAX   /* no (further) value of the key */

/*
 * The values of KEY in H, one a call: start with *PROBE = 0 and call again
 * with the same PROBE for the next value of the key (a hash shared by
 * several entries). Returns a value, or HASH_NONE when there is no further
 * one. Inline: the converter looks a function up for every line.
 */
static inline uint32_t hash_index_next(const struct hash_index *h, uint64_t key, size_t *probe)
{
	size_t mask = h->cap - 1;

	if (!h->cap)
		return HASH_NONE;
	for (size_t i = (hash64(key) + *probe) & mask; h->slots[i].val; i = (i + 1) & mask) {
		++*probe;
		if (h->slots[i].key == key)
			return h->slots[i].val - 1;
	}
	return HASH_NONE;
}

/* The first value of KEY in H (an index whose keys are unique), or HASH_NONE. */
static inline uint32_t hash_index_get(const struct hash_index *h, uint64_t key)
{
	size_t probe = 0;

	return hash_index_next(h, key, &probe);
}

/* Adds KEY -> VAL (below HASH_NONE) to H, whatever values KEY has already;
 * grows H to stay at most half full. Returns 0, -EINVAL for VAL HASH_NONE,
 * or -ENOMEM (H unchanged). */
int hash_index_add(struct hash_index *h, uint64_t key, uint32_t val);

/* Grows H so that it holds N keys without growing again. Returns 0 or
 * -ENOMEM (H unchanged). */
int hash_index_reserve(struct hash_index *h, size_t n);

/* Forgets every key of H, keeping its memory. */
void hash_index_clear(struct hash_index *h);

/* Frees H's memory and zeroes it. */
void hash_index_free(struct hash_index *h);

#endif
