// SPDX-License-Identifier: MIT
/*
 * agg: the per-thread stack machine behind snaptrace-stats (see agg.h).
 *
 * Each thread keeps a stack of open slices: a begin (end unknown) or a
 * complete event (end known, popped when an event comes at or after its
 * end). Closing a slice adds its duration to its row and to its parent's
 * time in callees. An event is "late" when it comes before the latest time
 * already seen on its thread; the first pass keeps late events aside
 * (sorted afterwards by time, then file order), and when there are any the
 * second pass merges them in front of the first in-order event that sorts
 * after them, which is Perfetto's order.
 */
#include "agg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fxt_format.h"
#include "fxt_reader.h"
#include "fxt_writer.h"

/* An open slice on a thread's stack. */
struct frame {
	uint32_t row;
	bool pending;      /* a begin, not yet ended */
	bool outer;        /* no activation of the same row below it */
	bool claimed;      /* counted in its row's open count */
	uint64_t begin, end, child_ns;
};

/* An event taken out of file order (see the top of this file). */
struct late {
	uint64_t ts, end_ts;
	size_t record_no;
	uint32_t row;
	enum fxt_event_type type;
};

struct agg_thread {
	uint64_t pid, tid;
	char *name;
	struct frame *stack;   size_t depth, capstack;
	uint64_t max_ts;       /* the latest time of an in-order event */
	bool seen;
	bool events;           /* has events (any, even those --thread leaves out) */
	struct late *late;     size_t nlate, caplate, next_late;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t thread_key_hash(uint64_t pid, uint64_t tid)
{
	return (tid * 0x9e3779b97f4a7c15ull) ^ (pid * 0xc2b2ae3d27d4eb4full);
}

/* Grows the open-addressing table *TAB (slots hold index + 1) to twice its size. */
static int rehash(uint32_t **tab, size_t *cap, size_t n, uint64_t (*key)(const struct agg *, uint32_t),
		  const struct agg *a)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	uint32_t *t = calloc(ncap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		size_t s = key(a, i) & (ncap - 1);

		while (t[s])
			s = (s + 1) & (ncap - 1);
		t[s] = i + 1;
	}
	free(*tab);
	*tab = t;
	*cap = ncap;
	return 0;
}

static uint64_t row_hash(const struct agg *a, uint32_t i)
{
	const struct agg_row *r = &a->rows[i];

	return hash_str(hash_str(thread_key_hash(r->pid, r->tid), r->name) * 31, r->dso);
}

static uint64_t thread_hash(const struct agg *a, uint32_t i)
{
	return thread_key_hash(a->threads[i].pid, a->threads[i].tid);
}

static struct agg_thread *thread_get(struct agg *a, uint64_t pid, uint64_t tid)
{
	size_t s;

	if (a->thread_hash_cap) {
		for (s = thread_key_hash(pid, tid) & (a->thread_hash_cap - 1);
		     a->thread_hash[s]; s = (s + 1) & (a->thread_hash_cap - 1)) {
			struct agg_thread *t = &a->threads[a->thread_hash[s] - 1];

			if (t->pid == pid && t->tid == tid)
				return t;
		}
	}
	if (2 * (a->nthreads + 1) > a->thread_hash_cap &&
	    rehash(&a->thread_hash, &a->thread_hash_cap, a->nthreads, thread_hash, a))
		return NULL;
	struct agg_thread *th = array_grow(a->threads, &a->capthreads, a->nthreads, sizeof(*th));

	if (!th)
		return NULL;
	a->threads = th;
	th = &a->threads[a->nthreads];
	*th = (struct agg_thread){ .pid = pid, .tid = tid };
	for (s = thread_key_hash(pid, tid) & (a->thread_hash_cap - 1); a->thread_hash[s];
	     s = (s + 1) & (a->thread_hash_cap - 1))
		;
	a->thread_hash[s] = (uint32_t)++a->nthreads;
	return th;
}

