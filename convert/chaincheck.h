/* SPDX-License-Identifier: MIT */
/*
 * chaincheck.c: the broken-stack check of each sampled call chain.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_CHAINCHECK_H
#define SNAPTRACE_CONVERT_CHAINCHECK_H

#include "state.h"

/* chaincheck.c: counts one sampled call chain of T (FRAMES, N, innermost
 * first) for the coverage report: a chain with user-space frames that
 * reaches no thread root (conv_func.root) is broken (T->broken_chains), and
 * its innermost user dso blamed (C->broken; the outermost for dwarf); one
 * that reaches a root but is mostly unknown frames is unsymbolized
 * (T->unsymbolized_chains), the dso of its innermost unknown frame blamed
 * (C->unsymbolized); one cut at a uretprobe's trampoline is counted apart
 * (C->trampoline_chains); one with a loop cut out (conv_chain_clean)
 * counts in C->loop_chains. CALLCHAIN false: a sample without a call chain
 * (recorded without -g: perf printed its one location on the header line),
 * counted apart (T->flat_samples). Out of memory sets c->nomem. */
void conv_chaincheck_count(struct conv *c, struct conv_thread *t,
			   const struct conv_site *frames, size_t n, bool callchain);

/* A call chain that repeats: perf's frame-pointer unwinder followed a
 * frame that points at itself (or a cycle) until the kernel's limit of
 * frames (perf_event_max_stack). CONV_LOOP_PERIOD frames at most repeated
 * CONV_LOOP_REPEATS times or more in a row, all of functions with no symbol
 * (a named function that repeats is recursion, kept as it is). */
#define CONV_LOOP_PERIOD 8
#define CONV_LOOP_REPEATS 3

/*
 * chaincheck.c: the one rule of what in a call chain an unwinder gave is no
 * frame, for every chain a sample brings before anything reads it (the
 * driver's sample_done(): the sampled stack, a switch's and its unwound
 * twin, a signal's, and the sample that places a measured call's callers,
 * conv_chain_ahead(); docs/design.md "Sampled call chains"). FRAMES (N,
 * innermost first) is changed in place:
 *   - each loop (the walk followed a frame that points at itself, or a
 *     cycle) is cut to one marker frame saying why, at the address of the
 *     frame that repeats (counted in C->loop_chains by
 *     conv_chaincheck_count when the chain is drawn with it);
 *   - then the chain is cut at its first frame past the innermost whose
 *     address lies in no mapping of the process (perf's "[unknown]" binary
 *     where it names the binary of another frame of the chain, so it knows
 *     the process's mappings: an unwinder's misreading, such as a
 *     frame-pointer walk from a function's first instruction or through code
 *     without frame pointers), or past the kernel's frames at the chain's
 *     head lies at no user-space address (>= CONV_USER_END) with no binary
 *     named (no kernel frame comes outside a user frame; no code runs at a
 *     non-canonical address), or lies in a mapping that holds no code
 *     (perf's "[stack]", "[stack:TID]", "[heap]", "[vvar]",
 *     "[vvar_vclock]": named once perf records data mappings, -d), or lies
 *     at no place of code of a binary the converter can read (in no
 *     executable segment or section of code: its ELF header, .interp,
 *     .rodata, .data; conv_site.nocode, conv_func_linked()), or lies in
 *     a mapping of the process that is not executable (perf's -d data
 *     mappings: //anon, a file mapped without PROT_EXEC; nocode set from
 *     conv_maps_data(), ipname.h), or is
 *     0 or all ones (perf's libdw unwinder
 *     gives a return address of 0, the end of a stack, less one;
 *     tools/perf/util/unwind-libdw.c frame_callback()): no function, so that
 *     frame and all outside it are dropped, and the chain, reaching no root,
 *     counts as broken (counted in C->unmapped_chains, the first address
 *     kept).
 * Returns the frames left (<= N); out of memory sets c->nomem and leaves
 * the rest as it is.
 */
size_t conv_chain_clean(struct conv *c, struct conv_site *frames, size_t n);

/* chaincheck.c: frees the blamed dsos. */
void conv_chaincheck_free(struct conv *c);

#endif
