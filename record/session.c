/* SPDX-License-Identifier: MIT */
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "events.h"
#include "keepbin.h"
#include "outpath.h"
#include "perfclock.h"
#include "perfdata.h"
#include "perfmaps.h"
#include "perfring.h"
#include "procfs.h"
#include "report.h"
#include "signals.h"
#include "snapshot.h"

#define READY_TIMEOUT_MS 30000
#define STOP_TIMEOUT_MS 30000
#define TARGET_EXIT_MS 2000     /* the target's exit after perf saw it */
#define SLOW_POLL_MS 5      /* a slow-call trigger's rings are read this often: the
			     * longest a slow call's return waits to be seen */

/* Reaps every child that exited: perf, the launched target, or strays. */
static void reap_children(struct rec_session *s)
{
	for (;;) {
		int status;
		pid_t pid = rec_target_wait(&s->target, -1, &status, WNOHANG);

		if (pid <= 0)
			return;
		if (pid == s->perf.pid) {
			s->perf.exited = true;
			s->perf.status = status;
		} else {
			rec_target_reaped(&s->target, pid, status);
		}
	}
}

/* Opens the probes of each --measure function of its own (disabled). */
static int open_measures(struct rec_session *s)
{
	for (int i = 0; i < s->nmeasures; i++) {
		struct rec_measure *m = &s->measures[i];
		const char *file = m->loc.probe;
		int err;

		if (m->shared) {   /* the slow-call trigger's calls are its calls */
			s->slow.every = rec_measure_call;
			s->slow.every_arg = m;
			continue;
		}
		m->match.recorded = &s->recorded;
		err = rec_measure_open(m, s->h->uprobe_type, file, s->target.pids, s->target.npids);
		if (err) {
			snprintf(s->error, sizeof(s->error), "--measure %.200s: cannot open its "
				 "uprobes: %s", m->spec, strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Reads the calls of every measured function; the first time a second
 * has passed since a function's first call, warns when measuring it is
 * estimated to take more than REC_MEASURE_LOAD of a CPU (FINAL: the
 * recording ends, with what it saw).
 */
static void read_measures(struct rec_session *s, bool final)
{
	for (int i = 0; i < s->nmeasures; i++) {
		struct rec_measure *m = &s->measures[i];
		double seen = m->st.calls ? rec_now_ms() - m->first_ms : 0;
		double load;
		char cost[160];

		rec_measure_read(m);
		rec_measure_watch_map(m, s->target.pids, s->target.npids);
		if (m->warned || !m->st.calls || (seen < 1000 + SLOW_POLL_MS && !final))
			continue;
		m->warned = true;
		load = rec_measure_load(m, s->measure_cost_ns, seen);
		if (load > REC_MEASURE_LOAD)
			diag_warn("--measure %s: %" PRIu64 " calls in its first %.0f ms at %s "
				  "each take at least %.0f ms of CPU a second: measuring it slows "
				  "the program; measure a caller that is called less often", m->spec,
				  m->st.first_second, seen < 1000 ? seen : 1000,
				  rec_measure_cost_words(s->measure_cost_ns, cost, sizeof(cost)),
				  load * 1000);
	}
}

/* Appends the calls measured and not written yet to DIR/REC_MEASURE_CALLS_FILE
 * (created in the directory held open at the first call to write, never
 * over another file: outpath_create_at()). */
static void write_calls(struct rec_session *s)
{
	char path[PATH_MAX + 32];
	bool any = false;
	int fd;

	for (int i = 0; i < s->nmeasures; i++)
		any |= s->measures[i].st.written < s->measures[i].st.calls;
	if (!any || s->calls_failed)
		return;
	if (!s->calls) {
		snprintf(path, sizeof(path), "%s/%s", s->outdir, REC_MEASURE_CALLS_FILE);
		fd = outpath_create_at(s->outdir_fd, REC_MEASURE_CALLS_FILE);
		if (fd < 0)
			errno = -fd;
		s->calls = fd >= 0 ? fdopen(fd, "w") : NULL;
		s->calls_made = fd >= 0;
		if (!s->calls || fprintf(s->calls, "%s\n", REC_MEASURE_CALLS_HEADER) < 0) {
			diag_warn("%s: cannot write it (%s): the measured calls will not be drawn",
				  path, strerror(errno));
			if (s->calls)
				fclose(s->calls);
			else if (fd >= 0)
				close(fd);
			s->calls = NULL;
			s->calls_failed = true;
			return;
		}
	}
	for (int i = 0; i < s->nmeasures; i++)
		if (rec_call_stats_write(&s->measures[i].st, s->calls, i))
			s->calls_failed = true;
	if (fflush(s->calls) || s->calls_failed) {
		diag_warn("%s/%s: cannot write it: some measured calls will not be drawn",
			  s->outdir, REC_MEASURE_CALLS_FILE);
		s->calls_failed = true;
	}
}

/* Takes a snapshot for REASON (rec_snapshot_take()) with the calls measured
 * up to now written first, for the slices of this snapshot. */
static int snapshot_now(struct rec_session *s, enum record_end reason)
{
	read_measures(s, false);
	write_calls(s);
	return rec_snapshot_take(s, reason);
}

/* Monotonic ns now (CLOCK_MONOTONIC, as rec_now_ms()): the hit policy's clock. */
static uint64_t mono_ns(void)
{
	return (uint64_t)(rec_now_ms() * 1e6);
}

/* A hit in a thread the recording leaves out (hitpolicy.h): said once a recording. */
static void warn_unrecorded(const struct rec_session *s, const struct rec_hit *hit)
{
	char comm[32], name[40] = "";

	if (rec_proc_comm(hit->pid, hit->tid, comm, sizeof(comm)) == 0)
		snprintf(name, sizeof(name), " (%s)", comm);
	diag_warn("trigger hit in thread %d%s of process %d, which is not recorded "
		  "(only %s %d is): ignored, as its snapshot would not show it; record "
		  "it with --multi-thread", (int)hit->tid, name, (int)hit->pid,
		  s->target.tid ? "thread" : "the main thread",
		  (int)(s->target.tid ? s->target.tid : hit->pid));
}

/* Whether the trigger is armed: hits take snapshots (arming.h). */
static bool armed(const struct rec_session *s)
{
	return rec_hitpolicy_armed(&s->pol, mono_ns());
}

/* Logs HIT (room reserved) as the one whose snapshot is to be taken (S->want). */
static struct rec_hit_log *want_hit(struct rec_session *s, const struct rec_hit *hit)
{
	struct rec_hit_log *log = &s->hits[s->nhits];

	memset(log, 0, sizeof(*log));
	log->hit = *hit;
	log->seen_ms = rec_now_ms();
	log->snapshot = log->said = log->call_first = log->call_last = -1;
	s->want = s->nhits++;
	return log;
}

/* Keeps coalesced hit HIT (a recorded thread's, which took no snapshot of
 * its own) while fewer than RECORD_COALESCED_MAX are kept: the snapshot
 * holding it is found with the hits' (rec_snapshot_hits_held()), and the
 * trace draws it there. */
static void keep_coalesced(struct rec_session *s, const struct rec_hit *hit)
{
	if (s->ncoalesced >= RECORD_COALESCED_MAX ||
	    array_reserve((void **)&s->coalesced, &s->coalesced_cap, (size_t)s->ncoalesced + 1,
			  sizeof(*s->coalesced)))
		return;
	s->coalesced[s->ncoalesced++] = (struct rec_hit_log){
		.hit = *hit, .seen_ms = rec_now_ms(), .snapshot = -1, .said = -1,
		.call_first = -1, .call_last = -1,
	};
}

/* Counts a hit and acts on the hit policy's verdict (hitpolicy.h): logs it
 * as S->want when it is to take a snapshot, now or once armed. */
static void handle_hit(struct rec_session *s, const struct rec_hit *hit)
{
	struct rec_hit_now now = {
		.mono_ns = mono_ns(),
		.recorded = rec_recorded_has(&s->recorded, hit->tid),
		.ended = s->end != RECORD_END_NONE,
		.waiting = s->want >= 0,
		.logged = s->nhits > 0,
		.fatal = s->fatal >= 0,
		.room = !array_reserve((void **)&s->hits, &s->hits_cap, (size_t)s->nhits + 1,
				 sizeof(*s->hits)),
	};

	switch (rec_hitpolicy_hit(&s->pol, hit->time_ns, &now)) {
	case REC_HIT_UNRECORDED:
		if (s->pol.unrecorded == 1)
			warn_unrecorded(s, hit);
		break;
	case REC_HIT_REPLACES:
		keep_coalesced(s, &s->hits[s->want].hit);
		s->hits[s->want].hit = *hit;
		s->hits[s->want].seen_ms = rec_now_ms();
		break;
	case REC_HIT_DEFERRED:
		want_hit(s, hit)->deferred = true;
		break;
	case REC_HIT_SNAPSHOT:
		want_hit(s, hit);
		break;
	case REC_HIT_COALESCED:
		if (now.room)
			keep_coalesced(s, hit);
		break;
	case REC_HIT_IGNORED:
		break;
	}
}

/* "in thread TID" of HIT, with the call's duration for a slow call, into BUF. */
static const char *hit_words(const struct rec_hit *hit, char *buf, size_t size)
{
	if (hit->duration_ns)
		snprintf(buf, size, "a call of %.3f ms in thread %d%s", hit->duration_ns / 1e6,
			 (int)hit->tid, hit->thrown ? " left by an exception" : "");
	else
		snprintf(buf, size, "in thread %d", (int)hit->tid);
	return buf;
}

/* Takes the snapshot S->want asks for, once none is in flight; a hit that
 * the last snapshot holds already (it came while that one was in flight)
 * takes none of its own. */
static void snapshot_wanted(struct rec_session *s)
{
	struct rec_hit_log *log = &s->hits[s->want];
	char what[80];
	int idx;

	if (s->inflight >= 0)
		return;
	s->want = -1;
	idx = rec_snapshot_read_after(s, log->hit.time_ns);
	/* numbered as record.json's hits and snapshots; the snapshot that
	 * holds a hit is known once the files are read, by one rule
	 * (hitholder.h: snapshot.c rec_snapshot_hits_held(); the summary says
	 * it: main.c print_hits()), and may be the one before the one it
	 * took, or another than the one in flight when it came: so this line
	 * names no holder, only what happened */
	if (idx >= 0 && s->o->multi_snapshot) {
		log->snapshot = log->said = idx;
		log->came_in_flight = true;
		diag_info("trigger hit %d: %s%s: came while snapshot %d was being written: no "
			  "snapshot of its own (the one that holds it is said at the end)",
			  (int)(log - s->hits), hit_words(&log->hit, what, sizeof(what)),
			  log->deferred ? " before it was armed" : "", idx);
		return;
	}
	/* a launched target ends with the recording: stop it right away */
	if (!s->o->multi_snapshot && s->target.launched && !s->target.exited)
		kill(s->target.pids[0], SIGSTOP);
	idx = snapshot_now(s, RECORD_END_TRIGGER);
	log->snapshot = idx;
	hit_words(&log->hit, what, sizeof(what));
	if (!s->o->multi_snapshot) {
		s->end = RECORD_END_TRIGGER;
		diag_info("trigger hit %d: %s%s; %s", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "",
			  idx >= 0 ? "snapshot taken" : "stopping perf");
	} else if (idx >= 0) {
		log->said = idx;
		diag_info("trigger hit %d: %s%s: taking snapshot %d", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "", idx);
	}
}

/* LOG, a hit that still waited for its snapshot (or the arming) when the
 * recording ended: its live line, as every hit of record.json has one,
 * said once the files are read, with the snapshot that holds it by the
 * one rule (hitholder.h: LOG->snapshot, as record.json and the summary
 * give it); TOOK: the snapshot perf's stop took for it (-1: none). */
static void hit_ended(struct rec_session *s, struct rec_hit_log *log, int took)
{
	char what[80];

	log->said = log->snapshot;
	log->came_in_flight = false;
	hit_words(&log->hit, what, sizeof(what));
	if (log->snapshot >= 0 && log->snapshot == took)
		diag_info("trigger hit %d: %s%s: the recording ended first: taking snapshot %d, "
			  "its last", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "", log->snapshot);
	else if (log->snapshot >= 0)
		diag_info("trigger hit %d: %s%s: the recording ended first: in snapshot %d, "
			  "which holds it", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "", log->snapshot);
	else
		diag_info("trigger hit %d: %s%s: the recording ended first, with no snapshot to "
			  "hold it", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "");
}

static void slow_call(const struct rec_hit *hit, void *arg)
{
	handle_hit(arg, hit);
}

/*
 * Reads what event IDX holds now. A hit is handled as it is read (bounded:
 * the hits arriving meanwhile wait for the next round); the samples of a
 * slow-call trigger go to S->slow, the ring drained.
 */
static void read_hits(struct rec_session *s, int idx)
{
	struct rec_trig_sample smp[256];
	int n, left = rec_trigger_ring_samples(&s->trig);

	do {
		n = rec_trigger_read(&s->trig, idx, smp, 256);
		left -= n;
		for (int i = 0; i < n; i++) {
			struct rec_hit hit = {
				.pid = smp[i].pid, .tid = smp[i].tid, .time_ns = smp[i].time_ns,
				.has_args = smp[i].has_args, .ip = smp[i].ip,
				.args = { smp[i].args[0], smp[i].args[1] },
			};

			if (s->o->slower_than_ns)
				rec_slowcall_add(&s->slow, &smp[i]);
			else
				handle_hit(s, &hit);
		}
	} while (s->o->slower_than_ns && n == 256 && left > 0);
}

/*
 * Reads every trigger event (the first NPOLL of them have their poll
 * results in POLL_FDS).
 * With a slow-call trigger, the samples read are matched after a second
 * pass (slowcall.h); those that still wait make S->slow.npending non-zero.
 */
static void read_triggers(struct rec_session *s, const struct pollfd *poll_fds, int npoll)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < s->trig.nev; i++) {
			if (i < npoll && (poll_fds[i].revents & POLLHUP))
				s->trig.ev[i].hup = true;
			read_hits(s, i);
		}
		if (!s->o->slower_than_ns || !rec_slowcall_pass(&s->slow, slow_call, s))
			return;
	}
}

/*
 * How a user stops this recording, for the line that says it once perf
 * records, into BUF of SIZE bytes (returns BUF): "Ctrl-C", or, when SIGINT
 * was ignored at start (a background job of a script: it stays ignored),
 * the first stop signal not ignored with the command that sends it
 * ("SIGTERM (kill PID)"), or "--duration or the program's exit" when all
 * three are ignored.
 */
static const char *stop_how(char *buf, size_t size)
{
	static const struct { int sig; const char *how; } ways[] = {
		{ SIGINT, "Ctrl-C" },
		{ SIGTERM, "SIGTERM (kill %d)" },
		{ SIGHUP, "SIGHUP (kill -HUP %d)" },
	};
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (!sig_ignored_at_start(ways[i].sig)) {
			snprintf(buf, size, ways[i].how, (int)getpid());
			return buf;
		}
	snprintf(buf, size, "--duration or the program's exit");
	return buf;
}

static void handle_signals(struct rec_session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap_children(s);
		} else if (s->end == RECORD_END_NONE) {
			s->end = RECORD_END_INTERRUPT;
			s->stop_signo = (int)si.ssi_signo;
			diag_info("%s: stopping", strsignal((int)si.ssi_signo));
		}
	}
}

