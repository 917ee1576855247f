/* SPDX-License-Identifier: MIT */
/*
 * unwound.c: a switch's two call chains spliced into one.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_UNWOUND_H
#define SNAPTRACE_CONVERT_UNWOUND_H

#include "state.h"

/* unwound.c: splices a switch's user call chains into OUT (room for NFP +
 * NDW frames), innermost first: DW (NDW frames), the twin's chain that perf
 * unwound from a copy of the stack (DWARF; its callers one byte before their
 * return addresses, as perf gives them), and FP (NFP), the frame-pointer
 * chain of the same moment. DW's frames come first, its callers moved to
 * their return addresses; when DW ends in a thread's root (not a new
 * thread's entry alone: clone3) that is all, else
 * FP's frames past the first return address both chains hold follow (past
 * FP's first frame when none: the copy ended inside the frame FP's first
 * caller left). Returns the number of frames in OUT. */
size_t conv_unwound_splice(const struct conv_site *fp, size_t nfp, const struct conv_site *dw,
			   size_t ndw, struct conv_site *out);

#endif
