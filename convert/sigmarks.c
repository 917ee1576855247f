/* SPDX-License-Identifier: MIT */
/*
 * The moment the program failed: the signals a recording saw delivered
 * (record.json "signals") and perf's signal:signal_deliver samples (where
 * the thread was: the call chain at the signal) as "[crash] SIGSEGV" or
 * "[signal] SIGABRT" instants on the thread's track and on the triggers
 * track; in sampling mode the chain at the signal closes the thread's
 * stacks; the summary line and the trace's "ended" fact say how the
 * program ended. Why: docs/design.md "Signals and the exit".
 */
#include "sigmarks.h"

#include "chain.h"
#include "ipname.h"
#include "threads.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "inpath.h"
#include "signals.h"

/* A recorder's signal and perf's sample of it are the same delivery when
 * they are this close (two events of one tracepoint call, each stamped on
 * its own). */
#define SIGNAL_MATCH_NS 100000000ull
#define SIGNAL_FRAMES_MAX 128   /* user frames of a chain kept */
#define SIGNALS_SEEN_MAX 4096

/* How an abort happened, by the functions on the stack under abort():
 * the outermost of these in the run of them (and of abort_carriers[]) that
 * the chain starts with names the cause (__stack_chk_fail calls
 * __fortify_fail). A name ending in "::" is a namespace prefix. */
static const struct abort_path {
	const char *func;
	const char *cause;
} abort_paths[] = {
	{ "__assert_fail", "assert() failed" },
	{ "__assert_perror_fail", "assert() failed" },
	{ "__assert_fail_base", "assert() failed" },
	{ "__stack_chk_fail", "stack smashing detected" },
	{ "__fortify_fail", "buffer overflow detected" },
	{ "__chk_fail", "buffer overflow detected" },
	{ "malloc_printerr", "glibc malloc check failed" },
	{ "std::terminate", "uncaught C++ exception" },
	{ "__cxxabiv1::", "uncaught C++ exception" },
	{ "__gnu_cxx::__verbose_terminate_handler", "uncaught C++ exception" },
	{ "__cxa_throw", "uncaught C++ exception" },
	{ "__cxa_rethrow", "uncaught C++ exception" },
	{ "_Unwind_RaiseException", "uncaught C++ exception" },
	{ "rust_panic", "Rust panic" },
	{ "__rust_start_panic", "Rust panic" },
	{ "panic_abort::", "Rust panic" },
	{ "core::panicking::", "Rust panic" },
	{ "std::panicking::", "Rust panic" },
	{ "rust_begin_unwind", "Rust panic" },
	{ "abort", "abort()" },
};

/* Functions that only carry an abort out (libc's, Rust's runtime): never
 * the site it came from. */
static const char *const abort_carriers[] = {
	"raise", "gsignal", "pthread_kill", "__pthread_kill_implementation",
	"__pthread_kill_internal", "__libc_message", "__libc_message_impl", "std::process::abort",
	"std::sys::", "std::rt::", "core::result::unwrap_failed", "core::option::unwrap_failed",
	"core::option::expect_failed", "_int_free", "_int_malloc", "_int_realloc",
	"_int_memalign", "unlink_chunk", "__libc_free", "__libc_malloc", "__libc_realloc", "free",
	"malloc", "realloc",
};

/* Whether symbol NAME (LEN bytes) is ENTRY: the same, a part the compiler
 * split off or cloned from it (GCC's "NAME.cold", "NAME.part.0",
 * "NAME.isra.0"), or within a namespace prefix "NS::". */
static bool name_is(const char *name, size_t len, const char *entry)
{
	size_t n = strlen(entry);

	if (n > 2 && !strcmp(entry + n - 2, "::"))
		return len > n && !memcmp(name, entry, n);
	return len >= n && !memcmp(name, entry, n) && (len == n || name[n] == '.');
}

/* The symbol of F (its key's first symlen bytes), or NULL when unknown. */
static const char *symbol_of(const struct conv_func *f, size_t *len)
{
	*len = f && !f->unknown ? f->symlen : 0;
	return *len ? f->key : NULL;
}

