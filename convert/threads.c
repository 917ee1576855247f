/* SPDX-License-Identifier: MIT */
/*
 * Threads of the input and their output track: the thread table (hash on
 * pid/tid with a one-entry cache, since consecutive lines are mostly of one
 * thread), naming of processes and threads as FXT kernel objects, and the
 * events written on a thread's track.
 */
#include "threads.h"

#include "cut.h"
#include "funcs.h"

#include "array.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The koid of thread or process id ID, in [1, 2^31) as Perfetto reads FXT
 * koids: ids in 1..CONV_KOID_BAND-1 keep their number; any other (perf's
 * -1 and 0, and numbers no Linux pid reaches) gets its own koid from the
 * band above, the first seen 2^31-1, the next 2^31-2..., so that no two ids
 * share a track. Returns 0 when the band is full (CONV_ODD_IDS_MAX ids), or
 * with c->nomem set when out of memory. */
_Static_assert(CONV_KOID_BAND == (long long)FXT_TRACK_KOID_MIN, "the band of tracks");

static uint64_t koid_of(struct conv *c, int64_t id)
{
	int64_t *ids;

	if (id > 0 && id < CONV_KOID_BAND)
		return (uint64_t)id;
	for (size_t i = 0; i < c->nodd_ids; i++)
		if (c->odd_ids[i] == id)
			return 0x7fffffffull - i;
	if (c->nodd_ids == CONV_ODD_IDS_MAX)
		return 0;
	ids = array_grow(c->odd_ids, &c->capodd_ids, c->nodd_ids, sizeof(*ids));
	if (!ids) {
		c->nomem = true;
		return 0;
	}
	c->odd_ids = ids;
	c->odd_ids[c->nodd_ids++] = id;
	return 0x7fffffffull - (c->nodd_ids - 1);
}

struct conv_thread *conv_thread_get(struct conv *c, int64_t pid, int64_t tid)
{
	struct conv_thread *t = c->last_thread, **all;
	uint64_t pkoid, tkoid, h = hash_pair((uint64_t)pid, (uint64_t)tid);
	size_t probe = 0;
	uint32_t k;

