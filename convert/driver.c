/* SPDX-License-Identifier: MIT */
/*
 * The line driver: parses each line, drops same-function jumps first (most
 * lines), spreads a thread's branches that share one timestamp over the time
 * to its next one, gathers call chains of samples, and hands everything to
 * the stack machine (stack.c) or the call-chain builder (chain.c).
 */
#include "driver.h"

#include "chain.h"
#include "chaincheck.h"
#include "perfmaps.h"
#include "complete.h"
#include "coverage.h"
#include "funcs.h"
#include "ipname.h"
#include "markers.h"
#include "measured.h"
#include "offcpu.h"
#include "pltnames.h"
#include "sigmarks.h"
#include "stack.h"
#include "threads.h"
#include "unwound.h"

#include "array.h"
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "escape.h"
#include "perfcmd.h"

/* Kinds of lines skipped with a warning (one warning per kind). */
enum skip_kind {
	SKIP_BAD_LINE,
	SKIP_UNKNOWN_FLAG,
	SKIP_ORPHAN_CHAIN,
	SKIP_TIME_BACKWARDS,
	SKIP_DSO_COLUMN,
	SKIP_TIME_COLUMN,
	SKIP_KINDS,
};

static const struct {
	const char *what;       /* what is wrong with the line */
	const char *done;       /* what is done with it, but with --strict */
} skip_what[] = {
	[SKIP_BAD_LINE] = { "not a line of perf script output", "skipped" },
	[SKIP_UNKNOWN_FLAG] = { "unknown branch flag", "line skipped" },
	[SKIP_ORPHAN_CHAIN] = { "call-chain line without a sample header", "skipped" },
	[SKIP_TIME_BACKWARDS] = { "time goes backwards in this thread", "clamped to its last time" },
	[SKIP_DSO_COLUMN] = { "(dso) column unlike the first line's (text after the last column?)",
			      "skipped" },
	[SKIP_TIME_COLUMN] = { "time column unlike the first line's (the rest of a line a newline "
			       "in a name cut?)", "skipped" },
};
_Static_assert(sizeof(skip_what) / sizeof(skip_what[0]) == SKIP_KINDS, "skip_what");

/* A sample being gathered: its header, then its call chain. */
struct sample {
	struct conv_thread *t;
	bool open;
	uint64_t ts, period_ns, period;
	fxt_string_id event;
	struct conv_site *frames;
	size_t n, cap;
	bool symtext;           /* some frame had a sym column */
	bool callchain;         /* the frames came as call-chain lines (perf record -g) */
	bool sched_switch;      /* a sched:sched_switch sample of the thread leaving */
	bool twin;              /* the unwound twin of the thread's held sched_switch
				 * sample (docs/design.md "The caller a library hides") */
	bool extra;             /* an event sample: an instant on the event's process
				 * track, never a stack (docs/design.md "Extra events") */
	bool signal;            /* a signal:signal_deliver sample (sigmarks.c) */
	struct conv_signal_deliver sigf;   /* its fields (no spans: handler "0" or "1") */
	bool header_loc;        /* the header printed a location (frames[0] until a
				 * call chain shows it was the addr column) */
	bool has_addr;          /* perf's addr column was printed: ADDR */
	uint64_t addr;
	char prev_state[8];     /* its prev_state */
	uint64_t lineno;        /* the header's line in the input */
	uint32_t prev_state_len;
};

/* A side-band record waiting for its time (hold): a switch, the thread's
 * exit, or a signal:signal_deliver sample (from the same ring). */
struct held_switch {
	struct conv_thread *t;
	uint64_t ts, lineno;
	bool out, preempt;      /* a switch out; OUT preempt */
	bool exit;              /* the thread's exit (not a switch) */
	int signal;             /* index into c.signals_seen, -1: a switch or an exit */
};

/* Side-band records held at most (hold): 1.5 MiB. */
#define CONV_HELD_SWITCHES 65536

struct conv_driver {
	struct conv c;
	const char *input;
	uint64_t lineno;
	bool seen_branch, seen_sample;
	bool seen_switch;       /* a switch record or sched_switch sample */
	const char *evlist_mode; /* how the input's perf.data was recorded, by its
				  * events (FXT_MODE_PT for intel_pt, else
				  * FXT_MODE_SAMPLING); NULL: text, which does not say */
	uint64_t skips[SKIP_KINDS];
	struct sample sample;
	struct held_switch *held;   /* held switch records, in input order from HELD_FIRST */
	size_t held_first, nheld, capheld;
	bool release_due;       /* the held switch records up to the open sample's
				 * time are processed once its frames are known
				 * (held_for_sample()) */
	enum dso_column { DSO_UNSEEN, DSO_PRINTED, DSO_ABSENT } dso_column;  /* as the first location */
	uint8_t time_digits;    /* the input's first header's time's fraction digits; 0: none yet */
	struct conv_span cut_key;  /* the last line's conv_line.cut_key: the next ones may be
				    * the rest of it (comm_rest()) */
	size_t cut_room;
	char message[512];
};

struct conv_driver *conv_driver_new(struct fxt_writer *w, const struct conv_opts *opts)
{
	struct conv_driver *cv = calloc(1, sizeof(*cv));
	struct conv *c;

	if (!cv)
		return NULL;
	c = &cv->c;
	c->w = w;
	c->strict = opts->strict;
	c->srcline = opts->srcline;
	c->fdenames = opts->fdenames;
	c->binaries = opts->binaries;
	c->cut = opts->cut;
	c->perfmap_users.owner = (uid_t)-1;	/* no input begun: nobody's map */
	c->s_file = fxt_writer_cstring(w, "file");
	c->s_line = fxt_writer_cstring(w, "line");
	c->s_addr = fxt_writer_cstring(w, "addr");
	c->s_inferred = fxt_writer_cstring(w, "inferred");
	c->s_untraced = fxt_writer_cstring(w, "[untraced]");
	c->s_syscall = fxt_writer_cstring(w, "[syscall]");
	c->s_ip = fxt_writer_cstring(w, "ip");
	c->s_symbol = fxt_writer_cstring(w, "symbol");
	c->s_period = fxt_writer_cstring(w, "period");
	c->s_cpufreq = fxt_writer_cstring(w, "CPU frequency");
	c->s_mhz = fxt_writer_cstring(w, "MHz");
	c->s_offcpu = fxt_writer_cstring(w, FXT_OFFCPU);
	c->s_nosamples = fxt_writer_cstring(w, "[no samples]");
	c->s_before_samples = fxt_writer_cstring(w, "[before the oldest sample]");
	c->s_state = fxt_writer_cstring(w, FXT_OFFCPU_STATE);
	c->s_prev_state = fxt_writer_cstring(w, "prev_state");
	c->s_kernel_function = fxt_writer_cstring(w, FXT_OFFCPU_KERNEL_FUNCTION);
	c->s_tracer = fxt_writer_cstring(w, FXT_OFFCPU_TRACER);
	c->s_syscall_arg = fxt_writer_cstring(w, FXT_OFFCPU_SYSCALL);
	c->s_preempted = fxt_writer_cstring(w, FXT_OFFCPU_PREEMPTED);
	c->s_blocked = fxt_writer_cstring(w, FXT_OFFCPU_BLOCKED);
	c->s_dso = fxt_writer_cstring(w, "dso");
	c->s_tid = fxt_writer_cstring(w, "tid");
	c->s_measured = fxt_writer_cstring(w, FXT_MEASURED_ARG);
	c->s_duration_ns = fxt_writer_cstring(w, FXT_MEASURED_DURATION_ARG);
	c->s_left_by = fxt_writer_cstring(w, FXT_MEASURED_LEFT_BY_ARG);
	c->s_exception = fxt_writer_cstring(w, "exception");
	cv->input = "-";
	return cv;
}

