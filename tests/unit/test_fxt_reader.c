// SPDX-License-Identifier: MIT
/*
 * Unit tests of the FXT reader on hand-built files (words assembled here
 * from the spec, not by the writer): inline string and thread refs, 32-bit
 * and null arguments, redefined indexes, and every deviation it must report
 * as a problem (unregistered refs, unknown record types, truncated last
 * record, large records, bad sizes, damaged gzip), plus the records dump;
 * records larger than the reader's first window and indexes far past its
 * first string table (both grow with the file).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fxt_format.h"
#include "fxt_reader.h"
#include "unit.h"
#include "unit_tmp.h"

static char path[256];

/* A file being assembled, word by word. */
static uint64_t words[1 << 15];
static size_t nwords;

static void put(uint64_t w)
{
	words[nwords++] = w;
}

/* Puts LEN bytes of S, zero-padded to whole words. */
static void put_bytes(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = 0;

		for (size_t k = 0; k < 8 && i + k < len; k++)
			w |= (uint64_t)(uint8_t)s[i + k] << (8 * k);
		put(w);
	}
}

static uint64_t hdr(unsigned type, unsigned size)
{
	return type | (uint64_t)size << 4;
}

static void start(void)
{
	nwords = 0;
	put(FXT_MAGIC_RECORD);
}

static void string_rec(unsigned index, const char *s)
{
	size_t len = strlen(s);

	put(hdr(FXT_REC_STRING, 1 + (unsigned)(len + 7) / 8) | (uint64_t)index << 16 |
	    (uint64_t)len << 32);
	put_bytes(s, len);
}

static void thread_rec(unsigned index, uint64_t pid, uint64_t tid)
{
	put(hdr(FXT_REC_THREAD, 3) | (uint64_t)index << 16);
	put(pid);
	put(tid);
}

static uint64_t event_hdr(unsigned type, unsigned size, unsigned nargs, unsigned thread,
			  unsigned cat, unsigned name)
{
	return hdr(FXT_REC_EVENT, size) | (uint64_t)type << 16 | (uint64_t)nargs << 20 |
	       (uint64_t)thread << 24 | (uint64_t)cat << 32 | (uint64_t)name << 48;
}

/* Writes the words to NAME in the scratch directory, gzip-compressed if GZ. */
static const char *save(const char *name, bool gz)
{
	static uint8_t bytes[sizeof(words)];

	for (size_t i = 0; i < nwords; i++)
		for (int k = 0; k < 8; k++)
			bytes[i * 8 + k] = (uint8_t)(words[i] >> (8 * k));
	snprintf(path, sizeof(path), "%s", unit_tmp(name));
	if (gz) {
		gzFile f = gzopen(path, "wb");

		CHECK(f != NULL);
		if (f) {
			CHECK(gzwrite(f, bytes, (unsigned)(nwords * 8)) == (int)(nwords * 8));
			gzclose(f);
		}
	} else {
		FILE *f = fopen(path, "wb");

		CHECK(f != NULL);
		if (f) {
			CHECK(fwrite(bytes, 8, nwords, f) == nwords);
			fclose(f);
		}
	}
	return path;
}

static int load(const char *p, struct fxt_trace *t)
{
	char errbuf[256];
	int err = fxt_trace_read(p, t, errbuf, sizeof(errbuf));

	if (err)
		UNIT_FAIL("fxt_trace_read(%s): %s", p, errbuf);
	return err;
}

static bool has_problem(const struct fxt_trace *t, const char *text)
{
	for (size_t i = 0; i < t->nproblems; i++)
		if (strstr(t->problems[i], text))
			return true;
	for (size_t i = 0; i < t->nproblems; i++)
		printf("    problem: %s\n", t->problems[i]);
	return false;
}

static void check_no_problems(const struct fxt_trace *t)
{
	for (size_t i = 0; i < t->nproblems && i < 5; i++)
		UNIT_FAIL("problem: %s", t->problems[i]);
}

