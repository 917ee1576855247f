/* SPDX-License-Identifier: MIT */
/*
 * fxt_writer: streams a Fuchsia Trace Format (FXT) file.
 *
 * Format: fuchsia.dev "Fuchsia trace format" (reference/tracing/trace-format).
 * Wire constants live in fxt_format.h. The writer owns the string table and
 * the thread table of the stream: callers name strings by a stable string id
 * (from fxt_writer_string) and threads by their (pid, tid) koids; the writer
 * assigns the 15-bit string indexes and 8-bit thread indexes, recycling them
 * least-recently-used when a trace has more than 32,767 strings or 255
 * threads, and re-emits a string or thread record before any record that
 * uses a recycled index. Every record is written whole (never a large
 * record, type 15; never over the 32,760-byte record limit).
 *
 * Every error is sticky (as redis rio): the first error of any kind (a
 * failed write, out of memory, a malformed call: -EINVAL, a time past
 * FXT_TS_MAX: -ERANGE) is kept, and from then on every call returns it and
 * writes nothing; fxt_writer_error() reads it and fxt_writer_close() reports
 * it. So a caller may ignore the returns of the calls in between and check
 * once at the end: no error can leave a trace silently missing a record.
 * (A string longer than FXT_STRING_MAX_BYTES, fxt_strings.h, is no error: it is cut,
 * visibly.) A failed or aborted writer never leaves a file under the
 * final name: a regular file is written under a temporary name and renamed
 * on close; a device or FIFO is written straight (common/outpath.h).
 * Why (and what Perfetto does otherwise): docs/design.md "FXT writer".
 */
#ifndef SNAPTRACE_FXT_WRITER_H
#define SNAPTRACE_FXT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the stream is stored. */
enum fxt_output {
	FXT_OUTPUT_AUTO,  /* from the path: see fxt_output_of_path() */
	FXT_OUTPUT_RAW,   /* plain FXT words */
	FXT_OUTPUT_GZIP,  /* gzip member (zlib deflate), which Perfetto detects */
};

/*
 * The storage a path's name asks for, by outpath_format() (common/outpath.h,
 * the one suffix rule). Returns FXT_OUTPUT_RAW or FXT_OUTPUT_GZIP, or
 * FXT_OUTPUT_AUTO for any other name (".zst", ".json", none...), which no
 * writer would store as asked.
 */
enum fxt_output fxt_output_of_path(const char *path);

/* Event types; the values are FXT's (Event record, bits 16-19). */
enum fxt_event_type {
	FXT_EVENT_INSTANT = 0,
	FXT_EVENT_COUNTER = 1,
	FXT_EVENT_BEGIN = 2,    /* duration begin */
	FXT_EVENT_END = 3,      /* duration end */
	FXT_EVENT_COMPLETE = 4, /* duration complete: needs end_ts */
	FXT_EVENT_ASYNC_INSTANT = 6, /* an instant on the process's async track
				      * correlation_id (Perfetto: a process track
				      * named after the track's first event) */
};

/* Argument types; the values are FXT's (Arguments, bits 0-3). */
enum fxt_arg_type {
	FXT_ARG_UINT32 = 2,     /* u64's low 32 bits: one word (the value in the header) */
	FXT_ARG_INT64 = 3,
	FXT_ARG_UINT64 = 4,
	FXT_ARG_DOUBLE = 5,
	FXT_ARG_STRING = 6,
	FXT_ARG_POINTER = 7,
	FXT_ARG_KOID = 8,
	FXT_ARG_BOOL = 9,
};

/* A string id from fxt_writer_string(); 0 is the empty string. */
typedef uint32_t fxt_string_id;

/* One event argument. name and (for FXT_ARG_STRING) str are string ids. */
struct fxt_arg {
	enum fxt_arg_type type;
	fxt_string_id name;
	union {
		int64_t i64;
		uint64_t u64;   /* also UINT32 (its low bits), POINTER and KOID */
		double f64;
		fxt_string_id str;
		bool b;
	};
};

/* The latest time an event may have, ns: Perfetto reads FXT times as int64
 * and drops later events. */
#define FXT_TS_MAX ((uint64_t)INT64_MAX)