void conv_driver_begin_input(struct conv_driver *cv, const char *name, int dso_dir,
			     const struct perfmap_users *map_users, const struct conv_maps *maps)
{
	cv->input = name;
	cv->c.input_name = name;
	cv->c.perfmap_users = *map_users;
	cv->c.maps = maps;
	cv->lineno = 0;
	cv->time_digits = 0;	/* each input's own time column (perf's --ns or not) */
	cv->cut_key.len = 0;
	if (cv->c.srcline)
		srcline_set_dir(cv->c.srcline, dso_dir);
}

const struct conv_func *conv_driver_func(struct conv_driver *cv, struct conv_span sym,
					 struct conv_span dso)
{
	return conv_func_get(&cv->c, sym, dso);
}

static int nomem_checked(const struct conv_driver *cv, int e);

int conv_driver_recording(struct conv_driver *cv, const struct recording *r)
{
	struct conv *c = &cv->c;
	const struct recording **p = array_grow(c->recs, &c->caprecs, c->nrecs, sizeof(*p));

	if (!p)
		return CONV_ERR_NOMEM;
	c->recs = p;
	c->recs[c->nrecs++] = r;
	if (conv_measured_add(c, r, cv->message, sizeof(cv->message)))
		return CONV_ERR_INPUT;
	return nomem_checked(cv, CONV_OK);
}

void conv_driver_snapshot(struct conv_driver *cv, uint64_t live_ns, enum timeline_next next,
			  bool ring, const struct recording *started)
{
	cv->c.snap_started = started && started->start_ns ? started : NULL;
	cv->c.snap_live = live_ns;
	if (!cv->c.input_no || cv->c.next_input != TIMELINE_SNAPSHOT)
		cv->c.timeline_no++;	/* the previous input did not pass its timeline on */
	cv->c.input_max_ts = 0;
	cv->c.next_input = next;
	cv->c.snap_ring = ring;
	cv->c.input_no++;
}

const char *conv_driver_message(const struct conv_driver *cv)
{
	return cv->message;
}

const struct conv_stats *conv_driver_stats(const struct conv_driver *cv)
{
	return &cv->c.stats;
}

bool conv_driver_process_end(const struct conv_driver *cv, int64_t pid, uint64_t *last)
{
	return conv_process_end(&cv->c, pid, last);
}

void conv_driver_report(struct conv_driver *cv, unsigned top)
{
	conv_coverage_report(&cv->c, top);
	conv_sigmarks_report(&cv->c, true);
}

/* Counts a skipped line; warns on the first of its kind. Returns
 * CONV_ERR_STRICT when --strict makes it fatal. */
static int skip(struct conv_driver *cv, enum skip_kind kind, const char *s, size_t len)
{
	char text[ESC_EXCERPT_SIZE];

	cv->c.stats.skipped++;
	esc_excerpt(text, s, len);	/* the input may be a binary file */
	if (cv->c.strict) {
		snprintf(cv->message, sizeof(cv->message), "%s:%llu: %s (an error with --strict): %s",
			 cv->input, (unsigned long long)cv->lineno, skip_what[kind].what, text);
		return CONV_ERR_STRICT;
	}
	if (cv->skips[kind]++ == 0)
		diag_warn("%s:%llu: %s, %s (further ones are counted in the summary): %s",
			  cv->input, (unsigned long long)cv->lineno, skip_what[kind].what,
			  skip_what[kind].done, text);
	return CONV_OK;
}

/* The text lacks a column the conversion needs, as line LINENO shows: the
 * usage error that shows the perf script line to use (HINT). */
static int missing_column(struct conv_driver *cv, uint64_t lineno, const char *what,
			  enum perfcmd_kind kind)
{
	int n = snprintf(cv->message, sizeof(cv->message),
			 "%s:%llu: expected perf script lines with %s, found none; run: ",
			 cv->input, (unsigned long long)lineno, what);

	/* the perf script command line whose output this reads */
	if (n > 0 && (size_t)n < sizeof(cv->message))
		perfcmd_text(kind, cv->message + n, sizeof(cv->message) - (size_t)n);
	return CONV_ERR_COLUMN;
}

/* Why conv_thread_get() (or a track, conv_emit_event_sample()) found no
 * koid, as an enum conv_error. */
static int no_thread(struct conv_driver *cv)
{
	if (!cv->c.odd_ids_full)
		return CONV_ERR_NOMEM;
	snprintf(cv->message, sizeof(cv->message), "%s:%llu: more than %d distinct thread or "
		 "process ids outside 1..%lld and tracks of event samples (one per process and "
		 "event): too many for Perfetto's 32-bit ids", cv->input,
		 (unsigned long long)cv->lineno, CONV_ODD_IDS_MAX, (long long)CONV_KOID_BAND - 1);
	return CONV_ERR_IDS;
}

/* The site of LOC (CHAIN: a call chain's frame, perf's map-relative
 * address; else a branch's or sample's own, in the process). */
static bool site_of(struct conv *c, bool chain, const struct conv_loc *loc,
		    struct conv_site *site)
{
	struct conv_loc named = *loc;
	const struct conv_func *f;

	/* a JIT's frame named from the recording's copy of its perf map */
	if (conv_perfmap_name(c, &named))
		loc = &named;
	site->ip = loc->ip;
	site->symoff = loc->symoff;
	site->has_symoff = loc->has_symoff;
	site->func = loc->func ? loc->func : conv_func_get(c, loc->sym, loc->dso);
	/* a PLT entry perf named by the symbol over it (_init+0x30) or by
	 * nothing (.plt.got, .plt.sec) */
	if (site->func && conv_plt_name(site->func, chain, &named)) {
		site->symoff = named.symoff;
		site->has_symoff = true;
		site->func = conv_func_get(c, named.sym, named.dso);
	}
	/* a call chain's frame at its link-time address; a stripped binary's
	 * named by the function its unwind table says */
	f = site->func;
	site->nocode = site->linked = false;
	site->func = chain ? conv_func_linked(c, f, site) : f;
	if (site->func != f) {
		site->has_symoff = site->func != NULL;
		return site->func != NULL;
	}
	/* perf's one name of several overloads: the one at this address */
	site->func = conv_func_overload(c, site->func, site->has_symoff && site->ip >= site->symoff ?
					site->ip - site->symoff : 0, false);
	return site->func != NULL;
}

/* Processes T's waiting branches, the k-th of n at base + (next - base) * k / n. */
static void flush_pending(struct conv *c, struct conv_thread *t, uint64_t next)
{
	uint64_t base = t->pending_ts, span = next > base ? next - base : 0;
	size_t n = t->npending;

	for (size_t k = 0; k < n; k++) {
		t->now = base + (uint64_t)((unsigned __int128)span * k / n);
		conv_stack_branch(c, t, &t->pending[k], t->now);
	}
	t->npending = 0;
}

