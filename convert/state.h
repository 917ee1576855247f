/* SPDX-License-Identifier: MIT */
/*
 * state: the state shared by the converter's parts: interned functions
 * (funcs.c), threads and their output (threads.c), the branch stack machine
 * (stack.c), sampled call chains (chain.c) and the line driver (driver.c).
 * The semantics are docs/design.md "Stack reconstruction"; the names of the
 * parts of a branch are perf's (ip, sym, symoff, dso).
 */
#ifndef SNAPTRACE_CONVERT_STATE_H
#define SNAPTRACE_CONVERT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binaries.h"
#include "fxt_writer.h"
#include "hash.h"
#include "parse.h"
#include "recording.h"
#include "srcline.h"

/* A function: one (symbol, dso) pair. Frames without a symbol are one
 * function per dso (unknown = true). Interned: compare by pointer. */
struct conv_func {
	fxt_string_id name;      /* the symbol; 0 when unknown */
	fxt_string_id dso;       /* the slice category */
	bool unknown;
	bool root;               /* a thread's first function (conv_coverage_is_root) */
	bool src_done;           /* src_file/src_line looked up (conv_func_srcline) */
	fxt_string_id src_file;  /* source file of the entry; 0: none */
	uint32_t src_line;
	uint32_t symlen, dsolen;
	char key[];              /* symlen bytes of symbol, then dsolen of dso */
};

/* A code location with its function. */
struct conv_site {
	uint64_t ip;             /* 0: unknown */
	const struct conv_func *func;
	uint64_t symoff;
	bool has_symoff;
};

/* Perfetto drops slices nested this deep or deeper (and an end whose begin
 * it dropped would close an outer slice): frames there are kept on the
 * stack for matching but not written. A frame's depth in the file grows by
 * one for each frame inferred below the stack's bottom later in its segment
 * (those begin earlier), so the first CONV_BOTTOM_RESERVE of them are
 * reserved: a frame is written when its index + the reserve left is below
 * CONV_MAX_DEPTH. */
#define CONV_MAX_DEPTH 512
#define CONV_BOTTOM_RESERVE 64

/* A segment that follows a closed one (after a decode error, or in the next
 * input) keeps this many ns after the closing time for the frames it will
 * infer below its bottom, each needing a time of its own: its first events
 * are moved up to this point when they are earlier (see stack.c). As many
 * as Perfetto can nest. */
#define CONV_INFERRED_ROOM_NS 512


/* Addresses from here up are the kernel's (x86-64). */
#define CONV_KERNEL_START 0x8000000000000000ull

/* A + B, or UINT64_MAX when that overflows (times near the end of the
 * clock, garbage periods). */
static inline uint64_t conv_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* An open slice on a thread's stack. */
struct conv_frame {
	const struct conv_func *func;
	fxt_string_id name;
	struct conv_site callsite;  /* the call that made it; ip 0 when inferred */
	bool exact_return;          /* entered by "hw int": iret resumes at callsite */
	bool kernel;                /* entered at a kernel address (>= 2^63) */
	bool hidden;                /* too deep for Perfetto: not written */
	uint64_t ip;                /* entry ip (sampled frames: the frame's ip) */
	uint64_t entry_off;         /* the entry's bytes past func's symbol: the call
				     * target's symoff; 0 (the function's entry) for
				     * inferred and sampled frames */
	uint64_t sym_start;         /* the symbol's start in the process (ip - symoff),
				     * 0: unknown */
	uint64_t measured_end;      /* a measured call (--measure): its return, ns; the
				     * frame stays until then (chain.c); 0: none */
	uint64_t measured_entry;    /* its entry, ns (the frame may begin later: the
				     * snapshot's start) */
	uint32_t mfunc;             /* a measured call's function (conv.mfuncs) */
};

/* A measured call (--measure, measured.c): a thread's call of a measured
 * function with its exact entry and return (record.json's calls file). */
struct conv_mcall {
	int64_t pid, tid;
	uint64_t entry, ret;           /* ns, perf clock */
	uint32_t mfunc;                /* its function: an index into conv.mfuncs */
};

/* A measured function: how its calls are named and known in samples. */
struct conv_mfunc {
	const struct conv_func *func;  /* its slices' name and dso */
	const char *file;              /* its binary as the samples name it (the dso),
					* borrowed from the recording */
	uint64_t vaddr;                /* its entry: a sampled frame of it has ip - symoff
					* = VADDR in FILE */
};