const char *conv_abort_cause(const struct conv_site *frames, size_t n, size_t *site)
{
	const char *cause = NULL;
	size_t last = 0;

	*site = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *name = symbol_of(frames[i].func, &len);
		bool carrier = false;

		if (!name)
			continue;
		for (size_t k = 0; k < sizeof(abort_paths) / sizeof(abort_paths[0]); k++)
			if (name_is(name, len, abort_paths[k].func)) {
				cause = abort_paths[k].cause;   /* the outermost wins */
				carrier = true;
				break;
			}
		for (size_t k = 0; !carrier && k < sizeof(abort_carriers) / sizeof(abort_carriers[0]); k++)
			carrier = name_is(name, len, abort_carriers[k]);
		if (carrier)
			last = i + 1;
		else if (cause)
			break;
	}
	*site = last;
	return cause;
}

/* The frames a chain holds in user space: from the first below the kernel. */
static size_t user_frames(const struct conv_site *frames, size_t n, size_t *first)
{
	size_t k = 0;

	while (k < n && frames[k].ip >= CONV_KERNEL_START)
		k++;
	*first = k;
	return n - k < SIGNAL_FRAMES_MAX ? n - k : SIGNAL_FRAMES_MAX;
}

int conv_signal_seen(struct conv *c, struct conv_thread *t, uint64_t ts,
		     const struct conv_signal_deliver *f, const struct conv_site *frames, size_t n)
{
	struct conv_signal_seen *s;
	size_t first, nuser = user_frames(frames, n, &first);

	if (c->nsignals_seen >= SIGNALS_SEEN_MAX)
		return -1;
	s = array_grow(c->signals_seen, &c->capsignals_seen, c->nsignals_seen, sizeof(*s));
	if (!s) {
		c->nomem = true;
		return -1;
	}
	c->signals_seen = s;
	s = &s[c->nsignals_seen];
	memset(s, 0, sizeof(*s));
	s->pid = t->pid;
	s->tid = t->tid;
	s->ts = ts;
	if (f->valid) {
		s->has_fields = true;
		s->sig = (int)f->sig;
		s->code = (int)f->code;
		s->handled = !(f->handler.len == 1 && f->handler.s[0] == '0');
	}
	if (nuser) {
		s->frames = malloc(nuser * sizeof(*s->frames));
		if (!s->frames) {
			c->nomem = true;
			return -1;
		}
		memcpy(s->frames, frames + first, nuser * sizeof(*s->frames));
		s->nframes = nuser;
	}
	return (int)c->nsignals_seen++;
}

void conv_signal_stack(struct conv *c, struct conv_thread *t, size_t i, uint64_t ts)
{
	const struct conv_signal_seen *s = &c->signals_seen[i];

	if (!s->nframes || t->has_branches)
		return;   /* a branch trace already ends where the thread was */
	conv_chain_sample(c, t, ts, s->frames, s->nframes, 0, true);
	c->stats.samples++;
}

/* The perf sample of recording signal RS: the same thread and signal (a
 * SIGKILL without siginfo for one the kernel delivers so:
 * sig_delivered_as_kill()), the nearest in time within SIGNAL_MATCH_NS;
 * NULL when perf has none (a thread perf did not record, a snapshot left
 * out). */
static const struct conv_signal_seen *seen_of(const struct conv *c,
					      const struct recording_signal *rs)
{
	const struct conv_signal_seen *best = NULL;
	uint64_t best_d = SIGNAL_MATCH_NS;

	for (size_t i = 0; i < c->nsignals_seen; i++) {
		const struct conv_signal_seen *s = &c->signals_seen[i];
		uint64_t d = s->ts > rs->time_ns ? s->ts - rs->time_ns : rs->time_ns - s->ts;
		bool same = !s->has_fields || s->sig == rs->sig ||
			    (s->sig == SIGKILL && s->code == SI_USER && rs->fatal &&
			     sig_delivered_as_kill(rs->sig));

		if (s->tid == rs->tid && same && d <= best_d) {
			best = s;
			best_d = d;
		}
	}
	return best;
}

/* What a marker and the summary say of one signal. */
struct signal_view {
	int64_t pid, tid;
	uint64_t ts;
	int sig, code;
	bool has_code, handled, has_ip, has_addr;
	uint64_t ip, addr;
	const struct conv_site *where;  /* the frame it came in (an abort's site), or NULL */
	bool where_caller;              /* WHERE is a caller: its ip is a return address */
	const struct conv_site *inside; /* the library function WHERE called that raised it
					 * (an abort's outermost), or NULL */
	const char *cause;
	int64_t sender_pid;
	const char *sender_comm;
	long snapshot;
	struct conv_ipname named;       /* without WHERE, the ip named from the process's
					 * mappings (a thread not recorded); sym "": not */
};

