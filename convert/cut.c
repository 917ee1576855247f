/* SPDX-License-Identifier: MIT */
/*
 * The cut: --filter START,STOP and --window BEFORE[,AFTER] keep only some
 * intervals of each thread's time (docs/design.md "Cutting at edges").
 * Every event of a thread's track passes here (threads.c); the stack machine
 * and the call-chain builder run as if nothing were cut. The thread's
 * slices that are open in the uncut trace are mirrored here, ordered as
 * Perfetto nests them (by begin time: an end closes the last). When a kept
 * interval ends, every open slice written so far ends at the edge; when one
 * starts, every open slice begins at the edge, outermost first, so that the
 * nesting at both edges is the uncut trace's. Memory: the open slices of
 * each thread (its stack depth).
 */
#include "cut.h"

#include "array.h"
#include "complete.h"
#include "demangle.h"
#include "funcs.h"
#include "numparse.h"
#include <stdlib.h>
#include <string.h>

/* Writes EV (the koids set), an event of T's track (complete.c) or of
 * another track (T NULL), and counts what the output holds. */
static void write_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	if (t)
		conv_complete_event(c, t, ev);
	else
		fxt_writer_event(c->w, ev);
	if (ev->type == FXT_EVENT_BEGIN)
		c->stats.slices++;
	else if (ev->type == FXT_EVENT_INSTANT)
		c->stats.instants++;
}

/* Counts T's kept interval when it writes its first event. */
static void kept(struct conv *c, struct conv_thread *t)
{
	if (!t->cut_counted)
		c->stats.cut_intervals++;
	t->cut_counted = true;
}

static void write_begin(struct conv *c, struct conv_thread *t, const struct conv_cut_slice *s,
			uint64_t ts)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_BEGIN, .ts = ts, .process_koid = t->pkoid,
		.thread_koid = t->tkoid, .category = s->category, .name = s->name,
		.args = s->args, .nargs = s->nargs,
	};

	kept(c, t);
	write_event(c, t, &ev);
}

static void write_end(struct conv *c, struct conv_thread *t, fxt_string_id name,
		      uint64_t ts)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_END, .ts = ts, .process_koid = t->pkoid,
		.thread_koid = t->tkoid, .name = name,
	};

	write_event(c, t, &ev);
}

/* A kept interval of T starts at TS: every open slice begins there. */
static void edge_open(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	t->cut_in = true;
	t->cut_edge = ts;
	t->cut_early = 0;
	t->cut_counted = false;
	for (size_t i = 0; i < t->ncut_open; i++) {
		write_begin(c, t, &t->cut_open[i], ts);
		t->cut_open[i].written = t->cut_open[i].kept = true;
	}
}

/* T's kept interval ends at TS: every slice written and open ends there,
 * innermost first. */
static void edge_close(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	if (ts < t->cut_edge)
		ts = t->cut_edge;
	for (size_t i = t->ncut_open; i-- > 0;) {
		if (t->cut_open[i].written)
			write_end(c, t, t->cut_open[i].name, ts);
		t->cut_open[i].written = false;
	}
	t->cut_in = false;
	t->cut_floor = ts;
}

/* Moves T's windows on to time TS: closes the window it is in when TS is
 * past it, opens each window TS reached (a window it passed whole is opened
 * and closed: its open slices span it). */
static void advance(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	t->cut_pos = ts;
	while (t->cut_window < c->cut.nwindows) {
		const struct conv_window *w = &c->cut.windows[t->cut_window];

		if (t->cut_in) {
			if (ts <= w->hi)
				return;
			edge_close(c, t, w->hi);
			t->cut_window++;
		} else {
			if (ts < w->lo)
				return;
			edge_open(c, t, w->lo);
		}
	}
}

/* The time a begin at TS is written at in T's kept interval: TS, or for a
 * slice found to have begun before the edge (a frame inferred below the
 * stack), just before the edge, the k-th such at edge - k, so that it
 * encloses what began at the edge (as stack.c orders inferred frames). */
static uint64_t begin_time(struct conv_thread *t, uint64_t ts)
{
	uint64_t k;

	if (ts >= t->cut_edge)
		return ts;
	k = ++t->cut_early;
	return t->cut_edge - t->cut_floor > k ? t->cut_edge - k : t->cut_edge;
}

/* Mirrors a begin: inserted after every open slice that begins no later. */
static void open_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	struct conv_cut_slice *s = array_grow(t->cut_open, &t->capcut_open, t->ncut_open,
					      sizeof(*s));
	size_t i = t->ncut_open;

	if (!s) {
		c->cut_nomem = true;	/* the conversion fails at the input's end */
		return;
	}
	t->cut_open = s;
	while (i > 0 && s[i - 1].ts > ev->ts)
		i--;
	memmove(&s[i + 1], &s[i], (t->ncut_open - i) * sizeof(*s));
	t->ncut_open++;
	s += i;
	*s = (struct conv_cut_slice){
		.ts = ev->ts, .name = ev->name, .category = ev->category,
		.nargs = ev->nargs < CONV_CUT_ARGS ? ev->nargs : CONV_CUT_ARGS,
	};
	if (s->nargs)	/* a begin without arguments may have no array */
		memcpy(s->args, ev->args, s->nargs * sizeof(s->args[0]));
	if (t->cut_in) {
		write_begin(c, t, s, begin_time(t, ev->ts));
		s->written = s->kept = true;
	}
}

