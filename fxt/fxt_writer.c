// SPDX-License-Identifier: MIT
/*
 * fxt_writer: FXT records over the byte sink (see fxt_writer.h).
 *
 * Each record is built in place: its size is computed first, room for it is
 * reserved in the sink's buffer, then its words are stored little-endian and
 * committed, so only whole records are ever written. References always use
 * table indexes (never inline strings or threads); string and thread records
 * are emitted lazily, right before the first record that needs them, and
 * again whenever an index was recycled. The per-event path allocates nothing.
 *
 * Stream layout: magic number record, provider info record (Perfetto starts
 * a fresh string table per provider, so it precedes every string record),
 * initialization record, then kernel object and event records with their
 * string and thread records.
 */
#include "fxt_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fxt_format.h"
#include "fxt_sink.h"
#include "fxt_strings.h"
#include "fxt_threads.h"
#include "utf8.h"
#include "outpath.h"

enum { TICKS_PER_SECOND = 1000000000 };

struct fxt_writer {
	struct fxt_sink sink;
	struct fxt_strings strings;
	struct fxt_threads threads;
	fxt_string_id process_arg;   /* "process", the thread object's koid argument */
};

static int sticky(struct fxt_writer *w)
{
	return w->sink.err;
}

/* Makes ERR (a negative errno) W's sticky error unless it has one; returns
 * the sticky error (every error of the writer is sticky: fxt_writer.h). */
static int fail(struct fxt_writer *w, int err)
{
	if (!w->sink.err)
		w->sink.err = err;
	return w->sink.err;
}

static uint64_t header(unsigned type, unsigned words)
{
	return FXT_MAKE(type, FXT_HDR_TYPE_FIRST, FXT_HDR_TYPE_LAST) |
	       FXT_MAKE(words, FXT_HDR_SIZE_FIRST, FXT_HDR_SIZE_LAST);
}

/* Stores LEN bytes of S at P and zero-pads them to whole words; returns the words. */
static size_t put_padded(uint8_t *p, const char *s, size_t len)
{
	size_t words = (len + 7) / 8;

	if (!words)
		return 0;
	fxt_put64(p + (words - 1) * 8, 0);
	memcpy(p, s, len);
	return words;
}

static int write_string_record(struct fxt_writer *w, unsigned ix, const struct fxt_str *e)
{
	size_t words = 1 + (e->len + 7) / 8;
	uint8_t *p = fxt_sink_reserve(&w->sink, words * 8);

	if (!p)
		return sticky(w);
	fxt_put64(p, header(FXT_REC_STRING, (unsigned)words) |
		  FXT_MAKE(ix, FXT_STRING_INDEX_FIRST, FXT_STRING_INDEX_LAST) |
		  FXT_MAKE(e->len, FXT_STRING_LEN_FIRST, FXT_STRING_LEN_LAST));
	put_padded(p + 8, e->text, e->len);
	fxt_sink_commit(&w->sink, words * 8);
	return 0;
}

/*
 * Returns the 16-bit ref of string ID, writing its string record first when
 * it has no index yet; a negative errno on a sink failure.
 */
static inline int string_ref(struct fxt_writer *w, fxt_string_id id)
{
	bool fresh;
	unsigned ix;

	if (id == 0)
		return FXT_STRING_REF_EMPTY;
	ix = fxt_strings_index(&w->strings, id, &fresh);
	if (fresh) {
		int err = write_string_record(w, ix, &w->strings.ent[id]);

		if (err)
			return err;
	}
	return (int)ix;
}

static inline int thread_ref(struct fxt_writer *w, uint64_t pid, uint64_t tid)
{
	bool fresh;
	unsigned ix = fxt_threads_index(&w->threads, pid, tid, &fresh);
	uint8_t *p;

	if (!fresh)
		return (int)ix;
	p = fxt_sink_reserve(&w->sink, 3 * 8);
	if (!p)
		return sticky(w);
	fxt_put64(p, header(FXT_REC_THREAD, 3) |
		  FXT_MAKE(ix, FXT_THREAD_INDEX_FIRST, FXT_THREAD_INDEX_LAST));
	fxt_put64(p + 8, pid);
	fxt_put64(p + 16, tid);
	fxt_sink_commit(&w->sink, 3 * 8);
	return (int)ix;
}

