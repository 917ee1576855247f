/* SPDX-License-Identifier: MIT */
/*
 * The branch stack machine: docs/design.md "Stack reconstruction" (the
 * rules) and "Ordering in the file" (this comment), applied to one thread's
 * branches in time order.
 *
 * Ordering in the file: Perfetto sorts a thread's events by (timestamp, file
 * order) and an end closes the innermost open slice. Every event is written
 * at its own time, in order, except frames inferred below the bottom of the
 * stack (the trace began mid-stack): those are discovered late, innermost
 * first, but must begin before everything of their segment. The k-th such
 * frame of a segment begins k ns before the segment's first time, so that
 * each outer frame sorts strictly before the frames it encloses. A segment
 * after a closed one (a decode error, a new input) must also not begin
 * before the closing time (its floor), or an earlier frame's end would close
 * it: its events are moved up to floor + CONV_INFERRED_ROOM_NS when they come
 * earlier (driver.c), so that the room is always there. After a decode
 * error the frames begin next to the error, the k-th at
 * floor + CONV_INFERRED_ROOM_NS - k.
 */
#include "stack.h"

#include "cut.h"
#include "funcs.h"
#include "measured.h"
#include "threads.h"

#include "array.h"
#include <stdlib.h>

#define MAX_INSN_LEN 15	/* longest x86 instruction: return address - call site */

static bool frame_push(struct conv_thread *t, const struct conv_frame *f)
{
	struct conv_frame *s = array_grow(t->stack, &t->capstack, t->depth, sizeof(*s));

	if (!s)
		return false;
	t->stack = s;
	t->stack[t->depth++] = *f;
	return true;
}

/* Would a slice at stack index I be nested too deep for Perfetto? */
static bool too_deep(const struct conv_thread *t, size_t i)
{
	unsigned reserve = t->seg_inferred < CONV_BOTTOM_RESERVE ?
		CONV_BOTTOM_RESERVE - t->seg_inferred : 0;

	return i + reserve >= CONV_MAX_DEPTH;
}

/* How a frame comes on the stack. */
enum push_kind {
	PUSH_CALL,       /* a call seen in the trace */
	PUSH_INFERRED,   /* a call that was missed: on top, now */
	PUSH_BOTTOM,     /* below everything of the segment (empty stack), early */
};

static void push_frame(struct conv *c, struct conv_thread *t, const struct conv_site *site,
		       const struct conv_site *callsite, uint64_t ts, enum push_kind kind,
		       const struct conv_mcall *measured)
{
	struct conv_frame f = {
		.func = site->func,
		.name = conv_func_frame_name(c, site->func, site->ip),
		.ip = site->ip,
		.kernel = site->ip >= CONV_KERNEL_START,
		.entry_off = kind == PUSH_CALL && callsite && site->has_symoff ? site->symoff : 0,
		.sym_start = site->has_symoff && site->ip >= site->symoff ? site->ip - site->symoff : 0,
	};

	if (measured) {
		f.measured_entry = measured->entry;
		f.measured_end = measured->ret > measured->entry ? measured->ret : measured->entry + 1;
		f.mfunc = measured->mfunc;
		f.measured_thrown = measured->thrown;
		f.measured_caller = measured->caller;
	}
	if (callsite)
		f.callsite = *callsite;
	if (kind == PUSH_CALL)
		conv_cut_call(c, t, site->func, ts);
	/* A bottom frame deepens every frame written in its segment by one. */
	f.hidden = kind == PUSH_BOTTOM ? t->seg_levels >= CONV_MAX_DEPTH : too_deep(t, t->depth);
	if (!frame_push(t, &f)) {
		c->nomem = true;
		return;
	}
	if (f.hidden) {
		c->stats.deep_slices++;
		return;
	}
	if (kind == PUSH_BOTTOM)
		t->seg_levels++;
	else if (t->depth > t->seg_levels)
		t->seg_levels = (unsigned)t->depth;
	conv_emit_begin(c, t, &f, ts, kind != PUSH_CALL);
}

void conv_stack_push(struct conv *c, struct conv_thread *t, const struct conv_site *site,
		     const struct conv_site *callsite, uint64_t ts)
{
	push_frame(c, t, site, callsite, ts, PUSH_CALL, NULL);
}

void conv_stack_push_measured(struct conv *c, struct conv_thread *t, const struct conv_site *site,
			      const struct conv_mcall *m, uint64_t ts)
{
	push_frame(c, t, site, NULL, ts, PUSH_CALL, m);
}

void conv_stack_pop(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (t->depth == 0)
		return;
	conv_offcpu_end(c, t, ts);
	t->depth--;
	if (!t->stack[t->depth].hidden)
		conv_emit_end(c, t, t->stack[t->depth].name, ts);
}