/* The row of slice NAME/DSO on thread T (its thread only with --by-thread). */
static int row_get(struct agg *a, const struct agg_thread *t, const char *name,
		   const char *dso, uint32_t *out)
{
	uint64_t pid = a->opts.by_thread ? t->pid : 0, tid = a->opts.by_thread ? t->tid : 0;
	uint64_t h = hash_str(hash_str(thread_key_hash(pid, tid), name) * 31, dso);
	struct agg_row *r;
	size_t s;

	if (a->row_hash_cap) {
		for (s = h & (a->row_hash_cap - 1); a->row_hash[s];
		     s = (s + 1) & (a->row_hash_cap - 1)) {
			r = &a->rows[a->row_hash[s] - 1];
			if (r->tid == tid && r->pid == pid && !strcmp(r->name, name) &&
			    !strcmp(r->dso, dso)) {
				*out = a->row_hash[s] - 1;
				return 0;
			}
		}
	}
	if (2 * (a->nrows + 1) > a->row_hash_cap &&
	    rehash(&a->row_hash, &a->row_hash_cap, a->nrows, row_hash, a))
		return -ENOMEM;
	r = array_grow(a->rows, &a->caprows, a->nrows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	a->rows = r;
	r = &a->rows[a->nrows];
	*r = (struct agg_row){ .name = strdup(name), .dso = strdup(dso), .pid = pid, .tid = tid,
			       .hist = HIST_INIT };
	if (!r->name || !r->dso) {
		free(r->name);
		free(r->dso);
		return -ENOMEM;
	}
	for (s = h & (a->row_hash_cap - 1); a->row_hash[s]; s = (s + 1) & (a->row_hash_cap - 1))
		;
	a->row_hash[s] = (uint32_t)(a->nrows + 1);
	*out = (uint32_t)a->nrows++;
	return 0;
}

/* Keeps CALL if it is among the opts.top longest (a min-heap on dur). */
static void keep_call(struct agg *a, struct agg_call call)
{
	struct agg_call *h = a->top;
	size_t i = 0;

	if (a->ntop < a->opts.top) {
		h = array_grow(a->top, &a->captop, a->ntop, sizeof(*h));
		if (!h) {
			a->err = -ENOMEM;
			return;
		}
		a->top = h;
		for (i = a->ntop++; i && h[(i - 1) / 2].dur > call.dur; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = call;
		return;
	}
	if (!a->ntop || call.dur <= h[0].dur)
		return;
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= a->ntop)
			break;
		if (c + 1 < a->ntop && h[c + 1].dur < h[c].dur)
			c++;
		if (h[c].dur >= call.dur)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = call;
}

/* Closes the top frame of T at END. */
static void pop(struct agg *a, struct agg_thread *t, uint64_t end)
{
	struct frame *f = &t->stack[--t->depth];
	struct agg_row *r = &a->rows[f->row];
	uint64_t dur = end > f->begin ? end - f->begin : 0;

	if (f->claimed)
		r->open--;
	if (f->pending && end == UINT64_MAX) {
		a->unended++;
		return;
	}
	a->slices++;
	if (hist_add(&r->hist, dur))
		a->err = -ENOMEM;
	if (f->outer)
		r->total_ns += dur;
	r->self_ns += dur > f->child_ns ? dur - f->child_ns : 0;
	if (t->depth)
		t->stack[t->depth - 1].child_ns += dur;
	if (a->opts.function && !strcmp(r->name, a->opts.function))
		keep_call(a, (struct agg_call){ .begin = f->begin, .dur = dur, .pid = t->pid,
						.tid = t->tid, .dso = r->dso });
}

/* Pops the slices of known end that are over at TS. */
static void pop_ended(struct agg *a, struct agg_thread *t, uint64_t ts)
{
	while (t->depth && !t->stack[t->depth - 1].pending && t->stack[t->depth - 1].end <= ts)
		pop(a, t, t->stack[t->depth - 1].end);
}

static void push(struct agg *a, struct agg_thread *t, uint32_t row, uint64_t begin,
		 uint64_t end, bool pending)
{
	uint32_t self = (uint32_t)(t - a->threads) + 1;
	struct agg_row *r = &a->rows[row];
	struct frame f = { .row = row, .pending = pending, .begin = begin, .end = end };
	struct frame *s;

	if (!r->open || r->open_thread == self) {
		/* the row's activations are all on this thread: count them */
		f.outer = !r->open;
		f.claimed = true;
		r->open_thread = self;
		r->open++;
	} else {
		f.outer = true;
		for (size_t i = 0; i < t->depth && f.outer; i++)
			f.outer = t->stack[i].row != row;
	}
	s = array_grow(t->stack, &t->capstack, t->depth, sizeof(*s));
	if (!s) {
		if (f.claimed)
			r->open--;
		a->err = -ENOMEM;
		return;
	}
	t->stack = s;
	t->stack[t->depth++] = f;
}

/* One event of T in Perfetto's order. */
static void step(struct agg *a, struct agg_thread *t, enum fxt_event_type type, uint64_t ts,
		 uint64_t end_ts, uint32_t row)
{
	pop_ended(a, t, ts);
	switch (type) {
	case FXT_EVENT_BEGIN:
		push(a, t, row, ts, UINT64_MAX, true);
		break;
	case FXT_EVENT_COMPLETE:
		push(a, t, row, ts, end_ts, false);
		break;
	case FXT_EVENT_END: {
		size_t i = t->depth;

		while (i && !t->stack[i - 1].pending)
			i--;
		if (!i)
			break;          /* an end without a begin: Perfetto drops it */
		while (t->depth > i)    /* complete slices lasting past the end: cut */
			pop(a, t, ts);
		pop(a, t, ts);
		break;
	}
	case FXT_EVENT_INSTANT:
	case FXT_EVENT_COUNTER:
	case FXT_EVENT_ASYNC_INSTANT:
		break;
	}
}

static int cmp_late(const void *x, const void *y)
{
	const struct late *p = x, *q = y;

	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	return p->record_no < q->record_no ? -1 : p->record_no > q->record_no;
}

/* Second pass: the late events of T that sort before (TS, RECORD_NO). */
static void merge_late(struct agg *a, struct agg_thread *t, uint64_t ts, size_t record_no)
{
	while (t->next_late < t->nlate) {
		const struct late *l = &t->late[t->next_late];

		if (l->ts > ts || (l->ts == ts && l->record_no > record_no))
			break;
		step(a, t, l->type, l->ts, l->end_ts, l->row);
		t->next_late++;
	}
}

static int keep_late(struct agg_thread *t, const struct fxt_revent *ev, uint32_t row)
{
	struct late *l = array_grow(t->late, &t->caplate, t->nlate, sizeof(*l));

	if (!l)
		return -ENOMEM;
	t->late = l;
	t->late[t->nlate++] = (struct late){ .ts = ev->ts, .end_ts = ev->end_ts,
					     .record_no = ev->record_no, .row = row,
					     .type = ev->type };
	return 0;
}

static int on_event(void *ctx, const struct fxt_revent *ev)
{
	struct agg *a = ctx;
	struct agg_thread *t;
	uint32_t row = 0;
	bool late;

	if (ev->ts < a->first_ts)
		a->first_ts = ev->ts;
	if (ev->type == FXT_EVENT_COUNTER || ev->type == FXT_EVENT_ASYNC_INSTANT)
		return 0;	/* not on the thread's track */
	t = thread_get(a, ev->process_koid, ev->thread_koid);
	if (!t)
		return -ENOMEM;
	t->events = true;
	if (a->opts.one_thread && ev->thread_koid != a->opts.tid)
		return 0;
	if ((ev->type == FXT_EVENT_BEGIN || ev->type == FXT_EVENT_COMPLETE) &&
	    row_get(a, t, ev->name, ev->category, &row))
		return -ENOMEM;
	late = t->seen && ev->ts < t->max_ts;
	if (!late) {
		t->seen = true;
		t->max_ts = ev->ts;
	}
	if (late && !a->merging) {
		if (keep_late(t, ev, row))
			return -ENOMEM;
	} else if (!late) {
		if (a->merging)
			merge_late(a, t, ev->ts, ev->record_no);
		step(a, t, ev->type, ev->ts, ev->end_ts, row);
	}
	return a->err;
}

/* Adds an ended fact: "; " between several. Returns 0 or -ENOMEM. */
static int add_ended(struct agg *a, const char *text)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a->ended ? a->ended : "", a->ended ? "; " : "", text) < 0)
		return -ENOMEM;
	free(a->ended);
	a->ended = s;
	return 0;
}

