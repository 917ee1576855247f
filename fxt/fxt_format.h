/* SPDX-License-Identifier: MIT */
/*
 * fxt_format: the wire constants of the Fuchsia Trace Format (FXT).
 *
 * Source: fuchsia.dev "Fuchsia trace format" (reference/tracing/trace-format),
 * cross-checked with Perfetto's importer
 * (src/trace_processor/importers/fuchsia/fuchsia_trace_tokenizer.cc).
 *
 * These numbers are stored on disk and are frozen: never renumber them and
 * never use them as in-memory enums (fxt_writer.h has its own enums, whose
 * values happen to equal some of these; code converts explicitly).
 *
 * A field is written [FIRST..LAST] in bits of a 64-bit little-endian word,
 * both ends inclusive. FXT_FIELD() extracts one; FXT_MAKE() places one.
 */
#ifndef SNAPTRACE_FXT_FORMAT_H
#define SNAPTRACE_FXT_FORMAT_H

#include <stdint.h>

/* Value of bits [FIRST..LAST] of WORD. */
#define FXT_FIELD(word, first, last) \
	(((uint64_t)(word) >> (first)) & ((~(uint64_t)0) >> (63 - ((last) - (first)))))

/* VALUE placed at bits [FIRST..LAST] (VALUE is masked to the field's width). */
#define FXT_MAKE(value, first, last) \
	(((uint64_t)(value) & ((~(uint64_t)0) >> (63 - ((last) - (first))))) << (first))

/* Every record: a header word, then (size - 1) more words. */
enum {
	FXT_WORD_BYTES = 8,
	/* Header [0..3] record type, [4..15] size in words, header included. */
	FXT_HDR_TYPE_FIRST = 0, FXT_HDR_TYPE_LAST = 3,
	FXT_HDR_SIZE_FIRST = 4, FXT_HDR_SIZE_LAST = 15,
	FXT_MAX_RECORD_WORDS = 4095,          /* 12-bit size: 32,760 bytes */
};

/* Record types, header bits [0..3]. */
enum fxt_wire_record {
	FXT_REC_METADATA = 0,
	FXT_REC_INIT = 1,            /* initialization: ticks per second */
	FXT_REC_STRING = 2,
	FXT_REC_THREAD = 3,
	FXT_REC_EVENT = 4,
	FXT_REC_BLOB = 5,
	FXT_REC_USERSPACE_OBJECT = 6,
	FXT_REC_KERNEL_OBJECT = 7,
	FXT_REC_SCHEDULER = 8,
	FXT_REC_LOG = 9,
	FXT_REC_PROFILER = 10,
	/* 11..14 reserved */
	FXT_REC_LARGE = 15,          /* 32-bit size; Perfetto does not read it */
};

/* Metadata records (type 0): [16..19] metadata type. */
enum fxt_wire_metadata {
	FXT_META_PROVIDER_INFO = 1,     /* [20..51] provider id, [52..59] name length;
					 * the name follows, padded to 8 bytes */
	FXT_META_PROVIDER_SECTION = 2,  /* [20..51] provider id */
	FXT_META_PROVIDER_EVENT = 3,    /* [20..51] provider id, [52..55] event */
	FXT_META_TRACE_INFO = 4,        /* [20..23] trace info type */
};

enum {
	FXT_META_TYPE_FIRST = 16, FXT_META_TYPE_LAST = 19,
	FXT_META_PROVIDER_ID_FIRST = 20, FXT_META_PROVIDER_ID_LAST = 51,
	FXT_META_NAME_LEN_FIRST = 52, FXT_META_NAME_LEN_LAST = 59,
	FXT_META_NAME_MAX = 255,
	FXT_TRACE_INFO_TYPE_FIRST = 20, FXT_TRACE_INFO_TYPE_LAST = 23,
	FXT_TRACE_INFO_MAGIC = 0,       /* trace info type of the magic record */
	FXT_MAGIC_FIRST = 24, FXT_MAGIC_LAST = 55,
};

/* "FxT" and a random byte, in the magic record's bits [24..55]. */
#define FXT_MAGIC_VALUE 0x16547846u
/* The whole magic number record: the first 8 bytes of every FXT file. */
#define FXT_MAGIC_RECORD UINT64_C(0x0016547846040010)

/* Initialization record (type 1): header (size 2), then ticks per second. */

/* String record (type 2): [16..30] index, [32..46] length; bytes follow, padded. */
enum {
	FXT_STRING_INDEX_FIRST = 16, FXT_STRING_INDEX_LAST = 30,
	FXT_STRING_LEN_FIRST = 32, FXT_STRING_LEN_LAST = 46,
	FXT_STRING_INDEX_MAX = 32767,   /* indexes 1..32767; 0 is not an index */
	FXT_STRING_LEN_MAX = 32000,     /* the spec's limit on a string's length */
};

/*
 * String refs (16 bits): 0 the empty string; FXT_STRING_REF_INLINE | LEN an
 * inline string of LEN bytes (padded to 8) in the record; else an index.
 */