static void switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, const struct conv_offcpu *off);

/* Processes T's held sched_switch sample as it is (its twin did not come). */
static void release_held(struct conv *c, struct conv_thread *t)
{
	if (!t->switch_held)
		return;
	t->switch_held = false;
	switch_out(c, t, t->held_ts, t->nheld ? t->held : NULL, t->nheld, &t->held_off);
}

/* Clamps TS to T's last time (with a warning) and makes it T's last time;
 * T's held switch comes first. */
static uint64_t thread_time(struct conv_driver *cv, struct conv_thread *t, uint64_t ts,
			    const char *s, size_t len)
{
	release_held(&cv->c, t);
	if (t->has_ts && ts < t->last_ts) {
		cv->c.stats.time_backwards++;
		skip(cv, SKIP_TIME_BACKWARDS, s, len);
		cv->c.stats.skipped--;	/* clamped, not skipped */
		ts = t->last_ts;
	}
	t->last_ts = ts;
	t->seen_input = cv->c.input_no;
	t->seen_timeline = cv->c.timeline_no;
	if (ts > cv->c.max_ts)
		cv->c.max_ts = ts;
	if (ts > cv->c.input_max_ts)
		cv->c.input_max_ts = ts;
	return ts;
}

/* The thread's first time: errors without a time that waited for it go there. */
static void thread_starts(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	t->has_ts = true;
	t->first_ts = ts;
	for (size_t i = 0; i < t->nearly_errors; i++)
		conv_stack_error(c, t, t->early_errors[i], ts);
	t->nearly_errors = 0;
	/* Nothing ran before them: the first segment is the thread's start. */
	t->seg_after_close = false;
	t->seg_error = false;
	t->seg_floor = 0;
}

static bool same_function(const struct conv_line *l)
{
	return conv_span_eq(l->from.sym, l->to.sym) && conv_span_eq(l->from.dso, l->to.dso);
}

static int branch_line(struct conv_driver *cv, const struct conv_line *l, const char *s, size_t len)
{
	struct conv *c = &cv->c;
	struct conv_thread *t;
	struct conv_branch *b;
	uint64_t ts;

	if (!cv->seen_branch) {
		if (!(l->flags & ~CONV_F_IN_TX))
			return missing_column(cv, cv->lineno, "the flags column (call, return, jcc...)",
					      PERFCMD_BRANCHES);
		if (!l->from.has_symtext && !l->to.has_symtext && (l->from.ip || l->to.ip))
			return missing_column(cv, cv->lineno, "the sym column", PERFCMD_BRANCHES);
		cv->seen_branch = true;
	}
	c->stats.branches++;
	t = conv_thread_get(c, l->pid, l->tid);
	if (!t)
		return no_thread(cv);
	ts = thread_time(cv, t, l->ts, s, len);
	if (!t->has_ts)
		thread_starts(c, t, ts);
	t->exited = false;	/* running: a thread (again) */
	if (!t->has_branches) {
		t->has_branches = true;
		/* sampled chains so far, or what they wrote (an [off-cpu] slice,
		 * frames ended): the branches take over after it, the frames they
		 * infer below their stack too (stack.c: never inside it) */
		if (t->depth || t->offcpu_open || t->last_end) {
			conv_chain_close(c, t, ts, false);
			conv_stack_close(c, t, ts);
		}
	}
	if (!t->seg_started) {
		t->seg_started = true;
		if (t->seg_after_close)
			t->min_ts = t->seg_floor + CONV_INFERRED_ROOM_NS;
		t->seg_first = ts > t->min_ts ? ts : t->min_ts;
	}
	if (ts < t->min_ts)
		ts = t->min_ts;	/* the room for inferred frames (stack.c) */
	/* Jumps within one function, and calls into the middle of the caller
	 * (call next, PC thunks), change no stack: most lines end here. */
	if (same_function(l) &&
	    (!(l->flags & ~(CONV_F_JCC | CONV_F_JMP | CONV_F_IN_TX | CONV_F_BRANCH_MISS)) ||
	     (l->flags == CONV_F_CALL && l->to.has_symoff && l->to.symoff != 0)))
		return CONV_OK;
	if (t->npending && ts != t->pending_ts)
		flush_pending(c, t, ts);
	b = array_grow(t->pending, &t->cappending, t->npending, sizeof(*b));
	if (!b)
		return CONV_ERR_NOMEM;
	t->pending = b;
	b += t->npending;
	b->flags = l->flags;
	if (!site_of(c, false, &l->from, &b->from) || !site_of(c, false, &l->to, &b->to))
		return CONV_ERR_NOMEM;
	t->npending++;
	t->pending_ts = ts;
	conv_thread_name(c, t, l->comm);
	return CONV_OK;
}

static int error_line(struct conv_driver *cv, const struct conv_line *l)
{
	struct conv *c = &cv->c;
	struct conv_thread *t = conv_thread_get(c, l->pid, l->tid);
	fxt_string_id name = conv_name(c, "[decode error: ", l->message, 256, "]");
	uint64_t ts;

	if (!t)
		return no_thread(cv);
	if (!l->has_time && !t->has_ts) {	/* goes at the thread's first time */
		fxt_string_id *e;

		if (t->nearly_errors >= CONV_MAX_DEPTH) {	/* no room there: see conv_emit_instant */
			c->stats.decode_errors++;
			c->stats.deep_instants++;
			return CONV_OK;
		}
		e = array_grow(t->early_errors, &t->capearly_errors, t->nearly_errors, sizeof(*e));
		if (!e)
			return CONV_ERR_NOMEM;
		t->early_errors = e;
		e[t->nearly_errors++] = name;
		return CONV_OK;
	}
	release_held(c, t);
	ts = l->has_time && (!t->has_ts || l->ts > t->last_ts) ? l->ts : t->last_ts;
	if (!t->has_ts)
		t->has_ts = true;
	t->last_ts = ts;
	if (ts < t->min_ts)
		ts = t->min_ts;
	if (t->npending)
		flush_pending(c, t, ts);
	if (!t->has_branches)
		conv_chain_close(c, t, ts, true);
	conv_stack_error(c, t, name, ts);
	return CONV_OK;
}

/* T exited at TS (its exit record, or a switch out as a zombie): what it
 * had open ends there, and the dead task's own last switch out draws no
 * [off-cpu] (nothing of it runs after; docs/design.md "Sampled call
 * chains"). Anything of T seen later is a new thread of the same id. */
static void thread_exits(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (t->npending)
		flush_pending(c, t, ts);
	if (t->has_branches)
		conv_stack_close(c, t, ts);
	else
		conv_chain_close(c, t, ts, false);
	t->exited = true;
}

/* T leaves the CPU at TS, for the reason OFF, with FRAMES (N, innermost
 * first, user space) on its stack (N = 0: not known). */