static int on_kobj(void *ctx, const struct fxt_rkobj *k)
{
	struct agg *a = ctx;
	char **dst = NULL;
	const char *value = k->name;

	if (k->obj_type == FXT_ZX_OBJ_THREAD) {
		struct agg_thread *t = thread_get(a, k->process, k->koid);

		if (!t)
			return -ENOMEM;
		dst = &t->name;
	} else if (k->obj_type == FXT_ZX_OBJ_NONE && !strcmp(k->name, FXT_INFO_NAME)) {
		for (unsigned i = 0; i < k->nargs; i++) {
			if (k->args[i].type != FXT_ARG_STRING)
				continue;
			if (!strcmp(k->args[i].name, FXT_INFO_MODE)) {
				dst = &a->mode;
				value = k->args[i].str;
			} else if (!strcmp(k->args[i].name, FXT_INFO_ENDED) && !a->merging) {
				return add_ended(a, k->args[i].str);
			}
		}
	}
	if (!dst)
		return 0;
	free(*dst);
	*dst = strdup(value);
	return *dst ? 0 : -ENOMEM;
}

/* Ends every thread's stack at the end of the file (never-ended begins apart). */
static void finish(struct agg *a)
{
	for (size_t i = 0; i < a->nthreads; i++) {
		struct agg_thread *t = &a->threads[i];

		if (a->merging)
			merge_late(a, t, UINT64_MAX, SIZE_MAX);
		while (t->depth)
			pop(a, t, t->stack[t->depth - 1].pending ? UINT64_MAX :
				  t->stack[t->depth - 1].end);
	}
}