/* Time for the k-th frame inferred below the bottom of the stack in this
 * segment (see the top). */
static uint64_t bottom_time(struct conv *c, struct conv_thread *t)
{
	uint64_t k = ++t->seg_inferred;

	if (t->seg_error) {
		if (k <= CONV_INFERRED_ROOM_NS)
			return t->seg_floor + CONV_INFERRED_ROOM_NS - k;
	} else if (k <= t->seg_first - t->seg_floor) {
		return t->seg_first - k;
	}
	c->stats.unordered_inferred++;
	return t->seg_floor;
}

/* Pushes SITE's function as an inferred frame: below everything of the
 * segment when the stack is empty, else on top at NOW. */
static void push_inferred(struct conv *c, struct conv_thread *t, const struct conv_site *site,
			  uint64_t now)
{
	if (t->depth)
		push_frame(c, t, site, NULL, now, PUSH_INFERRED, NULL);
	else
		push_frame(c, t, site, NULL, bottom_time(c, t), PUSH_BOTTOM, NULL);
}

/* Index of the topmost frame of F, or -1. */
static long find_func(const struct conv_thread *t, const struct conv_func *f)
{
	for (size_t i = t->depth; i-- > 0;)
		if (t->stack[i].func == f)
			return (long)i;
	return -1;
}

/* Pops frames until frame I is the top. */
static void unwind_to(struct conv *c, struct conv_thread *t, size_t i, uint64_t now)
{
	while (t->depth > i + 1)
		conv_stack_pop(c, t, now);
}

/* Does a return to TO come back to the call at frame F's call site? */
static bool callsite_matches(const struct conv_frame *f, const struct conv_site *to)
{
	const struct conv_site *cs = &f->callsite;
	uint64_t limit = f->exact_return ? 0 : MAX_INSN_LEN;

	if (!cs->ip)
		return false;
	if (to->ip - cs->ip <= limit)
		return true;
	return cs->func == to->func && cs->has_symoff && to->has_symoff &&
	       to->symoff - cs->symoff <= limit;
}

/*
 * Makes SITE's function the top frame: unwinds to it when it is deeper, else
 * pushes it as an inferred frame. For a branch's source: returns were
 * missed, or a call was. For a return's target: the function returned into.
 */
static void make_top(struct conv *c, struct conv_thread *t, const struct conv_site *site,
		     uint64_t now)
{
	long i;

	if (!site->ip)
		return;
	if (t->depth && t->stack[t->depth - 1].func == site->func)
		return;
	i = find_func(t, site->func);
	if (i >= 0)
		unwind_to(c, t, (size_t)i, now);
	else
		push_inferred(c, t, site, now);
}

static void do_call(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		    uint64_t now)
{
	struct conv_frame *top;

	/* "call next" and PC thunks: a call into the middle of the caller. */
	if (b->from.func == b->to.func && b->to.has_symoff && b->to.symoff != 0)
		return;
	if (t->depth)	/* at the start of a segment a call pushes only its target */
		make_top(c, t, &b->from, now);
	push_frame(c, t, &b->to, &b->from, now, PUSH_CALL, NULL);
	if (t->depth == 0)
		return;
	top = &t->stack[t->depth - 1];
	top->exact_return = (b->flags & CONV_F_HW_INT) != 0;
}

static void do_return(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		      uint64_t now)
{
	long i;

	for (i = (long)t->depth - 1; i >= 0; i--)
		if (callsite_matches(&t->stack[i], &b->to))
			break;
	if (i >= 0) {
		unwind_to(c, t, (size_t)i, now);
		conv_stack_pop(c, t, now);
	} else if (b->from.ip) {
		i = find_func(t, b->from.func);
		if (i >= 0) {
			unwind_to(c, t, (size_t)i, now);
			conv_stack_pop(c, t, now);
		} else if (t->depth == 0) {
			/* Past the bottom: what returned ran since the segment began. */
			push_inferred(c, t, &b->from, now);
			conv_stack_pop(c, t, now);
		}
	}
	/* sysret/iret to user space leave the kernel entirely. */
	if ((b->flags & (CONV_F_SYSRET | CONV_F_IRET)) && b->to.ip && b->to.ip < CONV_KERNEL_START)
		while (t->depth && t->stack[t->depth - 1].kernel)
			conv_stack_pop(c, t, now);
	make_top(c, t, &b->to, now);
}

/* jmp/jcc to another function (same-function jumps never get here), and
 * "tr strt" into known code (SOURCE_KNOWN false). */
