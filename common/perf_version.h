/* SPDX-License-Identifier: MIT */
/*
 * perf_version: lenient parsing of `perf --version` output and the feature
 * predicates snaptrace depends on.
 *
 * Format followed: tools/perf/builtin-version.c prints "perf version " and
 * PERF_VERSION, which is whatever the build made of the kernel release or git
 * describe: "6.1.187", "5.10.0-rc3.g1234abcd", "4.19.gdeadbeef",
 * "3.10.0-1160.el7.x86_64.debug", and on some distro builds an empty string.
 * Only the leading MAJOR.MINOR[.PATCH] is used; anything else means unknown.
 *
 * Feature thresholds (first upstream perf release that has them):
 *   --no-bpf-event                     5.1
 *   --snapshot=e (snapshot on exit)   5.4
 *   --kcore                            5.5
 *   --control=fd: and --delay=-1       5.10
 *   --dlfilter                         5.14
 *   --buildid-mmap                     5.12
 */
#ifndef SNAPTRACE_PERF_VERSION_H
#define SNAPTRACE_PERF_VERSION_H

#include <stdbool.h>

struct perf_version {
	bool known;        /* false: no MAJOR.MINOR found; the numbers are 0 */
	int major, minor, patch;  /* patch is 0 when absent */
	char text[64];     /* the version text after "perf version ", trimmed */
};

enum perf_feature {
	PERF_FEAT_SNAPSHOT_ON_EXIT,  /* --snapshot=e */
	PERF_FEAT_KCORE,             /* --kcore */
	PERF_FEAT_CONTROL,           /* --control=fd:R,W with ack, --delay=-1 */
	PERF_FEAT_DLFILTER,          /* --dlfilter */
	PERF_FEAT_NO_BPF_EVENT,      /* --no-bpf-event (no side-band thread) */
	PERF_FEAT_BUILDID_MMAP,      /* --buildid-mmap (build ids in the mmap events) */
	PERF_FEAT_COUNT,
};

/*
 * Parses TEXT, the output of `perf --version` (any trailing newline, or just
 * the version string itself). Fills *V in every case.
 * Returns 0 when a version was found, -EINVAL when it is unknown (V->known is
 * then false; V->text still holds what was printed, possibly "").
 */
int perf_version_parse(const char *text, struct perf_version *v);

/* Returns true when V is known and at least MAJOR.MINOR. */
bool perf_version_at_least(const struct perf_version *v, int major, int minor);

/*
 * Returns 1 when perf V has feature F, 0 when it has not, or -1 when V is
 * not known (the caller may probe `perf record -h` instead).
 */
int perf_version_has(const struct perf_version *v, enum perf_feature f);

/* Returns the perf option that feature F stands for, e.g. "--kcore"; never NULL. */
const char *perf_feature_option(enum perf_feature f);

/*
 * The version of the perf program PERF (a path, or a name looked up in
 * PATH) into *V, as `PERF --version` says, that program run once per
 * binary (its start-up costs ~20 ms of CPU): the answer is kept in
 * $XDG_CACHE_HOME/snaptrace/perf-versions (default ~/.cache), one line
 * per binary path (at most 16, the latest), keyed by its device, inode, size, modification and change
 * times and the kernel's release (a wrapper script that picks a perf by
 * kernel); a cache that cannot be read or written is done without. A
 * stale answer can only cost time: a perf that refuses an option it was
 * thought to have is run again without it. Returns 0 (V->known false when
 * perf printed no version), or -1 when PERF cannot be found or run, or
 * failed (*V then unknown).
 */
int perf_version_of(const char *perf, struct perf_version *v);

/* Formats V as "6.1.187" (or "unknown") into BUF of SIZE bytes; returns BUF. */
const char *perf_version_str(const struct perf_version *v, char *buf, unsigned size);

#endif
