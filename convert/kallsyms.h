/* SPDX-License-Identifier: MIT */
/*
 * kallsyms: the kernel's symbol table perf script is given for a sampled
 * perf.data (docs/design.md "Kernel symbols"). perf script names a kernel
 * frame from /proc/kallsyms, which it reads, parses and sorts whole (~120,000
 * symbols: two thirds of its CPU time on a short recording with off-CPU
 * stacks). A private copy holding only the symbols the perf.data's kernel
 * addresses fall in, each with its successor (what perf sizes it by), names
 * every frame as the whole table does, in half the time.
 */
#ifndef SNAPTRACE_CONVERT_KALLSYMS_H
#define SNAPTRACE_CONVERT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "binaries.h"

/* A private kallsyms for perf script's --kallsyms. */
struct kallsyms_copy {
	struct binaries_kept dir;  /* its private directory (fd -1: none) */
	char path[64];             /* DIR's handle + "/kallsyms": what perf is given */
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

/* Removes K's copy (if any) and empties K. */
void kallsyms_copy_free(struct kallsyms_copy *k);

/*
 * Writes to OUT the lines of TABLE (LEN bytes of /proc/kallsyms' format,
 * "ADDRESS TYPE NAME[\t[MODULE]]" a line) that perf needs to name the
 * kernel addresses ADDRS (N of them, sorted, distinct) as it names them
 * from the whole TABLE: for each address, every line from the last text
 * symbol (type T or W, as perf keeps them among D and B) at or below it to
 * the first above it, both included; and _text and _stext (perf's
 * reference for the kernel's relocation, and its kcore check), in TABLE's
 * order. Returns 0, or -ENOMEM, or -EIO when OUT could not be written.
 */
int kallsyms_select(const char *table, size_t len, const uint64_t *addrs, size_t n, FILE *out);

#endif
