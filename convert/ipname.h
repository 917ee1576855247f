/* SPDX-License-Identifier: MIT */
/*
 * ipname: the function at an address of a process that perf never sampled
 * there (a signal in a thread the recording leaves out: record.json gives
 * its ip, no sample gives its stack), named from the mappings the process's
 * recorded threads left in a perf.data (MMAP and MMAP2 records, per
 * process) and the symbols of the file mapped there, as perf names them
 * (perfsym.h). A file whose build id differs from the one perf recorded
 * (it was rebuilt since) names nothing: its symbols are not what ran.
 * Why: docs/design.md "Threads not recorded".
 */
#ifndef SNAPTRACE_CONVERT_IPNAME_H
#define SNAPTRACE_CONVERT_IPNAME_H

#include <stdbool.h>
#include <stdint.h>

struct srcline;

struct conv_ipname {
	char dso[4096];            /* the file mapped there, as perf names it */
	uint64_t offset;           /* the address's offset in it */
	char sym[256];             /* the function (perf's name), "" when none is known */
	uint64_t symoff;           /* the address less the function's start */
};

/*
 * Names address IP of process PID from the perf.data PERFDATA (a path; the
 * last executable mapping of PID holding IP in its records), the file the
 * one rule gives for it (srcline_symbols() of SL: the recording's kept copy
 * of a binary rebuilt since). Fills *OUT.
 * Returns 1 when a file is mapped there (OUT->sym "" when no symbol of it
 * holds IP, or the file changed), 0 when none is, or a negative errno
 * (perfdata_mmaps(): the perf.data cannot be read; -ENOMEM).
 */
int conv_ipname(const char *perfdata, int64_t pid, uint64_t ip, const struct srcline *sl,
		struct conv_ipname *out);

#endif
