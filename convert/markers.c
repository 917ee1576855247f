/* SPDX-License-Identifier: MIT */
/*
 * The moment on the timeline: a recording's trigger hits and the snapshots
 * taken without one, as instants on a track named "triggers" in the traced
 * process (a thread object of its own, so Perfetto shows it under the
 * process beside its threads). Why: docs/design.md "Trigger markers".
 */
#include "markers.h"

#include "funcs.h"
#include "threads.h"

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "funcspec.h"
#include "fxt_format.h"

/* Functions whose first two integer arguments the marker shows (magic-trace's
 * convention: a start TSC, then a value of the program's). */
static const char *const arg_symbols[] = { "magic_trace_stop_indicator", "snaptrace_trigger" };

/* Writing one recording's hits (write_hit is recording_hits()'s callback). */
struct hits_writer {
	struct conv *c;
	const struct recording *r;
	fxt_string_id name, span_name;
	fxt_string_id spec;     /* the trigger as typed, an argument when the name is
				 * not it (0: it is) */
	uint64_t first;         /* the trace's first time */
	uint64_t last;          /* the previous hit: spans on one track must not overlap */
	uint64_t run_ts;        /* markers of one time, of any process (Perfetto nests */
	unsigned run_n;         /* those of one track) */
	size_t cut_hits;        /* hits whose extra fields did not all fit */
	char cut_first[200];    /* the first such hit's fields left out */
	size_t cut_first_hit;
};

/* The triggers track of process PID; false when no koid is left. */
static bool track(struct conv *c, const struct recording *r, int64_t pid, struct fxt_event *ev)
{
	return conv_triggers_track(c, pid, recording_comm(r, pid), &ev->process_koid,
				   &ev->thread_koid);
}

static bool shows_args(const struct recording *r)
{
	for (size_t i = 0; i < sizeof(arg_symbols) / sizeof(arg_symbols[0]); i++)
		if (r->trigger_symbol && !strcmp(r->trigger_symbol, arg_symbols[i]))
			return true;
	return false;
}

/* Appends NAME to the list LIST (SIZE bytes), ", "-separated, "..." once full. */
static void list_add(char *list, size_t size, const char *name)
{
	size_t n = strlen(list);

	if (n + 4 >= size || (n >= 3 && !strcmp(list + n - 3, "...")))
		return;
	if ((size_t)snprintf(list + n, size - n, "%s%s", n ? ", " : "", name) >= size - n)
		snprintf(list + size - 4, 4, "...");
}

/* The arguments of hit H's marker into ARGS (FXT_MAX_ARGS): its own, then
 * its extra fields while they fit; when some do not, the last argument
 * "fields_left_out" names them (and the writer remembers them for a
 * warning). Returns how many. */
static unsigned hit_args(struct hits_writer *hw, const struct recording_hit *h,
			 struct fxt_arg *args)
{
	struct conv *c = hw->c;
	const struct recording *r = hw->r;
	unsigned n = 0, room;
	char left[200] = "";

