/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of convert/recording: a recording directory's record.json read
 * (every field the converter uses, and a later recorder's extra hit fields),
 * bad ones refused with the file, the place and what was expected (exit 1;
 * no record.json at all: 2), a killed recorder's directory scanned for its
 * perf.data files, the end of each snapshot, and the TSC -> perf clock
 * conversion of perf_event_mmap_page (this host's kvm-clock offers none, so
 * it is checked here against the kernel's formula worked by hand).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "jsonstream.h"
#include "recording.h"
#include "timeline.h"
#include "unit.h"
#include "unit_tmp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Writes TEXT into FILE of the scratch directory. */
static void put(const char *file, const char *text)
{
	FILE *f = fopen(unit_tmp(file), "w");

	fputs(text, f);
	fclose(f);
}

static const char good[] =
	"{\n  \"format\": \"snaptrace-record 1\",\n"
	"  \"pids\": [100], \"uids\": [{\"pid\": 100, \"uid\": 1000, \"euid\": 0, \"born\": 1700000000000000000}], \"buildids\": [{\"file\": \"/home/a/lib.so (deleted)\", "
	"\"build_id\": \"c0ffee\"}],\n"
	"  \"threads\": [{\"pid\": 100, \"tid\": 100, \"comm\": \"app\"}, "
	"{\"pid\": 100, \"tid\": 101, \"comm\": \"worker\"}],\n"
	"  \"trigger\": {\"spec\": \"magic_trace_stop_indicator\", \"mechanism\": \"uprobe\", "
	"\"file\": \"/app\", \"symbol\": \"magic_trace_stop_indicator\", \"file_offset\": 4641, "
	"\"tsc\": {\"time_shift\": 10, \"time_mult\": 512, \"time_zero\": 1000}},\n"
	"  \"hits\": [\n"
	"    {\"pid\": 100, \"tid\": 101, \"time_ns\": 5000, \"ip\": 4096, \"args\": [7, "
	"18446744073709551615], \"snapshot\": 0, \"duration_ns\": 12, \"note\": \"x\"},\n"
	"    {\"pid\": 100, \"tid\": 100, \"time_ns\": 9000, \"ip\": null, \"args\": null, "
	"\"snapshot\": null}\n  ],\n"
	"  \"snapshots\": [\n"
	"    {\"file\": \"perf.data.1\", \"reason\": \"trigger\", \"time_ns\": 5100},\n"
	"    {\"file\": \"perf.data.2\", \"reason\": \"interrupt\", \"time_ns\": 9500, "
	"\"live_ns\": 9400},\n"
	"    {\"file\": \"perf.data.3\", \"reason\": \"exit\", \"time_ns\": null}\n  ],\n"
	"  \"end\": \"exit\", \"end_ns\": 9900\n}\n";

/* What recording_hits() handed over (copied: it lends them for the call). */
struct got {
	struct recording_hit h[4];
	size_t n;
	char extra0_name[32], extra1_str[32];
	int64_t extra0_i64;
};

static int collect(void *arg, const struct recording_hit *h)
{
	struct got *g = arg;

	if (g->n == 0 && h->nextra == 2) {
		snprintf(g->extra0_name, sizeof(g->extra0_name), "%s", h->extra[0].name);
		g->extra0_i64 = h->extra[0].i64;
		snprintf(g->extra1_str, sizeof(g->extra1_str), "%s", h->extra[1].str);
	}
	if (g->n < 4)
		g->h[g->n] = *h;
	g->n++;
	return 0;
}

static void reads_everything(void)
{
	struct recording r;
	struct got got = { .n = 0 };
	uint64_t last = 0;
	size_t n = 0;
	char err[512];

	put("perf.data.1", "x");
	put("perf.data.2", "x");
	put("perf.data.3", "x");
	put("record.json", good);
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), 0);
	CHECK_STR_EQ(r.trigger, "magic_trace_stop_indicator");
	CHECK_STR_EQ(r.trigger_symbol, "magic_trace_stop_indicator");
	CHECK_INT_EQ(r.npids, 1);
	CHECK(r.has_uids && r.nuids == 1 && r.uids[0].pid == 100 && r.uids[0].uid[0] == 1000 &&
	      r.uids[0].uid[1] == 0 && r.uids[0].born == 1700000000000000000);
	CHECK_INT_EQ(r.nthreads, 2);
	CHECK_STR_EQ(recording_comm(&r, 101), "worker");
	CHECK(recording_comm(&r, 102) == NULL);
	CHECK_INT_EQ(r.nhits, 2);
	CHECK_INT_EQ(recording_hits(&r, collect, &got, err, sizeof(err)), 0);
	CHECK_INT_EQ(got.n, 2);
	CHECK_INT_EQ(got.h[0].tid, 101);
	CHECK_U64_EQ(got.h[0].time_ns, 5000);
	CHECK(got.h[0].has_ip && got.h[0].ip == 4096);
	CHECK(got.h[0].has_args);
	CHECK_U64_EQ(got.h[0].args[0], 7);
	CHECK_U64_EQ(got.h[0].args[1], UINT64_MAX);
	CHECK_INT_EQ(got.h[0].snapshot, 0);
	CHECK_INT_EQ(got.h[0].nextra, 2);
	CHECK_STR_EQ(got.extra0_name, "duration_ns");
	CHECK_INT_EQ(got.extra0_i64, 12);
	CHECK_STR_EQ(got.extra1_str, "x");
	CHECK(!got.h[1].has_ip && !got.h[1].has_args && got.h[1].snapshot == -1);
	CHECK(got.h[0].index == 0 && got.h[1].index == 1);
	CHECK(recording_last_hit(&r, 100, &last, &n) && last == 9000 && n == 2);
	CHECK(!recording_last_hit(&r, 101, &last, &n));
	CHECK_INT_EQ(r.nsnapshots, 3);
	CHECK_STR_EQ(r.snapshots[1].path, unit_tmp("perf.data.2"));
	CHECK_INT_EQ(r.snapshots[1].reason, RECORD_END_INTERRUPT);
	CHECK_INT_EQ(r.end, RECORD_END_EXIT);
	/* a hit's snapshot ends at the hit; another at its time; the last
	 * without one at the recording's end */
	CHECK_U64_EQ(recording_snapshot_end(&r, 0), 5000);
	CHECK_U64_EQ(recording_snapshot_end(&r, 1), 9500);
	CHECK_U64_EQ(recording_snapshot_end(&r, 2), 9900);
	/* how far each is known to reach: the hit; live_ns; nothing known (a
	 * time_ns or end_ns comes after perf stopped recording into it) */
	CHECK_U64_EQ(recording_snapshot_live(&r, 0), 5000);
	CHECK_U64_EQ(recording_snapshot_live(&r, 1), 9400);
	CHECK_U64_EQ(recording_snapshot_live(&r, 2), 0);
	CHECK(r.tsc.known);
	CHECK_INT_EQ(r.nbuildids, 1);
	CHECK_STR_EQ(r.buildids[0].file, "/home/a/lib.so (deleted)");
	CHECK_STR_EQ(r.buildids[0].hex, "c0ffee");
	recording_free(&r);
}

