/* SPDX-License-Identifier: MIT */
/*
 * perfmaps: names the frames of a JIT's code from the perf map the recorder
 * kept (common/perfmap.h, PERFMAP_KEPT in the recording directory). perf
 * reads /tmp/perf-PID.map by that path only: when it is gone, perf names
 * no frame of the JIT and they fold into one "[unknown @ ADDR]" slice
 * across many calls; when another process's map has taken the name (pids
 * are reused), perf names them wrongly. So for a frame in the dso
 * "/tmp/perf-PID.map" of a recording that kept that map: perf left it
 * unnamed, or the file at the path now differs from the copy kept, the
 * name comes from the copy. With no copy and no file, one warning per
 * process says its JIT functions show as addresses. The copies read are
 * at most PERFMAP_FILES_MAX and PERFMAP_TOTAL_MAX bytes in all (perfmap.h:
 * a recording of another user's once had the converter hold 256 MiB per
 * map); the rest are named in one warning as the conversion ends.
 * Why: docs/design.md "JIT code".
 */
#ifndef SNAPTRACE_CONVERT_PERFMAPS_H
#define SNAPTRACE_CONVERT_PERFMAPS_H

#include <stdbool.h>

#include "parse.h"
#include "perfmap.h"
#include "state.h"

/* One process's perf map, as far as it was looked for. */
struct conv_perfmap {
	pid_t pid;
	bool kept;              /* M holds the recording's copy */
	bool override;          /* the file at the path differs from the copy: perf's
				 * names of this dso are not the recording's */
	struct perfmap m;
};

/*
 * Names LOC from the kept perf map when it is a frame of a perf map that
 * perf left unnamed, or named from a file that is not the recording's:
 * LOC->sym, symoff set (pointing into C's copy), LOC->func cleared. Returns
 * true when it did.
 */
bool conv_perfmap_name(struct conv *c, struct conv_loc *loc);

/* Says what maps C left out (perfmap_budget_warn()), frees those it read. */
void conv_perfmaps_free(struct conv *c);

#endif
