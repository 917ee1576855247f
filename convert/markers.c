/* SPDX-License-Identifier: MIT */
/*
 * The moment on the timeline: a recording's trigger hits and the snapshots
 * taken without one, as instants on a track named "triggers" in the traced
 * process (a thread object of its own, so Perfetto shows it under the
 * process beside its threads). Why: docs/design.md "Trigger markers".
 */
#include "state.h"

#include <stdio.h>
#include <string.h>

/* Fields of a hit the marker shows beyond its own (a later recorder's). */
#define MARKER_EXTRA_MAX 16

/* Functions whose first two integer arguments the marker shows (magic-trace's
 * convention: a start TSC, then a value of the program's). */
static const char *const arg_symbols[] = { "magic_trace_stop_indicator", "snaptrace_trigger" };

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

/* The arguments of hit H's marker into ARGS (room for 6 + MARKER_EXTRA_MAX). */
static unsigned hit_args(struct conv *c, const struct recording *r, const struct recording_hit *h,
			 struct fxt_arg *args)
{
	unsigned n = 0;

	args[n++] = (struct fxt_arg){ .type = FXT_ARG_INT64, .name = fxt_writer_cstring(c->w, "tid"),
				      .i64 = h->tid };
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
	if (h->has_args && shows_args(r)) {
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "arg0"), .u64 = h->args[0] };
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64,
			.name = fxt_writer_cstring(c->w, "arg1"), .u64 = h->args[1] };
	}
	for (size_t k = 0; k < h->nextra && k < MARKER_EXTRA_MAX; k++) {
		const struct recording_field *f = &h->extra[k];
		struct fxt_arg *a = &args[n++];

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
	return n;
}

/* The earliest time of any thread of the trace (UINT64_MAX: none). */
static uint64_t trace_start(const struct conv *c)
{
	uint64_t start = UINT64_MAX;

	for (size_t i = 0; i < c->capthreads; i++)
		for (const struct conv_thread *t = c->threads[i]; t; t = t->next)
			if (t->has_ts && t->first_ts < start)
				start = t->first_ts;
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

static void write_hits(struct conv *c, const struct recording *r, fxt_string_id name,
		       fxt_string_id span_name)
{
	uint64_t last = 0;   /* the previous hit: spans on one track must not overlap */
	uint64_t first = trace_start(c);

	for (size_t i = 0; i < r->nhits; i++) {
		const struct recording_hit *h = &r->hits[i];
		struct fxt_arg args[6 + MARKER_EXTRA_MAX];
		struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = h->time_ns, .name = name,
					.args = args };
		uint64_t start = span_start(r, h, first);

		if (!track(c, r, h->pid, &ev))
			return;
		ev.nargs = hit_args(c, r, h, args);
		if (start) {
			struct fxt_event span = ev;
			struct fxt_arg from = { .type = FXT_ARG_UINT64,
				.name = fxt_writer_cstring(c->w, "start_tsc"), .u64 = h->args[0] };

			span.type = FXT_EVENT_BEGIN;
			span.ts = start > last ? start : last;
			span.name = span_name;
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
		last = h->time_ns;
	}
}

/* "[snapshot] REASON" for each snapshot no hit took (Ctrl-C, --duration,
 * the program's exit), at its time, in every traced process. */
static void write_snapshots(struct conv *c, const struct recording *r)
{
	for (size_t i = 0; i < r->nsnapshots; i++) {
		enum recording_reason why = r->snapshots[i].reason;
		uint64_t ts = recording_snapshot_mark(r, i);
		char name[64];

		if (!ts)
			continue;
		snprintf(name, sizeof(name), "[snapshot] %s", recording_reason_name(why));
		for (size_t p = 0; p < r->npids; p++) {
			struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = ts,
						.name = fxt_writer_cstring(c->w, name) };

			if (!track(c, r, r->pids[p], &ev))
				return;
			fxt_writer_event(c->w, &ev);
			c->stats.instants++;
		}
	}
}

void conv_markers_write(struct conv *c, const struct recording *r)
{
	const char *spec = r->trigger ? r->trigger : "";
	struct conv_span mid = { spec, (uint32_t)strlen(spec) };

	write_hits(c, r, conv_name(c, "[trigger] ", mid, 256, ""),
		   conv_name(c, "[trigger span] ", mid, 256, ""));
	write_snapshots(c, r);
}

bool conv_markers_last_hit(const struct conv *c, int64_t pid, uint64_t *ns, size_t *n)
{
	*n = 0;
	for (size_t k = 0; k < c->nrecs; k++)
		for (size_t i = 0; i < c->recs[k]->nhits; i++)
			if (c->recs[k]->hits[i].pid == pid) {
				if (!*n || c->recs[k]->hits[i].time_ns > *ns)
					*ns = c->recs[k]->hits[i].time_ns;
				++*n;
			}
	return *n > 0;
}
