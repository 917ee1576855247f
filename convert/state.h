/* SPDX-License-Identifier: MIT */
/*
 * state: what every part of the converter reads: struct conv (everything
 * one conversion holds) and the types it is made of: functions, sites,
 * frames, threads, the cut, the counts. Each part's functions are in its
 * own header (funcs.h, threads.h, stack.h, chain.h, chaincheck.h, cut.h,
 * coverage.h, markers.h, sigmarks.h, measured.h, offcpu.h, unwound.h,
 * pltnames.h), which
 * includes this one; this one includes none of them. The semantics are
 * docs/design.md "Stack reconstruction"; the names of the parts of a branch
 * are perf's (ip, sym, symoff, dso).
 */
#ifndef SNAPTRACE_CONVERT_STATE_H
#define SNAPTRACE_CONVERT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binaries.h"
#include "fdenames.h"
#include "fxt_writer.h"
#include "hash.h"
#include "parse.h"
#include "perfmap.h"
#include "recording.h"
#include "srcline.h"

struct perfsym;
struct perfsym_dso;
struct conv_pltdso;
struct conv_maps;

/* A function: one (symbol, dso) pair. Frames without a symbol are one
 * function per dso (unknown = true). Interned: compare by pointer. */
struct conv_func {
	fxt_string_id name;      /* the symbol; 0 when unknown */
	fxt_string_id dso;       /* the slice category */
	bool unknown;
	bool root;               /* a function a complete user-space call chain ends in
				  * (_start, __libc_start_main, clone, start_thread...;
				  * funcs.c) */
	bool thread_entry;       /* a root where a new thread starts (clone, clone3):
				  * never a process's main thread's */
	bool src_done;           /* src_file/src_line looked up (conv_func_srcline) */
	bool overload_done;      /* OVERLOADED looked up (conv_func_overload) */
	bool overloaded;         /* the symbol is perf's name of several overloads */
	bool overload;           /* one of them, named with its parameter list */
	bool unnamed;            /* "[unnamed @ 0xSTART]": a function of a file without
				  * symbols, known from its unwind table (fdenames.h) */
	bool bin_done;           /* BIN looked up (conv_func_linked) */
	const struct fdenames_dso *bin;   /* its binary's segments, and unwind table
					   * naming its frames when it has no
					   * .symtab (fdenames.h); NULL: none */
	fxt_string_id src_file;  /* source file of the entry; 0: none */
	uint32_t src_line;
	const struct perfsym_dso *plt;    /* the PLT of its binary its symbol lies over
					   * (pltnames.h); NULL: none */
	const struct perfsym *plt_cover;  /* that symbol, in plt */
	uint64_t at;             /* an unknown function of a sample's frames: the one
				  * address it is (conv_func_at); 0: every other */
	uint32_t symlen, dsolen;
	char key[];              /* symlen bytes of symbol, then dsolen of dso */
};

/* A code location with its function. */
struct conv_site {
	uint64_t ip;             /* 0: unknown */
	const struct conv_func *func;
	uint64_t symoff;
	bool has_symoff;
	bool nocode;             /* a call chain's frame at no place of code in its
				  * binary, as read (conv_func_linked), or in a
				  * mapping that is not executable (conv_maps_data):
				  * junk */
	bool linked;             /* a call chain's frame whose IP is its link-time
				  * address in FUNC->bin (conv_func_linked) */
};

/* The samples of a frameless leaf held at most, one after another
 * (chain.c leaf_again()): then the run is placed and the next begins. */
#define CONV_LEAF_RUN_MAX 4096

/* A held sample of a frameless leaf (conv_thread.leaves, chain.c
 * hold_leaf()): its time, its period, whether it had a call chain, and its
 * frames, conv_thread.loop[at, at + n) (innermost first), of which the
 * first HEAD are its kernel frames and its leaf. */
struct conv_held_leaf {
	uint64_t ts, period_ns;
	size_t at, n, head;
	bool callchain;
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

/* x86-64's address halves under any paging mode: user space lies below
 * CONV_USER_END (1 << 56, the end of 5-level paging's lower half; 4-level's
 * ends at 0x800000000000, and the [uprobes] page sits just below either
 * end), the kernel from CONV_KERNEL_SPACE up (5-level's upper half;
 * 4-level's starts at 0xffff800000000000). An address between them is
 * non-canonical: no code runs there. */
#define CONV_USER_END 0x0100000000000000ull
#define CONV_KERNEL_SPACE 0xff00000000000000ull

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
	bool measured_thrown;       /* it was left by an exception: MEASURED_END is the catch */
	uint64_t measured_caller;   /* its return address (conv_mcall.caller; 0: not known) */
	bool ends_with_call;        /* a frame drawn for the measured call above it
				     * alone: CONV_CALLERS_UNKNOWN (no sample shows
				     * its callers), or its caller, named by its return
				     * address where no sample shows it; it ends with
				     * that call (chain.c) */
};

