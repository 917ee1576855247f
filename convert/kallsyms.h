/* SPDX-License-Identifier: MIT */
/*
 * kallsyms: the kernel's symbol table perf script is given for a sampled
 * perf.data (docs/design.md "Kernel symbols"). perf script names a kernel
 * frame from /proc/kallsyms, which it reads, parses and sorts whole (~120,000
 * symbols: two thirds of its CPU time on a snapshot with off-CPU stacks).
 * A private copy holding only the symbols the perf.data's kernel addresses
 * fall in, each with its successor (what perf sizes it by), names every
 * frame as the whole table does, in a third of the time.
 */
#ifndef SNAPTRACE_CONVERT_KALLSYMS_H
#define SNAPTRACE_CONVERT_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "binaries.h"

/* A private kallsyms for perf script's --kallsyms. */
struct kallsyms_copy {
	struct binaries_kept dir;  /* its private directory (fd -1: none) */
	char path[128];            /* what perf is given: DIR's handle + "/kallsyms", or a
				  * recording's kept table (kallsyms_copy_untrusted()) */
};

/*
 * Writes into *K the kallsyms for perf script on the sampled perf.data at
 * PERFDATA (a path perf and this process reach), where perf would otherwise
 * read the running kernel's /proc/kallsyms: the perf.data's kernel build id
 * is the running kernel's (/sys/kernel/notes) and none of the vmlinux files
 * perf prefers exists. Its directory also holds "kcore" and "modules",
 * links to /proc's, which perf reads beside a kallsyms as it does beside
 * /proc/kallsyms. Returns 1 with K ready (the caller calls
 * kallsyms_copy_free()); 0 with K empty when perf is best left to its own
 * table: the perf.data from another kernel or without a kernel build id,
 * no kernel address in its samples, a vmlinux, or no copy could be made
 * (perf then reads the whole table, as it always did).
 */
int kallsyms_copy_make(const char *perfdata, struct kallsyms_copy *k);

/*
 * Writes into *K the kallsyms for perf script on the perf.data PERFDATA of
 * a recording the caller may not trust with the running kernel's symbols
 * (docs/design.md "Kernel symbols": made by another user than root and the
 * caller, its kernel samples may be at addresses of that user's choosing):
 * the table the recording kept for its kernel's build id in KEPT (perf's
 * build-id cache layout, [kernel.kallsyms]/BUILDID/kallsyms; NULL: none),
 * else an empty table (perf names no kernel address: it finds no symbol, nor
 * the reference symbol it relocates by). Given --kallsyms, perf reads neither
 * /proc/kallsyms nor a vmlinux. Returns 1 (the kept table), 0 (empty), or a
 * negative errno with K empty (no private directory); the caller calls
 * kallsyms_copy_free().
 */
int kallsyms_copy_untrusted(const char *perfdata, const char *kept, struct kallsyms_copy *k);

/* Removes K's copy (if any) and empties K. */
void kallsyms_copy_free(struct kallsyms_copy *k);

/* One line of a kallsyms table. */
struct kallsyms_line {
	uint64_t start;       /* its address */
	size_t off, len;      /* its bytes in the table's text, the newline included */
	bool text, ref;       /* type T or W (text); _text or _stext */
};

/* A kallsyms table parsed once for any number of selections. */
struct kallsyms_table {
	const char *text;     /* the table (/proc/kallsyms' format, "ADDRESS TYPE
			       * NAME[\t[MODULE]]" a line; borrowed); NULL: none */
	size_t len;           /* its bytes */
	struct kallsyms_line *lines;   /* in the table's order */
	size_t nlines;
	size_t *by_start;     /* LINES' indices by start (then by order) */
	uint64_t *text_starts;         /* the distinct starts of text symbols, sorted */
	size_t ntext;
};

/* Parses TEXT (LEN bytes, borrowed: it must outlive T) into *T. Returns 0
 * (the caller calls kallsyms_table_free()), or -ENOMEM with T empty. */
int kallsyms_table_parse(const char *text, size_t len, struct kallsyms_table *t);

/* Frees what T holds (not its text) and empties it. */
void kallsyms_table_free(struct kallsyms_table *t);

/*
 * Writes to OUT the lines of T that perf needs to name the kernel addresses
 * ADDRS (N of them, sorted, distinct) as it names them from the whole of
 * T: for each address, every line from the last text symbol (type T or W,
 * as perf keeps them among D and B) at or below it to the first above it,
 * both included; and _text and _stext (perf's reference for the kernel's
 * relocation, and its kcore check); in T's order. Returns 0, or -ENOMEM,
 * or -EIO when OUT could not be written.
 */
int kallsyms_select(const struct kallsyms_table *t, const uint64_t *addrs, size_t n, FILE *out);

#endif
