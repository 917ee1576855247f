/* SPDX-License-Identifier: MIT */
/*
 * input: the lines of one input of snaptrace-convert. An input is a perf.data
 * file (recognised by its "PERFILE" magic; `perf script -f` is then run on it
 * with the fields of docs/design.md "perf script grammar", PAGER=cat, its
 * stderr collected; for Intel PT with snaptrace's dlfilter, docs/design.md
 * "Decoding"), a file of perf script text (or of the dlfilter's output), or
 * "-" for standard input.
 */
#ifndef SNAPTRACE_CONVERT_INPUT_H
#define SNAPTRACE_CONVERT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How perf is run for perf.data inputs. */
struct input_perf {
	const char *perf;          /* the perf binary */
	const char *const *args;   /* extra perf script arguments (--symfs DIR...) */
	size_t nargs;
	bool no_dlfilter;          /* never the dlfilter: perf's text only */
};

struct input;

/*
 * Opens PATH. Returns 0 and *IN, or a negative errno with a one-line
 * reason in ERRBUF ("PATH: No such file or directory").
 */
int input_open(const char *path, const struct input_perf *perf, struct input **in,
	       char *errbuf, size_t errlen);

/*
 * Reads up to CAP bytes of IN's text into BUF. Returns the number read, 0 at
 * the end, or a negative errno with a reason in ERRBUF.
 */
long input_read(struct input *in, char *buf, size_t cap, char *errbuf, size_t errlen);

/*
 * Returns true when IN reads as a binstream (binstream.h): its perf script
 * runs with snaptrace's dlfilter (an Intel PT perf.data, perf >= 5.14 or of
 * unknown version, the dlfilter beside this program, no --no-dlfilter; text
 * only when perf refused the dlfilter and was run again without it, which
 * input_read() does by itself, with a note), or it is a file of such output
 * (a binary record at a line's start in its first 64 KiB).
 */
bool input_binstream(const struct input *in);

/* Bytes read so far, and the input's size when known (a regular text
 * file, else 0): for progress. */
uint64_t input_bytes(const struct input *in);
uint64_t input_size(const struct input *in);

/*
 * Closes IN, waiting for perf script if one was run. Returns 0; 1 when perf
 * script printed something (warnings: in ERRBUF as one line "PATH: perf
 * script: ..."); or -1 when perf script failed (reason in ERRBUF: "PATH: perf
 * script exited with status 1: what it printed").
 */
int input_close(struct input *in, char *errbuf, size_t errlen);

#endif
