/* SPDX-License-Identifier: MIT */
/*
 * agg: per-function statistics of the slices of an FXT trace, read as a
 * stream (fxt_stream_read): memory is bounded by the number of distinct
 * functions (rows), threads and stack depth, never by the trace's length.
 *
 * A thread's events are taken as Perfetto sorts them, by (timestamp, file
 * order); an end closes the innermost open begin. A file written in that
 * order is read once; so is one with duration complete records written
 * before what is inside them (snaptrace-convert writes only the slices with
 * nothing inside as complete records; a parent's written after its children
 * would be late). A writer may write a begin late (snaptrace-convert's
 * inferred frames, which begin before the events that revealed them): such
 * events are kept aside (a few per snapshot) and the file is read a second
 * time, with them merged in at their place.
 *
 * A function's measured calls (slices with FXT_MEASURED_ARG: the recorder
 * timed them, exact) are a row of their own (agg_row.measured_row), apart
 * from its other slices, which in a sampled trace are estimates; that other
 * row (twin: "all") holds every slice of the function, the measured calls
 * too (as time in the trace), so the calls the recorder timed (the slow
 * ones of --trigger-slower-than) compare with all it did.
 * Per row: calls (slices closed), total_ns (inclusive; an activation nested
 * in an activation of the same function on the same thread adds nothing, so
 * recursion is not counted twice), self_ns (inclusive minus the time of the
 * slices directly inside), and the durations' histogram (hist.h). Instants
 * and counters are not slices; begins never ended are counted apart.
 */
#ifndef SNAPTRACE_STATS_AGG_H
#define SNAPTRACE_STATS_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "hist.h"

/* One function (with --by-thread: one function on one thread); or, with
 * opts.off_cpu, one kind of wait (BY set): the [off-cpu] slices (fxt_writer.h
 * FXT_OFFCPU) of one system call, kernel function or caller (the innermost
 * frame outside the language runtime: agg_runtime_dso()), in one state, of
 * one thread or of all (pid = tid = 0). */
struct agg_row {
	char *name, *dso;          /* the slice's name and category (snaptrace: the dso);
				    * a wait row: the key and, by caller, its dso */
	const char *by;            /* NULL: a function; else agg_by_syscall,
				    * agg_by_kernel_function or agg_by_caller */
	const char *state;         /* wait rows: agg_state_blocked, _preempted or
				    * _unknown */
	uint64_t pid, tid;         /* by-thread rows only, else 0 */
	uint64_t total_ns, self_ns;
	struct hist hist;          /* durations: hist.total is the number of calls; a
				    * measured call's is the whole call's (its slice may
				    * be cut by the snapshot) */
	uint64_t measured;         /* slices of measured calls (--measure: exact, not
				    * sampled) */
	bool measured_row;         /* the function's measured calls, a row apart from
				    * its other slices (sampled: estimates; never one
				    * histogram of both): every slice of it is one */
	bool twin;                 /* a function row with calls whose function (thread,
				    * dso) has a row of the other kind with calls too:
				    * counted and listed once, by its other slices' row */
	/* private */
	uint32_t open, open_thread, next;
	signed char match;         /* 1 + agg_function_match() with opts.function; 0: not asked */
};

/* One call, for --function's longest calls. */
struct agg_call {
	uint64_t begin, dur;       /* ns */
	uint64_t pid, tid;
	const char *dso;           /* its row's, borrowed (rows may be sorted) */
	bool measured;             /* a measured call (its row's measured_row) */
};

struct agg_opts {
	bool by_thread;            /* a row per (thread, function) */
	bool off_cpu;              /* also the wait rows, of every thread and of all */
	bool one_thread;           /* only the events of thread TID */
	uint64_t tid;
	const char *function;      /* keep the TOP longest calls of slices it names
				    * (agg_function_match(): the best match only) */
	const char *lib;           /* and of this library only (LIB:NAME), or NULL */
	size_t top;
};

/* How a slice's name matches a function the user named (--function). */
enum agg_match {
	AGG_MATCH_NONE,
	AGG_MATCH_BASE,   /* the same function name, one of them without its
			   * parameter list ("work" and "work(int)") */
	AGG_MATCH_EXACT,  /* the same string */
};

/*
 * How NAME (a slice's: snaptrace's are demangled without the parameters, as
 * perf prints them, but for overloads; other writers' may have them) of
 * binary DSO matches WANTED (demangled, with or without its parameter list;
 * demangle_name() of a mangled one) of library LIB (NULL or "": any; else
 * funcspec_dso_matches()). Two names that both have a parameter list match
 * only exactly. A name of a function named apart (a Rust instance with its
 * hash, a C static function with its " [FILE]": the converter's, or the
 * user's) and perf's name of it match as AGG_MATCH_BASE
 * (demangled_perf_name()); two names apart only exactly.
 */
enum agg_match agg_function_match(const char *name, const char *dso, const char *wanted,
				  const char *lib);

/* A measured function's calls of the whole recording, as the trace's info
 * record says (fxt_writer.h FXT_INFO_MEASURED). */
