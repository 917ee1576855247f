// SPDX-License-Identifier: MIT
/*
 * fxt_strings: string interning and FXT string index recycling (see
 * fxt_strings.h). Interning happens once per distinct string (callers cache
 * ids), so it favours simplicity: FNV-1a hashing, linear probing at a load
 * factor of at most one half, bytes copied into arena chunks. Every table
 * starts small and doubles (the chunks up to 1 MiB): a trace of ten strings
 * costs a few KiB, not the quarter MiB of a full index table (a converter
 * started per snapshot, a fuzzer's thousands of runs a second).
 */
#include "fxt_strings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

enum {
	IDS_FIRST = 256,                  /* ids (and index nodes) of a new table */
	ARENA_CHUNK_FIRST = 16 << 10,     /* bytes of the first arena chunk */
	ARENA_CHUNK_MAX = 1 << 20,        /* ... doubling up to this */
};

struct fxt_arena_chunk {
	struct fxt_arena_chunk *prev;
	size_t used, size;
	char data[];
};

_Static_assert(FXT_STRING_MAX_BYTES <= ARENA_CHUNK_FIRST, "a string must fit a chunk");
_Static_assert(FXT_STRING_MAX_BYTES <= FXT_STRING_LEN_MAX, "FXT caps strings at 32000");

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 16777619u;
	}
	return h;
}

int fxt_strings_init(struct fxt_strings *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = IDS_FIRST;
	t->ent = calloc(t->cap, sizeof(*t->ent));
	t->lru = calloc(t->cap, sizeof(*t->lru));	/* node 0, the sentinel, empty */
	t->slot_mask = 2 * IDS_FIRST - 1;
	t->slots = calloc(t->slot_mask + 1, sizeof(*t->slots));
	if (!t->ent || !t->lru || !t->slots) {
		fxt_strings_free(t);
		return -ENOMEM;
	}
	t->count = 1;        /* id 0: the empty string */
	t->next_index = 1;
	return 0;
}

void fxt_strings_free(struct fxt_strings *t)
{
	while (t->arena) {
		struct fxt_arena_chunk *c = t->arena;

		t->arena = c->prev;
		free(c);
	}
	free(t->ent);
	free(t->lru);
	free(t->slots);
	t->ent = NULL;
	t->lru = NULL;
	t->slots = NULL;
}

static const char *arena_copy(struct fxt_strings *t, const char *s, size_t len)
{
	struct fxt_arena_chunk *c = t->arena;
	char *p;

	if (!c || c->size - c->used < len) {
		size_t size = !c ? ARENA_CHUNK_FIRST :
			c->size < ARENA_CHUNK_MAX ? c->size * 2 : ARENA_CHUNK_MAX;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->prev = t->arena;
		c->used = 0;
		c->size = size;
		t->arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	c->used += len;
	return p;
}

/* Doubles the hash slots and re-inserts every id. */
static int grow_slots(struct fxt_strings *t)
{
	uint32_t mask = t->slot_mask * 2 + 1;
	uint32_t *slots = calloc((size_t)mask + 1, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 1; id < t->count; id++) {
		uint32_t i = t->ent[id].hash & mask;

		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = id;
	}
	free(t->slots);
	t->slots = slots;
	t->slot_mask = mask;
	return 0;
}

/* Doubles the room for ids: their entries and, up to one per FXT index,
 * the index nodes (an index is only ever held by an id). */
static int grow_ids(struct fxt_strings *t)
{
	uint32_t cap = t->cap * 2;
	uint32_t nodes = cap < FXT_STRING_INDEX_MAX + 1 ? cap : FXT_STRING_INDEX_MAX + 1;
	struct fxt_str *ent = realloc(t->ent, (size_t)cap * sizeof(*ent));
	struct fxt_index_node *lru;

	if (!ent)
		return -ENOMEM;
	t->ent = ent;
	if (t->cap < nodes) {
		lru = realloc(t->lru, (size_t)nodes * sizeof(*lru));
		if (!lru)
			return -ENOMEM;
		t->lru = lru;
	}
	t->cap = cap;
	return 0;
}

/* Interns S[0..LEN), LEN in 1..FXT_STRING_MAX_BYTES. */
static int intern_exact(struct fxt_strings *t, const char *s, size_t len, uint32_t *id)
{
	uint32_t h = hash_bytes(s, len);
	uint32_t i = h & t->slot_mask;
	struct fxt_str *e;

	for (; t->slots[i]; i = (i + 1) & t->slot_mask) {
		e = &t->ent[t->slots[i]];
		if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) {
			*id = t->slots[i];
			return 0;
		}
	}
	if (t->count == t->cap && grow_ids(t) < 0)
		return -ENOMEM;
	e = &t->ent[t->count];
	e->text = arena_copy(t, s, len);
	if (!e->text)
		return -ENOMEM;
	e->len = (uint32_t)len;
	e->hash = h;
	e->index = 0;
	t->slots[i] = t->count;
	*id = t->count++;
	if (t->count * 2 > t->slot_mask + 1)
		return grow_slots(t);   /* the id stays valid even if this fails */
	return 0;
}

int fxt_strings_intern(struct fxt_strings *t, const char *s, size_t len, uint32_t *id)
{
	static const char marker[] = FXT_STRING_TRUNCATED_MARKER;
	enum { ROOM = FXT_STRING_MAX_BYTES - (sizeof(marker) - 1) };
	const uint8_t *u = (const uint8_t *)s;
	char out[FXT_STRING_MAX_BYTES];
	size_t i = 0, n = 0;

	if (len == 0) {
		*id = 0;
		return 0;
	}
	if (len <= FXT_STRING_MAX_BYTES && utf8_check(s, len) == len)
		return intern_exact(t, s, len, id);
	/* Copy whole characters, each ill-formed byte or NUL as U+FFFD, up to
	 * the limit; a cut string ends in the marker at a character boundary. */
	while (i < len) {
		size_t k = utf8_char(u + i, len - i);
		const char *c = k ? s + i : UTF8_REPLACEMENT;
		size_t clen = k ? k : sizeof(UTF8_REPLACEMENT) - 1;

		if (n + clen > FXT_STRING_MAX_BYTES)
			break;
		memcpy(out + n, c, clen);
		n += clen;
		i += k ? k : 1;
	}
	if (i < len) {
		if (n > ROOM)
			n = ROOM;
		while (n > 0 && ((uint8_t)out[n] & 0xc0) == 0x80)
			n--;
		memcpy(out + n, marker, sizeof(marker) - 1);
		n += sizeof(marker) - 1;
	}
	return intern_exact(t, out, n, id);
}

unsigned fxt_strings_assign(struct fxt_strings *t, uint32_t id)
{
	struct fxt_index_node *l = t->lru;
	unsigned ix;

	if (t->next_index <= FXT_STRING_INDEX_MAX) {
		ix = t->next_index++;	/* < t->count <= t->cap: it has a node */
		/* link as most recently used */
		l[ix].prev = 0;
		l[ix].next = l[0].next;
		l[l[0].next].prev = (uint16_t)ix;
		l[0].next = (uint16_t)ix;
	} else {
		ix = l[0].prev;
		t->ent[l[ix].owner].index = 0;
		fxt_strings_touch(t, ix);
	}
	l[ix].owner = id;
	t->ent[id].index = (uint16_t)ix;
	return ix;
}
