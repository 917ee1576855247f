/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): any input through the converter's real input path
 * (input_open's binary check, the block pipeline with its worker threads and
 * its long-line check, the converter) must either be refused with a message
 * or give an FXT file that the project's reader finds well-formed and
 * balanced, with no problem Perfetto would trip on (docs/design.md
 * "Perfetto quirks": the converter must be right by construction). The
 * first byte picks --strict (odd) and the number of parsing threads (1 or
 * 2); the rest is the input.
 * Built and run by `make fuzz` (tests/fuzz/build.mk).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "fxt_reader.h"
#include "fxt_writer.h"
#include "fuzz_file.h"
#include "input.h"
#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_perf[] = { NULL };
	struct input_perf perf = { .perf = "/nonexistent/perf", .args = no_perf };
	struct conv_opts opts = { .strict = size && (data[0] & 1) };
	unsigned workers = size && (data[0] & 2) ? 2 : 1;
	struct fxt_trace t = { 0 };
	struct conv_driver *cv;
	struct fxt_writer *w;
	struct input *in;
	const char *text = fuzz_file_write("txt", size ? data + 1 : data, size ? size - 1 : 0);
	const char *out = fuzz_file_path("fxt");
	char err[512];
	int e = 0, conv_err = 0, rc;

	w = fxt_writer_open(out, FXT_OUTPUT_RAW, "fuzz", &e);
	if (!w)
		abort();
	cv = conv_driver_new(w, &opts);
	if (!cv)
		abort();
	if (input_open(text, NULL, &perf, &in, err, sizeof(err))) {	/* refused: a binary file */
		conv_driver_free(cv);
		fxt_writer_abort(w);
		return 0;
	}
	conv_driver_begin_input(cv, text);
	rc = pipeline_convert(in, text, cv, workers, &conv_err, err, sizeof(err));
	if (input_close(in, err, sizeof(err)) < 0)
		rc = PIPELINE_READ_ERROR;
	if (rc == PIPELINE_OK)
		rc = conv_driver_end_input(cv);
	if (rc == PIPELINE_OK)
		rc = conv_driver_end(cv);
	conv_driver_free(cv);
	if (rc) {	/* a refused input: nothing is written */
		fxt_writer_abort(w);
		return 0;
	}
	if (fxt_writer_close(w) || fxt_trace_read(out, &t, err, sizeof(err)) ||
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
	unlink(out);
	return 0;
}
