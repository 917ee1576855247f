/* SPDX-License-Identifier: MIT */
/*
 * trigspec: turns a --trigger SPEC into the file and offset to probe. The
 * forms (magic-trace's, plus demangled names; README "Triggers"):
 *   NAME                  a bare word: a symbol, else FILE:LINE[:COL], else an address
 *   symbol:NAME           a function of the main executable: its symbol, or its
 *                         demangled C++/Rust name with or without the parameters
 *   line:FILE:LINE[:COL]  the first address of a source line (DWARF line tables)
 *                         of the executable or, attached, of a library it maps
 *   addr:0xHEX            a code address of the main executable as `nm`/`objdump`
 *                         print it (the link-time address; the load bias is
 *                         added for PIE)
 *   LIB:NAME              a function of shared library LIB ("libm", "libm.so.6",
 *                         or a path); a single ':' (not a "::" scope)
 *   LIB:addr:0xHEX        an address of LIB, as addr: of the program; also
 *                         LIB:[unnamed @ 0xHEX] and, for the program,
 *                         [unnamed @ 0xHEX] (funcspec_parse_fn_addr())
 *   .                     the default stop indicator (below); an error without one
 *   ?                     picked by the user on the terminal (symbols.h)
 *   none                  no trigger
 *   signal:NAME           no code: the target receiving signal NAME
 *                         (rec_trigspec_signal(); sigwatch.h sees it)
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
	char symbol[256];       /* the function, "" for an address outside one or in an
	                         * unnamed one (a stripped file's, from its unwind table) */
	uint64_t func_vaddr;    /* link-time start of the function holding VADDR, 0: none */
	uint64_t vaddr;         /* link-time address */
	uint64_t file_offset;   /* offset in FILE */
	bool pie;               /* ET_DYN: add the load bias at run time */
	bool in_main;           /* FILE is the main executable */
	bool clone;             /* SYMBOL is a clone gcc made of the function the spec
	                         * names, which the file has under no other name
	                         * (rec_elf_clone_base): say which was chosen */
	bool entry;             /* VADDR is the first instruction of function SYMBOL:
	                         * each hit is a call (--trigger-slower-than needs it) */
	int probe_fd;           /* FILE opened once when resolved (close-on-exec, the
	                         * caller's to close; -1: none) */
	char probe[32];         /* "/proc/self/fd/PROBE_FD": what every later check (the
	                         * call's exits) and the uprobe itself read, whatever
	                         * FILE's name leads to meanwhile (its owner may swap it) */
};

/* Results beyond 0 and negative errors. */
enum {
	REC_TRIGSPEC_NONE = 1,  /* no trigger: "none", or no default symbol */
};

/*
 * Resolves SPEC (NULL: the defaults) for a target whose main executable is
 * EXE (a path, possibly /proc/PID/exe) and, when PID > 0, whose libraries
 * are those mapped in PID. Fills *LOC; its file (EXE for the main
 * executable) is then opened once (inpath_open(): a regular file, links as
 * fs.protected_symlinks follows them) into LOC->probe_fd, and the function
 * and instruction start found by name are checked again in what was opened
 * (-ESTALE: the file changed meanwhile).
 * Returns 0, REC_TRIGSPEC_NONE, or a negative error with a one-line
 * explanation in WHY (SIZE bytes): what was tried, and the closest names of
 * a missing function. -EINVAL: a usage error (malformed SPEC, several
 * functions match, not code, '?' off a terminal); -ENOENT: no such
 * function, line or library; -ENODATA: the file has no symbols;
 * -ECANCELED: nothing picked; other negative errno: unreadable file.
 */
int rec_trigspec_resolve(const char *spec, const char *exe, pid_t pid,
			 struct rec_trigger_loc *loc, char *why, size_t size);

/*
 * The signal of a --trigger signal:NAME (NAME as sig_parse() reads it:
 * "SIGSEGV", "SEGV", "usr1", "11"). Returns it, 0 when SPEC (NULL allowed)
 * is not of that form, or -1 when NAME is no signal.
 */
int rec_trigspec_signal(const char *spec);

/*
 * The runtime address of LOC in process PID (for breakpoints): the start of
 * the mapping of LOC->file holding LOC->file_offset, plus the offset into
 * it. Returns 0 and sets *ADDR, or -ENOENT when the file is not mapped (yet).
 */
int rec_trigspec_runtime_addr(const struct rec_trigger_loc *loc, pid_t pid, uint64_t *addr);

#endif