/* Whether process PID already has a signal that ended it: the SIGKILL its
 * other threads get then is part of that end. */
static bool ended_by_signal(const struct rec_session *s, pid_t pid)
{
	for (int i = 0; i < s->nsignals; i++)
		if (s->signals[i].fatal && s->signals[i].s.pid == pid)
			return true;
	return false;
}

/*
 * The snapshot at signal LOG, which ends its process: before a core dump or
 * what runs meanwhile can overwrite the ring. A single-snapshot recording
 * then waits for the target's exit (a core dump may take long; the target
 * is never signalled), its end "signal".
 */
static void fatal_snapshot(struct rec_session *s, struct rec_signal_log *log)
{
	/* the recording ends already: the target's exit was seen before its
	 * signal was read (it came between the reading and the check of the
	 * exit); perf's stop takes the snapshot holding it, as a hit's */
	if (s->end != RECORD_END_NONE && (s->o->multi_snapshot || !s->nsnaps)) {
		log->snapshot = REC_SNAPSHOT_PENDING;
		return;
	}
	if (s->end != RECORD_END_NONE || (!s->o->multi_snapshot && s->nsnaps))
		return;
	if (s->inflight >= 0)
		rec_snapshot_wait(s, REC_SNAPSHOT_TIMEOUT_MS);
	/* REC_SNAPSHOT_PENDING: perf's stop takes it, the last snapshot
	 * (resolved with the hits' when perf has stopped); so also when
	 * this one failed: perf that follows the target ends with it (its
	 * control answers EPIPE) and writes its last file at that exit */
	log->snapshot = snapshot_now(s, RECORD_END_SIGNAL);
	if (log->snapshot == -1)
		log->snapshot = REC_SNAPSHOT_PENDING;
}

