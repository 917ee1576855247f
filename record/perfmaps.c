/* SPDX-License-Identifier: MIT */
/* perfmaps: a JIT's perf maps kept in the recording (see perfmaps.h). */
#include "perfmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "inpath.h"
#include "perfmap.h"

/* Copies FD (SIZE bytes) into NAME, new in OUTDIR_FD. Returns 0 or a negative errno. */
static int copy_into(int fd, off_t size, int outdir_fd, const char *name)
{
	char buf[65536];
	off_t done = 0;
	ssize_t r = 0;
	int out = openat(outdir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 0600);

	if (out < 0)
		return -errno;
	while (done < size && (r = read(fd, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)r) != r) {
			r = -1;
			break;
		}
		done += r;
	}
	if (r < 0 || close(out)) {
		int err = -errno;

		unlinkat(outdir_fd, name, 0);
		return err ? err : -EIO;
	}
	return 0;
}

/* Whether P is still the process M held (its pid not another's by now). */
static bool same(const struct rec_perfmap_proc *p)
{
	if (p->held.pidfd >= 0)
		return !rec_proc_still_held(&p->held);
	return p->held.start && rec_proc_start_time(p->held.pid) == p->held.start;
}

void rec_perfmaps_note(struct rec_perfmaps *m, const struct perfmap_user *u)
{
	struct perfmap_user now = *u;
	int seen = 0;

	for (int i = 0; i < m->nproc; i++)
		if (m->proc[i].held.pid == u->pid) {
			now.born = m->proc[i].seen.born;
			m->proc[i].seen = now;
		}
	for (size_t i = 0; i < m->nusers; i++)
		if (m->users[i].pid == u->pid) {
			if (m->users[i].uid[0] == u->uid[0] && m->users[i].uid[1] == u->uid[1])
				return;
			seen++;
		}
	/* two users already refuse it every map from /tmp */
	if (seen < 2 && m->nusers < REC_PERFMAPS_USERS)
		m->users[m->nusers++] = now;
	m->rule.n = m->nusers;
}

/* Notes the user P's process has now, while it is the one held. */
static void note_live(struct rec_perfmaps *m, const struct rec_perfmap_proc *p)
{
	struct perfmap_user u = { .pid = p->held.pid };

	if (!rec_proc_uids(u.pid, u.uid) && same(p))
		rec_perfmaps_note(m, &u);
}

/* When a process that started START clock ticks after boot came to be, in
 * ns since the epoch (the start time counts CLOCK_BOOTTIME); 0: not known. */
static int64_t born_ns(uint64_t start)
{
	struct timespec real, boot;
	long hz = sysconf(_SC_CLK_TCK);

	if (!start || hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) ||
	    clock_gettime(CLOCK_BOOTTIME, &boot))
		return 0;
	return (int64_t)(real.tv_sec - boot.tv_sec) * 1000000000 + real.tv_nsec - boot.tv_nsec +
	       (int64_t)start * (1000000000 / hz);
}

/* Whether the map P holds is still its by the user it was last seen as
 * (one root as its map was opened may have dropped to another user since:
 * root's map is not that user's); when not, it is let go, WHY (WSIZE
 * bytes) saying why. */
static bool still_its(struct rec_perfmap_proc *p, char *why, size_t wsize)
{
	struct perfmap_users last = { &p->seen, p->seen.pid ? 1 : 0, (uid_t)-1, false };
	struct stat st;

	if (p->fd < 0)
		return false;
	if (fstat(p->fd, &st))
		st = (struct stat){ .st_uid = (uid_t)-1 };	/* nobody's */
	if (perfmap_file_ok(&last, &st, p->held.pid, why, wsize))
		return true;
	close(p->fd);
	p->fd = -EPERM;
	return false;
}

/* Whether ST (0: fstat's or lstat's answer) is the file that was at P's
 * map's name before P's launched program ran, unchanged since (not
 * written, not renamed). */
