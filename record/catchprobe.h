/* SPDX-License-Identifier: MIT */
/*
 * catchprobe: where a call left by a C++ exception ends. The Itanium C++
 * ABI's runtime (libstdc++, libc++abi) enters __cxa_begin_catch from the
 * landing pad of the frame that catches, after the unwinder has restored
 * that frame's stack pointer: at its entry the stack pointer is the
 * catching frame's at its call (minus the return address), which is the
 * stack pointer every call made from that frame had at its entry. So a
 * call of a watched function entered at that stack pointer or deeper (a
 * lower address) was left by the exception being caught, and ended there
 * (slowcall.h). A plain uprobe on the function's first instruction changes
 * nothing in the program (no return address is touched).
 *
 * The function is looked up in the main executable first (libstdc++ linked
 * statically), then in the C++ runtime the target maps (attached) or would
 * load (the library directories). A program that never maps it never hits
 * the probe; catches in other processes are dropped as every uprobe hit of
 * another process is (trigger.h). Why: docs/design.md "Triggers".
 */
#ifndef SNAPTRACE_REC_CATCHPROBE_H
#define SNAPTRACE_REC_CATCHPROBE_H

#include <sys/types.h>

#include "trigspec.h"

/*
 * The C++ runtime's catch entry for a target whose main executable is EXE
 * (a path, possibly /proc/PID/exe) and, when PID > 0, whose libraries are
 * those mapped in PID: a new location (its probe file open, as
 * rec_trigspec_resolve() leaves it; free with rec_catch_free), or NULL when
 * there is no C++ runtime to probe (or no memory).
 */
struct rec_trigger_loc *rec_catch_find(const char *exe, pid_t pid);

/* Closes LOC's probe file and frees it (NULL is fine). */
void rec_catch_free(struct rec_trigger_loc *loc);

#endif
