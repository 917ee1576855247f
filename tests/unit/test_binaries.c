// SPDX-License-Identifier: MIT
/*
 * Unit tests of convert/binaries.c's binaries_is_recorded(): whether a file
 * of some build id is the binary a recording names (what pltnames.c reads
 * a PLT from, and only then): a binary the recording has no build id for is
 * taken; the recorded id, also as perf pads a short one with zeros, is the
 * same; another id, or a file with none where the recording has one, is
 * not; another binary's id says nothing of this one.
 */
#include <string.h>

#include "binaries.h"
#include "unit.h"

static void recorded_build_ids(void)
{
	struct binary b[] = {
		{ .path = "/opt/app", .id = "0123456789abcdef0123456789abcdef01234567" },
		{ .path = "/opt/short", .id = "0123456789abcdef000000000000000000000000" },
		{ .path = "/opt/noid", .id = "" },
	};
	struct binaries bs = { .b = b, .n = 3, .cap = 3, .symfs = "" };

#define IS(dso, hex) binaries_is_recorded(&bs, dso, strlen(dso), hex)
	CHECK(IS("/opt/app", "0123456789abcdef0123456789abcdef01234567"));
	CHECK(!IS("/opt/app", "fedcba9876543210fedcba9876543210fedcba98"));
	CHECK(!IS("/opt/app", ""));
	CHECK(IS("/opt/short", "0123456789abcdef"));   /* perf's padding */
	CHECK(!IS("/opt/short", "0123456789abcdee"));
	CHECK(IS("/opt/noid", "fedcba9876543210fedcba9876543210fedcba98"));
	CHECK(IS("/opt/other", "fedcba9876543210fedcba9876543210fedcba98"));
	CHECK(IS("/opt/ap", "fedcba9876543210fedcba9876543210fedcba98"));   /* a prefix is no name */
	CHECK(binaries_is_recorded(NULL, "/opt/app", 8, ""));
#undef IS
}

int main(void)
{
	UNIT_RUN(recorded_build_ids);
	return unit_exit();
}
