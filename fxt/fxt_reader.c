// SPDX-License-Identifier: MIT
/*
 * fxt_reader: reads an FXT file into a struct fxt_trace, or hands its
 * records one by one to a caller (fxt_stream_read; see fxt_reader.h). The
 * file is read through zlib's gzread, which inflates a gzip stream
 * (recognised by its content, 1f 8b) and passes raw bytes through, into a
 * window of at least one record. Records are then decoded in file order with a string table and a
 * thread table that every string or thread record (re)defines, as
 * Perfetto's tokenizer does; a provider info record starts fresh tables.
 *
 * Whatever Perfetto would drop, misplace or stop at is a problem line, never
 * a failure: only an unreadable file or one without the magic number record
 * is an error.
 */
#include "array.h"
#include "fxt_reader.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fxt_format.h"
#include "fxt_trace_priv.h"
#include "escape.h"
#include "inpath.h"
#include "utf8.h"

/* Arena blocks: the first of ARENA_BLOCK_FIRST bytes, each next one twice
 * the last up to ARENA_BLOCK_MAX (a record larger than that has one of its
 * own): a small trace costs a small arena. */
enum { ARENA_BLOCK_FIRST = 1 << 12, ARENA_BLOCK_MAX = 1 << 16 };

struct fxt_arena_block {
	struct fxt_arena_block *prev;
	size_t used, size;
	_Alignas(8) unsigned char data[];
};

void *fxt_trace_alloc(struct fxt_trace *t, size_t n)
{
	struct fxt_trace_priv *pv = t->priv;
	struct fxt_arena_block *b = pv->arena;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = !b ? ARENA_BLOCK_FIRST :
			b->size < ARENA_BLOCK_MAX ? b->size * 2 : ARENA_BLOCK_MAX;

		if (size < n)
			size = n;
		/* the block a stream gave back, else a new one */
		b = pv->spare && pv->spare->size >= size ? pv->spare : malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		if (b == pv->spare)
			pv->spare = NULL;
		else
			b->size = size;
		b->prev = pv->arena;
		b->used = 0;
		pv->arena = b;
	}
	p = b->data + b->used;
	b->used += n;
	return p;
}