/* Fills V's where and cause from perf's sample S (may be NULL). */
static void view_frames(struct signal_view *v, const struct conv_signal_seen *s)
{
	size_t site = 0;

	if (!s || !s->nframes)
		return;
	v->cause = v->sig == SIGABRT ? conv_abort_cause(s->frames, s->nframes, &site) : NULL;
	/* an abort's own functions are not where it came from; an [unknown]
	 * frame past them (a chain lost in a library without frame pointers)
	 * names nothing */
	v->where = site < s->nframes && !s->frames[site].func->unknown ? &s->frames[site] : NULL;
	v->where_caller = site > 0;
	v->inside = v->where && site > 0 ? &s->frames[site - 1] : NULL;
	if (!v->has_ip) {
		v->has_ip = true;
		v->ip = s->frames[0].ip;
	}
}

/* The function V came in: its name (LEN bytes), or NULL when none is known. */
static const char *where_name(const struct signal_view *v, size_t *len)
{
	if (v->where)
		return symbol_of(v->where->func, len);
	*len = strlen(v->named.sym);
	return *len ? v->named.sym : NULL;
}

/* "boom (crash.c:7)" of V's frame into BUF; NULL when it has no symbol. */
static const char *where_text(struct conv *c, const struct signal_view *v, const char **file,
			      uint64_t *line, char *buf, size_t size)
{
	const struct conv_site *f = v->where;
	size_t len;
	const char *name = where_name(v, &len);
	const char *dso = f ? f->func->key + f->func->symlen : v->named.dso;
	size_t dsolen = f ? f->func->dsolen : strlen(v->named.dso);
	bool has_symoff = f ? f->has_symoff : true;
	uint64_t symoff = f ? f->symoff : v->named.symoff, ip = f ? f->ip : v->ip, off;
	unsigned l;

	*file = NULL;
	*line = 0;
	if (!name)
		return NULL;
	/* a caller's ip is its return address: the call is the byte before */
	off = has_symoff ? symoff - (v->where_caller && symoff) : 0;
	if (c->srcline && has_symoff) {
		int found = srcline_lookup(c->srcline, dso, dsolen, name, len, off, ip - symoff,
					   file, &l);

		c->nomem |= found < 0;
		*file = found > 0 ? *file : NULL;
		*line = l;
	}
	if (*file) {
		const char *base = strrchr(*file, '/');

		snprintf(buf, size, "%.*s (%s:%" PRIu64 ")", (int)len, name, base ? base + 1 : *file,
			 *line);
	} else {
		snprintf(buf, size, "%.*s", (int)len, name);
	}
	return buf;
}

/* The arguments of V's marker into ARGS (room for 15). */
static unsigned view_args(struct conv *c, const struct signal_view *v, struct fxt_arg *args)
{
	char name[SIG_NAME_MAX], where[512];
	const char *code = v->has_code ? sig_code_name(v->sig, v->code) : NULL, *file;
	unsigned n = 0;
	uint64_t line;

#define ARG(key, ...) (args[n++] = (struct fxt_arg){ .name = fxt_writer_cstring(c->w, key), __VA_ARGS__ })
	ARG("signal", .type = FXT_ARG_STRING,
	    .str = fxt_writer_cstring(c->w, sig_name(v->sig, name, sizeof(name))));
	ARG("signo", .type = FXT_ARG_INT64, .i64 = v->sig);
	if (code)
		ARG("code", .type = FXT_ARG_STRING, .str = fxt_writer_cstring(c->w, code));
	else if (v->has_code)
		ARG("code", .type = FXT_ARG_INT64, .i64 = v->code);
	if (v->cause)
		ARG("cause", .type = FXT_ARG_STRING, .str = fxt_writer_cstring(c->w, v->cause));
	if (v->has_addr)
		ARG("addr", .type = FXT_ARG_POINTER, .u64 = v->addr);
	if (v->has_ip)
		ARG("ip", .type = FXT_ARG_POINTER, .u64 = v->ip);
	if (where_text(c, v, &file, &line, where, sizeof(where))) {
		size_t len;
		const char *sym = where_name(v, &len);

		ARG("function", .type = FXT_ARG_STRING,
		    .str = fxt_writer_string(c->w, sym, len));
		sym = v->inside ? symbol_of(v->inside->func, &len) : NULL;
		if (sym)
			ARG("inside", .type = FXT_ARG_STRING,
			    .str = fxt_writer_string(c->w, sym, len));
		if (file) {
			ARG("file", .type = FXT_ARG_STRING, .str = fxt_writer_cstring(c->w, file));
			ARG("line", .type = FXT_ARG_UINT64, .u64 = line);
		}
	}
	ARG("tid", .type = FXT_ARG_INT64, .i64 = v->tid);
	ARG("handled", .type = FXT_ARG_BOOL, .b = v->handled);
	if (v->sender_pid)
		ARG("sender_pid", .type = FXT_ARG_INT64, .i64 = v->sender_pid);
	if (v->sender_comm && *v->sender_comm)
		ARG("sender_comm", .type = FXT_ARG_STRING,
		    .str = fxt_writer_cstring(c->w, v->sender_comm));
	if (v->snapshot >= 0)
		ARG("snapshot", .type = FXT_ARG_UINT64, .u64 = (uint64_t)v->snapshot);
#undef ARG
	return n;
}