static void do_jump(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		    uint64_t now, bool source_known)
{
	struct conv_site callsite = { 0 };
	long i;

	if (!b->to.ip)
		return;
	if (source_known)
		make_top(c, t, &b->from, now);
	if (t->depth == 0) {
		push_inferred(c, t, &b->to, now);
		return;
	}
	if (t->stack[t->depth - 1].func == b->to.func)
		return;
	if (!(b->to.has_symoff && b->to.symoff == 0)) {
		i = find_func(t, b->to.func);
		if (i >= 0) {	/* non-local exit: longjmp, exception landing pad */
			unwind_to(c, t, (size_t)i, now);
			return;
		}
	}
	/* Tail call (or a jump to code we cannot place): replace the top; the
	 * new frame inherits the call site so the later return still matches. */
	callsite = t->stack[t->depth - 1].callsite;
	conv_stack_pop(c, t, now);
	push_frame(c, t, &b->to, &callsite, now, PUSH_CALL, NULL);
}

static void open_gap(struct conv *c, struct conv_thread *t, bool syscall, uint64_t now)
{
	struct conv_frame gap = { .name = syscall ? c->s_syscall : c->s_untraced };

	if (t->depth == 0 || too_deep(t, t->depth))
		return;	/* nothing to hang it on, or too deep to be shown */
	if (t->depth + 1 > t->seg_levels)
		t->seg_levels = (unsigned)t->depth + 1;
	conv_emit_begin(c, t, &gap, now, false);
	t->gap_open = true;
}

static void close_gap(struct conv *c, struct conv_thread *t, uint64_t now)
{
	conv_offcpu_end(c, t, now);	/* nested in the gap */
	if (!t->gap_open)
		return;
	t->gap_open = false;
	conv_emit_end(c, t, 0, now);
}

void conv_offcpu_begin(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_offcpu *off)
{
	size_t depth = t->depth + t->gap_open;
	struct fxt_arg args[5];
	unsigned n = 0;

	if (t->offcpu_open || (depth && too_deep(t, depth)))
		return;
	if (off->state_known)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_state,
			.str = off->preempted ? c->s_preempted : c->s_blocked };
	if (off->prev_state[0])
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_prev_state,
			.str = fxt_writer_cstring(c->w, off->prev_state) };
	if (off->syscall)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_syscall_arg,
			.str = off->syscall };
	if (off->kernel_function)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING,
			.name = c->s_kernel_function, .str = off->kernel_function };
	if (off->tracer)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_tracer,
					      .str = off->tracer };
	t->offcpu_tracer = off->tracer != 0;
	if (depth + 1 > t->seg_levels)
		t->seg_levels = (unsigned)depth + 1;
	conv_emit_slice_begin(c, t, c->s_offcpu, ts, args, n);
	t->offcpu_open = true;
	t->offcpu_since = ts;
}

void conv_offcpu_end(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (!t->offcpu_open)
		return;
	t->offcpu_open = false;
	if (ts < t->offcpu_since)
		ts = t->offcpu_since;
	t->offcpu_ns += ts - t->offcpu_since;
	if (t->offcpu_tracer)
		t->tracer_ns += ts - t->offcpu_since;
	conv_emit_end(c, t, c->s_offcpu, ts);
}

void conv_stack_branch(struct conv *c, struct conv_thread *t, const struct conv_branch *b,
		       uint64_t now)
{
	uint32_t f = b->flags;

	close_gap(c, t, now);
	if (f & CONV_F_TRACE_END) {
		/* "tr end X": X's own meaning where its target is known, then a gap. */
		if (b->to.ip && (f & ~(CONV_F_TRACE_END | CONV_F_TRACE_BEGIN | CONV_F_IN_TX)))
			conv_stack_branch(c, t, &(struct conv_branch){
				.flags = f & ~(CONV_F_TRACE_END | CONV_F_TRACE_BEGIN),
				.from = b->from, .to = b->to }, now);
		else
			make_top(c, t, &b->from, now);
		open_gap(c, t, (f & CONV_F_SYSCALL) != 0, now);
	} else if (f & CONV_F_TRACE_BEGIN) {
		do_jump(c, t, b, now, false);
	} else if (f & CONV_F_PUSH) {
		do_call(c, t, b, now);
	} else if (f & CONV_F_POP) {
		do_return(c, t, b, now);
	} else {
		do_jump(c, t, b, now, true);
	}
}

void conv_stack_close(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	close_gap(c, t, ts);
	while (t->depth)
		conv_stack_pop(c, t, ts);
	t->seg_started = false;
	t->seg_inferred = 0;
	t->seg_levels = 0;
	t->seg_floor = t->last_end > ts ? t->last_end : ts;
	t->seg_after_close = true;
	t->seg_error = false;
}

void conv_stack_error(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts)
{
	conv_stack_close(c, t, ts);
	conv_emit_instant(c, t, name, ts, NULL, 0);
	c->stats.decode_errors++;
	t->seg_error = true;
}
