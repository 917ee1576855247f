/* SPDX-License-Identifier: MIT */
/*
 * options: the command line of snaptrace-stats, one table of
 * common/opttab.h rows (options.c): the parsing, the checks, --help, the
 * man page snaptrace-stats(1) and the bash completion come from it.
 */
#ifndef SNAPTRACE_STATS_OPTIONS_H
#define SNAPTRACE_STATS_OPTIONS_H

#include <stdbool.h>

#include "agg.h"
#include "report.h"

struct stats_options {
	struct agg_opts agg;
	struct report_opts report;
	const char *baseline;      /* --baseline OLD, or NULL */
	char function[1024];       /* --function NAME demangled (demangle_name()) */
	char lib[256];             /* --function LIB:NAME's LIB, or "" */
	bool quiet;
};

/*
 * Parses ARGV (ARGC of them) into O, setting the defaults first. Returns -1
 * to go on, with *TRACE the index of the one trace argument, or the exit
 * status to end with: EXIT_OK after --help or --version (printed on
 * stdout), EXIT_USAGE after a one-line error.
 */
int stats_options_parse(int argc, char **argv, struct stats_options *o, int *trace);

#endif
