/* SPDX-License-Identifier: MIT */
/*
 * symbols: the functions that can be triggers, for people: the listing of
 * `snaptrace symbols PROG|PID [PATTERN]` and the functions --trigger '?'
 * offers to the picker (picker.h: fzf where it is installed, as magic-trace
 * does; else a numbered list read from the terminal).
 */
#ifndef SNAPTRACE_REC_SYMBOLS_H
#define SNAPTRACE_REC_SYMBOLS_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "elfsym.h"

/*
 * Prints on OUT one line per function of TARGET whose demangled or symbol
 * name contains PATTERN (NULL: all; case-insensitive), sorted by file and
 * address: "DEMANGLED<TAB>SYMBOL<TAB>FILE<TAB>0xADDRESS" (a function without
 * a symbol, from a stripped file's unwind table: "[unnamed @ 0xADDRESS]" and,
 * as its SYMBOL, the spelling --trigger takes, "FILE:addr:0xADDRESS"), each field escaped
 * (escape.h: a binary's names are anybody's text) (the link-time
 * address, as addr: takes it for the program). TARGET is a process id (the
 * program and every library it maps), or an ELF file (a path, or a program
 * looked up in $PATH): a program or a library. Returns the number of lines
 * printed (0: none matched), or a negative error with a one-line reason in
 * WHY (SIZE bytes): -ENOENT no such process or file; -EINVAL a file that is
 * no regular file (a FIFO, a device: inpath.h), a usage error; else as
 * rec_elf_functions.
 */
int rec_symbols_list(FILE *out, const char *target, const char *pattern, char *why, size_t size);

/*
 * Lets the user pick a function of EXE (and, when PID > 0, of the libraries
 * PID maps) on the terminal: with fzf when it is in $PATH, else a numbered
 * list on stderr, narrowed by what is typed, read from stdin. Fills *S and
 * FILE (SIZE_FILE bytes, the ELF file holding it) and *FD: a library of
 * PID's, the file it maps (rec_proc_exec_files(): FILE its maps name, the
 * caller's to close), else -1.
 * Returns 0; -ENOTTY (with WHY) when stdin is not a terminal; -ECANCELED when
 * nothing was picked; another negative error when EXE cannot be read.
 */
int rec_symbols_pick(const char *exe, pid_t pid, struct rec_sym *s, char *file,
		     size_t size_file, int *fd, char *why, size_t size);

#endif
