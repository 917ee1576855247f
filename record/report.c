/* SPDX-License-Identifier: MIT */
/*
 * report: writes OUTDIR/record.json, the account of one recording, in the
 * format common/record_json.h defines.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"
#include "escape.h"
#include "events.h"
#include "funcspec.h"
#include "outpath.h"
#include "perfdata.h"
#include "procfs.h"
#include "report.h"
#include "signals.h"

#define REPORT_NAME RECORD_JSON_FILE

static void json_str_array(FILE *f, char *const *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		esc_json_string(f, v[i]);
	}
	fputc(']', f);
}

/* A duration in ns, or null for an empty histogram H. */
static void ns_or_null(FILE *f, const struct hist *h, uint64_t v)
{
	if (h->total)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

/* "measure": the --measure functions' calls (measure.h). */
/* ', "name": NAME': LOC's symbol as perf names its frames
 * (demangle_frame_name: without the parameters, nor a template's return
 * type), the name the converter draws the function's calls with; a
 * function without one (a stripped file's, from its unwind table) by its
 * start (funcspec_unnamed); "" for an address in no function. */
static void write_frame_name(FILE *f, const struct rec_trigger_loc *loc)
{
	char name[512];

	if (loc->symbol[0] || !loc->func_vaddr)
		demangle_frame_name(loc->symbol, name, sizeof(name));
	else
		funcspec_unnamed(loc->func_vaddr, name, sizeof(name));
	fputs(", \"name\": ", f);
	esc_json_string(f, name);
}

/* ", "calls_unrecorded": N, "threads_unrecorded": [TID, ...]" of U (unrecorded.h). */
static void write_unrecorded(FILE *f, const struct rec_unrecorded *u)
{
	fprintf(f, ", \"calls_unrecorded\": %" PRIu64 ", \"threads_unrecorded\": [", u->n);
	for (int i = 0; i < u->ntids; i++)
		fprintf(f, "%s%d", i ? ", " : "", (int)u->tids[i]);
	fputs("]", f);
}

static void write_measures(FILE *f, const struct rec_session *s)
{
	fputs("  \"measure\": [", f);
	for (int i = 0; i < s->nmeasures; i++) {
		const struct rec_measure *m = &s->measures[i];
		const struct rec_call_stats *st = &m->st;
		const struct rec_slowcall *match = m->shared ? &s->slow : &m->match;
		const struct hist *h = &st->hist;
		struct rec_call slow[REC_MEASURE_SLOWEST];
		int nslow = rec_call_stats_slowest(st, slow);
		static const struct { const char *key; double p; } pct[] = {
			{ "p50_ns", 50 }, { "p90_ns", 90 }, { "p99_ns", 99 },
		};
		uint64_t from = 0, below = 0, n = 0;

		fprintf(f, "%s\n    {\"spec\": ", i ? "," : "");
		esc_json_string(f, m->spec);
		fputs(", \"symbol\": ", f);
		esc_json_string(f, m->loc.symbol);
		write_frame_name(f, &m->loc);
		fputs(", \"file\": ", f);
		esc_json_string(f, m->loc.file);
		fprintf(f, ", \"vaddr\": %" PRIu64 ", \"file_offset\": %" PRIu64 ", \"calls\": %"
			PRIu64 ", \"total_ns\": %" PRIu64 ", \"min_ns\": ", m->loc.vaddr,
			m->loc.file_offset, st->calls, st->total_ns);
		ns_or_null(f, h, h->min);
		for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
			fprintf(f, ", \"%s\": ", pct[k].key);
			ns_or_null(f, h, hist_percentile(h, pct[k].p));
		}
		fputs(", \"max_ns\": ", f);
		ns_or_null(f, h, h->max);
		fputs(",\n     \"histogram\": [", f);
		/* a bucket per power of two that has calls */
		for (uint32_t b = 0; b < h->n; b++) {
			uint64_t lo2, hi2;

			if (!h->counts[b])
				continue;
			hist_bucket_pow2(h->lo + b, &lo2, &hi2);
			if (n && lo2 != from) {
				fprintf(f, "[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "], ", from, below, n);
				n = 0;
			}
			from = lo2;
			below = hi2;
			n += h->counts[b];
		}
		if (n)
			fprintf(f, "[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", from, below, n);
		fputs("],\n     \"slowest\": [", f);
		for (int k = 0; k < nslow; k++)
			fprintf(f, "%s{\"pid\": %d, \"tid\": %d, \"entry_ns\": %" PRIu64
				", \"duration_ns\": %" PRIu64 "%s}", k ? ", " : "", (int)slow[k].pid,
				(int)slow[k].tid, slow[k].entry_ns, slow[k].duration_ns,
				slow[k].thrown ? ", \"left_by\": \"exception\"" : "");
		fprintf(f, "],\n     \"calls_thrown\": %" PRIu64 ", \"calls_tail\": %" PRIu64
			", \"calls_tail_at_jump\": %" PRIu64 ", \"calls_unended\": %" PRIu64
			", \"returns_unmatched\": %" PRIu64 ", \"entries_untracked\": %"
			PRIu64 ", \"samples_lost\": %" PRIu64 ", \"first_second_calls\": %"
			PRIu64, match->thrown, match->tail, match->tail_at_jump, match->unended,
			match->unmatched, match->untracked,
			m->shared ? s->trig.lost : m->trig.lost, st->first_second);
		write_unrecorded(f, &match->unrecorded);
		fputs(", \"cost_ns\": ", f);
		if (s->measure_cost_ns)
			fprintf(f, "%" PRIu64, s->measure_cost_ns);
		else
			fputs("null", f);
		fputs(", \"calls_file\": ", f);
		if (s->calls_made && st->written > st->dropped)
			fprintf(f, "\"%s\"", REC_MEASURE_CALLS_FILE);
		else
			fputs("null", f);
		fprintf(f, ", \"calls_written\": %" PRIu64 ", \"calls_dropped\": %" PRIu64
			", \"shared\": %s}", st->written - st->dropped, st->dropped,
			m->shared ? "true" : "false");
	}
	fputs(s->nmeasures ? "\n  ],\n" : "],\n", f);
}