/* "[crash] SIGSEGV" (the CPU faulted on the program's instruction) or
 * "[signal] SIGABRT" at V's time on its thread's track and on the
 * triggers track of its process. */
static void write_marker(struct conv *c, const struct recording *r, const struct signal_view *v)
{
	struct fxt_arg args[16];
	char name[48], sig[SIG_NAME_MAX];
	struct conv_thread *t = conv_thread_get(c, v->pid, v->tid);
	unsigned n = view_args(c, v, args);
	struct fxt_event ev = { .type = FXT_EVENT_INSTANT, .ts = v->ts, .args = args, .nargs = n };

	snprintf(name, sizeof(name), "%s %s", v->has_code && sig_is_crash(v->sig, v->code) ?
		 "[crash]" : "[signal]", sig_name(v->sig, sig, sizeof(sig)));
	ev.name = fxt_writer_cstring(c->w, name);
	if (t) {
		if (!t->named)
			conv_thread_name(c, t, (struct conv_span){ NULL, 0 });
		conv_chain_release(c, t);	/* after the chain held before it */
		conv_emit_instant(c, t, ev.name, v->ts, args, n);
	}
	if (conv_triggers_track(c, v->pid, r ? recording_comm(r, v->pid) : NULL, &ev.process_koid,
				&ev.thread_koid)) {
		fxt_writer_event(c->w, &ev);
		c->stats.instants++;
	}
}

/*
 * Names V's ip from the mappings of its process in recording R's snapshot
 * files (the signal's own first), for a signal in a thread the recording
 * leaves out: no sample of that thread shows where it was.
 */
static void name_unsampled(struct conv *c, const struct recording *r, struct signal_view *v)
{
	long first = v->snapshot >= 0 && v->snapshot < (long)r->nsnapshots ? v->snapshot : -1;

	for (long k = -1; k < (long)r->nsnapshots; k++) {
		long i = k < 0 ? first : k;
		char why[160], path[32];
		int fd, rc;

		if (i < 0 || (k >= 0 && k == first) || !r->snapshots[i].file)
			continue;
		fd = recording_open(r, r->snapshots[i].file, 0, why, sizeof(why));
		if (fd < 0)
			continue;
		rc = conv_ipname(inpath_proc(fd, path, sizeof(path)), v->pid, v->ip, c->srcline,
				 &v->named);
		close(fd);
		c->nomem |= rc == -ENOMEM;
		if (rc > 0)
			return;
	}
	v->named.sym[0] = 0;
}

/* The view of recording signal RS of R (with perf's sample of it, when any). */
static void view_of_recording(struct conv *c, const struct recording *r,
			      const struct recording_signal *rs, struct signal_view *v)
{
	const struct conv_signal_seen *s = seen_of(c, rs);

	*v = (struct signal_view){
		.pid = rs->pid, .tid = rs->tid, .ts = s ? s->ts : rs->time_ns, .sig = rs->sig,
		.code = rs->code, .has_code = true, .handled = rs->handled, .has_ip = rs->has_ip,
		.ip = rs->ip, .has_addr = rs->has_addr, .addr = rs->addr,
		.sender_pid = rs->sender_pid, .sender_comm = rs->sender_comm,
		.snapshot = rs->snapshot,
	};
	view_frames(v, s);
	if (rs->cause)   /* the recorder's probes saw it: better than a chain */
		v->cause = rs->cause;
	if (!s && rs->unrecorded && rs->has_ip)
		name_unsampled(c, r, v);
}

/* Whether perf's sample S is of a process a recording traced: its
 * record.json lists the signals to draw (the recorder leaves out the ones no
 * process sent, such as the SIGKILL that ends the other threads at
 * exit_group, which perf's tracepoint samples too). */
