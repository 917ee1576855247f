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

#include "perfcmd.h"
#include "perfmap.h"
#include "runas.h"

/* How perf is run for perf.data inputs. */
struct recording;

struct input_perf {
	const char *perf;          /* the perf binary */
	const char *const *args;   /* extra perf script arguments (--symfs DIR...) */
	size_t nargs;
	bool no_dlfilter;          /* never the dlfilter: perf's text only */
	unsigned jobs;             /* perf script processes at most (time ranges); 0, 1: one */
	const char *buildid_dir;   /* perf's build-id cache for this input (a recording's kept
				    * binaries: perf --buildid-dir), or NULL */
	bool perf_decoder;         /* Intel PT through perf script, never in process */
	const char *symfs;         /* perf script's --symfs, or NULL */
	int rec_dirfd;             /* the recording directory of this input (its kept perf
				    * maps: tmpview.h), or -1 */
	const struct recording *rec;   /* its recording (record.json's "uids": whose perf
				    * maps may name its processes' frames), or NULL */
};

struct input;

/*
 * Whom every perf run on an input runs as (perf script, perf inject, perf
 * evlist), and whom every file the converter itself opens because the
 * input names it must be open to (runas.h), into *AS: the owner of the
 * input HANDLE (a path this process reaches: /proc/self/fd/N; PATH its
 * name, for messages), or when that is root or the caller, of its recording
 * directory REC_DIRFD (-1: none), when that is another user and the caller
 * root; else AS is off (the caller). Returns 0, or -EPERM with ERRBUF one
 * line when the owner cannot be told (no uid to run perf as).
 */
int input_owner_as(const char *path, const char *handle, int rec_dirfd, struct runas *as,
		   char *errbuf, size_t errlen);

/*
 * Takes the input PATH (its name, for messages), open as FD (inpath.h,
 * close-on-exec: perf, whose argv names it, reads a perf.data as
 * /proc/self/fd/FD, spawn.h; 0 for "-";
 * borrowed, open until input_close()). Returns 0 and *IN, or a negative
 * errno with a one-line reason in ERRBUF: -EMEDIUMTYPE for an input of a
 * kind the converter does not read ("PATH: a binary file, ...": a regular
 * file with a NUL byte where text would start; a directory; a perf.data
 * from a pipe: a usage error). A pipe's text may hold a NUL (a comm).
 */
int input_open(const char *path, int fd, const struct input_perf *perf, struct input **in,
	       char *errbuf, size_t errlen);

/*
 * Reads up to CAP bytes of IN's text into BUF. Returns the number read, 0 at
 * the end of the current part, or a negative errno with a reason in ERRBUF.
 * A perf.data decoded through the dlfilter with PERF->jobs > 1 is split into
 * up to that many time ranges (ptsplit.h), each decoded by its own perf
 * script at once: the first into a pipe, the others into unnamed files in
 * $TMPDIR (/tmp); they are read in time order, one part each
 * (docs/design.md "Parallel decoding"). Any other input is one part.
 */
long input_read(struct input *in, char *buf, size_t cap, char *errbuf, size_t errlen);

/*
 * After input_read() returned 0: moves to the next part. Returns 1 when
 * there is one (its stream starts afresh: the dlfilter's string ids are
 * its own), 0 at the end of the input, or a negative errno (perf could not
 * be started). The part read so far is checked first: its `psb` events
 * (input_psb_seen()) must be at the times of the file's PSBs in its range,
 * one each; else its decoder's times went astray (a damaged timing
 * packet), the later ranges would not be -j 1's lines, and the next part
 * is the whole run's perf script instead, read on from the time after the
 * range (input_part_range(): RESUMES), with a note on stderr.
 */
int input_next_part(struct input *in);

/* Why a start of IN's perf failed with ERR (what input_next_part() or
 * input_read() returned), in BUF (SIZE bytes), which it returns:
 * run_start_words()'s, naming the process it found stopped before its exec
 * and who may stop it. */
