// SPDX-License-Identifier: MIT
/*
 * Unit tests of the FXT writer (fxt/fxt_writer.h): exact bytes of pinned
 * records, round trips of every event and argument type through the
 * project's reader, string and thread index recycling, truncation, record
 * sizes and alignment, gzip and raw output, and a throughput measurement.
 * Failure paths are in test_fxt_writer_errors.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt_format.h"
#include "fxt_reader.h"
#include "fxt_sink.h"
#include "fxt_strings.h"	/* FXT_STRING_MAX_BYTES */
#include "fxt_writer.h"
#include "unit.h"
#include "unit_tmp.h"
#include "unit_fxt.h"


/* The whole file PATH as 64-bit little-endian words (*N words); NULL if unreadable. */
static uint64_t *read_words(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint64_t *w = NULL;
	long len;

	*n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (len >= 0 && len % 8 == 0) {
		w = malloc((size_t)len + 8);
		uint8_t *b = (uint8_t *)w;

		if (w && fread(w, 1, (size_t)len, f) == (size_t)len) {
			for (long i = 0; i < len / 8; i++) {
				uint64_t v = 0;

				for (int k = 7; k >= 0; k--)
					v = (v << 8) | b[i * 8 + k];
				w[i] = v;
			}
			*n = (size_t)len / 8;
		}
	}
	fclose(f);
	return w;
}

/* Reads PATH back with the project's reader and builds its slices; 0 on success. */
static int read_back(const char *path, struct fxt_trace *t)
{
	char errbuf[256];
	int err = fxt_trace_read(path, t, errbuf, sizeof(errbuf));

	if (err) {
		UNIT_FAIL("fxt_trace_read(%s): %s", path, errbuf);
		return err;
	}
	err = fxt_trace_slices(t);
	CHECK_INT_EQ(err, 0);
	return err;
}

static void check_no_problems(const struct fxt_trace *t)
{
	for (size_t i = 0; i < t->nproblems && i < 5; i++)
		UNIT_FAIL("problem: %s", t->problems[i]);
}

/* Pinned records: the words the writer must produce, computed by hand from the spec. */
static const struct {
	const char *what;
	uint64_t word;
} pinned[] = {
	{ "magic number record", 0x0016547846040010 },
	/* metadata type 1 | size 3 | name length 9 << 52 */
	{ "provider info header", 0x0090000000010030 },
	{ "provider name 'snaptrac'", 0x6361727470616e73 },
	{ "provider name 'e' + padding", 0x0000000000000065 },
	{ "initialization record header", 0x0000000000000021 },
	{ "ticks per second 1e9", 1000000000 },
	/* process "p [1]": string record index 1 len 5, then kernel object */
	{ "string record index 1 len 5", 0x0000000500010022 },
	{ "'p [1]' padded", 0x0000005d315b2070 },
	{ "kobj process, name ref 1, 0 args", 0x0000000001010027 },
	{ "koid 1", 1 },
	/* thread "t [2]": its name, then "process" (argument name), then kobj */
	{ "string record index 2 len 5", 0x0000000500020022 },
	{ "'t [2]' padded", 0x0000005d325b2074 },
	{ "string record index 3 len 7", 0x0000000700030022 },
	{ "'process' padded", 0x00737365636f7270 },
	{ "kobj thread, size 4, name ref 2, 1 arg", 0x0000010002020047 },
	{ "koid 2", 2 },
	{ "koid arg, size 2, name ref 3", 0x0000000000030028 },
	{ "arg value pid 1", 1 },
	/* begin "main" cat "c" at 1000 on 1/2: thread record, two strings, event */
	{ "thread record index 1", 0x0000000000010033 },
	{ "process koid 1", 1 },
	{ "thread koid 2", 2 },
	{ "string record index 4 len 1", 0x0000000100040022 },
	{ "'c' padded", 0x0000000000000063 },
	{ "string record index 5 len 4", 0x0000000400050022 },
	{ "'main' padded", 0x000000006e69616d },
	{ "begin event: thread 1, cat 4, name 5", 0x0005000401020024 },
	{ "timestamp 1000", 1000 },
	/* end at 2000: every ref already known, a bare 2-word record */
	{ "end event: thread 1, cat 4, name 5", 0x0005000401030024 },
	{ "timestamp 2000", 2000 },
	/* instant at 3000 with int64 -5 "n" and bool true "b" */
	{ "string record index 6 len 1", 0x0000000100060022 },
	{ "'n' padded", 0x000000000000006e },
	{ "string record index 7 len 1", 0x0000000100070022 },
	{ "'b' padded", 0x0000000000000062 },
	{ "instant event, 2 args, size 5", 0x0005000401200054 },
	{ "timestamp 3000", 3000 },
	{ "int64 arg, size 2, name ref 6", 0x0000000000060023 },
	{ "value -5", 0xfffffffffffffffb },
	{ "bool arg, size 1, name ref 7, value 1", 0x0000000100070019 },
};