static void reader_not_fxt(void)
{
	struct fxt_trace t;
	char errbuf[256] = "";

	nwords = 0;
	put(0x1234);
	put(0);
	CHECK_INT_EQ(fxt_trace_read(save("bad.fxt", false), &t, errbuf, sizeof(errbuf)),
		     -EBADMSG);
	CHECK(strstr(errbuf, "not an FXT file") != NULL);
	nwords = 0;
	CHECK_INT_EQ(fxt_trace_read(save("empty.fxt", false), &t, errbuf, sizeof(errbuf)),
		     -EBADMSG);
	snprintf(path, sizeof(path), "%s", unit_tmp("missing.fxt"));
	errbuf[0] = 0;
	CHECK_INT_EQ(fxt_trace_read(path, &t, errbuf, sizeof(errbuf)), -ENOENT);
	CHECK(strstr(errbuf, "missing.fxt") != NULL);
}

/* Inline thread, inline category/name/arg name/arg value, 32-bit and null args. */
static void reader_inline_refs(void)
{
	struct fxt_trace t;
	const struct fxt_revent *e;

	start();
	/* instant: inline thread (2 words), cat "c" (1), name "inline!" (1), 4 args */
	put(event_hdr(FXT_EV_INSTANT, 2 + 2 + 1 + 1 + 2 + 2 + 5 + 1, 4, 0,
		      0x8000 | 1, 0x8000 | 7));
	put(77);                     /* ts */
	put(5);                      /* pid */
	put(6);                      /* tid */
	put_bytes("c", 1);
	put_bytes("inline!", 7);
	/* int32 -2, name inline "i32" */
	put(FXT_WARG_INT32 | 2 << 4 | (uint64_t)(0x8000 | 3) << 16 |
	    (uint64_t)(uint32_t)-2 << 32);
	put_bytes("i32", 3);
	/* uint32 4000000000, name inline "u32" */
	put(FXT_WARG_UINT32 | 2 << 4 | (uint64_t)(0x8000 | 3) << 16 | (uint64_t)4000000000u << 32);
	put_bytes("u32", 3);
	/* string: name inline "k" (1 word), value inline "a value of 17 ch." (3 words) */
	put(FXT_WARG_STRING | 5 << 4 | (uint64_t)(0x8000 | 1) << 16 |
	    (uint64_t)(0x8000 | 17) << 32);
	put_bytes("k", 1);
	put_bytes("a value of 17 ch.", 17);
	/* null, name "" */
	put(FXT_WARG_NULL | 1 << 4);
	/* a process object with an inline name */
	put(hdr(FXT_REC_KERNEL_OBJECT, 3) | (uint64_t)FXT_ZX_OBJ_PROCESS << 16 |
	    (uint64_t)(0x8000 | 4) << 24);
	put(5);
	put_bytes("proc", 4);
	if (load(save("inline.fxt", false), &t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 1);
	CHECK_INT_EQ(t.nrecords, 3);
	if (t.nevents != 1)
		goto out;
	e = &t.events[0];
	CHECK_U64_EQ(e->ts, 77);
	CHECK_U64_EQ(e->process_koid, 5);
	CHECK_U64_EQ(e->thread_koid, 6);
	CHECK_STR_EQ(e->category, "c");
	CHECK_STR_EQ(e->name, "inline!");
	CHECK_INT_EQ(e->nargs, 4);
	if (e->nargs == 4) {
		CHECK_STR_EQ(e->args[0].name, "i32");
		CHECK_INT_EQ(e->args[0].type, FXT_ARG_INT64);
		CHECK_INT_EQ(e->args[0].i64, -2);
		CHECK_STR_EQ(e->args[1].name, "u32");
		CHECK_INT_EQ(e->args[1].type, FXT_ARG_UINT64);
		CHECK_U64_EQ(e->args[1].u64, 4000000000u);
		CHECK_STR_EQ(e->args[2].name, "k");
		CHECK_STR_EQ(e->args[2].str, "a value of 17 ch.");
		CHECK_STR_EQ(e->args[3].name, "");
		CHECK_STR_EQ(e->args[3].str, "null");
	}
	CHECK_INT_EQ(t.nkobjs, 1);
	if (t.nkobjs == 1)
		CHECK_STR_EQ(t.kobjs[0].name, "proc");
out:
	fxt_trace_free(&t);
}

/* A string or thread record redefines its index for the records after it. */
static void reader_index_redefinition(void)
{
	struct fxt_trace t;

	start();
	string_rec(1, "first");
	thread_rec(1, 10, 11);
	put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 0, 1));
	put(1);
	string_rec(1, "second");
	thread_rec(1, 20, 21);
	put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 0, 1));
	put(2);
	if (load(save("redef.fxt.gz", true), &t))
		return;
	check_no_problems(&t);
	CHECK_INT_EQ(t.nevents, 2);
	if (t.nevents == 2) {
		CHECK_STR_EQ(t.events[0].name, "first");
		CHECK_U64_EQ(t.events[0].thread_koid, 11);
		CHECK_STR_EQ(t.events[1].name, "second");
		CHECK_U64_EQ(t.events[1].process_koid, 20);
		CHECK_U64_EQ(t.events[1].thread_koid, 21);
	}
	fxt_trace_free(&t);
}