/* A branch waiting for its timestamp to be spread. */
struct conv_branch {
	uint32_t flags;
	struct conv_site from, to;
};

/* A hole in a thread's samples longer than this many sampling periods, with
 * the thread not known to be off the CPU, is "[no samples]" (chain.c). */
#define CONV_GAP_PERIODS 3

/* Sample spacings a thread keeps to estimate its sampling period (median)
 * when the period column is not time. */
#define CONV_SPACINGS 9

/* Counts shown in the summary. */
struct conv_stats {
	uint64_t lines, branches, samples, slices, decode_errors, skipped, instants;
	uint64_t event_samples;        /* samples of events on their own tracks */
	uint64_t threads, time_backwards, unordered_inferred;
	uint64_t deep_slices;          /* frames not written: too deep (CONV_MAX_DEPTH) */
	uint64_t deep_instants;        /* instants not written: CONV_MAX_DEPTH of one time
					* on their track already (Perfetto nests them) */
	uint64_t cut_intervals;        /* kept intervals of threads that hold something (cut.c) */
	uint64_t cut_dropped;          /* slices wholly outside the kept intervals */
	uint64_t cut_dropped_instants; /* instants outside them */
	uint64_t cut_dropped_events;   /* event samples outside them */
	uint64_t cut_unstopped;        /* --filter: threads whose last interval no call of
					* STOP ended: it runs to the end of the trace */
};

/* A slice open in the uncut trace, mirrored by the cut (cut.c): its begin,
 * to be written again at an edge. */
#define CONV_CUT_ARGS 6            /* the most arguments a begin has (threads.c, stack.c) */
struct conv_cut_slice {
	uint64_t ts;                   /* ns, its begin in the uncut trace */
	fxt_string_id name, category;
	struct fxt_arg args[CONV_CUT_ARGS];
	unsigned nargs;
	bool written;                  /* begun in the output and not yet ended there */
	bool kept;                     /* some part of it is in the output */
};

/* A kept interval of time, ns, both ends included. */
struct conv_window {
	uint64_t lo, hi;
};

/* What the output keeps (cut.c): everything (ON false), each thread's time
 * from a call of START to its next call of STOP (--filter), or WINDOWS
 * (--window: sorted, disjoint; the same for every thread). */
struct conv_cut {
	bool on;
	const char *start, *stop;      /* symbols as perf prints them (borrowed); NULL: no filter */
	size_t start_len, stop_len;
	const struct conv_window *windows;   /* borrowed */
	size_t nwindows;
};

/* The track of a thread's process for its samples of one event. */
struct conv_event_track {
	fxt_string_id event;
	uint64_t tkoid;
};

/* Why a thread left the CPU, as the [off-cpu] slice's arguments say. */
struct conv_offcpu {
	bool state_known;              /* else no state argument (a sched_switch sample
					* without its fields) */
	bool preempted;                /* still runnable (else blocked: sleeping, waiting) */
	bool dead;                     /* exiting (prev_state X or Z): no [off-cpu] */
	char prev_state[8];            /* sched_switch's prev_state ("S", "D", "R+"); "" unknown */
	bool in_syscall;               /* it blocked in a system call (named by SYSCALL when
					* the kernel chain names it) */
	fxt_string_id syscall;         /* the system call it blocked in, or 0 */
	fxt_string_id kernel_function; /* the kernel function it blocked in, or 0 */
};

/* One thread: its identity, stack, segment and sampled-chain state. */
struct conv_thread {
	int64_t pid, tid;              /* as perf printed them */
	uint64_t pkoid, tkoid;         /* FXT koids, in [1, 2^31): see CONV_KOID_BAND */
	char *comm;                    /* last name given to the thread: comm_len bytes
					  (NULs possible, so use the length), then a NUL
					  for C-string readers; owned */
	uint32_t comm_len;
	bool named;

	bool has_ts;                   /* seen a branch or sample line */
	uint64_t last_ts;              /* ns, last raw time seen (times are clamped to it) */
	uint64_t now;                  /* ns, time of the last event processed */

	/* Same-timestamp branches, processed once the next timestamp is known. */
	struct conv_branch *pending;
	size_t npending, cappending;
	uint64_t pending_ts;

	struct conv_frame *stack;
	size_t depth, capstack;