static int write_preamble(struct fxt_writer *w, const char *provider)
{
	size_t len = provider ? strlen(provider) : 0;
	size_t words;
	uint8_t *p;

	if (len > FXT_META_NAME_MAX)
		len = FXT_META_NAME_MAX;
	len = utf8_check(provider, len);	/* FXT strings: UTF-8, no NUL */
	words = 1 + 1 + (len + 7) / 8 + 2;
	p = fxt_sink_reserve(&w->sink, words * 8);
	if (!p)
		return sticky(w);
	fxt_put64(p, FXT_MAGIC_RECORD);
	p += 8;
	fxt_put64(p, header(FXT_REC_METADATA, 1 + (unsigned)(len + 7) / 8) |
		  FXT_MAKE(FXT_META_PROVIDER_INFO, FXT_META_TYPE_FIRST, FXT_META_TYPE_LAST) |
		  FXT_MAKE(0, FXT_META_PROVIDER_ID_FIRST, FXT_META_PROVIDER_ID_LAST) |
		  FXT_MAKE(len, FXT_META_NAME_LEN_FIRST, FXT_META_NAME_LEN_LAST));
	p += 8;
	p += 8 * put_padded(p, provider, len);
	fxt_put64(p, header(FXT_REC_INIT, 2));
	fxt_put64(p + 8, TICKS_PER_SECOND);
	fxt_sink_commit(&w->sink, words * 8);
	return 0;
}

enum fxt_output fxt_output_of_path(const char *path)
{
	static const enum fxt_output of_format[] = {
		[OUTPATH_FORMAT_NONE] = FXT_OUTPUT_AUTO,
		[OUTPATH_FORMAT_RAW] = FXT_OUTPUT_RAW,
		[OUTPATH_FORMAT_GZIP] = FXT_OUTPUT_GZIP,
	};

	return of_format[outpath_format(path)];
}

struct fxt_writer *fxt_writer_open(const char *path, enum fxt_output output,
				   const char *provider, int *err)
{
	struct fxt_writer *w = calloc(1, sizeof(*w));
	bool gzip;
	int e;

	if (!w) {
		*err = -ENOMEM;
		return NULL;
	}
	fxt_threads_init(&w->threads);
	e = fxt_strings_init(&w->strings);
	if (e) {
		free(w);
		*err = e;
		return NULL;
	}
	if (output == FXT_OUTPUT_AUTO && (output = fxt_output_of_path(path)) == FXT_OUTPUT_AUTO) {
		fxt_strings_free(&w->strings);
		free(w);
		*err = -EINVAL;
		return NULL;
	}
	gzip = output == FXT_OUTPUT_GZIP;
	e = fxt_sink_open(&w->sink, path, gzip);
	if (!e)
		e = fxt_strings_intern(&w->strings, "process", 7, &w->process_arg);
	if (!e)
		e = write_preamble(w, provider);
	if (e) {
		if (w->sink.buf)
			fxt_sink_abort(&w->sink);
		fxt_strings_free(&w->strings);
		free(w);
		*err = e;
		return NULL;
	}
	*err = 0;
	return w;
}

fxt_string_id fxt_writer_string(struct fxt_writer *w, const char *s, size_t len)
{
	fxt_string_id id;

	if (fxt_strings_intern(&w->strings, s, len, &id) < 0) {
		fail(w, -ENOMEM);
		return 0;
	}
	return id;
}

fxt_string_id fxt_writer_cstring(struct fxt_writer *w, const char *s)
{
	return fxt_writer_string(w, s, strlen(s));
}

/* Writes a kernel object record with one argument ARG_NAME of wire type
 * ARG_TYPE: a koid VALUE, or (FXT_WARG_STRING) the string id VALUE; no
 * argument when ARG_NAME is 0. With TRACK (a thread object) a second
 * argument follows: FXT_TRACK_ARG, bool true. */