static void switch_out(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, const struct conv_offcpu *off)
{
	if (off->dead)
		thread_exits(c, t, ts);
	else if (t->exited)
		return;	/* the dead task's last switch, after its exit */
	else if (t->has_branches) {
		if (t->npending)
			flush_pending(c, t, ts);
		conv_offcpu_begin(c, t, ts, off);
	} else {
		conv_chain_switch_out(c, t, ts, frames, n, off);
	}
}

/* The number of kernel frames that begin the sample's call chain. */
static size_t kernel_frames(const struct sample *sm)
{
	size_t k = 0;

	while (k < sm->n && sm->frames[k].ip >= CONV_KERNEL_START)
		k++;
	return k;
}

/* The sched_switch sample being gathered: the thread leaves the CPU in the
 * call chain it has (kernel frames first). It is held until its unwound
 * twin comes (twin_sample), or the thread's next line. */
static int switch_sample(struct conv_driver *cv)
{
	struct sample *sm = &cv->sample;
	struct conv_thread *t = sm->t;
	size_t k = kernel_frames(sm), n = sm->n - k;

	cv->seen_switch = true;
	release_held(&cv->c, t);
	conv_offcpu_of_switch(&cv->c, sm->frames, k,
			      (struct conv_span){ sm->prev_state, sm->prev_state_len }, &t->held_off);
	if (array_reserve((void **)&t->held, &t->capheld, n, sizeof(*t->held)))
		return CONV_ERR_NOMEM;
	if (n)	/* no call chain: no frames (NULL + 0 is not a pointer to add to) */
		memcpy(t->held, sm->frames + k, n * sizeof(*t->held));
	t->nheld = n;
	t->held_ts = sm->ts;
	t->switch_held = true;
	return CONV_OK;
}

/* The twin being gathered: its user frames, unwound by perf from a copy of
 * the stack, spliced into the held sched_switch sample's (unwound.c) when
 * both start at the same instruction. */
static int twin_sample(struct conv_driver *cv)
{
	struct sample *sm = &cv->sample;
	struct conv_thread *t = sm->t;
	size_t k = kernel_frames(sm), n = sm->n - k, cap = t->nheld + n;
	struct conv_site *spliced;

	if (!t->switch_held)
		return CONV_OK;	/* its sched_switch sample was processed, or lost */
	if (!n || (t->nheld && t->held[0].ip != sm->frames[k].ip)) {
		release_held(&cv->c, t);
		return CONV_OK;
	}
	spliced = malloc(cap * sizeof(*spliced));
	if (!spliced)
		return CONV_ERR_NOMEM;
	n = conv_unwound_splice(t->held, t->nheld, sm->frames + k, n, spliced);
	t->switch_held = false;
	switch_out(&cv->c, t, t->held_ts, spliced, n, &t->held_off);
	free(spliced);
	return CONV_OK;
}

/* A side-band record of T (a switch, or its exit: perf script
 * --show-switch-events, --show-task-events), processed in time order (see
 * held_switch). */
/*
 * Thread T, not seen yet, switches in at TS in the first snapshot of a
 * recording whose switch records are complete from its start_ns (before
 * TS), and record.json gives its state then (an attach reads it in /proc:
 * a thread that existed at start_ns, not one made later): it was off the
 * CPU all that time (no switch out came first). Starts its track at
 * start_ns with an [off-cpu] slice in that state and wait channel, and
 * returns true; else false.
 */
static bool asleep_from_start(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	const struct recording *r = c->snap_started;
	const struct recording_thread *rt = r ? recording_thread(r, t->tid) : NULL;
	struct conv_offcpu off = { .state_known = true };

	if (!rt || !rt->state || !*rt->state || r->start_ns >= ts)
		return false;
	off.preempted = rt->state[0] == 'R';
	snprintf(off.prev_state, sizeof(off.prev_state), "%s", rt->state);
	if (rt->wchan && *rt->wchan)
		off.kernel_function = fxt_writer_cstring(c->w, rt->wchan);
	thread_starts(c, t, r->start_ns);
	switch_out(c, t, r->start_ns, NULL, 0, &off);
	return true;
}

static void switch_record(struct conv_driver *cv, const struct held_switch *h)
{
	struct conv *c = &cv->c;
	struct conv_thread *t = h->t;
	uint64_t lineno = cv->lineno, ts;

	cv->lineno = h->lineno;	/* for the clamping warning */
	ts = thread_time(cv, t, h->ts, h->signal >= 0 ? "signal:signal_deliver" :
			 h->exit ? "PERF_RECORD_EXIT" : "PERF_RECORD_SWITCH",
			 h->signal >= 0 ? 21 : h->exit ? 16 : 18);
	cv->lineno = lineno;
	if (h->signal >= 0) {
		if (!t->has_ts)
			thread_starts(c, t, ts);
		conv_signal_stack(c, t, (size_t)h->signal, ts);
		return;
	}
	if (ts < t->min_ts)
		ts = t->min_ts;
	if (h->exit) {
		thread_exits(c, t, ts);
		return;
	}
	c->switch_records = true;
	/* A thread seen only switching (one that slept all along) still has a
	 * track: from a switch out it is off the CPU until the recording's end;
	 * to a first switch in, from the recording's start (asleep_from_start()). */
	if (!t->has_ts && (h->out || !asleep_from_start(c, t, ts)))
		thread_starts(c, t, ts);
	if (h->out) {
		struct conv_offcpu off = { .state_known = true, .preempted = h->preempt };

		switch_out(c, t, ts, NULL, 0, &off);
		return;
	}
	t->exited = false;	/* back on a CPU: a thread (again) */
	if (t->has_branches) {
		if (t->npending)
			flush_pending(c, t, ts);
		conv_offcpu_end(c, t, ts);
	} else {
		conv_chain_switch_in(c, t, ts);
	}
}

/* Processes the held switch records up to time TS (all: UINT64_MAX), in
 * the order they came. */
static void release_switches(struct conv_driver *cv, uint64_t ts)
{
	while (cv->held_first < cv->nheld && cv->held[cv->held_first].ts <= ts)
		switch_record(cv, &cv->held[cv->held_first++]);
	if (cv->held_first == cv->nheld)
		cv->held_first = cv->nheld = 0;
}

/* A side-band record (a switch, an exit, a signal) is held until a line of
 * a later time comes (or the input ends): perf prints the side-band of a
 * sampling snapshot, read from its own ring as the recording went, ahead of
 * the samples of the same time, which come from the overwritten ring at the
 * snapshot. Held are at most CONV_HELD_SWITCHES; past that the oldest is
 * processed. */
static int hold(struct conv_driver *cv, const struct held_switch *rec)
{
	struct held_switch *h;

	if (cv->nheld - cv->held_first == CONV_HELD_SWITCHES)
		switch_record(cv, &cv->held[cv->held_first++]);
	if (cv->held_first && cv->nheld == cv->capheld) {
		memmove(cv->held, cv->held + cv->held_first,
			(cv->nheld - cv->held_first) * sizeof(*h));
		cv->nheld -= cv->held_first;
		cv->held_first = 0;
	}
	h = array_grow(cv->held, &cv->capheld, cv->nheld, sizeof(*h));
	if (!h)
		return CONV_ERR_NOMEM;
	cv->held = h;
	cv->held[cv->nheld++] = *rec;
	return CONV_OK;
}