/* A record.json text (from `good` with FROM replaced by TO) and the error
 * it must give. END: where a case puts a list good has not; MEASURE: a
 * measured function's members but its histogram and the optional ones. */
#define END "\"end\": \"exit\""
#define MEASURE "\"measure\": [{\"name\": \"f\", \"file\": \"/app\", \"vaddr\": 1, \"calls\": 1, \"total_ns\": 1, "
struct bad_case {
	const char *from, *to, *error;
};

static const struct bad_case bad_cases[] = {
	{ "\"time_ns\": 5000", "\"time_ns\": -5", "hits[0].time_ns: expected a non-negative integer, found -5" },
	{ "\"time_ns\": 5000", "\"time_ns\": \"5\"", "hits[0].time_ns: expected an integer, found \"5\"" },
	{ "\"time_ns\": 5000", "\"time_ns\": 4611686018427387904",
	  "hits[0].time_ns: expected a time in ns below 2^62" },
	{ "\"pid\": 100, \"tid\": 101, \"time_ns\"", "\"tid\": 101, \"time_ns\"",
	  "hits[0].pid: expected an integer, found nothing" },
	{ "\"snapshot\": 0", "\"snapshot\": 3", "hits[0].snapshot: expected the index of a listed snapshot or null, found 3" },
	{ "\"reason\": \"interrupt\"", "\"reason\": \"ctrl-c\"",
	  "snapshots[1].reason: expected trigger, interrupt, exit, duration, perf-died, signal or none, found \"ctrl-c\"" },
	{ "\"live_ns\": 9400", "\"live_ns\": \"9400\"",
	  "snapshots[1].live_ns: expected an integer or null, found \"9400\"" },
	{ "\"perf.data.2\"", "\"../x\"", "snapshots[1]: expected a file name in the recording directory" },
	{ "\"perf.data.2\"", "\"perf.data.9\"", "snapshots[1]: expected the snapshot file" },
	{ "snaptrace-record 1", "snaptrace-record 2", "format: expected \"snaptrace-record 1\"" },
	{ "\"tid\": 101, \"comm\": \"worker\"", "\"tid\": 0, \"comm\": \"worker\"",
	  "threads[1].tid: expected a process or thread id (1 to 2147483647), found 0" },
	{ "[7, 18446744073709551615]", "[7]", "hits[0].args: expected [two integers], found [7]" },
	{ "\"time_shift\": 10", "\"time_shift\": 64", "trigger.tsc: expected time_shift below 64" },
	{ "\"end\": \"exit\"", "\"end\": 3", "end: expected a string, found 3" },
	{ "  \"hits\": [\n", "  \"hits\": [,\n", ".json:6: expected the JSON of snaptrace-record's report, found" },
	{ "\"end_ns\": 9900\n}\n", "\"end_ns\": 9900\n", ".json:16: expected the JSON of snaptrace-record's report, found the end of the file (cut short?)" },
	{ "\"end_ns\": 9900\n}\n", "\"end_ns\": 9900\n}\n}", "found text after the document" },
	/* the hits are streamed, one object at a time: what lies between them */
	{ "\"snapshot\": null}\n  ]", "\"snapshot\": null},\n  ]", ".json:9: expected the JSON of snaptrace-record's report, found ']' at hits[2] (an object expected)" },
	{ "\"note\": \"x\"},", "\"note\": \"x\"}", ".json:8: expected the JSON of snaptrace-record's report, found '{' at hits[1]" },
	{ "\"note\": \"x\"},", "\"note\": \"x\"}, 7,", "found '7' at hits[1] (an object expected)" },
	{ "\"note\": \"x\"}", "\"note\": \"x\" \"y\"}", ".json:7: expected the JSON of snaptrace-record's report, found" },
	{ "\"hits\": [", "\"h\\u0069ts\": [", "hits: expected the key \"hits\" spelled plainly" },
	{ "\"hits\": [", "\"hits\": 5, \"x\": [", "hits: expected an array, found 5" },
	{ "\"c0ffee\"", "\"C0FFEE\"",
	  "buildids[0]: expected a build id of 2 to 40 lowercase hex digits, found \"C0FFEE\"" },
	{ "\"c0ffee\"", "\"\"", "buildids[0]: expected a build id of 2 to 40 lowercase hex digits" },
	{ "\"file\": \"/home", "\"file\": 7, \"x\": \"/home",
	  "buildids[0].file: expected a string, found 7" },
	{ "\"buildids\": [", "\"buildids\": {}, \"x\": [", "buildids: expected an array, found {}" },
	/* each list's elements, and the places within them */
	{ "\"pids\": [100]", "\"pids\": [100, 0]", "pids[]: expected process ids (1 to 2147483647), found 0" },
	{ "\"euid\": 0", "\"euid\": 4294967295", "uids[0]: expected uids below 4294967295, found 4294967295" },
	{ "\"uids\": [{\"pid\": 100", "\"uids\": [{\"pid\": 0",
	  "uids[0].pid: expected a process or thread id (1 to 2147483647), found 0" },
	{ "\"uids\": [{", "\"uids\": [5, {", "uids[0]: expected an object, found 5" },
	{ "\"born\": 1700000000000000000", "\"born\": 9223372036854775808",
	  "uids[0]: expected born below 2^63, found 9223372036854775808" },
	{ "\"born\": 1700000000000000000", "\"born\": -1",
	  "uids[0].born: expected a non-negative integer, found -1" },
	{ "\"threads\": [", "\"threads\": [3, ", "threads[0]: expected an object, found 3" },
	{ "\"snapshots\": [\n", "\"snapshots\": [\n    8,\n", "snapshots[0]: expected an object, found 8" },
	{ END, "\"signals\": [{}, 7], " END, "signals[0].pid: expected an integer, found nothing" },
	{ END, "\"signals\": [7], " END, "signals[0]: expected an object, found 7" },
	{ END, "\"signals\": [{\"pid\": 100, \"tid\": 100, \"time_ns\": 5, \"sender\": {\"pid\": 0}}], " END,
	  "signals[0].sender.pid: expected a process or thread id (1 to 2147483647), found 0" },
	{ END, "\"signals\": [], \"exits\": [{\"pid\": 100}, 5], " END,
	  "exits[1]: expected an object, found 5" },
	{ "\"c0ffee\"}]", "\"c0ffee\"}, []]", "buildids[1]: expected an object, found []" },
	{ END, "\"measure\": [{\"name\": 5}], " END, "measure[0].name: expected a string, found 5" },
	{ END, "\"measure\": [null], " END, "measure[0]: expected an object, found nothing" },
	{ END, MEASURE "\"histogram\": [[0, 1, 1], [1]]}], " END,
	  "measure[0].histogram[1]: expected [from_ns, below_ns, calls], found [" },
	{ END, MEASURE "\"histogram\": [], \"calls_file\": \"a/b\"}], " END,
	  "measure[0].calls_file: expected a file name in the recording" },
	{ END, MEASURE "\"histogram\": [], \"threads_unrecorded\": [0]}], " END,
	  "measure[0].threads_unrecorded" },
};

