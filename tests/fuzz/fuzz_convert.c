/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): any input through the converter's real input path
 * (input_open's binary check, the block pipeline with its worker threads and
 * its long-line check, the converter) must either be refused with a message
 * or give an FXT file that the project's reader finds well-formed and
 * balanced, with no problem Perfetto would trip on (fuzz_conv.h). The first
 * byte picks --strict (bit 0), the number of parsing threads (1 or 2: bit
 * 1) and source lines (bit 2: the dsos of the seeds are binaries of
 * fuzz_symfs(); an input naming a path with ".." gets none, as it could
 * leave that directory); the rest is the input.
 * Built and run by `make fuzz` (tests/fuzz/build.mk).
 */
#include <string.h>

#include "fuzz_conv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t how = size ? data[0] : 0;
	const char *text = fuzz_file_write("txt", size ? data + 1 : data, size ? size - 1 : 0);
	struct conv_opts opts = { .strict = how & 1 };
	bool srcline = (how & 4) && !memmem(data, size, "..", 2);

	fuzz_conv(text, NULL, opts, srcline, how & 2 ? 2 : 1);
	return 0;
}
