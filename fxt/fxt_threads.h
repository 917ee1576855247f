/* SPDX-License-Identifier: MIT */
/*
 * fxt_threads (private to fxt/): the writer's thread table, mapping a
 * (pid, tid) pair of koids to one of FXT's 8-bit thread indexes (1..255).
 * When all are taken the least recently used index is reassigned; the
 * caller must then write a thread record for the new pair before the
 * record that uses it. A small open-addressing hash table finds the index
 * of a pair; the last pair used is checked first.
 */
#ifndef SNAPTRACE_FXT_THREADS_H
#define SNAPTRACE_FXT_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt_format.h"

enum { FXT_THREADS_HASH_SLOTS = 512 };   /* power of two, > 2 * 255 */

struct fxt_threads {
	uint64_t pid[FXT_THREAD_INDEX_MAX + 1], tid[FXT_THREAD_INDEX_MAX + 1];
	uint8_t lru_prev[FXT_THREAD_INDEX_MAX + 1];   /* node 0: sentinel */
	uint8_t lru_next[FXT_THREAD_INDEX_MAX + 1];
	uint8_t slots[FXT_THREADS_HASH_SLOTS];        /* indexes, 0 = empty */
	unsigned next_index;                          /* next never-used index */
	unsigned last;                                /* index used last, 0 = none */
};

/* Initializes T (empty table). */
void fxt_threads_init(struct fxt_threads *t);

/*
 * Returns the index (1..255) of thread (PID, TID), marking it most recently
 * used. *FRESH is set when the index was just assigned: the caller must
 * write a thread record for it first.
 */
unsigned fxt_threads_index(struct fxt_threads *t, uint64_t pid, uint64_t tid, bool *fresh);

#endif