enum {
	FXT_STRING_REF_EMPTY = 0,
	FXT_STRING_REF_INLINE = 0x8000,
	FXT_STRING_REF_LEN_MASK = 0x7fff,
};

/* Thread record (type 3): [16..23] index; then process koid, thread koid. */
enum {
	FXT_THREAD_INDEX_FIRST = 16, FXT_THREAD_INDEX_LAST = 23,
	FXT_THREAD_INDEX_MAX = 255,     /* indexes 1..255 */
	FXT_THREAD_REF_INLINE = 0,      /* ref 0: process and thread koid words follow */
};

/*
 * Event record (type 4): [16..19] event type, [20..23] argument count,
 * [24..31] thread ref, [32..47] category ref, [48..63] name ref. Then the
 * timestamp word, the inline thread (2 words) if any, the inline category
 * and name if any, the arguments, then per-type words (counter: counter id;
 * complete: end timestamp; async: correlation id; flow: flow id).
 */
enum {
	FXT_EVENT_TYPE_FIRST = 16, FXT_EVENT_TYPE_LAST = 19,
	FXT_EVENT_NARGS_FIRST = 20, FXT_EVENT_NARGS_LAST = 23,
	FXT_EVENT_THREAD_FIRST = 24, FXT_EVENT_THREAD_LAST = 31,
	FXT_EVENT_CATEGORY_FIRST = 32, FXT_EVENT_CATEGORY_LAST = 47,
	FXT_EVENT_NAME_FIRST = 48, FXT_EVENT_NAME_LAST = 63,
	FXT_MAX_ARGS = 15,
};

/* Event types, event record bits [16..19]. */
enum fxt_wire_event {
	FXT_EV_INSTANT = 0,
	FXT_EV_COUNTER = 1,
	FXT_EV_DURATION_BEGIN = 2,
	FXT_EV_DURATION_END = 3,
	FXT_EV_DURATION_COMPLETE = 4,
	FXT_EV_ASYNC_BEGIN = 5,
	FXT_EV_ASYNC_INSTANT = 6,
	FXT_EV_ASYNC_END = 7,
	FXT_EV_FLOW_BEGIN = 8,
	FXT_EV_FLOW_STEP = 9,
	FXT_EV_FLOW_END = 10,
};

/*
 * Argument: header word [0..3] type, [4..15] size in words (header
 * included), [16..31] name ref, [32..63] per type; then the inline name if
 * any, then the value words. 32-bit values and the bool live in the header:
 * int32/uint32 in [32..63], bool in bit 32, a string value's ref in [32..47]
 * (its inline bytes, if any, follow the inline name).
 */
enum {
	FXT_ARG_TYPE_FIRST = 0, FXT_ARG_TYPE_LAST = 3,
	FXT_ARG_SIZE_FIRST = 4, FXT_ARG_SIZE_LAST = 15,
	FXT_ARG_NAME_FIRST = 16, FXT_ARG_NAME_LAST = 31,
	FXT_ARG_VALUE32_FIRST = 32, FXT_ARG_VALUE32_LAST = 63,
	FXT_ARG_STRVAL_FIRST = 32, FXT_ARG_STRVAL_LAST = 47,
	FXT_ARG_BOOL_BIT = 32,
};

/* Argument types, argument header bits [0..3]. */
enum fxt_wire_arg {
	FXT_WARG_NULL = 0,
	FXT_WARG_INT32 = 1,
	FXT_WARG_UINT32 = 2,
	FXT_WARG_INT64 = 3,
	FXT_WARG_UINT64 = 4,
	FXT_WARG_DOUBLE = 5,
	FXT_WARG_STRING = 6,
	FXT_WARG_POINTER = 7,
	FXT_WARG_KOID = 8,
	FXT_WARG_BOOL = 9,
};

/*
 * Kernel object record (type 7): [16..23] object type (zx_obj_type_t),
 * [24..39] name ref, [40..43] argument count; then the koid word, the
 * inline name if any, the arguments.
 */
enum {
	FXT_KOBJ_TYPE_FIRST = 16, FXT_KOBJ_TYPE_LAST = 23,
	FXT_KOBJ_NAME_FIRST = 24, FXT_KOBJ_NAME_LAST = 39,
	FXT_KOBJ_NARGS_FIRST = 40, FXT_KOBJ_NARGS_LAST = 43,
};

/* zx_obj_type_t values used in kernel object records. */
enum fxt_wire_kobj {
	FXT_ZX_OBJ_NONE = 0,
	FXT_ZX_OBJ_PROCESS = 1,
	FXT_ZX_OBJ_THREAD = 2,
};

/* Stores V as 8 little-endian bytes at P (no alignment needed). */
static inline void fxt_put64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Returns the 8 little-endian bytes at P as a number (no alignment needed). */
static inline uint64_t fxt_get64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	__builtin_memcpy(&v, p, 8);
	return v;
#else
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
#endif
}

#endif