static void writer_pinned_bytes(void)
{
	const char *path = unit_tmp("pinned.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_RAW);
	struct fxt_arg args[2] = {
		{ .type = FXT_ARG_INT64, .i64 = -5 },
		{ .type = FXT_ARG_BOOL, .b = true },
	};
	struct fxt_event ev = { .type = FXT_EVENT_BEGIN, .ts = 1000, .process_koid = 1, .thread_koid = 2 };
	uint64_t *words;
	size_t n, want = sizeof(pinned) / sizeof(pinned[0]);

	if (!w)
		return;
	CHECK_INT_EQ(fxt_writer_process(w, 1, fxt_writer_cstring(w, "p [1]")), 0);
	CHECK_INT_EQ(fxt_writer_thread(w, 1, 2, fxt_writer_cstring(w, "t [2]")), 0);
	ev.category = fxt_writer_cstring(w, "c");
	ev.name = fxt_writer_cstring(w, "main");
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	ev.type = FXT_EVENT_END;
	ev.ts = 2000;
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	args[0].name = fxt_writer_cstring(w, "n");
	args[1].name = fxt_writer_cstring(w, "b");
	ev.type = FXT_EVENT_INSTANT;
	ev.ts = 3000;
	ev.args = args;
	ev.nargs = 2;
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	CHECK_U64_EQ(fxt_writer_bytes(w), want * 8);
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	words = read_words(path, &n);
	CHECK(words != NULL);
	CHECK_INT_EQ(n, want);
	for (size_t i = 0; words && i < n && i < want; i++)
		if (words[i] != pinned[i].word)
			UNIT_FAIL("word %zu (%s): 0x%016llx, expected 0x%016llx", i, pinned[i].what,
				  (unsigned long long)words[i], (unsigned long long)pinned[i].word);
	free(words);
}

/* Writes one event of every type with arguments of every type; checks them read back. */
static void roundtrip(const char *path, enum fxt_output out)
{
	struct fxt_writer *w = open_or_fail(path, out);
	struct fxt_arg args[9];
	struct fxt_event ev[5];
	struct fxt_trace t;

	if (!w)
		return;
	CHECK_INT_EQ(fxt_writer_process(w, 100, fxt_writer_cstring(w, "demo [100]")), 0);
	CHECK_INT_EQ(fxt_writer_thread(w, 100, 101, fxt_writer_cstring(w, "worker [101]")), 0);
	CHECK_INT_EQ(fxt_writer_track(w, 100, FXT_TRACK_KOID_MIN, fxt_writer_cstring(w, "faults")), 0);
	args[0] = (struct fxt_arg){ .type = FXT_ARG_INT64, .i64 = INT64_MIN };
	args[1] = (struct fxt_arg){ .type = FXT_ARG_UINT64, .u64 = UINT64_MAX };
	args[2] = (struct fxt_arg){ .type = FXT_ARG_DOUBLE, .f64 = -1.0 / 3 };
	args[3] = (struct fxt_arg){ .type = FXT_ARG_STRING };
	args[4] = (struct fxt_arg){ .type = FXT_ARG_POINTER, .u64 = 0xffffffff81000000 };
	args[5] = (struct fxt_arg){ .type = FXT_ARG_KOID, .u64 = 77 };
	args[6] = (struct fxt_arg){ .type = FXT_ARG_BOOL, .b = true };
	args[7] = (struct fxt_arg){ .type = FXT_ARG_BOOL, .b = false };
	args[8] = (struct fxt_arg){ .type = FXT_ARG_UINT32, .u64 = 0x1fffffffeull };  /* low 32 bits */
	args[3].str = fxt_writer_cstring(w, "libc.so.6");
	for (int i = 0; i < 9; i++) {
		char name[16];

		snprintf(name, sizeof(name), "arg%d", i);
		args[i].name = fxt_writer_cstring(w, name);
	}
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "ev%d", i);
		ev[i] = (struct fxt_event){ .ts = 1000 + 10 * (uint64_t)i, .process_koid = 100, .thread_koid = 101,
					    .category = fxt_writer_cstring(w, "cat"),
					    .name = fxt_writer_cstring(w, name),
					    .args = args, .nargs = 9 };
	}
	ev[0].type = FXT_EVENT_BEGIN;
	ev[1].type = FXT_EVENT_INSTANT;
	ev[2].type = FXT_EVENT_COMPLETE;
	ev[2].end_ts = 1025;
	ev[3].type = FXT_EVENT_COUNTER;
	ev[3].counter_id = 0x123456789;
	ev[4].type = FXT_EVENT_END;
	ev[4].nargs = 0;
	ev[4].category = 0;     /* the empty string */
	for (int i = 0; i < 5; i++)
		CHECK_INT_EQ(fxt_writer_event(w, &ev[i]), 0);
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	CHECK_INT_EQ(unit_temps(), 0);
	if (read_back(path, &t))
		return;
	check_no_problems(&t);
	CHECK_U64_EQ(t.ticks_per_second, 1000000000);
	CHECK_INT_EQ(t.nevents, 5);
	for (size_t i = 0; i < t.nevents && i < 5; i++) {
		const struct fxt_revent *r = &t.events[i];
		char name[16];

		snprintf(name, sizeof(name), "ev%zu", i);
		CHECK_INT_EQ(r->type, ev[i].type);
		CHECK_U64_EQ(r->ts, ev[i].ts);
		CHECK_U64_EQ(r->process_koid, 100);
		CHECK_U64_EQ(r->thread_koid, 101);
		CHECK_STR_EQ(r->name, name);
		CHECK_STR_EQ(r->category, i == 4 ? "" : "cat");
		CHECK_INT_EQ(r->nargs, ev[i].nargs);
		if (r->nargs != 9)
			continue;
		CHECK_INT_EQ(r->args[0].type, FXT_ARG_INT64);
		CHECK_INT_EQ(r->args[0].i64, INT64_MIN);
		CHECK_INT_EQ(r->args[1].type, FXT_ARG_UINT64);
		CHECK_U64_EQ(r->args[1].u64, UINT64_MAX);
		CHECK_INT_EQ(r->args[2].type, FXT_ARG_DOUBLE);
		CHECK(r->args[2].f64 == -1.0 / 3);
		CHECK_INT_EQ(r->args[3].type, FXT_ARG_STRING);
		CHECK_STR_EQ(r->args[3].str, "libc.so.6");
		CHECK_INT_EQ(r->args[4].type, FXT_ARG_POINTER);
		CHECK_U64_EQ(r->args[4].u64, 0xffffffff81000000);
		CHECK_INT_EQ(r->args[5].type, FXT_ARG_KOID);
		CHECK_U64_EQ(r->args[5].u64, 77);
		CHECK_INT_EQ(r->args[6].type, FXT_ARG_BOOL);
		CHECK(r->args[6].b);
		CHECK_INT_EQ(r->args[7].type, FXT_ARG_BOOL);
		CHECK(!r->args[7].b);
		CHECK_STR_EQ(r->args[7].name, "arg7");
		CHECK_INT_EQ(r->args[8].type, FXT_ARG_UINT64);	/* uint32 reads back as UINT64 */
		CHECK_U64_EQ(r->args[8].u64, 0xfffffffe);
	}
	if (t.nevents == 5) {
		CHECK_U64_EQ(t.events[2].end_ts, 1025);
		CHECK_U64_EQ(t.events[3].counter_id, 0x123456789);
	}
	CHECK_INT_EQ(t.nkobjs, 3);
	if (t.nkobjs == 3) {
		CHECK_INT_EQ(t.kobjs[0].obj_type, FXT_ZX_OBJ_PROCESS);
		CHECK_U64_EQ(t.kobjs[0].koid, 100);
		CHECK_STR_EQ(t.kobjs[0].name, "demo [100]");
		CHECK_INT_EQ(t.kobjs[1].obj_type, FXT_ZX_OBJ_THREAD);
		CHECK_U64_EQ(t.kobjs[1].koid, 101);
		CHECK_U64_EQ(t.kobjs[1].process, 100);
		CHECK_STR_EQ(t.kobjs[1].name, "worker [101]");
		CHECK(!t.kobjs[1].track);
		/* a track: a thread object of the process (for Perfetto), marked */
		CHECK_INT_EQ(t.kobjs[2].obj_type, FXT_ZX_OBJ_THREAD);
		CHECK_U64_EQ(t.kobjs[2].koid, FXT_TRACK_KOID_MIN);
		CHECK_U64_EQ(t.kobjs[2].process, 100);
		CHECK_STR_EQ(t.kobjs[2].name, "faults");
		CHECK(t.kobjs[2].track);
		CHECK_INT_EQ(t.kobjs[2].nargs, 2);
	}
	/* begin ev0 [1000, 1040] holds complete ev2 [1020, 1025]; instant ev1 inside */
	CHECK_INT_EQ(t.nslices, 2);
	CHECK_INT_EQ(t.ninstants, 1);
	if (t.nslices == 2 && t.ninstants == 1) {
		CHECK_STR_EQ(t.slices[0].ev->name, "ev0");
		CHECK_U64_EQ(t.slices[0].end, 1040);
		CHECK_INT_EQ(t.slices[1].depth, 1);
		CHECK_U64_EQ(t.slices[1].end, 1025);
		CHECK_INT_EQ(t.instants[0].depth, 1);
	}
	fxt_trace_free(&t);
}