static int switch_line(struct conv_driver *cv, const struct conv_line *l)
{
	struct conv_thread *t = conv_thread_get(&cv->c, l->pid, l->tid);

	if (!t)
		return no_thread(cv);
	cv->seen_switch = true;
	if (!t->has_ts && !t->named)
		conv_thread_name(&cv->c, t, l->comm);
	return hold(cv, &(struct held_switch){
		.t = t, .ts = l->ts, .lineno = cv->lineno, .out = l->switch_out,
		.preempt = l->switch_preempt, .signal = -1,
	});
}

/* A thread's exit record (perf script --show-task-events), held as a
 * switch record is. */
static int exit_line(struct conv_driver *cv, const struct conv_line *l)
{
	struct conv_thread *t = conv_thread_get(&cv->c, l->pid, l->tid);

	if (!t)
		return no_thread(cv);
	return hold(cv, &(struct held_switch){
		.t = t, .ts = l->ts, .lineno = cv->lineno, .exit = true, .signal = -1,
	});
}

/* The signal:signal_deliver sample being gathered: kept for the markers,
 * and held as a switch record is (perf prints it, from the normal ring,
 * ahead of the samples of the same time): its chain then closes the
 * thread's stacks in time order. */
static int signal_sample(struct conv_driver *cv)
{
	struct sample *sm = &cv->sample;
	int i = conv_signal_seen(&cv->c, sm->t, sm->ts, &sm->sigf, sm->frames, sm->n);

	if (i < 0)
		return CONV_OK;   /* too many: no marker of its own (cv->c.nomem checked after) */
	return hold(cv, &(struct held_switch){
		.t = sm->t, .ts = sm->ts, .lineno = sm->lineno, .signal = i,
	});
}

/* The sample being gathered is an event's: an instant named after the
 * event on the event's track in the thread's process, with the thread's
 * tid, its period, ip, symbol, dso and addr (docs/design.md "Extra
 * events"). Returns CONV_OK, or an error when no track can be made. */
static int event_sample(struct conv_driver *cv)
{
	struct sample *sm = &cv->sample;
	struct conv *c = &cv->c;
	struct fxt_arg args[6] = {
		{ .type = FXT_ARG_INT64, .name = c->s_tid, .i64 = sm->t->tid },
		{ .type = FXT_ARG_UINT64, .name = c->s_period, .u64 = sm->period },
	};
	unsigned n = 2;

	if (sm->n) {
		const struct conv_site *f = &sm->frames[0];

		args[n++] = (struct fxt_arg){ .type = FXT_ARG_POINTER, .name = c->s_ip,
					      .u64 = f->ip };
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_symbol,
					      .str = conv_func_frame_name(c, f->func, f->ip) };
		if (f->func->dso)
			args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_dso,
						      .str = f->func->dso };
	}
	if (sm->has_addr)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_POINTER, .name = c->s_addr,
					      .u64 = sm->addr };
	c->stats.event_samples++;
	conv_chain_release(c, sm->t);	/* its instant after the chain held before it */
	return conv_emit_event_sample(c, sm->t, sm->event, sm->ts, args, n) ? CONV_OK
									  : no_thread(cv);
}

/* Ends the sample being gathered: slices from its chain, or an instant on
 * its event's track (an event sample, or any sample in a thread whose
 * stacks come from branches). Returns CONV_OK, or
 * CONV_ERR_COLUMN when the first sample shows the text has no sym column. */
static int sample_done(struct conv_driver *cv)
{
	struct sample *sm = &cv->sample;
	struct conv *c = &cv->c;
	struct conv_thread *t = sm->t;

	if (!sm->open)
		return CONV_OK;
	sm->open = false;
	/* before anything reads its frames (the held switch records' measured
	 * calls too: issue 24, a dwarf chain's 0xffffffffffffffff became the
	 * root of a slow call's callers): a loop cut to one marker frame, a
	 * chain that went where nothing is mapped cut there */
	sm->n = conv_chain_clean(c, sm->frames, sm->n);
	if (cv->release_due) {
		/* its switch records, then its time (no earlier than its last:
		 * held_for_sample()) */
		cv->release_due = false;
		size_t k = kernel_frames(sm);

		conv_chain_ahead(c, t, sm->ts, sm->frames + k, sm->n - k);
		release_switches(cv, sm->ts);
		conv_chain_ahead(c, NULL, 0, NULL, 0);
		thread_time(cv, t, sm->ts, NULL, 0);
		if (!t->has_ts)
			thread_starts(c, t, sm->ts);
	}
	if (!cv->seen_sample && sm->n) {
		if (!sm->symtext)
			return missing_column(cv, sm->lineno, "the sym column", PERFCMD_SAMPLES);
		cv->seen_sample = true;
	}
	/* A sample without a location (no ip column: perf then prints no sym
	 * nor call chain either) gives no slice; a sched_switch sample may lack
	 * its stack, and a branch trace draws samples as instants. */
	if (!cv->seen_sample && !sm->n && !sm->sched_switch && !cv->seen_branch)
		return missing_column(cv, sm->lineno, "the ip and sym columns (and a call chain "
				      "when recorded with -g)", PERFCMD_SAMPLES);
	if (sm->sched_switch)
		return switch_sample(cv);
	if (sm->twin)
		return twin_sample(cv);
	if (sm->signal)
		return signal_sample(cv);
	if (sm->extra || t->has_branches || sm->n == 0)
		return event_sample(cv);
	conv_chain_sample(c, t, sm->ts, sm->frames, sm->n, sm->period_ns, sm->callchain);
	return CONV_OK;
}

/* A call chain follows a header that printed a location: with a call chain
 * perf prints the ip only in the chain, so that location was the addr
 * column (-F addr: a data address), not a frame. */
static void chain_after_header_loc(struct sample *sm)
{
	if (!sm->has_addr && sm->n) {
		sm->has_addr = true;
		sm->addr = sm->frames[0].ip;
	}
	sm->n = 0;
	sm->header_loc = false;
	sm->callchain = true;
}

static int add_frame(struct conv_driver *cv, const struct conv_loc *loc)
{
	struct sample *sm = &cv->sample;
	struct conv_site *f = array_grow(sm->frames, &sm->cap, sm->n, sizeof(*f));

	if (!f)
		return CONV_ERR_NOMEM;
	sm->frames = f;
	sm->symtext |= loc->has_symtext;
	f += sm->n;
	if (!site_of(&cv->c, sm->callchain, loc, f))
		return CONV_ERR_NOMEM;
	/* a frame in a mapping of the process that is no code: junk
	 * (conv_chain_clean), as perf named and printed it */
	if (sm->callchain && sm->t &&
	    conv_maps_data(cv->c.maps, sm->t->pid, loc->dso.s, loc->dso.len, loc->ip))
		f->nocode = true;
	/* a frame no symbol names is its address, never a neighbour's function */
	f->func = conv_func_at(&cv->c, f->func, f->ip);
	if (!f->func)
		return CONV_ERR_NOMEM;
	sm->n++;
	return CONV_OK;
}

/* Events whose samples are where the time goes: their call chains are the
 * thread's stacks (docs/design.md "Extra events"); every other event's
 * samples are instants on the event's own track. Those whose period counts
 * nanoseconds say so. */
