/* SPDX-License-Identifier: MIT */
#include "hash.h"

#include <errno.h>
#include <stdlib.h>

#define HASH_INDEX_MIN 16   /* slots of a new index (a power of two) */

/* Puts KEY -> VAL in the first free slot of its probe sequence in SLOTS (CAP of them). */
static void put(struct hash_slot *slots, size_t cap, uint64_t key, uint32_t val)
{
	size_t i = hash64(key) & (cap - 1);

	while (slots[i].val)
		i = (i + 1) & (cap - 1);
	slots[i] = (struct hash_slot){ key, val + 1 };
}

int hash_index_reserve(struct hash_index *h, size_t n)
{
	size_t cap = h->cap ? h->cap : HASH_INDEX_MIN;
	struct hash_slot *t;

	while (cap / 2 < n)
		cap *= 2;
	if (cap == h->cap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].val)
			put(t, cap, h->slots[i].key, h->slots[i].val - 1);
	free(h->slots);
	h->slots = t;
	h->cap = cap;
	return 0;
}

int hash_index_add(struct hash_index *h, uint64_t key, uint32_t val)
{
	if (val == HASH_NONE)
		return -EINVAL;
	if (hash_index_reserve(h, h->count + 1))
		return -ENOMEM;
	put(h->slots, h->cap, key, val);
	h->count++;
	return 0;
}

void hash_index_clear(struct hash_index *h)
{
	for (size_t i = 0; i < h->cap; i++)
		h->slots[i] = (struct hash_slot){ 0, 0 };
	h->count = 0;
}

void hash_index_free(struct hash_index *h)
{
	free(h->slots);
	*h = (struct hash_index){ NULL, 0, 0 };
}