static void writer_roundtrip_raw(void)
{
	roundtrip(unit_tmp("rt.fxt"), FXT_OUTPUT_AUTO);
}

static void writer_roundtrip_gzip(void)
{
	const char *path = unit_tmp("rt.fxt.gz");
	FILE *f;
	int c1, c2;

	roundtrip(path, FXT_OUTPUT_AUTO);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	c1 = fgetc(f);
	c2 = fgetc(f);
	fclose(f);
	CHECK(c1 == 0x1f && c2 == 0x8b);
}

/* A thread and its process, named. */
static void name_thread(struct fxt_writer *w, uint64_t pid, uint64_t tid)
{
	char name[64];

	snprintf(name, sizeof(name), "p [%llu]", (unsigned long long)pid);
	CHECK_INT_EQ(fxt_writer_process(w, pid, fxt_writer_cstring(w, name)), 0);
	snprintf(name, sizeof(name), "t [%llu]", (unsigned long long)tid);
	CHECK_INT_EQ(fxt_writer_thread(w, pid, tid, fxt_writer_cstring(w, name)), 0);
}

/* 45,000 distinct names (and string argument values) reuse recycled indexes. */
static void writer_string_recycling(void)
{
	enum { N = 45000 };
	const char *path = unit_tmp("strings.fxt.gz");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_AUTO);
	fxt_string_id *ids = malloc(N * sizeof(*ids));
	struct fxt_arg arg = { .type = FXT_ARG_STRING };
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1, .args = &arg,
				.nargs = 1 };
	struct fxt_trace t;
	size_t bad = 0;

	if (!w || !ids) {
		free(ids);
		return;
	}
	name_thread(w, 1, 1);
	for (int i = 0; i < N; i++) {
		char s[32];

		snprintf(s, sizeof(s), "function_%d", i);
		ids[i] = fxt_writer_cstring(w, s);
	}
	arg.name = fxt_writer_cstring(w, "sym");
	ev.category = fxt_writer_cstring(w, "cat");
	/* every name once, then a second pass in a shuffled order over evicted ones */
	for (int i = 0; i < 2 * N; i++) {
		int k = i < N ? i : (int)(((uint64_t)(i - N) * 7919) % N);

		ev.ts = (uint64_t)i;
		ev.name = ids[k];
		arg.str = ids[(k + 1) % N];
		CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	}
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	if (read_back(path, &t)) {
		free(ids);
		return;
	}
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 2 * N);
	for (size_t i = 0; i < t.nevents; i++) {
		int k = i < N ? (int)i : (int)(((uint64_t)(i - N) * 7919) % N);
		char s[32], v[32];

		snprintf(s, sizeof(s), "function_%d", k);
		snprintf(v, sizeof(v), "function_%d", (k + 1) % N);
		if (strcmp(t.events[i].name, s) || t.events[i].nargs != 1 ||
		    strcmp(t.events[i].args[0].str, v) || strcmp(t.events[i].args[0].name, "sym") ||
		    strcmp(t.events[i].category, "cat")) {
			if (!bad++)
				UNIT_FAIL("event %zu: name \"%s\" arg \"%s\", expected \"%s\" "
					  "\"%s\"", i, t.events[i].name,
					  t.events[i].nargs ? t.events[i].args[0].str : "", s, v);
		}
	}
	CHECK_INT_EQ(bad, 0);
	fxt_trace_free(&t);
	free(ids);
}