static const struct stack_event {
	const char *name;
	uint8_t len;
	bool period_is_time;
} stack_events[] = {
	{ "cpu-clock", 9, true }, { "task-clock", 10, true }, { "cycles", 6, false },
	{ "cpu-cycles", 10, false }, { "ref-cycles", 10, false }, { "instructions", 12, false },
};

/* The entry of stack_events[] for EV (as parsed: no mods nor generic
 * terms; a PMU's "cpu_core/cycles/" is its event), or NULL. */
static const struct stack_event *stack_event(struct conv_span ev)
{
	const char *s = ev.s, *slash = memchr(ev.s, '/', ev.len);
	size_t n = ev.len;

	if (slash && ev.s[ev.len - 1] == '/' && !memchr(slash, '=', ev.len - (size_t)(slash - ev.s))) {
		s = slash + 1;
		n = ev.len - (size_t)(s - ev.s) - 1;
	}
	for (size_t i = 0; i < sizeof(stack_events) / sizeof(stack_events[0]); i++)
		if (n == stack_events[i].len && !memcmp(s, stack_events[i].name, n))
			return &stack_events[i];
	return NULL;
}

/* The unwinder (CONV_UNWIND_*) of an event of sample_type TYPE; 0: none. */
static unsigned unwinder_of(uint64_t type)
{
	if (type & PERF_SAMPLE_STACK_USER)
		return CONV_UNWIND_DWARF;
	if (type & PERF_SAMPLE_BRANCH_STACK)
		return CONV_UNWIND_LBR;
	return type & PERF_SAMPLE_CALLCHAIN ? CONV_UNWIND_FP : 0;
}

void conv_driver_evlist(struct conv_driver *cv, const char *evlist, const uint64_t *sample_types,
			size_t ntypes)
{
	bool period_set = false;
	size_t i = 0;

	cv->evlist_mode = NULL;
	for (const char *s = evlist, *e; s && *s; s = *e ? e + 1 : e, i++) {
		const struct stack_event *se;
		struct conv_span ev;
		enum conv_every_event k;
		uint64_t n;
		bool freq;

		e = strchrnul(s, '\n');
		if (!conv_parse_evlist_line(s, (size_t)(e - s), &ev, &n, &freq))
			continue;
		if (memmem(ev.s, ev.len, "intel_pt", 8))
			cv->evlist_mode = FXT_MODE_PT;
		else if (!cv->evlist_mode)
			cv->evlist_mode = FXT_MODE_SAMPLING;
		k = conv_every_event(ev.s, ev.len);
		if (k < CONV_EVERY_N && freq)
			cv->c.every[k].freq = n;
		if (!(se = stack_event(ev)))
			continue;
		if (i < ntypes)
			cv->c.unwinders |= unwinder_of(sample_types[i]);
		if (period_set || (!freq && !se->period_is_time))
			continue;
		n = freq ? 1000000000 / n : n;
		cv->c.period_ns = n < CONV_TS_MAX ? n : CONV_TS_MAX;
		period_set = true;
	}
}

/* Whether L is a sample of signal:signal_deliver. */
static bool is_signal(const struct conv_line *l)
{
	return conv_every_event(l->event.s, l->event.len) == CONV_EVERY_SIGNAL;
}

/* Whether the switch records held up to sample L's time wait for its
 * frames (sample_done()): L is a sample of a call stack (a sched_switch
 * sample of the thread leaving the CPU too), of a thread with
 * an empty stack, at no earlier time than its last, and measured calls
 * are to be placed: one beginning at those records goes under the
 * callers the sample shows (conv_chain_ahead()). */
static bool held_for_sample(struct conv_driver *cv, const struct conv_line *l)
{
	const struct conv_thread *t;

	enum conv_every_event every = conv_every_event(l->event.s, l->event.len);

	if (l->kind != CONV_LINE_SAMPLE || !cv->c.nmcalls || l->unwound ||
	    every == CONV_EVERY_SIGNAL ||
	    (every == CONV_EVERY_SCHED_SWITCH && l->sched.valid && l->sched.prev_pid != l->tid) ||
	    (every == CONV_EVERY_N && l->event.len && !stack_event(l->event)))
		return false;
	t = conv_thread_get(&cv->c, l->pid, l->tid);
	return t && !t->depth && !t->has_branches && !(t->has_ts && l->ts < t->last_ts);
}

static int sample_line(struct conv_driver *cv, const struct conv_line *l, const char *s, size_t len)
{
	struct sample *sm = &cv->sample;
	struct conv_thread *t = conv_thread_get(&cv->c, l->pid, l->tid);
	enum conv_every_event every = conv_every_event(l->event.s, l->event.len);
	bool sched_switch = every == CONV_EVERY_SCHED_SWITCH, signal = every == CONV_EVERY_SIGNAL;
	const struct stack_event *se = stack_event(l->event);

	if (!t)
		return no_thread(cv);
	sm->open = true;
	sm->t = t;
	sm->lineno = cv->lineno;
	/* the twin is part of its switch: no time of its own, no instant (one
	 * whose sched_switch sample was lost is left out) */
	sm->twin = l->unwound && l->event.len == 16 && !memcmp(l->event.s, "context-switches", 16);
	if (sm->twin) {
		sm->ts = l->ts;
		sm->n = 0;
		sm->callchain = !l->has_loc;
		sm->header_loc = l->has_loc;
		sm->has_addr = l->has_addr;
		sm->sched_switch = sm->signal = sm->extra = false;
		return l->has_loc ? add_frame(cv, &l->from) : CONV_OK;
	}
	/* An event sample marks a moment on its own track: it neither moves the
	 * thread's clock nor starts it (perf keeps such events from before a
	 * PT snapshot's first branch). A text without an event column is one
	 * of stacks. */
	sm->extra = !sched_switch && !signal && l->event.len && !se;
	sm->signal = signal;
	/* a signal's time is taken in order when it is released (signal_sample) */
	sm->ts = sm->extra || signal || cv->release_due ? l->ts : thread_time(cv, t, l->ts, s, len);
	if (!t->has_ts && !sm->extra && !signal && !cv->release_due)
		thread_starts(&cv->c, t, sm->ts);
	if (!sm->extra && !sched_switch && !signal)
		t->exited = false;	/* running: a thread (again) */
	sm->sigf = l->signal;
	sm->sigf.handler = (struct conv_span){ l->signal.handler.len == 1 &&
					       l->signal.handler.s[0] == '0' ? "0" : "1", 1 };
	sm->sigf.flags = (struct conv_span){ NULL, 0 };
	sm->period = l->has_period ? l->period : 0;
	if (every < CONV_EVERY_N) {	/* skipped: saturating (a text's periods) */
		uint64_t *skipped = &cv->c.every[every].skipped, more = sm->period ? sm->period - 1 : 0;

		cv->c.every[every].samples++;
		*skipped += more < UINT64_MAX - *skipped ? more : UINT64_MAX - *skipped;
	}
	sm->period_ns = !se || !se->period_is_time ? 0 : sm->period < CONV_TS_MAX ? sm->period
										: CONV_TS_MAX;
	sm->event = fxt_writer_string(cv->c.w, l->event.s, l->event.len);
	sm->n = 0;
	sm->symtext = false;
	sm->callchain = !l->has_loc;	/* perf prints the ip on the header without -g */
	sm->header_loc = l->has_loc;
	sm->has_addr = l->has_addr;
	sm->addr = l->to.ip;
	/* The tracepoint fires in the thread leaving the CPU (prev). */
	sm->sched_switch = sched_switch && (!l->sched.valid || l->sched.prev_pid == l->tid);
	sm->prev_state_len = l->sched.prev_state.len < sizeof(sm->prev_state) ?
		l->sched.prev_state.len : 0;
	if (sm->prev_state_len)
		memcpy(sm->prev_state, l->sched.prev_state.s, sm->prev_state_len);
	conv_thread_name(&cv->c, t, l->comm);
	return l->has_loc ? add_frame(cv, &l->from) : CONV_OK;
}