	args[n++] = (struct fxt_arg){ .type = FXT_ARG_INT64, .name = fxt_writer_cstring(c->w, "tid"),
				      .i64 = h->tid };
	if (hw->spec)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING,
			.name = fxt_writer_cstring(c->w, "trigger"), .str = hw->spec };
	if (h->has_ip)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_POINTER, .name = c->s_ip, .u64 = h->ip };
	if (h->snapshot >= 0) {
		const char *path = r->snapshots[h->snapshot].path, *base;

		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "snapshot"), .u64 = (uint64_t)h->snapshot };
		if (path) {
			base = strrchr(path, '/');
			args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING,
				.name = fxt_writer_cstring(c->w, "snapshot_file"),
				.str = fxt_writer_cstring(c->w, base ? base + 1 : path) };
		}
	}
	if (h->coalesced)   /* it took no snapshot: drawn in the one holding it */
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_BOOL,
			.name = fxt_writer_cstring(c->w, "coalesced"), .b = true };
	if (h->has_args && shows_args(r)) {
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "arg0"), .u64 = h->args[0] };
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "arg1"), .u64 = h->args[1] };
	}
	room = FXT_MAX_ARGS - n;
	if (h->nextra > room)
		room--;	/* for fields_left_out */
	for (size_t k = 0; k < h->nextra; k++) {
		const struct recording_field *f = &h->extra[k];
		struct fxt_arg *a = &args[n];

		if (k >= room) {
			list_add(left, sizeof(left), f->name);
			continue;
		}
		n++;
		a->name = fxt_writer_cstring(c->w, f->name);
		if (f->str) {
			a->type = FXT_ARG_STRING;
			a->str = fxt_writer_cstring(c->w, f->str);
		} else if (f->is_bool) {
			a->type = FXT_ARG_BOOL;
			a->b = f->i64 != 0;
		} else if (f->is_unsigned) {
			a->type = FXT_ARG_UINT64;
			a->u64 = (uint64_t)f->i64;
		} else {
			a->type = FXT_ARG_INT64;
			a->i64 = f->i64;
		}
	}
	if (left[0]) {
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING,
			.name = fxt_writer_cstring(c->w, "fields_left_out"),
			.str = fxt_writer_cstring(c->w, left) };
		if (!hw->cut_hits++) {
			memcpy(hw->cut_first, left, sizeof(left));
			hw->cut_first_hit = h->index;
		}
	}
	return n;
}

/*
 * Perfetto nests the instants of one time on one track in one another (each
 * a slice of no duration, still open at that time) and drops what lands 512
 * deep: a marker at TS goes in when fewer than CONV_MAX_DEPTH are there
 * already. Counted per run of markers of one time, of all processes
 * together (as record.json lists its hits in time order): hits of two
 * processes at one time alternate, and a count per process and run was
 * never more than one (bounded memory; a process's own track then holds
 * fewer than 512 of that time too).
 */
static bool marker_fits(struct conv *c, struct hits_writer *hw, uint64_t ts)
{
	if (hw->run_n && ts == hw->run_ts) {
		if (hw->run_n >= CONV_MAX_DEPTH) {
			c->stats.deep_instants++;
			return false;
		}
	} else {
		hw->run_ts = ts;
		hw->run_n = 0;
	}
	hw->run_n++;
	return true;
}

/* The earliest time of any thread of the trace (UINT64_MAX: none). */
static uint64_t trace_start(const struct conv *c)
{
	uint64_t start = UINT64_MAX;

	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i]->has_ts && c->threads[i]->first_ts < start)
			start = c->threads[i]->first_ts;
	return start;
}

/* The start of hit H's span: its first argument as a TSC in perf's clock,
 * when that lies in the trace (from its first event, FIRST) before the hit:
 * any other value (a program passing no TSC) draws none. Else 0. */
static uint64_t span_start(const struct recording *r, const struct recording_hit *h,
			   uint64_t first)
{
	uint64_t ns;

	if (!h->has_args || !shows_args(r) || !recording_tsc_to_perf(&r->tsc, h->args[0], &ns))
		return 0;
	return ns >= first && ns < h->time_ns ? ns : 0;
}

/* recording_hits()'s callback: hit H's marker (and its span). Returns 0,
 * or 1 (stop: no more markers) when no koid is left for its track. */