struct agg_measured {
	char *function, *dso;      /* owned */
	uint64_t calls, total_ns, min_ns, p50_ns, p90_ns, p99_ns, max_ns;
	uint64_t calls_unrecorded; /* of CALLS, those in threads the recording left out */
	char *threads_unrecorded;  /* the first of those threads, "T1,T2" (owned), or NULL */
	struct agg_bucket {
		uint64_t from, below, calls;
	} *buckets;                /* owned, a power of two each */
	size_t nbuckets;
};

/* What a wait row is keyed by (agg_row.by) and its state (agg_row.state):
 * these very strings, compared by address. */
extern const char agg_by_syscall[];            /* "syscall" */
extern const char agg_by_kernel_function[];    /* "kernel_function" */
extern const char agg_by_caller[];             /* "caller" */
extern const char agg_state_blocked[];         /* FXT_OFFCPU_BLOCKED */
extern const char agg_state_preempted[];       /* FXT_OFFCPU_PREEMPTED */
extern const char agg_state_unknown[];         /* "unknown": no state argument */

/* The key of a wait without a system call, kernel function or caller known. */
#define AGG_WAIT_NONE "[none]"

struct agg_thread;

/* The statistics of one trace. Zero-initialise, then agg_read(); agg_free(). */
struct agg {
	struct agg_opts opts;
	struct agg_row *rows;       size_t nrows;
	struct agg_call *top;       size_t ntop;   /* longest first after agg_read() */
	char *mode;                 /* the trace's FXT_INFO_MODE, or NULL */
	char *ended;                /* how the traced program ended (FXT_INFO_ENDED; several
				     * joined by "; "), or NULL */
	uint64_t first_ts;          /* earliest event (Perfetto's trace start), ns */
	struct agg_measured *measured;  /* the measured functions' whole runs */
	size_t nmeasured;
	uint64_t slices, unended;   /* slices closed; begins never ended */
	uint64_t measured_cut;      /* measured calls whose slices the trace cut
				     * (a --window, a snapshot's start or end):
				     * counted whole, by their duration_ns */
	uint64_t deep;              /* begins left out: nested past FXT_MAX_DEPTH (fxt_reader.h) */
	unsigned passes;            /* 1, or 2 when events came out of time order */
	/* private */
	struct agg_thread *threads; size_t nthreads, capthreads;
	struct hash_index row_index;     /* key_hash() of a row -> rows[] */
	size_t caprows;
	struct hash_index thread_index;  /* (pid, tid) mixed -> threads[] */
	size_t captop;
	bool top_exact;                  /* top holds calls of an exact match only */
	bool merging;
	int err;
};

/*
 * Reads the FXT file PATH (raw or gzip; a file, not a pipe: it may be read
 * twice) into A, whose opts are set. Returns 0; or a negative errno with a
 * one-line message in ERRBUF: -EINVAL for no regular file (a pipe, a
 * FIFO, a device: fxt_stream_read()), -EBADMSG for a file that is not FXT, -ENODATA
 * for a file cut short (fxt_trace.cut: a gzip stream cut, a last record
 * cut), else an unreadable file or -ENOMEM. Problems the reader steps over are left out
 * (snaptrace-convert --dump lists them). *NPROBLEMS receives their number.
 */
int agg_read(struct agg *a, const char *path, size_t *nproblems, char *errbuf, size_t errlen);

/* The name of thread (PID, TID) from the trace's kernel objects, or NULL. */
const char *agg_thread_name(const struct agg *a, uint64_t pid, uint64_t tid);

/* True when A's trace has events on a thread TID (of any process). */
bool agg_has_thread(const struct agg *a, uint64_t tid);

/* Names listed at most in a "the trace has ..." message. */
enum { AGG_LIST_MAX = 8 };

/*
 * Writes into BUF (LEN bytes, cut to fit) the threads of A that have events,
 * "TID NAME" comma-separated in file order, at most AGG_LIST_MAX, then
 * "... (N in all)"; an empty string when there are none. Returns BUF.
 */
const char *agg_list_threads(const struct agg *a, char *buf, size_t len);

/*
 * The same for the names of A's functions with calls, in the rows' order
 * (sort them first: report_sort_rows); a name is listed once per run of
 * rows of that name (--by-thread, or one name in several dsos).
 */
const char *agg_list_functions(const struct agg *a, char *buf, size_t len);

/* True when DSO (a slice's category) is the language runtime's, whose
 * frames a wait's caller is looked for past: the C library and the dynamic
 * loader, the C++ runtimes, libgcc_s, the [vdso] and the kernel. */
bool agg_runtime_dso(const char *dso);

/* The whole run of the measured function NAME of library LIB names
 * (agg_function_match(), the best match) in A's trace, or NULL. */
const struct agg_measured *agg_measured_of(const struct agg *a, const char *name,
					   const char *lib);

/* True when A's trace says its slices come from sampled call stacks. */
bool agg_sampled(const struct agg *a);

/* Frees everything A holds. */
void agg_free(struct agg *a);

#endif
