/* SPDX-License-Identifier: MIT */
/*
 * options: the command line of snaptrace-convert, one table of
 * common/opttab.h rows (options.c): the parsing, the checks, --help, the
 * man page snaptrace-convert(1) and the bash completion come from it.
 */
#ifndef SNAPTRACE_CONV_OPTIONS_H
#define SNAPTRACE_CONV_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"

enum dump_view { DUMP_NONE, DUMP_ALL, DUMP_RECORDS, DUMP_SLICES, DUMP_TREE, DUMP_RECORDING };

struct conv_options {
	const char *output;        /* -o: never NULL after parsing a conversion */
	const char *perf;          /* --perf, else $SNAPTRACE_PERF, else "perf" */
	const char **perf_args;    /* --perf-arg values (owned array of argv strings,
				    * or of perf_owned's) */
	size_t nperf_args;
	char **perf_owned;         /* --perf-arg paths made absolute (owned) */
	size_t nperf_owned;
	bool quiet, strict, no_srcline, no_dlfilter;
	bool perf_decoder;         /* --decoder=perf */
	unsigned jobs;             /* -j: perf script processes for one Intel PT input; 0: unset */
	enum dump_view dump;
	struct conv_cut cut;       /* --filter's */
	const char *filter;        /* --filter's argument, or NULL */
	const char *window;        /* --window's argument, or NULL */
	uint64_t before, after;    /* --window's, ns */
	bool check;                /* --check-options */
};

/*
 * Parses ARGV (ARGC of them) into O, setting the defaults first. Returns -1
 * to go on, with *FIRST the index of the first input (the inputs are the
 * rest of ARGV), or the exit status to end with: EXIT_OK after --help,
 * --version or --print-perf-command (printed on stdout), EXIT_USAGE after a
 * one-line error, EXIT_RUNTIME when out of memory. Free O with
 * conv_options_free().
 */
int conv_options_parse(int argc, char **argv, struct conv_options *o, int *first);

void conv_options_free(struct conv_options *o);

#endif