/* The name of the frame a measured call goes under when nothing is known
 * below it (the thread's stack is empty: it began before the thread's
 * oldest sample, and no sample shows its callers, nor its recorded caller):
 * never drawn as a top-level call (docs/design.md "Measured calls"). */
#define CONV_CALLERS_UNKNOWN "[callers unknown]"

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

/* The tracepoints whose every event the trace draws: a switch out (its
 * [off-cpu] slice's call stack) and a signal (its mark). A recording that
 * samples one in frequency mode (perf record's -F sets every event's
 * frequency) skips events: driver.c counts them, coverage.c says so. */
enum conv_every_event { CONV_EVERY_SCHED_SWITCH, CONV_EVERY_SIGNAL, CONV_EVERY_N };
struct conv_every {
	uint64_t samples;              /* its samples read */
	uint64_t skipped;              /* its events the kernel counted but did not
					* sample: the sum of (period - 1) of its samples */
	uint64_t freq;                 /* the recording's sample_freq of it (frequency
					* mode, where the kernel raises the period when
					* events come faster); 0: a period (with the
					* period sampled, the kernel samples every event),
					* or not known (a text input) */
};

/* Counts shown in the summary. */
struct conv_stats {
	uint64_t lines, branches, samples, slices, decode_errors, skipped, instants;
	uint64_t complete_slices;      /* slices written as one complete record (complete.c) */
	uint64_t event_samples;        /* samples of events on their own tracks */
	uint64_t threads, time_backwards, unordered_inferred;
	uint64_t deep_slices;          /* frames not written: too deep (CONV_MAX_DEPTH) */
	uint64_t deep_instants;        /* instants not written: CONV_MAX_DEPTH of one time
					* on their track already (Perfetto nests them) */
	uint64_t cut_intervals;        /* kept intervals of threads that hold something (cut.c) */
	uint64_t cut_dropped;          /* slices wholly outside the kept intervals */
	uint64_t cut_dropped_instants; /* instants outside them */
	uint64_t cut_dropped_events;   /* event samples outside them */
	uint64_t measured_cut;         /* measured calls whose slices the trace cut short
					* (fxt_measured_cut(): complete.c) */
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

/* A slice open in the output (complete.c): its begin, held until something
 * is recorded inside it (then its begin record is written, and later its
 * end record) or until it ends (then it is one complete record). */
struct conv_open_slice {
	uint64_t ts;                   /* ns, its begin as written */
	fxt_string_id name, category;
	struct fxt_arg args[CONV_CUT_ARGS];
	unsigned nargs;
	bool begun;                    /* its begin record is written */
	uint64_t inner_end;            /* ns, the latest time of the records written
					* inside it (a child's end, an instant) */
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
	fxt_string_id tracer;          /* the tracer's own work it blocked in (offcpu.c
					* tracer_work[]), or 0 */
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
	bool seen_switch;              /* SEEN_TS is the switch back in (or the end)
					* of an off-CPU stretch: its frames were known
					* then, not sampled for a period after it */
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

	/* A chain cut at a loop (its outermost frame conv_func_is_loop's)
	 * held by chain.c until the thread's next call chain tells which of
	 * the open frames it ran under (docs/design.md "A chain cut at a
	 * loop"): a sample (LOOP_SWITCH false) or a switch out for LOOP_OFF
	 * at LOOP_TS, with the frames LOOP (innermost first), and the switch
	 * back in at LOOP_IN_TS when LOOP_IN. A sample whose one frame past
	 * the LOOP_SHARED frames it shares with the open ones is a leaf of
	 * another binary than the open frame there (LOOP_LEAF: a frameless
	 * leaf, whose frame-pointer chain skipped its caller) is held the same
	 * way (docs/design.md "A frameless leaf's skipped caller"). */
	bool loop_held, loop_switch, loop_in, loop_callchain, loop_leaf;
	size_t loop_shared;
	uint64_t loop_ts, loop_in_ts, loop_period_ns;   /* ns */
	struct conv_offcpu loop_off;
	struct conv_site *loop;        /* owned */
	size_t nloop, caploop;
	/* A held leaf's samples (LOOP_LEAF: its first and the run of the same
	 * chain after it, chain.c leaf_again()), their frames in LOOP */
	struct conv_held_leaf *leaves; /* owned */
	size_t nleaves, capleaves;