static bool in_recordings(const struct conv *c, const struct conv_signal_seen *s)
{
	for (size_t k = 0; k < c->nrecs; k++)
		for (size_t i = 0; i < c->recs[k]->npids; i++)
			if (c->recs[k]->pids[i] == s->pid)
				return true;
	return false;
}

void conv_sigmarks_write(struct conv *c)
{
	for (size_t k = 0; k < c->nrecs; k++) {
		const struct recording *r = c->recs[k];

		for (size_t i = 0; i < r->nsignals; i++) {
			struct signal_view v;

			if (r->signals[i].by_stop)
				continue;   /* the recorder's own stop: not the program's */
			view_of_recording(c, r, &r->signals[i], &v);
			write_marker(c, r, &v);
		}
	}
	/* a perf.data of one's own (no recording traced its process): its
	 * samples are all there is */
	for (size_t i = 0; i < c->nsignals_seen; i++) {
		const struct conv_signal_seen *s = &c->signals_seen[i];
		struct signal_view v = {
			.pid = s->pid, .tid = s->tid, .ts = s->ts, .sig = s->sig, .code = s->code,
			.has_code = true, .handled = s->handled, .snapshot = -1,
		};

		if (!s->has_fields || in_recordings(c, s))
			continue;
		view_frames(&v, s);
		write_marker(c, NULL, &v);
	}
}

/* How process X of recording R ended, into *E (strings in BUF). Returns
 * false when R does not say. */
static bool ending_of(struct conv *c, const struct recording *r, const struct recording_exit *x,
		      struct sig_ending *e, char *where, size_t size, char *inside,
		      size_t inside_size)
{
	const struct recording_signal *fatal = NULL, *handled = NULL;
	struct signal_view v;
	const char *file;
	uint64_t line;
	size_t len;

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < r->nsignals; i++) {
		const struct recording_signal *rs = &r->signals[i];

		if (rs->pid != x->pid)
			continue;
		if (rs->fatal && !fatal)
			fatal = rs;
		if (rs->handled && (sig_is_crash(rs->sig, rs->code) || rs->sig == SIGABRT))
			handled = rs;
	}
	e->exited = x->has_status;
	e->status = x->status;
	e->sig = x->has_signal ? x->sig : 0;
	e->core_known = x->has_signal;
	e->core = x->core;
	/* the signal's details: the crash it handled before it exited, or the
	 * signal that killed it */
	if (e->exited ? !handled : !fatal || (e->sig && e->sig != fatal->sig))
		return true;
	view_of_recording(c, r, e->exited ? handled : fatal, &v);
	e->sig = v.sig;
	e->has_code = true;
	e->code = v.code;
	e->has_addr = v.has_addr;
	e->addr = v.addr;
	e->has_ip = v.has_ip;
	e->ip = v.ip;
	e->cause = v.cause;
	e->tid = v.tid;
	e->tid_unrecorded = (e->exited ? handled : fatal)->unrecorded;
	e->sender_pid = v.sender_pid;
	e->sender_comm = v.sender_comm && *v.sender_comm ? v.sender_comm : NULL;
	e->by_stop = !e->exited && fatal->by_stop;
	e->where = where_text(c, &v, &file, &line, where, size);
	if (e->where && v.inside && symbol_of(v.inside->func, &len)) {
		snprintf(inside, inside_size, "%.*s", (int)len, symbol_of(v.inside->func, &len));
		e->inside = inside;
	}
	return true;
}

/* Where the trace of process PID of R, which ended, stops short of its end:
 * "; its trace ends 13.204 ms before ..." into BUF when its exit is in no
 * snapshot (the recorder saw it at R's end_ns: perf read the last snapshot
 * that holds it before), else "". */
static const char *short_of_end(const struct conv *c, const struct recording *r, int64_t pid,
				char *buf, size_t size)
{
	uint64_t last;

	buf[0] = 0;
	if (!conv_process_end(c, pid, &last) && last && r->end_ns > last)
		snprintf(buf, size, "; its trace ends %.3f ms before the recorder saw it end "
			 "(its exit is in no snapshot): what it ran last is in none",
			 (double)(r->end_ns - last) / 1e6);
	return buf;
}

/* How the program of R that exited after the recording's end (its exit's
 * "after_end") did, after its TEXT (sig_ending_text()), into BUF (SIZE
 * bytes): what ended the recording first, whether by itself or at the
 * recorder's SIGTERM, and whether the trace holds its end (its exit record
 * is in the last snapshot when it came before perf stopped recording). */