static int aux_line(struct conv_driver *cv, const struct conv_line *l)
{
	struct conv_thread *t;
	struct fxt_arg arg;

	if (!l->cbr_mhz)
		return CONV_OK;	/* psb, pwre, ...: no control flow */
	t = conv_thread_get(&cv->c, l->pid, l->tid);
	if (!t)
		return no_thread(cv);
	arg = (struct fxt_arg){ .type = FXT_ARG_INT64, .name = cv->c.s_mhz, .i64 = l->cbr_mhz };
	conv_thread_name(&cv->c, t, l->comm);
	conv_emit_counter(&cv->c, t, cv->c.s_cpufreq, l->ts, &arg);
	return CONV_OK;
}

/* Does LOC print the dso column as the input's first location did? perf
 * prints the same columns on every line, so text after the last column
 * (junk) shows as a location without its "(dso)" at the end. Only an
 * "[unknown]" location may lack it where others have it (perf omits the
 * dso of an address in no map). */
static bool dso_column_kept(struct conv_driver *cv, const struct conv_loc *loc)
{
	enum dso_column has = loc->dso.len ? DSO_PRINTED : DSO_ABSENT;

	if (!loc->sym.len)
		return true;
	if (cv->dso_column == DSO_UNSEEN)
		cv->dso_column = has;
	return cv->dso_column == has;
}

/* The locations of L (none, one or two) keep the input's dso column. */
static bool dso_columns_kept(struct conv_driver *cv, const struct conv_line *l)
{
	switch (l->kind) {
	case CONV_LINE_BRANCH:
		return dso_column_kept(cv, &l->from) && dso_column_kept(cv, &l->to);
	case CONV_LINE_SAMPLE:
		return !l->has_loc || dso_column_kept(cv, &l->from);
	case CONV_LINE_CHAIN:
		return dso_column_kept(cv, &l->from);
	default:
		return true;
	}
}

/* Does L's header print its time as the first header did (perf script
 * prints every time with as many digits: 9 with --ns, as snaptrace runs
 * it)? The shortest header with 9 digits ("1/1 0.000000000:", 16 bytes)
 * is longer than any comm (CONV_COMM_MAX), so the part of another
 * process's name after a newline, a line of its own, never passes as a
 * header: one with fewer digits is that (docs/design.md "Threat model"). */
static bool time_column_kept(struct conv_driver *cv, const struct conv_line *l)
{
	if (!l->time_digits)
		return true;
	if (!cv->time_digits)
		cv->time_digits = l->time_digits;
	return cv->time_digits == l->time_digits;
}

/* Is line S (LEN bytes) the rest of a line a newline in a tracepoint's
 * comm cut (the last line's cut_key)? Its first cut_room bytes at most are
 * the name's, then " KEY"; a shorter line without it is more of the name
 * (another newline in it). Either is the cut line's, read no further: its
 * call chain follows. Anything else is a line of its own. */
static bool comm_rest(struct conv_driver *cv, const char *s, size_t len)
{
	size_t n = cv->cut_room + 1 + cv->cut_key.len;
	const char *k = memmem(s, len < n ? len : n, cv->cut_key.s, cv->cut_key.len);

	if (k && k > s && k[-1] == ' ') {
		cv->cut_key.len = 0;
		return true;
	}
	if (len < cv->cut_room) {
		cv->cut_room -= len + 1;
		return true;
	}
	cv->cut_key.len = 0;
	return false;
}

/* Converts line L as conv_driver_parsed() does, but for the check of c->nomem. */
static int parsed(struct conv_driver *cv, const struct conv_line *l)
{
	const char *s = l->text.s;
	size_t len = l->text.len;

	cv->lineno++;
	cv->c.stats.lines++;
	if (cv->cut_key.len && comm_rest(cv, s, len))
		return CONV_OK;
	cv->cut_key = l->cut_key;
	cv->cut_room = l->cut_room;
	if (l->kind == CONV_LINE_TOO_LONG) {
		snprintf(cv->message, sizeof(cv->message), "%s:%llu: a line longer than %u bytes, "
			 "which no perf script prints: not perf script output", cv->input,
			 (unsigned long long)cv->lineno, CONV_LINE_MAX);
		return CONV_ERR_LINE_LONG;
	}
	if (l->has_time && l->ts > CONV_TS_MAX) {
		snprintf(cv->message, sizeof(cv->message), "%s:%llu: time %llu.%09llu s is at or "
			 "past 2^62 ns (146 years), which no perf clock reaches", cv->input,
			 (unsigned long long)cv->lineno, (unsigned long long)(l->ts / 1000000000u),
			 (unsigned long long)(l->ts % 1000000000u));
		return CONV_ERR_TIME;
	}
	if (!dso_columns_kept(cv, l))
		return skip(cv, SKIP_DSO_COLUMN, s, len);
	if (!time_column_kept(cv, l))
		return skip(cv, SKIP_TIME_COLUMN, s, len);
	if (l->kind != CONV_LINE_CHAIN && l->kind != CONV_LINE_BAD) {
		int e = sample_done(cv);

		if (e)
			return e;
	}
	/* a signal comes from the switch records' ring: no sign of time passing */
	if (cv->nheld && l->has_time && l->kind != CONV_LINE_SWITCH && l->kind != CONV_LINE_EXIT &&
	    l->kind != CONV_LINE_BAD && !(l->kind == CONV_LINE_SAMPLE && is_signal(l))) {
		cv->release_due = held_for_sample(cv, l);
		if (!cv->release_due)
			release_switches(cv, l->ts);
	}
	switch (l->kind) {
	case CONV_LINE_BRANCH:
		return branch_line(cv, l, s, len);
	case CONV_LINE_CHAIN:
		if (!cv->sample.open && !cv->seen_branch && cv->c.stats.samples == 0)
			return missing_column(cv, cv->lineno, "a header (pid/tid, time, event) before each call "
					      "chain", PERFCMD_SAMPLES);
		if (!cv->sample.open)
			return skip(cv, SKIP_ORPHAN_CHAIN, s, len);
		if (cv->sample.header_loc)
			chain_after_header_loc(&cv->sample);
		return add_frame(cv, &l->from);
	case CONV_LINE_SAMPLE:
		return sample_line(cv, l, s, len);
	case CONV_LINE_ERROR:
		return error_line(cv, l);
	case CONV_LINE_SWITCH:
		return switch_line(cv, l);
	case CONV_LINE_EXIT:
		return exit_line(cv, l);
	case CONV_LINE_AUX:
		return aux_line(cv, l);
	case CONV_LINE_BLANK:
	case CONV_LINE_TOO_LONG:	/* refused above */
		return CONV_OK;
	case CONV_LINE_UNKNOWN_FLAG:
		return skip(cv, SKIP_UNKNOWN_FLAG, s, len);
	case CONV_LINE_BAD:
		if (l->cr_joined) {
			snprintf(cv->message, sizeof(cv->message), "%s:%llu: a carriage return "
				 "between two perf script lines: the text has CR-only line ends; "
				 "expected LF or CR LF (convert with: tr '\\r' '\\n')", cv->input,
				 (unsigned long long)cv->lineno);
			return CONV_ERR_LINE_ENDS;
		}
		if (!cv->seen_branch && l->has_time && l->flags)
			return missing_column(cv, cv->lineno, "the ip and addr columns (IP SYM => IP SYM)",
					      PERFCMD_BRANCHES);
		if (!cv->seen_branch && cv->c.stats.samples == 0 && !cv->sample.open &&
		    memmem(s, len, "=>", 2))
			return missing_column(cv, cv->lineno, "the pid/tid and time columns", PERFCMD_BRANCHES);
		return skip(cv, SKIP_BAD_LINE, s, len);
	}
	return CONV_OK;
}

