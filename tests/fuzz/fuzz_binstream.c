/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target (libFuzzer): any bytes as the output of perf script with
 * snaptrace's dlfilter (dlfilter/binrec.h: binary records between perf's
 * text lines), read by convert/binstream.c: after a VERSION and a STRING
 * record (as the dlfilter's output begins, so input_open takes it as a
 * binary stream),
 * the input. It must be refused with a message or give a well-formed,
 * balanced FXT (fuzz_conv.h); the first byte picks --strict (bit 0) and
 * source lines (bit 2, as in fuzz_convert). Seeded with the golden cases
 * rewritten by tests/gen/text2bin. Built and run by `make fuzz`.
 */
#include <string.h>

#include "binrec.h"
#include "fuzz_conv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* VERSION BINREC_FORMAT and STRING id 1 "app": the dlfilter's first records */
	static const uint8_t first[] = { BINREC_MARK, BINREC_VERSION, 8, 0, BINREC_FORMAT, 0, 0, 0,
					 BINREC_MARK, BINREC_STRING, 11, 0, 1, 0, 0, 0, 'a', 'p', 'p' };
	uint8_t how = size ? data[0] : 0, *buf = malloc(sizeof(first) + size);
	const char *path;
	struct conv_opts opts = { .strict = how & 1 };
	bool srcline = (how & 4) && !memmem(data, size, "..", 2);

	if (!buf)
		abort();
	memcpy(buf, first, sizeof(first));
	if (size > 1)
		memcpy(buf + sizeof(first), data + 1, size - 1);
	path = fuzz_file_write("bin", buf, sizeof(first) + (size ? size - 1 : 0));
	free(buf);
	fuzz_conv(path, NULL, opts, srcline, 1);
	return 0;
}