/* 300 threads in 3 processes, interleaved: each event on its own thread. */
static void writer_thread_recycling(void)
{
	enum { NT = 300, ROUNDS = 4 };
	const char *path = unit_tmp("threads.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_AUTO);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT };
	struct fxt_trace t;
	size_t bad = 0;

	if (!w)
		return;
	for (int i = 0; i < NT; i++)
		name_thread(w, 1000 + (uint64_t)(i % 3), 5000 + (uint64_t)i);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < NT; i++) {
			/* odd rounds go backwards, so LRU victims differ from round to round */
			int k = r % 2 ? NT - 1 - i : (i * 7) % NT;
			char name[32];

			snprintf(name, sizeof(name), "ev_%d", k);
			ev.process_koid = 1000 + (uint64_t)(k % 3);
			ev.thread_koid = 5000 + (uint64_t)k;
			ev.ts = (uint64_t)(r * NT + i);
			ev.name = fxt_writer_cstring(w, name);
			CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
		}
	}
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	if (read_back(path, &t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, NT * ROUNDS);
	for (size_t i = 0; i < t.nevents; i++) {
		int k;

		if (sscanf(t.events[i].name, "ev_%d", &k) != 1 ||
		    t.events[i].process_koid != 1000 + (uint64_t)(k % 3) ||
		    t.events[i].thread_koid != 5000 + (uint64_t)k) {
			if (!bad++)
				UNIT_FAIL("event %zu \"%s\" on %llu/%llu", i, t.events[i].name,
					  (unsigned long long)t.events[i].process_koid,
					  (unsigned long long)t.events[i].thread_koid);
		}
	}
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(t.ninstants, NT * ROUNDS);
	fxt_trace_free(&t);
}