/* One event. Times are in ticks; the writer declares 1e9 ticks/s (ns). */
struct fxt_event {
	enum fxt_event_type type;
	uint64_t ts;             /* ns */
	uint64_t process_koid, thread_koid;     /* koids of the thread's process and the thread: [1, 2^31) */
	fxt_string_id category;
	fxt_string_id name;
	const struct fxt_arg *args;
	unsigned nargs;          /* at most 15 */
	uint64_t end_ts;         /* FXT_EVENT_COMPLETE only: ns, >= ts */
	uint64_t counter_id;     /* FXT_EVENT_COUNTER only */
	uint64_t correlation_id; /* FXT_EVENT_ASYNC_INSTANT only: its track in the process */
};

struct fxt_writer;

/*
 * Opens PATH for writing ("-" is stdout, always raw) and writes the magic
 * number record, a provider info record naming PROVIDER (id 0, name cut to
 * its longest UTF-8 prefix without NUL, and to
 * 255 bytes) and the initialization record (1,000,000,000 ticks/s), in this
 * order. Gzip output uses deflate level 1
 * (fast; see fxt_sink.c). Returns the writer, or NULL with
 * *err set to a negative errno (-EINVAL: FXT_OUTPUT_AUTO and a PATH whose
 * name fxt_output_of_path() does not know). The caller owns the writer and must end it
 * with fxt_writer_close() or fxt_writer_abort().
 */
struct fxt_writer *fxt_writer_open(const char *path, enum fxt_output output,
				   const char *provider, int *err);

/*
 * Returns the stable id of the string S of LEN bytes (not NUL-terminated,
 * any bytes), interning it on first use; the writer copies it. FXT strings
 * are UTF-8 without NUL: each NUL byte and each byte of an ill-formed UTF-8
 * sequence is written as U+FFFD (UTF8_REPLACEMENT). A string longer than
 * FXT_STRING_MAX_BYTES (after that) is cut to that size and ends in
 * "...[truncated]", so the cut is visible. Never fails except on out-of-memory (returns 0, the
 * empty string, and makes -ENOMEM the sticky error).
 */
fxt_string_id fxt_writer_string(struct fxt_writer *w, const char *s, size_t len);

/* fxt_writer_string() of the NUL-terminated string S; returns what it returns. */
fxt_string_id fxt_writer_cstring(struct fxt_writer *w, const char *s);

/*
 * Writes a kernel object record (FXT spec, Kernel Object record) naming
 * process PID ("COMM [pid]" is the caller's choice of NAME).
 * Returns 0 or the sticky negative errno (-EINVAL for a NAME that is not a
 * string id).
 */
int fxt_writer_process(struct fxt_writer *w, uint64_t pid, fxt_string_id name);

/*
 * Writes a kernel object record naming thread TID of process PID, with the
 * koid argument "process" = PID, which Perfetto needs to attach the thread.
 * Returns 0 or the sticky negative errno (-EINVAL for a NAME that is not a
 * string id).
 */
int fxt_writer_thread(struct fxt_writer *w, uint64_t pid, uint64_t tid, fxt_string_id name);

/*
 * Writes a kernel object record naming KOID, a track of process PID that is
 * no thread of it (FXT_TRACK_ARG), as fxt_writer_thread() does, with the
 * bool argument FXT_TRACK_ARG = true. Returns as fxt_writer_thread().
 */
int fxt_writer_track(struct fxt_writer *w, uint64_t pid, uint64_t koid, fxt_string_id name);

/*
 * Writes a kernel object record of object type "none" (zx_obj_type_t 0),
 * koid 0, named NAME, with one string argument KEY = VALUE (string ids): a
 * fact about the whole trace, which Perfetto (it reads processes and threads
 * only) leaves alone. snaptrace-convert writes FXT_INFO_NAME with
 * FXT_INFO_MODE. Returns 0 or the sticky negative errno (-EINVAL for a KEY
 * of 0 or an id that is not a string id).
 */
int fxt_writer_info(struct fxt_writer *w, fxt_string_id name, fxt_string_id key,
		    fxt_string_id value);

/* snaptrace's trace info: how the slices were made (the last record wins). */
#define FXT_INFO_NAME "snaptrace"
#define FXT_INFO_MODE "mode"
#define FXT_INFO_ENDED "ended"            /* how the traced program ended, in words */
#define FXT_MODE_PT "pt"              /* from branches (Intel PT): a slice is a call */
#define FXT_MODE_SAMPLING "sampling"  /* from sampled call stacks: time on the stack */

/* snaptrace's slice of a thread off the CPU (README "What the timeline
 * shows"), nested under the frames it left the CPU in, and its string
 * arguments, read back by snaptrace-stats --off-cpu. */