/* A signal delivered to a target (sigwatch.h): logged; a --trigger signal
 * is a hit; the first that ends a target takes a snapshot, unless it is the
 * recorder's own stop (Ctrl-C on the terminal reaches the program too). */
static void handle_target_signal(struct rec_session *s, const struct rec_signal *sg)
{
	bool fatal = !sg->handled && sig_fatal_by_default(sg->sig);
	struct rec_signal_log *log;
	int stop = s->stop_signo ? s->stop_signo : sig_stop_pending();

	if (s->sig_trigger == sg->sig) {
		struct rec_hit hit = { .pid = sg->pid, .tid = sg->tid, .time_ns = sg->time_ns,
				       .has_args = false, .ip = sg->ip };

		handle_hit(s, &hit);
	}
	if (fatal && ended_by_signal(s, sg->pid))
		return;
	if (s->nsignals >= REC_SIGNALS_MAX ||
	    array_reserve((void **)&s->signals, &s->signals_cap, (size_t)s->nsignals + 1,
		    sizeof(*s->signals))) {
		s->signals_dropped++;
		return;
	}
	log = &s->signals[s->nsignals++];
	memset(log, 0, sizeof(*log));
	log->s = *sg;
	log->snapshot = -1;
	log->fatal = fatal;
	log->by_stop = fatal && sg->sig == stop;
	if (!fatal || log->by_stop || s->fatal >= 0)
		return;
	s->fatal = s->nsignals - 1;
	fatal_snapshot(s, log);
}

/* Reads the signals the targets received since the last round. */
static void read_target_signals(struct rec_session *s)
{
	struct rec_signal sg[64];
	int n;

	if (!s->watch_signals)
		return;
	do {
		n = rec_sigwatch_read(&s->sig, sg, 64);
		for (int i = 0; i < n; i++)
			handle_target_signal(s, &sg[i]);
	} while (n == 64);
}

/*
 * perf has exited: perf notices the target's exit (its events hang up in
 * the kernel's do_exit) before the target can be reaped or shows as a
 * zombie, so the target gets TARGET_EXIT_MS to finish exiting. Returns the
 * end: the target's exit, or perf's death while the target runs.
 */
static enum record_end perf_exit_end(struct rec_session *s)
{
	double deadline = rec_now_ms() + TARGET_EXIT_MS;

