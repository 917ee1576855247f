/* SPDX-License-Identifier: MIT */
/*
 * pipeline: reads an input in blocks of whole lines, parses the blocks on
 * worker threads (conv_parse_line, the bulk of the work) and feeds the
 * parsed lines, in input order, to the converter on the calling thread.
 * Memory is a fixed ring of blocks: PIPELINE_BLOCK bytes each plus their
 * parsed lines, whatever the input's length.
 */
#ifndef SNAPTRACE_CONVERT_PIPELINE_H
#define SNAPTRACE_CONVERT_PIPELINE_H

#include <stddef.h>

#include "driver.h"
#include "input.h"
#include "pipeline_types.h"

/*
 * Converts every line of IN (named NAME in messages) with CV, using WORKERS
 * parsing threads (at least 1). Returns PIPELINE_OK, or a negative status;
 * for PIPELINE_CONVERT *CONV_ERR holds the converter's code, for the others
 * ERRBUF holds a one-line reason. Shows progress via diag_progress().
 * An input of snaptrace's dlfilter (input_binstream()) is read by
 * binstream_convert() on the calling thread instead.
 */
int pipeline_convert(struct input *in, const char *name, struct conv_driver *cv, unsigned workers,
		     int *conv_err, char *errbuf, size_t errlen);

#endif