int fxt_trace_problem(struct fxt_trace *t, const char *fmt, ...)
{
	struct fxt_trace_priv *pv = t->priv;
	char text[512], line[4 * sizeof(text)];
	va_list ap;
	size_t len;
	char *s, **arr;

	if (t->nproblems >= FXT_TRACE_PROBLEMS_MAX) {
		/* one line counts the rest, rewritten in place: memory stays bounded */
		if (t->nproblems == FXT_TRACE_PROBLEMS_MAX) {
			arr = array_grow(t->problems, &pv->problems_cap, t->nproblems,
					 sizeof(char *));
			if (!arr)
				return -ENOMEM;
			t->problems = arr;
			t->nproblems++;
		}
		pv->problems_unlisted++;
		snprintf(pv->unlisted_line, sizeof(pv->unlisted_line),
			 "... and %zu more problems not listed", pv->problems_unlisted);
		t->problems[FXT_TRACE_PROBLEMS_MAX] = pv->unlisted_line;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* one line, safe to print, whatever names it quotes */
	len = strlen(esc_str(line, sizeof(line), text, ESC_TEXT)) + 1;
	s = fxt_trace_alloc(t, len);
	if (!s)
		return -ENOMEM;
	memcpy(s, line, len);
	arr = array_grow(t->problems, &pv->problems_cap, t->nproblems, sizeof(char *));
	if (!arr)
		return -ENOMEM;
	t->problems = arr;
	t->problems[t->nproblems++] = s;
	return 0;
}

const char *fxt_event_type_name(enum fxt_event_type type)
{
	switch (type) {
	case FXT_EVENT_INSTANT: return "instant";
	case FXT_EVENT_COUNTER: return "counter";
	case FXT_EVENT_BEGIN: return "begin";
	case FXT_EVENT_END: return "end";
	case FXT_EVENT_COMPLETE: return "complete";
	case FXT_EVENT_ASYNC_INSTANT: return "async_instant";
	}
	return "?";
}

/* A thread's duration begins open in file order: at most FXT_MAX_DEPTH
 * kept; DROPPED more left out, whose ends are left out too. */
struct open_begins {
	uint64_t process_koid, thread_koid;
	uint32_t open, dropped;
};

/* Decoding state: the tables as of the current record, and its cursor. */
struct reader {
	struct fxt_trace *t;
	/* the string table, by index: strtab_cap entries, grown to the highest
	 * index defined (a small trace defines a few of the 32,767) */
	const char **strtab;
	unsigned strtab_cap;
	struct { uint64_t process_koid, thread_koid; bool set; } thrtab[FXT_THREAD_INDEX_MAX + 1];
	uint32_t provider;
	size_t rec;                   /* record number */
	const uint8_t *p, *end;       /* cursor in the current record */
	bool overrun;                 /* the record's content exceeds its size */
	int err;                      /* -ENOMEM, or what a stream callback returned */
	/* streaming (fxt_stream_read): records are handed over, not kept */
	const struct fxt_stream_ops *ops;
	void *ctx;
	char **owned;   /* streaming: strtab's strings, malloc'd (strtab_cap entries) */
	struct open_begins *open;     /* per thread with begins, indexed by OPEN_IX */
	size_t nopen, capopen;
	struct hash_index open_ix;    /* hash_pair(process, thread) -> index in OPEN */
	size_t deep_first;            /* the record of the first begin left out */
};

#define PROBLEM(r, fmt, ...) \
	do { \
		if (fxt_trace_problem((r)->t, "record %zu: " fmt, (r)->rec, __VA_ARGS__)) \
			(r)->err = -ENOMEM; \
	} while (0)

static void note(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct reader *r, const char *fmt, ...)
{
	struct fxt_trace_priv *pv = r->t->priv;
	char line[600];
	struct fxt_note *notes;
	va_list ap;
	char *s;

	if (r->ops)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s = fxt_trace_alloc(r->t, strlen(line) + 1);
	notes = array_grow(pv->notes, &pv->notes_cap, pv->nnotes, sizeof(*pv->notes));
	if (!s || !notes) {
		r->err = -ENOMEM;
		return;
	}
	pv->notes = notes;
	strcpy(s, line);
	pv->notes[pv->nnotes].record_no = r->rec;
	pv->notes[pv->nnotes++].text = s;
}

static uint64_t next_word(struct reader *r)
{
	uint64_t v;

	if (r->end - r->p < 8) {
		r->overrun = true;
		return 0;
	}
	v = fxt_get64(r->p);
	r->p += 8;
	return v;
}

static const char *copy_str(struct reader *r, const uint8_t *s, size_t len)
{
	char *c = fxt_trace_alloc(r->t, len + 1);

	if (!c) {
		r->err = -ENOMEM;
		return "";
	}
	memcpy(c, s, len);
	c[len] = 0;
	return c;
}

/* Reads LEN inline bytes (padded to 8) at the cursor. */
static const char *inline_str(struct reader *r, size_t len)
{
	size_t padded = (len + 7) & ~(size_t)7, bad;
	const char *s;

	if ((size_t)(r->end - r->p) < padded) {
		r->overrun = true;
		return "";
	}
	s = copy_str(r, r->p, len);
	bad = utf8_check((const char *)r->p, len);
	if (bad < len)
		PROBLEM(r, "a string of %zu bytes holds a NUL or ill-formed UTF-8 at byte %zu "
			"(0x%02x): a strict reader rejects the file", len, bad, r->p[bad]);
	r->p += padded;
	return s;
}

/* Resolves string ref REF: empty, inline (bytes at the cursor) or an index. */
static const char *string_ref(struct reader *r, unsigned ref)
{
	char tmp[64];

	if (ref == FXT_STRING_REF_EMPTY)
		return "";
	if (ref & FXT_STRING_REF_INLINE)
		return inline_str(r, ref & FXT_STRING_REF_LEN_MASK);
	if (ref < r->strtab_cap && r->strtab[ref])
		return r->strtab[ref];
	PROBLEM(r, "unregistered string index %u", ref);
	snprintf(tmp, sizeof(tmp), "<unregistered string %u>", ref);
	return copy_str(r, (const uint8_t *)tmp, strlen(tmp));
}

/* Converts TICKS to ns; false when the result does not fit an int64 (Perfetto drops it). */
static bool ticks_to_ns(const struct fxt_trace *t, uint64_t ticks, uint64_t *ns)
{
	unsigned __int128 v = ticks;

	if (t->ticks_per_second != 1000000000)
		v = v * 1000000000 / t->ticks_per_second;
	*ns = (uint64_t)v;
	return v <= INT64_MAX;
}

/*
 * Reads NARGS arguments at the cursor into a new array (*OUT). Int32 and
 * uint32 arguments read back as FXT_ARG_INT64 and FXT_ARG_UINT64; a null
 * argument as the string "null" (as Perfetto shows it).
 */
/* The value of argument X, of FXT type TYPE, header word H (the value's
 * words at the cursor). Returns false for an unknown type. */
static bool read_arg_value(struct reader *r, struct fxt_rarg *x, uint64_t h, unsigned type)
{
	switch (type) {
	case FXT_WARG_NULL:
		x->type = FXT_ARG_STRING;
		x->str = "null";
		return true;
	case FXT_WARG_INT32:
		x->type = FXT_ARG_INT64;
		x->i64 = (int32_t)(uint32_t)FXT_FIELD(h, FXT_ARG_VALUE32_FIRST, FXT_ARG_VALUE32_LAST);
		return true;
	case FXT_WARG_UINT32:
		x->type = FXT_ARG_UINT64;
		x->u64 = FXT_FIELD(h, FXT_ARG_VALUE32_FIRST, FXT_ARG_VALUE32_LAST);
		return true;
	case FXT_WARG_INT64:
		x->type = FXT_ARG_INT64;
		x->i64 = (int64_t)next_word(r);
		return true;
	case FXT_WARG_UINT64:
	case FXT_WARG_POINTER:
	case FXT_WARG_KOID:
		x->type = type == FXT_WARG_UINT64 ? FXT_ARG_UINT64 :
			  type == FXT_WARG_POINTER ? FXT_ARG_POINTER : FXT_ARG_KOID;
		x->u64 = next_word(r);
		return true;
	case FXT_WARG_DOUBLE: {
		uint64_t v = next_word(r);

		x->type = FXT_ARG_DOUBLE;
		memcpy(&x->f64, &v, 8);
		return true;
	}
	case FXT_WARG_STRING:
		x->type = FXT_ARG_STRING;
		x->str = string_ref(r, (unsigned)FXT_FIELD(h, FXT_ARG_STRVAL_FIRST,
							  FXT_ARG_STRVAL_LAST));
		return true;
	case FXT_WARG_BOOL:
		x->type = FXT_ARG_BOOL;
		x->b = FXT_FIELD(h, FXT_ARG_BOOL_BIT, FXT_ARG_BOOL_BIT);
		return true;
	}
	return false;
}

static unsigned read_args(struct reader *r, unsigned nargs, struct fxt_rarg **out)
{
	struct fxt_rarg *a = nargs ? fxt_trace_alloc(r->t, nargs * sizeof(*a)) : NULL;
	unsigned n = 0;

	*out = a;
	if (nargs && !a) {
		r->err = -ENOMEM;
		return 0;
	}
	for (unsigned i = 0; i < nargs && !r->overrun; i++) {
		const uint8_t *base = r->p, *arg_end;
		uint64_t h = next_word(r);
		unsigned type = (unsigned)FXT_FIELD(h, FXT_ARG_TYPE_FIRST, FXT_ARG_TYPE_LAST);
		unsigned size = (unsigned)FXT_FIELD(h, FXT_ARG_SIZE_FIRST, FXT_ARG_SIZE_LAST);
		struct fxt_rarg *x = &a[n];

		if (r->overrun)
			break;
		if (size == 0 || (size_t)(r->end - base) < (size_t)size * 8) {
			PROBLEM(r, "argument %u: size %u words does not fit the record", i, size);
			r->overrun = true;
			break;
		}
		arg_end = base + (size_t)size * 8;
		x->name = string_ref(r, (unsigned)FXT_FIELD(h, FXT_ARG_NAME_FIRST,
							   FXT_ARG_NAME_LAST));
		if (!read_arg_value(r, x, h, type)) {
			PROBLEM(r, "argument %u: unknown argument type %u", i, type);
			r->p = arg_end;
			continue;
		}
		if (r->p != arg_end && !r->overrun) {
			PROBLEM(r, "argument %u (%s): size %u words, content %zu words", i,
				x->name, size, (size_t)(r->p - base) / 8);
			r->p = arg_end;
		}
		n++;
	}
	if (!n)
		*out = NULL;
	return n;
}

/* The open begins of EV's thread (a new entry when it has none), or NULL
 * with R->err -ENOMEM. */
static struct open_begins *open_begins(struct reader *r, const struct fxt_revent *ev)
{
	uint64_t key = hash_pair(ev->process_koid, ev->thread_koid);
	struct open_begins *o;
	size_t probe = 0;
	uint32_t i;

	while ((i = hash_index_next(&r->open_ix, key, &probe)) != HASH_NONE)
		if (r->open[i].process_koid == ev->process_koid &&
		    r->open[i].thread_koid == ev->thread_koid)
			return &r->open[i];
	o = array_grow(r->open, &r->capopen, r->nopen, sizeof(*o));
	if (!o || r->nopen >= HASH_NONE || hash_index_add(&r->open_ix, key, (uint32_t)r->nopen)) {
		r->open = o ? o : r->open;
		r->err = -ENOMEM;
		return NULL;
	}
	r->open = o;
	o[r->nopen] = (struct open_begins){ ev->process_koid, ev->thread_koid, 0, 0 };
	return &o[r->nopen++];
}

/* Whether EV, a duration begin or end, is left out: a begin past
 * FXT_MAX_DEPTH open on its thread, or the end of one. */
static bool too_deep(struct reader *r, const struct fxt_revent *ev)
{
	struct open_begins *o = open_begins(r, ev);

	if (!o)
		return true;
	if (ev->type == FXT_EVENT_BEGIN) {
		if (o->open < FXT_MAX_DEPTH) {
			o->open++;
			return false;
		}
		o->dropped++;
		if (!r->t->deep_begins++)
			r->deep_first = r->rec;
		return true;
	}
	if (o->dropped) {
		o->dropped--;
		return true;
	}
	if (o->open)
		o->open--;
	return false;
}

static void read_event(struct reader *r, uint64_t h)
{
	struct fxt_trace *t = r->t;
	struct fxt_trace_priv *pv = t->priv;
	unsigned type = (unsigned)FXT_FIELD(h, FXT_EVENT_TYPE_FIRST, FXT_EVENT_TYPE_LAST);
	unsigned nargs = (unsigned)FXT_FIELD(h, FXT_EVENT_NARGS_FIRST, FXT_EVENT_NARGS_LAST);
	unsigned th = (unsigned)FXT_FIELD(h, FXT_EVENT_THREAD_FIRST, FXT_EVENT_THREAD_LAST);
	struct fxt_revent ev = { .record_no = r->rec }, *events;
	uint64_t ticks, end_ticks = 0;

	ticks = next_word(r);
	if (th == FXT_THREAD_REF_INLINE) {
		ev.process_koid = next_word(r);
		ev.thread_koid = next_word(r);
	} else if (r->thrtab[th].set) {
		ev.process_koid = r->thrtab[th].process_koid;
		ev.thread_koid = r->thrtab[th].thread_koid;
	} else {
		PROBLEM(r, "unregistered thread index %u (Perfetto puts it on pid 0/tid 0)", th);
	}
	ev.category = string_ref(r, (unsigned)FXT_FIELD(h, FXT_EVENT_CATEGORY_FIRST,
							 FXT_EVENT_CATEGORY_LAST));
	ev.name = string_ref(r, (unsigned)FXT_FIELD(h, FXT_EVENT_NAME_FIRST, FXT_EVENT_NAME_LAST));
	ev.nargs = read_args(r, nargs, &ev.args);
	switch (type) {
	case FXT_EV_COUNTER:
		ev.counter_id = next_word(r);
		break;
	case FXT_EV_DURATION_COMPLETE:
		end_ticks = next_word(r);
		break;
	case FXT_EV_ASYNC_INSTANT:
		ev.correlation_id = next_word(r);
		break;
	case FXT_EV_INSTANT:
	case FXT_EV_DURATION_BEGIN:
	case FXT_EV_DURATION_END:
		break;
	case FXT_EV_ASYNC_BEGIN: case FXT_EV_ASYNC_END:
	case FXT_EV_FLOW_BEGIN: case FXT_EV_FLOW_STEP: case FXT_EV_FLOW_END:
		next_word(r);
		PROBLEM(r, "event type %u (async/flow) is not supported by this reader", type);
		note(r, "event type=%u name=\"%s\" (not supported)", type, ev.name);
		return;
	default:
		PROBLEM(r, "unknown event type %u", type);
		note(r, "event type=%u (unknown)", type);
		r->p = r->end;
		return;
	}
	if (r->overrun)
		return;
	/* fxt_event_type values are FXT's (fxt_writer.h) */
	ev.type = (enum fxt_event_type)type;
	if (!ticks_to_ns(t, ticks, &ev.ts) || !ticks_to_ns(t, end_ticks, &ev.end_ts)) {
		PROBLEM(r, "timestamp overflow (Perfetto drops the event \"%s\")", ev.name);
		note(r, "event %s name=\"%s\" dropped: timestamp overflow",
		     fxt_event_type_name(ev.type), ev.name);
		return;
	}
	if (type == FXT_EV_DURATION_COMPLETE && ev.end_ts < ev.ts) {
		PROBLEM(r, "complete event \"%s\" ends before it begins (%llu < %llu)", ev.name,
			(unsigned long long)ev.end_ts, (unsigned long long)ev.ts);
		note(r, "event complete name=\"%s\" dropped: negative duration", ev.name);
		return;
	}
	if ((ev.type == FXT_EVENT_BEGIN || ev.type == FXT_EVENT_END) && too_deep(r, &ev))
		return;
	if (r->ops) {
		r->err = r->ops->event(r->ctx, &ev);
		return;
	}
	events = array_grow(t->events, &pv->events_cap, t->nevents, sizeof(ev));
	if (!events) {
		r->err = -ENOMEM;
		return;
	}
	t->events = events;
	t->events[t->nevents++] = ev;
}

static void read_kobj(struct reader *r, uint64_t h)
{
	struct fxt_trace *t = r->t;
	struct fxt_trace_priv *pv = t->priv;
	unsigned nargs = (unsigned)FXT_FIELD(h, FXT_KOBJ_NARGS_FIRST, FXT_KOBJ_NARGS_LAST);
	struct fxt_rkobj k = { 0 }, *kobjs;
	struct fxt_rarg *args;
	bool has_process = false, str_arg;

	k.obj_type = (unsigned)FXT_FIELD(h, FXT_KOBJ_TYPE_FIRST, FXT_KOBJ_TYPE_LAST);
	k.koid = next_word(r);
	k.name = string_ref(r, (unsigned)FXT_FIELD(h, FXT_KOBJ_NAME_FIRST, FXT_KOBJ_NAME_LAST));
	nargs = read_args(r, nargs, &args);
	if (r->overrun)
		return;
	k.args = args;
	k.nargs = nargs;
	for (unsigned i = 0; i < nargs; i++) {
		if (strcmp(args[i].name, "process") == 0 && args[i].type == FXT_ARG_KOID) {
			k.process = args[i].u64;
			has_process = true;
		} else if (strcmp(args[i].name, FXT_TRACK_ARG) == 0 && args[i].type == FXT_ARG_BOOL) {
			k.track = k.obj_type == FXT_ZX_OBJ_THREAD && args[i].b;
		}
	}
	str_arg = nargs && args[0].type == FXT_ARG_STRING;   /* trace info: shown in notes */
	if (k.obj_type == FXT_ZX_OBJ_THREAD && !has_process)
		PROBLEM(r, "thread object %llu \"%s\" has no koid argument \"process\" "
			"(Perfetto leaves the thread unnamed)", (unsigned long long)k.koid, k.name);
	if (has_process)
		note(r, "kobj thread koid=%llu name=\"%s\" process=%llu",
		     (unsigned long long)k.koid, k.name, (unsigned long long)k.process);
	else
		note(r, "kobj %s koid=%llu name=\"%s\"%s%.200s%s%.200s",
		     k.obj_type == FXT_ZX_OBJ_PROCESS ? "process" :
		     k.obj_type == FXT_ZX_OBJ_THREAD ? "thread" : "other",
		     (unsigned long long)k.koid, k.name, str_arg ? " " : "",
		     str_arg ? args[0].name : "", str_arg ? "=" : "", str_arg ? args[0].str : "");
	if (r->ops) {
		r->err = r->ops->kobj ? r->ops->kobj(r->ctx, &k) : 0;
		return;
	}
	kobjs = array_grow(t->kobjs, &pv->kobjs_cap, t->nkobjs, sizeof(k));
	if (!kobjs) {
		r->err = -ENOMEM;
		return;
	}
	t->kobjs = kobjs;
	t->kobjs[t->nkobjs++] = k;
}

/* Streaming: the string at index IX outlives its record (the arena does not). */
static void own_string(struct reader *r, unsigned ix)
{
	char *c = strdup(r->strtab[ix]);

	free(r->owned[ix]);
	r->owned[ix] = c;
	r->strtab[ix] = c;
	if (!c)
		r->err = -ENOMEM;
}

/* Makes room in the string table for index IX; false (r->err set) when out
 * of memory. */
static bool strtab_room(struct reader *r, unsigned ix)
{
	unsigned cap = r->strtab_cap ? r->strtab_cap : 64;
	const char **tab;
	char **owned;

	if (ix < r->strtab_cap)
		return true;
	while (cap <= ix)
		cap *= 2;
	tab = realloc(r->strtab, cap * sizeof(*tab));
	if (tab) {
		memset(tab + r->strtab_cap, 0, (cap - r->strtab_cap) * sizeof(*tab));
		r->strtab = tab;
	}
	owned = tab && r->ops ? realloc(r->owned, cap * sizeof(*owned)) : NULL;
	if (owned) {
		memset(owned + r->strtab_cap, 0, (cap - r->strtab_cap) * sizeof(*owned));
		r->owned = owned;
	}
	if (!tab || (r->ops && !owned)) {
		r->err = -ENOMEM;
		return false;
	}
	r->strtab_cap = cap;
	return true;
}

static void reset_tables(struct reader *r)
{
	if (r->strtab)
		memset(r->strtab, 0, r->strtab_cap * sizeof(*r->strtab));
	memset(r->thrtab, 0, sizeof(r->thrtab));
}

static void read_metadata(struct reader *r, uint64_t h)
{
	unsigned type = (unsigned)FXT_FIELD(h, FXT_META_TYPE_FIRST, FXT_META_TYPE_LAST);
	uint32_t id = (uint32_t)FXT_FIELD(h, FXT_META_PROVIDER_ID_FIRST, FXT_META_PROVIDER_ID_LAST);
	const char *name;

	switch (type) {
	case FXT_META_PROVIDER_INFO:
		name = inline_str(r, FXT_FIELD(h, FXT_META_NAME_LEN_FIRST, FXT_META_NAME_LEN_LAST));
		/* Perfetto starts a new provider: empty tables, 1e9 ticks/s */
		reset_tables(r);
		r->t->ticks_per_second = 1000000000;
		r->provider = id;
		note(r, "provider id=%u name=\"%s\"", id, name);
		break;
	case FXT_META_PROVIDER_SECTION:
		if (id != r->provider)
			PROBLEM(r, "provider section switches to provider %u (not supported)", id);
		note(r, "provider section id=%u", id);
		break;
	case FXT_META_PROVIDER_EVENT:
		note(r, "provider event id=%u event=%u", id, (unsigned)FXT_FIELD(h, 52, 55));
		break;
	case FXT_META_TRACE_INFO:
		if (h == FXT_MAGIC_RECORD) {
			note(r, "magic");
			break;
		}
		/* fall through */
	default:
		PROBLEM(r, "unknown metadata record 0x%016llx", (unsigned long long)h);
		note(r, "metadata (unknown) 0x%016llx", (unsigned long long)h);
		r->p = r->end;
		break;
	}
}

/* Decodes the record of SIZE words at P, the record number r->rec. */
static void read_record(struct reader *r, const uint8_t *p, size_t words)
{
	uint64_t h = fxt_get64(p), tps;
	unsigned type = (unsigned)FXT_FIELD(h, FXT_HDR_TYPE_FIRST, FXT_HDR_TYPE_LAST);
	unsigned ix;

	r->p = p + 8;
	r->end = p + words * 8;
	r->overrun = false;
	switch (type) {
	case FXT_REC_METADATA:
		read_metadata(r, h);
		break;
	case FXT_REC_INIT:
		tps = next_word(r);
		if (r->overrun)
			break;	/* reported below; the rate stays */
		if (!tps)
			PROBLEM(r, "%s", "initialization record with 0 ticks per second");
		else
			r->t->ticks_per_second = tps;
		note(r, "init ticks_per_second=%llu", (unsigned long long)r->t->ticks_per_second);
		break;
	case FXT_REC_STRING:
		ix = (unsigned)FXT_FIELD(h, FXT_STRING_INDEX_FIRST, FXT_STRING_INDEX_LAST);
		if (!strtab_room(r, ix))
			break;
		r->strtab[ix] = inline_str(r, FXT_FIELD(h, FXT_STRING_LEN_FIRST,
							FXT_STRING_LEN_LAST));
		if (r->ops)
			own_string(r, ix);
		if (ix == 0) {
			PROBLEM(r, "%s", "string record with index 0");
			r->strtab[0] = NULL;
		}
		note(r, "string index=%u \"%s\"", ix, r->strtab[ix] ? r->strtab[ix] : "");
		break;
	case FXT_REC_THREAD:
		ix = (unsigned)FXT_FIELD(h, FXT_THREAD_INDEX_FIRST, FXT_THREAD_INDEX_LAST);
		r->thrtab[ix].process_koid = next_word(r);
		r->thrtab[ix].thread_koid = next_word(r);
		r->thrtab[ix].set = ix != 0;
		if (ix == 0)
			PROBLEM(r, "%s", "thread record with index 0");
		note(r, "thread index=%u pid=%llu tid=%llu", ix,
		     (unsigned long long)r->thrtab[ix].process_koid, (unsigned long long)r->thrtab[ix].thread_koid);
		break;
	case FXT_REC_EVENT:
		read_event(r, h);
		break;
	case FXT_REC_KERNEL_OBJECT:
		read_kobj(r, h);
		break;
	case FXT_REC_BLOB: case FXT_REC_USERSPACE_OBJECT: case FXT_REC_SCHEDULER:
	case FXT_REC_LOG: case FXT_REC_PROFILER:
		note(r, "record type %u (skipped)", type);
		r->p = r->end;
		break;
	default:
		PROBLEM(r, "unknown record type %u", type);
		note(r, "record type %u (unknown)", type);
		r->p = r->end;
		break;
	}
	if (r->overrun)
		PROBLEM(r, "record type %u: content runs past its size of %zu words", type, words);
	else if (r->p != r->end)
		PROBLEM(r, "record type %u: size %zu words, content %zu words", type, words,
			(size_t)(r->p - p) / 8);
}

/* The file, inflated as it is read: a window of at least one record. */
struct source {
	gzFile gz;
	uint8_t *buf;
	size_t len, off, cap;   /* bytes in buf, the cursor, buf's size */
	size_t consumed;        /* bytes before buf[0] */
	bool eof;
	bool filled;            /* the last read filled buf: it may grow */
	int err;                /* -errno of a read error */
	const char *damage;     /* zlib's message for a damaged gzip stream */
};

/* The window: SOURCE_FIRST bytes at first (a small file's own size), twice
 * as large each time a read fills it, up to the largest record plus
 * SOURCE_CHUNK (zlib's buffer, too: at most the file's size). */
enum { SOURCE_CHUNK = 1 << 17, SOURCE_FIRST = 1 << 14,
       SOURCE_MAX = FXT_MAX_RECORD_WORDS * 8 + SOURCE_CHUNK };

/* Grows S's window to hold at least NEED bytes, and twice its size when
 * the last read filled it; false when out of memory. */
static bool source_grow(struct source *s, size_t need)
{
	size_t cap = s->filled && s->cap < SOURCE_MAX ? s->cap * 2 : s->cap;
	uint8_t *buf;

	while (cap < need)
		cap *= 2;
	if (cap > SOURCE_MAX)
		cap = SOURCE_MAX;
	if (cap == s->cap)
		return true;
	buf = realloc(s->buf, cap);
	if (!buf)
		return false;
	s->buf = buf;
	s->cap = cap;
	return true;
}

/* Makes at least NEED bytes available at the cursor (fewer only at the end). */
static void source_fill(struct source *s, size_t need)
{
	if (s->len - s->off >= need || s->eof)
		return;
	memmove(s->buf, s->buf + s->off, s->len - s->off);
	s->consumed += s->off;
	s->len -= s->off;
	s->off = 0;
	if (!source_grow(s, need)) {
		s->err = -ENOMEM;
		s->eof = true;
		return;
	}
	while (s->len < need && !s->eof) {
		int n, zerr;

		n = gzread(s->gz, s->buf + s->len, (unsigned)(s->cap - s->len));
		s->filled = n == (int)(s->cap - s->len);
		if (n > 0) {
			s->len += (size_t)n;
			continue;
		}
		s->eof = true;
		/* a cut gzip stream ends reading (0) with Z_BUF_ERROR pending */
		s->damage = gzerror(s->gz, &zerr);
		if (zerr == Z_ERRNO)
			s->err = errno ? -errno : -EIO;
		if (zerr == Z_OK || zerr == Z_ERRNO)
			s->damage = NULL;
	}
}

/* Skips N bytes (a record this reader does not keep), reading through. */
static void source_skip(struct source *s, uint64_t n)
{
	while (n && !s->eof) {
		size_t have = s->len - s->off, step = n < have ? (size_t)n : have;

		s->off += step;
		n -= step;
		if (n)
			source_fill(s, n < s->cap ? (size_t)n : s->cap);
	}
}

/* Streaming: what the arena held before a record, to give back after it. */
struct arena_mark {
	struct fxt_arena_block *block;
	size_t used;
};

static struct arena_mark arena_mark(const struct fxt_trace *t)
{
	const struct fxt_trace_priv *pv = t->priv;

	return (struct arena_mark){ pv->arena, pv->arena ? pv->arena->used : 0 };
}

static void arena_release(struct fxt_trace *t, struct arena_mark m)
{
	struct fxt_trace_priv *pv = t->priv;

	/* the newest block is kept aside: a record that crosses a block's end
	 * would otherwise cost a malloc and a free */
	while (pv->arena != m.block) {
		struct fxt_arena_block *b = pv->arena;

		pv->arena = b->prev;
		if (!pv->spare || pv->spare->size < b->size) {
			free(pv->spare);
			pv->spare = b;
		} else {
			free(b);
		}
	}
	if (m.block)
		m.block->used = m.used;
}

static void read_records(struct reader *r, struct source *src)
{
	for (r->rec = 0; !r->err; r->rec++) {
		size_t problems = r->t->nproblems, words, left;
		struct arena_mark mark = arena_mark(r->t);
		uint64_t h;

		source_fill(src, 8);
		left = src->len - src->off;
		if (left == 0)
			break;
		if (left < 8) {
			PROBLEM(r, "truncated: %zu bytes left at the end, less than a header", left);
			snprintf(r->t->cut, sizeof(r->t->cut), "it ends inside a record header "
				 "(record %zu, %zu bytes)", r->rec, left);
			break;
		}
		h = fxt_get64(src->buf + src->off);
		words = FXT_FIELD(h, FXT_HDR_SIZE_FIRST, FXT_HDR_SIZE_LAST);
		if (FXT_FIELD(h, FXT_HDR_TYPE_FIRST, FXT_HDR_TYPE_LAST) == FXT_REC_LARGE) {
			/* large record: [4..35] size in words; Perfetto reads [4..15] */
			PROBLEM(r, "%s", "large record (type 15): Perfetto cannot read it "
				"and loses its place in the file");
			words = FXT_FIELD(h, 4, 35);
		}
		if (words == 0) {
			PROBLEM(r, "record at byte %zu has size 0: cannot go on",
				src->consumed + src->off);
			break;
		}
		if (FXT_FIELD(h, FXT_HDR_TYPE_FIRST, FXT_HDR_TYPE_LAST) == FXT_REC_LARGE) {
			note(r, "large record, %zu words (skipped)", words);
			source_skip(src, (uint64_t)words * 8);
		} else {
			source_fill(src, words * 8);
			left = src->len - src->off;
			if (words > left / 8) {
				PROBLEM(r, "truncated last record: %zu words, %zu bytes left "
					"(Perfetto drops it)", words, left);
				snprintf(r->t->cut, sizeof(r->t->cut), "its last record is cut "
					 "(record %zu: %zu of %zu bytes)", r->rec, left, words * 8);
				break;
			}
			read_record(r, src->buf + src->off, words);
			src->off += words * 8;
		}
		if (r->ops && r->t->nproblems == problems)
			arena_release(r->t, mark);
	}
	r->t->nrecords = r->rec;
}

/* Opens PATH ("-" = stdin) as a source: a regular file, or a pipe where
 * FLAGS have INPATH_STREAM, never a named FIFO or a device (inpath.h); 0
 * or a negative errno with ERRBUF set (-EINVAL: not a file of those kinds). */
static int source_open(struct source *s, const char *path, unsigned flags, char *errbuf,
		       size_t errlen)
{
	char why[160];
	int fd = strcmp(path, "-") == 0 ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) :
		 inpath_open(AT_FDCWD, path, flags, why, sizeof(why));
	struct stat st;
	size_t zsize = SOURCE_CHUNK;

	memset(s, 0, sizeof(*s));
	if (fd < 0) {
		int err = strcmp(path, "-") ? fd : -errno;

		snprintf(errbuf, errlen, "%s: cannot open: %s", path,
			 strcmp(path, "-") ? why : strerror(errno));
		return err;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < SOURCE_CHUNK)
		zsize = st.st_size > 64 ? (size_t)st.st_size : 64;
	s->gz = gzdopen(fd, "rb");
	s->cap = SOURCE_FIRST;
	s->buf = malloc(s->cap);
	if (!s->gz || !s->buf) {
		if (s->gz)
			gzclose(s->gz);
		else
			close(fd);
		free(s->buf);
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	gzbuffer(s->gz, (unsigned)zsize);
	return 0;
}

/* Reads PATH (opened as inpath.h's FLAGS allow) into T, handing records to
 * OPS (with CTX) when OPS is set. */
static int read_new(const char *path, unsigned flags, const struct fxt_stream_ops *ops,
		    void *ctx, struct fxt_trace *t, char *errbuf, size_t errlen)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct source src;
	int err;

	memset(t, 0, sizeof(*t));
	t->ticks_per_second = 1000000000;
	t->priv = calloc(1, sizeof(struct fxt_trace_priv));
	if (!t->priv || !r) {
		free(r);
		free(t->priv);
		t->priv = NULL;
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->t = t;
	r->ops = ops;
	r->ctx = ctx;
	err = source_open(&src, path, flags, errbuf, errlen);
	if (err) {
		free(r);
		fxt_trace_free(t);
		return err;
	}
	source_fill(&src, 8);
	if (!src.err && (src.len < 8 || fxt_get64(src.buf) != FXT_MAGIC_RECORD)) {
		snprintf(errbuf, errlen, "%s: not an FXT file: expected the magic number "
			 "record 0x%016llx, found %s", path,
			 (unsigned long long)FXT_MAGIC_RECORD,
			 src.len < 8 ? "less than 8 bytes" : "other bytes");
		err = -EBADMSG;
	}
	if (!err && !src.err)
		read_records(r, &src);
	if (!err && src.err) {
		err = src.err;
		snprintf(errbuf, errlen, "%s: read error: %s", path, strerror(-err));
	} else if (!err && src.damage && !r->err) {
		/* zlib's words, without its "<fd:N>: " */
		const char *said = strncmp(src.damage, "<fd:", 4) || !strstr(src.damage, ": ") ?
				   src.damage : strstr(src.damage, ": ") + 2;

		snprintf(t->cut, sizeof(t->cut), "the gzip stream is cut or damaged after %zu "
			 "bytes (%s)", src.consumed + src.len, said);
		if (fxt_trace_problem(t, "gzip stream damaged after %zu bytes: %s",
				      src.consumed + src.len, said))
			r->err = -ENOMEM;
	}
	if (!err && !r->err && t->deep_begins &&
	    fxt_trace_problem(t, "record %zu: %llu duration begin%s nested deeper than %d on "
			      "%s thread left out, with %s ends (Perfetto drops them)", r->deep_first,
			      (unsigned long long)t->deep_begins, t->deep_begins == 1 ? "" : "s",
			      FXT_MAX_DEPTH, t->deep_begins == 1 ? "its" : "their",
			      t->deep_begins == 1 ? "its" : "their"))
		r->err = -ENOMEM;
	if (!err && r->err) {
		err = r->err;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(-err));
	}
	gzclose(src.gz);
	free(src.buf);
	for (size_t i = 0; r->owned && i < r->strtab_cap; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->strtab);
	free(r->open);
	hash_index_free(&r->open_ix);
	free(r);
	if (err)
		fxt_trace_free(t);
	return err;
}

int fxt_trace_read(const char *path, struct fxt_trace *t, char *errbuf, size_t errlen)
{
	return read_new(path, INPATH_STREAM, NULL, NULL, t, errbuf, errlen);
}

int fxt_stream_read(const char *path, const struct fxt_stream_ops *ops, void *ctx,
		    struct fxt_trace *t, char *errbuf, size_t errlen)
{
	return read_new(path, 0, ops, ctx, t, errbuf, errlen);
}

void fxt_trace_free(struct fxt_trace *t)
{
	struct fxt_trace_priv *pv = t->priv;

	if (pv) {
		while (pv->arena) {
			struct fxt_arena_block *b = pv->arena;

			pv->arena = b->prev;
			free(b);
		}
		free(pv->spare);
		free(pv->notes);
		free(pv);
	}
	free(t->events);
	free(t->kobjs);
	free(t->slices);
	free(t->instants);
	free(t->async_instants);
	free(t->problems);
	memset(t, 0, sizeof(*t));
}