	while (rec_target_alive(&s->target)) {
		if (rec_now_ms() >= deadline)
			return RECORD_END_PERF_DIED;
		poll(NULL, 0, 5);
	}
	return RECORD_END_EXIT;
}

/* One round of the main loop: waits for anything and handles it. */
static void loop_once(struct rec_session *s, double deadline)
{
	size_t want = 3 + (size_t)s->target.npids + (size_t)s->trig.nev + (size_t)s->sig.nev;
	int n = 0, first_trig, first_pidfd, first_sig, timeout = -1, room, maps = -1;
	struct pollfd *pf;

	/* out of memory: poll what fits (the first trigger events) */
	if (array_reserve((void **)&s->pf, &s->pf_cap, want, sizeof(*s->pf)) &&
	    s->pf_cap < 2 + REC_MAX_PIDS) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		s->end = RECORD_END_INTERRUPT;
		return;
	}
	pf = s->pf;
	room = (int)s->pf_cap;
	pf[n++] = (struct pollfd){ s->sigfd, POLLIN, 0 };
	pf[n++] = (struct pollfd){ s->perf.out_fd, POLLIN, 0 };
	first_pidfd = n;
	for (int i = 0; i < s->target.npids; i++)
		pf[n++] = (struct pollfd){ s->target.pidfds[i], POLLIN, 0 };
	first_trig = n;
	for (int i = 0; i < s->trig.nev && n < room; i++) {
		pf[n++] = (struct pollfd){ s->trig.ev[i].fd, s->trig.ev[i].hup ? 0 : POLLIN, 0 };
		if (s->trig.ev[i].hup)
			timeout = 100;   /* inherited threads may still report there */
	}
	first_sig = n;
	if (s->watch_signals) {
		n += rec_sigwatch_fds(&s->sig, pf + n, room - n);
		if (s->sig_hup)
			timeout = 100;   /* threads created later may still report there */
	}
	if (rec_perfmaps_fd(&s->maps) >= 0 && n < room) {
		maps = n;
		pf[n++] = (struct pollfd){ rec_perfmaps_fd(&s->maps), POLLIN, 0 };
	}
	if (s->inflight >= 0 || s->want >= 0)
		timeout = timeout < 0 || timeout > 100 ? 100 : timeout;
	if (s->want >= 0 && !armed(s)) {   /* a hit waits for the arming */
		int left = rec_hitpolicy_arm_wait_ms(&s->pol, mono_ns());

		timeout = timeout < 0 || left < timeout ? left : timeout;
	}
	/* a slow-call trigger's rings and the measured functions' wake no one
	 * before they are half full */
	if ((s->o->slower_than_ns && s->have_trigger) || s->nmeasures)
		timeout = timeout < 0 || timeout > SLOW_POLL_MS ? SLOW_POLL_MS : timeout;
	if (deadline > 0) {
		int left = (int)(deadline - rec_now_ms());

		left = left < 0 ? 0 : left;
		timeout = timeout < 0 || left < timeout ? left : timeout;
	}
	if (poll(pf, (nfds_t)n, timeout) < 0 && errno != EINTR)
		return;
	if (pf[0].revents)
		handle_signals(s);
	if (pf[1].revents)
		rec_perf_read_output(&s->perf);
	if (s->watch_signals)
		s->sig_hup = rec_sigwatch_hup(&s->sig, pf + first_sig,
					      (maps >= 0 ? maps : n) - first_sig);
	/* a perf map appeared: held now, while its process lives */
	if (maps >= 0 && pf[maps].revents)
		rec_perfmaps_notified(&s->maps, s->perf.pid);
	rec_snapshot_settle(s, false);
	read_triggers(s, pf + first_trig, first_sig - first_trig);
	read_measures(s, false);
	/* before the exit: the snapshot at the signal that ended the target */
	read_target_signals(s);
	/* a hit seen counts even when the target exited or time ran out meanwhile */
	if (s->end == RECORD_END_NONE && s->want >= 0 && armed(s))
		snapshot_wanted(s);
	for (int i = first_pidfd; i < first_trig; i++)
		if (pf[i].revents && !rec_target_alive(&s->target) && s->end == RECORD_END_NONE)
			s->end = RECORD_END_EXIT;
	/* a launched program gone by now exited first: perf still recorded */
	if (deadline > 0 && rec_now_ms() >= deadline && s->end == RECORD_END_NONE)
		s->end = s->target.launched && !rec_target_alive(&s->target) ? RECORD_END_EXIT
									      : RECORD_END_DURATION;
	if (s->end == RECORD_END_NONE && s->target.launched && s->target.exited)
		s->end = RECORD_END_EXIT;
	if (s->end == RECORD_END_NONE && s->perf.exited)
		s->end = perf_exit_end(s);
}

/* Whether perf's wait STATUS is a failure: an exit status other than 0, or a
 * signal other than the SIGINT/SIGTERM it re-raises after a clean stop. */
static bool perf_status_failed(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status) != 0;
	return !WIFSIGNALED(status) ||
	       (WTERMSIG(status) != SIGINT && WTERMSIG(status) != SIGTERM);
}

static void perf_failed(struct rec_session *s, const char *what);
static const char *target_end_why(const struct rec_session *s);

/* Ends a launched target still running once perf has stopped (rec_target_end()):
 * one that exited by itself meanwhile (or with a status of its own at the
 * SIGTERM) has its own end in S->exits, marked after the recording's end;
 * one that this ends (it ran: released) has its signal there, marked
 * BY_RECORDER too (record.json lists how each process ended: README). */
static void end_target(struct rec_session *s)
{
	struct rec_exit *e = &s->exits[0];
	bool ran = s->target.released;
	int r;

	if (!s->target.launched || e->ended)
		return;
	r = rec_target_end(&s->target, target_end_why(s));
	if (r < 0 || (r == 0 && !ran))
		return;	/* attached; or killed before it ran: the recording failed */
	e->ended = e->has_status = e->after_end = true;
	e->sigterm = r != 1;
	e->by_recorder = r == 0;
	e->status = s->target.status;
}

/* Where another user names what the targets map (o->others_mapped): the
 * build ids of the files they map now, from the mapped files (mapids.h),
 * added to those read before. */
static void read_mapids(struct rec_session *s)
{
	if (!s->o->others_mapped)
		return;
	for (int i = 0; i < s->target.npids; i++)
		if (rec_mapids_read(&s->mapids, s->target.pids[i]) == -ENOMEM)
			diag_warn("out of memory: not every build id of process %d's files is in "
				  "the recording", (int)s->target.pids[i]);
}

