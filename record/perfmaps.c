/* SPDX-License-Identifier: MIT */
/* perfmaps: a JIT's perf maps kept in the recording (see perfmaps.h). */
#include "perfmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
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

/* Opens the map of each of PIDS M holds none of yet. */
static void look(struct rec_perfmaps *m, const pid_t *pids, int npids)
{
	bool all = true;

	for (int i = 0; i < npids && i < REC_MAX_PIDS; i++) {
		char why[200];

		if (m->fd[i] < 0)
			m->fd[i] = perfmap_open(pids[i], &m->rule, INPATH_OWNED, m->path[i],
						sizeof(m->path[i]), why, sizeof(why));
		if (m->fd[i] < 0) {
			m->fd[i] = -1;	/* refused or none: the end says why, if still so */
			all = false;
		}
	}
	if (all && m->notify >= 0) {
		close(m->notify);
		m->notify = -1;
	}
}

void rec_perfmaps_start(struct rec_perfmaps *m, const pid_t *pids, int npids,
			const struct perfmap_user *users, int nusers, bool launched)
{
	m->started = true;
	memcpy(m->users, users, (size_t)nusers * sizeof(*users));
	/* a target of no user told: nobody's map is its */
	m->rule = (struct perfmap_users){ m->users, (size_t)nusers, (uid_t)-1, true };
	for (int i = 0; i < REC_MAX_PIDS; i++)
		m->fd[i] = -1;
	m->notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->notify >= 0 &&
	    inotify_add_watch(m->notify, "/tmp", IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		close(m->notify);
		m->notify = -1;
	}
	if (!launched)
		look(m, pids, npids);
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

void rec_perfmaps_notified(struct rec_perfmaps *m, const pid_t *pids, int npids)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool seen = false;
	ssize_t r;

	if (rec_perfmaps_fd(m) < 0)
		return;
	while ((r = read(m->notify, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + r;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;

			if ((e->mask & IN_Q_OVERFLOW) || (e->len && map_name(e->name, e->len)))
				seen = true;
			p += sizeof(*e) + e->len;
		}
	}
	if (seen)
		look(m, pids, npids);
}

void rec_perfmaps_free(struct rec_perfmaps *m)
{
	if (!m || !m->started)
		return;
	for (int i = 0; i < REC_MAX_PIDS; i++) {
		if (m->fd[i] >= 0)
			close(m->fd[i]);
		m->fd[i] = -1;
	}
	if (m->notify >= 0)
		close(m->notify);
	m->notify = -1;
	m->started = false;
}

int rec_perfmaps_keep(struct rec_perfmaps *m, int outdir_fd, const pid_t *pids, int npids)
{
	struct perfmap_budget budget = { 0 };
	const struct perfmap_users none = { NULL, 0, (uid_t)-1, false };
	const struct perfmap_users *rule = m && m->started ? &m->rule : &none;
	int kept = 0;

	for (int i = 0; i < npids; i++) {
		char path[64], name[64], why[200];
		struct stat st;
		int fd = -1, err;

		snprintf(name, sizeof(name), PERFMAP_KEPT, (int)pids[i]);
		/* the one opened while the process lived: gone from /tmp by now, maybe */
		if (m && m->started && i < REC_MAX_PIDS && m->fd[i] >= 0) {
			fd = m->fd[i];
			m->fd[i] = -1;
			snprintf(path, sizeof(path), "%s", m->path[i]);
		} else {
			fd = perfmap_open(pids[i], rule, INPATH_OWNED, path, sizeof(path), why,
					  sizeof(why));
		}
		if (fd == -ENOENT)
			continue;   /* no JIT there */
		if (fd < 0) {
			diag_warn("%s: not kept in the recording: %s", path, why);
			continue;
		}
		err = fstat(fd, &st) ? -errno : 0;
		if (!err && (uint64_t)st.st_size > PERFMAP_MAX)
			diag_warn("%s: not kept in the recording: %lld bytes, more than %u",
				  path, (long long)st.st_size, PERFMAP_MAX);
		else if (!err && perfmap_budget_take(&budget, (uint64_t)st.st_size)) {
			err = lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
			if (!err)
				err = copy_into(fd, st.st_size, outdir_fd, name);
			if (err)
				diag_warn("%s: not kept in the recording: %s", path, strerror(-err));
			else
				kept++;
		}
		close(fd);
	}
	perfmap_budget_warn(&budget, "not kept in the recording");
	rec_perfmaps_free(m);
	return kept;
}