	/* The current segment: since the thread's start, the last decode error
	 * or the start of an input. */
	bool seg_started;
	uint64_t seg_first;            /* ns, time of the segment's first branch line */
	uint64_t seg_floor;            /* ns, no begin may precede this (earlier ends) */
	uint64_t min_ts;               /* ns, events are moved up to this time */
	unsigned seg_inferred;         /* frames inferred below the segment's bottom */
	unsigned seg_levels;           /* nesting levels its written slices take */
	bool seg_after_close;          /* an earlier segment was closed (error, input end) */
	bool seg_error;                /* ... by a decode error */
	uint64_t last_end;             /* ns, latest end emitted on this thread */
	bool gap_open;

	/* Decode errors without a time, waiting for the thread's first time
	 * (at most CONV_MAX_DEPTH: they all go at one time). */
	fxt_string_id *early_errors;
	size_t nearly_errors, capearly_errors;

	/* Instants written at INSTANT_TS on this track so far (Perfetto nests
	 * instants of one time: conv_emit_instant()). */
	uint64_t instant_ts;
	unsigned instants_at_ts;

	bool has_branches;             /* then samples are instants */

	/* Sampled stacks (chain.c): the stack holds what the last sample (or
	 * the last switch back in) showed at SEEN_TS. */
	bool seen;
	uint64_t seen_ts;              /* ns */
	uint64_t period_ns;            /* sampling period: the period column when it is
					* time, else the median spacing; 0: unknown */
	uint64_t spacing[CONV_SPACINGS];   /* recent spacings of on-CPU samples, ns */
	unsigned nspacing;             /* how many were recorded (ring index) */
	bool spacing_from;             /* the last sample starts a spacing */

	/* A sched_switch sample held for its unwound twin (driver.c): the
	 * thread left the CPU at HELD_TS, for HELD_OFF, with the user frames
	 * HELD (innermost first). Processed at the twin, or at the thread's
	 * next line or the input's end without it. */
	bool switch_held;
	uint64_t held_ts;              /* ns */
	struct conv_offcpu held_off;
	struct conv_site *held;        /* owned */
	size_t nheld, capheld;

	/* Measured calls (chain.c): [mnext, mend) in conv.mcalls are the thread's
	 * not drawn yet, found at its first sample (mlooked). */
	bool mlooked;
	size_t mnext, mend;
	uint64_t mseen;                /* ns: the stack was last known, below a measured
					* call, at its entry or return (after seen_ts) */

	/* Off the CPU (a switch out until the switch back in): the open
	 * [off-cpu] slice, on top of the stack (and of an open gap). */
	bool close_pending;            /* its input ended, another follows with time unknown
					* between: its frames end by its next event (chain.c) */
	bool offcpu_open;
	uint64_t offcpu_since;         /* ns */
	bool syscall_block;            /* the open [off-cpu] is the frame at WOKEN_DEPTH
					* (the innermost user frame) blocked in a system call
					* (a sched_switch sample saying so) */
	bool woken;                    /* ... and it was woken since, at WOKEN_TS: the call
					* returns then, so a new blocking system call of the
					* same frame is a new call (chain.c) */
	size_t woken_depth;            /* the index of that frame on the stack */
	uint64_t woken_ts;             /* ns */
	bool exited;                   /* T exited (an exit record, a switch out as a
					* zombie): its switch outs draw nothing until it
					* runs again (a new thread of the same id) */

	/* What the trace covers (summary, coverage.c). */
	uint64_t first_ts;             /* ns, the thread's first time */
	uint64_t nsamples;             /* sampled call chains drawn */
	uint64_t offcpu_ns, nosamples_ns;
	uint64_t chains, broken_chains;    /* user-space chains; those not reaching a root */
	uint64_t unsymbolized_chains;  /* chains reaching a root, mostly unknown frames */
	uint64_t flat_samples;         /* samples without a call chain (no -g) */

	/* The cut (cut.c): the slices open in the uncut trace, outermost first. */
	struct conv_cut_slice *cut_open;
	size_t ncut_open, capcut_open;
	bool cut_in;                   /* in a kept interval */
	uint64_t cut_edge;             /* ns, where the kept interval began */
	uint64_t cut_floor;            /* ns, where the last one ended */
	uint64_t cut_pos;              /* ns, the latest time the windows were moved to */
	size_t cut_window;             /* index of the window T is in or before */
	unsigned cut_early;            /* begins written before the edge in this interval */
	bool cut_counted;              /* this interval wrote something (counted) */

