/* SPDX-License-Identifier: MIT */
/* inputs: a conversion's inputs converted in order (inputs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "inpath.h"
#include "inputs.h"
#include "pipeline.h"
#include "timeline.h"

/* Reports why the converter stopped (an enum conv_error); returns the exit status. */
static int conv_driver_failed(const struct conv_driver *cv, int conv_err)
{
	diag_error("%s", conv_err == CONV_ERR_NOMEM ? "out of memory" : conv_driver_message(cv));
	return conv_err == CONV_ERR_COLUMN || conv_err == CONV_ERR_LINE_ENDS ? EXIT_USAGE
									     : EXIT_RUNTIME;
}

int inputs_alloc(struct inputs *ins, size_t nargs)
{
	ins->recs = calloc(nargs, sizeof(*ins->recs));
	ins->sbs = calloc(nargs, sizeof(*ins->sbs));
	ins->kept = calloc(nargs, sizeof(*ins->kept));
	if (!ins->recs || !ins->sbs || !ins->kept)
		return -ENOMEM;
	for (size_t i = 0; i < nargs; i++)
		ins->kept[i] = BINARIES_KEPT_NONE;
	return 0;
}

void inputs_free(struct inputs *ins)
{
	for (size_t i = 0; i < ins->nrecs; i++) {
		recording_free(&ins->recs[i]);
		sideband_free(&ins->sbs[i]);
		binaries_kept_remove(&ins->kept[i]);
	}
	free(ins->kept);
	free(ins->recs);
	free(ins->sbs);
	free(ins->in);
	free(ins->owners);
}

int inputs_owners(struct inputs *ins)
{
	size_t cap = 0;

	for (size_t i = 0; i < ins->n; i++) {
		const struct conv_input *in = &ins->in[i];
		char handle[32], why[PATH_MAX + 128];
		int fd = in->stream ? -1 : conv_input_open(in), err;
		struct runas as, *v;
		size_t k = 0;

		if (fd < 0)
			continue;	/* said; not converted either */
		err = input_owner_as(in->path, inpath_proc(fd, handle, sizeof(handle)),
				     in->rec->files ? -1 : in->rec->dirfd, &as, why, sizeof(why));
		conv_input_close(fd);
		if (err) {
			diag_error("%s", why);
			return EXIT_RUNTIME;
		}
		while (as.on && k < ins->nowners && ins->owners[k].uid != as.uid)
			k++;
		if (!as.on || k < ins->nowners)
			continue;
		v = array_grow(ins->owners, &cap, ins->nowners, sizeof(*v));
		if (!v) {
			diag_error("out of memory");
			return EXIT_RUNTIME;
		}
		ins->owners = v;
		ins->owners[ins->nowners++] = as;
	}
	return EXIT_OK;
}

const struct binaries_kept *inputs_kept(const struct inputs *ins, const struct conv_input *in)
{
	return &ins->kept[in->rec - ins->recs];
}

int conv_input_open(const struct conv_input *in)
{
	char why[256];
	int fd;

	if (in->stream && !strcmp(in->path, "-"))
		return STDIN_FILENO;
	fd = recording_open(in->rec, in->rec->snapshots[in->snapshot].file,
			    in->stream ? INPATH_STREAM : 0, why, sizeof(why));
	if (fd < 0)
		diag_error("%s: %s", in->path, why);
	return fd;
}

void conv_input_close(int fd)
{
	if (fd > STDIN_FILENO)
		close(fd);
}

/* Feeds one input to the converter: PATH, read from FD (conv_input_open(), or a
 * copy of it: input_open()), its text parsed by WORKERS threads. Returns an
 * exit status. */
