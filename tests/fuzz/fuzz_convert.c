/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): any text through the converter must give an FXT
 * file that the project's reader finds well-formed and balanced, with no
 * problem Perfetto would trip on (docs/design.md "Perfetto quirks": the
 * importer drops mistakes silently, so the converter must be right by
 * construction). Built and run by `make fuzz` (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "fxt_reader.h"
#include "fxt_writer.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conv_opts opts = { .strict = false };
	struct fxt_trace t = { 0 };
	struct converter *cv;
	struct fxt_writer *w;
	char err[256];
	const char *p = (const char *)data, *end = p + size;
	int e = 0;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_convert.%ld.fxt", (long)getpid());
	w = fxt_writer_open(path, FXT_OUTPUT_RAW, "fuzz", &e);
	if (!w)
		abort();
	cv = converter_new(w, &opts);
	converter_begin_input(cv, "fuzz");
	while (p < end && e == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct conv_line l;

		conv_parse_line(p, (size_t)(le - p), &l);
		e = converter_parsed(cv, &l);
		p = le + 1;
	}
	if (e == 0)
		e = converter_end_input(cv);
	converter_free(cv);
	if (e) {	/* a refused input: nothing is written */
		fxt_writer_abort(w);
		return 0;
	}
	if (fxt_writer_close(w) || fxt_trace_read(path, &t, err, sizeof(err)) ||
	    fxt_trace_slices(&t)) {
		fprintf(stderr, "cannot read back: %s\n", err);
		abort();
	}
	if (t.nproblems) {
		for (size_t i = 0; i < t.nproblems && i < 5; i++)
			fprintf(stderr, "problem: %s\n", t.problems[i]);
		abort();
	}
	fxt_trace_free(&t);
	unlink(path);
	return 0;
}