	/* The tracks of T's event samples: each event name's track koid. */
	struct conv_event_track *event_tracks;
	size_t nevent_tracks, capevent_tracks;
};

/* Thread and process ids from 1 to CONV_KOID_BAND - 1 are their own FXT
 * koids; up to CONV_ODD_IDS_MAX others (-1, 0, past any Linux pid) get the
 * koids from CONV_KOID_BAND to 2^31 - 1 (threads.c). */
#define CONV_ODD_IDS_MAX 4096
#define CONV_KOID_BAND (0x80000000ll - CONV_ODD_IDS_MAX)   /* FXT_TRACK_KOID_MIN */

/* A binary blamed for broken call chains (coverage.c). */
/* How a perf.data's call chains were unwound (its events' sample_type). */
enum conv_unwinder {
	CONV_UNWIND_FP = 1,            /* frame pointers: PERF_SAMPLE_CALLCHAIN alone */
	CONV_UNWIND_DWARF = 2,         /* a copy of the user stack: PERF_SAMPLE_STACK_USER */
	CONV_UNWIND_LBR = 4,           /* the last branch records: PERF_SAMPLE_BRANCH_STACK */
};

struct conv_dso_count {
	char *dso;                     /* owned */
	uint64_t n;
};
#define CONV_MAX_BLAMED 32

/* Binaries blamed for one kind of call-chain trouble, most blamed first
 * once sorted (coverage.c). */
struct conv_blame {
	struct conv_dso_count dso[CONV_MAX_BLAMED];
	size_t n;
};

/* The converter: everything one conversion holds. */
struct conv {
	struct fxt_writer *w;
	struct conv_stats stats;
	bool strict;
	bool nomem;                    /* an allocation failed: sticky, the conversion
					* ends (see "Errors" below) */

	struct hash_index func_index;  /* the hash of (symbol, dso) -> funcs[] */
	struct conv_func **funcs;      /* in the order interned, owned */
	size_t nfuncs, capfuncs;

	struct hash_index thread_index;  /* the hash of (pid, tid) -> threads[] */
	struct conv_thread **threads;  /* in the order seen, owned */
	size_t nthreads, capthreads;
	struct conv_thread *last_thread;   /* lookup cache */
	uint64_t *named_pids;          /* processes already named (small set) */
	size_t nnamed_pids, capnamed_pids;
	int64_t *odd_ids;              /* ids outside 1..CONV_KOID_BAND-1, by koid (at most
					* CONV_ODD_IDS_MAX; grown as they come) */
	size_t nodd_ids, capodd_ids;
	bool odd_ids_full;             /* conv_thread_get or a track failed: one koid too many */
	fxt_string_id *event_names;    /* event samples' names, by track index */
	size_t nevent_names, capevent_names;

	fxt_string_id s_addr, s_inferred, s_untraced, s_syscall, s_ip, s_symbol,
		s_period, s_cpufreq, s_mhz;
	fxt_string_id s_offcpu, s_nosamples, s_state, s_prev_state, s_kernel_function,
		s_syscall_arg, s_preempted, s_blocked, s_dso, s_tid;

	const struct binaries *binaries;   /* changed binaries (binaries.h); NULL: none (borrowed) */
	struct srcline *srcline;       /* source lines of slices; NULL: none (borrowed) */
	fxt_string_id s_file, s_line;

	struct conv_cut cut;
	bool cut_nomem;                /* the cut lost a slice for lack of memory */

	struct conv_blame broken;      /* dsos of chains reaching no root: the innermost
					* (frame pointers), the outermost (dwarf) */
	struct conv_blame unsymbolized;    /* dsos of the unknown frames of rooted chains */
	uint64_t unnamed_chains;       /* broken chains with no binary known */
	uint64_t trampoline_chains;    /* chains cut at the kernel's uretprobe trampoline */
	unsigned unwinders;            /* CONV_UNWIND_* bits: how the inputs' call chains
					* were unwound, as far as known */
	uint64_t max_ts;               /* ns, the latest time of any input so far */
	bool switch_records;           /* switch records came (perf records switches in
					* and out alike): a thread's missing switch in
					* was lost (chain.c) */
	uint64_t period_ns;            /* ns, the recording's sampling period: its
					* perf.data's sampling event (conv_driver_period),
					* else the first a thread's samples gave; 0: unknown */
	uint64_t snap_live;            /* ns, perf clock: perf recorded into the current
					* input's snapshot until then (record.json); 0: unknown */
	int next_input;                /* what follows the current input (enum conv_next,
					* driver.h) */
	const struct recording **recs; /* the recordings the inputs come from (borrowed) */
	size_t nrecs, caprecs;
	bool last_input;               /* every input has ended (conv_driver_end) */
	struct conv_signal_seen *signals_seen; /* signal:signal_deliver samples (sigmarks.c) */
	size_t nsignals_seen, capsignals_seen;
	struct conv_mcall *mcalls;     /* measured calls of the recordings (measured.c),
					* sorted by (pid, tid, entry) */
	size_t nmcalls, capmcalls;
	struct conv_mfunc *mfuncs;     /* their functions */
	size_t nmfuncs;
	fxt_string_id s_measured, s_duration_ns;
};

