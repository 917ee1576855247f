/* SPDX-License-Identifier: MIT */
/*
 * converter: perf script text, line by line, into FXT events on a writer.
 * Memory is bounded by threads x stack depth + distinct functions (plus the
 * branches of one thread that share one timestamp), never by input length.
 */
#ifndef SNAPTRACE_CONVERT_CONVERTER_H
#define SNAPTRACE_CONVERT_CONVERTER_H

#include <stdbool.h>
#include <stddef.h>

#include "conv.h"

struct conv_opts {
	bool strict;   /* an unrecognised line is an error, not a warning */
	struct srcline *srcline;   /* file/line arguments of slices; NULL: none (borrowed) */
};

/* Why converter_parsed() stopped the conversion. */
enum conv_error {
	CONV_OK = 0,
	CONV_ERR_NOMEM = -1,
	CONV_ERR_STRICT = -2,   /* --strict and an unrecognised line */
	CONV_ERR_COLUMN = -3,   /* the text lacks a required column (a usage error) */
	CONV_ERR_TIME = -4,     /* a time past CONV_TS_MAX */
	CONV_ERR_LINE_ENDS = -5, /* CR-only line ends (a usage error) */
	CONV_ERR_IDS = -6,      /* too many thread ids outside 1..CONV_KOID_BAND-1 */
};

struct converter;

/* Returns a converter writing to W (borrowed; the caller closes it), or NULL. */
struct converter *converter_new(struct fxt_writer *w, const struct conv_opts *opts);

/* Names the input whose lines follow (for messages) and restarts line numbers. */
void converter_begin_input(struct converter *cv, const char *name);

/*
 * Converts one line, parsed by conv_parse_line() (lines must come in input
 * order; parsing may happen anywhere before). Returns CONV_OK or a negative
 * enum conv_error after which the conversion must stop; converter_message()
 * then holds the one-line reason ("FILE:LINE: ...").
 */
int converter_parsed(struct converter *cv, const struct conv_line *l);

/* Ends the current input: closes every open frame of every thread at its
 * last time (an input is one snapshot; the next starts new segments).
 * Returns CONV_OK, or an enum conv_error as converter_parsed() does. */
int converter_end_input(struct converter *cv);

/* The reason of the last error. */
const char *converter_message(const struct converter *cv);

/* Counts so far. */
const struct conv_stats *converter_stats(const struct converter *cv);

/* Prints what the trace covers: the TOP threads of longest span (time span,
 * samples and sampling period, [off-cpu] and [no samples] time), a total
 * line, and a warning when many sampled call stacks are broken (naming the
 * binaries and the fix). On stderr through diag_info/diag_warn. */
void converter_report(struct converter *cv, unsigned top);

/* Frees CV (not its writer). */
void converter_free(struct converter *cv);

#endif