/* SRC with the first FROM replaced by TO, into BUF. */
static void edit(char *buf, size_t size, const char *src, const char *from, const char *to)
{
	const char *at = strstr(src, from);

	snprintf(buf, size, "%.*s%s%s", (int)(at - src), src, to, at + strlen(from));
}

static void refuses_bad(void)
{
	for (size_t i = 0; i < N(bad_cases); i++) {
		struct recording r;
		char text[4096], err[512];

		CHECK(strstr(good, bad_cases[i].from) != NULL);
		edit(text, sizeof(text), good, bad_cases[i].from, bad_cases[i].to);
		put("record.json", text);
		CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad_cases[i].error) || !strstr(err, unit_tmp("record.json")) ||
		    strchr(err, '\n'))
			UNIT_FAIL("case %zu: got \"%s\", expected \"%s\"", i, err, bad_cases[i].error);
		recording_free(&r);
	}
	unlink(unit_tmp("record.json"));
	{
		struct recording r;
		char err[512];

		CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), -ENOENT);
		CHECK(strstr(err, "found no record.json") != NULL);
		recording_free(&r);
	}
}

/* record.json's "coalesced_hits": each one a snapshot holds handed over
 * with the hits, in time order (before the first hit after it; the rest
 * last), marked coalesced, its index its own list's; one without a
 * snapshot is not (nothing shows its moment); a bad one refused at
 * reading, named in its list; more than RECORD_COALESCED_MAX refused. (The
 * old reader knew no coalesced hit: a slow call coalesced into a snapshot
 * had no marker and no measured slice.) */