static void reader_unregistered_refs(void)
{
	struct fxt_trace t;

	start();
	thread_rec(1, 10, 11);
	put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 0, 9));      /* string 9 undefined */
	put(1);
	put(event_hdr(FXT_EV_INSTANT, 2, 0, 7, 0, 0));      /* thread 7 undefined */
	put(2);
	if (load(save("unreg.fxt", false), &t))
		return;
	CHECK_INT_EQ(t.nproblems, 2);
	CHECK(has_problem(&t, "record 2: unregistered string index 9"));
	CHECK(has_problem(&t, "record 3: unregistered thread index 7"));
	CHECK_INT_EQ(t.nevents, 2);
	if (t.nevents == 2) {
		CHECK_STR_EQ(t.events[0].name, "<unregistered string 9>");
		CHECK_U64_EQ(t.events[1].process_koid, 0);
		CHECK_U64_EQ(t.events[1].thread_koid, 0);
	}
	fxt_trace_free(&t);
}

/* The reader's window and string table start small and grow: a string of
 * FXT's largest length (a 4,001-word record, larger than the first window)
 * at the highest index, 32767, then a ref to an index past any table yet
 * allocated (unregistered, never read out of bounds), then enough records
 * to cross the window again, in a raw and a gzip file. */
static void reader_window_and_table_grow(void)
{
	enum { LONG = FXT_STRING_LEN_MAX };
	char *big = malloc(LONG + 1);
	struct fxt_trace t;

	if (!big) {
		UNIT_FAIL("out of memory");
		return;
	}
	for (int gz = 0; gz < 2; gz++) {
		start();
		string_rec(1, "small");
		thread_rec(1, 10, 11);
		memset(big, 'x', LONG);
		big[LONG] = 0;
		big[0] = gz ? 'g' : 'r';
		string_rec(FXT_STRING_INDEX_MAX, big);
		put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 1, FXT_STRING_INDEX_MAX));
		put(1);
		put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 1, 20000));	/* never defined */
		put(2);
		for (int i = 0; i < 300; i++) {	/* past the first 16 KiB again */
			put(event_hdr(FXT_EV_INSTANT, 2, 0, 1, 0, 1));
			put(3 + (uint64_t)i);
		}
		if (load(save(gz ? "grow.fxt.gz" : "grow.fxt", gz), &t))
			break;
		CHECK_INT_EQ(t.nproblems, 1);
		CHECK(has_problem(&t, "unregistered string index 20000"));
		CHECK_INT_EQ(t.nevents, 302);
		if (t.nevents == 302) {
			CHECK_INT_EQ(strlen(t.events[0].name), LONG);
			CHECK(t.events[0].name[0] == big[0] && t.events[0].name[LONG - 1] == 'x');
			CHECK_STR_EQ(t.events[0].category, "small");
			CHECK_STR_EQ(t.events[1].name, "<unregistered string 20000>");
			CHECK_STR_EQ(t.events[301].name, "small");
			CHECK_U64_EQ(t.events[301].ts, 302);
		}
		fxt_trace_free(&t);
	}
	free(big);
}

/* Perfetto starts fresh tables at a provider info record. */
static void reader_provider_resets_tables(void)
{
	struct fxt_trace t;

	start();
	string_rec(1, "before");
	put(hdr(FXT_REC_METADATA, 2) | (uint64_t)FXT_META_PROVIDER_INFO << 16 |
	    (uint64_t)3 << 52);
	put_bytes("prv", 3);
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 1));
	put(1);
	put(1);
	put(2);
	if (load(save("provider.fxt", false), &t))
		return;
	CHECK(has_problem(&t, "unregistered string index 1"));
	fxt_trace_free(&t);
}