/* unwound.c: splices a switch's user call chains into OUT (room for NFP +
 * NDW frames), innermost first: DW (NDW frames), the twin's chain that perf
 * unwound from a copy of the stack (DWARF; its callers one byte before their
 * return addresses, as perf gives them), and FP (NFP), the frame-pointer
 * chain of the same moment. DW's frames come first, its callers moved to
 * their return addresses; when DW ends in a thread's root that is all, else
 * FP's frames past the first return address both chains hold follow (past
 * FP's first frame when none: the copy ended inside the frame FP's first
 * caller left). Returns the number of frames in OUT. */
size_t conv_unwound_splice(const struct conv_site *fp, size_t nfp, const struct conv_site *dw,
			   size_t ndw, struct conv_site *out);

/*
 * Errors. Out of memory is sticky, as every error of the FXT writer is
 * (fxt_writer.h): a part of the converter whose allocation fails sets
 * c->nomem (and returns what it can: NULL, 0, nothing), the driver checks it
 * after each line and each input end and ends the conversion with
 * CONV_ERR_NOMEM (exit 1, "out of memory"). So a void function of the stack
 * machine never drops a frame silently, and the writer's returns need no
 * check until fxt_writer_close(). Why: docs/design.md "Errors".
 */

/* measured.c: adds recording R's measured functions (C->mfuncs; their
 * calls of the whole recording as info records) and the calls of its calls
 * file (C->mcalls, sorted by thread and entry). Returns 0; 1 when the calls
 * file is not the recorder's (ERR, SIZE bytes: "FILE:LINE: expected ...");
 * out of memory sets c->nomem. */
int conv_measured_add(struct conv *c, const struct recording *r, char *err, size_t size);

/* measured.c: finds T's calls in C->mcalls (T->mnext, T->mend). */
void conv_measured_thread(struct conv *c, struct conv_thread *t);

/* measured.c: whether a frame of FUNC whose symbol starts at SYM_START in
 * its binary (a sample's ip - symoff; 0: unknown) is a frame of measured
 * function MFUNC: its function, or its entry under another name. */
bool conv_measured_frame(const struct conv *c, const struct conv_func *func, uint64_t sym_start,
			 uint32_t mfunc);

/* measured.c: frees C's measured functions and calls. */
void conv_measured_free(struct conv *c);

/* funcs.c: returns the interned function of SYM in DSO (len 0 sym: unknown),
 * or NULL on out-of-memory (c->nomem set). */
const struct conv_func *conv_func_get(struct conv *c, struct conv_span sym, struct conv_span dso);

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

/* funcs.c: the slice name of a frame of F entered at IP: F's symbol, or
 * "[unknown @ 0xIP (DSO)]" when F has none. */
fxt_string_id conv_func_frame_name(struct conv *c, const struct conv_func *f, uint64_t ip);

/* funcs.c: the source line of F's entry at OFF bytes past its symbol, which
 * starts at SYM_START in the process (0: unknown; see srcline_lookup), as
 * the arguments "file" and "line" in ARGS (room for 2). Returns how many it
 * wrote: 0 when srcline is off, F is unknown or KERNEL, or the binary has no
 * line for it. The result for OFF 0 is cached on F. */
unsigned conv_func_srcline(struct conv *c, const struct conv_func *f, uint64_t off,
			   uint64_t sym_start, bool kernel, struct fxt_arg *args);

/* funcs.c: frees the function table. */
void conv_funcs_free(struct conv *c);

/* threads.c: returns the thread PID/TID, creating it; NULL on out-of-memory
 * (c->nomem set), or with c->odd_ids_full set when PID or TID is one id too many outside
 * 1..CONV_KOID_BAND-1. */