static void reads_coalesced(void)
{
	static const char list[] =
		"  \"coalesced_hits\": [\n"
		"    {\"pid\": 100, \"tid\": 100, \"time_ns\": 4000, \"ip\": null, "
		"\"args\": null, \"snapshot\": null},\n"
		"    {\"pid\": 100, \"tid\": 101, \"time_ns\": 4500, \"ip\": null, "
		"\"args\": null, \"snapshot\": 0},\n"
		"    {\"pid\": 100, \"tid\": 100, \"time_ns\": 9950, \"entry_ns\": 9000, "
		"\"duration_ns\": 950, \"ip\": null, \"args\": null, \"snapshot\": 1}\n"
		"  ],\n  \"snapshots\": [";
	struct recording r;
	struct got got = { .n = 0 };
	char text[4096], text2[4096], err[512], want[64], *big, *doc;
	size_t len;

	edit(text, sizeof(text), good, "  \"snapshots\": [", list);
	put("record.json", text);
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), 0);
	CHECK_INT_EQ(r.nhits, 2);
	CHECK_INT_EQ(recording_hits(&r, collect, &got, err, sizeof(err)), 0);
	CHECK_INT_EQ(got.n, 4);
	CHECK(got.h[0].coalesced && got.h[0].index == 1 && got.h[0].time_ns == 4500 &&
	      got.h[0].snapshot == 0 && got.h[0].tid == 101);
	CHECK(!got.h[1].coalesced && got.h[1].time_ns == 5000);
	CHECK(!got.h[2].coalesced && got.h[2].time_ns == 9000);
	CHECK(got.h[3].coalesced && got.h[3].index == 2 && got.h[3].time_ns == 9950 &&
	      got.h[3].snapshot == 1 && got.h[3].nextra == 2);
	/* recording_last_hit() counts the hits that took snapshots */
	{
		uint64_t last = 0;
		size_t n = 0;

		CHECK(recording_last_hit(&r, 100, &last, &n) && last == 9000 && n == 2);
	}
	recording_free(&r);
	/* a bad one: refused, named in its list */
	edit(text2, sizeof(text2), good, "  \"snapshots\": [", list);
	edit(text, sizeof(text), text2, "\"snapshot\": 0},", "\"snapshot\": 7},");
	put("record.json", text);
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "coalesced_hits[1].snapshot: expected the index of a listed snapshot "
			  "or null, found 7") != NULL);
	recording_free(&r);
	/* more than the recorder lists */
	len = (RECORD_COALESCED_MAX + 1) * 80 + sizeof(good) + 64;
	big = malloc(len);
	if (!big) {
		UNIT_FAIL("out of memory");
		return;
	}
	len = (size_t)snprintf(big, len, "  \"coalesced_hits\": [");
	for (int i = 0; i <= RECORD_COALESCED_MAX; i++)
		len += (size_t)sprintf(big + len, "%s{\"pid\": 100, \"tid\": 100, \"time_ns\": 1, "
				       "\"snapshot\": 0}", i ? "," : "");
	strcpy(big + len, "],\n  \"snapshots\": [");
	doc = malloc(len + sizeof(good) + 32);
	if (doc) {
		const char *at = strstr(good, "  \"snapshots\": [");

		sprintf(doc, "%.*s%s%s", (int)(at - good), good, big,
			at + strlen("  \"snapshots\": ["));
		put("record.json", doc);
	}
	free(doc);
	free(big);
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "coalesced_hits: expected at most %d hits", RECORD_COALESCED_MAX);
	CHECK(strstr(err, want) != NULL);
	recording_free(&r);
}