static void reader_unknown_and_large_records(void)
{
	struct fxt_trace t;

	start();
	string_rec(1, "n");
	put(hdr(12, 2));                          /* unknown type 12, 2 words */
	put(0xdeadbeef);
	put(hdr(FXT_REC_LOG, 1));                 /* known, skipped quietly */
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 1));
	put(5);
	put(1);
	put(2);
	put(FXT_REC_LARGE | (uint64_t)2 << 4);    /* large record: 32-bit size, 2 words */
	put(0);
	put(event_hdr(FXT_EV_ASYNC_BEGIN, 5, 0, 0, 0, 1));
	put(6);
	put(1);
	put(2);
	put(99);                                  /* correlation id */
	if (load(save("unknown.fxt", false), &t))
		return;
	CHECK_INT_EQ(t.nproblems, 3);
	CHECK(has_problem(&t, "record 2: unknown record type 12"));
	CHECK(has_problem(&t, "record 5: large record (type 15)"));
	CHECK(has_problem(&t, "record 6: event type 5 (async/flow) is not supported"));
	CHECK_INT_EQ(t.nevents, 1);
	CHECK_INT_EQ(t.nrecords, 7);
	fxt_trace_free(&t);
}

static void reader_truncated_last_record(void)
{
	struct fxt_trace t;

	start();
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 0));
	put(5);
	put(1);
	put(2);
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 0));   /* claims 4 words, has 2 */
	put(6);
	if (load(save("trunc.fxt", false), &t))
		return;
	CHECK_INT_EQ(t.nproblems, 1);
	CHECK(has_problem(&t, "record 2: truncated last record: 4 words, 16 bytes left"));
	CHECK_STR_EQ(t.cut, "its last record is cut (record 2: 16 of 32 bytes)");
	CHECK_INT_EQ(t.nevents, 1);
	fxt_trace_free(&t);
}

static void reader_bad_sizes(void)
{
	struct fxt_trace t;

	start();
	/* event claims 5 words, content is 4 */
	put(event_hdr(FXT_EV_INSTANT, 5, 0, 0, 0, 0));
	put(5);
	put(1);
	put(2);
	put(0);
	/* an argument claims 3 words for an int64 (2) */
	put(event_hdr(FXT_EV_INSTANT, 7, 1, 0, 0, 0));
	put(6);
	put(1);
	put(2);
	put(FXT_WARG_INT64 | 3 << 4);
	put(42);
	put(0);
	/* an argument claims more words than the record has */
	put(event_hdr(FXT_EV_INSTANT, 5, 1, 0, 0, 0));
	put(7);
	put(1);
	put(2);
	put(FXT_WARG_INT64 | 9 << 4);
	/* size 0: the reader cannot go on */
	put(hdr(FXT_REC_EVENT, 0));
	put(0);
	if (load(save("sizes.fxt", false), &t))
		return;
	CHECK(has_problem(&t, "record 1: record type 4: size 5 words, content 4 words"));
	CHECK(has_problem(&t, "record 2: argument 0 (): size 3 words, content 2 words"));
	CHECK(has_problem(&t, "record 3: argument 0: size 9 words does not fit"));
	CHECK(has_problem(&t, "record 4: record at byte 144 has size 0"));
	CHECK_INT_EQ(t.nproblems, 5);   /* record 3 also runs past its size */
	CHECK_INT_EQ(t.nevents, 2);
	if (t.nevents == 2 && t.events[1].nargs == 1)
		CHECK_INT_EQ(t.events[1].args[0].i64, 42);
	fxt_trace_free(&t);
}