/* Mirrors an end: the innermost open slice ends. */
static void close_slice(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	struct conv_cut_slice *s;

	if (!t->ncut_open)
		return;
	s = &t->cut_open[--t->ncut_open];
	if (s->written)
		write_end(c, t, ev->name, ev->ts > t->cut_edge ? ev->ts : t->cut_edge);
	else if (!s->kept)
		c->stats.cut_dropped++;
}

void conv_cut_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	if (!c->cut.on) {
		write_event(c, t, ev);
		return;
	}
	if (c->cut.nwindows && ev->ts > t->cut_pos)
		advance(c, t, ev->ts);
	switch (ev->type) {
	case FXT_EVENT_BEGIN:
		open_slice(c, t, ev);
		break;
	case FXT_EVENT_END:
		close_slice(c, t, ev);
		break;
	default:	/* instants and counters: at their time only */
		if (t->cut_in && ev->ts >= t->cut_edge) {
			kept(c, t);
			write_event(c, t, ev);
		}
		else if (ev->type == FXT_EVENT_INSTANT)
			c->stats.cut_dropped_instants++;
		break;
	}
}

/* Does a kept interval of T hold TS? --window: one of the windows (the
 * same for every thread); --filter: T's interval open now, from its edge. */
static bool holds(const struct conv *c, const struct conv_thread *t, uint64_t ts)
{
	size_t lo = 0, hi = c->cut.nwindows;

	if (!hi)
		return t->cut_in && ts >= t->cut_edge;
	while (lo < hi) {	/* the first window ending at or after TS */
		size_t mid = lo + (hi - lo) / 2;

		if (c->cut.windows[mid].hi < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->cut.nwindows && c->cut.windows[lo].lo <= ts;
}

void conv_cut_track_event(struct conv *c, struct conv_thread *t, const struct fxt_event *ev)
{
	if (c->cut.on && !holds(c, t, ev->ts)) {
		c->stats.cut_dropped_events++;
		return;
	}
	write_event(c, NULL, ev);
}

/* Is F's symbol NAME (LEN bytes) but for a symbol version either has
 * (symbol_version_matches()), or NAME one of several overloads' (perf's
 * name: F's without its parameter list, a Rust instance's without its
 * hash, a C static function's without its file: conv_func_overload())? */
static bool func_is(const struct conv_func *f, const char *name, size_t len)
{
	char sym[CONV_NAME_MID_MAX + 1], plain[sizeof(sym)];

	if (!name || !f || f->unknown)
		return false;
	if (symbol_version_matches(f->key, f->symlen, name, len))
		return true;
	if (f->symlen >= len && !memcmp(f->key, name, len) &&
	    (f->symlen == len || (f->overload && f->key[len] == '(' && !memchr(name, '(', len))))
		return true;
	if (!f->overload || f->symlen >= sizeof(sym))
		return false;
	memcpy(sym, f->key, f->symlen);
	sym[f->symlen] = '\0';
	return demangled_perf_name(sym, plain, sizeof(plain)) && strlen(plain) == len &&
	       !memcmp(plain, name, len);
}

void conv_cut_call(struct conv *c, struct conv_thread *t, const struct conv_func *f, uint64_t ts)
{
	const struct conv_cut *cut = &c->cut;

	if (!cut->start)
		return;
	if (!t->cut_in && func_is(f, cut->start, cut->start_len))
		edge_open(c, t, ts);
	else if (t->cut_in && func_is(f, cut->stop, cut->stop_len))
		edge_close(c, t, ts);
}

/* Orders windows by their start. */
static int window_cmp(const void *a, const void *b)
{
	const struct conv_window *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

size_t conv_cut_windows(struct conv_window *w, size_t n)
{
	size_t m = 0;

	array_sort(w, n, sizeof(*w), window_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && w[i].lo <= w[m - 1].hi) {
			if (w[i].hi > w[m - 1].hi)
				w[m - 1].hi = w[i].hi;
		} else {
			w[m++] = w[i];
		}
	}
	return m;
}

/* Brackets a symbol's comma may sit in: C++ templates and parameter lists,
 * perf's "[unknown]"-style names. */
static int bracket_depth(char ch)
{
	return ch == '(' || ch == '<' || ch == '[' ? 1 : ch == ')' || ch == '>' || ch == ']' ? -1 : 0;
}

int conv_cut_parse_filter(const char *arg, struct conv_cut *cut)
{
	const char *comma = NULL;
	int depth = 0;

	for (const char *p = arg; *p; p++) {
		depth += bracket_depth(*p);
		if (*p == ',' && depth == 0) {
			if (comma)
				return -1;
			comma = p;
		}
	}
	if (!comma || comma == arg || !comma[1])
		return -1;
	cut->on = true;
	cut->start = arg;
	cut->start_len = (size_t)(comma - arg);
	cut->stop = comma + 1;
	cut->stop_len = strlen(comma + 1);
	return 0;
}

int conv_cut_parse_window(const char *arg, uint64_t *before, uint64_t *after)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	char b[64];

	if (n >= sizeof(b))
		return -1;
	memcpy(b, arg, n);
	b[n] = 0;
	*after = 0;
	if (num_parse_duration(b, 0, CONV_TS_MAX, before) ||
	    (comma && num_parse_duration(comma + 1, 0, CONV_TS_MAX, after)) ||
	    *before + *after == 0)
		return -1;
	return 0;
}