static bool stale(const struct rec_perfmap_proc *p, int rc, const struct stat *st)
{
	return p->stale.st_ino && !rc && st->st_dev == p->stale.st_dev &&
	       st->st_ino == p->stale.st_ino && st->st_size == p->stale.st_size &&
	       st->st_mtim.tv_sec == p->stale.st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == p->stale.st_mtim.tv_nsec &&
	       st->st_ctim.tv_sec == p->stale.st_ctim.tv_sec &&
	       st->st_ctim.tv_nsec == p->stale.st_ctim.tv_nsec;
}

/* Opens P's map (a negative errno into P->fd when none; WHY, WSIZE bytes,
 * says why), judged against its user as it is opened, the process the one
 * held after that. The file at its name before its launched program ran,
 * unchanged, is none of its (a stale map of an earlier process: -ENOENT,
 * nothing to say), looked at before the map is judged and again on what was
 * opened: a program that never ran, gone by the end, got a warning about
 * another process's map (issue 24's trial: "owned by uid 0, process N gone
 * before its map was opened", "a stale map, not its"). */
static void open_map(struct rec_perfmaps *m, struct rec_perfmap_proc *p, char *why,
		     size_t wsize)
{
	char path[64];
	struct stat st;
	int rc;

	snprintf(path, sizeof(path), PERFMAP_PATH, (int)p->held.pid);
	rc = fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
	if (stale(p, rc, &st)) {
		p->fd = -ENOENT;
		return;
	}
	note_live(m, p);
	p->fd = perfmap_open(p->held.pid, &m->rule, INPATH_OWNED, p->path, sizeof(p->path), why,
			     wsize);
	note_live(m, p);	/* ... and as it was when judged, if it changed meanwhile */
	if (p->fd >= 0 && !same(p)) {
		close(p->fd);
		p->fd = -ESRCH;
		snprintf(why, wsize, "process %d ended as its map was opened", (int)p->held.pid);
	} else if (p->fd >= 0 && (rc = fstat(p->fd, &st), stale(p, rc, &st))) {
		close(p->fd);
		p->fd = -ENOENT;
	}
}

/* Notes the user each of M's processes has now, lets go of a map no longer
 * its user's, and opens the map of each it holds none of yet. */
static void look(struct rec_perfmaps *m)
{
	bool all = true;

	for (int i = 0; i < m->nproc; i++) {
		char why[300];

		note_live(m, &m->proc[i]);
		still_its(&m->proc[i], why, sizeof(why));
		if (m->proc[i].fd < 0 && same(&m->proc[i]))
			open_map(m, &m->proc[i], why, sizeof(why));
		if (m->proc[i].fd < 0)
			m->proc[i].fd = -1;	/* refused or none: the end says why, if still so */
		all &= m->proc[i].fd >= 0;
	}
	/* without children to come, every map held ends the watch: no wake-up
	 * for each name made in /tmp for the rest of the recording */
	if (all && !m->children && m->notify >= 0) {
		close(m->notify);
		m->notify = -1;
	}
}

/* Holds process PID as M's next (its user not noted yet). Returns it, or
 * NULL when it is gone. */
static struct rec_perfmap_proc *add(struct rec_perfmaps *m, pid_t pid)
{
	struct rec_perfmap_proc *p = &m->proc[m->nproc];
	int err = rec_proc_hold(pid, 0, &p->held);

	if (err == -ESRCH)
		return NULL;
	if (err) {	/* no pidfd here: the start time alone */
		p->held = (struct rec_proc_held){ pid, -1, rec_proc_start_time(pid) };
		if (!p->held.start)
			return NULL;
	}
	p->fd = -1;
	p->stale.st_ino = 0;
	p->seen = (struct perfmap_user){ .born = born_ns(p->held.start) };
	m->nproc++;
	return p;
}