/* The snapshot holding time T (perf clock, ns) of something whose snapshot
 * perf's stop took: the first read after it, else the last written; -1 when
 * none was. */
static int stop_holder(const struct rec_session *s, uint64_t t)
{
	int k = rec_snapshot_read_after(s, t);

	return k >= 0 ? k : s->nsnaps && s->snaps[s->nsnaps - 1].file[0] ? s->nsnaps - 1 : -1;
}

/* Stops perf and settles which files hold the snapshots. Returns 0 or -errno. */
static int finish(struct rec_session *s)
{
	bool taken = !s->o->multi_snapshot && s->nsnaps > 0;
	double t0 = rec_now_ms();
	struct rec_snap *sn = NULL;
	int unfinished, took, lost = 0;

	if (rec_perf_clock_now(&s->end_ns))
		s->end_ns = 0;
	/* read before perf is told to stop: the files its stop writes reach it */
	s->stop_live_ns = s->perf.exited ? 0 : s->end_ns;
	if (!taken && s->plan.snap == REC_SNAP_SIGNAL_BLIND)
		rec_perf_signal(&s->perf, SIGUSR2);
	s->stop_ms = s->perf.exited ? 0 : t0;   /* perf that stopped by itself was asked nothing */
	if (!s->perf.exited) {
		if (rec_perf_stop(&s->perf, STOP_TIMEOUT_MS))
			diag_warn("perf did not stop within %d s: killed%s%s", STOP_TIMEOUT_MS / 1000,
				  s->perf.stuck[0] ? "; perf " : "", s->perf.stuck);
	} else {
		while (rec_perf_read_output(&s->perf) > 0)
			;
	}
	/* perf's end: a stop signal that came until now was the recording's (it
	 * ended it, or came while perf wrote its last snapshot); one that comes
	 * later is left on s->sigfd, for the front end (it stops the conversion) */
	handle_signals(s);
	if (s->target.exit_noted)	/* the user it exited as, reaped since */
		rec_perfmaps_note(&s->maps, &s->target.exit_user);
	rec_perfmaps_keep(&s->maps, s->outdir_fd);
	end_target(s);   /* perf has stopped: it would run on unrecorded */
	rec_snapshot_settle(s, true);
	rec_snapshot_leftover(s);
	if (!s->plan.switch_output && (!taken || s->plan.snap == REC_SNAP_AT_STOP)) {
		sn = rec_snapshot_new(s, s->end, "perf.data", s->stop_live_ns);
		if (sn)
			sn->requested_ms = sn->frozen_ms = t0;
	}
	/* a hit whose snapshot perf's stop took (or that still waited for one): the last snapshot */
	if (s->want >= 0)
		s->hits[s->want].snapshot = REC_SNAPSHOT_PENDING;
	/* the first snapshot read after it, else the last (perf's stop read
	 * it): a hit's, and the signal's that ended the target */
	for (int i = 0; i < s->nhits; i++)
		if (s->hits[i].snapshot == REC_SNAPSHOT_PENDING)
			s->hits[i].snapshot = stop_holder(s, s->hits[i].hit.time_ns);
	for (int i = 0; i < s->nsignals; i++)
		if (s->signals[i].snapshot == REC_SNAPSHOT_PENDING)
			s->signals[i].snapshot = stop_holder(s, s->signals[i].s.time_ns);
	/* a hit still waiting for the arming when the recording ended (the target
	 * exited, --duration, Ctrl-C): the last snapshot holds it and all before */
	if (s->want >= 0 && s->hits[s->want].deferred && s->hits[s->want].snapshot >= 0)
		s->snaps[s->hits[s->want].snapshot].reason = RECORD_END_TRIGGER;
	took = s->want >= 0 ? s->hits[s->want].snapshot : -1;
	unfinished = rec_snapshot_check(s);
	rec_snapshot_hits_held(s);
	/* its live line names the snapshot that holds it, by the one rule */
	if (s->want >= 0)
		hit_ended(s, &s->hits[s->want], took);
	read_mapids(s);
	/* perf recorded no build ids (plan.c buildid_args()), which the kept
	 * binaries are found by */
	if (s->o->keep_binaries && s->o->others_mapped)
		diag_warn("--keep-binaries: no binary kept: another user may change a name of "
			  "what the target maps, so perf recorded no build ids to keep them by "
			  "(record.json lists them, read from the mapped files)");
	else if (s->o->keep_binaries)
		s->binaries_kept = rec_keep_binaries(s->outdir, s->outdir_fd, s->snaps, s->nsnaps);
	/* perf failed (a full disk, a write error...): what it wrote is listed, the recording failed */
	if (perf_status_failed(s->perf.status)) {
		perf_failed(s, "perf failed while recording");
		return -EIO;
	}
	for (int i = 0; i < s->nsnaps; i++) {
		if (!s->snaps[i].file[0] && !s->snaps[i].problem[0]) {
			snprintf(s->error, sizeof(s->error), "perf did not write snapshot %d "
				 "(it printed no Dump line for it)", i + 1);
			return -ENODATA;
		}
		lost += !s->snaps[i].file[0];
	}
	if (unfinished) {
		snprintf(s->error, sizeof(s->error), "perf %s %d of the %d snapshot files in "
			 "%.400s (named below; record.json marks them)", lost == unfinished ?
			 "lost" : lost ? "did not finish or lost" : "did not finish", unfinished,
			 s->nsnaps, s->outdir);
		return -ENODATA;
	}
	if (!s->nsnaps) {
		snprintf(s->error, sizeof(s->error), "perf wrote no snapshot into %.400s",
			 s->outdir);
		return -ENODATA;
	}
	return 0;
}

