/* SPDX-License-Identifier: MIT */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "hitholder.h"
#include "inpath.h"
#include "perfclock.h"
#include "perfdata.h"
#include "procfs.h"
#include "run.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The entry of thread TID of process PID in S->threads, added if new; NULL on out-of-memory. */
static struct rec_thread_info *thread_info(struct rec_session *s, pid_t pid, pid_t tid)
{
	struct rec_thread_info *ti;

	for (int k = 0; k < s->nthreads; k++)
		if (s->threads[k].tid == tid)
			return &s->threads[k];
	if (array_reserve((void **)&s->threads, &s->threads_cap, (size_t)s->nthreads + 1,
		    sizeof(*s->threads)))
		return NULL;
	ti = &s->threads[s->nthreads++];
	memset(ti, 0, sizeof(*ti));
	ti->pid = pid;
	ti->tid = tid;
	return ti;
}

void rec_snapshot_start(struct rec_session *s)
{
	if (rec_perf_clock_now(&s->start_ns))
		s->start_ns = 0;
	rec_snapshot_threads(s);
	for (int i = 0; !s->target.launched && i < s->nthreads; i++) {
		struct rec_thread_info *ti = &s->threads[i];

		if (rec_proc_state(ti->pid, ti->tid, &ti->state, ti->wchan, sizeof(ti->wchan)))
			ti->state = 0;
	}
}

void rec_snapshot_threads(struct rec_session *s)
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

