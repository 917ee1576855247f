// SPDX-License-Identifier: MIT
/*
 * Unit tests of common/hash's index: every key added is found with its
 * value across the index's growth (a reference array says what was added);
 * a key shared by several values hands each once, in any order; a key never
 * added is not found; clear forgets every key; HASH_NONE is refused as a
 * value; the index stays at most half full.
 */
#include <errno.h>
#include <stdlib.h>

#include "hash.h"
#include "unit.h"

#define N 20000

static void grows_and_finds(void)
{
	struct hash_index h = { 0 };
	static uint64_t keys[N];

	for (uint32_t i = 0; i < N; i++) {
		keys[i] = (uint64_t)i * 0x10000 + 7;   /* low bits alike: the mixing spreads them */
		if (hash_index_add(&h, keys[i], i))
			UNIT_FAIL("add %u failed", i);
		if (h.count * 2 > h.cap)
			UNIT_FAIL("%zu keys in %zu slots: over half full", h.count, h.cap);
	}
	for (uint32_t i = 0; i < N; i++)
		if (hash_index_get(&h, keys[i]) != i)
			UNIT_FAIL("key %u: found %u", i, hash_index_get(&h, keys[i]));
	CHECK(hash_index_get(&h, 8) == HASH_NONE);
	CHECK(hash_index_add(&h, 9, HASH_NONE) == -EINVAL);
	hash_index_clear(&h);
	CHECK(h.count == 0);
	CHECK(hash_index_get(&h, keys[0]) == HASH_NONE);
	hash_index_free(&h);
	CHECK(hash_index_get(&h, keys[0]) == HASH_NONE);   /* a freed index is empty */
}

/* Five values of one key among others: each handed once, then HASH_NONE. */
static void shared_key(void)
{
	struct hash_index h = { 0 };
	unsigned seen = 0, n = 0;
	size_t probe = 0;
	uint32_t v;

	for (uint32_t i = 0; i < 100; i++)
		CHECK(!hash_index_add(&h, i % 20 == 0 ? 42 : 1000 + i, i));
	while ((v = hash_index_next(&h, 42, &probe)) != HASH_NONE) {
		if (v % 20 || seen & (1u << (v / 20)))
			UNIT_FAIL("value %u of key 42 (handed twice, or not one of its)", v);
		seen |= 1u << (v / 20);
		n++;
	}
	CHECK_INT_EQ(n, 5);
	CHECK(hash_index_next(&h, 42, &probe) == HASH_NONE);
	hash_index_free(&h);
}

int main(void)
{
	UNIT_RUN(grows_and_finds);
	UNIT_RUN(shared_key);
	return unit_exit();
}
