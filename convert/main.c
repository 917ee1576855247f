/* SPDX-License-Identifier: MIT */
/*
 * snaptrace-convert: recording directories, perf.data files or perf script
 * text -> FXT for Perfetto.
 *   snaptrace-convert [OPTIONS] INPUT... [-o OUT]
 *   snaptrace-convert --dump[=records|slices|tree] FILE.fxt[.gz]
 *   snaptrace-convert --dump=recording DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "binaries.h"
#include "fdenames.h"
#include "cut.h"
#include "driver.h"
#include "diag.h"
#include "fxt_reader.h"
#include "fxt_writer.h"
#include "inpath.h"
#include "input.h"
#include "inputs.h"
#include "nsenter.h"
#include "options.h"
#include "origins.h"
#include "outpath.h"
#include "pathtrust.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "ptsplit.h"
#include "recording.h"
#include "signals.h"
#include "timeline.h"
#include "version.h"

/* What Perfetto's importer holds in memory per slice, bytes (docs/design.md
 * "Complete events", its "What Perfetto can open": measured in the
 * browser's importer on this PT data), and what a browser tab gets. */
#define PERFETTO_PAIR_BYTES 434		/* a slice written as begin and end records */
#define PERFETTO_COMPLETE_BYTES 269	/* one complete record or instant: 38% less */
#define PERFETTO_TAB_BYTES (2ull << 30)
#define SUMMARY_THREADS 5		/* threads listed in the summary */

static int dump(const char *path, enum dump_view view)
{
	struct fxt_trace t = { 0 };
	char err[512];
	int rc = EXIT_OK;

	rc = fxt_trace_read(path, &t, err, sizeof(err));
	if (rc) {
		diag_error("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (fxt_trace_slices(&t)) {
		diag_error("%s: out of memory", path);
		fxt_trace_free(&t);
		return EXIT_RUNTIME;
	}
	if (view == DUMP_ALL || view == DUMP_RECORDS)
		fxt_dump_records(&t, stdout);
	if (view != DUMP_RECORDS)
		fxt_dump_slices(&t, stdout, view != DUMP_SLICES);
	if (view != DUMP_RECORDS && !t.nslices)	/* an empty listing says why */
		diag_warn("%s " FXT_NO_SLICES "%s", path, t.ninstants || t.nasync_instants ?
			  ": only instants" : "");
	for (size_t i = 0; i < t.nproblems; i++)
		diag_error("%s: %s", path, t.problems[i]);
	if (t.nproblems)
		rc = EXIT_RUNTIME;
	fxt_trace_free(&t);
	return rc;
}

/* Says why a recording could not be read (ERR, recording.h's -errno E):
 * no record.json is a usage error. Returns the exit status. */
static int recording_failed(const char *err, int e)
{
	diag_error("%s%s", err, e == -ENOENT ? " (see --help)" : "");
	return e == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME;
}

/* Prints recording directory DIR's record.json a field per line; returns the exit status. */
static int dump_recording(const char *dir)
{
	struct recording r;
	char err[512];
	int rc = recording_read(dir, &r, err, sizeof(err));

	if (!rc)
		rc = recording_dump(&r, stdout, err, sizeof(err));
	recording_free(&r);
	return rc ? recording_failed(err, rc) : EXIT_OK;
}

/* Runs this program again on the same arguments with --decoder=perf (the
 * in-process decoder gave up midway: docs/design.md "Decoding"). Returns
 * only when that cannot be done. */
static int rerun_with_perf(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 2, sizeof(*v));
	int n = 0;

	if (v) {
		v[n++] = argv[0];
		v[n++] = "--decoder=perf";
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "--"))
				break;	/* operands only from here */
			if (!strcmp(argv[i], "--decoder") && i + 1 < argc)
				i++;
			else if (strncmp(argv[i], "--decoder=", 10))
				v[n++] = argv[i];
		}
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], "--")) {
				memcpy(v + n, argv + i, (size_t)(argc - i) * sizeof(*v));
				n += argc - i;
				break;
			}
		v[n] = NULL;
		execv("/proc/self/exe", v);
	}
	diag_error("cannot run %s again with --decoder=perf: %s", argv[0], strerror(errno));
	free(v);
	return EXIT_RUNTIME;
}

