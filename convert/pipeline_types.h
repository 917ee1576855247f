/* SPDX-License-Identifier: MIT */
/*
 * pipeline_types: what the pipeline (pipeline.c) shares with the readers it
 * runs in its place (binstream.c, ptdecode.c), which include this and not
 * pipeline.h (that names the input, which opens the decoder): the size of a
 * block of input and the status a run ends with.
 */
#ifndef SNAPTRACE_CONVERT_PIPELINE_TYPES_H
#define SNAPTRACE_CONVERT_PIPELINE_TYPES_H

/* The fuzz build (tests/fuzz/build.mk) makes it small (and CONV_LINE_MAX),
 * so that its inputs cross blocks and reach the long-line check. */
#ifndef PIPELINE_BLOCK
#define PIPELINE_BLOCK (1u << 20)        /* bytes of text per block */
#endif

/* What stopped a pipeline run. */
enum pipeline_status {
	PIPELINE_OK = 0,
	PIPELINE_READ_ERROR = -1,   /* reading the input failed */
	PIPELINE_CONVERT = -2,      /* the converter stopped: see conv_driver_parsed()'s code */
	PIPELINE_NOMEM = -3,
	PIPELINE_FALLBACK = -4,     /* the in-process decoder gave up (ptdecode.h): the
				     * conversion must be redone through perf script */
};

#endif