/* A gzip file cut short: what inflated is read, the damage is a problem. */
static void reader_gzip_truncated(void)
{
	struct fxt_trace t;
	char name[300], cut[300];
	FILE *in, *out;
	uint8_t buf[65536];
	size_t n;

	start();
	for (int i = 0; i < 1000; i++) {
		put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 0));
		put((uint64_t)i * 7919 % 100003);
		put(1);
		put(2);
	}
	snprintf(name, sizeof(name), "%s", save("full.fxt.gz", true));
	snprintf(cut, sizeof(cut), "%s", unit_tmp("cut.fxt.gz"));
	in = fopen(name, "rb");
	out = fopen(cut, "wb");
	CHECK(in && out);
	if (!in || !out)
		return;
	n = fread(buf, 1, sizeof(buf), in);
	CHECK(n > 100);
	fwrite(buf, 1, n / 2, out);
	fclose(in);
	fclose(out);
	if (load(cut, &t))
		return;
	CHECK(has_problem(&t, "gzip stream damaged"));
	CHECK(!strncmp(t.cut, "the gzip stream is cut or damaged after ", 40));
	CHECK(strstr(t.cut, "<fd:") == NULL);	/* zlib's prefix left out */
	CHECK(t.nevents > 0 && t.nevents < 1000);
	fxt_trace_free(&t);
	if (load(name, &t))	/* the whole stream: not cut */
		return;
	CHECK_STR_EQ(t.cut, "");
	CHECK_INT_EQ(t.nevents, 1000);
	fxt_trace_free(&t);
}

static void reader_ticks_per_second(void)
{
	struct fxt_trace t;

	start();
	put(hdr(FXT_REC_INIT, 2));
	put(1000);                                 /* ticks are ms */
	put(event_hdr(FXT_EV_DURATION_COMPLETE, 5, 0, 0, 0, 0));
	put(5);
	put(1);
	put(2);
	put(7);
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 0));
	put(UINT64_MAX / 1000);                    /* overflows int64 ns: dropped */
	put(1);
	put(2);
	if (load(save("ticks.fxt", false), &t))
		return;
	CHECK_U64_EQ(t.ticks_per_second, 1000);
	CHECK_INT_EQ(t.nevents, 1);
	if (t.nevents == 1) {
		CHECK_U64_EQ(t.events[0].ts, 5000000);
		CHECK_U64_EQ(t.events[0].end_ts, 7000000);
	}
	CHECK(has_problem(&t, "record 3: timestamp overflow"));
	fxt_trace_free(&t);
}

/* An initialization record cut short (fuzzing found a division by zero):
 * a problem, and the rate stays what it was. */
static void reader_init_record_cut(void)
{
	struct fxt_trace t;

	start();
	put(hdr(FXT_REC_INIT, 1));                 /* no room for the rate */
	put(event_hdr(FXT_EV_INSTANT, 4, 0, 0, 0, 0));
	put(5);
	put(1);
	put(2);
	if (load(save("initcut.fxt", false), &t))
		return;
	CHECK_U64_EQ(t.ticks_per_second, 1000000000);
	CHECK(has_problem(&t, "record 1: record type 1: content runs past its size of 1 words"));
	CHECK_INT_EQ(t.nevents, 1);
	if (t.nevents == 1)
		CHECK_U64_EQ(t.events[0].ts, 5);
	fxt_trace_free(&t);
}

static void reader_thread_object_without_process(void)
{
	struct fxt_trace t;

	start();
	/* thread object with a uint64 (not koid) "process" argument */
	string_rec(1, "process");
	put(hdr(FXT_REC_KERNEL_OBJECT, 4) | (uint64_t)FXT_ZX_OBJ_THREAD << 16 | (uint64_t)1 << 40);
	put(11);
	put(FXT_WARG_UINT64 | 2 << 4 | 1 << 16);
	put(10);
	if (load(save("kobj.fxt", false), &t))
		return;
	CHECK_INT_EQ(t.nproblems, 1);
	CHECK(has_problem(&t, "thread object 11 \"\" has no koid argument \"process\""));
	fxt_trace_free(&t);
}