/*
 * Whether the file open as FD (named PATH) is a perf.data perf did not
 * finish (perfdata.h: a full disk, perf killed while writing it, a file cut
 * short since; for a SNAPSHOT of a recording also an empty file) or one whose
 * attributes perf would misread (damaged: perf's reader is not one for
 * hostile files), which is then named: as an error when it is the only
 * input (ALONE), else as a warning: it is left out and the other inputs are
 * converted.
 */
static bool left_out(const char *path, int fd, bool alone, bool snapshot)
{
	char why[160], handle[32];
	enum perfdata_state st = perfdata_check(inpath_proc(fd, handle, sizeof(handle)), why,
						sizeof(why));
	const char *what = st == PERFDATA_DAMAGED ? "a damaged" : "an unfinished";

	/* a recording's snapshot file left empty: perf never wrote into it */
	if (snapshot && st == PERFDATA_OTHER && !strcmp(why, "empty"))
		snprintf(why, sizeof(why), "empty: perf never wrote into it");
	else if (st != PERFDATA_UNFINISHED && st != PERFDATA_DAMAGED)
		return false;
	if (alone)
		diag_error("%s: %s perf.data: %s", path, what, why);
	else
		diag_warn("%s: left out: %s perf.data: %s", path, what, why);
	return true;
}

/* Whether snapshot K of recording R is not to be converted: record.json
 * marks it, for what the recorder found and no header check finds (perf
 * could not read a file it wrote on a full disk), or it is no regular file
 * of the directory (recording.h); it is then named. */
static bool marked(const struct recording *r, size_t k)
{
	const struct recording_snapshot *sn = &r->snapshots[k];

	if (sn->refused)
		diag_warn("%s: left out: %s; a recording's files are read only as regular files "
			  "of its directory", sn->path, sn->refused);
	else if (sn->problem)
		diag_warn("%s: left out: record.json marks it: %s", sn->path, sn->problem);
	return sn->refused || sn->problem;
}

/* Whether the output OUT is the file ST (named PATH), which it would
 * replace; then it is named (a usage error). */
static bool is_output(const char *out, const char *path, const struct stat *st)
{
	if (!outpath_names(out, st))
		return false;
	diag_error("%s: the output is the input %s: it would be overwritten; give another -o "
		   "(see --help)", out, path);
	return true;
}

/* The identity of the file IN reads (its fd FD, or -1 for a stream: what
 * its path names) into IN. Returns 0 or -1 (then what is read is not
 * known, and IN matches no other input). */
static int identify(struct conv_input *in, int fd, struct stat *st)
{
	int rc = fd >= 0 ? fstat(fd, st) : !strcmp(in->path, "-") ? fstat(STDIN_FILENO, st)
								  : stat(in->path, st);

	in->dev = rc ? 0 : st->st_dev;
	in->ino = rc ? 0 : st->st_ino;
	return rc ? -1 : 0;
}

/*
 * Whether IN reads the same file (st_dev, st_ino) as one of the N inputs
 * taken before it, EARLIER: then both spellings are named (a usage error:
 * the file's every count would be doubled).
 */
static bool given_twice(const struct conv_input *in, const struct conv_input *earlier, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((earlier[i].dev || earlier[i].ino) && earlier[i].dev == in->dev &&
		    earlier[i].ino == in->ino) {
			diag_error("%s and %s are the same file: each input is read once; give it "
				   "once (see --help)", earlier[i].path, in->path);
			return true;
		}
	return false;
}

/* Snapshot K of recording R, named PATH: taken into IN[N] (its *STATUS
 * EXIT_OK), or left out (false, *STATUS EXIT_OK: named; or an exit status
 * after an error: a usage error when it is one of the N inputs IN taken
 * before it, or the output OUT). */
static bool take_input(const char *out, const char *path, const struct recording *r, size_t k,
		       bool alone, struct conv_input *in, size_t n, int *status)
{
	struct conv_input *it = &in[n];
	struct stat st;
	int fd;

	*status = EXIT_OK;
	*it = (struct conv_input){ path, r, k, false, 0, 0 };
	if (r->files && (!strcmp(path, "-") || (!stat(path, &st) && !S_ISREG(st.st_mode))))
		it->stream = true;	/* read once, never checked ahead */
	if (it->stream && strcmp(path, "-")) {	/* a pipe, never a FIFO or device */
		fd = conv_input_open(it);
		if (fd < 0) {
			*status = fd == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
			return false;
		}
		conv_input_close(fd);
	}
	if (it->stream) {
		identify(it, -1, &st);
		if (given_twice(it, in, n))
			*status = EXIT_USAGE;
		return !*status;
	}
	if (r->snapshots[k].refused)
		return !marked(r, k);
	fd = conv_input_open(it);
	if (fd < 0) {
		*status = fd == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		return false;
	}
	if (!identify(it, fd, &st) && (given_twice(it, in, n) || is_output(out, path, &st)))
		*status = EXIT_USAGE;
	else if (left_out(path, fd, alone, !r->files) || marked(r, k))
		k = SIZE_MAX;
	conv_input_close(fd);
	return !*status && k != SIZE_MAX;
}