	/* Measured calls (chain.c): [mnext, mend) in conv.mcalls are the thread's
	 * not drawn yet, found at its first sample (mlooked). */
	bool mlooked;
	size_t mnext, mend;
	uint64_t mseen;                /* ns: the stack was last known, below a measured
					* call, at its entry or return (after seen_ts) */

	/* Off the CPU (a switch out until the switch back in): the open
	 * [off-cpu] slice, on top of the stack (and of an open gap). */
	bool close_pending;            /* its input ended, the next of the files given in a
					* row follows (TIMELINE_FILE): its frames end by its
					* next event (chain.c) */
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

	/* What the trace covers (the summary's coverage report, coverage.c;
	 * the chains counted by chaincheck.c). */
	uint64_t first_ts;             /* ns, the thread's first time */
	uint64_t nsamples;             /* sampled call chains drawn */
	uint64_t offcpu_ns, nosamples_ns;
	uint64_t tracer_ns;            /* of OFFCPU_NS, blocked in the tracer's own work */
	bool offcpu_tracer;            /* the open [off-cpu] is the tracer's */
	uint64_t unsampled_ns;         /* on the CPU before its first sample in a ring's
					* snapshot: [before the oldest sample] (chain.c) */
	unsigned sampled_input;        /* the conv.input_no of its last sample; 0: none */
	unsigned seen_input;           /* the conv.input_no of its last timed record */
	unsigned seen_timeline;        /* the conv.timeline_no of that input */
	unsigned proc_input;           /* the last input holding a record of its process */
	uint64_t known_end;            /* ns, perf is known to have recorded T until then:
					* the end of the inputs of its timeline, and of the
					* others holding a record of its process (driver.c
					* known_ends()); an [off-cpu] open at the end ends
					* there, whatever else is converted with it */
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

	/* The slices open in the output (complete.c), ordered as Perfetto
	 * nests them (by begin time). */
	struct conv_open_slice *open;
	size_t nopen, capopen;
	uint64_t record_ts;            /* ns, the latest begin, complete or instant
					* written on T's track */

	/* The tracks of T's event samples: each event name's track koid. */
	struct conv_event_track *event_tracks;
	size_t nevent_tracks, capevent_tracks;
};

/* Thread and process ids from 1 to CONV_KOID_BAND - 1 are their own FXT
 * koids; up to CONV_ODD_IDS_MAX others (-1, 0, past any Linux pid) get the
 * koids from CONV_KOID_BAND to 2^31 - 1 (threads.c). */
#define CONV_ODD_IDS_MAX 4096
#define CONV_KOID_BAND (0x80000000ll - CONV_ODD_IDS_MAX)   /* FXT_TRACK_KOID_MIN */

/* How a perf.data's call chains were unwound (its events' sample_type). */
enum conv_unwinder {
	CONV_UNWIND_FP = 1,            /* frame pointers: PERF_SAMPLE_CALLCHAIN alone */
	CONV_UNWIND_DWARF = 2,         /* a copy of the user stack: PERF_SAMPLE_STACK_USER */
	CONV_UNWIND_LBR = 4,           /* the last branch records: PERF_SAMPLE_BRANCH_STACK */
};

/* A binary blamed for broken call chains (chaincheck.c). */
struct conv_dso_count {
	char *dso;                     /* owned */
	uint64_t n;
};
#define CONV_MAX_BLAMED 32

/* Binaries blamed for one kind of call-chain trouble (counted by
 * chaincheck.c), most blamed first once sorted (coverage.c). */
struct conv_blame {
	struct conv_dso_count dso[CONV_MAX_BLAMED];
	size_t n;
};

/* The converter: everything one conversion holds. */
struct conv {
	struct fxt_writer *w;
	struct conv_stats stats;
	struct conv_every every[CONV_EVERY_N];  /* by enum conv_every_event */
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
	fxt_string_id s_offcpu, s_nosamples, s_before_samples, s_state, s_prev_state, s_kernel_function, s_tracer,
		s_syscall_arg, s_preempted, s_blocked, s_dso, s_tid;

	const struct binaries *binaries;   /* changed binaries (binaries.h); NULL: none (borrowed) */
	struct srcline *srcline;       /* source lines of slices; NULL: none (borrowed) */
	struct fdenames *fdenames;     /* a stripped binary's functions; NULL: none (borrowed) */
	fxt_string_id s_file, s_line;

	struct conv_cut cut;
	bool cut_nomem;                /* the cut lost a slice for lack of memory */