const char *input_start_words(const struct input *in, int err, char *buf, size_t size);

/* A `psb` event (perf's synthesized event at a PSB packet) at TIME (ns) in
 * the current part's range. */
void input_psb_seen(struct input *in, uint64_t time);

/*
 * Returns true when IN reads as a binstream (binstream.h): its perf script
 * runs with snaptrace's dlfilter (an Intel PT perf.data, perf >= 5.14 or of
 * unknown version, the dlfilter beside this program, no --no-dlfilter; text
 * only when perf refused the dlfilter and was run again without it, which
 * input_read() does by itself, with a note), or it is a file of such output
 * (a binary record at a line's start in its first 64 KiB).
 */
bool input_binstream(const struct input *in);

/* The in-process decoder of IN (an Intel PT perf.data it reads exactly:
 * ptdecode.h), or NULL: then IN is read through input_read(). */
struct ptdecode *input_ptdecode(const struct input *in);

/* When IN is read in several time ranges: the current one's FIRST and LAST
 * times (ns, inclusive) and true. perf script --time leaves some lines of
 * other times in (switch records, lines of its decoder's run-up to the
 * range): the reader drops every timed line outside the range. *RESUMES:
 * the part is the whole run read on from FIRST (input_next_part()): every
 * line before its first timed line at or past FIRST belongs to the ranges
 * read already, and is dropped too. */
bool input_part_range(const struct input *in, uint64_t *first, uint64_t *last, bool *resumes);

/* The command line of part K of a perf.data input (perfcmd.h), or NULL
 * (a text input, or no such part). Borrowed from IN. */
const struct perfcmd *input_perf_command(const struct input *in, size_t k);

/* What `perf evlist -F` printed for a perf.data input (its events with
 * their sample_freq or sample_period, one a line); "" for a text input or
 * an Intel PT perf.data known by its header. Borrowed from IN. */
const char *input_evlist(const struct input *in);

/* The most events whose sample_type bits an input keeps. */
#define INPUT_MAX_EVENTS 64

/* The sample_type bits of a perf.data input's events, in input_evlist()'s
 * order (perfdata_sample_types): *N of them (up to INPUT_MAX_EVENTS; 0 for a
 * text input, the pipe format, or Intel PT). Borrowed from IN. */
const uint64_t *input_sample_types(const struct input *in, size_t *n);

/* Bytes read so far, and the input's size when known (a regular text
 * file, else 0): for progress. */
uint64_t input_bytes(const struct input *in);
uint64_t input_size(const struct input *in);

/* The directory the relative dso names of IN's perf script output are of
 * (perf inject --jit's ELF files: jitdump.h), open until input_close(); -1
 * when there is none. */
int input_dso_dir(const struct input *in);

/*
 * Whose perf maps in /tmp may name IN's frames (common/perfmap.h): the
 * users record.json's "uids" gives its processes, else (a perf.data or
 * text alone, an older record.json) the only owner a map may have is the
 * input's (as input_owner_as() tells it: the file's, and when that is root
 * or the caller, its recording directory's). Borrowed from IN, whose
 * recording must outlive its use.
 */
const struct perfmap_users *input_perfmap_users(const struct input *in);

/*
 * The mappings of the processes of the perf.data IN (the file perf script
 * reads: with perf inject's records of a jitdump, a snapshot's carried
 * side-band), read once (ipname.h); NULL for text, and for a perf.data
 * whose mappings were not read (more than CONV_MAPS_MAX, damaged or
 * compressed records: perf says those). Borrowed from IN.
 */
const struct conv_maps *input_maps(const struct input *in);

/*
 * Closes IN, waiting for perf script if one was run. Returns 0; 1 when perf
 * script printed something (warnings: in ERRBUF as one line "PATH: perf
 * script: ..."); or -1 when perf script failed (reason in ERRBUF: "PATH: perf
 * script exited with status 1: what it printed").
 */
int input_close(struct input *in, char *errbuf, size_t errlen);

#endif
