/* SPDX-License-Identifier: MIT */
/*
 * driver (conv_driver_*): perf script text, line by line, into FXT events on a writer.
 * Memory is bounded by threads x stack depth + distinct functions (plus the
 * branches of one thread that share one timestamp), never by input length.
 */
#ifndef SNAPTRACE_CONVERT_DRIVER_H
#define SNAPTRACE_CONVERT_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"
#include "timeline.h"

struct binaries;

struct conv_opts {
	bool strict;   /* an unrecognised line is an error, not a warning */
	struct srcline *srcline;   /* file/line arguments of slices; NULL: none (borrowed) */
	struct fdenames *fdenames; /* names of a stripped binary's frames (fdenames.h);
				    * NULL: none (borrowed) */
	const struct binaries *binaries;   /* the recorded binaries found changed since
				    * (their own warning); NULL: none checked (borrowed) */
	struct conv_cut cut;       /* what the output keeps (--filter, --window); its
				    * names and windows borrowed */
};

/* Why conv_driver_parsed() stopped the conversion. */
enum conv_error {
	CONV_OK = 0,
	CONV_ERR_NOMEM = -1,
	CONV_ERR_STRICT = -2,   /* --strict and an unrecognised line */
	CONV_ERR_COLUMN = -3,   /* the text lacks a required column (a usage error) */
	CONV_ERR_TIME = -4,     /* a time past CONV_TS_MAX */
	CONV_ERR_LINE_ENDS = -5, /* CR-only line ends (a usage error) */
	CONV_ERR_IDS = -6,      /* too many thread ids outside 1..CONV_KOID_BAND-1 */
	CONV_ERR_INPUT = -7,    /* a recording's file is not what the recorder writes
				 * (record.json is read again for the markers' hits) */
	CONV_ERR_LINE_LONG = -8, /* a line longer than CONV_LINE_MAX */
};

struct conv_driver;

/* Returns a converter writing to W (borrowed; the caller closes it), or NULL. */
struct conv_driver *conv_driver_new(struct fxt_writer *w, const struct conv_opts *opts);

/* Names the input whose lines follow (for messages) and restarts line
 * numbers; DSO_DIR is the open directory its relative dso names are of
 * (input_dso_dir(): perf inject's ELF files), borrowed until
 * conv_driver_end_input(), or -1; MAP_USERS whose perf maps in /tmp may
 * name its frames (input_perfmap_users(), copied; its list borrowed for the
 * conversion: a recording's); MAPS its processes' mappings (input_maps():
 * its call chains' frames in no code are junk), borrowed until
 * conv_driver_end_input(), or NULL. */
struct conv_maps;
void conv_driver_begin_input(struct conv_driver *cv, const char *name, int dso_dir,
			     const struct perfmap_users *map_users, const struct conv_maps *maps);

/*
 * Converts one line, parsed by conv_parse_line() (lines must come in input
 * order; parsing may happen anywhere before). Returns CONV_OK or a negative
 * enum conv_error after which the conversion must stop; conv_driver_message()
 * then holds the one-line reason ("FILE:LINE: ..."), but for CONV_ERR_NOMEM:
 * an allocation failed, for this line or (sticky) before. Errors of the
 * writer are not checked here: they are sticky, for fxt_writer_close().
 */
int conv_driver_parsed(struct conv_driver *cv, const struct conv_line *l);

/* Ends the current input: closes every open frame of every thread at its
 * last time (an input is one snapshot; the next starts new segments), but
 * what a sampled thread carries into the next input (conv_driver_snapshot()'s
 * NEXT: enum timeline_next). Returns CONV_OK, or an enum conv_error as
 * conv_driver_parsed() does. */
int conv_driver_end_input(struct conv_driver *cv);

/* After the last input: closes what is still open ([off-cpu] slices at the
 * latest time of any input, or the last snapshot's end when later) and
 * writes the recordings' markers. Returns CONV_OK, CONV_ERR_NOMEM, or
 * CONV_ERR_INPUT (conv_driver_message() says why). */