static int convert_input(struct conv_driver *cv, const char *path, int fd,
			 const struct input_perf *perf, unsigned workers)
{
	struct input *in;
	char err[1536], read_err[1536] = "";
	int conv_err = 0, rc = EXIT_OK;
	uint64_t lines;
	const uint64_t *types;
	size_t ntypes;

	if ((conv_err = input_open(path, fd, perf, &in, err, sizeof(err)))) {
		diag_error("%s", err);
		return conv_err == -EMEDIUMTYPE ? EXIT_USAGE : EXIT_RUNTIME;
	}
	conv_driver_begin_input(cv, path, input_dso_dir(in), input_perfmap_users(in),
				input_maps(in));
	types = input_sample_types(in, &ntypes);
	conv_driver_evlist(cv, input_evlist(in), types, ntypes);
	lines = conv_driver_stats(cv)->lines;
	switch (pipeline_convert(in, path, cv, workers, &conv_err, err, sizeof(err))) {
	case PIPELINE_OK:
		break;
	case PIPELINE_CONVERT:
		rc = conv_driver_failed(cv, conv_err);
		break;
	case PIPELINE_FALLBACK:
		/* nothing of the trace can be kept: all again, through perf */
		diag_info("%s: %s: decoding through perf script", path, err);
		rc = INPUTS_FALLBACK;
		break;
	case PIPELINE_READ_ERROR:	/* said below: perf may have died first */
		snprintf(read_err, sizeof(read_err), "%s", err);
		rc = EXIT_RUNTIME;
		break;
	case PIPELINE_NOMEM:
		diag_error("%s: %s", path, err);
		rc = EXIT_RUNTIME;
		break;
	}
	/* before input_close(): the frames it closes look up lines in the
	 * input's dso directory (input_dso_dir()) */
	if (rc == EXIT_OK && (conv_err = conv_driver_end_input(cv)))
		rc = conv_driver_failed(cv, conv_err);
	switch (input_close(in, err, sizeof(err))) {
	case 0:
		if (read_err[0])
			diag_error("%s: %s", path, read_err);
		break;
	case 1:
		if (read_err[0])
			diag_error("%s: %s", path, read_err);
		diag_warn("%s", err);
		break;
	default:	/* perf script failed: the cause of what its output lacks */
		if (read_err[0])
			diag_error("%s (its output ends there: %s)", err, read_err);
		else if (rc == EXIT_OK)
			diag_error("%s", err);
		rc = EXIT_RUNTIME;
		break;
	}
	if (rc == EXIT_OK && conv_driver_stats(cv)->lines == lines)
		diag_warn("%s: empty input: it adds nothing to the trace", path);
	return rc;
}

/*
 * Feeds input IN to the converter; a snapshot of a recording directory
 * after its first (SB: its recording's side-band so far; NULL for a file
 * given as an argument) is read with the side-band of the snapshots before it (sideband.h: perf lists only executable
 * mappings at a switch, and nothing after the target exited), and perf
 * reads the binaries the recording keeps (--keep-binaries). Returns an exit
 * status.
 */
static int convert_snapshot(struct conv_driver *cv, const struct conv_input *in,
			    struct sideband *sb, const struct binaries_kept *kept,
			    const struct input_perf *perf, unsigned workers)
{
	struct input_perf p = *perf;
	char handle[32];
	int fd = conv_input_open(in), copy = -1, rc;

	if (fd < 0)
		return EXIT_RUNTIME;
	inpath_proc(fd, handle, sizeof(handle));
	if (sb && !sideband_scan(sb, handle, in->rec->pids, in->rec->npids) &&
	    sideband_wanted(sb) && (copy = sideband_carry(sb, handle)) >= 0 && !sb->complete)
		diag_info("%s: it names none of the traced processes (perf wrote it after they "
			  "exited): read with the names and maps of the snapshots before it",
			  in->path);
	p.buildid_dir = binaries_kept_handle(kept);
	p.rec_dirfd = in->rec->files ? -1 : in->rec->dirfd;
	p.rec = in->rec->files ? NULL : in->rec;
	rc = convert_input(cv, in->path, copy >= 0 ? copy : fd, &p, workers);
	if (copy >= 0)
		close(copy);
	conv_input_close(fd);
	if (sb && sideband_next(sb))
		diag_warn("%s: more than %u MiB of side-band: the snapshots after it are read "
			  "without the rest", in->path, SIDEBAND_MAX >> 20);
	return rc;
}

