/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): the FXT reader behind --dump on any bytes (raw or
 * gzip). It must never crash, leak or read out of bounds: a file that is not
 * FXT is an error with a message, anything else is read with its problems
 * listed, its slices rebuilt, and every view printed. Seeded with the FXT of
 * tests/cases by `make fuzz` (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "fxt_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct fxt_trace t = { 0 };
	const char *path = fuzz_file_write("fxt", data, size);
	char err[512] = "";

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (fxt_trace_read(path, &t, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))	/* an error is one line */
			abort();
		return 0;
	}
	if (fxt_trace_slices(&t))
		abort();
	fxt_dump_records(&t, devnull);
	fxt_dump_slices(&t, devnull, true);
	fxt_dump_slices(&t, devnull, false);
	for (size_t i = 0; i < t.nproblems; i++)
		if (strchr(t.problems[i], '\n'))	/* a problem is one line */
			abort();
	fxt_trace_free(&t);
	return 0;
}
