/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): any bytes as a recording directory's record.json
 * (convert/recording.c, convert/jsonstream.c: the document, its hits read
 * as a stream), beside two snapshot files of perf script text (a sampled
 * thread that falls asleep, and wakes in the second). recording_read() must
 * refuse it with one line naming record.json, or read it (each of its
 * "uids" a process of its "pids", with uids that are not -1); then its hits
 * are read again (recording_hits(): as many, each checked), the snapshots
 * it lists are converted with its markers, and, for an input of odd size,
 * cut to windows around its hits (--window 1ms,1ms), as snapshot-convert
 * does: the output must read back well-formed and balanced (fuzz_conv.h).
 * Seeded with the record.json files of tests/fuzz/seeds/record-json.
 * Built and run by `make fuzz` (tests/fuzz/build.mk).
 */
#include <string.h>

#include "array.h"
#include "cut.h"
#include "fuzz_conv.h"

static const char snapshot1[] =
	"             app   300/300      20.000100000:     100000 cpu-clock:u: \n"
	"\t          401100 work+0x10 (/opt/app)\n"
	"\t          401020 main+0x20 (/opt/app)\n"
	"\n"
	"             app   300/300      20.000200000: PERF_RECORD_SWITCH OUT        \n";
static const char snapshot2[] =
	"             app   300/300      20.040000000: PERF_RECORD_SWITCH IN         \n"
	"             app   300/300      20.040100000:     100000 cpu-clock:u: \n"
	"\t          401100 work+0x10 (/opt/app)\n"
	"\t          401040 main+0x40 (/opt/app)\n";

/* The recording directory of this process (fuzz_file.h's scratch name for
 * "rec"), made at the first call. */
static const char *rec_dir(void)
{
	static char dir[256];
	char path[320];

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s", fuzz_file_path("rec"));
	if (mkdir(dir, 0700) && errno != EEXIST)
		abort();
	snprintf(path, sizeof(path), "%s/perf.data.1", dir);
	fuzz_put(path, snapshot1);
	snprintf(path, sizeof(path), "%s/perf.data.2", dir);
	fuzz_put(path, snapshot2);
	return dir;
}

/* recording_hits()'s callback: counts, and collects --window's windows.
 * The hits of "hits" come each once, in order (N the next index); those of
 * "coalesced_hits" a snapshot holds come among them, in their own order
 * (NEXT_COALESCED: more than the last one's index). */
struct hits {
	size_t n, next_coalesced;
	struct conv_window *w;
	size_t nw, cap;
};

static int add_hit(void *arg, const struct recording_hit *h)
{
	struct hits *hs = arg;
	struct conv_window *w = array_grow(hs->w, &hs->cap, hs->nw, sizeof(*w));

	if (!w || (h->coalesced ? h->index < hs->next_coalesced || h->snapshot < 0
				: h->index != hs->n))
		abort();
	hs->w = w;
	hs->w[hs->nw++] = (struct conv_window){ h->time_ns > 1000000 ? h->time_ns - 1000000 : 0,
						h->time_ns + 1000000 };
	if (h->coalesced)
		hs->next_coalesced = h->index + 1;
	else
		hs->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = rec_dir();
	struct conv_opts opts = { .strict = false };
	struct hits hs = { 0 };
	struct recording r;
	char path[320], err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/record.json", dir);
	fuzz_copy(fuzz_file_write("json", data, size), path, SIZE_MAX);
	rc = recording_read(dir, &r, err, sizeof(err));
	if (rc) {	/* an error: one line naming the file */
		if (rc >= 0 || rc == -ENOENT || !strstr(err, "record.json") || strchr(err, '\n'))
			abort();
		recording_free(&r);
		return 0;
	}
	if (recording_hits(&r, add_hit, &hs, err, sizeof(err)) || hs.n != r.nhits)
		abort();
	for (size_t i = 0; i < r.nuids; i++)	/* each a process, of real users */
		if (r.uids[i].pid <= 0 || r.uids[i].uid[0] == (uid_t)-1 ||
		    r.uids[i].uid[1] == (uid_t)-1)
			abort();
	if (size & 1 && hs.nw) {
		opts.cut.on = true;
		opts.cut.windows = hs.w;
		opts.cut.nwindows = conv_cut_windows(hs.w, hs.nw);
	}
	fuzz_conv(NULL, &r, opts, false, 1);
	free(hs.w);
	recording_free(&r);
	return 0;
}