struct conv_thread *conv_thread_get(struct conv *c, int64_t pid, int64_t tid);

/* threads.c: names T's process and T itself "COMM [ID]" in the output when
 * not yet named or when COMM changed (len 0, or perf's ":TID" placeholder
 * for a thread it saw no COMM record of, keeps the current name; an unnamed
 * thread then gets the comm its recording's record.json gives). */
void conv_thread_name(struct conv *c, struct conv_thread *t, struct conv_span comm);

/* Tracks of a process that are no thread of the input (docs/design.md
 * "Trigger markers", "Extra events"): the triggers, then one per event
 * name of the event samples (CONV_TRACK_EVENTS + the name's index). */
#define CONV_TRACK_TRIGGERS 0u
#define CONV_TRACK_EVENTS 1u

/* threads.c: track INDEX of process PID, named NAME (a thread object of its
 * own, made once), whose koids go to *PKOID and *TKOID; the process is
 * named "COMM [PID]" (COMM may be NULL) when nothing named it yet. Returns
 * false when no koid is left for it (CONV_ODD_IDS_MAX) or memory ran out
 * (c->nomem set). */
bool conv_track(struct conv *c, int64_t pid, const char *comm, uint32_t index,
		fxt_string_id name, uint64_t *pkoid, uint64_t *tkoid);

/* threads.c: the triggers track (FXT_TRACK_TRIGGERS) of process PID, as
 * conv_track(). */
bool conv_triggers_track(struct conv *c, int64_t pid, const char *comm, uint64_t *pkoid,
			 uint64_t *tkoid);

/* threads.c: calls FN on every thread. */
void conv_threads_each(struct conv *c, void (*fn)(struct conv *, struct conv_thread *));

/* threads.c: frees the thread table. */
void conv_threads_free(struct conv *c);

/* threads.c: output of one event on T's track. Returns nothing: every
 * error of the writer is sticky and reported at close. */
void conv_emit_begin(struct conv *c, struct conv_thread *t, const struct conv_frame *f,
		     uint64_t ts, bool inferred);
void conv_emit_end(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts);
void conv_emit_slice_begin(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
			   const struct fxt_arg *args, unsigned nargs);
/* An instant: left out (counted in stats.deep_instants) when it would
 * nest CONV_MAX_DEPTH deep: Perfetto nests the instants of one time on one
 * track in one another and in the slices open there. */
void conv_emit_instant(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *args, unsigned nargs);
void conv_emit_counter(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *arg);
/* threads.c: an event sample of T: an instant named EVENT at TS with NARGS
 * ARGS on the track EVENT of T's process (a thread object of its own, as
 * Perfetto keeps it inside the process: docs/design.md "Extra events"), as
 * far as T's cut keeps it. Returns false when no koid is left for the
 * track (c->odd_ids_full set) or memory ran out (c->nomem set). */
bool conv_emit_event_sample(struct conv *c, struct conv_thread *t, fxt_string_id event,
			    uint64_t ts, const struct fxt_arg *args, unsigned nargs);

/* cut.c: writes EV (an event of T's track, koids set) as far as the cut
 * keeps it: all of it when c->cut.on is false; else a begin or end only
 * within T's kept intervals, the slices open at an interval's edges begun
 * or ended there. Counts slices and instants written, and what is left out
 * (c->stats). Write errors are sticky in the writer. */
void conv_cut_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev);

/* cut.c: writes EV, an instant of T on another track (an event sample),
 * when T's kept intervals hold its time (all of it when c->cut.on is
 * false), without moving T's intervals; counts it written or left out. */
void conv_cut_track_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev);

/* cut.c: T calls F at TS (a frame pushed for a call, a tail call or a
 * sampled frame, before its begin is written): with --filter, a call of
 * START begins a kept interval of T at TS, a call of STOP ends it there (the
 * STOP call itself is left out). */
void conv_cut_call(struct conv *c, struct conv_thread *t, const struct conv_func *f, uint64_t ts);

/* cut.c: reads --filter's ARG, "START,STOP" (split at the one comma outside
 * (), <> and []: C++ names keep theirs), into CUT (pointing into ARG).
 * Returns 0, or -1 when ARG is not two non-empty names so separated. */
int conv_cut_parse_filter(const char *arg, struct conv_cut *cut);