/* A killed recorder's record.json lists no snapshot: the directory's
 * non-empty perf.data* files are taken, in name order. */
static void scans_without_snapshots(void)
{
	struct recording r;
	char hit[4096], text[4096], err[512];
	const char *at, *end;

	/* the hit that pointed at a snapshot has nothing to point at now */
	edit(hit, sizeof(hit), good, "\"snapshot\": 0", "\"snapshot\": null");
	at = strstr(hit, "  \"snapshots\"");
	end = strstr(hit, "  \"end\"");
	snprintf(text, sizeof(text), "%.*s  \"snapshots\": [],\n%s", (int)(at - hit), hit, end);
	put("record.json", text);
	put("perf.data.0", "");   /* empty: not taken */
	put("perf.data.b", "x");
	put("perf.data.a", "x");
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), 0);
	if (r.nsnapshots != 5)
		UNIT_FAIL("%zu snapshots: %s", r.nsnapshots, err);
	else {
		CHECK_STR_EQ(r.snapshots[0].path, unit_tmp("perf.data.1"));
		CHECK_STR_EQ(r.snapshots[3].path, unit_tmp("perf.data.a"));
		CHECK_STR_EQ(r.snapshots[4].path, unit_tmp("perf.data.b"));
		CHECK_INT_EQ(r.snapshots[4].reason, RECORD_END_NONE);
	}
	recording_free(&r);
}

