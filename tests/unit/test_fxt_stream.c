// SPDX-License-Identifier: MIT
/*
 * Unit tests of fxt_stream_read: it hands over exactly the events and kernel
 * objects fxt_trace_read keeps, in file order, through recycled string
 * indexes (more than 32,767 strings) and gzip; a callback's error stops it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_format.h"
#include "fxt_reader.h"
#include "unit_fxt.h"
#include "unit_tmp.h"

enum { NAMES = 40000 };

/* Writes PATH: 2 threads, NAMES distinct begin/end names, a trace info. */
static void write_trace(const char *path)
{
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_AUTO);
	char name[32];

	if (!w)
		return;
	fxt_writer_thread(w, 1, 1, fxt_writer_cstring(w, "one"));
	fxt_writer_thread(w, 1, 2, fxt_writer_cstring(w, "two"));
	for (unsigned i = 0; i < NAMES; i++) {
		struct fxt_arg arg = { .type = FXT_ARG_UINT64, .name = fxt_writer_cstring(w, "i"),
				       .u64 = i };
		struct fxt_event ev = { .type = FXT_EVENT_BEGIN, .ts = 10 * i, .process_koid = 1,
					.thread_koid = 1 + i % 2, .args = &arg, .nargs = 1 };

		snprintf(name, sizeof(name), "f%u", i);
		ev.name = fxt_writer_cstring(w, name);
		ev.category = fxt_writer_cstring(w, i % 3 ? "/lib" : "/bin");
		fxt_writer_event(w, &ev);
		ev.type = FXT_EVENT_END;
		ev.ts += 5;
		ev.nargs = 0;
		fxt_writer_event(w, &ev);
	}
	fxt_writer_info(w, fxt_writer_cstring(w, FXT_INFO_NAME), fxt_writer_cstring(w, FXT_INFO_MODE),
			fxt_writer_cstring(w, FXT_MODE_PT));
	CHECK_INT_EQ(fxt_writer_close(w), 0);
}

struct seen {
	const struct fxt_trace *whole;
	size_t events, kobjs, mismatches;
	int stop_at;          /* return -ECANCELED at this event, or -1 */
};

static int on_event(void *ctx, const struct fxt_revent *ev)
{
	struct seen *s = ctx;
	const struct fxt_revent *e = s->events < s->whole->nevents ?
				     &s->whole->events[s->events] : NULL;

	if (!e || e->type != ev->type || e->ts != ev->ts || e->thread_koid != ev->thread_koid ||
	    strcmp(e->name, ev->name) || strcmp(e->category, ev->category) ||
	    e->nargs != ev->nargs || e->record_no != ev->record_no ||
	    (ev->nargs && ev->args[0].u64 != e->args[0].u64)) {
		if (!s->mismatches++)
			UNIT_FAIL("event %zu: \"%s\" at %" PRIu64 " differs from the whole read",
				  s->events, ev->name, ev->ts);
	}
	if ((int)s->events++ == s->stop_at)
		return -ECANCELED;
	return 0;
}

static int on_kobj(void *ctx, const struct fxt_rkobj *k)
{
	struct seen *s = ctx;
	const struct fxt_rkobj *e = s->kobjs < s->whole->nkobjs ? &s->whole->kobjs[s->kobjs] : NULL;

	if (!e || e->obj_type != k->obj_type || strcmp(e->name, k->name) || e->nargs != k->nargs)
		UNIT_FAIL("kernel object %zu \"%s\" differs from the whole read", s->kobjs, k->name);
	s->kobjs++;
	return 0;
}

static void stream_matches_whole_read(const char *file)
{
	static const struct fxt_stream_ops ops = { .event = on_event, .kobj = on_kobj };
	const char *path = unit_tmp(file);
	struct fxt_trace whole, st;
	struct seen s = { .whole = &whole, .stop_at = -1 };
	char err[256];

	write_trace(path);
	if (fxt_trace_read(path, &whole, err, sizeof(err))) {
		UNIT_FAIL("fxt_trace_read: %s", err);
		return;
	}
	CHECK_INT_EQ(whole.nevents, 2 * NAMES);
	CHECK_INT_EQ(whole.nproblems, 0);
	CHECK_INT_EQ(fxt_stream_read(path, &ops, &s, &st, err, sizeof(err)), 0);
	CHECK_INT_EQ(s.events, whole.nevents);
	CHECK_INT_EQ(s.kobjs, whole.nkobjs);
	CHECK_INT_EQ(s.kobjs, 3);
	CHECK_INT_EQ(st.nevents, 0);
	CHECK_INT_EQ(st.nproblems, 0);
	CHECK_INT_EQ(st.nrecords, whole.nrecords);
	if (whole.nkobjs == 3) {
		CHECK_INT_EQ(whole.kobjs[2].obj_type, FXT_ZX_OBJ_NONE);
		CHECK_STR_EQ(whole.kobjs[2].name, FXT_INFO_NAME);
		CHECK_INT_EQ(whole.kobjs[2].nargs, 1);
		if (whole.kobjs[2].nargs == 1)
			CHECK_STR_EQ(whole.kobjs[2].args[0].str, FXT_MODE_PT);
	}
	fxt_trace_free(&st);
	s = (struct seen){ .whole = &whole, .stop_at = 7 };
	CHECK_INT_EQ(fxt_stream_read(path, &ops, &s, &st, err, sizeof(err)), -ECANCELED);
	CHECK_INT_EQ(s.events, 8);
	fxt_trace_free(&whole);
}

static void stream_raw(void)
{
	stream_matches_whole_read("t.fxt");
}

static void stream_gzip(void)
{
	stream_matches_whole_read("t.fxt.gz");
}

int main(void)
{
	if (unit_tmp_init("test_fxt_stream"))
		return 1;
	UNIT_RUN(stream_raw);
	UNIT_RUN(stream_gzip);
	unit_tmp_fini();
	return unit_exit();
}