/* cut.c: reads --window's ARG, "BEFORE[,AFTER]" (durations with a unit:
 * num_parse_duration; AFTER 0 when absent), into *BEFORE and *AFTER, ns.
 * Returns 0, or -1 when ARG is not of that form or keeps no time. */
int conv_cut_parse_window(const char *arg, uint64_t *before, uint64_t *after);

/* cut.c: sorts the N windows W by start and merges those that overlap, in
 * place. Returns how many are left. */
size_t conv_cut_windows(struct conv_window *w, size_t n);

/* stack.c: processes branch B of T at time NOW (ns, already spread). */
void conv_stack_branch(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		       uint64_t now);

/* stack.c: a decode error named NAME at TS: closes every frame, emits the
 * instant and starts a new segment. */
void conv_stack_error(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts);

/* stack.c: closes T's gap and every frame at TS and starts a new segment. */
void conv_stack_close(struct conv *c, struct conv_thread *t, uint64_t ts);

/* stack.c: pushes a frame of SITE's function at TS (not inferred). The
 * frame's entry is SITE (a call's target) with a CALLSITE, else (NULL: a
 * sampled frame) the function's start. */
void conv_stack_push(struct conv *c, struct conv_thread *t, const struct conv_site *site,
		     const struct conv_site *callsite, uint64_t ts);

/* stack.c: pops T's top frame at TS. */
void conv_stack_pop(struct conv *c, struct conv_thread *t, uint64_t ts);

/* stack.c: pushes measured call M as the frame of SITE at TS (its entry, or
 * later when the trace begins later): a slice with its measured arguments,
 * which chain.c keeps until M's return. */
void conv_stack_push_measured(struct conv *c, struct conv_thread *t, const struct conv_site *site,
			      const struct conv_mcall *m, uint64_t ts);

/* stack.c: T left the CPU at TS: opens an [off-cpu] slice on top of its
 * stack (nothing when one is open) with OFF's arguments. */
void conv_offcpu_begin(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_offcpu *off);

/* stack.c: T is back on the CPU at TS: ends its [off-cpu] slice, if any. */
void conv_offcpu_end(struct conv *c, struct conv_thread *t, uint64_t ts);

/*
 * chain.c: a sampled call chain of T at TS: FRAMES innermost first (as
 * perf prints them), N of them; builds slices by common prefix with the
 * thread's previous sample. A frame that is gone ends one sampling period
 * after the last sample that had it (or at TS if sooner); a hole of more
 * than CONV_GAP_PERIODS periods since the stack was last seen ends every
 * frame and is a "[no samples]" slice. PERIOD_NS is the sample's period
 * when it is time (cpu-clock, task-clock), else 0 (the median spacing of
 * the thread's samples is used). CALLCHAIN: the frames are a call chain
 * (else the one location of a sample recorded without -g).
 */
void conv_chain_sample(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns,
		       bool callchain);

/* chain.c: T left the CPU at TS (a sched_switch sample or a switch-out
 * record) with FRAMES (N, innermost first, user space only) on its stack;
 * N = 0 when the stack is not known: the sampled frames then end and the
 * [off-cpu] slice is at the root. */
void conv_chain_switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
			   const struct conv_site *frames, size_t n,
			   const struct conv_offcpu *off);

/* chain.c: T came back on the CPU at TS (a switch-in record). */
void conv_chain_switch_in(struct conv *c, struct conv_thread *t, uint64_t ts);

/* chain.c: ends the sampled frames of T one period after they were last
 * seen: PAST_TS, even past TS (the end of an input: the last sample's
 * frames ran for its period); else by TS at the latest (Intel PT branches
 * take over at TS). An [off-cpu] slice still open ends at TS. */
void conv_chain_close(struct conv *c, struct conv_thread *t, uint64_t ts, bool past_ts);

/* chain.c: T's sampling period, ns: its own (conv_thread.period_ns), else
 * the recording's (conv.period_ns); 0: unknown. */
uint64_t conv_chain_period(const struct conv *c, const struct conv_thread *t);

/* offcpu.c: fills *OFF from a sched_switch sample: PREV_STATE (R:
 * preempted; len 0: the fields were not printed, state unknown) and the N KERNEL frames of its call chain, innermost first
 * (the syscall, and the first function below the scheduler's). */
void conv_offcpu_of_switch(struct conv *c, const struct conv_site *kernel, size_t n,
			   struct conv_span prev_state, struct conv_offcpu *off);