int conv_driver_end(struct conv_driver *cv);

/* The interned function of (SYM, DSO) (a struct conv_loc's func), or NULL
 * when out of memory. Owned by CV. */
const struct conv_func *conv_driver_func(struct conv_driver *cv, struct conv_span sym,
					 struct conv_span dso);

/* The inputs that follow are snapshots of recording R (borrowed: it must
 * outlive CV): conv_driver_end writes its hits and snapshots as markers
 * (docs/design.md "Trigger markers"), and the summary places the trigger in
 * each thread's span. Returns CONV_OK or CONV_ERR_NOMEM. */
int conv_driver_recording(struct conv_driver *cv, const struct recording *r);

/* The input that begins is a snapshot that perf is known to have recorded
 * into until LIVE_NS (perf clock, recording_snapshot_live(); 0: unknown, as
 * for a file given as an argument): a thread still off the CPU at its end
 * stays so until the later of LIVE_NS and the input's last record, never
 * further (docs/design.md "Recording directories"). NEXT: what it passes
 * on to the input after it (timeline_next(): the gap rule and the
 * carry-over rule). RING: its samples come from a ring perf overwrote
 * (struct recording's ring): a thread's time on the CPU before its first
 * sample in it is not known to hold none (docs/design.md "Sampled call
 * chains"). STARTED: the recording (borrowed) when the input is its first
 * snapshot and its start_ns is known, else NULL: a thread whose state at
 * start_ns record.json gives (an attach) and whose first switch record is a
 * switch in was off the CPU from start_ns, drawn so (in that state, with its
 * wait channel). */
void conv_driver_snapshot(struct conv_driver *cv, uint64_t live_ns, enum timeline_next next,
			  bool ring, const struct recording *started);

/*
 * The input that begins is a perf.data whose events are EVLIST (the output
 * of `perf evlist -F` on it; NULL or "": not known, a text input) and whose
 * events' sample_type bits are SAMPLE_TYPES (NTYPES of them, in EVLIST's
 * order: perfdata_sample_types; 0: not known). Those of the stack-sampling
 * events say how the call stacks were unwound (for the summary's warnings
 * on broken stacks; another event's, such as the off-CPU callers' copy of
 * the stack, say nothing of them). The first
 * stack-sampling event's frequency (1e9/N ns) or period (N ns, for an event
 * counting time: cpu-clock, task-clock) becomes the recording's sampling
 * period, which a thread uses until its own samples give one, so that its
 * on-CPU time before its first sample, and a thread with no sample at all,
 * can be judged as [no samples] (docs/design.md "Sampled call chains").
 * Else the period stays what it was: the first any thread's samples gave.
 */
void conv_driver_evlist(struct conv_driver *cv, const char *evlist, const uint64_t *sample_types,
			size_t ntypes);

/* The reason of the last error. */
const char *conv_driver_message(const struct conv_driver *cv);

/* Counts so far. */
const struct conv_stats *conv_driver_stats(const struct conv_driver *cv);

/* How far the trace of process PID reaches so far (threads.h
 * conv_process_end()): true when its exit is in it; *LAST its latest time. */
bool conv_driver_process_end(const struct conv_driver *cv, int64_t pid, uint64_t *last);

/* Prints what the trace covers: the TOP threads of longest span (time span,
 * samples and sampling period, [off-cpu] and [no samples] time), a total
 * line, a warning when many sampled call stacks are broken (naming the
 * binaries and the fix), and one for each of sched:sched_switch and
 * signal:signal_deliver recorded at a lower rate than every event (how many
 * its samples skipped). On stderr through diag_info/diag_warn. */
void conv_driver_report(struct conv_driver *cv, unsigned top);

/* Frees CV (not its writer). */
void conv_driver_free(struct conv_driver *cv);

#endif
