/* SPDX-License-Identifier: MIT */
/*
 * fxt_reader: reads a whole FXT file (raw or gzip, detected by content) into
 * memory, and rebuilds each thread's slices the way Perfetto's importer does
 * (events of a thread sorted by (timestamp, file order); a duration end
 * closes the innermost open slice whatever its name). It is the oracle of
 * the tests and the engine of `snaptrace-convert --dump`; it holds the whole
 * trace in memory and is not meant for production-sized files.
 *
 * Format: fuchsia.dev "Fuchsia trace format". Every deviation that Perfetto
 * would silently drop or misplace is reported as a problem (see
 * fxt_trace.problems), so a test can insist on zero problems.
 */
#ifndef SNAPTRACE_FXT_READER_H
#define SNAPTRACE_FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_writer.h"

/* The deepest a thread's slices nest: Perfetto drops deeper ones. The
 * reader keeps at most this many duration begins open on a thread (in file
 * order): a begin past it is left out with its end, all of them said in
 * one problem line and counted in fxt_trace.deep_begins (a 6 MB gzip of
 * begins never ended once held 5 GB of memory). */
enum { FXT_MAX_DEPTH = 512 };

/*
 * A decoded argument. Strings point into the trace's storage. FXT int32 and
 * uint32 arguments read back as FXT_ARG_INT64 and FXT_ARG_UINT64, a null
 * argument as the string "null" (as Perfetto shows it).
 */
struct fxt_rarg {
	enum fxt_arg_type type;
	const char *name;
	union {
		int64_t i64;
		uint64_t u64;
		double f64;
		const char *str;
		bool b;
	};
};

/* A decoded event record, with its references resolved. */
struct fxt_revent {
	enum fxt_event_type type;
	uint64_t ts, end_ts, counter_id;
	uint64_t correlation_id;   /* async instant: its track's id */
	uint64_t process_koid, thread_koid;
	const char *category, *name;
	struct fxt_rarg *args;
	unsigned nargs;
	size_t record_no;     /* 0-based index of the record in the file */
};

/* A kernel object record (process or thread naming). */
struct fxt_rkobj {
	unsigned obj_type;     /* 1 process, 2 thread (FXT zx_obj_type_t) */
	uint64_t koid;
	uint64_t process;      /* thread only: its "process" koid argument, else 0 */
	bool track;            /* thread only: a track of no thread (FXT_TRACK_ARG true) */
	const char *name;
	struct fxt_rarg *args;
	unsigned nargs;
};

/* One rebuilt slice on a thread's track. */
struct fxt_slice {
	uint64_t process_koid, thread_koid;
	unsigned depth;        /* 0 = outermost */
	uint64_t begin, end;   /* ns; end = UINT64_MAX when it never ended */
	const struct fxt_revent *ev;   /* the begin or complete event */
};

/* One instant, with the depth of the thread's stack when it happened (an
 * instant at the time of an instant before it is one deeper: Perfetto keeps
 * both as slices of 0 ns); for an async instant, the depth on its track and
 * the track's name: Perfetto puts async instants on tracks of no process,
 * one per name of the first event (in time order) of each correlation id. */
struct fxt_instant {
	uint64_t process_koid, thread_koid;
	unsigned depth;
	const struct fxt_revent *ev;
	const char *track;     /* async instants only, else NULL */
};

/* What every program reading a trace says of one with no slices, after its
 * path, in one line ("t.fxt has no slices"; the converter's summary says
 * "the trace has no slices" and why): snaptrace-stats, snaptrace-convert
 * --dump (docs/design.md "FXT reader"). */
#define FXT_NO_SLICES "has no slices"

/* Everything read from one file. Owned by the caller; free with fxt_trace_free(). */
struct fxt_trace {
	uint64_t ticks_per_second;      /* from the initialization record */
	size_t nrecords;                /* records read */
	struct fxt_revent *events;  size_t nevents;
	struct fxt_rkobj *kobjs;    size_t nkobjs;
	/* Filled by fxt_trace_slices(): slices of each thread in start order
	 * (ties: outer first), threads ordered by (process_koid, thread_koid). */
	struct fxt_slice *slices;   size_t nslices;
	struct fxt_instant *instants; size_t ninstants;
	/* Async instants, by (track name, time, file order): tracks of no
	 * process nor thread (Perfetto's legacy global async tracks). */
	struct fxt_instant *async_instants; size_t nasync_instants;
	/* Problems found, one line each, "record N: ..." (N as in record_no);
	 * past 10,000 lines, one last line counts the problems not listed. */
	char **problems;            size_t nproblems;
	/* Why the file ends before its last record does (a gzip stream cut short
	 * or damaged, a last record or header cut), one line without the path;
	 * "" when it reads to its end. Its problem is in PROBLEMS too. */
	char cut[160];
	uint64_t deep_begins;           /* duration begins left out: FXT_MAX_DEPTH */
	void *priv;                     /* storage owned by the trace */
};

