/* SPDX-License-Identifier: MIT */
/*
 * pltnames: names a sampled frame in a PLT entry by the function the entry
 * jumps to (clock_gettime@plt), as objdump and newer perf name it. perf 6.1
 * names such a frame by the symbol it stretched over the PLT (a zero-size
 * _init: "_init+0x30"), or by nothing in .plt.sec and .plt.got, which it
 * does not know. A frame whose symbol lies over a PLT of its binary
 * (pltents.h; the binary read under perf's --symfs, unless its build id is
 * not the one the recording has for it: binaries.h) is named by the entry
 * at the symbol's start plus the frame's symoff. Each binary is read once;
 * what is kept of it is its PLT entries and the symbols over them. Why:
 * docs/design.md "PLT entries".
 */
#ifndef SNAPTRACE_CONVERT_PLTNAMES_H
#define SNAPTRACE_CONVERT_PLTNAMES_H

#include <stdbool.h>

#include "parse.h"
#include "state.h"

/* Sets F->plt and F->plt_cover (new F of C, named SYM in DSO): the binary's
 * PLT F's symbol lies over, NULL when none. Only `_init` (the symbol perf
 * stretches over .plt) and [unknown] (SYM empty: a frame perf named by
 * nothing, as it names every entry of .plt.got and .plt.sec; F->plt set,
 * F->plt_cover NULL) are looked for: the binary is read at the first met
 * in it; out of memory sets C->nomem. */
void conv_plt_cover(struct conv *c, struct conv_func *f, struct conv_span sym,
		    struct conv_span dso);

/*
 * Names LOC, a frame of function F, by the PLT entry it is in (NAME@plt,
 * perfsym.h's one rule), when F lies over a PLT (F->plt) and LOC is in an
 * entry of it: for `_init`, its symoff from the symbol's start; for
 * [unknown], its ip when CHAIN (a call chain's frame: perf's map-relative
 * address, the file offset the entries are at; any other ip is the
 * process's). LOC->sym and symoff set (pointing into C's copy), has_symoff
 * set, LOC->func cleared. Returns true when it did.
 */
bool conv_plt_name(const struct conv_func *f, bool chain, struct conv_loc *loc);

/* Frees the binaries read. */
void conv_plts_free(struct conv *c);

#endif
