/* SPDX-License-Identifier: MIT */
/*
 * fxt_trace_priv (private to fxt/): what a struct fxt_trace keeps behind its
 * priv pointer, shared by fxt_reader.c, fxt_slices.c and fxt_dump.c.
 */
#ifndef SNAPTRACE_FXT_TRACE_PRIV_H
#define SNAPTRACE_FXT_TRACE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt_writer.h"	/* enum fxt_event_type */

/* fxt_reader.h's; declared, not included: fxt_reader.c includes this file */
struct fxt_trace;

/* A record other than an event, described as text for fxt_dump_records(). */
struct fxt_note {
	size_t record_no;
	const char *text;      /* in the arena */
};

struct fxt_arena_block;

struct fxt_trace_priv {
	struct fxt_arena_block *arena;  /* strings, args and notes; never moves */
	struct fxt_arena_block *spare;  /* streaming: a block given back, reused next */
	struct fxt_note *notes;
	size_t nnotes, notes_cap;
	size_t events_cap, kobjs_cap, problems_cap;
	size_t problems_unlisted;       /* problems past FXT_TRACE_PROBLEMS_MAX */
	char unlisted_line[64];         /* the last problem line, counting those */
	bool slices_done;
};

/* Problems listed one by one; past this, one last line counts the rest. */
enum { FXT_TRACE_PROBLEMS_MAX = 10000 };

/* Returns N bytes aligned to 8 from T's arena, or NULL (out of memory). */
void *fxt_trace_alloc(struct fxt_trace *t, size_t n);

/* Adds one problem line (printf format). Returns 0 or -ENOMEM. */
int fxt_trace_problem(struct fxt_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Returns the name of an event type ("begin", "end", ...; "?" if unknown), static. */
const char *fxt_event_type_name(enum fxt_event_type type);

#endif
