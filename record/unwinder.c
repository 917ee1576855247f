/* SPDX-License-Identifier: MIT */
#include "unwinder.h"

#include <stdint.h>
#include <stdio.h>

#include "elfsym.h"

enum rec_callgraph rec_callgraph_pick(const char *exe, char *why, size_t size)
{
	uint64_t with, total;
	int err = rec_elf_frame_pointers(exe, &with, &total);
	unsigned pct;

	if (err) {
		snprintf(why, size, "--callgraph auto: %s: %s: using fp", exe, rec_elf_strerror(err));
		return REC_CG_FP;
	}
	pct = (unsigned)(100 * with / total);
	if (pct >= 50) {
		snprintf(why, size, "--callgraph auto: %s: %u%% of its code sets up frame "
			 "pointers: using fp", exe, pct);
		return REC_CG_FP;
	}
	snprintf(why, size, "--callgraph auto: %s: %u%% of its code sets up frame pointers "
		 "(built without them): using dwarf, which reaches back about 70 times less far "
		 "(--snapshot-size raises that)", exe, pct);
	return REC_CG_DWARF;
}