/*
 * Walks the records of the raw FXT file PATH: every record's size is
 * non-zero and within the file, the walk ends exactly at the end of the
 * file. Returns the largest record size in words, 0 on a bad walk.
 */
static size_t walk_records(const char *path, size_t *nrecords)
{
	size_t n, max = 0, i = 0;
	uint64_t *w = read_words(path, &n);

	*nrecords = 0;
	if (!w)
		return 0;
	while (i < n) {
		size_t size = FXT_FIELD(w[i], FXT_HDR_SIZE_FIRST, FXT_HDR_SIZE_LAST);

		if (size == 0 || size > n - i) {
			free(w);
			return 0;
		}
		if (size > max)
			max = size;
		i += size;
		++*nrecords;
	}
	free(w);
	return max;
}

static void writer_truncation(void)
{
	enum { LEN = 40000 };
	static const char marker[] = FXT_STRING_TRUNCATED_MARKER;
	const char *path = unit_tmp("long.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_RAW);
	char *name = malloc(LEN), *utf8 = malloc(LEN);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };
	size_t mlen = sizeof(marker) - 1, nrec;
	struct fxt_trace t;

	if (!w || !name || !utf8)
		goto out;
	for (int i = 0; i < LEN; i++)
		name[i] = (char)('a' + i % 26);
	/* 3-byte characters (U+20AC), so that a byte cut would split one */
	for (int i = 0; i < LEN; i++)
		utf8[i] = "\xe2\x82\xac"[i % 3];
	name_thread(w, 1, 1);
	ev.name = fxt_writer_string(w, name, LEN);
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	ev.name = fxt_writer_string(w, utf8, LEN - LEN % 3);
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	w = NULL;
	CHECK(walk_records(path, &nrec) * 8 <= 32760);
	CHECK(walk_records(path, &nrec) * 8 >= FXT_STRING_MAX_BYTES);
	if (read_back(path, &t))
		goto out;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 2);
	if (t.nevents == 2) {
		const char *a = t.events[0].name, *b = t.events[1].name;
		size_t la = strlen(a), lb = strlen(b);

		CHECK_INT_EQ(la, FXT_STRING_MAX_BYTES);
		CHECK(la >= mlen && strcmp(a + la - mlen, marker) == 0);
		CHECK(memcmp(a, name, la - mlen) == 0);
		/* whole characters only: the kept part is a multiple of 3 bytes */
		CHECK(lb >= mlen && strcmp(b + lb - mlen, marker) == 0);
		CHECK_INT_EQ((lb - mlen) % 3, 0);
		CHECK(lb <= FXT_STRING_MAX_BYTES && lb > FXT_STRING_MAX_BYTES - mlen - 3);
		CHECK(memcmp(b, utf8, lb - mlen) == 0);
	}
	fxt_trace_free(&t);
