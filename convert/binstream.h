/* SPDX-License-Identifier: MIT */
/*
 * binstream: the output of `perf script --dlfilter snaptrace-dlfilter.so`:
 * binary records (dlfilter/binrec.h) and perf's own text lines mixed in
 * perf's order, read into the same struct conv_line the text parser makes,
 * so the line driver and the stack machine see one stream of branches
 * whatever its source. Text lines are parsed by conv_parse_line(); a stream
 * of text only (a perf that refused the dlfilter) reads as well.
 */
#ifndef SNAPTRACE_CONVERT_BINSTREAM_H
#define SNAPTRACE_CONVERT_BINSTREAM_H

#include <stddef.h>

#include "driver.h"
#include "input.h"

/*
 * Converts IN (named NAME in messages) with CV, on the calling thread.
 * Returns a pipeline_status (pipeline_types.h): PIPELINE_OK, or for
 * PIPELINE_CONVERT the converter's code in *CONV_ERR, for the others a
 * one-line reason in ERRBUF ("NAME: byte N: a binary record of unknown
 * type 9"). Memory: one read buffer and the strings the stream defined.
 */
int binstream_convert(struct input *in, const char *name, struct conv_driver *cv, int *conv_err,
		      char *errbuf, size_t errlen);

#endif
