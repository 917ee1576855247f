/* SPDX-License-Identifier: MIT */
/*
 * fuzz_conv.h: the conversion every converter fuzz target runs, through
 * snaptrace-convert's own loop (convert/inputs.h inputs_convert()): each
 * input through input_open (its binary check and binary-stream detection),
 * the block pipeline (or the binary-stream reader) and the driver, a
 * recording's snapshot ends, side-band and markers, source lines when
 * asked. A refused input is fine; an output
 * must read back balanced, with no problem Perfetto would trip on
 * (docs/design.md "Perfetto quirks"): else the target aborts.
 *
 * Source lines read binaries under a scratch symfs made once per process
 * (fuzz_symfs(): fuzz_file.h's scratch name for "symfs"): the fuzz program itself as /bin/prog (an ELF with DWARF
 * and the converter's own functions), its first 64 KiB as /bin/cut (an ELF
 * cut short), a perf map as /tmp/perf-1.map and a file that is not ELF as
 * /bin/text: the dso paths of the seeds.
 */
#ifndef SNAPTRACE_FUZZ_CONV_H
#define SNAPTRACE_FUZZ_CONV_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "fuzz_file.h"
#include "fxt_reader.h"
#include "fxt_writer.h"
#include "inputs.h"
#include "recording.h"
#include "srcline.h"
#include "timeline.h"

/* Copies the first MAX bytes of FROM into TO, a new file (fuzz_file.h:
 * not one truncated). Aborts on failure. */
static inline void fuzz_copy(const char *from, const char *to, size_t max)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (unlink(to) && errno != ENOENT)
		abort();
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		abort();
	while (max && (n = read(in, buf, max < sizeof(buf) ? max : sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n)
			abort();
		max -= (size_t)n;
	}
	close(in);
	close(out);
}

/* Writes TEXT into PATH. Aborts on failure. */
static inline void fuzz_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* The scratch symfs of this process (see the top), made at the first call. */
static inline const char *fuzz_symfs(void)
{
	static char dir[256];
	char path[320];

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s", fuzz_file_path("symfs"));
	snprintf(path, sizeof(path), "%s/bin", dir);
	if ((mkdir(dir, 0700) && errno != EEXIST) || (mkdir(path, 0700) && errno != EEXIST))
		abort();
	snprintf(path, sizeof(path), "%s/tmp", dir);
	if (mkdir(path, 0700) && errno != EEXIST)
		abort();
	snprintf(path, sizeof(path), "%s/bin/prog", dir);
	fuzz_copy("/proc/self/exe", path, SIZE_MAX);
	snprintf(path, sizeof(path), "%s/bin/cut", dir);
	fuzz_copy("/proc/self/exe", path, 65536);
	snprintf(path, sizeof(path), "%s/tmp/perf-1.map", dir);
	fuzz_put(path, "7f0000001000 40 jitted_spin\n7f0000001040 40 jitted_other\n");
	snprintf(path, sizeof(path), "%s/bin/text", dir);
	fuzz_put(path, "not an ELF file\n");
	return dir;
}

/* The snapshots of a recording converted at most (fuzz_record_json's). */
#define FUZZ_SNAPSHOTS 8

/*
 * Converts the file PATH, or when R is not NULL the snapshots of recording
 * R that have a file (the first FUZZ_SNAPSHOTS; the markers come from R),
 * through the converter's own loop (inputs.h inputs_convert(), as
 * snaptrace-convert runs it) with OPTS (source lines when SRCLINE, under
 * fuzz_symfs()) and WORKERS parsing threads, and checks the result (see
 * the top). Returns when the input was refused or converted well; aborts
 * on anything else.
 */
static inline void fuzz_conv(const char *path, struct recording *r, struct conv_opts opts,
			     bool srcline, unsigned workers)
{
	static const char *const no_perf[] = { NULL };
	struct input_perf perf = { .perf = "/nonexistent/perf", .args = no_perf, .rec_dirfd = -1 };
	struct fxt_trace t = { 0 };
	struct recording files = { .dirfd = -1, .fd = -1 };
	struct conv_input in[FUZZ_SNAPSHOTS];
	struct sideband sb = { 0 };
	struct binaries_kept kept = BINARIES_KEPT_NONE;
	struct inputs ins = { .in = in, .recs = r ? r : &files, .nrecs = 1, .sbs = &sb,
			      .kept = &kept };
	struct conv_driver *cv;
	struct fxt_writer *w;
	const char *out = fuzz_file_path("fxt");
	char err[512];
	int e = 0, rc;

	/* a write per warning line, not per piece of it (escaped names, numbers):
	 * the writes were a sixth of fuzz_convert's CPU even into /dev/null */
	static char errbuf[BUFSIZ];
	static bool line_buffered;

	if (!line_buffered && !setvbuf(stderr, errbuf, _IOLBF, sizeof(errbuf)))
		line_buffered = true;
	if (!r && timeline_files(&files, &path, 1))
		abort();
	for (size_t k = 0; k < ins.recs->nsnapshots && ins.n < FUZZ_SNAPSHOTS; k++)
		if (ins.recs->snapshots[k].path)
			in[ins.n++] = (struct conv_input){ ins.recs->snapshots[k].path, ins.recs, k,
							   false, 0, 0 };
	if (!ins.n) {	/* nothing to convert: snaptrace-convert refuses it */
		recording_free(&files);
		return;
	}
	opts.srcline = srcline ? srcline_new(fuzz_symfs()) : NULL;
	w = fxt_writer_open(out, FXT_OUTPUT_RAW, "fuzz", &e);
	cv = w ? conv_driver_new(w, &opts) : NULL;
	if (!cv || (srcline && !opts.srcline))
		abort();
	rc = inputs_convert(cv, &ins, &perf, workers);
	conv_driver_free(cv);
	recording_free(&files);
	sideband_free(&sb);
	srcline_free(opts.srcline);	/* where a non-ELF dso once ended libelf twice */
	if (rc) {	/* a refused input: nothing is written */
		fxt_writer_abort(w);
		return;
	}
	if (fxt_writer_close(w) || fxt_trace_read(out, &t, err, sizeof(err)) ||
	    fxt_trace_slices(&t)) {
		printf("cannot read back: %s\n", err);
		fflush(stdout);
		abort();
	}
	if (t.nproblems) {
		for (size_t i = 0; i < t.nproblems && i < 5; i++)
			printf("problem: %s\n", t.problems[i]);
		fflush(stdout);
		abort();
	}
	fxt_trace_free(&t);
	unlink(out);
}

#endif
