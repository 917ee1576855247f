/* SPDX-License-Identifier: MIT */
/*
 * trigspec: turns a --trigger SPEC into the file and offset to probe.
 *   SYMBOL        a function of the target's main executable (exact name)
 *   LIB:SYMBOL    a function of shared library LIB ("libm", "libm.so.6",
 *                 or a path)
 *   addr:0xHEX    an address of the main executable as `nm`/`objdump` print
 *                 it (the link-time address; the load bias is added for PIE)
 *   none          no trigger
 * Without a SPEC the default symbols magic_trace_stop_indicator and
 * snaptrace_trigger are tried, and no trigger is used when neither exists.
 */
#ifndef SNAPTRACE_REC_TRIGSPEC_H
#define SNAPTRACE_REC_TRIGSPEC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rec_trigger_loc {
	char spec[300];         /* as given, or the default symbol found */
	char file[PATH_MAX];    /* the ELF file, a real path */
	char symbol[256];       /* the function, "" for an address outside one */
	uint64_t vaddr;         /* link-time address */
	uint64_t file_offset;   /* offset in FILE */
	bool pie;               /* ET_DYN: add the load bias at run time */
	bool in_main;           /* FILE is the main executable */
};

/* Results beyond 0 and negative errors. */
enum {
	REC_TRIGSPEC_NONE = 1,  /* no trigger: "none", or no default symbol */
};

/*
 * Resolves SPEC (NULL: the defaults) for a target whose main executable is
 * EXE (a path, possibly /proc/PID/exe) and, when PID > 0, whose libraries
 * are those mapped in PID. Fills *LOC.
 * Returns 0, REC_TRIGSPEC_NONE, or a negative error with a one-line
 * explanation in WHY (SIZE bytes; it does not repeat SPEC: the caller
 * prefixes "--trigger SPEC: "), e.g. the closest names of a missing
 * symbol. -EINVAL: malformed SPEC; -ENOENT: no such symbol or library;
 * -ENODATA: the file has no symbols; other negative errno: unreadable file.
 */
int rec_trigspec_resolve(const char *spec, const char *exe, pid_t pid,
			 struct rec_trigger_loc *loc, char *why, size_t size);

/*
 * The runtime address of LOC in process PID (for breakpoints): the start of
 * the mapping of LOC->file holding LOC->file_offset, plus the offset into
 * it. Returns 0 and sets *ADDR, or -ENOENT when the file is not mapped (yet).
 */
int rec_trigspec_runtime_addr(const struct rec_trigger_loc *loc, pid_t pid, uint64_t *addr);

#endif
