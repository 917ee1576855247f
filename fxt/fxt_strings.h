/* SPDX-License-Identifier: MIT */
/*
 * fxt_strings (private to fxt/): the writer's string table.
 *
 * Interning maps bytes to a stable string id (1, 2, ...; 0 is the empty
 * string) with an open-addressing hash table; the bytes are copied into an
 * arena. Separately, each id may hold one of FXT's 15-bit string indexes
 * (1..32767). fxt_strings_index() returns an id's index, assigning one on
 * first use and, once all are taken, taking the least recently used index
 * from its owner; the caller must then (re-)emit a string record for it
 * before the record that uses it. An index handed out is never recycled
 * before 32,766 other indexes have been used since, so all refs of one
 * record stay valid together.
 */
#ifndef SNAPTRACE_FXT_STRINGS_H
#define SNAPTRACE_FXT_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt_format.h"

/*
 * Longest string the writer stores, in bytes. A longer string is cut to
 * this size, its last bytes replaced by FXT_STRING_TRUNCATED_MARKER (cut at
 * a UTF-8 character boundary), so every record stays far below FXT's
 * 32,760-byte record limit.
 */
#define FXT_STRING_MAX_BYTES 4096
#define FXT_STRING_TRUNCATED_MARKER "...[truncated]"

struct fxt_str {
	const char *text;   /* in the arena, not NUL-terminated */
	uint32_t len;       /* bytes, <= FXT_STRING_MAX_BYTES */
	uint32_t hash;
	uint16_t index;     /* current FXT index, 0 = none */
};

struct fxt_arena_chunk;

/* A node of the LRU list over FXT string indexes, and the id holding it. */
struct fxt_index_node {
	uint16_t prev, next;
	uint32_t owner;
};

struct fxt_strings {
	struct fxt_str *ent;     /* by id; ent[0] is the empty string */
	uint32_t count, cap;     /* ids in use (including 0), allocated */
	uint32_t *slots;         /* hash slots holding ids, 0 = empty */
	uint32_t slot_mask;      /* slot count - 1 (a power of two) */
	struct fxt_arena_chunk *arena;
	uint32_t next_index;     /* next never-used index */
	/* LRU list over indexes, by index; node 0 is the sentinel: its next is
	 * the most recently used index, its prev the least. As many nodes as
	 * ids (min(cap, FXT_STRING_INDEX_MAX + 1)): an index is only ever
	 * handed to an id, so a small trace pays for a small table. */
	struct fxt_index_node *lru;
};

/* Initializes T (empty table). Returns 0 or -ENOMEM. */
int fxt_strings_init(struct fxt_strings *t);

/* Frees everything T holds. */
void fxt_strings_free(struct fxt_strings *t);

/*
 * Interns S[0..LEN) and stores its id in *ID (0 for LEN 0). What FXT does
 * not allow in a string (a NUL, ill-formed UTF-8: see utf8.h) is stored
 * as U+FFFD, one per byte; what goes past FXT_STRING_MAX_BYTES is cut with
 * the visible marker.
 * Returns 0 or -ENOMEM.
 */
int fxt_strings_intern(struct fxt_strings *t, const char *s, size_t len, uint32_t *id);

/* Slow path of fxt_strings_index(): assigns an index to ID, taking the least
 * recently used one when all are in use. Returns the index (1..32767). */
unsigned fxt_strings_assign(struct fxt_strings *t, uint32_t id);

/* Marks index IX as the most recently used. */
static inline void fxt_strings_touch(struct fxt_strings *t, unsigned ix)
{
	struct fxt_index_node *l = t->lru;
	uint16_t p, n;

	if (l[0].next == ix)
		return;
	p = l[ix].prev;
	n = l[ix].next;
	l[p].next = n;
	l[n].prev = p;
	l[ix].prev = 0;
	l[ix].next = l[0].next;
	l[l[0].next].prev = (uint16_t)ix;
	l[0].next = (uint16_t)ix;
}

/*
 * Returns the FXT index of string ID (1 <= ID < t->count), marking it most
 * recently used. *FRESH is set when the index was just assigned: the caller
 * must write a string record for it first.
 */
static inline unsigned fxt_strings_index(struct fxt_strings *t, uint32_t id, bool *fresh)
{
	unsigned ix = t->ent[id].index;

	if (ix) {
		fxt_strings_touch(t, ix);
		*fresh = false;
		return ix;
	}
	*fresh = true;
	return fxt_strings_assign(t, id);
}

#endif