out:
	if (w)
		fxt_writer_abort(w);
	free(name);
	free(utf8);
}

/* Strings of every length 1..24 keep records 8-byte aligned with zero padding. */
static void writer_alignment(void)
{
	const char *path = unit_tmp("align.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_RAW);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };
	char s[32];
	size_t n, nrec, i = 0, strings = 0;
	uint64_t *words;

	if (!w)
		return;
	name_thread(w, 1, 1);
	for (int len = 1; len <= 24; len++) {
		memset(s, 'x', sizeof(s));
		ev.name = fxt_writer_string(w, s, (size_t)len);
		CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	}
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	CHECK(walk_records(path, &nrec) > 0);
	words = read_words(path, &n);
	CHECK(words != NULL);
	/* each string record: size = 1 + ceil(len / 8), padding bytes zero */
	while (words && i < n) {
		size_t size = FXT_FIELD(words[i], FXT_HDR_SIZE_FIRST, FXT_HDR_SIZE_LAST);

		if (FXT_FIELD(words[i], 0, 3) == FXT_REC_STRING) {
			size_t len = FXT_FIELD(words[i], FXT_STRING_LEN_FIRST, FXT_STRING_LEN_LAST);
			uint64_t last = words[i + size - 1];

			CHECK_INT_EQ(size, 1 + (len + 7) / 8);
			if (len % 8)
				CHECK_U64_EQ(last >> (8 * (len % 8)), 0);
			strings++;
		}
		i += size ? size : n;
	}
	CHECK_INT_EQ(strings, 24 + 3);   /* 24 names, 2 object names, "process" */
	free(words);
}

/* The malformed calls, each made on a writer of its own: what it returns. */
enum bad_call {
	BAD_NARGS, BAD_ARG_TYPE, BAD_ARG_STRING, BAD_END_TS, BAD_EVENT_TYPE, BAD_NAME,
	BAD_PROCESS_NAME, BAD_THREAD_NAME, BAD_INFO_KEY, BAD_INFO_VALUE, BAD_TS, BAD_CALLS,
};

static int bad_call(struct fxt_writer *w, enum bad_call kind, fxt_string_id ok)
{
	struct fxt_arg args[16] = { { .type = FXT_ARG_BOOL } };
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1,
				.name = ok, .args = args, .nargs = 1 };

	switch (kind) {
	case BAD_NARGS:
		ev.nargs = 16;
		break;
	case BAD_ARG_TYPE:
		args[0].type = (enum fxt_arg_type)1;          /* int32: not writable */
		break;
	case BAD_ARG_STRING:
		args[0].type = FXT_ARG_STRING;
		args[0].str = 999;                             /* never interned */
		break;
	case BAD_END_TS:
		ev.type = FXT_EVENT_COMPLETE;
		ev.ts = 10;
		ev.end_ts = 9;
		break;
	case BAD_EVENT_TYPE:
		ev.type = (enum fxt_event_type)5;
		break;
	case BAD_NAME:
		ev.name = 12345;
		break;
	case BAD_PROCESS_NAME:
		return fxt_writer_process(w, 1, 12345);
	case BAD_THREAD_NAME:
		return fxt_writer_thread(w, 1, 2, 12345);
	case BAD_INFO_KEY:
		return fxt_writer_info(w, ok, 0, ok);
	case BAD_INFO_VALUE:
		return fxt_writer_info(w, ok, ok, 999);
	case BAD_TS:
		ev.ts = FXT_TS_MAX + 1;
		break;
	case BAD_CALLS:
		break;
	}
	return fxt_writer_event(w, &ev);
}