/* A signal:signal_deliver sample of the input (sigmarks.c): where the
 * thread was when the signal came. */
struct conv_signal_seen {
	int64_t pid, tid;
	uint64_t ts;                   /* ns */
	bool has_fields;               /* the tracepoint's text was printed: */
	int sig, code;
	bool handled;                  /* sa_handler not SIG_DFL */
	struct conv_site *frames;      /* its user-space call chain, innermost first; owned */
	size_t nframes;
};

/* sigmarks.c: keeps the signal:signal_deliver sample of T at TS (its fields
 * F, its chain FRAMES, N of them, kernel frames first) for the markers.
 * Returns its index in c->signals_seen, or -1 (too many, out of memory). */
int conv_signal_seen(struct conv *c, struct conv_thread *t, uint64_t ts,
		     const struct conv_signal_deliver *f, const struct conv_site *frames, size_t n);

/* sigmarks.c: the stack at signal I (c->signals_seen) closes T's sampled
 * stacks at TS (its time, in order with T's other events); nothing for a
 * thread traced by branches, which already end where it was. */
void conv_signal_stack(struct conv *c, struct conv_thread *t, size_t i, uint64_t ts);

/* sigmarks.c: the cause of an abort from its chain FRAMES (N, innermost
 * first): "assert() failed", "uncaught C++ exception", "Rust panic", "stack
 * smashing detected", "buffer overflow detected", "glibc malloc check
 * failed", "abort()"; NULL when no frame says. *SITE: the index of the
 * frame it came from, the first outside the abort's own functions and the
 * C library's that carry it out (raise, pthread_kill...); N when none is. */
const char *conv_abort_cause(const struct conv_site *frames, size_t n, size_t *site);

/* sigmarks.c: "[crash] SIGSEGV" / "[signal] SIGABRT" instants of every
 * recording's signals (with perf's samples of them) and of the samples no
 * recording lists, on the thread's track and the triggers track. */
void conv_sigmarks_write(struct conv *c);

/* sigmarks.c: how each recorded process ended ("the program was killed by
 * SIGSEGV (...) in boom (crash.c:7), thread 1234"): a summary line each
 * when PRINT, else the trace's fact FXT_INFO_ENDED. */
void conv_sigmarks_report(struct conv *c, bool print);

/* sigmarks.c: frees c->signals_seen. */
void conv_sigmarks_free(struct conv *c);

/* markers.c: writes recording R's trigger hits ("[trigger] SPEC" instants,
 * and the span from a start TSC passed to magic_trace_stop_indicator) and
 * its snapshots that no hit took ("[snapshot] REASON") on a track
 * "triggers" in each traced process; a hit's extra fields while FXT's 15
 * arguments hold them (the rest named by one argument, with a warning).
 * Returns CONV_OK, or CONV_ERR_INPUT when record.json, read again for its
 * hits, no longer reads (the reason in ERR). */
int conv_markers_write(struct conv *c, const struct recording *r, char *err, size_t size);

/* markers.c: the time of the last hit in process PID of any recording into
 * *NS, and their number into *N. Returns false when there is none. */
bool conv_markers_last_hit(const struct conv *c, int64_t pid, uint64_t *ns, size_t *n);

/* coverage.c: counts one sampled call chain of T (FRAMES, N, innermost
 * first) for the broken-stack check: a chain with user-space frames that
 * reaches no thread root (_start, __libc_start_main, clone, start_thread...)
 * is broken, and its innermost user dso blamed; one that reaches a root but
 * is mostly unknown frames is unsymbolized, the dso of its innermost unknown
 * frame blamed. CALLCHAIN false: a sample without a call chain (recorded
 * without -g: perf printed its one location on the header line), counted
 * apart. */
void conv_coverage_chain(struct conv *c, struct conv_thread *t,
			 const struct conv_site *frames, size_t n, bool callchain);

/* coverage.c: is SYM a function a complete user-space call chain ends in
 * (_start, __libc_start_main, clone, start_thread...; a "@VERSION" suffix
 * is ignored)? */
bool conv_coverage_is_root(struct conv_span sym);

/* coverage.c: prints what the trace covers (per thread, the TOP longest,
 * then a total line) and the broken-stack warning, on stderr (diag). */
void conv_coverage_report(struct conv *c, unsigned top);

/* coverage.c: frees the blamed dsos. */
void conv_coverage_free(struct conv *c);

#endif