/*
 * The recording that starts at ARGV[*I] into *R (free it with
 * recording_free() whatever the result), *I past its arguments: a recording
 * directory's record.json (recording_read()), or the arguments up to the
 * next directory as one recording of files (timeline_files()). A recording
 * whose record.json is the output OUT is refused, as is one with nothing to
 * convert. Returns an exit status.
 */
static int read_recording(char **argv, int *i, int argc, const char *out, struct recording *r)
{
	char err[PATH_MAX + 256];
	const char *dir = argv[*i];
	int rc, first = *i;

	if (!recording_is_dir(dir)) {
		while (*i < argc && !recording_is_dir(argv[*i]))
			(*i)++;
		if (!timeline_files(r, (const char *const *)argv + first, (size_t)(*i - first)))
			return EXIT_OK;
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	(*i)++;
	rc = recording_read(dir, r, err, sizeof(err));
	if (rc)
		return recording_failed(err, rc);
	if (outpath_names(out, &r->json_st)) {
		diag_error("%s: the output is the input %s/record.json: it would be overwritten; "
			   "give another -o (see --help)", out, dir);
		return EXIT_USAGE;
	}
	if (!r->nsnapshots && r->error) {
		diag_error("%s: the recording failed, nothing to convert (record.json says): %s",
			   dir, r->error);
		return EXIT_RUNTIME;
	}
	if (!r->nsnapshots) {
		diag_error("%s: the recording holds no perf.data file (record.json lists none, "
			   "and none is in the directory)", dir);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/*
 * The files of ARGV[FIRST..ARGC) into *INPUTS (*N of them, owned): the
 * snapshots of each recording (read_recording(): a recording directory, or
 * the arguments given in a row that are none), which go into RECS (room
 * for one per argument; the caller frees each read, *NRECS of them); an
 * unfinished perf.data is left out (left_out(); its snapshot then names no
 * file, like one perf never wrote), as is a snapshot record.json marks or
 * that is no regular file of its directory (marked()). An input that is
 * the output OUT, or a file taken already (given_twice()), is refused. Returns an exit status: a runtime failure when
 * nothing is left to convert.
 */
static int expand_inputs(char **argv, int first, int argc, const char *out,
			 struct conv_input **inputs, size_t *n, struct recording *recs, size_t *nrecs)
{
	size_t cap = 0, unfinished = 0, refused = 0;
	bool alone = argc - first == 1 && !recording_is_dir(argv[first]);

	*inputs = NULL;
	*n = *nrecs = 0;
	for (int i = first; i < argc;) {
		struct recording *r = &recs[(*nrecs)++];
		int rc = read_recording(argv, &i, argc, out, r);

		if (rc)
			return rc;
		for (size_t k = 0; k < r->nsnapshots; k++) {
			struct conv_input *in = array_grow(*inputs, &cap, *n, sizeof(*in));
			const char *path = r->snapshots[k].path;

			if (!in) {
				diag_error("out of memory");
				return EXIT_RUNTIME;
			}
			*inputs = in;
			if (!path && r->snapshots[k].problem)   /* its file lost */
				diag_warn("%s: snapshot %zu left out: record.json marks it: %s",
					  r->dir, k + 1, r->snapshots[k].problem);
			if (!path)
				continue;   /* a snapshot perf never wrote */
			if (take_input(out, path, r, k, alone, in, *n, &rc)) {
				(*n)++;
				continue;
			}
			if (rc)
				return rc;
			unfinished++;
			refused += r->snapshots[k].refused != NULL;
			free(r->snapshots[k].path);
			r->snapshots[k].path = NULL;
		}
	}
	if (!*n && !alone)
		diag_error("%s%snothing left to convert: %s", argc - first == 1 ? argv[first] : "",
			   argc - first == 1 ? ": " : "", refused ? "every perf.data given is left "
			   "out (named above)" : unfinished ? "every perf.data given is "
			   "unfinished (named above)" : "perf wrote none of the snapshot files "
			   "record.json lists");
	return *n ? EXIT_OK : EXIT_RUNTIME;
}

/*
 * Copies the binaries each of the NRECS recordings RECS keeps
 * (binaries_kept_copy()) into KEPT (one each); one that perf must not read
 * is said, as a warning naming what was refused (the binaries there now are
 * read then).
 */
static void copy_kept(const struct recording *recs, size_t nrecs, struct binaries_kept *kept)
{
	char why[PATH_MAX + 128];

	for (size_t i = 0; i < nrecs; i++) {
		struct stat st;
		int err = recs[i].files ? -ENOENT :
			  binaries_kept_copy(recs[i].dirfd, &kept[i], why, sizeof(why));

		/* another user's recording: root's perf reads it as that user (runas.h) */
		if (!err && geteuid() == 0 && !fstat(recs[i].dirfd, &st) &&
		    !pathtrust_uid_ours(st.st_uid) && (err = binaries_kept_give(&kept[i], st.st_uid,
									      st.st_gid))) {
			binaries_kept_remove(&kept[i]);
			snprintf(why, sizeof(why), "cannot give the copy to uid %d: %s",
				 (int)st.st_uid, strerror(-err));
		}
		if (err && err != -ENOENT)
			diag_warn("%s/%s: the kept binaries are not read: %s", recs[i].dir,
				  PERFDATA_BINARIES_DIR, why);
	}
}

/* perf's --symfs DIR among the perf script arguments (the last one), or NULL. */
static const char *symfs_arg(const struct conv_options *o)
{
	const char *dir = NULL;

	for (size_t i = 0; i < o->nperf_args; i++)
		if (!strncmp(o->perf_args[i], "--symfs=", 8))
			dir = o->perf_args[i] + 8;
		else if (!strcmp(o->perf_args[i], "--symfs") && i + 1 < o->nperf_args)
			dir = o->perf_args[++i];
	return dir;
}

/* The one summary line of source lines: how many functions have none, and why. */
static void srcline_summary(const struct srcline *sl)
{
	struct srcline_stats st;

	if (!sl)
		return;
	st = srcline_stats(sl);
	if (st.found == st.functions)
		return;
	diag_info("source lines: %llu of %llu function%s ha%s none (%llu in binaries without "
		  "debug info, %llu in binaries not found or changed, %llu in JIT or anonymous "
		  "code, %llu not in their binary's symbols or without a line)",
		  (unsigned long long)(st.functions - st.found), (unsigned long long)st.functions,
		  diag_s(st.functions), st.functions - st.found == 1 ? "s" : "ve",
		  (unsigned long long)st.no_debuginfo, (unsigned long long)st.no_binary,
		  (unsigned long long)st.no_file,
		  (unsigned long long)(st.functions - st.found - st.no_debuginfo - st.no_binary -
				       st.no_file));
}

/* What --filter or --window kept and left out. */
static void cut_summary(const struct conv_options *o, const struct conv_stats *s)
{
	char cut[160] = "";

	if (!s->cut_intervals && o->filter) {
		diag_warn("--filter %s: no thread called %.*s: the trace is empty", o->filter,
			  (int)o->cut.start_len, o->cut.start);
		return;
	}
	if (!s->cut_intervals) {
		diag_warn("--window %s: no thread ran in the %zu windows: the trace is empty",
			  o->window, o->cut.nwindows);
		return;
	}
	if (o->filter && s->cut_unstopped)
		diag_warn("--filter %s: no call of %.*s ended the interval %.*s began in %llu "
			  "thread%s: kept to the end of the trace", o->filter, (int)o->cut.stop_len,
			  o->cut.stop, (int)o->cut.start_len, o->cut.start,
			  (unsigned long long)s->cut_unstopped, diag_s(s->cut_unstopped));
	/* the measured calls cut short: snaptrace stats says the same of the trace */
	if (s->measured_cut)
		snprintf(cut, sizeof(cut), "; %llu measured call%s cut short at an edge (its "
			 "slice what the trace holds, its duration_ns the whole call)",
			 (unsigned long long)s->measured_cut, diag_s(s->measured_cut));
	diag_info("%s %s: %llu interval%s kept, %llu slice%s left out (and %llu instant%s, %llu "
		  "event sample%s)%s", o->filter ? "--filter" : "--window",
		  o->filter ? o->filter : o->window, (unsigned long long)s->cut_intervals,
		  diag_s(s->cut_intervals), (unsigned long long)s->cut_dropped,
		  diag_s(s->cut_dropped), (unsigned long long)s->cut_dropped_instants,
		  diag_s(s->cut_dropped_instants), (unsigned long long)s->cut_dropped_events,
		  diag_s(s->cut_dropped_events), cut);
}

/* Collecting --window's windows: one per hit or snapshot mark, merged with
 * the one before when they overlap (hits come in time order: memory grows
 * with the windows kept, not the hits; conv_cut_windows() sorts the rest). */
struct windows {
	const struct conv_options *o;
	struct conv_window *w;
	size_t n, cap;
};

/* Adds the window around AT to WS. Returns 0 or -ENOMEM. */
static int add_window_at(struct windows *ws, uint64_t at)
{
	struct conv_window win = { at > ws->o->before ? at - ws->o->before : 0,
				   conv_add_sat(at, ws->o->after) };
	struct conv_window *last = ws->n ? &ws->w[ws->n - 1] : NULL, *w;

	if (last && win.lo <= last->hi && win.hi >= last->lo) {
		last->lo = win.lo < last->lo ? win.lo : last->lo;
		last->hi = win.hi > last->hi ? win.hi : last->hi;
		return 0;
	}
	w = array_grow(ws->w, &ws->cap, ws->n, sizeof(*w));
	if (!w)
		return -ENOMEM;
	ws->w = w;
	ws->w[ws->n++] = win;
	return 0;
}

/* A hit's window (a coalesced hit took no snapshot: no window of its own). */
static int add_window(void *arg, const struct recording_hit *h)
{
	return h->coalesced ? 0 : add_window_at(arg, h->time_ns);
}

/* --window's windows around the hits and the snapshot marks of the NRECS
 * recordings RECS into O->cut (*W, owned by the caller). Returns an exit
 * status: a usage error when there is neither. */
static int window_cut(struct conv_options *o, const struct recording *recs, size_t nrecs,
		      struct conv_window **w)
{
	struct windows ws = { .o = o };
	size_t n = 0, dirs = 0;
	char err[512];

	/* the anchors: the hits, and the "[snapshot] REASON" marks of the
	 * snapshots no hit took (Ctrl-C, --duration, the program's exit) */
	for (size_t i = 0; i < nrecs; i++) {
		dirs += !recs[i].files;
		n += recs[i].nhits;
		for (size_t k = 0; k < recs[i].nsnapshots; k++)
			n += recording_snapshot_mark(&recs[i], k) != 0;
	}
	if (!n) {
		diag_error("--window %s needs a recording directory with trigger hits or "
			   "snapshots (as snaptrace-record writes it: its record.json lists them); "
			   "%s", o->window, dirs ? "the recordings given have none" :
			   "no recording directory was given");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nrecs; i++) {
		int rc = recording_hits(&recs[i], add_window, &ws, err, sizeof(err));

		for (size_t k = 0; !rc && k < recs[i].nsnapshots; k++) {
			uint64_t at = recording_snapshot_mark(&recs[i], k);

			rc = at ? add_window_at(&ws, at) : 0;
		}
		if (rc) {
			if (rc == -ENOMEM)
				diag_error("out of memory");
			else
				diag_error("%s", err);
			free(ws.w);
			return EXIT_RUNTIME;
		}
	}
	*w = ws.w;
	o->cut.on = true;
	o->cut.windows = *w;
	o->cut.nwindows = conv_cut_windows(*w, ws.n);
	return EXIT_OK;
}

/* What opening the trace takes in Perfetto (an estimate from its counts of
 * records, PERFETTO_*_BYTES), and what to do when a browser tab cannot. */
static void perfetto_memory(const struct conv_stats *s, uint64_t fxt_bytes)
{
	uint64_t pairs = s->slices - s->complete_slices;
	double need = (double)pairs * PERFETTO_PAIR_BYTES +
		(double)(s->complete_slices + s->instants) * PERFETTO_COMPLETE_BYTES;

	diag_info("Perfetto needs ~%.0f MiB to open it (%llu complete record%s, %llu begin/end "
		  "pair%s, %llu instant%s; a browser tab gets ~%llu MiB)", need / (1 << 20),
		  (unsigned long long)s->complete_slices, diag_s(s->complete_slices),
		  (unsigned long long)pairs, diag_s(pairs), (unsigned long long)s->instants,
		  diag_s(s->instants), PERFETTO_TAB_BYTES >> 20);
	if (need > (double)PERFETTO_TAB_BYTES)
		diag_warn("past what a browser tab opens (~%.1f GiB of Perfetto's memory for %.0f "
			  "MiB of FXT): keep less with --window or --filter, or open it with "
			  "trace_processor's native mode (trace_processor --httpd FILE, then "
			  "ui.perfetto.dev)", need / (1 << 30), (double)fxt_bytes / (1 << 20));
}

static void summary(const struct conv_options *o, struct conv_driver *cv, const struct srcline *sl,
		    uint64_t bytes)
{
	const struct conv_stats *s = conv_driver_stats(cv);
	struct stat st;

	diag_info("%llu thread%s, %llu slice%s, %llu sample%s, %llu event sample%s, %llu decode "
		  "error%s, %llu line%s skipped, %.1f MiB of FXT",
		  (unsigned long long)s->threads, diag_s(s->threads),
		  (unsigned long long)s->slices, diag_s(s->slices),
		  (unsigned long long)s->samples, diag_s(s->samples),
		  (unsigned long long)s->event_samples, diag_s(s->event_samples),
		  (unsigned long long)s->decode_errors, diag_s(s->decode_errors),
		  (unsigned long long)s->skipped, diag_s(s->skipped), (double)bytes / (1 << 20));
	conv_driver_report(cv, SUMMARY_THREADS);
	srcline_summary(sl);
	if (s->time_backwards)
		diag_warn("%llu line%s went back in time within %s thread and %s clamped",
			  (unsigned long long)s->time_backwards, diag_s(s->time_backwards),
			  s->time_backwards == 1 ? "its" : "their",
			  s->time_backwards == 1 ? "was" : "were");
	perfetto_memory(s, bytes);
	if (s->deep_slices)
		diag_warn("%llu slice%s would have nested %d or more levels deep and %s left out: "
			  "Perfetto cannot show %s", (unsigned long long)s->deep_slices,
			  diag_s(s->deep_slices), CONV_MAX_DEPTH, s->deep_slices == 1 ? "was" : "were",
			  s->deep_slices == 1 ? "it" : "them");
	if (s->deep_instants)
		diag_warn("%llu instant%s %s left out: %d or more of one time on one track "
			  "(decode errors, trigger markers), which Perfetto nests in one another "
			  "and cannot show that deep", (unsigned long long)s->deep_instants,
			  diag_s(s->deep_instants), s->deep_instants == 1 ? "was" : "were",
			  CONV_MAX_DEPTH);
	if (o->cut.on)
		cut_summary(o, s);
	if (s->unordered_inferred)
		diag_warn("%llu frames inferred below the stack's bottom after a decode error "
			  "found no time of their own (more than %d in one segment): their nesting "
			  "may show wrong", (unsigned long long)s->unordered_inferred,
			  CONV_INFERRED_ROOM_NS);
	/* a trace that is a file: not stdout, not -o /dev/null or a FIFO */
	if (strcmp(o->output, "-") && !lstat(o->output, &st) && S_ISREG(st.st_mode))
		diag_info("open %s in https://ui.perfetto.dev", o->output);
}

/* The binaries every input of INS names by build id, and those its
 * recordings list themselves (record.json "buildids"), checked into BINS
 * (binaries.h). Returns an exit status: out of memory fails. */
static int check_binaries(const struct inputs *ins, struct binaries *bins)
{
	for (size_t i = 0; i < ins->n; i++) {
		char handle[32];
		int fd = ins->in[i].stream ? -1 : conv_input_open(&ins->in[i]), e = 0;

		if (fd >= 0) {
			e = binaries_check(bins, inpath_proc(fd, handle, sizeof(handle)),
					   binaries_kept_handle(inputs_kept(ins, &ins->in[i])));
			conv_input_close(fd);
		}
		if (e == -ENOMEM) {
			diag_error("out of memory");
			return EXIT_RUNTIME;
		}
	}
	for (size_t r = 0; r < ins->nrecs; r++)
		for (size_t j = 0; j < ins->recs[r].nbuildids; j++)
			if (binaries_check_recorded(bins, ins->recs[r].buildids[j].file,
						    ins->recs[r].buildids[j].hex) == -ENOMEM) {
				diag_error("out of memory");
				return EXIT_RUNTIME;
			}
	return EXIT_OK;
}

/*
 * The source-line lookup (srcline.h) of the binaries under SYMFS, with the
 * build ids every input of INS names and its recordings list (record.json
 * "buildids"); the first input whose build ids
 * cannot be read is said into WHY (SIZE bytes; "" when none), for the end:
 * a file perf cannot read either fails the conversion with perf's words.
 * Returns it, or NULL when out of memory.
 */
static struct srcline *read_buildids(const struct inputs *ins, const char *symfs, char *why,
				     size_t size)
{
	struct srcline *sl = srcline_new(symfs);

	why[0] = 0;
	for (size_t i = 0; sl && i < ins->n; i++) {
		char e_why[256], handle[32];
		int fd = ins->in[i].stream ? -1 : conv_input_open(&ins->in[i]);
		int e = fd < 0 ? 0 : srcline_read_buildids(sl, inpath_proc(fd, handle, sizeof(handle)),
							   e_why, sizeof(e_why));

		if (fd >= 0)
			conv_input_close(fd);
		if (e == -ENOMEM) {
			srcline_free(sl);
			return NULL;
		}
		srcline_add_cache(sl, binaries_kept_handle(inputs_kept(ins, &ins->in[i])));
		if (e && !why[0])
			snprintf(why, size, "%s: cannot read its build ids: %s", ins->in[i].path, e_why);
	}
	for (size_t r = 0; sl && r < ins->nrecs; r++)
		for (size_t j = 0; j < ins->recs[r].nbuildids; j++)
			if (srcline_add_buildid(sl, ins->recs[r].buildids[j].file,
						ins->recs[r].buildids[j].hex) == -ENOMEM) {
				srcline_free(sl);
				return NULL;
			}
	return sl;
}

/* Opens the output of O (fxt_writer_open()); NULL after saying why, with
 * the exit status in *RC (a FIFO no one reads: a usage error). */
static struct fxt_writer *open_output(const struct conv_options *o, int *rc)
{
	char why[PATH_MAX + 256], shown[PATH_MAX + 32];
	int err;
	struct fxt_writer *w = fxt_writer_open(o->output, FXT_OUTPUT_AUTO, "snaptrace", &err);

	if (w)
		return w;
	*rc = err == -ENXIO || err == -ENOTTY ? EXIT_USAGE : EXIT_RUNTIME;
	outpath_shown(o->output, shown, sizeof(shown));
	/* what changed since the options were checked, in outpath's words */
	if (err == -ENXIO)
		diag_error("%s: %s", shown, OUTPATH_NO_READER);
	else if (err == -ENOTTY)
		diag_error("%s: is %s; give -o FILE", shown, OUTPATH_TERMINAL);
	else if (outpath_check(o->output, why, sizeof(why)))
		diag_error("%s", why);
	else
		diag_error("%s: cannot write: %s", shown, strerror(-err));
	return NULL;
}

/*
 * Ends the trace W of the conversion CV that ended with RC (FIRST: the
 * first input, for messages): text that was no perf script output fails
 * it; a failed one is aborted (no file left), else closed, with
 * BUILDID_WHY ("": none) said and the summary. Returns the exit status.
 */
static int end_trace(const struct conv_options *o, struct conv_driver *cv, struct fxt_writer *w,
		     const struct srcline *sl, const char *buildid_why, const char *first, int rc)
{
	const struct conv_stats *stats = conv_driver_stats(cv);
	uint64_t bytes = fxt_writer_bytes(w);
	int err;

	if (rc == EXIT_OK && stats->skipped && !stats->branches && !stats->samples &&
	    !stats->decode_errors) {
		char cmd[512];

		perfcmd_text(PERFCMD_BRANCHES, cmd, sizeof(cmd));
		diag_error("%s: no line was perf script output (%llu skipped); expected the "
			   "output of: %s", first, (unsigned long long)stats->skipped, cmd);
		rc = EXIT_RUNTIME;
	}
	if (rc) {
		fxt_writer_abort(w);
		return rc;
	}
	if ((err = fxt_writer_close(w))) {
		char shown[PATH_MAX + 32];

		diag_error("%s: cannot write: %s", outpath_shown(o->output, shown, sizeof(shown)),
			   strerror(-err));
		return EXIT_RUNTIME;
	}
	if (buildid_why[0])
		diag_warn("%s; no source lines, as no binary can be checked", buildid_why);
	summary(o, cv, sl, bytes);
	return EXIT_OK;
}

/* Converts the inputs INS (read) as O says into its output. Returns an
 * exit status. */
static int convert(struct conv_options *o, struct inputs *ins, const char *first)
{
	struct input_perf perf = { o->perf, o->perf_args, o->nperf_args, o->no_dlfilter, o->jobs,
				   NULL, o->perf_decoder || o->no_dlfilter, symfs_arg(o), -1, NULL };
	struct runas_set who = { NULL, 0 };	/* inputs_owners()'s */
	struct binaries bins = { .symfs = symfs_arg(o), .who = &who };
	char buildid_why[512] = "";
	struct srcline *sl = NULL;
	struct fdenames *fn = NULL;
	struct conv_driver *cv = NULL;
	struct fxt_writer *w;
	struct conv_opts copts;
	int rc;

	outpath_remove_on_signals();
	conv_origins_check(ins->recs, ins->nrecs);
	copy_kept(ins->recs, ins->nrecs, ins->kept);
	w = open_output(o, &rc);
	if (!w)
		return rc;
	rc = inputs_owners(ins);
	who = (struct runas_set){ ins->owners, ins->nowners };
	if (rc == EXIT_OK)
		rc = check_binaries(ins, &bins);
	if (rc == EXIT_OK)	/* the binaries' symbols name overloads, with lines or not */
		sl = read_buildids(ins, symfs_arg(o), buildid_why, sizeof(buildid_why));
	if (sl)
		srcline_set_users(sl, &who);
	if (sl)
		fn = fdenames_new(sl);
	if (sl && o->no_srcline) {
		srcline_lines_off(sl);
		buildid_why[0] = 0;	/* no lines were asked for */
	}
	copts = (struct conv_opts){ .strict = o->strict, .srcline = sl, .fdenames = fn,
				    .cut = o->cut, .binaries = &bins };
	if (rc == EXIT_OK)
		cv = conv_driver_new(w, &copts);
	if (rc == EXIT_OK && (!cv || !sl || !fn)) {
		diag_error("out of memory");
		rc = EXIT_RUNTIME;
	}
	if (rc) {
		fxt_writer_abort(w);
	} else {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		rc = inputs_convert(cv, ins, &perf, ncpu > 0 ? (unsigned)ncpu : 1);
		rc = end_trace(o, cv, w, sl, buildid_why, first, rc);
	}
	conv_driver_free(cv);
	fdenames_free(fn);
	srcline_free(sl);
	binaries_free(&bins);
	return rc;
}

int main(int argc, char **argv)
{
	struct conv_options o;
	struct inputs ins = { 0 };
	struct conv_window *windows = NULL;
	int rc, err, first;

	sig_note_start();	/* first: signals.h */
	outpath_keep_std_fds();
	diag_init(argv[0]);
	err = nsenter_drop();	/* perf never enters a mount namespace a perf.data names */
	if (err) {
		diag_error("cannot drop the capabilities of setns (CAP_SYS_ADMIN, CAP_SYS_CHROOT): %s",
			   strerror(-err));
		return EXIT_RUNTIME;
	}
	rc = conv_options_parse(argc, argv, &o, &first);
	if (rc >= 0 || o.check) {	/* --check-options: they would convert */
		rc = rc >= 0 ? rc : EXIT_OK;
		goto out;
	}
	diag_set_quiet(o.quiet);
	if (!o.jobs) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		o.jobs = ncpu < 1 ? 1 : ncpu > PTSPLIT_MAX ? PTSPLIT_MAX : (unsigned)ncpu;
	}
	if (o.dump) {
		rc = o.dump == DUMP_RECORDING ? dump_recording(argv[first]) : dump(argv[first], o.dump);
		goto out;
	}
	if (inputs_alloc(&ins, (size_t)(argc - first))) {
		diag_error("out of memory");
		rc = EXIT_RUNTIME;
		goto out;
	}
	rc = expand_inputs(argv, first, argc, o.output, &ins.in, &ins.n, ins.recs, &ins.nrecs);
	if (!rc && o.window)
		rc = window_cut(&o, ins.recs, ins.nrecs, &windows);
	if (!rc)
		rc = convert(&o, &ins, argv[first]);
out:
	inputs_free(&ins);
	free(windows);
	conv_options_free(&o);
	if (rc == INPUTS_FALLBACK)
		rc = rerun_with_perf(argc, argv);
	return outpath_stdout_done(rc);   /* --dump, --help */
}