	if (t && t->tid == tid && t->pid == pid)
		return t;
	while ((k = hash_index_next(&c->thread_index, h, &probe)) != HASH_NONE) {
		t = c->threads[k];
		if (t->tid == tid && t->pid == pid)
			return c->last_thread = t;
	}
	all = array_grow(c->threads, &c->capthreads, c->nthreads, sizeof(*all));
	if (all)
		c->threads = all;
	if (!all || hash_index_reserve(&c->thread_index, c->nthreads + 1)) {
		c->nomem = true;
		return NULL;
	}
	pkoid = koid_of(c, pid);
	tkoid = koid_of(c, tid);
	if (!pkoid || !tkoid) {
		c->odd_ids_full = !c->nomem;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		c->nomem = true;
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	t->pkoid = pkoid;
	t->tkoid = tkoid;
	hash_index_add(&c->thread_index, h, (uint32_t)c->nthreads);   /* reserved: cannot fail */
	c->threads[c->nthreads++] = t;
	c->stats.threads++;
	return c->last_thread = t;
}

static bool pid_named(struct conv *c, uint64_t pkoid)
{
	uint64_t *p;

	for (size_t i = 0; i < c->nnamed_pids; i++)
		if (c->named_pids[i] == pkoid)
			return true;
	p = array_grow(c->named_pids, &c->capnamed_pids, c->nnamed_pids, sizeof(*p));
	if (!p) {
		c->nomem = true;
		return true;
	}
	c->named_pids = p;
	c->named_pids[c->nnamed_pids++] = pkoid;
	return false;
}

static fxt_string_id object_name(struct conv *c, const struct conv_thread *t, int64_t id)
{
	char post[32];

	snprintf(post, sizeof(post), "%s[%lld]", t->comm_len ? " " : "", (long long)id);
	return conv_name(c, "", (struct conv_span){ t->comm, t->comm_len }, 256, post);
}

/* The comm a recording's record.json gives thread TID, or NULL. */
static const char *recorded_comm(const struct conv *c, int64_t tid)
{
	const char *comm = NULL;

	for (size_t i = 0; i < c->nrecs && !comm; i++)
		comm = recording_comm(c->recs[i], tid);
	return comm;
}

/*
 * Whether COMM is what perf prints for a thread whose comm it never saw: its
 * thread__comm_str() falls back to ":TID" (thread__new() names every thread
 * so until a COMM record comes; a snapshot file without the side-band has
 * only such names). It is no name: an earlier comm or record.json's wins.
 */
static bool comm_placeholder(struct conv_span comm, int64_t tid)
{
	uint64_t v = 0;
	bool neg;
	uint32_t i;

	/* read, not formatted: this runs on every record (an snprintf was 13%
	 * of the converter's time) and a real comm rarely starts with ':' */
	if (comm.len < 2 || comm.s[0] != ':')
		return false;
	neg = comm.s[1] == '-';
	i = 1 + neg;
	if (i == comm.len || (comm.s[i] == '0' && comm.len > i + 1) || comm.len - i > 19)
		return false;	/* no digits, a leading zero perf never prints, too long */
	for (; i < comm.len; i++) {
		if (comm.s[i] < '0' || comm.s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(comm.s[i] - '0');
	}
	return neg ? tid < 0 && v == -(uint64_t)tid : tid >= 0 && v == (uint64_t)tid;
}

void conv_thread_name(struct conv *c, struct conv_thread *t, struct conv_span comm)
{
	if (comm_placeholder(comm, t->tid))
		comm.len = 0;
	/* no comm (or perf's placeholder): the name the recorder saw, if any */
	if (!comm.len && !t->named && recorded_comm(c, t->tid)) {
		comm.s = recorded_comm(c, t->tid);
		comm.len = (uint32_t)strlen(comm.s);
	}
	if (t->named && (comm.len == 0 || conv_span_eq((struct conv_span){ t->comm, t->comm_len },
						       comm)))
		return;
	if (comm.len) {
		char *s = malloc(comm.len + 1);

		if (!s) {
			c->nomem = true;
			return;
		}
		memcpy(s, comm.s, comm.len);
		s[comm.len] = 0;
		free(t->comm);
		t->comm = s;
		t->comm_len = comm.len;
	}
	if (!pid_named(c, t->pkoid) || t->pid == t->tid)
		fxt_writer_process(c->w, t->pkoid, object_name(c, t, t->pid));
	fxt_writer_thread(c->w, t->pkoid, t->tkoid, object_name(c, t, t->tid));
	t->named = true;
}

bool conv_track(struct conv *c, int64_t pid, const char *comm, uint32_t index,
		fxt_string_id name, uint64_t *pkoid, uint64_t *tkoid)
{
	/* an id below any perf prints (those are >= 0), one per (process, index):
	 * its band koid */
	int64_t id;

	*pkoid = koid_of(c, pid);
	if (!*pkoid)
		return false;
	id = -(int64_t)(index + 1) * (INT64_C(1) << 32) - (int64_t)*pkoid;
	*tkoid = koid_of(c, id);
	if (!*tkoid)
		return false;
	if (!pid_named(c, *pkoid)) {
		struct conv_thread named = { .comm = (char *)(comm ? comm : ""),
					     .comm_len = comm ? (uint32_t)strlen(comm) : 0 };

		fxt_writer_process(c->w, *pkoid, object_name(c, &named, pid));
	}
	/* the set of named koids holds the track's too: named once */
	if (!pid_named(c, *tkoid))
		fxt_writer_track(c->w, *pkoid, *tkoid, name);
	return true;
}

bool conv_triggers_track(struct conv *c, int64_t pid, const char *comm, uint64_t *pkoid,
			 uint64_t *tkoid)
{
	return conv_track(c, pid, comm, CONV_TRACK_TRIGGERS,
			  fxt_writer_cstring(c->w, FXT_TRACK_TRIGGERS), pkoid, tkoid);
}

uint64_t conv_thread_period(const struct conv *c, const struct conv_thread *t)
{
	return t->period_ns ? t->period_ns : c->period_ns;
}

bool conv_process_end(const struct conv *c, int64_t pid, uint64_t *last)
{
	bool exited = false;

	*last = 0;
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct conv_thread *t = c->threads[i];
		uint64_t end = t->last_ts > t->last_end ? t->last_ts : t->last_end;

		if (t->pid != pid || !t->has_ts)
			continue;
		exited |= t->tid == pid && t->exited;
		*last = end > *last ? end : *last;
	}
	return exited;
}

void conv_threads_each(struct conv *c, void (*fn)(struct conv *, struct conv_thread *))
{
	for (size_t i = 0; i < c->nthreads; i++)
		fn(c, c->threads[i]);
}

void conv_threads_free(struct conv *c)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		struct conv_thread *t = c->threads[i];

		free(t->comm);
		free(t->pending);
		free(t->held);
		free(t->loop);
		free(t->leaves);
		free(t->stack);
		free(t->early_errors);
		free(t->cut_open);
		free(t->open);
		free(t->event_tracks);
		free(t);
	}
	free(c->threads);
	hash_index_free(&c->thread_index);
	free(c->named_pids);
	free(c->event_names);
	free(c->odd_ids);
	c->threads = NULL;
	c->named_pids = NULL;
	c->event_names = NULL;
	c->odd_ids = NULL;
	c->nodd_ids = c->capodd_ids = 0;
	c->nthreads = c->capthreads = 0;
	c->last_thread = NULL;
}

static void emit(struct conv *c, struct conv_thread *t, struct fxt_event *ev)
{
	if (!t->named)
		conv_thread_name(c, t, (struct conv_span){ NULL, 0 });
	ev->process_koid = t->pkoid;
	ev->thread_koid = t->tkoid;
	conv_cut_event(c, t, ev);
}

