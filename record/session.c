/* SPDX-License-Identifier: MIT */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
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
#include "buildcache.h"
#include "diag.h"
#include "inpath.h"
#include "outpath.h"
#include "perfclock.h"
#include "perfmaps.h"
#include "perfring.h"
#include "perfdata.h"
#include "procfs.h"
#include "run.h"
#include "signals.h"

#define READY_TIMEOUT_MS 30000
#define SNAPSHOT_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 30000
#define TARGET_EXIT_MS 2000     /* the target's exit after perf saw it */
#define SNAP_PENDING (-2)   /* hit whose snapshot is taken when perf stops */
#define SLOW_POLL_MS 5      /* a slow-call trigger's rings are read this often: the
			     * longest a slow call's return waits to be seen */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Grows *ARR (of *CAP elements of SIZE bytes) to hold at least WANT. Returns 0 or -ENOMEM. */
static int reserve(void **arr, size_t *cap, size_t want, size_t size)
{
	while (*cap < want) {
		void *p = array_grow(*arr, cap, *cap, size);

		if (!p)
			return -ENOMEM;
		*arr = p;
	}
	return 0;
}

/* The entry of thread TID of process PID in S->threads, added if new; NULL on out-of-memory. */
static struct rec_thread_info *thread_info(struct rec_session *s, pid_t pid, pid_t tid)
{
	struct rec_thread_info *ti;

	for (int k = 0; k < s->nthreads; k++)
		if (s->threads[k].tid == tid)
			return &s->threads[k];
	if (reserve((void **)&s->threads, &s->threads_cap, (size_t)s->nthreads + 1,
		    sizeof(*s->threads)))
		return NULL;
	ti = &s->threads[s->nthreads++];
	memset(ti, 0, sizeof(*ti));
	ti->pid = pid;
	ti->tid = tid;
	return ti;
}

/* Adds the threads of the targets (with their names) to S->threads. */
static void collect_threads(struct rec_session *s)
{
	pid_t *tids = NULL;
	size_t cap = 0;

	for (int i = 0; i < s->target.npids; i++) {
		pid_t pid = s->target.pids[i];
		int n = rec_proc_tasks(pid, &tids, &cap);

		for (int j = 0; j < n; j++) {
			struct rec_thread_info *ti = thread_info(s, pid, tids[j]);

			if (ti)
				rec_proc_comm(pid, tids[j], ti->comm, sizeof(ti->comm));
		}
	}
	free(tids);
}

/* Reaps every child that exited: perf, the launched target, or strays. */
static void reap_children(struct rec_session *s)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

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

/* A new snapshot for REASON in FILE ("" while perf writes it) whose data
 * reaches at least LIVE_NS (perf clock; 0: unknown); NULL on out-of-memory. */
static struct rec_snap *new_snap(struct rec_session *s, enum record_end reason, const char *file,
				 uint64_t live_ns)
{
	struct rec_snap *sn;

	if (reserve((void **)&s->snaps, &s->snaps_cap, (size_t)s->nsnaps + 1, sizeof(*s->snaps)))
		return NULL;
	sn = &s->snaps[s->nsnaps++];
	memset(sn, 0, sizeof(*sn));
	sn->reason = reason;
	sn->live_ns = live_ns;
	sn->requested_ms = sn->frozen_ms = sn->done_ms = rec_now_ms();
	if (rec_perf_clock_now(&sn->time_ns))
		sn->time_ns = 0;
	snprintf(sn->file, sizeof(sn->file), "%s", base_name(file));
	return sn;
}

/*
 * Gives each file perf has announced (Dump lines) its snapshot: the one in
 * flight; else, once perf has stopped (FINAL), when the files hold only
 * post-trigger data, deletes it; else a snapshot of its own (perf's stop, or
 * a switch perf made by itself), so that record.json lists every file perf
 * wrote.
 */
static void settle_dumps(struct rec_session *s, bool final)
{
	for (; s->dumps_used < s->perf.ndumps; s->dumps_used++) {
		const char *file = s->perf.dumps[s->dumps_used];
		struct rec_snap *sn;

		if (s->inflight < 0 && !final)
			return;
		if (s->inflight >= 0) {
			sn = &s->snaps[s->inflight];
			snprintf(sn->file, sizeof(sn->file), "%s", base_name(file));
			sn->done_ms = rec_now_ms();
			s->inflight = -1;
			collect_threads(s);
		} else if (s->drop_dumps) {
			unlinkat(s->outdir_fd, base_name(file), 0);
		} else if (!new_snap(s, s->end, file, s->stop_live_ns)) {
			diag_warn("%s: out of memory: not listed in record.json", file);
		}
	}
}