	struct conv_blame broken;      /* dsos of chains reaching no root: the innermost
					* (frame pointers), the outermost (dwarf) */
	struct conv_blame unsymbolized;    /* dsos of the unknown frames of rooted chains */
	uint64_t unnamed_chains;       /* broken chains with no binary known */
	uint64_t trampoline_chains;    /* chains cut at the kernel's uretprobe trampoline */
	uint64_t unmapped_chains;      /* chains cut at an address in no mapping
					* or at no code in one (conv_chain_clean) */
	uint64_t unmapped_ip;          /* the first such address */
	uint64_t loop_chains;          /* loops cut out of chains drawn (chaincheck.c) */
	uint64_t loop_system, loop_own;    /* of those, the loops with a named frame
					    * inside: where the walk lost its way, in a
					    * system library, or in other code; the rest
					    * have none (the cause not known) */
	const struct conv_func *loop_past_system;   /* the first such frame of a system
						     * library's */
	const struct conv_func *loop_past;   /* the first such frame of other code */
	bool loop_past_more;           /* and others than it */
	unsigned unwinders;            /* CONV_UNWIND_* bits: how the inputs' call chains
					* were unwound, as far as known */
	uint64_t max_ts;               /* ns, the latest time of any input so far */
	uint64_t input_max_ts;         /* ns, the latest time of the current input */
	unsigned timeline_no;          /* the current input's timeline, from 1: the inputs
					* joined by TIMELINE_SNAPSHOT (one recording
					* directory's snapshots) share one */
	bool switch_records;           /* switch records came (perf records switches in
					* and out alike): a thread's missing switch in
					* was lost (chain.c) */
	uint64_t period_ns;            /* ns, the recording's sampling period: its
					* perf.data's sampling event (conv_driver_period),
					* else the first a thread's samples gave; 0: unknown */
	uint64_t snap_live;            /* ns, perf clock: perf recorded into the current
					* input's snapshot until then (record.json); 0: unknown */
	int next_input;                /* what the current input passes on to the next
					* (enum timeline_next, timeline.h) */
	bool snap_ring;                /* the current input's samples come from a ring
					* perf overwrote (conv_driver_snapshot()) */
	const struct recording *snap_started; /* the recording the current input is the
					* first snapshot of, whose switch records are complete
					* from its start_ns (conv_driver_snapshot()); NULL */
	unsigned input_no;             /* inputs begun (conv_driver_snapshot()), from 1 */
	const char *input_name;        /* the current input as given (borrowed), for
					* messages (conv_driver_begin_input()) */
	const struct recording **recs; /* the recordings the inputs come from (borrowed) */
	size_t nrecs, caprecs;
	bool last_input;               /* every input has ended (conv_driver_end) */
	struct conv_signal_seen *signals_seen; /* signal:signal_deliver samples (sigmarks.h) */
	size_t nsignals_seen, capsignals_seen;
	/* The sample the held switch records being processed come before
	 * (driver.c sample_ahead(), set while they are): a measured call of
	 * its thread that begins at one of them, on an empty stack, goes
	 * under the callers that sample shows (chain.c measured_entry()). */
	const struct conv_thread *ahead_t;   /* its thread; NULL: none */
	const struct conv_site *ahead;       /* its frames, innermost first (borrowed) */
	size_t nahead;
	uint64_t ahead_ts;                   /* ns, its time */
	struct conv_mcall *mcalls;     /* measured calls of the recordings (measured.c),
					* sorted by (pid, tid, entry) */
	size_t nmcalls, capmcalls;
	struct conv_mfunc *mfuncs;     /* their functions */
	size_t nmfuncs;
	struct conv_perfmap *perfmaps; /* the JITs' perf maps met (perfmaps.h) */
	struct conv_pltdso *pltdsos;   /* the binaries read for their PLT (pltnames.h) */
	size_t npltdsos, cappltdsos;
	size_t nperfmaps, capperfmaps;
	struct perfmap_budget perfmap_budget; /* what of them is read (perfmap.h) */
	struct perfmap_users perfmap_users;   /* whose maps in /tmp may name the current
					       * input's frames (input_perfmap_users()) */
	const struct conv_maps *maps;  /* the current input's processes' mappings (its
					* perf.data's, ipname.h), or NULL (text) */
	fxt_string_id s_measured, s_duration_ns, s_left_by, s_exception;
};

/*
 * Errors. Out of memory is sticky, as every error of the FXT writer is
 * (fxt_writer.h): a part of the converter whose allocation fails sets
 * c->nomem (and returns what it can: NULL, 0, nothing), the driver checks it
 * after each line and each input end and ends the conversion with
 * CONV_ERR_NOMEM (exit 1, "out of memory"). So a void function of the stack
 * machine never drops a frame silently, and the writer's returns need no
 * check until fxt_writer_close(). Why: docs/design.md "Errors".
 */

#endif
