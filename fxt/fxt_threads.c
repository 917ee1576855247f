// SPDX-License-Identifier: MIT
/*
 * fxt_threads: (pid, tid) -> FXT thread index with LRU recycling (see
 * fxt_threads.h). The hash table uses linear probing with backward-shift
 * deletion, so evicting a pair leaves no tombstones.
 */
#include "fxt_threads.h"

#include <string.h>

enum { SLOT_MASK = FXT_THREADS_HASH_SLOTS - 1 };

static unsigned hash_pair(uint64_t pid, uint64_t tid)
{
	uint64_t h = (pid * UINT64_C(0x9e3779b97f4a7c15)) ^ (tid * UINT64_C(0xc2b2ae3d27d4eb4f));

	return (unsigned)(h >> 40) & SLOT_MASK;
}

void fxt_threads_init(struct fxt_threads *t)
{
	memset(t, 0, sizeof(*t));
	t->next_index = 1;
}

static void lru_unlink(struct fxt_threads *t, unsigned ix)
{
	t->lru_next[t->lru_prev[ix]] = t->lru_next[ix];
	t->lru_prev[t->lru_next[ix]] = t->lru_prev[ix];
}

static void lru_push_front(struct fxt_threads *t, unsigned ix)
{
	t->lru_prev[ix] = 0;
	t->lru_next[ix] = t->lru_next[0];
	t->lru_prev[t->lru_next[0]] = (uint8_t)ix;
	t->lru_next[0] = (uint8_t)ix;
}

static void touch(struct fxt_threads *t, unsigned ix)
{
	if (t->lru_next[0] == ix)
		return;
	lru_unlink(t, ix);
	lru_push_front(t, ix);
}

/* Removes index IX's pair from the hash table (backward-shift deletion). */
static void hash_remove(struct fxt_threads *t, unsigned ix)
{
	unsigned i = hash_pair(t->pid[ix], t->tid[ix]);

	while (t->slots[i] != ix)
		i = (i + 1) & SLOT_MASK;
	for (;;) {
		unsigned j = i, home;

		t->slots[i] = 0;
		for (;;) {
			j = (j + 1) & SLOT_MASK;
			if (!t->slots[j])
				return;
			home = hash_pair(t->pid[t->slots[j]], t->tid[t->slots[j]]);
			/* move slots[j] into the hole i unless its home lies in (i, j] */
			if (((j - home) & SLOT_MASK) >= ((j - i) & SLOT_MASK))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

unsigned fxt_threads_index(struct fxt_threads *t, uint64_t pid, uint64_t tid, bool *fresh)
{
	unsigned i, ix;

	*fresh = false;
	if (t->last && t->pid[t->last] == pid && t->tid[t->last] == tid) {
		touch(t, t->last);
		return t->last;
	}
	for (i = hash_pair(pid, tid); t->slots[i]; i = (i + 1) & SLOT_MASK) {
		ix = t->slots[i];
		if (t->pid[ix] == pid && t->tid[ix] == tid) {
			touch(t, ix);
			t->last = ix;
			return ix;
		}
	}
	if (t->next_index <= FXT_THREAD_INDEX_MAX) {
		ix = t->next_index++;
	} else {
		ix = t->lru_prev[0];
		hash_remove(t, ix);
		lru_unlink(t, ix);
		/* the hole may have moved the probe's end: search it again */
		for (i = hash_pair(pid, tid); t->slots[i]; i = (i + 1) & SLOT_MASK)
			;
	}
	lru_push_front(t, ix);
	t->pid[ix] = pid;
	t->tid[ix] = tid;
	t->slots[i] = (uint8_t)ix;
	t->last = ix;
	*fresh = true;
	return ix;
}