/* E, or CONV_ERR_NOMEM when an allocation failed (sticky: state.h "Errors"). */
static int nomem_checked(const struct conv_driver *cv, int e)
{
	return e ? e : cv->c.nomem ? CONV_ERR_NOMEM : CONV_OK;
}

int conv_driver_parsed(struct conv_driver *cv, const struct conv_line *l)
{
	return nomem_checked(cv, parsed(cv, l));
}

/* Ends T's part of an input as conv_driver_snapshot() says it passes on to
 * the next (enum timeline_next: a sampled thread's stack carries into the
 * next snapshot of its recording directory, and off the CPU into the next
 * of the files given in a row, where the frames of one on the CPU end by
 * its first event, t->close_pending: ended here, they would run a period
 * past its last sample, into the next file's switch records; the rest ends
 * here). All ends with the last input. */
static void thread_end_input(struct conv *c, struct conv_thread *t)
{
	uint64_t end;

	release_held(c, t);
	if (!c->last_input && !t->has_branches && c->next_input != TIMELINE_END) {
		t->close_pending = c->next_input == TIMELINE_FILE && !t->offcpu_open;
		return;
	}
	if (t->npending)
		flush_pending(c, t, t->pending_ts);
	end = t->last_ts > t->now ? t->last_ts : t->now;
	/* off the CPU for as long as perf is known to have recorded it
	 * (known_ends()); what came after is not known, and not drawn */
	if (t->offcpu_open && t->known_end > end)
		end = t->known_end;
	if (t->has_branches)
		conv_stack_close(c, t, end);
	else
		conv_chain_close(c, t, end, true);
	t->now = end;
}

int conv_driver_end(struct conv_driver *cv)
{
	cv->c.last_input = true;
	conv_threads_each(&cv->c, thread_end_input);
	for (size_t i = 0; cv->c.cut.start && i < cv->c.nthreads; i++)
		cv->c.stats.cut_unstopped += cv->c.threads[i]->cut_in && cv->c.threads[i]->cut_counted;
	for (size_t i = 0; i < cv->c.nrecs; i++)
		if (!conv_markers_write(&cv->c, cv->c.recs[i], cv->message, sizeof(cv->message)))
			return CONV_ERR_INPUT;
	conv_sigmarks_write(&cv->c);
	conv_sigmarks_report(&cv->c, false);
	conv_threads_each(&cv->c, conv_complete_flush);
	return nomem_checked(cv, CONV_OK);
}

/* Extends each thread's known_end to where perf is known to have recorded
 * it in the input that ends: the input's last record (of any thread), or
 * later where record.json says perf still recorded (the hit that took the
 * snapshot, or when the recorder asked for it), for a thread of its
 * timeline (one recording directory's snapshots: perf's ring ran on
 * between them) or of a process with a record in it. Another recording's
 * input, or a file of another program given in a row, says nothing of it. */
static void known_ends(struct conv *c)
{
	uint64_t end = c->input_max_ts > c->snap_live ? c->input_max_ts : c->snap_live;

	for (size_t i = 0; i < c->nthreads; i++) {
		const struct conv_thread *t = c->threads[i];

		if (t->seen_input != c->input_no || t->proc_input == c->input_no)
			continue;
		for (size_t j = 0; j < c->nthreads; j++)
			if (c->threads[j]->pid == t->pid)
				c->threads[j]->proc_input = c->input_no;
	}
	for (size_t i = 0; i < c->nthreads; i++) {
		struct conv_thread *t = c->threads[i];

		if ((t->proc_input == c->input_no || t->seen_timeline == c->timeline_no) &&
		    end > t->known_end)
			t->known_end = end;
	}
}

int conv_driver_end_input(struct conv_driver *cv)
{
	struct conv *c = &cv->c;
	int e = sample_done(cv);
	const char *mode;
	bool sampling;

	c->maps = NULL;	/* the input's, which its last sample has read */
	if (e)
		return e;
	release_switches(cv, UINT64_MAX);
	known_ends(c);
	conv_threads_each(c, thread_end_input);
	if (c->srcline)	/* the input's directory goes with it */
		srcline_set_dir(c->srcline, -1);
	if (c->cut_nomem)
		return CONV_ERR_NOMEM;	/* a slice the cut could not keep: nesting lost */
	/* Errors without a time in threads that never had one. */
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i]->nearly_errors)
			thread_starts(c, c->threads[i], cv->c.max_ts);
	/* How the slices so far were made, for readers such as snaptrace-stats:
	 * any sampled call chain makes some slices time on the stack; without
	 * branches, switches alone (sched_switch samples, switch records of a
	 * thread that slept) come from a sampling recording too. An input with
	 * none of them (an empty snapshot) says how its perf.data was recorded,
	 * as its events do (new-user check 16: an empty trace of a sampling
	 * recording was one that "does not say how it was made"). */
	sampling = c->stats.samples || (!c->stats.branches && cv->seen_switch);
	mode = sampling ? FXT_MODE_SAMPLING : c->stats.branches ? FXT_MODE_PT : cv->evlist_mode;
	if (mode)
		fxt_writer_info(c->w, fxt_writer_cstring(c->w, FXT_INFO_NAME),
				fxt_writer_cstring(c->w, FXT_INFO_MODE), fxt_writer_cstring(c->w, mode));
	return nomem_checked(cv, CONV_OK);
}

void conv_driver_free(struct conv_driver *cv)
{
	if (!cv)
		return;
	conv_threads_free(&cv->c);
	conv_funcs_free(&cv->c);
	conv_chaincheck_free(&cv->c);
	conv_sigmarks_free(&cv->c);
	conv_measured_free(&cv->c);
	conv_perfmaps_free(&cv->c);
	conv_plts_free(&cv->c);
	free(cv->c.recs);
	free(cv->sample.frames);
	free(cv->held);
	free(cv);
}