static int write_kobj(struct fxt_writer *w, unsigned obj_type, uint64_t koid,
		      fxt_string_id name, fxt_string_id arg_name, unsigned arg_type,
		      uint64_t value, bool track)
{
	bool str = arg_type == FXT_WARG_STRING;
	unsigned arg_words = arg_name ? (str ? 1 : 2) : 0;
	unsigned words = 2 + arg_words + track;
	int name_ref, arg_ref = 0, val_ref = 0, track_ref = 0;
	fxt_string_id track_name = track ? fxt_writer_cstring(w, FXT_TRACK_ARG) : 0;
	uint8_t *p;

	if (sticky(w))
		return sticky(w);
	if (name >= w->strings.count || arg_name >= w->strings.count ||
	    (str && value >= w->strings.count))
		return fail(w, -EINVAL);
	name_ref = string_ref(w, name);
	if (name_ref < 0)
		return name_ref;
	if (arg_name) {
		arg_ref = string_ref(w, arg_name);
		val_ref = str ? string_ref(w, (fxt_string_id)value) : 0;
		if (arg_ref < 0 || val_ref < 0)
			return sticky(w);
	}
	if (track) {
		track_ref = string_ref(w, track_name);
		if (track_ref < 0)
			return sticky(w);
	}
	p = fxt_sink_reserve(&w->sink, words * 8);
	if (!p)
		return sticky(w);
	fxt_put64(p, header(FXT_REC_KERNEL_OBJECT, words) |
		  FXT_MAKE(obj_type, FXT_KOBJ_TYPE_FIRST, FXT_KOBJ_TYPE_LAST) |
		  FXT_MAKE(name_ref, FXT_KOBJ_NAME_FIRST, FXT_KOBJ_NAME_LAST) |
		  FXT_MAKE((arg_name ? 1u : 0u) + track, FXT_KOBJ_NARGS_FIRST,
			   FXT_KOBJ_NARGS_LAST));
	fxt_put64(p + 8, koid);
	if (arg_name)
		fxt_put64(p + 16, FXT_MAKE(arg_type, FXT_ARG_TYPE_FIRST, FXT_ARG_TYPE_LAST) |
			  FXT_MAKE(arg_words, FXT_ARG_SIZE_FIRST, FXT_ARG_SIZE_LAST) |
			  FXT_MAKE(arg_ref, FXT_ARG_NAME_FIRST, FXT_ARG_NAME_LAST) |
			  FXT_MAKE(val_ref, FXT_ARG_STRVAL_FIRST, FXT_ARG_STRVAL_LAST));
	if (arg_name && !str)
		fxt_put64(p + 24, value);
	if (track)
		fxt_put64(p + 16 + arg_words * 8,
			  FXT_MAKE(FXT_WARG_BOOL, FXT_ARG_TYPE_FIRST, FXT_ARG_TYPE_LAST) |
			  FXT_MAKE(1, FXT_ARG_SIZE_FIRST, FXT_ARG_SIZE_LAST) |
			  FXT_MAKE(track_ref, FXT_ARG_NAME_FIRST, FXT_ARG_NAME_LAST) |
			  (uint64_t)1 << FXT_ARG_BOOL_BIT);
	fxt_sink_commit(&w->sink, words * 8);
	return 0;
}

int fxt_writer_process(struct fxt_writer *w, uint64_t pid, fxt_string_id name)
{
	return write_kobj(w, FXT_ZX_OBJ_PROCESS, pid, name, 0, 0, 0, false);
}

int fxt_writer_thread(struct fxt_writer *w, uint64_t pid, uint64_t tid, fxt_string_id name)
{
	return write_kobj(w, FXT_ZX_OBJ_THREAD, tid, name, w->process_arg, FXT_WARG_KOID, pid,
			  false);
}

int fxt_writer_track(struct fxt_writer *w, uint64_t pid, uint64_t koid, fxt_string_id name)
{
	return write_kobj(w, FXT_ZX_OBJ_THREAD, koid, name, w->process_arg, FXT_WARG_KOID, pid,
			  true);
}