/* Writes record.json: `good` with FROM replaced by BEFORE, COUNT strings
 * of LEN 'a's (each quoted, between commas) and AFTER. */
static void put_long(const char *from, const char *before, size_t count, size_t len,
		     const char *after)
{
	FILE *f = fopen(unit_tmp("record.json"), "w");
	const char *at = strstr(good, from);

	fprintf(f, "%.*s%s", (int)(at - good), good, before);
	for (size_t i = 0; i < count; i++) {
		fputs(i ? ", \"" : "\"", f);
		for (size_t j = 0; j < len; j++)
			putc('a', f);
		putc('"', f);
	}
	fprintf(f, "%s%s", after, at + strlen(from));
	fclose(f);
}

/* RECORDING_READ's error for the record.json there, "" when it reads. */
static void read_error(char *err, size_t size)
{
	struct recording r;

	err[0] = '\0';
	if (recording_read(unit_tmpdir, &r, err, size) == 0)
		err[0] = '\0';
	recording_free(&r);
}

/* One string of record.json holds at most JSONSTREAM_STRING_MAX bytes (as
 * written: escapes count), in a hit or anywhere else; the document outside
 * "hits" at most JSONSTREAM_PART_MAX bytes: past either, one line names the
 * file, the line and the bound (a 200 MiB comm once held 412 MB). */