/* Waits up to TIMEOUT_MS for perf to confirm the snapshot in flight. Returns 0 or -errno. */
static int wait_inflight(struct rec_session *s, int timeout_ms)
{
	double deadline = rec_now_ms() + timeout_ms;

	while (s->inflight >= 0) {
		struct pollfd pf = { s->perf.out_fd, POLLIN, 0 };
		int left = (int)(deadline - rec_now_ms());

		if (s->perf.out_fd < 0)
			return -EPIPE;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pf, 1, left) > 0)
			rec_perf_read_output(&s->perf);
		settle_dumps(s, false);
	}
	return 0;
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

		rec_measure_read(m);
		if (m->warned || !m->st.calls || (seen < 1000 + SLOW_POLL_MS && !final))
			continue;
		m->warned = true;
		load = rec_measure_load(m, s->measure_cost_ns, seen);
		if (load > REC_MEASURE_LOAD)
			diag_warn("--measure %s: %" PRIu64 " calls in its first %.0f ms at about "
				  "%.1f us each (measured here) take about %.0f ms of CPU a second: "
				  "measuring it slows the program; measure a caller that is called "
				  "less often", m->spec, m->st.first_second, seen < 1000 ? seen : 1000,
				  s->measure_cost_ns / 1e3, load * 1000);
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

/*
 * Takes a snapshot for REASON the way the plan says (a hit's: its time is
 * how far perf is known to have recorded into it, so no live_ns is read,
 * which would delay the freeze: the first perf clock read costs ~8 ms). Multi-snapshot
 * recordings do not wait for perf's SIGUSR2 snapshot: it stays in flight
 * (S->inflight) until perf's Dump line, and the main loop goes on. Returns
 * the index of the new snapshot, SNAP_PENDING when perf's stop will take it,
 * or -1 when it failed.
 */
static int take_snapshot(struct rec_session *s, enum record_end reason)
{
	double t0 = rec_now_ms(), t_frozen = t0;
	struct rec_snap *sn;
	int err;

	/* the calls measured up to now, for the slices of this snapshot */
	read_measures(s, false);
	write_calls(s);

	switch (s->plan.snap) {
	case REC_SNAP_SIGNAL_DUMP:
		/* freeze the ring first: what follows the trigger overwrites nothing */
		/* -EPIPE: perf is gone, which the end of the recording reports */
		if (s->plan.freeze &&
		    (err = rec_perf_control(&s->perf, "disable", SNAPSHOT_TIMEOUT_MS)) &&
		    err != -EPIPE)
			diag_warn("perf did not acknowledge \"disable\" (%s): the snapshot may "
				  "also hold samples taken just after the trigger", strerror(-err));
		t_frozen = rec_now_ms();
		sn = new_snap(s, reason, "", 0);
		if (!sn || rec_perf_signal(&s->perf, SIGUSR2)) {
			s->nsnaps -= sn != NULL;
			return -1;
		}
		s->inflight = (int)(sn - s->snaps);
		sn->requested_ms = t0;
		sn->frozen_ms = t_frozen;
		if (s->o->multi_snapshot)
			return s->inflight;
		err = wait_inflight(s, SNAPSHOT_TIMEOUT_MS);
		if (err && err != -EPIPE)
			diag_warn("perf did not confirm the snapshot: %s", strerror(-err));
		s->drop_dumps = true;
		return (int)(sn - s->snaps);
	case REC_SNAP_CONTROL:
		err = rec_perf_control(&s->perf, "snapshot", SNAPSHOT_TIMEOUT_MS);
		if (err) {
			if (err != -EPIPE)
				diag_warn("perf did not acknowledge the snapshot: %s",
					  strerror(-err));
			return -1;
		}
		/* nothing after the snapshot: perf's exit snapshot then adds nothing */
		rec_perf_control(&s->perf, "disable", SNAPSHOT_TIMEOUT_MS);
		sn = new_snap(s, reason, "perf.data", 0);
		break;
	case REC_SNAP_SIGNAL_BLIND:
		if (rec_perf_signal(&s->perf, SIGUSR2))
			return -1;
		sn = new_snap(s, reason, "perf.data", 0);
		break;
	case REC_SNAP_AT_STOP:
	default:
		return SNAP_PENDING;
	}
	if (!sn)
		return -1;
	sn->requested_ms = sn->frozen_ms = t0;
	collect_threads(s);
	return (int)(sn - s->snaps);
}