int fxt_writer_info(struct fxt_writer *w, fxt_string_id name, fxt_string_id key,
		    fxt_string_id value)
{
	if (!key)
		return fail(w, -EINVAL);
	return write_kobj(w, FXT_ZX_OBJ_NONE, 0, name, key, FXT_WARG_STRING, value, false);
}

/* Words an argument of type TYPE takes (header included), 0 for a bad type. */
static unsigned arg_words(enum fxt_arg_type type)
{
	switch (type) {
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		return 2;
	case FXT_ARG_UINT32:
	case FXT_ARG_STRING:
	case FXT_ARG_BOOL:
		return 1;
	}
	return 0;
}

/* Checks EV; returns its size in words or -EINVAL. */
static int event_words(const struct fxt_writer *w, const struct fxt_event *ev)
{
	int words = 2;

	switch (ev->type) {
	case FXT_EVENT_INSTANT:
	case FXT_EVENT_BEGIN:
	case FXT_EVENT_END:
		break;
	case FXT_EVENT_COUNTER:
	case FXT_EVENT_ASYNC_INSTANT:
		words++;
		break;
	case FXT_EVENT_COMPLETE:
		if (ev->end_ts < ev->ts)
			return -EINVAL;
		words++;
		break;
	default:
		return -EINVAL;
	}
	if (ev->nargs > FXT_MAX_ARGS || (ev->nargs && !ev->args))
		return -EINVAL;
	if (ev->category >= w->strings.count || ev->name >= w->strings.count)
		return -EINVAL;
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct fxt_arg *a = &ev->args[i];
		unsigned n = arg_words(a->type);

		if (!n || a->name >= w->strings.count ||
		    (a->type == FXT_ARG_STRING && a->str >= w->strings.count))
			return -EINVAL;
		words += (int)n;
	}
	return words;
}

/* Wire type of API argument type T (the values agree; kept explicit). */
static unsigned wire_arg(enum fxt_arg_type t)
{
	switch (t) {
	case FXT_ARG_UINT32: return FXT_WARG_UINT32;
	case FXT_ARG_INT64: return FXT_WARG_INT64;
	case FXT_ARG_UINT64: return FXT_WARG_UINT64;
	case FXT_ARG_DOUBLE: return FXT_WARG_DOUBLE;
	case FXT_ARG_STRING: return FXT_WARG_STRING;
	case FXT_ARG_POINTER: return FXT_WARG_POINTER;
	case FXT_ARG_KOID: return FXT_WARG_KOID;
	case FXT_ARG_BOOL: return FXT_WARG_BOOL;
	}
	return FXT_WARG_NULL;
}

/* Resolves the refs of EV's arguments into REFS (name, value pairs). */
static int arg_refs(struct fxt_writer *w, const struct fxt_event *ev, uint16_t *refs)
{
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct fxt_arg *a = &ev->args[i];
		int r = string_ref(w, a->name);

		if (r < 0)
			return r;
		refs[2 * i] = (uint16_t)r;
		refs[2 * i + 1] = 0;
		if (a->type == FXT_ARG_STRING) {
			r = string_ref(w, a->str);
			if (r < 0)
				return r;
			refs[2 * i + 1] = (uint16_t)r;
		}
	}
	return 0;
}