static void bounds_strings(void)
{
	char err[512], want[512];

	put_long("\"x\"}", "", 1, JSONSTREAM_STRING_MAX, "}");	/* a hit's note */
	read_error(err, sizeof(err));
	CHECK_STR_EQ(err, "");
	put_long("\"x\"}", "", 1, JSONSTREAM_STRING_MAX + 1, "}");
	read_error(err, sizeof(err));
	snprintf(want, sizeof(want), "%s:7: expected the JSON of snaptrace-record's report, "
		 "found a string longer than %d bytes in hits[0]", unit_tmp("record.json"),
		 JSONSTREAM_STRING_MAX);
	CHECK_STR_EQ(err, want);
	/* escapes count as written: MAX/2 + 1 "\n" are MAX + 2 bytes (half as
	 * many decoded) */
	{
		FILE *f = fopen(unit_tmp("record.json"), "w");
		const char *at = strstr(good, "\"worker\"");

		fprintf(f, "%.*s\"", (int)(at - good), good);
		for (size_t i = 0; i < JSONSTREAM_STRING_MAX / 2 + 1; i++)
			fputs("\\n", f);
		fprintf(f, "\"%s", at + strlen("\"worker\""));
		fclose(f);
	}
	read_error(err, sizeof(err));
	snprintf(want, sizeof(want), "%s:4: expected the JSON of snaptrace-record's report, "
		 "found a string longer than %d bytes outside \"hits\"",
		 unit_tmp("record.json"), JSONSTREAM_STRING_MAX);
	CHECK_STR_EQ(err, want);
	/* strings of the bound each, more of them than the document may hold */
	put_long("\"pids\"", "\"x\": [", 1, JSONSTREAM_STRING_MAX, "],\n  \"pids\"");
	read_error(err, sizeof(err));
	CHECK_STR_EQ(err, "");
	put_long("\"pids\"", "\"x\": [", JSONSTREAM_PART_MAX / JSONSTREAM_STRING_MAX,
		 JSONSTREAM_STRING_MAX, "],\n  \"pids\"");
	read_error(err, sizeof(err));
	snprintf(want, sizeof(want), "%s:3: expected the JSON of snaptrace-record's report, "
		 "found more than %d bytes outside \"hits\"", unit_tmp("record.json"),
		 JSONSTREAM_PART_MAX);
	CHECK_STR_EQ(err, want);
	unlink(unit_tmp("record.json"));
}

struct sum {
	size_t n;
	uint64_t time_sum;
	bool order_ok, note_ok;
};

static int sum_hits(void *arg, const struct recording_hit *h)
{
	struct sum *sm = arg;

	sm->order_ok &= h->index == sm->n && h->time_ns == 1000 + 3 * h->index;
	sm->note_ok &= h->nextra == 1 && h->extra[0].str && h->extra[0].str[0] == '{' &&
		       strlen(h->extra[0].str) == 2 + h->index % 97;
	sm->time_sum += h->time_ns;
	sm->n++;
	return 0;
}

/* 20,000 hits (1.4 MB: many 64 KiB reads, hits across their edges), with
 * strings holding brackets, commas, quotes and backslashes: each hit read
 * once by recording_read and again by recording_hits, in order, none kept. */
static void streams_many_hits(void)
{
	FILE *f = fopen(unit_tmp("record.json"), "w");
	struct sum sm = { .order_ok = true, .note_ok = true };
	struct recording r;
	uint64_t last = 0, want = 0;
	size_t n = 0;
	char err[512];

	fputs("{\"format\": \"snaptrace-record 1\", \"pids\": [100], \"threads\": [],\n"
	      " \"trigger\": null,\n \"hits\": [\n", f);
	for (unsigned i = 0; i < 20000; i++) {
		/* a note of 2 + i % 97 characters: "{", then "]", "," and an escaped quote in turn, then an escaped backslash */
		fprintf(f, "%s  {\"pid\": 100, \"tid\": 100, \"time_ns\": %u, \"note\": \"{", i ? ",\n" : "",
			1000 + 3 * i);
		for (unsigned k = 0; k < i % 97; k++)
			fputs(k % 3 == 0 ? "]" : k % 3 == 1 ? "," : "\\\"", f);
		fputs("\\\\\"}", f);
		want += 1000 + 3 * i;
	}
	fputs("\n ],\n \"snapshots\": [{\"file\": \"perf.data.1\", \"reason\": \"exit\", "
	      "\"time_ns\": 70000}], \"end\": \"exit\", \"end_ns\": 70000}\n", f);
	fclose(f);
	CHECK_INT_EQ(recording_read(unit_tmpdir, &r, err, sizeof(err)), 0);
	if (err[0])
		UNIT_FAIL("%s", err);
	CHECK_INT_EQ(r.nhits, 20000);
	CHECK(recording_last_hit(&r, 100, &last, &n) && n == 20000 && last == 1000 + 3 * 19999);
	CHECK_INT_EQ(recording_hits(&r, sum_hits, &sm, err, sizeof(err)), 0);
	CHECK_INT_EQ(sm.n, 20000);
	CHECK(sm.order_ok && sm.note_ok);
	CHECK_U64_EQ(sm.time_sum, want);
	recording_free(&r);
}