void rec_perfmaps_start(struct rec_perfmaps *m, const pid_t *pids, int npids, bool launched,
			bool children)
{
	memset(m, 0, sizeof(*m));
	m->started = true;
	m->launched = launched;
	m->children = children;
	/* a process of no user noted: nobody's map is its */
	m->rule = (struct perfmap_users){ m->users, 0, (uid_t)-1, true };
	for (int i = 0; i < npids && i < REC_MAX_PIDS; i++) {
		struct rec_perfmap_proc *p = add(m, pids[i]);
		char path[64];

		if (!p)
			continue;
		note_live(m, p);
		snprintf(path, sizeof(path), PERFMAP_PATH, (int)pids[i]);
		if (launched && fstatat(AT_FDCWD, path, &p->stale, AT_SYMLINK_NOFOLLOW))
			p->stale.st_ino = 0;
	}
	m->ntargets = m->nproc;
	m->notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->notify >= 0 &&
	    inotify_add_watch(m->notify, "/tmp", IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		close(m->notify);
		m->notify = -1;
	}
	if (!launched)
		look(m);
}

int rec_perfmaps_fd(const struct rec_perfmaps *m)
{
	return m->started ? m->notify : -1;
}

/* Whether NAME (LEN bytes, NUL padded) may be a perf map's: "perf-...map". */
static bool map_name(const char *name, size_t len)
{
	size_t n = strnlen(name, len);

	return n > 9 && !strncmp(name, "perf-", 5) && !strcmp(name + n - 4, ".map");
}

/* Whether the process P holds descends from one of M's targets: each parent
 * started no later than its child (a pid reused by a later process is no
 * parent), up to a target, or for a launched one to the recorder (which
 * reaps the orphans of what it launched) through a process other than PERF. */
static bool descends(const struct rec_perfmaps *m, const struct rec_perfmap_proc *p, pid_t perf)
{
	pid_t cur = p->held.pid, parent;
	uint64_t start = rec_proc_parent(cur, &parent);

	if (start != p->held.start)
		return false;
	for (int depth = 0; depth < 64 && start && parent > 1; depth++) {
		uint64_t up;
		pid_t next;

		for (int i = 0; i < m->ntargets; i++)
			if (parent == m->proc[i].held.pid)
				return m->proc[i].held.start <= start && same(&m->proc[i]);
		if (parent == getpid())
			return m->launched && cur != perf;
		up = rec_proc_parent(parent, &next);
		if (!up || up > start)
			return false;
		cur = parent;
		parent = next;
		start = up;
	}
	return false;
}

/* A map named NAME appeared: when it is perf-N.map of a process N M does not
 * judge yet that descends from a target, it is judged from now on. */
static void appeared(struct rec_perfmaps *m, const char *name, pid_t perf)
{
	char dso[300];
	struct rec_perfmap_proc *p;
	pid_t pid;

	snprintf(dso, sizeof(dso), "/tmp/%s", name);
	pid = perfmap_pid(dso, strlen(dso));
	if (pid <= 0)
		return;
	for (int i = 0; i < m->nproc; i++)
		if (m->proc[i].held.pid == pid)
			return;
	if (!m->children)
		return;	/* perf records none of their children */
	if (m->nproc == REC_PERFMAPS_PROCS) {
		m->left_out++;
		return;
	}
	p = add(m, pid);
	if (p && descends(m, p, perf)) {
		note_live(m, p);
	} else if (p) {
		rec_proc_release(&p->held);
		m->nproc--;
	}
}

/* The most descendants rec_perfmaps_rescan() looks at. */
#define REC_PERFMAPS_RESCAN 1024

void rec_perfmaps_rescan(struct rec_perfmaps *m, pid_t perf)
{
	pid_t pids[REC_PERFMAPS_RESCAN];
	int n = 0;

	if (!m->started || !m->children)
		return;
	for (int i = 0; i < m->ntargets; i++)
		if (same(&m->proc[i]))
			n = rec_proc_children(m->proc[i].held.pid, pids, n, REC_PERFMAPS_RESCAN);
	if (m->launched)
		n = rec_proc_children(getpid(), pids, n, REC_PERFMAPS_RESCAN);
	for (int i = 0; i < n; i++) {
		char path[64];
		struct stat st;

		if (pids[i] == perf)
			continue;
		snprintf(path, sizeof(path), PERFMAP_PATH, (int)pids[i]);
		if (!fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW))
			appeared(m, path + 5, perf);	/* its name in /tmp */
		n = rec_proc_children(pids[i], pids, n, REC_PERFMAPS_RESCAN);
	}
}

