/* SPDX-License-Identifier: MIT */
/*
 * binrec: the binary records snaptrace's dlfilter (dlfilter/snaptrace_dlfilter.c)
 * writes into perf script's standard output, between the text lines perf
 * itself prints (decode errors, switch records, power events, and every sample
 * the filter leaves to perf), in perf's own order. A record starts with a NUL
 * byte, which no line of perf script text starts with; text lines end with
 * '\n' as always. All numbers are in host byte order (perf and the converter
 * run on one machine).
 *
 *   header   u8 0 (BINREC_MARK), u8 type (enum binrec_type), u16 size of the
 *            whole record in bytes, header included
 *   STRING   header, u32 id (>= 1), the string's bytes (size - 8 of them,
 *            no NUL): from now on ID names this string
 *   BRANCH   struct binrec_branch: one decoded branch (perf's "branches"
 *            sample of Intel PT) with its source and target as perf resolved
 *            them
 *   TICK     struct binrec_tick: a branch that changes no stack (a jump
 *            within one function) of thread TID at TIME: only its time
 *            counts (the converter's thread times and segments)
 *
 * String id 0 is "absent": a location without a symbol (perf prints
 * "[unknown]") or without a dso (perf prints "([unknown])").
 */
#ifndef SNAPTRACE_BINREC_H
#define SNAPTRACE_BINREC_H

#include <stdint.h>

#define BINREC_MARK 0
#define BINREC_MAX 0xffffu          /* largest record, bytes */
#define BINREC_STRING_MAX (BINREC_MAX - 8)  /* longest string, bytes */

enum binrec_type {
	BINREC_STRING = 1,
	BINREC_BRANCH = 2,
	BINREC_TICK = 3,
};

struct binrec_header {
	uint8_t mark;                /* BINREC_MARK */
	uint8_t type;                /* enum binrec_type */
	uint16_t size;               /* bytes, header included */
};

/* One end of a branch: perf's ip/addr, sym, symoff and dso. */
struct binrec_loc {
	uint64_t ip;
	uint64_t symoff;             /* bytes from the symbol's start (sym != 0) */
	uint32_t sym;                /* string id; 0: no symbol */
	uint32_t dso;                /* string id; 0: no dso */
};

struct binrec_branch {
	struct binrec_header h;      /* type BINREC_BRANCH, size sizeof(struct binrec_branch) */
	uint32_t flags;              /* enum conv_flag bits (convert/parse.h) */
	uint64_t time;               /* ns */
	int32_t pid, tid;
	uint32_t comm;               /* string id; 0: unknown */
	uint32_t pad;
	struct binrec_loc from, to;
};

struct binrec_tick {
	struct binrec_header h;      /* type BINREC_TICK, size sizeof(struct binrec_tick) */
	int32_t pid, tid;
	uint32_t pad;                /* 0 */
	uint64_t time;               /* ns */
};

#endif