#define FXT_OFFCPU "[off-cpu]"
#define FXT_OFFCPU_STATE "state"                  /* FXT_OFFCPU_BLOCKED or _PREEMPTED */
#define FXT_OFFCPU_BLOCKED "blocked"
#define FXT_OFFCPU_PREEMPTED "preempted"
#define FXT_OFFCPU_SYSCALL "syscall"              /* the system call it blocked in */
#define FXT_OFFCPU_KERNEL_FUNCTION "kernel_function"   /* where in the kernel */
#define FXT_OFFCPU_TRACER "tracer"                /* the tracer's own work it waited for */

/* A measured call's slice (--measure: exact entry and return, not sampled)
 * carries the arguments FXT_MEASURED_ARG = true and its whole duration
 * FXT_MEASURED_DURATION_ARG (ns; the slice is shorter when the snapshot cuts
 * it). A trace with measured calls has for each measured function an info
 * record (fxt_writer_info: FXT_INFO_NAME, FXT_INFO_MEASURED, VALUE) whose
 * VALUE is "KEY=VALUE" fields joined by tabs: function, dso, calls,
 * total_ns, min_ns, p50_ns, p90_ns, p99_ns, max_ns (percentiles within 1%;
 * absent without calls), calls_unrecorded and threads_unrecorded (of the
 * calls, those in threads the recording left out, and the first of those
 * threads, comma-separated; absent when none) and buckets ("FROM:BELOW:CALLS"
 * a power of two, comma-separated): its calls of the whole recording. */
#define FXT_MEASURED_ARG "measured"
#define FXT_MEASURED_DURATION_ARG "duration_ns"
/* Whether a measured call of WHOLE_NS (its FXT_MEASURED_DURATION_ARG; 0: a
 * slice that is no measured call) was cut short by the trace (a --window or
 * --filter edge, a snapshot's): its slice from BEGIN to END (ns) is
 * shorter. The one rule of the converter's summary and snaptrace stats. */
static inline bool fxt_measured_cut(uint64_t whole_ns, uint64_t begin, uint64_t end)
{
	return whole_ns > (end > begin ? end - begin : 0);
}
/* and, for a call left by a C++ exception (its end is the catch), the
 * argument FXT_MEASURED_LEFT_BY_ARG = "exception" */
#define FXT_MEASURED_LEFT_BY_ARG "left_by"
#define FXT_INFO_MEASURED "measured"

/* snaptrace's tracks that are no thread of the program (fxt_writer_track()):
 * a thread object with a koid from FXT_TRACK_KOID_MIN up (above every pid the
 * converter writes as itself: convert/state.h CONV_KOID_BAND) and the bool
 * argument FXT_TRACK_ARG = true beside "process" (Perfetto reads "process"
 * and skips the rest). FXT_TRACK_TRIGGERS names the trigger markers' track
 * (convert/markers.c; traces written before FXT_TRACK_ARG have the name
 * only); the event samples' tracks are named after their events. */
#define FXT_TRACK_TRIGGERS "triggers"
#define FXT_TRACK_ARG "snaptrace_track"
#define FXT_TRACK_KOID_MIN (0x80000000ull - 4096)

/*
 * Writes one event record (FXT spec, Event record), preceded by any string
 * or thread record its references need. Returns 0, or the sticky negative
 * errno with nothing written: -EINVAL for a malformed event (more than 15
 * args, end_ts < ts, an unknown event or argument type, a string id never
 * returned by fxt_writer_string), -ERANGE for a time past FXT_TS_MAX
 * (Perfetto would drop the event), or an earlier error.
 */
int fxt_writer_event(struct fxt_writer *w, const struct fxt_event *ev);

/* Returns W's sticky error: 0 while every call succeeded, else the first
 * error's negative errno (what every call returns from then on). */
int fxt_writer_error(const struct fxt_writer *w);

/* Returns the bytes of FXT written so far (before compression). */
uint64_t fxt_writer_bytes(const struct fxt_writer *w);

/*
 * Flushes, finishes the gzip stream, closes and renames the temporary file
 * to the final path, and frees W. Returns 0, or a negative errno (the sticky
 * error of any call before, or that of the flush/close/rename), in which
 * case no file is left under the final name.
 */
int fxt_writer_close(struct fxt_writer *w);

/* Discards the output (removes the temporary file) and frees W. */
void fxt_writer_abort(struct fxt_writer *w);

#endif