static const char *after_end_text(const struct conv *c, const struct recording *r,
				  const struct recording_exit *x, const char *text, char *buf,
				  size_t size)
{
	uint64_t last;
	bool held = conv_process_end(c, x->pid, &last);
	int n;

	n = snprintf(buf, size, "the program %s after %s, %s: the trace holds %s", text,
		     record_end_said(r->end), x->sigterm ? "at the SIGTERM snaptrace-record then sent it"
		     : "by itself while perf stopped", held ? "its end" : "none of its end");
	if (!held && last && r->end_ns > last && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; its trace ends %.3f ms before the recording's "
			 "end", (double)(r->end_ns - last) / 1e6);
	return buf;
}

/* Says LINE: on stderr when PRINT, else as the trace's "ended" info. */
static void ending_said(struct conv *c, bool print, const char *line)
{
	if (print)
		diag_info("%s", line);
	else
		fxt_writer_info(c->w, fxt_writer_cstring(c->w, FXT_INFO_NAME),
				fxt_writer_cstring(c->w, FXT_INFO_ENDED), fxt_writer_cstring(c->w, line));
}

/* The program R launched ran on when --duration ended the recording (no
 * exit listed): the trace stops there, and the recorder then ended it
 * (target.h); says so into LINE (SIZE bytes), with how far the trace
 * reaches, else returns false. (A trigger or Ctrl-C is the moment the user
 * chose; a duration may well come before the program's end: trial 13.) */
static bool ran_past_end(const struct conv *c, const struct recording *r, char *line,
			 size_t size)
{
	uint64_t last;

	if (!r->launched || !r->npids || recording_exit_listed(r, r->pids[0]) ||
	    r->end != RECORD_END_DURATION)
		return false;
	conv_process_end(c, r->pids[0], &last);
	snprintf(line, size, "the program still ran when --duration ended the recording, and "
		 "snaptrace-record then ended it: the trace holds none of its end");
	if (last && r->end_ns > last)
		snprintf(line + strlen(line), size - strlen(line), "; its trace ends %.3f ms before "
			 "the recording's end", (double)(r->end_ns - last) / 1e6);
	return true;
}

void conv_sigmarks_report(struct conv *c, bool print)
{
	size_t dirs = 0;

	for (size_t k = 0; k < c->nrecs; k++)
		dirs += c->recs[k]->dir != NULL;
	for (size_t k = 0; k < c->nrecs; k++) {
		const struct recording *r = c->recs[k];
		char past[PATH_MAX + 320];
		/* several recordings: each line says whose program it is */
		int m = dirs > 1 && r->dir ? snprintf(past, sizeof(past), "%s: ", r->dir) : 0;

		if (ran_past_end(c, r, past + m, sizeof(past) - (size_t)m))
			ending_said(c, print, past);

		for (size_t i = 0; i < r->nexits; i++) {
			char text[1024], line[PATH_MAX + 1536], where[512], inside[256], tail[160];
			struct sig_ending e;
			int n = 0;

			/* the recorder's SIGTERM: ran_past_end()'s line, or the moment asked for */
			if (recording_exit_by_recorder(&r->exits[i]) ||
			    !ending_of(c, r, &r->exits[i], &e, where, sizeof(where), inside,
				       sizeof(inside)))
				continue;
			sig_ending_text(&e, text, sizeof(text));
			short_of_end(c, r, r->exits[i].pid, tail, sizeof(tail));
			/* several recordings: each line says whose program it is */
			if (dirs > 1 && r->dir)
				n = snprintf(line, sizeof(line), "%s: ", r->dir);
			if (r->launched && r->exits[i].after_end)
				after_end_text(c, r, &r->exits[i], text, line + n, sizeof(line) - (size_t)n);
			else if (r->launched)
				snprintf(line + n, sizeof(line) - (size_t)n, "the program %s%s", text,
					 tail);
			else
				snprintf(line + n, sizeof(line) - (size_t)n, "process %" PRId64 " %s%s",
					 r->exits[i].pid, text, tail);
			ending_said(c, print, line);
		}
	}
}

void conv_sigmarks_free(struct conv *c)
{
	for (size_t i = 0; i < c->nsignals_seen; i++)
		free(c->signals_seen[i].frames);
	free(c->signals_seen);
	c->signals_seen = NULL;
	c->nsignals_seen = c->capsignals_seen = 0;
}