static uint8_t *put_args(uint8_t *p, const struct fxt_event *ev, const uint16_t *refs)
{
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct fxt_arg *a = &ev->args[i];
		unsigned n = arg_words(a->type);
		uint64_t h = FXT_MAKE(wire_arg(a->type), FXT_ARG_TYPE_FIRST, FXT_ARG_TYPE_LAST) |
			     FXT_MAKE(n, FXT_ARG_SIZE_FIRST, FXT_ARG_SIZE_LAST) |
			     FXT_MAKE(refs[2 * i], FXT_ARG_NAME_FIRST, FXT_ARG_NAME_LAST);
		uint64_t v;

		switch (a->type) {
		case FXT_ARG_STRING:
			h |= FXT_MAKE(refs[2 * i + 1], FXT_ARG_STRVAL_FIRST, FXT_ARG_STRVAL_LAST);
			break;
		case FXT_ARG_BOOL:
			h |= (uint64_t)(a->b ? 1 : 0) << FXT_ARG_BOOL_BIT;
			break;
		case FXT_ARG_UINT32:
			h |= FXT_MAKE((uint32_t)a->u64, FXT_ARG_VALUE32_FIRST, FXT_ARG_VALUE32_LAST);
			break;
		case FXT_ARG_DOUBLE:
			memcpy(&v, &a->f64, 8);
			fxt_put64(p + 8, v);
			break;
		case FXT_ARG_INT64:
			fxt_put64(p + 8, (uint64_t)a->i64);
			break;
		case FXT_ARG_UINT64:
		case FXT_ARG_POINTER:
		case FXT_ARG_KOID:
			fxt_put64(p + 8, a->u64);
			break;
		}
		fxt_put64(p, h);
		p += 8 * n;
	}
	return p;
}

int fxt_writer_event(struct fxt_writer *w, const struct fxt_event *ev)
{
	uint16_t refs[2 * FXT_MAX_ARGS];
	int words, th, cat, name;
	uint8_t *p;

	if (sticky(w))
		return sticky(w);
	if (ev->ts > FXT_TS_MAX || (ev->type == FXT_EVENT_COMPLETE && ev->end_ts > FXT_TS_MAX))
		return fail(w, -ERANGE);	/* Perfetto would drop the event */
	words = event_words(w, ev);
	if (words < 0)
		return fail(w, words);
	th = thread_ref(w, ev->process_koid, ev->thread_koid);
	if (th < 0)
		return th;
	cat = string_ref(w, ev->category);
	if (cat < 0)
		return cat;
	name = string_ref(w, ev->name);
	if (name < 0)
		return name;
	if (ev->nargs && arg_refs(w, ev, refs) < 0)
		return sticky(w);
	p = fxt_sink_reserve(&w->sink, (size_t)words * 8);
	if (!p)
		return sticky(w);
	/* fxt_event_type values are FXT's event types (fxt_writer.h) */
	fxt_put64(p, header(FXT_REC_EVENT, (unsigned)words) |
		  FXT_MAKE(ev->type, FXT_EVENT_TYPE_FIRST, FXT_EVENT_TYPE_LAST) |
		  FXT_MAKE(ev->nargs, FXT_EVENT_NARGS_FIRST, FXT_EVENT_NARGS_LAST) |
		  FXT_MAKE(th, FXT_EVENT_THREAD_FIRST, FXT_EVENT_THREAD_LAST) |
		  FXT_MAKE(cat, FXT_EVENT_CATEGORY_FIRST, FXT_EVENT_CATEGORY_LAST) |
		  FXT_MAKE(name, FXT_EVENT_NAME_FIRST, FXT_EVENT_NAME_LAST));
	fxt_put64(p + 8, ev->ts);
	p = put_args(p + 16, ev, refs);
	if (ev->type == FXT_EVENT_COMPLETE)
		fxt_put64(p, ev->end_ts);
	else if (ev->type == FXT_EVENT_COUNTER)
		fxt_put64(p, ev->counter_id);
	else if (ev->type == FXT_EVENT_ASYNC_INSTANT)
		fxt_put64(p, ev->correlation_id);
	fxt_sink_commit(&w->sink, (size_t)words * 8);
	return 0;
}

int fxt_writer_error(const struct fxt_writer *w)
{
	return w->sink.err;
}

uint64_t fxt_writer_bytes(const struct fxt_writer *w)
{
	return w->sink.total;
}

int fxt_writer_close(struct fxt_writer *w)
{
	int err = fxt_sink_close(&w->sink);

	fxt_strings_free(&w->strings);
	free(w);
	return err;
}

void fxt_writer_abort(struct fxt_writer *w)
{
	if (!w)
		return;
	fxt_sink_abort(&w->sink);
	fxt_strings_free(&w->strings);
	free(w);
}