/* Every error is sticky: a malformed call writes nothing and fails the
 * writer for good (the next valid call returns the same error,
 * fxt_writer_error() holds it, close reports it and leaves no file), so a
 * caller that checks only at close never gets a trace missing a record. */
static void writer_invalid_event(void)
{
	const char *path = unit_tmp("invalid.fxt");

	for (int kind = 0; kind < BAD_CALLS; kind++) {
		struct fxt_writer *w = open_or_fail(path, kind % 2 ? FXT_OUTPUT_GZIP : FXT_OUTPUT_RAW);
		struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };
		int want = kind == BAD_TS ? -ERANGE : -EINVAL, err;
		uint64_t before;

		if (!w)
			return;
		ev.name = fxt_writer_cstring(w, "ok");
		CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
		CHECK_INT_EQ(fxt_writer_error(w), 0);
		before = fxt_writer_bytes(w);
		err = bad_call(w, (enum bad_call)kind, ev.name);
		if (err != want)
			UNIT_FAIL("bad call %d: returned %d, expected %d", kind, err, want);
		CHECK_U64_EQ(fxt_writer_bytes(w), before);
		CHECK_INT_EQ(fxt_writer_error(w), want);
		CHECK_INT_EQ(fxt_writer_event(w, &ev), want);           /* sticky */
		CHECK_INT_EQ(fxt_writer_process(w, 1, ev.name), want);
		CHECK_INT_EQ(fxt_writer_thread(w, 1, 1, ev.name), want);
		CHECK_INT_EQ(fxt_writer_info(w, ev.name, ev.name, ev.name), want);
		CHECK_U64_EQ(fxt_writer_bytes(w), before);
		CHECK_INT_EQ(fxt_writer_close(w), want);
		CHECK(!unit_exists(path));
		CHECK_INT_EQ(unit_temps(), 0);
	}
}

/* What FXT forbids in a string (NUL, ill-formed UTF-8) is written as
 * U+FFFD, one per byte; the file has no problem; a long invalid string is
 * still cut at a character boundary with the marker. */
