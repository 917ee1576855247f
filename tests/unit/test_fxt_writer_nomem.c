/* SPDX-License-Identifier: MIT */
/*
 * Out of memory in the FXT writer is sticky like every error of it: with
 * each allocation of a writer's life failed in turn (tests/failmalloc), the
 * first failing call's error is -ENOMEM, every later call returns it,
 * fxt_writer_error() holds it, close reports it and no file (nor a
 * temporary) is left. Never a trace that silently lacks a record.
 */
#include <errno.h>
#include <stdio.h>

#include "failmalloc.h"
#include "unit.h"
#include "unit_fxt.h"
#include "unit_tmp.h"

/* Strings and threads enough to grow and recycle both tables. */
#define NSTRINGS 40000
#define NTHREADS 300

/* One writer's life on PATH: open, an event naming each of NSTRINGS
 * strings on NTHREADS threads, thread names, info, close. Checks that the
 * errors are sticky. Returns open's error or close's result. */
static int writer_life(const char *path, enum fxt_output out)
{
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1 };
	int err = 0, first = 0, r;
	struct fxt_writer *w = fxt_writer_open(path, out, "nomem", &err);

	if (!w)
		return err;
	for (int i = 0; i < NSTRINGS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "function_%d", i);
		ev.name = fxt_writer_cstring(w, name);
		ev.thread_koid = 1 + (uint64_t)(i % NTHREADS);
		ev.ts = (uint64_t)i;
		r = i % 1000 ? fxt_writer_event(w, &ev) :
			fxt_writer_thread(w, 1, ev.thread_koid, ev.name);
		if (first && r != first)
			UNIT_FAIL("call %d returned %d after the error %d", i, r, first);
		if (!first)
			first = r ? r : fxt_writer_error(w);	/* a string's error comes here */
		if (fxt_writer_error(w) != first)
			UNIT_FAIL("fxt_writer_error() %d, expected %d", fxt_writer_error(w), first);
		if (first && i > 1000)
			break;
	}
	r = fxt_writer_info(w, ev.name, ev.name, ev.name);
	if (r != first)
		UNIT_FAIL("fxt_writer_info returned %d, expected %d", r, first);
	r = fxt_writer_close(w);
	if (first && r != first)
		UNIT_FAIL("close returned %d after the error %d", r, first);
	return r;
}

static void nomem_each_allocation(enum fxt_output out)
{
	const char *path = unit_tmp(out == FXT_OUTPUT_GZIP ? "nomem.fxt.gz" : "nomem.fxt");
	unsigned long total;

	failmalloc_set(0);
	CHECK_INT_EQ(writer_life(path, out), 0);
	total = failmalloc_count();
	CHECK(total >= 5);	/* the writer, its tables, the sink, the path */
	remove(path);
	for (unsigned long n = 1; n <= total; n++) {
		int r;

		failmalloc_set(n);
		r = writer_life(path, out);
		if (!failmalloc_failed())
			UNIT_FAIL("allocation %lu of %lu never made", n, total);
		else if (r != -ENOMEM)
			UNIT_FAIL("allocation %lu of %lu failed: the writer returned %d", n, total, r);
		if (unit_exists(path) || unit_temps())
			UNIT_FAIL("allocation %lu failed: a file was left", n);
		remove(path);
	}
	failmalloc_set(0);
}

static void writer_nomem_raw(void)
{
	nomem_each_allocation(FXT_OUTPUT_RAW);
}

static void writer_nomem_gzip(void)
{
	nomem_each_allocation(FXT_OUTPUT_GZIP);
}

int main(void)
{
	if (unit_tmp_init("test_fxt_writer_nomem"))
		return 1;
	UNIT_RUN(writer_nomem_raw);
	UNIT_RUN(writer_nomem_gzip);
	unit_tmp_fini();
	return unit_exit();
}
