/* SPDX-License-Identifier: MIT */
/*
 * fdenames: the functions of a frame perf could not name ([unknown]) in a
 * binary without a symbol table (.symtab stripped: `strip`, Debian's own
 * binaries), from its unwind table (common/fdetab.h): the frame is in the
 * function whose FDE starts at START, named "[unnamed @ 0xSTART]"
 * (funcspec_unnamed(): the address `snaptrace symbols` lists, a measured
 * call's name), so all its samples are one function and not a slice per
 * address. A call chain's frame is at the address perf prints it at, its
 * map-relative address (perf's map_ip: ip - start + pgoff, the offset in
 * the file), taken to the link-time address through the executable
 * PT_LOAD segment holding it. Each binary is read
 * once per conversion (its program headers, its .symtab's presence and its
 * .eh_frame_hdr), opened as the converter opens binaries (under perf's
 * --symfs, by runas_open() for the recordings' other owners); one whose
 * build id is not the recorded one, or that is gone or changed
 * (binaries.h), names nothing. Why: docs/design.md "Functions without a
 * name".
 */
#ifndef SNAPTRACE_CONVERT_FDENAMES_H
#define SNAPTRACE_CONVERT_FDENAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binaries.h"
#include "runas.h"

struct fdenames;
struct fdenames_dso;

/* A new empty table: binaries under SYMFS (NULL or "": none; copied),
 * opened for WHO (borrowed; NULL: none), checked against BINS (borrowed;
 * NULL: none). NULL when out of memory. */
struct fdenames *fdenames_new(const char *symfs, const struct runas_set *who,
			      const struct binaries *bins);

/*
 * The binary DSO (LEN bytes, as perf names it) in N: the one entry of that
 * path, read at its first use, or NULL when its frames have no name here
 * (no path to a binary, not ELF, with a .symtab, without an unwind table,
 * gone or changed) or out of memory (*NOMEM set). Valid until
 * fdenames_free().
 */
const struct fdenames_dso *fdenames_dso(struct fdenames *n, const char *dso, size_t len,
					bool *nomem);

/*
 * The start (link-time) of the function of D holding file offset OFF, into
 * *START, and OFF's link-time address into *VADDR. Returns false when none
 * is known: OFF is in no executable segment, or no FDE covers it.
 */
bool fdenames_lookup(const struct fdenames_dso *d, uint64_t off, uint64_t *start,
		     uint64_t *vaddr);

/* Frees N and every entry. NULL is fine. */
void fdenames_free(struct fdenames *n);

#endif
