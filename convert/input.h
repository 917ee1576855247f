/* SPDX-License-Identifier: MIT */
/*
 * input: the lines of one input of snaptrace-convert. An input is a perf.data
 * file (recognised by its "PERFILE" magic; `perf script -f` is then run on it
 * with the fields of docs/design.md "perf script grammar", PAGER=cat, its stderr passed
 * through), a file of perf script text, or "-" for standard input.
 */
#ifndef SNAPTRACE_CONVERT_INPUT_H
#define SNAPTRACE_CONVERT_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* How perf is run for perf.data inputs. */
struct input_perf {
	const char *perf;          /* the perf binary */
	const char *const *args;   /* extra perf script arguments (--symfs DIR...) */
	size_t nargs;
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
