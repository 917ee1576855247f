/* SPDX-License-Identifier: MIT */
/*
 * inputs: a conversion's inputs, the snapshots of its recordings
 * (timeline.h), and the loop that feeds them to the line driver in order,
 * each told what it passes on to the next: the one loop of
 * snaptrace-convert (convert/main.c lists the inputs, opens the output and
 * says the summary) and of the fuzz targets (tests/fuzz/fuzz_conv.h).
 * Returns exit statuses (diag.h, and INPUTS_FALLBACK), as main.c does:
 * each failure is said (diag.h) where it is found.
 */
#ifndef SNAPTRACE_CONVERT_INPUTS_H
#define SNAPTRACE_CONVERT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "binaries.h"
#include "driver.h"
#include "input.h"
#include "recording.h"
#include "runas.h"
#include "sideband.h"

/* inputs_convert()'s status when the in-process decoder gave up midway:
 * nothing of the trace can be kept, all again through perf
 * (docs/design.md "Decoding"). */
#define INPUTS_FALLBACK (-1)

/* One file to convert: a snapshot of a recording directory, or of the
 * files given in a row (timeline.h). */
struct conv_input {
	const char *path;              /* its name, for messages */
	const struct recording *rec;   /* the recording it is a snapshot of */
	size_t snapshot;               /* its index in rec */
	bool stream;                   /* an argument that is no regular file ("-", a FIFO,
					* a terminal): opened once, to be converted */
	dev_t dev;                     /* the file read (st_dev, st_ino): the same file */
	ino_t ino;                     /* given twice would be read twice */
};

/* One conversion's inputs: the recordings the arguments are (at most one
 * per argument) and the snapshots of them to convert, in order. */
struct inputs {
	struct conv_input *in;         /* n of them, owned */
	size_t n;
	struct recording *recs;        /* nrecs read, room for one per argument; owned */
	size_t nrecs;
	struct sideband *sbs;          /* per recording: its side-band so far */
	struct binaries_kept *kept;    /* per recording: its kept binaries' copy */
	struct runas *owners;          /* the users other than root and the caller whose
					* inputs these are (inputs_owners()); owned */
	size_t nowners;
};

/* Room in INS (zeroed) for NARGS arguments' recordings. Returns 0 or
 * -ENOMEM (free INS with inputs_free() either way). */
int inputs_alloc(struct inputs *ins, size_t nargs);

/* Frees what INS owns: its inputs, each recording read, its side-band and
 * kept binaries' copy. */
void inputs_free(struct inputs *ins);

/* The kept binaries' copy of the recording input IN is a snapshot of. */
const struct binaries_kept *inputs_kept(const struct inputs *ins, const struct conv_input *in);

/*
 * Opens IN to read (inpath.h), not close-on-exec (perf reads it as
 * /proc/self/fd/N): a snapshot as a regular file of its recording's
 * directory, an argument as what it was when the inputs were listed (a
 * regular file then is one now), a stream as a pipe (never a named FIFO or
 * a device). Returns the fd (STDIN_FILENO for "-"), or inpath_open()'s
 * negative errno (-EINVAL: not the kind of file taken) after an error
 * naming it.
 */
int conv_input_open(const struct conv_input *in);

/* Closes FD from conv_input_open() (never standard input). */
void conv_input_close(int fd);

/*
 * Lists in INS->owners each user other than root and the caller whose
 * input INS holds (input_owner_as(): a file's owner, or its recording
 * directory's; a stream is the caller's), once each: every file the
 * converter opens itself because an input names it must be open to each
 * of them (runas_open()). Returns an exit status, after saying why it is
 * not EXIT_OK (an owner that cannot be told, out of memory).
 */
int inputs_owners(struct inputs *ins);

/*
 * Converts every input of INS with CV (conv_driver_recording() first for
 * each recording directory), in order: each snapshot told what it passes
 * on to the next (timeline.h), a recording's later snapshots read with
 * the side-band of those before (sideband.h), perf given the binaries
 * the recording keeps; each input's text parsed by WORKERS threads
 * (pipeline.h). Then ends the conversion (conv_driver_end()). PERF: how
 * perf script runs (its buildid_dir and rec_dirfd are set per input).
 * Returns an exit status, after saying why it is not EXIT_OK;
 * INPUTS_FALLBACK: the in-process decoder gave up (said as a note).
 */
int inputs_convert(struct conv_driver *cv, struct inputs *ins, const struct input_perf *perf,
		   unsigned workers);

#endif