/*
 * The last snapshot IN of a recording of several, converted: when it holds
 * no samples (nor branches: STATS_BEFORE, the counts before it), says so,
 * and where the program's end is. BEFORE and NOW: whether the first
 * process's exit was in the trace before IN and after it, LAST_BEFORE and
 * LAST_NOW the trace's latest time of it then (threads.h
 * conv_process_end()). perf takes the last one when the program exited,
 * after the one it was writing then: one that it read after the exit holds
 * the end; one that holds the exit record alone ends the samples short of
 * it by the time between (trial 13: said "short of the program's end", and
 * pointed at a line that gave no amount, though the exit was there).
 */
static void last_snapshot_said(const struct conv_driver *cv, const struct conv_input *in,
			       const struct conv_stats *stats_before, bool before, bool now,
			       uint64_t last_before, uint64_t last_now)
{
	const struct conv_stats *c = conv_driver_stats(cv);
	const struct recording *r = in->rec;
	char what[256];

	if (r->files || r->nsnapshots < 2 || in->snapshot + 1 != r->nsnapshots ||
	    c->samples != stats_before->samples || c->branches != stats_before->branches)
		return;
	if (before)
		snprintf(what, sizeof(what), "perf read the snapshot before it after the program's "
			 "exit: that one holds the program's end");
	else if (now && last_before && last_now > last_before)
		snprintf(what, sizeof(what), "only the program's exit, %.3f ms after the samples "
			 "of the snapshot before it", (double)(last_now - last_before) / 1e6);
	else if (now)
		snprintf(what, sizeof(what), "only the program's exit");
	else if (r->npids && recording_exit_listed(r, r->pids[0]))	/* sigmarks.c's line */
		snprintf(what, sizeof(what), "the trace ends with the snapshot before it, short of "
			 "the program's end (by how much: the line on how the program ended)");
	else if (last_before && r->end_ns > last_before)
		snprintf(what, sizeof(what), "the trace ends with the snapshot before it, %.3f ms "
			 "before the recording's end", (double)(r->end_ns - last_before) / 1e6);
	else
		snprintf(what, sizeof(what), "the trace ends with the snapshot before it");
	diag_info("%s: the last snapshot (%s) holds no samples: %s", in->path,
		  record_end_name(r->snapshots[in->snapshot].reason), what);
}

int inputs_convert(struct conv_driver *cv, struct inputs *ins, const struct input_perf *perf,
		   unsigned workers)
{
	int err, rc = EXIT_OK;

	for (size_t i = 0; i < ins->nrecs; i++)
		if (!ins->recs[i].files && (err = conv_driver_recording(cv, &ins->recs[i])))
			return conv_driver_failed(cv, err);
	for (size_t i = 0; i < ins->n && rc == EXIT_OK; i++) {
		const struct conv_input *in = &ins->in[i], *next = i + 1 < ins->n ? in + 1 : NULL;
		struct conv_stats before = *conv_driver_stats(cv);
		uint64_t last = 0;
		bool exited = in->rec->npids &&
			      conv_driver_process_end(cv, in->rec->pids[0], &last);

		conv_driver_snapshot(cv, recording_snapshot_live(in->rec, in->snapshot),
				     timeline_next(in->rec, in->snapshot, next ? next->rec : NULL,
						   next ? next->snapshot : 0), in->rec->ring,
				     in->snapshot == 0 && !in->rec->files ? in->rec : NULL);
		rc = convert_snapshot(cv, in, in->rec->files ? NULL : &ins->sbs[in->rec - ins->recs],
				      inputs_kept(ins, in), perf, workers);
		if (rc == EXIT_OK) {
			uint64_t last_now = 0;
			bool now = in->rec->npids &&
				   conv_driver_process_end(cv, in->rec->pids[0], &last_now);

			last_snapshot_said(cv, in, &before, exited, now, last, last_now);
		}
	}
	if (rc == EXIT_OK && (err = conv_driver_end(cv)))
		rc = conv_driver_failed(cv, err);
	return rc;
}