static void writer_invalid_utf8(void)
{
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{ "a\0b", 3, "a\xef\xbf\xbd" "b" },
		{ "x\xffy", 3, "x\xef\xbf\xbdy" },
		{ "\xc3", 1, "\xef\xbf\xbd" },                       /* cut short */
		{ "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" },       /* overlong '/' */
		{ "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xf4\x90\x80\x80", 4,                               /* past U+10FFFF */
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf0\x9f\x98\x80 ok \xc3\xa9", 10, "\xf0\x9f\x98\x80 ok \xc3\xa9" },
	};
	enum { N = sizeof(cases) / sizeof(cases[0]), LONG = 3000 };
	static const char marker[] = FXT_STRING_TRUNCATED_MARKER;
	const char *path = unit_tmp("utf8.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_RAW);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };
	char junk[LONG];
	struct fxt_trace t;
	int err;

	if (!w)
		return;
	memset(junk, 0xff, sizeof(junk));	/* 3 bytes out for each: past the limit */
	name_thread(w, 1, 1);
	for (int i = 0; i < N; i++) {
		ev.name = fxt_writer_string(w, cases[i].in, cases[i].len);
		CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	}
	ev.name = fxt_writer_string(w, junk, sizeof(junk));
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	CHECK_INT_EQ(fxt_writer_close(w), 0);
	if (read_back(path, &t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, N + 1);
	for (int i = 0; i < N && (size_t)i < t.nevents; i++)
		CHECK_STR_EQ(t.events[i].name, cases[i].out);
	if (t.nevents == N + 1) {
		const char *l = t.events[N].name;
		size_t n = strlen(l), m = sizeof(marker) - 1;

		CHECK(n <= FXT_STRING_MAX_BYTES && n > FXT_STRING_MAX_BYTES - m - 3);
		CHECK(n >= m && !strcmp(l + n - m, marker));
		CHECK_INT_EQ((n - m) % 3, 0);
		CHECK(!memcmp(l, "\xef\xbf\xbd\xef\xbf\xbd", 6));
	}
	fxt_trace_free(&t);
	/* the provider name, written inline, is cut before what is not allowed */
	w = fxt_writer_open(path, FXT_OUTPUT_RAW, "prov\xffider", &err);
	CHECK(w != NULL);
	if (!w || fxt_writer_close(w) || read_back(path, &t))
		return;
	check_no_problems(&t);
	fxt_trace_free(&t);
}

/* A time Perfetto would drop (past INT64_MAX ns) is never written: the
 * writer fails for good, so the conversion fails instead of losing events. */
static void writer_time_range(void)
{
	const char *path = unit_tmp("range.fxt");
	struct fxt_writer *w = open_or_fail(path, FXT_OUTPUT_RAW);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .process_koid = 1, .thread_koid = 1 };

	if (!w)
		return;
	ev.name = fxt_writer_cstring(w, "e");
	ev.ts = FXT_TS_MAX;
	CHECK_INT_EQ(fxt_writer_event(w, &ev), 0);
	ev.type = FXT_EVENT_COMPLETE;
	ev.ts = 1;
	ev.end_ts = FXT_TS_MAX + 1;
	CHECK_INT_EQ(fxt_writer_event(w, &ev), -ERANGE);
	ev.type = FXT_EVENT_INSTANT;
	CHECK_INT_EQ(fxt_writer_event(w, &ev), -ERANGE);	/* sticky */
	CHECK_INT_EQ(fxt_writer_close(w), -ERANGE);
	CHECK(!unit_exists(path));
	CHECK_INT_EQ(unit_temps(), 0);
}

int main(void)
{
	if (unit_tmp_init("test_fxt_writer"))
		return 1;
	UNIT_RUN(writer_pinned_bytes);
	UNIT_RUN(writer_roundtrip_raw);
	UNIT_RUN(writer_roundtrip_gzip);
	UNIT_RUN(writer_string_recycling);
	UNIT_RUN(writer_thread_recycling);
	UNIT_RUN(writer_truncation);
	UNIT_RUN(writer_alignment);
	UNIT_RUN(writer_invalid_event);
	UNIT_RUN(writer_invalid_utf8);
	UNIT_RUN(writer_time_range);
	unit_tmp_fini();
	return unit_exit();
}