static int write_hit(void *arg, const struct recording_hit *h)
{
	struct hits_writer *hw = arg;
	struct conv *c = hw->c;
	struct fxt_arg args[FXT_MAX_ARGS];
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = h->time_ns, .name = hw->name,
				.args = args };
	uint64_t start = span_start(hw->r, h, hw->first);

	if (!track(c, hw->r, h->pid, &ev))
		return 1;
	if (!marker_fits(c, hw, h->time_ns))
		return 0;
	ev.nargs = hit_args(hw, h, args);
	if (start) {
		struct fxt_event span = ev;
		struct fxt_arg from = { .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "start_tsc"), .u64 = h->args[0] };

		span.type = FXT_EVENT_BEGIN;
		span.ts = start > hw->last ? start : hw->last;
		span.name = hw->span_name;
		span.args = &from;
		span.nargs = 1;
		fxt_writer_event(c->w, &span);
		span.type = FXT_EVENT_END;
		span.ts = h->time_ns;
		span.nargs = 0;
		fxt_writer_event(c->w, &span);
		c->stats.slices++;
	}
	fxt_writer_event(c->w, &ev);
	c->stats.instants++;
	hw->last = h->time_ns;
	return 0;
}

/* "[snapshot] REASON" for each snapshot no hit took (Ctrl-C, --duration,
 * the program's exit), where it is known to end (recording_snapshot_mark),
 * in every traced process; taken_ns: when it was taken, when that is later. */
static void write_snapshots(struct conv *c, const struct recording *r, struct hits_writer *hw)
{
	for (size_t i = 0; i < r->nsnapshots; i++) {
		enum record_end why = r->snapshots[i].reason;
		uint64_t ts = recording_snapshot_mark(r, i), taken = r->snapshots[i].time_ns;
		struct fxt_arg arg = { .type = FXT_ARG_UINT64, .u64 = taken };
		char name[64];

		if (!ts)
			continue;
		snprintf(name, sizeof(name), "[snapshot] %s", record_end_name(why));
		arg.name = fxt_writer_cstring(c->w, "taken_ns");
		for (size_t p = 0; p < r->npids; p++) {
			struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = ts,
						.name = fxt_writer_cstring(c->w, name),
						.args = &arg, .nargs = taken > ts };

			if (!track(c, r, r->pids[p], &ev))
				return;
			if (!marker_fits(c, hw, ts))
				continue;
			fxt_writer_event(c->w, &ev);
			c->stats.instants++;
		}
	}
}

bool conv_markers_write(struct conv *c, const struct recording *r, char *err, size_t size)
{
	const char *spec = r->trigger ? r->trigger : "";
	/* a function with no name is named as its slices are ([unnamed @
	 * 0x1370], record.json's name of it), not by the addr: typed */
	bool unnamed = r->trigger_name &&
		       funcspec_is_unnamed(r->trigger_name, strlen(r->trigger_name));
	const char *fn = unnamed ? r->trigger_name : spec;
	struct conv_span mid = { fn, (uint32_t)strlen(fn) };
	struct hits_writer hw = {
		.c = c, .r = r, .first = trace_start(c),
		.name = conv_name(c, "[trigger] ", mid, 256, ""),
		.span_name = conv_name(c, "[trigger span] ", mid, 256, ""),
		.spec = unnamed && strcmp(fn, spec) ? fxt_writer_cstring(c->w, spec) : 0,
	};
	int rc = recording_hits(r, write_hit, &hw, err, size);

	if (rc < 0)	/* record.json no longer reads as it did */
		return false;
	if (hw.cut_hits)
		diag_warn("%s: %zu hit%s ha%s more fields than a marker can show (%d arguments); "
			  "the marker's argument fields_left_out names them (hits[%zu]: %s)",
			  r->file, hw.cut_hits, diag_s(hw.cut_hits), hw.cut_hits == 1 ? "s" : "ve",
			  FXT_MAX_ARGS, hw.cut_first_hit, hw.cut_first);
	write_snapshots(c, r, &hw);
	return true;
}

bool conv_markers_last_hit(const struct conv *c, int64_t pid, uint64_t *ns, size_t *n)
{
	*n = 0;
	for (size_t k = 0; k < c->nrecs; k++) {
		uint64_t t;
		size_t m;

		if (recording_last_hit(c->recs[k], pid, &t, &m)) {
			if (!*n || t > *ns)
				*ns = t;
			*n += m;
		}
	}
	return *n > 0;
}
