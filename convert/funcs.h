/* SPDX-License-Identifier: MIT */
/*
 * funcs.c: interned functions (struct conv_func) and the strings they
 * name.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_FUNCS_H
#define SNAPTRACE_CONVERT_FUNCS_H

#include "fdetab.h"
#include "state.h"

/* funcs.c: returns the interned function of SYM in DSO (len 0 sym: unknown),
 * or NULL on out-of-memory (c->nomem set). */
const struct conv_func *conv_func_get(struct conv *c, struct conv_span sym, struct conv_span dso);

/* funcs.c: the function of a sample's frame (a call chain's, or the
 * sample's own location) of F at IP: F when it has a symbol (or is the
 * [uprobes] page, named by what it is), else the unknown function of F's
 * symbol and dso at IP, one per address: nothing says two addresses perf
 * could not name are one function (two JIT functions whose perf map is gone,
 * code in //anon memory or a deleted file), so consecutive samples are one
 * slice only while they are at the same address. A branch's ends (Intel PT)
 * keep F: a jump between two unknown addresses of a dso is taken as one
 * function's. NULL when F is NULL or out of memory (c->nomem). */
const struct conv_func *conv_func_at(struct conv *c, const struct conv_func *f, uint64_t ip);

/* funcs.c: the string PRE + the first MAX bytes of MID (any bytes, NULs
 * included: the writer replaces what FXT does not allow) + POST. PRE and
 * POST are NUL-terminated, up to CONV_NAME_AFFIX_MAX bytes each; MAX is cut
 * to CONV_NAME_MID_MAX. */
#define CONV_NAME_AFFIX_MAX 64
#define CONV_NAME_MID_MAX 512
fxt_string_id conv_name(struct conv *c, const char *pre, struct conv_span mid, size_t max,
			const char *post);

/* funcs.c: whether F is in the kernel's [uprobes] page, where a uprobe runs
 * the instruction it replaced (single-stepped out of line). */
bool conv_func_is_uprobes(const struct conv_func *f);

/* funcs.c: the index in FRAMES (N, innermost first) of the user frame a
 * breakpoint trap from user space interrupted (x86-64's asm_exc_int3, int3
 * before Linux 5.9: a uprobe's int3 before its handler ran), when the chain
 * was taken in that trap and reaches no thread root past it: the user ip is
 * then one byte past the breakpoint, mid-instruction, and no unwinder finds
 * the callers from there (what it printed past that frame is not them). N
 * otherwise. */
size_t conv_chain_trap_frame(const struct conv_site *frames, size_t n);

/* The dso of the one frame a loop of a call chain is cut to
 * (conv_chain_clean): a function with no symbol, its frames named
 * "[call chain cut: 0xIP repeats]". */
#define CONV_LOOP_DSO "[call chain loop]"

/* funcs.c: whether F is that frame's function. */
bool conv_func_is_loop(const struct conv_func *f);

/* funcs.c: the slice name of a frame of F entered at IP: F's symbol, or
 * "[unknown @ 0xIP (DSO)]" when F has none (the [uprobes] page and a loop
 * cut have names of their own). */
fxt_string_id conv_func_frame_name(struct conv *c, const struct conv_func *f, uint64_t ip);

/* funcs.c: the source line of F's entry at OFF bytes past its symbol, which
 * starts at SYM_START in the process (0: unknown; see srcline_lookup), as
 * the arguments "file" and "line" in ARGS (room for 2). Returns how many it
 * wrote: 0 when srcline is off, F is unknown or KERNEL, or the binary has no
 * line for it. The result for OFF 0 is cached on F. */
unsigned conv_func_srcline(struct conv *c, const struct conv_func *f, uint64_t off,
			   uint64_t sym_start, bool kernel, struct fxt_arg *args);

/* funcs.c: the function a frame of F is: F, or when F's symbol is perf's
 * name of several C++ overloads in its binary (perf prints no parameter
 * list: "app::load" for app::load(int) and app::load(double)) or of several
 * Rust functions (perf prints no hash: "main::crunch" for the instances of
 * a generic function), the one starting at START (srcline_signature():
 * LINKED, its address in the binary; else in the process, ip - symoff),
 * named with its parameter list, or its hash ("main::crunch::h0123...");
 * "NAME(?)" when START is unknown or does not tell which. Overloads are
 * never one function. NULL when F is NULL or out of memory (c->nomem). */
const struct conv_func *conv_func_overload(struct conv *c, const struct conv_func *f,
					   uint64_t start, bool linked);

/* funcs.c: the function a call chain's frame S of F is, and where: S->ip,
 * as perf prints a call chain's frames (the map-relative address, the
 * offset in the file), is made the frame's link-time address when F's
 * binary can be read (fdenames.h; S->linked set): what nm, `snaptrace
 * symbols`, addr: and record.json say, a non-PIE program's 0x401338 where
 * perf says 0x1338 (a PIE's and a library's are alike in both); else it is
 * left as perf printed it. The function is F, or when F is the unknown
 * function of a binary without symbols ([unknown] in it: perf named
 * nothing there) whose unwind table covers S->ip, the function "[unnamed @
 * 0xSTART]" of that binary (funcspec_unnamed(), START the FDE's link-time
 * start), with S->symoff its bytes past START. S->nocode is set when F's
 * binary can be read and S->ip is no place of code in it (fdenames_place():
 * the ELF header, .interp, .rodata, .data...), S->ip then left as perf
 * printed it: no frame of a call chain, junk (conv_chain_clean). NULL when
 * out of memory (c->nomem). */
const struct conv_func *conv_func_linked(struct conv *c, const struct conv_func *f,
					 struct conv_site *s);

/* funcs.c: whether the frame of call chain frame S's function is set up
 * at S's address (fdenames_frame_at()): FDETAB_FRAME_UNSET where that
 * function sets one up elsewhere (its prologue, its ret): a frame-pointer
 * chain of a sample there skipped its caller (chain.c hold_leaf());
 * FDETAB_FRAME_SET: that chain skipped nothing. FDETAB_FRAME_UNKNOWN when
 * S's address is not known in its binary (S->linked), or its function
 * never sets one up. */
enum fdetab_frame conv_site_frame(struct conv *c, const struct conv_site *s);

/* funcs.c: frees the function table. */
void conv_funcs_free(struct conv *c);

#endif