/* Forgets the first pass's counts before the second. */
static void restart(struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++) {
		struct agg_row *r = &a->rows[i];

		hist_free(&r->hist);
		r->total_ns = r->self_ns = 0;
		r->open = 0;
	}
	for (size_t i = 0; i < a->nthreads; i++) {
		struct agg_thread *t = &a->threads[i];

		if (t->nlate)
			qsort(t->late, t->nlate, sizeof(*t->late), cmp_late);
		t->depth = 0;
		t->seen = false;
		t->max_ts = 0;
		t->next_late = 0;
	}
	a->ntop = 0;
	a->slices = a->unended = 0;
	a->merging = true;
}

static int cmp_call(const void *x, const void *y)
{
	const struct agg_call *p = x, *q = y;

	if (p->dur != q->dur)
		return p->dur > q->dur ? -1 : 1;
	return p->begin < q->begin ? -1 : p->begin > q->begin;
}

int agg_read(struct agg *a, const char *path, size_t *nproblems, char *errbuf, size_t errlen)
{
	static const struct fxt_stream_ops ops = { .event = on_event, .kobj = on_kobj };
	struct fxt_trace t;
	size_t late = 0;
	int err;

	a->first_ts = UINT64_MAX;
	a->passes = 1;
	err = fxt_stream_read(path, &ops, a, &t, errbuf, errlen);
	if (err)
		return err;
	*nproblems = t.nproblems;
	fxt_trace_free(&t);
	for (size_t i = 0; i < a->nthreads; i++)
		late += a->threads[i].nlate;
	if (late) {
		restart(a);
		a->passes = 2;
		err = fxt_stream_read(path, &ops, a, &t, errbuf, errlen);
		if (err)
			return err;
		fxt_trace_free(&t);
	}
	finish(a);
	if (a->err) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return a->err;
	}
	if (a->first_ts == UINT64_MAX)
		a->first_ts = 0;
	if (a->ntop)
		qsort(a->top, a->ntop, sizeof(*a->top), cmp_call);
	return 0;
}

const char *agg_thread_name(const struct agg *a, uint64_t pid, uint64_t tid)
{
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].pid == pid && a->threads[i].tid == tid)
			return a->threads[i].name;
	return NULL;
}

bool agg_has_thread(const struct agg *a, uint64_t tid)
{
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].tid == tid && a->threads[i].events)
			return true;
	return false;
}

/* A "the trace has" list being written into a buffer (agg_list_*). */
struct list {
	char *buf;
	size_t len, at, n, shown;
};

/* Counts one more item and writes it (FMT) when there is room for it. */
__attribute__((format(printf, 2, 3)))
static void list_add(struct list *l, const char *fmt, ...)
{
	va_list ap;

	l->n++;
	if (l->shown == AGG_LIST_MAX || l->at >= l->len)
		return;
	if (l->shown)
		l->at += (size_t)snprintf(l->buf + l->at, l->len - l->at, ", ");
	if (l->at < l->len) {
		va_start(ap, fmt);
		l->at += (size_t)vsnprintf(l->buf + l->at, l->len - l->at, fmt, ap);
		va_end(ap);
	}
	l->shown++;
}

static const char *list_end(struct list *l)
{
	if (l->n > l->shown && l->at < l->len)
		snprintf(l->buf + l->at, l->len - l->at, ", ... (%zu in all)", l->n);
	return l->buf;
}

const char *agg_list_threads(const struct agg *a, char *buf, size_t len)
{
	struct list l = { .buf = buf, .len = len };

	buf[0] = '\0';
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].events)
			list_add(&l, "%" PRIu64 "%s%s", a->threads[i].tid,
				 a->threads[i].name ? " " : "",
				 a->threads[i].name ? a->threads[i].name : "");
	return list_end(&l);
}

const char *agg_list_functions(const struct agg *a, char *buf, size_t len)
{
	struct list l = { .buf = buf, .len = len };

	buf[0] = '\0';
	for (size_t i = 0; i < a->nrows; i++)
		if (a->rows[i].hist.total && (i == 0 || strcmp(a->rows[i].name, a->rows[i - 1].name)))
			list_add(&l, "%s", a->rows[i].name);
	return list_end(&l);
}

bool agg_sampled(const struct agg *a)
{
	return a->mode && !strcmp(a->mode, FXT_MODE_SAMPLING);
}

void agg_free(struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++) {
		free(a->rows[i].name);
		free(a->rows[i].dso);
		hist_free(&a->rows[i].hist);
	}
	for (size_t i = 0; i < a->nthreads; i++) {
		free(a->threads[i].name);
		free(a->threads[i].stack);
		free(a->threads[i].late);
	}
	free(a->rows);
	free(a->threads);
	free(a->row_hash);
	free(a->thread_hash);
	free(a->top);
	free(a->mode);
	free(a->ended);
	memset(a, 0, sizeof(*a));
}
