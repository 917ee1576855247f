/* SPDX-License-Identifier: MIT */
/*
 * ipname: the process's mappings, as a perf.data's MMAP and MMAP2 records
 * left them (per process; read once per perf.data: conv_maps), and what
 * they tell:
 *   - whether a call chain's frame lies in a mapping that is no code (not
 *     executable: //anon arenas, a file mapped without PROT_EXEC), where
 *     no return address is: a frame-pointer walk's misreading
 *     (conv_maps_data(), conv_chain_clean()'s junk rule);
 *   - the function at an address of a process that perf never sampled
 *     there (a signal in a thread the recording leaves out: record.json
 *     gives its ip, no sample gives its stack), named from the process's
 *     executable mappings and the symbols of the file mapped there, as perf
 *     names them (perfsym.h). A file whose build id differs from the one
 *     perf recorded (it was rebuilt since) names nothing: its symbols are
 *     not what ran.
 * Why: docs/design.md "A chain cut at an address in no mapping", "Threads
 * not recorded".
 */
#ifndef SNAPTRACE_CONVERT_IPNAME_H
#define SNAPTRACE_CONVERT_IPNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srcline;

/* The mappings of a perf.data's processes (conv_maps_read()). */
struct conv_maps;

/* The most mappings a table holds (a record each: perf's synthesized ones
 * of every snapshot too); a perf.data with more has none read. */
#define CONV_MAPS_MAX (1u << 18)

/*
 * Reads the MMAP and MMAP2 records of the perf.data PERFDATA (a path) into
 * a new table, *MAPS. Returns 0; -EFBIG when it has more than
 * CONV_MAPS_MAX; -ENOMEM; or perfdata_mmaps()'s negative errno (-EIO:
 * damaged records, -ENOTSUP: compressed ones), *MAPS NULL.
 */
int conv_maps_read(const char *perfdata, struct conv_maps **maps);

/* Frees M. NULL is fine. */
void conv_maps_free(struct conv_maps *m);

/*
 * Whether a call chain's frame of process PID that perf printed at ADDR in
 * DSO (LEN bytes; perf's map-relative address: the address itself in the
 * memory perf maps one to one, //anon, /dev/zero, /anon_hugepage, [heap],
 * [stack], /SYSV; else its offset in the file) lies in a mapping of that
 * name that is not executable, and neither it nor the byte before it (a
 * return address past a call that ends a mapping) in an executable one: no
 * code ran there. False when no mapping of PID named DSO holds it (a
 * recording without perf's -d lists no data mapping; perf names
 * executable anonymous memory /tmp/perf-PID.map), and for M NULL.
 */
bool conv_maps_data(const struct conv_maps *m, int64_t pid, const char *dso, size_t len,
		    uint64_t addr);

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
 * (conv_maps_read()'s: the perf.data cannot be read; -ENOMEM).
 */
int conv_ipname(const char *perfdata, int64_t pid, uint64_t ip, const struct srcline *sl,
		struct conv_ipname *out);

#endif