/*
 * Reads the FXT file PATH ("-" = stdin; a regular file or a pipe, never a
 * named FIFO or a device: inpath.h) into *T, resolving string and thread
 * references as a reader must (including recycled indexes). Returns 0, or a
 * negative errno for an unreadable file (-EINVAL: not a regular file nor a
 * pipe, inpath.h: a usage error), or -EBADMSG for a file that is not FXT (no
 * magic number record); in each case ERRBUF receives a one-line message. Format deviations that a reader can step over (an unknown record
 * type, an unregistered reference, a truncated last record) are not errors:
 * they are added to T->problems. A gzip stream is recognised by its content.
 * Like Perfetto, a provider info record starts empty string and thread
 * tables; events whose timestamp overflows int64 ns, complete events ending
 * before they begin, and async begin/end and flow events are left out of
 * T->events (and reported); async instants are kept. On error *T holds nothing to free.
 */
int fxt_trace_read(const char *path, struct fxt_trace *t, char *errbuf, size_t errlen);

/*
 * Rebuilds the slices and instants of every thread of T (see the top of this
 * file), appending to T->problems each end without a begin, each begin never
 * ended, each complete event overlapping its parent, each slice deeper than
 * 512, and each event on a thread never named by a kernel object record.
 * Also reported: an end closing a begin while a complete slice inside it
 * lasts longer, and a complete slice ending while begins inside it are
 * open (Perfetto cuts them at its end). Instants stack like Perfetto's
 * zero-length slices: an instant at the same time as a previous instant is
 * one deeper. Calling it again on the same trace does nothing.
 * Returns 0 or -ENOMEM.
 */
int fxt_trace_slices(struct fxt_trace *t);

/*
 * What fxt_stream_read() calls, in file order. EV and K, with their strings
 * and arguments, are valid only during the call. A callback returns 0 to go
 * on, or a negative errno to stop reading (fxt_stream_read returns it).
 * KOBJ may be NULL.
 */
struct fxt_stream_ops {
	int (*event)(void *ctx, const struct fxt_revent *ev);
	int (*kobj)(void *ctx, const struct fxt_rkobj *k);
};

/*
 * Reads PATH as fxt_trace_read() does, but only a regular file (never a
 * pipe: its caller may read it again, as stats does for late begins) and
 * hands each event and kernel object to OPS (with CTX) instead of keeping it: T receives only
 * ticks_per_second, nrecords and the problems (T->events and T->kobjs stay
 * empty; fxt_trace_slices() gives nothing). Memory is bounded by the string
 * and thread tables and the problem lines, never by the file's length. Events
 * come in file order, which is not time order where a writer wrote a begin
 * late (snaptrace's inferred frames). Returns 0, a negative errno as
 * fxt_trace_read() does (ERRBUF set), or what a callback returned. On error
 * *T holds nothing to free; else free it with fxt_trace_free().
 */
int fxt_stream_read(const char *path, const struct fxt_stream_ops *ops, void *ctx,
		    struct fxt_trace *t, char *errbuf, size_t errlen);

/* Frees everything T holds (not T itself). */
void fxt_trace_free(struct fxt_trace *t);

/* Prints every record of T as one text line each (the --dump=records view). */
void fxt_dump_records(const struct fxt_trace *t, FILE *out);

/*
 * Prints the slice tree of T (after fxt_trace_slices) as lines
 * "TID DEPTH NAME", per thread in start order, then that thread's instants
 * as "TID DEPTH NAME" lines, then the async instants of each global track
 * as "global:TRACK DEPTH NAME" lines in time order: the format of
 * tests/cases/NAME/expected.txt (the --dump=slices view). With VERBOSE,
 * each line also shows begin/end times, category and arguments, indented by
 * depth.
 */
void fxt_dump_slices(const struct fxt_trace *t, FILE *out, bool verbose);

#endif