/* Whether the recording holds thread TID: every thread with --multi-thread,
 * else the thread -t names or the main thread of each target (tid == pid). */
static bool thread_recorded(const struct rec_session *s, pid_t tid)
{
	if (s->target.tid)
		return tid == s->target.tid;
	if (s->o->multi_thread)
		return true;
	for (int i = 0; i < s->target.npids; i++)
		if (tid == s->target.pids[i])
			return true;
	return false;
}

/* A hit in a thread the recording leaves out: its snapshot would not show
 * it (an empty trace for a thread that only waits), so it takes none; counted
 * in hits_unrecorded, and said once a recording. Returns true for such a hit. */
static bool unrecorded_hit(struct rec_session *s, const struct rec_hit *hit)
{
	char comm[32], name[40] = "";

	if (thread_recorded(s, hit->tid))
		return false;
	if (!s->hits_unrecorded++) {
		if (rec_proc_comm(hit->pid, hit->tid, comm, sizeof(comm)) == 0)
			snprintf(name, sizeof(name), " (%s)", comm);
		diag_warn("trigger hit in thread %d%s of process %d, which is not recorded "
			  "(only %s %d is): ignored, as its snapshot would not show it; record "
			  "it with --multi-thread", (int)hit->tid, name, (int)hit->pid,
			  s->target.tid ? "thread" : "the main thread",
			  (int)(s->target.tid ? s->target.tid : hit->pid));
	}
	return true;
}

/* Whether the trigger is armed: hits take snapshots (arming.h). */
static bool armed(const struct rec_session *s)
{
	return s->armed_ms > 0 && rec_now_ms() >= s->armed_ms;
}

/* Logs HIT as the one whose snapshot is to be taken (S->want). Returns the
 * log entry, or NULL on out-of-memory. */
static struct rec_hit_log *want_hit(struct rec_session *s, const struct rec_hit *hit)
{
	struct rec_hit_log *log;

	if (reserve((void **)&s->hits, &s->hits_cap, (size_t)s->nhits + 1, sizeof(*s->hits)))
		return NULL;
	log = &s->hits[s->nhits];
	memset(log, 0, sizeof(*log));
	log->hit = *hit;
	log->seen_ms = rec_now_ms();
	log->snapshot = -1;
	s->want = s->nhits++;
	s->last_snap_hit_ns = hit->time_ns;
	return log;
}

/*
 * A hit before the trigger is armed: ignored with --arm-after; else it waits
 * for the arming to take its snapshot, and a later early hit takes its place
 * (it has the longer look-back). Counted in hits_before_armed either way.
 */
static void early_hit(struct rec_session *s, const struct rec_hit *hit)
{
	struct rec_hit_log *log;

	if (s->arm.by == REC_ARM_OPTION) {
		s->hits_before_armed++;
		return;
	}
	if (s->want >= 0) {
		s->hits_before_armed++;
		s->hits[s->want].hit = *hit;
		s->hits[s->want].seen_ms = rec_now_ms();
		s->last_snap_hit_ns = hit->time_ns;
		return;
	}
	log = want_hit(s, hit);
	if (log)
		log->deferred = true;
	else
		s->hits_coalesced++;
}

/*
 * Counts a hit; keeps it as S->want when it is to take a snapshot: the first
 * hit, or (--multi-snapshot) one at least --min-interval after the hit of the
 * last snapshot while no other waits. Every other hit is coalesced.
 */
