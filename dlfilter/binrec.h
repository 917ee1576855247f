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
 * The stream is a format: it is saved (a file of perf script's output with
 * the dlfilter) and converted later, maybe by another snaptrace. Every
 * number below is frozen: a record type, a flag bit or a field is never
 * renumbered, reused or moved; a change that an older reader would misread
 * takes a new BINREC_FORMAT, which the VERSION record that starts every
 * stream says. A reader refuses a stream of another version, and binary
 * records without a VERSION record before them.
 *
 *   header   u8 0 (BINREC_MARK), u8 type (enum binrec_type), u16 size of the
 *            whole record in bytes, header included
 *   VERSION  struct binrec_version: the first record of the stream (perf's
 *            text lines may come before it), BINREC_FORMAT
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
#define BINREC_FORMAT 1u            /* the version this header describes */
#define BINREC_MAX 0xffffu          /* largest record, bytes */
#define BINREC_STRING_MAX (BINREC_MAX - 8)  /* longest string, bytes */

/* Record types: frozen. */
enum binrec_type {
	BINREC_STRING = 1,
	BINREC_BRANCH = 2,
	BINREC_TICK = 3,
	BINREC_VERSION = 4,
};

/* What a BRANCH is: perf's named flag sets (tools/perf/util/
 * trace-event-scripting.c, sample_flags[]) that keep one wording across perf
 * versions ("call", "jcc", "hw int"...), one bit each, and IN_TX beside any
 * of them. Frozen: bit N means the same in every stream of every version. */
enum binrec_flag {
	BINREC_F_CALL = 1u << 0,      /* "call" */
	BINREC_F_RETURN = 1u << 1,    /* "return" */
	BINREC_F_JCC = 1u << 2,       /* "jcc" */
	BINREC_F_JMP = 1u << 3,       /* "jmp" */
	BINREC_F_INT = 1u << 4,       /* "int" */
	BINREC_F_IRET = 1u << 5,      /* "iret" */
	BINREC_F_SYSCALL = 1u << 6,   /* "syscall" */
	BINREC_F_SYSRET = 1u << 7,    /* "sysret" */
	BINREC_F_ASYNC = 1u << 8,     /* "async" */
	BINREC_F_HW_INT = 1u << 9,    /* "hw int" */
	BINREC_F_TX_ABORT = 1u << 10, /* "tx abrt" */
	BINREC_F_VMENTRY = 1u << 13,  /* "vmentry" */
	BINREC_F_VMEXIT = 1u << 14,   /* "vmexit" */
	BINREC_F_IN_TX = 1u << 16,    /* "(x)": inside a TSX transaction */
};

struct binrec_header {
	uint8_t mark;                /* BINREC_MARK */
	uint8_t type;                /* enum binrec_type */
	uint16_t size;               /* bytes, header included */
};

struct binrec_version {
	struct binrec_header h;      /* type BINREC_VERSION, size sizeof(struct binrec_version) */
	uint32_t format;             /* BINREC_FORMAT of the writer */
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
	uint32_t flags;              /* enum binrec_flag bits: one name, maybe IN_TX */
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