void conv_emit_begin(struct conv *c, struct conv_thread *t, const struct conv_frame *f,
		     uint64_t ts, bool inferred)
{
	struct fxt_arg args[CONV_CUT_ARGS];
	unsigned n = 0;
	struct fxt_event ev = {
		.type = FXT_EVENT_BEGIN, .ts = ts, .category = f->func ? f->func->dso : 0,
		.name = f->name, .args = args,
	};

	/* where the frame was entered, unless its name and category say it:
	 * its function's start, an unknown function's name (which holds the
	 * address), a gap (no address) */
	if (f->ip && !(f->func && f->func->unknown) && !(f->sym_start && f->ip == f->sym_start))
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_POINTER, .name = c->s_addr,
					      .u64 = f->ip };
	if (inferred)
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_BOOL, .name = c->s_inferred,
					      .b = true };

	/* a measured call: not sampled, and its whole time (the slice may be cut) */
	if (f->measured_end) {
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_BOOL, .name = c->s_measured, .b = true };
		args[n++] = (struct fxt_arg){ .type = FXT_ARG_UINT64, .name = c->s_duration_ns,
					      .u64 = f->measured_end - f->measured_entry };
		if (f->measured_thrown)
			args[n++] = (struct fxt_arg){ .type = FXT_ARG_STRING, .name = c->s_left_by,
						      .str = c->s_exception };
	}

	if (f->func)
		n += conv_func_srcline(c, f->func, f->entry_off, f->sym_start, f->kernel,
				       args + n);
	ev.nargs = n;

	emit(c, t, &ev);
}

/* An event of TYPE named NAME at TS with NARGS ARGS on T's track. */
static void emit_named(struct conv *c, struct conv_thread *t, enum fxt_event_type type,
		       fxt_string_id name, uint64_t ts, const struct fxt_arg *args, unsigned nargs)
{
	struct fxt_event ev = {
		.type = type, .ts = ts, .name = name, .args = args, .nargs = nargs,
	};

	emit(c, t, &ev);
}

void conv_emit_slice_begin(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
			   const struct fxt_arg *args, unsigned nargs)
{
	emit_named(c, t, FXT_EVENT_BEGIN, name, ts, args, nargs);
}

void conv_emit_end(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts)
{
	struct fxt_event ev = { .type = FXT_EVENT_END, .ts = ts, .name = name };

	emit(c, t, &ev);
	if (ts > t->last_end)
		t->last_end = ts;
}

void conv_emit_instant(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *args, unsigned nargs)
{
	if (!t->instants_at_ts || ts != t->instant_ts) {
		t->instant_ts = ts;
		t->instants_at_ts = 0;
	} else if (t->depth + t->instants_at_ts >= CONV_MAX_DEPTH) {
		c->stats.deep_instants++;
		return;
	}
	t->instants_at_ts++;
	emit_named(c, t, FXT_EVENT_INSTANT, name, ts, args, nargs);
}

/* The track of T's process for event samples named EVENT (its koid, looked
 * up in T's cache, else made): CONV_TRACK_EVENTS + the event's index among
 * the event names of the conversion. Returns 0 when no koid is left. */
static uint64_t event_track(struct conv *c, struct conv_thread *t, fxt_string_id event)
{
	struct conv_event_track *et;
	uint64_t pkoid, tkoid;
	size_t k = 0;

	for (size_t i = 0; i < t->nevent_tracks; i++)
		if (t->event_tracks[i].event == event)
			return t->event_tracks[i].tkoid;
	while (k < c->nevent_names && c->event_names[k] != event)
		k++;
	if (k == c->nevent_names) {
		fxt_string_id *e = array_grow(c->event_names, &c->capevent_names, k, sizeof(*e));

		if (!e) {
			c->nomem = true;
			return 0;
		}
		c->event_names = e;
		c->event_names[c->nevent_names++] = event;
	}
	if (!conv_track(c, t->pid, t->comm, CONV_TRACK_EVENTS + (uint32_t)k, event, &pkoid,
			&tkoid)) {
		c->odd_ids_full = !c->nomem;
		return 0;
	}
	et = array_grow(t->event_tracks, &t->capevent_tracks, t->nevent_tracks, sizeof(*et));
	if (!et) {
		c->nomem = true;
		return 0;
	}
	t->event_tracks = et;
	t->event_tracks[t->nevent_tracks++] = (struct conv_event_track){ event, tkoid };
	return tkoid;
}

bool conv_emit_event_sample(struct conv *c, struct conv_thread *t, fxt_string_id event,
			    uint64_t ts, const struct fxt_arg *args, unsigned nargs)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_INSTANT, .ts = ts, .name = event, .args = args, .nargs = nargs,
		.process_koid = t->pkoid,
	};

	if (!t->named)
		conv_thread_name(c, t, (struct conv_span){ NULL, 0 });
	ev.thread_koid = event_track(c, t, event);
	if (!ev.thread_koid)
		return false;
	conv_cut_track_event(c, t, &ev);
	return true;
}

void conv_emit_counter(struct conv *c, struct conv_thread *t, fxt_string_id name, uint64_t ts,
		       const struct fxt_arg *arg)
{
	struct fxt_event ev = {
		.type = FXT_EVENT_COUNTER, .ts = ts, .name = name, .args = arg, .nargs = 1,
		.counter_id = t->tkoid,
	};

	emit(c, t, &ev);
}
