/* SPDX-License-Identifier: MIT */
/*
 * samplebytes: the bytes one sample of a sampling recording takes in perf's
 * ring, the one estimate behind when the trigger arms (arming.c: how long
 * the ring takes to fill) and how big a ring holds a slow call (slowring.c).
 * Derived from perf's PERF_RECORD_SAMPLE layout (include/uapi/linux/
 * perf_event.h, the fields in PERF_SAMPLE_* bit order) for the sample_type
 * perf 6.1 gives the sampled event here (perf evlist -v of a recording):
 *   header                                   8
 *   IDENTIFIER, IP, TID, TIME, PERIOD        5 x 8
 *   ADDR, DATA_SRC (-d; --call-graph dwarf   2 x 8  REC_SAMPLE_DATA_BYTES
 *     sets them itself)
 *   CALLCHAIN: its count and its entries     8 + 8 x FRAMES (fp: the user
 *     frames and perf's context marker; dwarf: none, the user chain is
 *     unwound from the copy and the kernel's left out by :u)
 *   REGS_USER (dwarf): the ABI word and      8 + 20 x 8 (x86-64's
 *     sample_regs_user 0xff0fff)
 *   STACK_USER (dwarf): size, copy, dyn_size 8 + 8192 + 8
 *   BRANCH_STACK (lbr): count, hw_idx and    8 + 8 + 32 x 24 (estimated:
 *     32 entries of from, to, flags           no LBR on the machine measured)
 * Measured here (perf report -D): fp with -d and a 4-entry chain 104 bytes
 * (0x68), dwarf 8,448 (0x2100): both as derived.
 */
#ifndef SNAPTRACE_REC_SAMPLEBYTES_H
#define SNAPTRACE_REC_SAMPLEBYTES_H

#include <stdbool.h>
#include <stddef.h>

#include "rec_opts.h"

/* What perf's -d (which the stack copies need with frame pointers: plan.c
 * sampling_args()) adds to every sample: its ADDR and DATA_SRC fields. */
#define REC_SAMPLE_DATA_BYTES 16

/* Call chain entries of a typical sample (the README's look-back table,
 * measured on a busy thread: about 115 bytes a sample with fp, without -d),
 * for how fast a ring fills... */
#define REC_SAMPLE_FRAMES_TYPICAL 8
/* ... and of a deep one, for a ring that must hold a whole call. */
#define REC_SAMPLE_FRAMES_DEEP 32

/* The bytes one sample with unwinder CG (fp, dwarf, lbr) and a call chain
 * of FRAMES entries takes in perf's ring, with perf's ADDR and DATA_SRC
 * fields when DATA (perf's -d; always with dwarf). */
size_t rec_sample_bytes(enum rec_callgraph cg, unsigned frames, bool data);

#endif