/* The --event events: each as given, and how it was sampled (a period, or
 * a frequency: events.h REC_EVENT_FREQ). */
static void write_events(FILE *f, const struct rec_session *s)
{
	fputs("  \"events\": [", f);
	for (int i = 0; i < s->o->nevents; i++) {
		const struct rec_event *ev = &s->o->events[i];
		char how[64];
		bool freq = !ev->period && !rec_event_tracepoint(ev);

		fprintf(f, "%s{\"spec\": ", i ? ", " : "");
		esc_json_string(f, ev->spec);
		fprintf(f, ", \"period\": ");
		if (rec_event_own_sampling(ev))
			fputs("null, \"freq\": null", f);	/* its terms' */
		else if (freq)
			fprintf(f, "null, \"freq\": %d", REC_EVENT_FREQ);
		else
			fprintf(f, "%llu, \"freq\": null",
				(unsigned long long)(ev->period ? ev->period : 1));
		fputs(", \"sampling\": ", f);
		esc_json_string(f, rec_event_sampling(ev, how, sizeof(how)));
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void write_trigger(FILE *f, const struct rec_session *s)
{
	if (s->sig_trigger) {
		fputs("  \"trigger\": {\"spec\": ", f);
		esc_json_string(f, s->loc.spec);
		fputs(", \"mechanism\": \"signal\", \"file\": \"\", \"symbol\": \"\", "
		      "\"file_offset\": 0, \"slower_than_ns\": null, \"tsc\": null},\n", f);
		return;
	}
	if (!s->have_trigger) {
		fputs("  \"trigger\": null,\n", f);
		return;
	}
	fputs("  \"trigger\": {\"spec\": ", f);
	esc_json_string(f, s->loc.spec);
	fputs(", \"mechanism\": ", f);
	esc_json_string(f, rec_mechanism_name(s->mech));
	fputs(", \"file\": ", f);
	esc_json_string(f, s->loc.file);
	fputs(", \"symbol\": ", f);
	esc_json_string(f, s->loc.symbol);
	write_frame_name(f, &s->loc);
	fprintf(f, ", \"vaddr\": %" PRIu64 ", \"file_offset\": %" PRIu64 ", \"slower_than_ns\": ",
		s->loc.vaddr, s->loc.file_offset);
	if (!s->o->slower_than_ns)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64 ", \"calls\": %" PRIu64 ", \"calls_slower\": %" PRIu64
			", \"calls_thrown\": %" PRIu64 ", \"calls_slower_thrown\": %" PRIu64
			", \"calls_tail\": %" PRIu64 ", \"calls_tail_at_jump\": %" PRIu64
			", \"calls_unended\": %" PRIu64 ", \"returns_unmatched\": %" PRIu64
			", \"entries_untracked\": %" PRIu64 ", \"samples_lost\": %" PRIu64,
			s->o->slower_than_ns, s->slow.calls, s->slow.slow, s->slow.thrown,
			s->slow.slow_thrown, s->slow.tail, s->slow.tail_at_jump, s->slow.unended,
			s->slow.unmatched, s->slow.untracked, s->trig.lost);
	if (s->o->slower_than_ns)
		write_unrecorded(f, &s->slow.unrecorded);
	fputs(", \"tsc\": ", f);
	if (s->tsc.known)
		fprintf(f, "{\"time_shift\": %u, \"time_mult\": %u, \"time_zero\": %" PRIu64
			"}},\n", (unsigned)s->tsc.time_shift, (unsigned)s->tsc.time_mult,
			s->tsc.time_zero);
	else
		fputs("null},\n", f);
}

static void write_arming(FILE *f, const struct rec_session *s)
{
	static const char *const by[] = {
		[REC_ARM_AT_ONCE] = "at-once", [REC_ARM_RING] = "ring", [REC_ARM_OPTION] = "option",
	};

	if (!s->have_trigger && !s->sig_trigger) {
		fputs("  \"arming\": null,\n", f);
		return;
	}
	fprintf(f, "  \"arming\": {\"by\": \"%s\", \"after_ms\": %.3f, \"fill_ms\": %.3f},\n",
		by[s->arm.by], s->arm.after_ms, s->arm.fill_ms);
}

/* ", \"KEY\": N" or ", \"KEY\": null" for a perf-clock time 0 (unknown). */
static void json_time(FILE *f, const char *key, uint64_t ns)
{
	if (ns)
		fprintf(f, ", \"%s\": %" PRIu64, key, ns);
	else
		fprintf(f, ", \"%s\": null", key);
}

/* ", \"KEY\": N" of a value that may be unknown (null). */
static void json_u64_or_null(FILE *f, const char *key, bool known, uint64_t v)
{
	if (known)
		fprintf(f, ", \"%s\": %" PRIu64, key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

static void write_signals(FILE *f, const struct rec_session *s)
{
	char name[SIG_NAME_MAX];

	fputs("  \"signals\": [", f);
	for (int i = 0; i < s->nsignals; i++) {
		const struct rec_signal_log *l = &s->signals[i];
		const char *code = sig_code_name(l->s.sig, l->s.code);

		fprintf(f, "%s\n    {\"pid\": %d, \"tid\": %d, \"time_ns\": %" PRIu64
			", \"signal\": %d, \"name\": \"%s\", \"code\": %d, \"code_name\": ",
			i ? "," : "", (int)l->s.pid, (int)l->s.tid, l->s.time_ns, l->s.sig,
			sig_name(l->s.sig, name, sizeof(name)), l->s.code);
		if (code)
			fprintf(f, "\"%s\"", code);
		else
			fputs("null", f);
		fprintf(f, ", \"errno\": %d, \"handled\": %s, \"fatal\": %s, \"by_stop\": %s"
			", \"unrecorded\": %s", l->s.err, l->s.handled ? "true" : "false",
			l->fatal ? "true" : "false", l->by_stop ? "true" : "false",
			rec_recorded_has(&s->recorded, l->s.tid) ? "false" : "true");
		json_u64_or_null(f, "ip", l->s.has_ip, l->s.ip);
		json_u64_or_null(f, "addr", l->s.has_addr, l->s.addr);
		fputs(", \"cause\": ", f);
		if (l->s.cause)
			esc_json_string(f, l->s.cause);
		else
			fputs("null", f);
		if (l->s.sender_pid) {
			fprintf(f, ", \"sender\": {\"pid\": %d, \"tid\": %d, \"comm\": ",
				(int)l->s.sender_pid, (int)l->s.sender_tid);
			esc_json_string(f, l->s.sender_comm);
			fputc('}', f);
		} else {
			fputs(", \"sender\": null", f);
		}
		json_u64_or_null(f, "snapshot", l->snapshot >= 0, (uint64_t)l->snapshot);
		fputc('}', f);
	}
	fprintf(f, "%s  \"signals_dropped\": %" PRIu64 ",\n  \"exits\": [",
		s->nsignals ? "\n  ],\n" : "],\n", s->signals_dropped);
	for (int i = 0, n = 0; i < s->target.npids; i++) {
		const struct rec_exit *e = &s->exits[i];
		bool sig = e->has_status && WIFSIGNALED(e->status);

		if (!e->ended)
			continue;
		fprintf(f, "%s{\"pid\": %d", n++ ? ", " : "", (int)s->target.pids[i]);
		json_u64_or_null(f, "status", e->has_status && WIFEXITED(e->status),
				 e->has_status ? (uint64_t)WEXITSTATUS(e->status) : 0);
		json_u64_or_null(f, "signal", sig, sig ? (uint64_t)WTERMSIG(e->status) : 0);
		if (sig)
			fprintf(f, ", \"name\": \"%s\", \"core\": %s",
				sig_name(WTERMSIG(e->status), name, sizeof(name)),
				WCOREDUMP(e->status) ? "true" : "false");
		else
			fputs(", \"name\": null, \"core\": null", f);
		fprintf(f, ", \"after_end\": %s, \"sigterm\": %s}", e->after_end ? "true" : "false",
			e->sigterm ? "true" : "false");
	}
	fputs("],\n", f);
}

/* The kernel's boot id (record.json's "boot_id"), or null when unreadable. */
static void write_boot_id(FILE *f)
{
	char id[64];

	if (rec_proc_read(PROC_BOOT_ID, id, sizeof(id)) <= 0) {
		fputs("null", f);
		return;
	}
	id[strcspn(id, "\n")] = '\0';
	esc_json_string(f, id);
}

/* Hit H as one object of "hits" ("deferred" with DEFERRED) or of
 * "coalesced_hits", after SEP. */
static void write_hit(FILE *f, const struct rec_session *s, const struct rec_hit_log *h,
		      const char *sep, bool deferred)
{
	fprintf(f, "%s\n    {\"pid\": %d, \"tid\": %d, \"time_ns\": %" PRIu64, sep,
		(int)h->hit.pid, (int)h->hit.tid, h->hit.time_ns);
	if (s->o->slower_than_ns) {
		fprintf(f, ", \"entry_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
			"%s", h->hit.entry_ns, h->hit.duration_ns,
			h->hit.thrown ? ", \"left_by\": \"exception\"" : "");
		if (h->hit.has_caller)  /* as the calls file's CALLER column */
			fprintf(f, ", \"caller\": %" PRId64, h->hit.caller_off);
		/* the call's samples in more than one snapshot (hitholder.h) */
		if (h->call_first >= 0 && h->call_last != h->call_first)
			fprintf(f, ", \"call_first_snapshot\": %d, \"call_last_snapshot\": %d",
				h->call_first, h->call_last);
		else
			fputs(", \"call_first_snapshot\": null, \"call_last_snapshot\": null", f);
	}
	if (h->hit.has_args)
		fprintf(f, ", \"ip\": %" PRIu64 ", \"args\": [%" PRIu64 ", %" PRIu64 "]",
			h->hit.ip, h->hit.args[0], h->hit.args[1]);
	else
		fputs(", \"ip\": null, \"args\": null", f);
	fputs(", \"snapshot\": ", f);
	if (h->snapshot >= 0)
		fprintf(f, "%d", h->snapshot);
	else
		fputs("null", f);
	if (deferred)
		fprintf(f, ", \"deferred\": %s", h->deferred ? "true" : "false");
	fputc('}', f);
}

/* "hits" (each hit that took or waits for a snapshot), the counts of all,
 * and "coalesced_hits" (those of the coalesced kept that a snapshot holds). */
static void write_hits(FILE *f, const struct rec_session *s)
{
	int n = 0;

	fputs("  \"hits\": [", f);
	for (int i = 0; i < s->nhits; i++)
		write_hit(f, s, &s->hits[i], i ? "," : "", true);
	fprintf(f, "%s  \"hits_total\": %" PRIu64 ", \"hits_before_armed\": %" PRIu64
		", \"hits_coalesced\": %" PRIu64 ", \"hits_lost\": %" PRIu64
		", \"hits_unrecorded\": %" PRIu64 ",\n  \"children_unrecorded\": %" PRIu64
		", \"abort_probes\": %d,\n",
		s->nhits ? "\n  ],\n" : "],\n", s->pol.seen, s->pol.before_armed,
		s->pol.coalesced, s->trig.lost, s->pol.unrecorded, s->children_unrecorded,
		s->abort_probes);
	fputs("  \"coalesced_hits\": [", f);
	for (int i = 0; i < s->ncoalesced; i++)
		if (s->coalesced[i].snapshot >= 0)
			write_hit(f, s, &s->coalesced[i], n++ ? "," : "", false);
	fputs(n ? "\n  ],\n" : "],\n", f);
}

static void write_snapshots(FILE *f, const struct rec_session *s)
{
	fputs("  \"snapshots\": [", f);
	for (int i = 0; i < s->nsnaps; i++) {
		fprintf(f, "%s\n    {\"file\": ", i ? "," : "");
		esc_json_string(f, s->snaps[i].file);
		fprintf(f, ", \"reason\": \"%s\"", record_end_name(s->snaps[i].reason));
		json_time(f, "time_ns", s->snaps[i].time_ns);
		json_time(f, "live_ns", s->snaps[i].live_ns);
		fprintf(f, ", \"freeze_ms\": %.3f, \"ms\": %.3f, \"problem\": ",
			s->snaps[i].frozen_ms - s->snaps[i].requested_ms,
			s->snaps[i].done_ms - s->snaps[i].requested_ms);
		if (s->snaps[i].problem[0])
			esc_json_string(f, s->snaps[i].problem);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs(s->nsnaps ? "\n  ],\n" : "],\n", f);
}

static void write_body(FILE *f, const struct rec_session *s)
{
	const struct perfmap_user *users;
	size_t nusers;
	char ver[32];

	fputs("{\n  \"format\": \"" RECORD_JSON_FORMAT "\",\n  \"command_line\": ", f);
	json_str_array(f, s->o->argv, s->o->argc);
	fputs(",\n  \"perf\": {\"path\": ", f);
	esc_json_string(f, s->h->perf_path);
	fputs(", \"version\": ", f);
	esc_json_string(f, perf_version_str(&s->h->perf_version, ver, sizeof(ver)));
	fputs(", \"command\": ", f);
	json_str_array(f, s->plan.argv, s->plan.argc);
	fputs("},\n  \"boot_id\": ", f);
	write_boot_id(f);
	fputs(",\n  \"mode\": ", f);
	esc_json_string(f, s->plan.mode == REC_MODE_PT ? "pt" : "sampling");
	fputs(",\n  \"event\": ", f);
	esc_json_string(f, s->plan.event);
	fputs(",\n  \"unwinder\": ", f);
	if (s->plan.unwinder)
		esc_json_string(f, s->plan.unwinder);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"launched\": %s,\n  \"executable\": ",
		s->target.launched ? "true" : "false");
	esc_json_string(f, s->exe);
	fputs(",\n  \"pids\": [", f);
	for (int i = 0; i < s->target.npids; i++)
		fprintf(f, "%s%d", i ? ", " : "", (int)s->target.pids[i]);
	fputs("],\n  \"uids\": [", f);
	users = rec_perfmaps_users(&s->maps, &nusers);
	for (size_t i = 0; i < nusers; i++) {
		const struct perfmap_user *u = &users[i];

		fprintf(f, "%s{\"pid\": %d, \"uid\": %u, \"euid\": %u", i ? ", " : "", (int)u->pid,
			(unsigned)u->uid[0], (unsigned)u->uid[1]);
		if (u->born > 0)
			fprintf(f, ", \"born\": %lld", (long long)u->born);
		fputc('}', f);
	}
	fputs("],\n  \"threads\": [", f);
	for (int i = 0; i < s->nthreads; i++) {
		const struct rec_thread_info *ti = &s->threads[i];

		fprintf(f, "%s\n    {\"pid\": %d, \"tid\": %d, \"comm\": ", i ? "," : "",
			(int)ti->pid, (int)ti->tid);
		esc_json_string(f, ti->comm);
		if (isalpha((unsigned char)ti->state)) {	/* attached: what it did at start_ns */
			fprintf(f, ", \"state\": \"%c\", \"wchan\": ", ti->state);
			esc_json_string(f, ti->wchan);
		}
		fputc('}', f);
	}
	fputs(s->nthreads ? "\n  ],\n" : "],\n", f);
	write_trigger(f, s);
	write_events(f, s);
	write_measures(f, s);
	write_arming(f, s);
	write_hits(f, s);
	write_signals(f, s);
	write_snapshots(f, s);
	if (s->o->others_mapped) {
		fputs("  \"buildids\": ", f);
		rec_mapids_write(f, &s->mapids);
		fputs(",\n", f);
	}
	if (s->binaries_kept >= 0)
		fprintf(f, "  \"binaries\": \"%s\", \"binaries_kept\": %d,\n", PERFDATA_BINARIES_DIR,
			s->binaries_kept);
	else
		fputs("  \"binaries\": null, \"binaries_kept\": null,\n", f);
	fprintf(f, "  \"end\": \"%s\",\n  \"error\": ", record_end_name(s->end));
	if (s->failed) {
		char why[sizeof(s->error) + sizeof(s->said)];

		/* with perf's words, on one line */
		snprintf(why, sizeof(why), "%s %s", s->error, s->said);
		for (char *c = why; *c; c++)
			if (*c == '\n')
				*c = ' ';
		esc_json_string(f, why);
	}
	else
		fputs("null", f);
	fputs(",\n  \"end_ns\": ", f);
	if (s->end_ns)
		fprintf(f, "%" PRIu64, s->end_ns);
	else
		fputs("null", f);
	fputs(",\n  \"start_ns\": ", f);
	if (s->start_ns)
		fprintf(f, "%" PRIu64, s->start_ns);
	else
		fputs("null", f);
	fputs(",\n  \"ready_ms\": ", f);
	if (s->ready_ms > 0)
		fprintf(f, "%.3f", s->ready_ms - s->start_ms);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"total_ms\": %.3f\n}\n", rec_now_ms() - s->start_ms);
}

/* Writes the report of S over the file open as FD. Returns 0 or a negative errno. */
static int write_report(int fd, const struct rec_session *s)
{
	int dup_fd, err = 0;
	FILE *f;

	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) ||
	    (dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	f = fdopen(dup_fd, "w");
	if (!f) {
		close(dup_fd);
		return -ENOMEM;
	}
	errno = 0;
	write_body(f, s);
	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* Creates record.json into S->report_fd unless it is open. Returns 0 or a negative errno. */
static int report_file(struct rec_session *s)
{
	int fd = s->report_fd >= 0 ? s->report_fd : outpath_create_at(s->outdir_fd, REPORT_NAME);

	s->report_fd = fd < 0 ? -1 : fd;
	return fd < 0 ? fd : 0;
}

int rec_report_reserve(struct rec_session *s)
{
	int err = report_file(s);

	if (!err)
		err = write_report(s->report_fd, s);
	if (err)
		return err;
	/* blocks past the end: the file stays this report until the final one */
	err = fallocate(s->report_fd, FALLOC_FL_KEEP_SIZE, 0, REC_REPORT_RESERVE) ? errno : 0;
	/* a file system without fallocate still gets its record.json at the end */
	return err && err != EOPNOTSUPP ? -err : 0;
}

void rec_report_unreserve(struct rec_session *s)
{
	if (s->report_fd >= 0)
		close(s->report_fd);
	s->report_fd = -1;
	unlinkat(s->outdir_fd, REPORT_NAME, 0);
}

int rec_report_write(struct rec_session *s)
{
	int err = report_file(s);

	if (err)
		return err;
	err = write_report(s->report_fd, s);
	if (close(s->report_fd) && !err)
		err = -errno;
	s->report_fd = -1;
	return err;
}