struct rec_snap *rec_snapshot_new(struct rec_session *s, enum record_end reason, const char *file,
				 uint64_t live_ns)
{
	struct rec_snap *sn;

	if (array_reserve((void **)&s->snaps, &s->snaps_cap, (size_t)s->nsnaps + 1, sizeof(*s->snaps)))
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
 * perf names each file it switches to by the wall time of the switch to
 * 10 ms (builtin-record.c, fetch_current_timestamp(): "%Y%m%d%H%M%S" and
 * the hundredths): a second switch within them renames its file over the
 * first's (a snapshot written in under 10 ms: an empty one on a full disk,
 * perf's stop just after a snapshot). The snapshot that held FILE, if any,
 * has lost it: it is listed without a file, with why.
 */
static void replaced_by_next(struct rec_session *s, const char *file)
{
	for (int i = 0; i < s->nsnaps; i++) {
		struct rec_snap *sn = &s->snaps[i];

		if (!sn->file[0] || strcmp(sn->file, file))
			continue;
		snprintf(sn->problem, sizeof(sn->problem), "lost: perf gave the next file it "
			 "switched to the same name, %.40s (perf names them to the 10 ms), "
			 "replacing it", file);
		sn->file[0] = '\0';
	}
}

void rec_snapshot_settle(struct rec_session *s, bool final)
{
	for (; s->dumps_used < s->perf.ndumps; s->dumps_used++) {
		const char *file = s->perf.dumps[s->dumps_used];
		struct rec_snap *sn;

		if (s->inflight < 0 && !final)
			return;
		replaced_by_next(s, base_name(file));
		if (s->inflight >= 0) {
			sn = &s->snaps[s->inflight];
			snprintf(sn->file, sizeof(sn->file), "%s", base_name(file));
			sn->done_ms = rec_now_ms();
			s->inflight = -1;
			rec_snapshot_threads(s);
		} else if (s->drop_dumps) {
			unlinkat(s->outdir_fd, base_name(file), 0);
		} else if (!(sn = rec_snapshot_new(s, s->end, file, s->stop_live_ns))) {
			diag_warn("%s: out of memory: not listed in record.json", file);
		} else if (s->stop_ms > 0) {
			/* perf's stop wrote it: asked for then, after the one in flight */
			sn->requested_ms = sn->frozen_ms = s->stop_ms;
		}
	}
}

void rec_snapshot_leftover(struct rec_session *s)
{
	const char *name = base_name(s->perf.out);
	struct rec_snap *sn;
	struct stat st;

	if (!s->plan.switch_output || !s->perf.ndumps ||
	    fstatat(s->outdir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (s->inflight >= 0) {
		sn = &s->snaps[s->inflight];
		s->inflight = -1;
	} else if (s->drop_dumps) {   /* after the snapshot taken, as the stop's dumps */
		unlinkat(s->outdir_fd, name, 0);
		return;
	} else if (!(sn = rec_snapshot_new(s, s->end, name, s->stop_live_ns))) {
		diag_warn("%s: out of memory: not listed in record.json", name);
		return;
	}
	snprintf(sn->file, sizeof(sn->file), "%s", name);
}

int rec_snapshot_wait(struct rec_session *s, int timeout_ms)
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
		rec_snapshot_settle(s, false);
	}
	return 0;
}

int rec_snapshot_take(struct rec_session *s, enum record_end reason)
{
	double t0 = rec_now_ms(), t_frozen = t0;
	struct rec_snap *sn;
	int err;

	switch (s->plan.snap) {
	case REC_SNAP_SIGNAL_DUMP:
		/* freeze the ring first: what follows the trigger overwrites nothing */
		/* -EPIPE: perf is gone, which the end of the recording reports */
		if (s->plan.freeze &&
		    (err = rec_perf_control(&s->perf, "disable", REC_SNAPSHOT_TIMEOUT_MS)) &&
		    err != -EPIPE)
			diag_warn("perf did not acknowledge \"disable\" (%s): the snapshot may "
				  "also hold samples taken just after the trigger", strerror(-err));
		t_frozen = rec_now_ms();
		sn = rec_snapshot_new(s, reason, "", 0);
		if (!sn || rec_perf_signal(&s->perf, SIGUSR2)) {
			s->nsnaps -= sn != NULL;
			return -1;
		}
		s->inflight = (int)(sn - s->snaps);
		sn->requested_ms = t0;
		sn->frozen_ms = t_frozen;
		if (s->o->multi_snapshot)
			return s->inflight;
		err = rec_snapshot_wait(s, REC_SNAPSHOT_TIMEOUT_MS);
		if (err && err != -EPIPE)
			diag_warn("perf did not confirm the snapshot: %s", strerror(-err));
		s->drop_dumps = true;
		return (int)(sn - s->snaps);
	case REC_SNAP_CONTROL:
		err = rec_perf_control(&s->perf, "snapshot", REC_SNAPSHOT_TIMEOUT_MS);
		if (err) {
			if (err != -EPIPE)
				diag_warn("perf did not acknowledge the snapshot: %s%s%s",
					  strerror(-err), s->perf.stuck[0] ? "; perf " : "",
					  s->perf.stuck);
			return -1;
		}
		/* nothing after the snapshot: perf's exit snapshot then adds nothing */
		rec_perf_control(&s->perf, "disable", REC_SNAPSHOT_TIMEOUT_MS);
		sn = rec_snapshot_new(s, reason, "perf.data", 0);
		break;
	case REC_SNAP_SIGNAL_BLIND:
		if (rec_perf_signal(&s->perf, SIGUSR2))
			return -1;
		sn = rec_snapshot_new(s, reason, "perf.data", 0);
		break;
	case REC_SNAP_AT_STOP:
	default:
		return REC_SNAPSHOT_PENDING;
	}
	if (!sn)
		return -1;
	sn->requested_ms = sn->frozen_ms = t0;
	rec_snapshot_threads(s);
	return (int)(sn - s->snaps);
}

int rec_snapshot_read_after(const struct rec_session *s, uint64_t time_ns)
{
	for (int i = 0; i < s->nsnaps; i++)
		if (s->snaps[i].file[0] && s->snaps[i].time_ns && s->snaps[i].time_ns >= time_ns)
			return i;
	return -1;
}

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

int rec_snapshot_check(struct rec_session *s)
{
	char path[32];
	struct statvfs vfs;
	bool full = !fstatvfs(s->outdir_fd, &vfs) && vfs.f_bavail == 0;
	int n = 0;

	for (int i = 0; i < s->nsnaps; i++) {
		struct rec_snap *sn = &s->snaps[i];
		int fd;

		if (!sn->file[0]) {
			n += sn->problem[0] != '\0';   /* lost (replaced_by_next()) */
			continue;
		}
		/* perf's file as perf left it in the directory; perf reads it too */
		fd = inpath_open(s->outdir_fd, sn->file, INPATH_NOFOLLOW,
				 sn->problem, sizeof(sn->problem));
		if (fd == -ENOENT) {
			/* announced, never there (perf's rename failed): listed without it */
			snprintf(sn->problem, sizeof(sn->problem), "lost: perf announced %.40s, "
				 "which is not in the directory", sn->file);
			sn->file[0] = '\0';
		}
		if (fd < 0 || perfdata_check(inpath_proc(fd, path, sizeof(path)), sn->problem,
					     sizeof(sn->problem)) != PERFDATA_FINISHED ||
		    (full && !perf_reads(s, path, sn)))
			n++;
		if (fd >= 0)
			close(fd);
	}
	return n;
}

/* What snapshot SN (its file in directory DIRFD) holds, into *SP: the span
 * of its samples and context switches read from the file
 * (perfdata_sample_times), and the times of its samples of the sampled
 * event (REC_PLAN_SAMPLED_EVENT) into *SAMPLED (a new array the caller
 * frees, borrowed by SP); none when it has a problem or cannot be read. */
static void snap_span(int dirfd, const struct rec_snap *sn, struct rec_snap_span *sp,
		      uint64_t **sampled)
{
	char path[32], why[160];
	struct perfdata_time *t = NULL;
	int fd;

	memset(sp, 0, sizeof(*sp));
	*sampled = NULL;
	sp->read_ns = sn->time_ns;
	if (!sn->file[0] || sn->problem[0])
		return;
	/* through the directory held open, as every file of it */
	fd = inpath_open(dirfd, sn->file, INPATH_NOFOLLOW, why, sizeof(why));
	if (fd >= 0 && !perfdata_sample_times(inpath_proc(fd, path, sizeof(path)), &t,
					      &sp->samples) && sp->samples &&
	    (*sampled = malloc(sp->samples * sizeof(**sampled)))) {
		sp->first_ns = t[0].ns;
		sp->last_ns = t[sp->samples - 1].ns;
		for (size_t i = 0; i < sp->samples; i++)
			if (t[i].event == REC_PLAN_SAMPLED_EVENT)
				(*sampled)[sp->nsampled++] = t[i].ns;
		sp->sampled = *sampled;
	} else {
		sp->samples = 0;
	}
	free(t);
	if (fd >= 0)
		close(fd);
}

/* Gives LOG the place of its hit in SPANS (N). */
static void hit_held(struct rec_hit_log *log, const struct rec_snap_span *spans, int n)
{
	struct rec_hit_place p = rec_hit_holder(spans, n, log->hit.entry_ns, log->hit.time_ns);

	log->snapshot = p.snapshot;
	log->call_first = p.call_first;
	log->call_last = p.call_last;
}

void rec_snapshot_hits_held(struct rec_session *s)
{
	struct rec_snap_span *spans;
	uint64_t **sampled;

	if (s->plan.mode != REC_MODE_SAMPLING || !(s->nhits + s->ncoalesced) || !s->nsnaps)
		return;
	spans = calloc((size_t)s->nsnaps, sizeof(*spans));
	sampled = calloc((size_t)s->nsnaps, sizeof(*sampled));
	if (spans && sampled) {
		for (int k = 0; k < s->nsnaps; k++)
			snap_span(s->outdir_fd, &s->snaps[k], &spans[k], &sampled[k]);
		for (int i = 0; i < s->nhits; i++)
			hit_held(&s->hits[i], spans, s->nsnaps);
		for (int i = 0; i < s->ncoalesced; i++)
			hit_held(&s->coalesced[i], spans, s->nsnaps);
		for (int k = 0; k < s->nsnaps; k++)
			free(sampled[k]);
	}
	free(sampled);
	free(spans);
}