/* include/uapi/linux/perf_event.h: quot = cyc >> shift, rem = cyc & (2^shift
 * - 1), ns = zero + quot * mult + ((rem * mult) >> shift). */
static void tsc_conversion(void)
{
	struct recording_tsc tsc = { .known = true, .time_shift = 10, .time_mult = 512,
				     .time_zero = 1000 };
	uint64_t ns = 0;

	/* 3000 cycles at 0.5 ns each: 2 * 1024 + 952 -> 1000 + 1024 + 476 */
	CHECK(recording_tsc_to_perf(&tsc, 3000, &ns));
	CHECK_U64_EQ(ns, 2500);
	/* a 2.5 GHz TSC (mult/2^shift = 0.4) from a time_zero below zero */
	tsc = (struct recording_tsc){ .known = true, .time_shift = 31, .time_mult = 858993459,
				      .time_zero = (uint64_t)-4000000000000ll };
	CHECK(recording_tsc_to_perf(&tsc, 25000000000000ull, &ns));
	CHECK(ns > 5999999990000ull && ns < 6000000000000ull);
	tsc.known = false;
	CHECK(!recording_tsc_to_perf(&tsc, 1, &ns));
}

/* The gap rule and the carry-over rule (docs/design.md "Recording
 * directories"): a directory's next snapshot carries everything, the next
 * of the files given in a row what is known to follow, anything else
 * nothing. */
static void timeline_rules(void)
{
	const char *const args[] = { "perf.data.1", "-", "perf.data.3" };
	struct recording files, dir = { .dirfd = -1, .fd = -1, .nsnapshots = 3 };

	CHECK_INT_EQ(timeline_files(&files, args, 3), 0);
	CHECK(files.files && files.nsnapshots == 3 && files.dirfd == -1 && !files.dir);
	CHECK_STR_EQ(files.snapshots[1].path, "-");
	CHECK_STR_EQ(files.snapshots[2].file, "perf.data.3");
	CHECK_U64_EQ(recording_snapshot_live(&files, 0), 0);
	CHECK_INT_EQ(timeline_next(&dir, 0, &dir, 1), TIMELINE_SNAPSHOT);
	CHECK_INT_EQ(timeline_next(&files, 0, &files, 1), TIMELINE_FILE);
	/* a snapshot left out between: the time between is unknown */
	CHECK_INT_EQ(timeline_next(&dir, 0, &dir, 2), TIMELINE_END);
	CHECK_INT_EQ(timeline_next(&files, 0, &files, 2), TIMELINE_END);
	/* another recording is another time; the last input ends all */
	CHECK_INT_EQ(timeline_next(&files, 2, &dir, 0), TIMELINE_END);
	CHECK_INT_EQ(timeline_next(&dir, 2, &files, 0), TIMELINE_END);
	CHECK_INT_EQ(timeline_next(&dir, 1, &dir, 1), TIMELINE_END);
	CHECK_INT_EQ(timeline_next(&files, 2, NULL, 0), TIMELINE_END);
	recording_free(&files);
	CHECK(!files.snapshots && files.dirfd == -1);
}

int main(void)
{
	if (unit_tmp_init("test_recording"))
		return 1;
	UNIT_RUN(reads_everything);
	UNIT_RUN(refuses_bad);
	UNIT_RUN(reads_coalesced);
	UNIT_RUN(scans_without_snapshots);
	UNIT_RUN(bounds_strings);
	UNIT_RUN(tsc_conversion);
	UNIT_RUN(streams_many_hits);
	UNIT_RUN(timeline_rules);
	unit_tmp_fini();
	return unit_exit();
}
