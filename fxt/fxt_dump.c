// SPDX-License-Identifier: MIT
/*
 * fxt_dump: text views of a read trace (see fxt_reader.h): every record as
 * one line (--dump=records), and each thread's slices and instants as
 * "TID DEPTH NAME" lines (--dump=slices), the format of the golden files.
 */
#include <inttypes.h>
#include <stdio.h>

#include "escape.h"
#include "fxt_format.h"
#include "fxt_reader.h"
#include "fxt_trace_priv.h"

/*
 * S shown on one line and safe on a terminal: escaped (escape.h, "\x0a" for
 * a newline in a comm), in one of four static buffers used in turn (enough
 * for the strings of one printf). Every view is one line per item.
 */
static const char *one_line(const char *s)
{
	static char bufs[4][4 * FXT_STRING_LEN_MAX + 1];
	static unsigned n;

	return esc_str(bufs[n++ % 4], sizeof(bufs[0]), s, ESC_TEXT);
}

static void print_arg(FILE *out, const struct fxt_rarg *a)
{
	const char *name = one_line(a->name);

	switch (a->type) {
	case FXT_ARG_INT64:
		fprintf(out, " %s:int64=%" PRId64, name, a->i64);
		return;
	case FXT_ARG_UINT32:	/* the reader gives uint32 as UINT64 */
	case FXT_ARG_UINT64:
		fprintf(out, " %s:uint64=%" PRIu64, name, a->u64);
		return;
	case FXT_ARG_DOUBLE:
		fprintf(out, " %s:double=%.17g", name, a->f64);
		return;
	case FXT_ARG_STRING:
		fprintf(out, " %s:string=\"%s\"", name, one_line(a->str));
		return;
	case FXT_ARG_POINTER:
		fprintf(out, " %s:pointer=0x%" PRIx64, name, a->u64);
		return;
	case FXT_ARG_KOID:
		fprintf(out, " %s:koid=%" PRIu64, name, a->u64);
		return;
	case FXT_ARG_BOOL:
		fprintf(out, " %s:bool=%s", name, a->b ? "true" : "false");
		return;
	}
	fprintf(out, " %s:?", name);
}

static void print_args(FILE *out, const struct fxt_revent *ev)
{
	for (unsigned i = 0; i < ev->nargs; i++)
		print_arg(out, &ev->args[i]);
}

static void print_event(FILE *out, const struct fxt_revent *ev)
{
	fprintf(out, "%zu event %s ts=%" PRIu64 " pid=%" PRIu64 " tid=%" PRIu64
		" cat=\"%s\" name=\"%s\"", ev->record_no, fxt_event_type_name(ev->type),
		ev->ts, ev->process_koid, ev->thread_koid, one_line(ev->category), one_line(ev->name));
	if (ev->type == FXT_EVENT_COMPLETE)
		fprintf(out, " end_ts=%" PRIu64, ev->end_ts);
	if (ev->type == FXT_EVENT_COUNTER)
		fprintf(out, " counter_id=%" PRIu64, ev->counter_id);
	if (ev->type == FXT_EVENT_ASYNC_INSTANT)
		fprintf(out, " correlation_id=%" PRIu64, ev->correlation_id);
	print_args(out, ev);
	fputc('\n', out);
}

void fxt_dump_records(const struct fxt_trace *t, FILE *out)
{
	const struct fxt_trace_priv *pv = t->priv;
	size_t nnotes = pv ? pv->nnotes : 0;
	size_t i = 0, j = 0;

	/* events and notes are each in record order: merge them */
	while (i < t->nevents || j < nnotes) {
		bool event_first = j == nnotes || (i < t->nevents &&
				   t->events[i].record_no < pv->notes[j].record_no);

		if (event_first) {
			print_event(out, &t->events[i++]);
		} else {
			fprintf(out, "%zu %s\n", pv->notes[j].record_no, one_line(pv->notes[j].text));
			j++;
		}
	}
}

static int cmp_thread(uint64_t pid_a, uint64_t tid_a, uint64_t pid_b, uint64_t tid_b)
{
	if (pid_a != pid_b)
		return pid_a < pid_b ? -1 : 1;
	return tid_a < tid_b ? -1 : tid_a > tid_b;
}

static void print_slice(FILE *out, const struct fxt_slice *s, bool verbose)
{
	if (!verbose) {
		fprintf(out, "%" PRIu64 " %u %s\n", s->thread_koid, s->depth, one_line(s->ev->name));
		return;
	}
	fprintf(out, "%" PRIu64 " %u %*s%s [%" PRIu64 ", ", s->thread_koid, s->depth, 2 * (int)s->depth,
		"", one_line(s->ev->name), s->begin);
	if (s->end == UINT64_MAX)
		fprintf(out, "did not end]");
	else
		fprintf(out, "%" PRIu64 "] dur=%" PRIu64, s->end, s->end - s->begin);
	fprintf(out, " cat=\"%s\"", one_line(s->ev->category));
	print_args(out, s->ev);
	fputc('\n', out);
}

static void print_instant(FILE *out, const struct fxt_instant *n, bool verbose)
{
	if (!verbose) {
		fprintf(out, "%" PRIu64 " %u %s\n", n->thread_koid, n->depth, one_line(n->ev->name));
		return;
	}
	fprintf(out, "%" PRIu64 " %u %*s%s @%" PRIu64 " instant cat=\"%s\"", n->thread_koid, n->depth,
		2 * (int)n->depth, "", one_line(n->ev->name), n->ev->ts,
		one_line(n->ev->category));
	print_args(out, n->ev);
	fputc('\n', out);
}

void fxt_dump_slices(const struct fxt_trace *t, FILE *out, bool verbose)
{
	size_t i = 0, j = 0;

	/* both arrays are grouped by thread in (pid, tid) order */
	while (i < t->nslices || j < t->ninstants) {
		uint64_t pid, tid;
		bool slice_first = j == t->ninstants ||
				   (i < t->nslices &&
				    cmp_thread(t->slices[i].process_koid, t->slices[i].thread_koid,
					       t->instants[j].process_koid, t->instants[j].thread_koid) <= 0);

		if (slice_first) {
			pid = t->slices[i].process_koid;
			tid = t->slices[i].thread_koid;
		} else {
			pid = t->instants[j].process_koid;
			tid = t->instants[j].thread_koid;
		}
		if (verbose)
			fprintf(out, "# thread pid=%" PRIu64 " tid=%" PRIu64 "\n", pid, tid);
		for (; i < t->nslices && t->slices[i].process_koid == pid && t->slices[i].thread_koid == tid; i++)
			print_slice(out, &t->slices[i], verbose);
		for (; j < t->ninstants && t->instants[j].process_koid == pid && t->instants[j].thread_koid == tid;
		     j++)
			print_instant(out, &t->instants[j], verbose);
	}
	for (i = 0; i < t->nasync_instants; i++) {
		const struct fxt_instant *n = &t->async_instants[i];

		fprintf(out, "global:%s %u %s", one_line(n->track), n->depth, one_line(n->ev->name));
		if (verbose) {
			fprintf(out, " @%" PRIu64 " instant pid=%" PRIu64 " tid=%" PRIu64 " cat=\"%s\"",
				n->ev->ts, n->process_koid, n->thread_koid, one_line(n->ev->category));
			print_args(out, n->ev);
		}
		fputc('\n', out);
	}
}