void rec_perfmaps_notified(struct rec_perfmaps *m, pid_t perf)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool seen = false, lost = false;
	ssize_t r;

	if (rec_perfmaps_fd(m) < 0)
		return;
	/* one read a call: a flood of names in /tmp (anyone's) waits for the
	 * next poll, after the recorder's signals, perf and triggers */
	if ((r = read(m->notify, buf, sizeof(buf))) <= 0)
		return;
	for (char *p = buf; p < buf + r;) {
		const struct inotify_event *e = (const struct inotify_event *)(void *)p;
		bool map = e->len && map_name(e->name, e->len);

		if (map)
			appeared(m, e->name, perf);
		lost |= (e->mask & IN_Q_OVERFLOW) != 0;
		seen |= map;
		p += sizeof(*e) + e->len;
	}
	if (lost)
		rec_perfmaps_rescan(m, perf);	/* the names lost: whose map is there now */
	if (seen || lost)
		look(m);
}

const struct perfmap_user *rec_perfmaps_users(const struct rec_perfmaps *m, size_t *n)
{
	*n = m->nusers;
	return m->users;
}

void rec_perfmaps_free(struct rec_perfmaps *m)
{
	if (!m || !m->started)
		return;
	for (int i = 0; i < m->nproc; i++) {
		if (m->proc[i].fd >= 0)
			close(m->proc[i].fd);
		m->proc[i].fd = -1;
		rec_proc_release(&m->proc[i].held);
	}
	if (m->notify >= 0)
		close(m->notify);
	m->notify = -1;
	m->started = false;
}

int rec_perfmaps_keep(struct rec_perfmaps *m, int outdir_fd)
{
	struct perfmap_budget budget = { 0 };
	int kept = 0;

	if (!m->started)
		return 0;
	for (int i = 0; i < m->nproc; i++)
		note_live(m, &m->proc[i]);	/* the user it ends the recording as */
	for (int i = 0; i < m->nproc; i++) {
		struct rec_perfmap_proc *p = &m->proc[i];
		char name[64], why[300];
		struct stat st;
		int fd, err;

		snprintf(name, sizeof(name), PERFMAP_KEPT, (int)p->held.pid);
		/* the one opened while the process lived (gone from /tmp by now,
		 * maybe) if still its user's, else the one there now */
		if (!still_its(p, why, sizeof(why)))
			open_map(m, p, why, sizeof(why));
		fd = p->fd;
		p->fd = -1;
		if (fd == -ENOENT)
			continue;   /* no JIT there */
		if (fd < 0) {
			diag_warn("%s: not kept in the recording: %s", p->path, why);
			continue;
		}
		err = fstat(fd, &st) ? -errno : 0;
		if (!err && (uint64_t)st.st_size > PERFMAP_MAX)
			diag_warn("%s: not kept in the recording: %lld bytes, more than %u",
				  p->path, (long long)st.st_size, PERFMAP_MAX);
		else if (!err && perfmap_budget_take(&budget, (uint64_t)st.st_size)) {
			err = lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
			if (!err)
				err = copy_into(fd, st.st_size, outdir_fd, name);
			if (err)
				diag_warn("%s: not kept in the recording: %s", p->path, strerror(-err));
			else
				kept++;
		}
		close(fd);
	}
	perfmap_budget_warn(&budget, "not kept in the recording");
	if (m->left_out)
		diag_warn("%u processes started by the recorded ones wrote a JIT perf map past "
			  "the %d processes a recording judges: their maps are not kept, their "
			  "functions show as addresses", m->left_out, REC_PERFMAPS_PROCS);
	rec_perfmaps_free(m);
	return kept;
}