static void handle_hit(struct rec_session *s, const struct rec_hit *hit)
{
	s->hits_seen++;
	if (unrecorded_hit(s, hit))
		return;
	if (s->end == RECORD_END_NONE && !armed(s)) {
		early_hit(s, hit);
		return;
	}
	/* a hit read after a later one (another CPU's ring) is within the interval too */
	if (s->end != RECORD_END_NONE || s->want >= 0 || (!s->o->multi_snapshot && s->fatal >= 0) ||
	    (s->nhits && (!s->o->multi_snapshot || hit->time_ns < s->last_snap_hit_ns +
						     (uint64_t)s->o->min_interval_ms * 1000000)) ||
	    !want_hit(s, hit))
		s->hits_coalesced++;
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

/*
 * The first snapshot that holds a hit at TIME_NS (perf clock): one with a
 * file whose ring was read at or after TIME_NS (its time_ns, taken once the
 * ring was frozen or the snapshot asked for); -1 when none (a later one, or
 * perf's last at its stop, will).
 */
static int holding_snapshot(const struct rec_session *s, uint64_t time_ns)
{
	for (int i = 0; i < s->nsnaps; i++)
		if (s->snaps[i].file[0] && s->snaps[i].time_ns && s->snaps[i].time_ns >= time_ns)
			return i;
	return -1;
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
	idx = holding_snapshot(s, log->hit.time_ns);
	/* numbered as record.json's hits and snapshots; the snapshot that
	 * holds a hit is known once the files are read (the summary says it:
	 * main.c print_hits()), and may be the one before the one it took */
	if (idx >= 0 && s->o->multi_snapshot) {
		log->snapshot = idx;
		diag_info("trigger hit %d: %s%s: in a snapshot already being written",
			  (int)(log - s->hits), hit_words(&log->hit, what, sizeof(what)),
			  log->deferred ? " before it was armed" : "");
		return;
	}
	/* a launched target ends with the recording: stop it right away */
	if (!s->o->multi_snapshot && s->target.launched && !s->target.exited)
		kill(s->target.pids[0], SIGSTOP);
	idx = take_snapshot(s, RECORD_END_TRIGGER);
	log->snapshot = idx;
	hit_words(&log->hit, what, sizeof(what));
	if (!s->o->multi_snapshot) {
		s->end = RECORD_END_TRIGGER;
		diag_info("trigger hit %d: %s%s; %s", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "",
			  idx >= 0 ? "snapshot taken" : "stopping perf");
	} else if (idx >= 0) {
		diag_info("trigger hit %d: %s%s: taking snapshot %d", (int)(log - s->hits), what,
			  log->deferred ? " before it was armed" : "", idx);
	}
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

const char *rec_stop_how(char *buf, size_t size)
{
	static const struct { int sig; const char *how; } ways[] = {
		{ SIGINT, "Ctrl-C" },
		{ SIGTERM, "SIGTERM (kill %d)" },
		{ SIGHUP, "SIGHUP (kill -HUP %d)" },
	};
	struct sigaction old;

	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		if (sigaction(ways[i].sig, NULL, &old) || old.sa_handler != SIG_IGN) {
			snprintf(buf, size, ways[i].how, (int)getpid());
			return buf;
		}
	snprintf(buf, size, "--duration or the program's exit");
	return buf;
}

/* The first of SIGINT, SIGTERM, SIGHUP pending (blocked, unread), or 0. */
static int stop_signal_pending(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;

	if (sigpending(&set))
		return 0;
	for (unsigned i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigismember(&set, stops[i]))
			return stops[i];
	return 0;
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
	if (s->end != RECORD_END_NONE || (!s->o->multi_snapshot && s->nsnaps))
		return;
	if (s->inflight >= 0)
		wait_inflight(s, SNAPSHOT_TIMEOUT_MS);
	log->snapshot = take_snapshot(s, RECORD_END_SIGNAL);
	if (log->snapshot == SNAP_PENDING)
		log->snapshot = -1;   /* perf's stop takes it: the last snapshot */
}

/* A signal delivered to a target (sigwatch.h): logged; a --trigger signal
 * is a hit; the first that ends a target takes a snapshot, unless it is the
 * recorder's own stop (Ctrl-C on the terminal reaches the program too). */
static void handle_target_signal(struct rec_session *s, const struct rec_signal *sg)
{
	bool fatal = !sg->handled && sig_fatal_by_default(sg->sig);
	struct rec_signal_log *log;
	int stop = s->stop_signo ? s->stop_signo : stop_signal_pending();

	if (s->sig_trigger == sg->sig) {
		struct rec_hit hit = { .pid = sg->pid, .tid = sg->tid, .time_ns = sg->time_ns,
				       .has_args = false, .ip = sg->ip };

		handle_hit(s, &hit);
	}
	if (fatal && ended_by_signal(s, sg->pid))
		return;
	if (s->nsignals >= REC_SIGNALS_MAX ||
	    reserve((void **)&s->signals, &s->signals_cap, (size_t)s->nsignals + 1,
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
	size_t want = 2 + (size_t)s->target.npids + (size_t)s->trig.nev + (size_t)s->sig.nev;
	int n = 0, first_trig, first_pidfd, first_sig, timeout = -1, room;
	struct pollfd *pf;

	/* out of memory: poll what fits (the first trigger events) */
	if (reserve((void **)&s->pf, &s->pf_cap, want, sizeof(*s->pf)) &&
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
	if (s->inflight >= 0 || s->want >= 0)
		timeout = timeout < 0 || timeout > 100 ? 100 : timeout;
	if (s->want >= 0 && !armed(s)) {   /* a hit waits for the arming */
		int left = (int)(s->armed_ms - rec_now_ms()) + 1;

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
		s->sig_hup = rec_sigwatch_hup(&s->sig, pf + first_sig, n - first_sig);
	settle_dumps(s, false);
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
	if (deadline > 0 && rec_now_ms() >= deadline && s->end == RECORD_END_NONE)
		s->end = RECORD_END_DURATION;
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

/* Whether perf itself reads the perf.data PATH (`perf evlist`); else SN's
 * problem says what perf said. */
static bool perf_reads(struct rec_session *s, const char *path, struct rec_snap *sn)
{
	char *argv[] = { s->plan.argv[0], "evlist", "-f", "-i", (char *)path, NULL };
	char out[512], *nl;

	if (run_capture(argv, out, sizeof(out)) == 0)
		return true;
	if ((nl = strchr(out, '\n')))
		*nl = 0;
	snprintf(sn->problem, sizeof(sn->problem), "perf cannot read it: %.100s", out);
	return false;
}

/* Checks each file perf wrote (perfdata.h): one it did not finish (a full
 * disk, perf killed while writing it) gets its problem, which record.json
 * shows. On a full disk perf may also finish a header over contents it
 * could not write, which no header check sees: there perf reads each file
 * itself. Returns how many got a problem. */
static int check_snaps(struct rec_session *s)
{
	char path[32];
	struct statvfs vfs;
	bool full = !fstatvfs(s->outdir_fd, &vfs) && vfs.f_bavail == 0;
	int n = 0;

	for (int i = 0; i < s->nsnaps; i++) {
		struct rec_snap *sn = &s->snaps[i];
		int fd;

		if (!sn->file[0])
			continue;
		/* perf's file as perf left it in the directory; perf reads it too */
		fd = inpath_open(s->outdir_fd, sn->file, INPATH_NOFOLLOW | INPATH_INHERIT,
				 sn->problem, sizeof(sn->problem));
		if (fd < 0 || perfdata_check(inpath_proc(fd, path, sizeof(path)), sn->problem,
					     sizeof(sn->problem)) != PERFDATA_FINISHED ||
		    (full && !perf_reads(s, path, sn)))
			n++;
		if (fd >= 0)
			close(fd);
	}
	return n;
}

/* The sample times of a snapshot file, read once (perfdata_sample_times). */
struct snap_samples {
	bool read;
	uint64_t *t;   /* ascending (owned) */
	size_t n;
};

/*
 * Whether sampling snapshot SN (the file in directory DIRFD; its samples cached in SM)
 * holds the hit WINDOW [FROM, TO]: a sample in it (a slow call: its entry
 * to its return); for an instant (FROM = TO) samples from before it and its
 * ring read at or after it (SN->time_ns, or a later sample).
 */
static bool snap_holds(int dirfd, const struct rec_snap *sn, struct snap_samples *sm,
		       uint64_t from, uint64_t to)
{
	char path[32], why[160];
	size_t lo = 0, hi;

	if (!sm->read) {
		/* through the directory held open, as every file of it */
		int fd = inpath_open(dirfd, sn->file, INPATH_NOFOLLOW, why, sizeof(why));

		if (fd < 0 || perfdata_sample_times(inpath_proc(fd, path, sizeof(path)), &sm->t,
						    &sm->n))
			sm->n = 0;
		if (fd >= 0)
			close(fd);
		sm->read = true;
	}
	if (!sm->n)
		return false;
	if (from == to)
		return sm->t[0] <= to && (sn->time_ns >= from || sm->t[sm->n - 1] >= from);
	/* the first sample at or after FROM */
	for (hi = sm->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->t[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sm->n && sm->t[lo] <= to;
}

/*
 * Gives each hit of a sampling recording the first snapshot that holds it
 * (snap_holds), the one it was given when that does; none when no snapshot
 * does (perf lost those samples: its ring paused while it wrote an earlier
 * snapshot, or overwritten). Intel PT snapshots hold no samples to tell:
 * their hits keep theirs.
 */
static void hits_held(struct rec_session *s)
{
	struct snap_samples *sm;

	if (s->plan.mode != REC_MODE_SAMPLING || !s->nhits || !s->nsnaps ||
	    !(sm = calloc((size_t)s->nsnaps, sizeof(*sm))))
		return;
	for (int i = 0; i < s->nhits; i++) {
		struct rec_hit_log *log = &s->hits[i];
		uint64_t from = log->hit.entry_ns ? log->hit.entry_ns : log->hit.time_ns;
		int k = log->snapshot, j;

		if (k >= 0 && k < s->nsnaps && s->snaps[k].file[0] && !s->snaps[k].problem[0] &&
		    snap_holds(s->outdir_fd, &s->snaps[k], &sm[k], from, log->hit.time_ns))
			continue;
		for (j = 0; j < s->nsnaps; j++)
			if (s->snaps[j].file[0] && !s->snaps[j].problem[0] &&
			    snap_holds(s->outdir_fd, &s->snaps[j], &sm[j], from, log->hit.time_ns))
				break;
		log->snapshot = j < s->nsnaps ? j : -1;
	}
	for (int j = 0; j < s->nsnaps; j++)
		free(sm[j].t);
	free(sm);
}

/* The binaries keep_binaries() has seen (paths, owned), each once. */
struct kept {
	char **path;
	size_t n, cap;
	int copied;
	int dirfd;              /* the cache: OUTDIR/PERFDATA_BINARIES_DIR; -1: not made */
	char shown[PATH_MAX];   /* the cache, for messages */
};

/*
 * Keeps the binary PATH a snapshot names with build id HEX (a file: not
 * [kernel.kallsyms], [vdso]) in the build-id cache K->dirfd, once: opened once
 * (inpath_open(): a regular file, reached as the kernel's
 * fs.protected_symlinks allows), its build id checked against HEX, and
 * copied from that descriptor (buildcache.h). PATH is another user's name:
 * nothing opens it again, so a file swapped meanwhile changes nothing.
 */
static int keep_one(void *arg, const char *hex, const char *path)
{
	struct kept *k = arg;
	char why[160], now[REC_BUILD_ID_HEX + 1];
	struct stat st;
	void *p;
	int fd, err;

	if (path[0] != '/' || strlen(hex) < 3)
		return 0;
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->path[i], path))
			return 0;
	if (!(p = array_grow(k->path, &k->cap, k->n, sizeof(*k->path))) ||
	    !(((char **)p)[k->n] = strdup(path))) {
		k->path = p ? p : k->path;
		return -ENOMEM;
	}
	k->path = p;
	k->n++;
	fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	if (fd < 0) {
		diag_warn("%s: not kept in %s: %s", path, k->shown, why);
		return 0;
	}
	if (fstat(fd, &st)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (rec_build_id(fd, now)) {
		snprintf(why, sizeof(why), "no ELF file");
	} else if (!perfdata_same_buildid(hex, now)) {
		snprintf(why, sizeof(why), "changed since the recording (its build id is %s, the "
			 "recording's %s)", now[0] ? now : "none", hex);
	} else if ((err = rec_build_cache_add(k->dirfd, path, fd, &st, now)) && err != -EEXIST) {
		snprintf(why, sizeof(why), "%s", strerror(-err));
	} else {
		why[0] = 0;
		k->copied++;
	}
	close(fd);
	if (why[0])
		diag_warn("%s: not kept in %s: %s", path, k->shown, why);
	return 0;
}

/*
 * --keep-binaries: copies every binary the finished snapshot files name by
 * build id (perfdata_buildids) into OUTDIR/PERFDATA_BINARIES_DIR, perf's
 * build-id cache layout, so that the recording converts the same once they
 * are rebuilt or removed (snaptrace-convert runs perf script with
 * --buildid-dir there).
 */
static void keep_binaries(struct rec_session *s)
{
	struct kept k = { .dirfd = -1 };
	char path[32], why[256];

	snprintf(k.shown, sizeof(k.shown), "%.3000s/%s", s->outdir, PERFDATA_BINARIES_DIR);
	if ((mkdirat(s->outdir_fd, PERFDATA_BINARIES_DIR, 0755) && errno != EEXIST) ||
	    (k.dirfd = openat(s->outdir_fd, PERFDATA_BINARIES_DIR,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		diag_warn("%s: no binaries kept: %s", k.shown, strerror(errno));
		return;
	}
	for (int i = 0; i < s->nsnaps; i++) {
		int fd;

		if (!s->snaps[i].file[0] || s->snaps[i].problem[0])
			continue;
		fd = inpath_open(s->outdir_fd, s->snaps[i].file, INPATH_NOFOLLOW, why, sizeof(why));
		if (fd < 0)
			continue;
		if (perfdata_buildids(inpath_proc(fd, path, sizeof(path)), keep_one, &k, why,
				      sizeof(why)) == -ENOMEM)
			diag_warn("out of memory: not every binary kept");
		close(fd);
	}
	close(k.dirfd);
	s->binaries_kept = k.copied;
	for (size_t i = 0; i < k.n; i++)
		free(k.path[i]);
	free(k.path);
}

/* Stops perf and settles which files hold the snapshots. Returns 0 or -errno. */
static int finish(struct rec_session *s)
{
	bool taken = !s->o->multi_snapshot && s->nsnaps > 0;
	double t0 = rec_now_ms();
	struct rec_snap *sn = NULL;
	int unfinished;

	if (rec_perf_clock_now(&s->end_ns))
		s->end_ns = 0;
	/* read before perf is told to stop: the files its stop writes reach it */
	s->stop_live_ns = s->perf.exited ? 0 : s->end_ns;
	if (!taken && s->plan.snap == REC_SNAP_SIGNAL_BLIND)
		rec_perf_signal(&s->perf, SIGUSR2);
	s->stop_requested = true;
	if (!s->perf.exited) {
		if (rec_perf_stop(&s->perf, STOP_TIMEOUT_MS))
			diag_warn("perf did not stop within %d s: killed", STOP_TIMEOUT_MS / 1000);
	} else {
		while (rec_perf_read_output(&s->perf) > 0)
			;
	}
	settle_dumps(s, true);
	if (!s->plan.switch_output && (!taken || s->plan.snap == REC_SNAP_AT_STOP)) {
		sn = new_snap(s, s->end, "perf.data", s->stop_live_ns);
		if (sn)
			sn->requested_ms = sn->frozen_ms = t0;
	}
	/* a hit whose snapshot perf's stop took (or that still waited for one): the last snapshot */
	if (s->want >= 0)
		s->hits[s->want].snapshot = SNAP_PENDING;
	/* the first snapshot read after it, else the last (perf's stop read it) */
	for (int i = 0; i < s->nhits; i++) {
		int k = holding_snapshot(s, s->hits[i].hit.time_ns);

		if (s->hits[i].snapshot == SNAP_PENDING)
			s->hits[i].snapshot = k >= 0 ? k : s->nsnaps && s->snaps[s->nsnaps - 1].file[0] ?
					      s->nsnaps - 1 : -1;
	}
	/* a hit still waiting for the arming when the recording ended (the target
	 * exited, --duration, Ctrl-C): the last snapshot holds it and all before */
	if (s->want >= 0 && s->hits[s->want].deferred && s->hits[s->want].snapshot >= 0)
		s->snaps[s->hits[s->want].snapshot].reason = RECORD_END_TRIGGER;
	unfinished = check_snaps(s);
	hits_held(s);
	if (s->o->keep_binaries)
		keep_binaries(s);
	rec_perfmaps_keep(s->outdir_fd, s->target.pids, s->target.npids);
	/* perf failed (a full disk, a write error...): what it wrote is listed, the recording failed */
	if (perf_status_failed(s->perf.status)) {
		perf_failed(s, "perf failed while recording");
		return -EIO;
	}
	for (int i = 0; i < s->nsnaps; i++) {
		if (!s->snaps[i].file[0]) {
			snprintf(s->error, sizeof(s->error), "perf did not write snapshot %d "
				 "(it printed no Dump line for it)", i + 1);
			return -ENODATA;
		}
	}
	if (unfinished) {
		snprintf(s->error, sizeof(s->error), "perf did not finish %d of the %d snapshot "
			 "files in %.400s (named below; record.json marks them)", unfinished,
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

	/* a full disk is named first: perf's own words for it may have scrolled away */
	if (strstr(log, strerror(ENOSPC)) || (!fstatvfs(s->outdir_fd, &vfs) && vfs.f_bavail == 0)) {
		for (int i = 0; i < s->nsnaps; i++) {
			kept += s->snaps[i].file[0] && !s->snaps[i].problem[0];
			unfinished += s->snaps[i].problem[0] != 0;
		}
		snprintf(full, sizeof(full), "%.300s: %s (ENOSPC): %.200s; the %d snapshot "
			 "file%s perf completed %s kept%s", s->outdir, strerror(ENOSPC), what, kept,
			 kept == 1 ? "" : "s", kept == 1 ? "is" : "are", unfinished ?
			 ", those it did not finish are marked (named below)" : "");
		what = full;
	}

	for (size_t i = 0; i < sizeof(perf_says) / sizeof(perf_says[0]); i++)
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
		rec_sigwatch_probe_aborts(&s->sig, s->target.launched ? s->exe : s->target.exe,
					  s->target.launched ? 0 : s->target.pids[0],
					  s->h->uprobe_type);
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

int rec_session_run(struct rec_session *s)
{
	double deadline = 0;
	char what[200], how[64], armed[400];
	int err;

	s->start_ms = rec_now_ms();
	s->exit_code = EXIT_RUNTIME;
	s->want = s->inflight = s->fatal = -1;
	rec_perf_set_clock(s->plan.clockid);	/* hits, signals, perfclock: the samples' clock */
	s->binaries_kept = -1;
	rec_slowcall_init(&s->slow, s->o->slower_than_ns);
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
	if (!s->o->multi_thread)
		rec_forks_open(&s->forks, s->target.pids, s->target.npids);
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
	s->ready_ms = rec_now_ms();
	s->armed_ms = s->ready_ms + s->arm.after_ms;
	if (s->have_trigger || s->sig_trigger)   /* said once perf runs: it may fail first */
		diag_info("%s", rec_arming_describe(&s->arm, armed, sizeof(armed)));
	rec_trigger_tsc(&s->trig, &s->tsc);
	for (int i = 0; i < s->nmeasures && !err; i++)
		err = rec_measure_enable(&s->measures[i]);
	if (err || (s->have_trigger && (err = rec_trigger_enable(&s->trig))) ||
	    (s->watch_signals && (err = rec_sigwatch_enable(&s->sig)))) {
		snprintf(s->error, sizeof(s->error), "cannot arm the trigger: %s", strerror(-err));
		rec_perf_stop(&s->perf, STOP_TIMEOUT_MS);
		goto out_perf;
	}
	collect_threads(s);
	s->stopped_at_start = stop_signal_pending();
	err = rec_target_release(&s->target);
	if (err) {
		snprintf(s->error, sizeof(s->error), "cannot start the target: %s", strerror(-err));
		rec_perf_stop(&s->perf, STOP_TIMEOUT_MS);
		goto out_perf;
	}
	diag_info("recording %s %d (%s); %s to stop",
		  s->target.launched ? "launched process" : s->target.tid ? "thread" : "process",
		  (int)(s->target.tid ? s->target.tid : s->target.pids[0]),
		  rec_plan_describe(&s->plan, s->have_trigger || s->sig_trigger, what,
				    sizeof(what)), rec_stop_how(how, sizeof(how)));
	if (s->o->duration_s > 0)
		deadline = rec_now_ms() + s->o->duration_s * 1e3;
	while (s->end == RECORD_END_NONE)
		loop_once(s, deadline);
	read_target_signals(s);   /* the last ones, before the targets' exit is told */
	collect_exits(s);
	for (int i = 0; i < s->forks.n; i++)
		s->children_unrecorded += rec_forks_count(&s->forks, i);
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
	if (!err)
		s->exit_code = EXIT_OK;
out_perf:
	if (!s->perf.exited)
		rec_perf_stop(&s->perf, STOP_TIMEOUT_MS);
	rec_perf_free(&s->perf);
out_trigger:
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
out_target:
	rec_target_finish(&s->target);
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
	if (!x->ended)
		return false;
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