static void reader_dump_records(void)
{
	struct fxt_trace t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	start();
	put(hdr(FXT_REC_INIT, 2));
	put(1000000000);
	string_rec(1, "main");
	string_rec(2, "process");
	thread_rec(1, 10, 11);
	put(hdr(FXT_REC_KERNEL_OBJECT, 4) | (uint64_t)FXT_ZX_OBJ_THREAD << 16 | 1 << 24 |
	    (uint64_t)1 << 40);
	put(11);
	put(FXT_WARG_KOID | 2 << 4 | 2 << 16);
	put(10);
	put(event_hdr(FXT_EV_DURATION_COMPLETE, 6, 2, 1, 1, 1));
	put(100);
	put(FXT_WARG_BOOL | 1 << 4 | 1 << 16 | (uint64_t)1 << 32);
	put(FXT_WARG_DOUBLE | 2 << 4 | 2 << 16);
	put(0x3ff8000000000000);                   /* 1.5 */
	put(150);
	if (load(save("dump.fxt", false), &t))
		return;
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	fxt_dump_records(&t, f);
	fclose(f);
	check_no_problems(&t);
	CHECK_STR_EQ(buf, "0 magic\n"
		     "1 init ticks_per_second=1000000000\n"
		     "2 string index=1 \"main\"\n"
		     "3 string index=2 \"process\"\n"
		     "4 thread index=1 pid=10 tid=11\n"
		     "5 kobj thread koid=11 name=\"main\" process=10\n"
		     "6 event complete ts=100 pid=10 tid=11 cat=\"main\" name=\"main\" "
		     "end_ts=150 main:bool=true process:double=1.5\n");
	free(buf);
	fxt_trace_free(&t);
}

/* FXT strings are UTF-8 without NUL: a string record or inline string
 * breaking that is a problem (a strict reader rejects the file). */
static void reader_invalid_strings(void)
{
	static const char nul[] = "a\0b";
	struct fxt_trace t;

	start();
	string_rec(1, "ok \xc3\xa9");                          /* valid: é */
	string_rec(2, "bad \xff");                               /* not UTF-8 */
	string_rec(3, "\xed\xa0\x80");                            /* a surrogate */
	put(hdr(FXT_REC_STRING, 2) | (uint64_t)4 << 16 | (uint64_t)3 << 32);
	put_bytes(nul, 3);                                        /* holds a NUL */
	if (load(save("badstr.fxt", false), &t))
		return;
	CHECK_INT_EQ(t.nproblems, 3);
	CHECK(has_problem(&t, "record 2: a string of 5 bytes holds a NUL or ill-formed UTF-8 "
			  "at byte 4 (0xff)"));
	CHECK(has_problem(&t, "record 3: a string of 3 bytes holds a NUL or ill-formed UTF-8 "
			  "at byte 0 (0xed)"));
	CHECK(has_problem(&t, "record 4: a string of 3 bytes holds a NUL or ill-formed UTF-8 "
			  "at byte 1 (0x00)"));
	fxt_trace_free(&t);
	/* a problem quoting a name with a newline is still one line */
	start();
	string_rec(1, "two\nlines");
	thread_rec(1, 1, 1);
	put(event_hdr(FXT_EV_DURATION_BEGIN, 2, 0, 1, 0, 1));
	put(5);
	if (load(save("nl.fxt", false), &t))
		return;
	if (!fxt_trace_slices(&t))
		CHECK(has_problem(&t, "two\\x0alines"));
	for (size_t i = 0; i < t.nproblems; i++)
		CHECK(!strchr(t.problems[i], '\n'));
	/* and every view shows it on one line, escaped (escape.h) */
	{
		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);

		CHECK(f != NULL);
		if (f) {
			fxt_dump_slices(&t, f, false);
			fclose(f);
			CHECK_STR_EQ(text, "1 0 two\\x0alines\n");
			free(text);
		}
	}
	fxt_trace_free(&t);
}

int main(void)
{
	if (unit_tmp_init("test_fxt_reader"))
		return 1;
	UNIT_RUN(reader_not_fxt);
	UNIT_RUN(reader_inline_refs);
	UNIT_RUN(reader_index_redefinition);
	UNIT_RUN(reader_unregistered_refs);
	UNIT_RUN(reader_provider_resets_tables);
	UNIT_RUN(reader_window_and_table_grow);
	UNIT_RUN(reader_unknown_and_large_records);
	UNIT_RUN(reader_truncated_last_record);
	UNIT_RUN(reader_bad_sizes);
	UNIT_RUN(reader_gzip_truncated);
	UNIT_RUN(reader_ticks_per_second);
	UNIT_RUN(reader_thread_object_without_process);
	UNIT_RUN(reader_dump_records);
	UNIT_RUN(reader_invalid_strings);
	UNIT_RUN(reader_init_record_cut);
	unit_tmp_fini();
	return unit_exit();
}
