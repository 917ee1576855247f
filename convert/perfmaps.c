/* SPDX-License-Identifier: MIT */
/* perfmaps: a JIT's frames named from the kept perf map (see perfmaps.h). */
#include "perfmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "inpath.h"
#include "recording.h"

/* Whether the file at /tmp/perf-PID.map holds exactly M's text (0), differs (1),
 * is not there (-1), or is not read (-2, WHY says why: no regular file, a
 * link, not the recorded process's user's as C's input tells it, or older
 * than the process: perfmap_file_ok(); perf was not given it either: tmpview.h). */
static int original_state(const struct conv *c, const struct conv_perfmap *p, char *why,
			  size_t size)
{
	char path[64];
	struct perfmap now;
	struct stat st;
	int fd, r;

	snprintf(path, sizeof(path), PERFMAP_PATH, (int)p->pid);
	fd = inpath_open(AT_FDCWD, path, INPATH_NOFOLLOW, why, size);
	if (fd < 0)
		return fd == -ENOENT ? -1 : -2;
	if (fstat(fd, &st))
		st = (struct stat){ .st_uid = (uid_t)-1 };	/* nobody's */
	if (!perfmap_file_ok(&c->perfmap_users, &st, p->pid, why, size)) {
		close(fd);
		return -2;
	}
	/* read only to be compared with the copy, as long as it: a map of
	 * 256 MiB (a sparse file of another user's) was read for nothing */
	if (!p->kept || (uint64_t)st.st_size != strlen(p->m.text)) {
		close(fd);
		return 1;
	}
	r = perfmap_read(fd, p->pid, &now);
	close(fd);
	if (r)
		return 1;
	r = strcmp(now.text, p->m.text) ? 1 : 0;
	perfmap_free(&now);
	return r;
}

/* Whether a copy of PID's map (PERFMAP_KEPT) sits beside the input INPUT
 * with a record.json: a recording's snapshot converted alone; its directory
 * into DIR (SIZE bytes), for the warning that names it. */
static bool copy_beside(const char *input, pid_t pid, char *dir, size_t size)
{
	const char *slash = input ? strrchr(input, '/') : NULL;
	char path[PATH_MAX + 64];
	struct stat st;

	if (!input || !strcmp(input, "-"))
		return false;
	if (slash)
		snprintf(dir, size, "%.*s", slash == input ? 1 : (int)(slash - input), input);
	else
		snprintf(dir, size, ".");
	snprintf(path, sizeof(path), "%s/" PERFMAP_KEPT, dir, (int)pid);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "%s/record.json", dir);
	return !fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

/* Loads the copy of PID's map kept in one of C's recordings into *P. */
static void load(struct conv *c, struct conv_perfmap *p)
{
	char name[64], why[200], dir[PATH_MAX];
	struct stat st;
	int state;

	snprintf(name, sizeof(name), PERFMAP_KEPT, (int)p->pid);
	for (size_t i = 0; i < c->nrecs && !p->kept; i++) {
		int fd;

		if (c->recs[i]->dirfd < 0)
			continue;
		fd = inpath_open(c->recs[i]->dirfd, name, INPATH_NOFOLLOW, why, sizeof(why));
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && (uint64_t)st.st_size <= PERFMAP_MAX &&
		    perfmap_budget_take(&c->perfmap_budget, (uint64_t)st.st_size))
			p->kept = !perfmap_read(fd, p->pid, &p->m);
		close(fd);
	}
	state = original_state(c, p, why, sizeof(why));
	p->override = p->kept && state != 0;
	if (!p->kept && state == -1 && copy_beside(c->input_name, p->pid, dir, sizeof(dir)))
		diag_warn("the JIT's perf map " PERFMAP_PATH " is gone: its functions show as "
			  "addresses; convert the recording directory %s, which holds a copy",
			  (int)p->pid, dir);
	else if (!p->kept && state == -1)
		diag_warn("the JIT's perf map " PERFMAP_PATH " is gone: its functions show as "
			  "addresses", (int)p->pid);
	else if (!p->kept && state == -2)
		diag_warn("the JIT's perf map " PERFMAP_PATH " is not read (%s): its functions "
			  "show as addresses", (int)p->pid, why);
}

/* The perf map of PID, loaded on first use; NULL when out of memory. */
static struct conv_perfmap *map_of(struct conv *c, pid_t pid)
{
	struct conv_perfmap *p;
	void *g;

	for (size_t i = 0; i < c->nperfmaps; i++)
		if (c->perfmaps[i].pid == pid)
			return &c->perfmaps[i];
	g = array_grow(c->perfmaps, &c->capperfmaps, c->nperfmaps, sizeof(*c->perfmaps));
	if (!g)
		return NULL;
	c->perfmaps = g;
	p = &c->perfmaps[c->nperfmaps++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	load(c, p);
	return p;
}

bool conv_perfmap_name(struct conv *c, struct conv_loc *loc)
{
	pid_t pid = perfmap_pid(loc->dso.s, loc->dso.len);
	const struct perfmap_sym *s;
	struct conv_perfmap *p;

	if (pid < 0 || !(p = map_of(c, pid)) || !p->kept || (loc->sym.len && !p->override))
		return false;
	s = perfmap_lookup(&p->m, loc->ip);
	loc->func = NULL;
	if (!s) {
		loc->sym = (struct conv_span){ NULL, 0 };
		loc->has_symoff = false;
		return true;
	}
	loc->sym = (struct conv_span){ s->name, s->len };
	loc->symoff = loc->ip - s->start;
	loc->has_symoff = true;
	return true;
}

void conv_perfmaps_free(struct conv *c)
{
	perfmap_budget_warn(&c->perfmap_budget, "not read from the recording");
	for (size_t i = 0; i < c->nperfmaps; i++)
		perfmap_free(&c->perfmaps[i].m);
	free(c->perfmaps);
	c->perfmaps = NULL;
	c->nperfmaps = c->capperfmaps = 0;
}
