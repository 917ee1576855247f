/* SPDX-License-Identifier: MIT */
/*
 * perfcmd: the one definition of the `perf script` command line that
 * snaptrace-convert runs on a perf.data (fields, itrace options, the
 * dlfilter, a --time range), also what `snaptrace-convert
 * --print-perf-command` prints for the README, the usage text and the
 * benchmark. docs/design.md "perf script grammar" says what the fields are.
 */
#ifndef SNAPTRACE_CONVERT_PERFCMD_H
#define SNAPTRACE_CONVERT_PERFCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a perf.data holds (from `perf evlist`): it decides the fields. */
enum perfcmd_kind {
	PERFCMD_BRANCHES,   /* Intel PT: decoded branches (--itrace=bep) */
	PERFCMD_SAMPLES,    /* sampled call chains (perf record -g) */
	PERFCMD_SCHED,      /* samples and tracepoints whose text is read
			     * (sched:sched_switch, signal:signal_deliver) */
};

#define PERFCMD_MAX_ARGS (32 + 64)   /* perf script's arguments, extra ones included */

/*
 * perf's --buildid-dir when the input keeps no binaries: a name under which
 * nothing can ever be (every lookup fails with ENOTDIR), so perf script
 * never reads the caller's build-id cache (~/.debug: for root, a copy of
 * every program its perf ever recorded, another user's among them, taken
 * for any binary of its build id) and takes each binary from its path (the
 * vdso from its own copy). Why: docs/design.md "Threat model".
 */
#define PERFCMD_NO_BUILDID_CACHE "/dev/null"

/* What varies between runs. */
struct perfcmd_opts {
	const char *perf;          /* the perf binary (argv[0]) */
	const char *input;         /* the perf.data (-i), or NULL: none */
	enum perfcmd_kind kind;
	const char *dlfilter;      /* the dlfilter's path, or NULL: text only */
	bool has_range;            /* --time FIRST,LAST (ns, inclusive) */
	uint64_t first, last;      /* FIRST 0: from the start; LAST UINT64_MAX: to the end */
	const char *const *extra;  /* the user's --perf-arg arguments */
	size_t nextra;
	const char *buildid_dir;   /* perf --buildid-dir DIR (a recording's kept binaries, or
				    * PERFCMD_NO_BUILDID_CACHE), or NULL */
	const char *kallsyms;      /* --kallsyms FILE (kallsyms.h: the kernel symbols the
				    * input needs), or NULL: perf's own */
};

/* A built command line: argv points into OPTS's strings and into TIME. */
struct perfcmd {
	const char *argv[PERFCMD_MAX_ARGS + 1];   /* NULL-terminated */
	size_t argc;
	size_t dlfilter_arg;       /* index of "--dlfilter", or 0 */
	char time[64];             /* --time's argument */
};

/* Builds the command line of OPTS into CMD (extra arguments past
 * PERFCMD_MAX_ARGS are dropped). */
void perfcmd_build(struct perfcmd *cmd, const struct perfcmd_opts *opts);

/* Drops the dlfilter from CMD (the fallback to text). */
void perfcmd_drop_dlfilter(struct perfcmd *cmd);

/* The kind named NAME ("branches", "samples", "sched"). Returns 0 and
 * *KIND, or -1 for another name. */
int perfcmd_kind_parse(const char *name, enum perfcmd_kind *kind);

/* Writes CMD into BUF (SIZE bytes, NUL-terminated, cut) as one shell line:
 * the arguments separated by spaces (none of ours needs quoting). Returns
 * the length it wanted. */
size_t perfcmd_format(const struct perfcmd *cmd, char *buf, size_t size);

/* The text path's command line for KIND without an input (-i FILE): what
 * the README, --help and error messages show. Into BUF as perfcmd_format(). */
void perfcmd_text(enum perfcmd_kind kind, char *buf, size_t size);

#endif