/* Opens the trigger events (disabled) for every target process. */
static int open_trigger(struct rec_session *s)
{
	/* the file the trigger was checked in, opened once (an attached program's
	 * executable through /proc/PID/exe: right even when the file was replaced
	 * or is in another mount namespace) */
	const char *file = s->loc.probe;
	int err = rec_trigger_init(&s->trig, s->mech, s->h->uprobe_type, file,
				   s->loc.file_offset, s->o->slower_than_ns ? &s->callexits : NULL);

	if (err)
		return err;
	for (int i = 0; i < s->target.npids; i++) {
		uint64_t addr = 0;

		if (s->mech == REC_MECH_BREAKPOINT &&
		    rec_trigspec_runtime_addr(&s->loc, s->target.pids[i], &addr)) {
			snprintf(s->error, sizeof(s->error),
				 "%.400s is not mapped in process %d (yet): a breakpoint needs "
				 "its address; use --trigger-mechanism uprobe",
				 s->loc.file, (int)s->target.pids[i]);
			return -ENOENT;
		}
		err = rec_trigger_add_process(&s->trig, s->target.pids[i], addr);
		if (err < 0) {
			snprintf(s->error, sizeof(s->error), "cannot open the %s trigger on "
				 "process %d: %s", rec_mechanism_name(s->mech),
				 (int)s->target.pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* What perf's own words mean, where they say too little: a line of perf's
 * (found anywhere in its messages) and what failed and what to try. */
static const struct {
	const char *says, *means;
} perf_says[] = {
	{ "libperf: Miscounted nr_mmaps", "perf could not map its ring buffers for this "
	  "process (perf 6.1's libperf, attaching); try `snaptrace run` with the program, or "
	  "another perf (--perf PATH)" },
	{ "Error: unknown option", "perf refused an option (--perf-arg?); perf record -h "
	  "lists its options" },
};

/* Puts WHAT in S->error and perf's messages (the first and last lines when
 * long; an option error's line, not the usage text after it) in S->said. */
static void perf_failed(struct rec_session *s, const char *what)
{
	const char *log = s->perf.log_len ? s->perf.log : "(nothing)\n", *head_end, *tail, *end;
	char full[800], meant[1000];
	struct statvfs vfs;
	int lines = 0, kept = 0, unfinished = 0;
	bool full_disk = strstr(log, strerror(ENOSPC)) ||
			 (!fstatvfs(s->outdir_fd, &vfs) && vfs.f_bavail == 0);

	/* a full disk is named first: perf's own words for it may have scrolled away */
	if (full_disk) {
		for (int i = 0; i < s->nsnaps; i++) {
			kept += s->snaps[i].file[0] && !s->snaps[i].problem[0];
			unfinished += s->snaps[i].problem[0] != 0;
		}
		snprintf(full, sizeof(full), "%.300s: %s (ENOSPC): %.200s; the %d snapshot "
			 "file%s perf completed %s kept%s", s->outdir, strerror(ENOSPC), what, kept,
			 diag_s(kept), kept == 1 ? "is" : "are", unfinished ?
			 ", those it did not finish or lost are marked (named below)" : "");
		what = full;
	}

	/* perf held (a FIFO where it opens a name): what it waited on, not what
	 * it printed as it was stopped (perf 6.1 then blames its ring buffers) */
	if (s->perf.stuck[0]) {
		snprintf(meant, sizeof(meant), "%.400s: perf %.500s", what, s->perf.stuck);
		what = meant;
	}
	/* what perf's words mean holds for a perf that recorded nothing: a full
	 * disk is the cause, and so is whatever stopped a perf that wrote
	 * snapshot files (perf 6.1 prints "Miscounted nr_mmaps" also attaching
	 * to a program it then records well, until the disk fills) */
	for (size_t i = 0; !s->perf.stuck[0] && !full_disk && !s->perf.ndumps &&
	     i < sizeof(perf_says) / sizeof(perf_says[0]); i++)
		if (strstr(log, perf_says[i].says)) {
			snprintf(meant, sizeof(meant), "%.400s: %s", what, perf_says[i].means);
			what = meant;
			break;
		}
	end = strstr(log, "\n Usage: perf ");   /* after an option error: perf's whole usage */
	end = end ? end + 1 : log + strlen(log);
	while (end > log && (end[-1] == ' ' || end[-1] == '\n') && (end - 1 == log || end[-2] == ' ' ||
								       end[-2] == '\n'))
		end--;   /* blank lines at the end */
	head_end = log;
	while (head_end < end && lines < 8)
		if (*head_end++ == '\n')
			lines++;
	tail = end;
	for (lines = 0; tail > head_end && lines < 9; tail--)
		if (tail[-1] == '\n')
			lines++;
	snprintf(s->error, sizeof(s->error), "%.800s; perf said:", what);
	if (*tail == '\n' && tail < end)
		tail++;
	if (tail <= head_end)
		snprintf(s->said, sizeof(s->said), "%.*s", (int)(end - log > 3000 ? 3000 : end - log),
			 log);
	else
		snprintf(s->said, sizeof(s->said), "%.*s[...]\n%.*s",
			 (int)(head_end - log > 1500 ? 1500 : head_end - log), log,
			 (int)(end - tail > 1500 ? 1500 : end - tail), tail);
}

/* Opens the signal watch (sigwatch.h) on the targets where the host allows
 * tracepoints; else the signals are not seen, and says so. Returns 0, or a
 * negative errno with S->error when a --trigger signal cannot be watched. */
static int open_sigwatch(struct rec_session *s)
{
	static const char needs[] = "signal:signal_deliver needs root (CAP_PERFMON) or "
				    "kernel.perf_event_paranoid -1 and a readable tracefs";
	char why[300];
	int err = -EPERM;

	if (s->h->sched_switch)
		err = rec_sigwatch_open(&s->sig, s->target.pids, s->target.npids, s->sig_trigger,
					why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s", needs);
	s->watch_signals = !err;
	if (!err) {
		s->abort_probes = rec_sigwatch_probe_aborts(&s->sig, s->target.launched ? s->exe :
							    s->target.exe,
							    s->target.launched ? 0 :
							    s->target.pids[0], s->h->uprobe_type);
		return 0;
	}
	if (s->sig_trigger) {
		snprintf(s->error, sizeof(s->error), "--trigger %.100s: cannot watch the "
			 "program's signals: %s", s->loc.spec, why);
		return err;
	}
	diag_info("note: the signals the program receives are not recorded: %s", why);
	return 0;
}

/*
 * How each target ended, when it did before the recording's end: the
 * exit of a fatal signal's process is that signal's (end "signal"); a
 * launched one it reached gets TARGET_EXIT_MS to finish dying. A target
 * still running when the recording ends is ended by it (launched) or left
 * running (attached): no exit.
 */
static void collect_exits(struct rec_session *s)
{
	for (int i = 0; i < s->target.npids; i++) {
		struct rec_exit *e = &s->exits[i];
		pid_t pid = s->target.pids[i];
		/* a launched target a fatal signal reached, or the recorder's stop
		 * signal too (Ctrl-C on the terminal), may be dying of it: its end
		 * is its own, not the recording's */
		bool dying = ended_by_signal(s, pid) ||
			     (s->end == RECORD_END_INTERRUPT && s->watch_signals &&
			      rec_sigwatch_sent(&s->sig, pid, s->stop_signo));
		int r = rec_target_exit(&s->target, i, !s->target.launched ? 200 : dying ?
					TARGET_EXIT_MS : 0, &e->status);

		e->ended = r >= 0;
		e->has_status = r == 1;
		/* --duration found it running (loop_once()): it exited since */
		e->after_end = e->ended && s->target.launched && s->end == RECORD_END_DURATION;
	}
	read_target_signals(s);   /* the deliveries of what ended them meanwhile */
	if (s->fatal >= 0 && s->end == RECORD_END_EXIT)
		s->end = RECORD_END_SIGNAL;
}

/* A recording that failed before perf recorded: where perf left files (a
 * header, no data), record.json says what happened, never a directory
 * without one; else nothing was recorded and there is nothing to report. */
static void report_failure(struct rec_session *s)
{
	char **names;
	int n = perfdata_scan(s->outdir_fd, &names);

	for (int i = 0; i < n; i++)
		free(names[i]);
	if (n >= 0)
		free(names);
	s->failed = true;
	if (n <= 0 || rec_report_write(s))
		rec_report_unreserve(s);
}

/* An attached process with other threads than the main one, recorded
 * without --multi-thread: what those threads run is not in the trace
 * (unrecorded.h), said once at the start. */
static void warn_threads_unrecorded(const struct rec_session *s)
{
	pid_t *tids = NULL;
	size_t cap = 0;

	if (s->target.launched || s->target.tid || s->o->multi_thread)
		return;
	for (int i = 0; i < s->target.npids; i++) {
		int n = rec_proc_tasks(s->target.pids[i], &tids, &cap);

		if (n > 1)
			diag_warn("process %d has %d threads: only its main thread is recorded, what "
				  "the other %d run is not in the trace; " SIG_UNRECORDED_HINT,
				  (int)s->target.pids[i], n, n - 1);
	}
	free(tids);
}
/*
 * perf records: arms the trigger (from now on, as S->arm says), enables the
 * events (measured functions, trigger, signal watch) and lets the target
 * run, then says what is recorded. Returns 0, or a negative errno with
 * S->error filled (perf still runs: the caller stops it).
 */
static int arm_and_release(struct rec_session *s)
{
	char what[200], how[64], armed[400];
	int err = 0;

	s->ready_ms = rec_now_ms();
	rec_hitpolicy_arm(&s->pol, (uint64_t)(s->ready_ms * 1e6), s->arm.after_ms);
	if (s->have_trigger || s->sig_trigger)   /* said once perf runs: it may fail first */
		diag_info("%s", rec_arming_describe(&s->arm, armed, sizeof(armed)));
	rec_trigger_tsc(&s->trig, &s->tsc);
	for (int i = 0; i < s->nmeasures && !err; i++)
		err = rec_measure_enable(&s->measures[i]);
	if (err || (s->have_trigger && (err = rec_trigger_enable(&s->trig))) ||
	    (s->watch_signals && (err = rec_sigwatch_enable(&s->sig)))) {
		snprintf(s->error, sizeof(s->error), "cannot arm the trigger: %s", strerror(-err));
		return err;
	}
	rec_snapshot_start(s);
	/* a stop that came while perf was starting: a launched program is never
	 * let go (rec_target_end() kills it), so the trace truthfully holds
	 * none of it; an attached one runs on, its moments after the attach
	 * recorded */
	s->stopped_at_start = sig_stop_pending();
	if (!s->stopped_at_start || !s->target.launched)
		err = rec_target_release(&s->target);
	if (err) {
		snprintf(s->error, sizeof(s->error), "cannot start the target: %s", strerror(-err));
		return err;
	}
	for (int i = 0; i < s->nmeasures; i++)	/* its libraries are loaded from now */
		s->measures[i].map_checked_ms = rec_now_ms();
	/* what is recorded and how to stop, once perf records (it acknowledged
	 * "enable"); a stop that came first ends the recording now: no stop is
	 * asked for, and a launched program, never let go, is not recorded
	 * (the summary's warning says so) */
	if (!s->stopped_at_start || !s->target.launched)
		diag_info("recording %s %d (%s)%s%s%s",
			  s->target.launched ? "launched process" : s->target.tid ? "thread" :
			  "process", (int)(s->target.tid ? s->target.tid : s->target.pids[0]),
			  rec_plan_describe(&s->plan, s->have_trigger || s->sig_trigger, what,
					    sizeof(what)), s->stopped_at_start ? "" : "; ",
			  s->stopped_at_start ? "" : stop_how(how, sizeof(how)),
			  s->stopped_at_start ? "" : " to stop");
	rec_events_say(s->o);
	warn_threads_unrecorded(s);
	return 0;
}

/*
 * The loop has ended: reads what the events still hold (the last signals,
 * the targets' exits, the calls that returned), stops perf and settles the
 * snapshots (finish()). Returns 0 when data was kept, else a negative errno
 * with S->error filled.
 */
static int wind_down(struct rec_session *s)
{
	int err;

	read_target_signals(s);   /* the last ones, before the targets' exit is told */
	collect_exits(s);
	for (int i = 0; i < s->forks.n; i++)
		*(s->o->multi_thread ? &s->children_unwatched : &s->children_unrecorded) +=
			rec_forks_count(&s->forks, i);
	/* every call that returned is counted (the slow ones now as coalesced hits) */
	for (int i = 0; i < 2 && s->o->slower_than_ns; i++)
		read_triggers(s, NULL, 0);
	read_measures(s, true);
	write_calls(s);
	err = finish(s);
	if (s->end == RECORD_END_PERF_DIED) {
		perf_failed(s, "perf exited while the target was running");
		err = -EPIPE;
	}
	return err;
}

/* Closes what open_trigger(), open_measures(), open_sigwatch() and
 * rec_forks_open() opened (the measures' numbers stay, for record.json). */
static void close_events(struct rec_session *s)
{
	rec_trigger_close(&s->trig);
	rec_callexits_free(&s->callexits);
	for (int i = 0; i < s->nmeasures; i++)
		rec_measure_close(&s->measures[i]);   /* their numbers go to record.json */
	if (s->calls)
		fclose(s->calls);
	s->calls = NULL;
	rec_sigwatch_close(&s->sig);
	s->watch_signals = false;
	rec_forks_close(&s->forks);
	rec_slowcall_free(&s->slow);
}

/* Why a launched target still running is ended (rec_target_finish()): the
 * recording's end, in words. */
static const char *target_end_why(const struct rec_session *s)
{
	return record_end_said(s->end);
}

int rec_session_run(struct rec_session *s)
{
	double deadline = 0;
	pid_t gone = 0;
	int err;

	s->start_ms = rec_now_ms();
	s->exit_code = EXIT_RUNTIME;
	s->want = s->inflight = s->fatal = -1;
	rec_perf_set_clock(s->plan.clockid);	/* hits, signals, perfclock: the samples' clock */
	s->binaries_kept = -1;
	s->recorded = (struct rec_recorded){ .only_tid = s->target.tid,
					     .multi_thread = s->o->multi_thread,
					     .pids = s->target.pids, .npids = s->target.npids };
	rec_slowcall_init(&s->slow, s->o->slower_than_ns);
	s->slow.recorded = &s->recorded;
	rec_hitpolicy_init(&s->pol, s->o->multi_snapshot, s->o->min_interval_ns, s->arm.by);
	err = rec_report_reserve(s);
	if (err) {
		snprintf(s->error, sizeof(s->error), "%.400s/record.json: cannot create it: %s",
			 s->outdir, strerror(-err));
		goto out_target;
	}
	if (s->have_trigger) {
		err = open_trigger(s);
		if (err)
			goto out_target;
	}
	if (s->nmeasures) {
		s->measure_cost_ns = rec_measure_cost_ns(s->h->uprobe_type);
		err = open_measures(s);
		if (err)
			goto out_trigger;
	}
	err = open_sigwatch(s);
	if (err)
		goto out_trigger;
	/* counted for the summary: children not recorded, or recorded
	 * (--multi-thread) where probes, which watch the targets only, miss them */
	if (!s->o->multi_thread || (s->have_trigger && !s->sig_trigger) || s->nmeasures)
		rec_forks_open(&s->forks, s->target.pids, s->target.npids);
	/* the targets held and their users noted, before the program runs: its
	 * map is held from when it writes it; theirs: still_same() tells */
	rec_perfmaps_start(&s->maps, s->target.pids, s->target.npids, s->target.launched,
			   rec_opts_children(s->o));
	err = rec_target_still_same(&s->target, &gone);
	if (err) {
		snprintf(s->error, sizeof(s->error), "process %d ended before perf could attach to "
			 "it (its pid may be another process's now): not recorded", (int)gone);
		goto out_trigger;
	}
	read_mapids(s);
	err = rec_perf_start(&s->perf, s->plan.argv, s->outdir_fd, s->plan.output,
			     s->plan.control);
	if (err) {
		snprintf(s->error, sizeof(s->error), "cannot start %s: %s", s->plan.argv[0],
			 strerror(-err));
		goto out_trigger;
	}
	if (s->plan.control)
		err = rec_perf_control(&s->perf, "enable", READY_TIMEOUT_MS);
	else
		err = rec_perf_wait_started(&s->perf, READY_TIMEOUT_MS);
	if (err) {
		rec_perf_stop(&s->perf, 2000);
		perf_failed(s, err == -ETIMEDOUT ? "perf did not get ready within 30 s"
			    : !rec_target_alive(&s->target) ? "the target exited before perf "
			    "could record it" : "perf exited before recording");
		goto out_perf;
	}
	err = arm_and_release(s);
	if (err) {
		rec_perf_stop(&s->perf, STOP_TIMEOUT_MS);
		goto out_perf;
	}
	if (s->o->duration_s > 0)
		deadline = rec_now_ms() + s->o->duration_s * 1e3;
	while (s->end == RECORD_END_NONE)
		loop_once(s, deadline);
	err = wind_down(s);
	if (!err)
		s->exit_code = EXIT_OK;
out_perf:
	if (!s->perf.exited)
		rec_perf_stop(&s->perf, STOP_TIMEOUT_MS);
	rec_perf_free(&s->perf);
out_trigger:
	close_events(s);
out_target:
	rec_perfmaps_free(&s->maps);
	rec_target_finish(&s->target, target_end_why(s));
	if (err && s->end == RECORD_END_NONE)
		report_failure(s);
	free(s->pf);
	s->pf = NULL;
	s->pf_cap = 0;
	return err;
}

/* The last signal of LOG for process PID that is fatal, or else a crash
 * signal (or SIGABRT) the program handled, or NULL. */
static const struct rec_signal_log *ending_signal(const struct rec_session *s, pid_t pid)
{
	const struct rec_signal_log *handled = NULL;

	for (int i = 0; i < s->nsignals; i++) {
		const struct rec_signal_log *l = &s->signals[i];

		if (l->s.pid != pid)
			continue;
		if (l->fatal)
			return l;
		if (l->s.handled && (sig_is_crash(l->s.sig, l->s.code) || l->s.sig == SIGABRT))
			handled = l;
	}
	return handled;
}

bool rec_session_ending(const struct rec_session *s, int i, struct sig_ending *e)
{
	const struct rec_exit *x = &s->exits[i];
	const struct rec_signal_log *l = ending_signal(s, s->target.pids[i]);

	memset(e, 0, sizeof(*e));
	if (!x->ended || x->by_recorder)
		return false;	/* the recorder's end, said as it sent it: not the program's */
	e->exited = x->has_status && WIFEXITED(x->status);
	e->status = e->exited ? WEXITSTATUS(x->status) : 0;
	if (x->has_status && WIFSIGNALED(x->status)) {
		e->sig = WTERMSIG(x->status);
		e->core_known = true;
		e->core = WCOREDUMP(x->status);
	}
	/* the watch's signal: the one that killed it, or a crash it handled */
	if (l && (l->fatal ? !e->exited && (!e->sig || e->sig == l->s.sig) : e->exited)) {
		e->sig = l->s.sig;
		e->has_code = true;
		e->code = l->s.code;
		e->has_addr = l->s.has_addr;
		e->addr = l->s.addr;
		e->has_ip = l->s.has_ip;
		e->ip = l->s.ip;
		e->tid = l->s.tid;
		e->tid_unrecorded = !rec_recorded_has(&s->recorded, l->s.tid);
		e->sender_pid = l->s.sender_pid;
		e->sender_comm = l->s.sender_pid && l->s.sender_comm[0] ? l->s.sender_comm : NULL;
		e->by_stop = l->by_stop;
	}
	if (!e->sig && !e->exited)
		return true;   /* ended; how is unknown */
	e->by_stop |= s->end == RECORD_END_INTERRUPT && e->sig == s->stop_signo && !e->exited;
	return true;
}

int rec_session_program_status(const struct rec_session *s)
{
	struct sig_ending e;

	if (!s->target.launched || !rec_session_ending(s, 0, &e))
		return 0;
	if (e.exited)
		return e.status;
	return e.sig ? 128 + e.sig : 0;
}
