/* SPDX-License-Identifier: MIT */
/* tmpview: the /tmp that perf sees (see tmpview.h). */
#include "tmpview.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "dsoview.h"
#include "hash.h"
#include "inpath.h"
#include "nsenter.h"
#include "pathtrust.h"
#include "perfdata.h"
#include "perfmap.h"
#include "signals.h"

/* The mapping names perf 6.1 reads a perf map for when executable
 * (map.c is_anon_memory(), is_no_dso_memory()); "[anon", "/memfd:": later
 * perf's, named too (a file more in the view costs nothing). */
static const char *const anon_prefix[] = {
	"//anon", "/dev/zero", "/anon_hugepage", "[stack", "/SYSV", "[heap]", "[anon", "/memfd:",
};

/* Whether perf reads a perf map for mapping M (map__new(), dso__load()). */
static bool reads_perfmap(const struct perfdata_mmap *m)
{
	if (!strncmp(m->file, "/tmp/perf-", 10))
		return true;	/* a dso of that name is read as a perf map, whatever it maps */
	if (!m->exec)
		return false;
	if (m->flags & MAP_HUGETLB)
		return true;
	for (size_t i = 0; i < sizeof(anon_prefix) / sizeof(anon_prefix[0]); i++)
		if (!strncmp(m->file, anon_prefix[i], strlen(anon_prefix[i])))
			return true;
	return false;
}

struct ids {
	pid_t *v;
	size_t n, cap;
	bool any;      /* a mapping perf reads a perf map for, whatever its ids */
	int err;
};

static void add_id(struct ids *ids, pid_t id)
{
	void *g;

	if (id <= 0 || ids->err)
		return;
	g = array_grow(ids->v, &ids->cap, ids->n, sizeof(*ids->v));
	if (!g) {
		ids->err = -ENOMEM;
		return;
	}
	ids->v = g;
	ids->v[ids->n++] = id;
}

/* Adds to IDS the process and thread of mapping M when perf reads a perf
 * map for it. */
static void collect(struct ids *ids, const struct perfdata_mmap *m)
{
	if (reads_perfmap(m)) {
		ids->any = true;
		add_id(ids, (pid_t)m->pid);
		add_id(ids, (pid_t)m->tid);
	}
}

static int by_id(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Sorts IDS and drops the repeats. */
static void unique(struct ids *ids)
{
	size_t k = 0;

	array_sort(ids->v, ids->n, sizeof(*ids->v), by_id);
	for (size_t i = 0; i < ids->n; i++)
		if (!k || ids->v[k - 1] != ids->v[i])
			ids->v[k++] = ids->v[i];
	ids->n = k;
}

/* Opens the contents of pid ID's perf map: the copy kept in RECDIR, else
 * the map perfmap_open() finds (perf-ID.map or the live process's other
 * names, owned by the process's user as USERS tells it; the converter names
 * a map not used: convert/perfmaps.c) and, for a view perf runs in
 * as another user (AS), when that user may open it (runas_may_open(): root's
 * 0600 map, named by another user's perf.data, once named that user's
 * samples). Returns the descriptor with *ST, or -1. */
static int source(pid_t id, int recdir, const struct perfmap_users *users,
		  const struct runas *as, struct stat *st)
{
	char name[64], path[64], why[300];
	bool kept;
	int fd = -1;

	snprintf(name, sizeof(name), PERFMAP_KEPT, (int)id);
	if (recdir >= 0)
		fd = inpath_open(recdir, name, INPATH_NOFOLLOW | INPATH_OWNED, why, sizeof(why));
	kept = fd >= 0;
	if (!kept && (fd = perfmap_open(id, users, 0, path, sizeof(path), why, sizeof(why))) < 0)
		return -1;
	if (fstat(fd, st) ||
	    (uint64_t)st->st_size > PERFMAP_MAX || (!kept && !runas_may_open(as, AT_FDCWD, path, false, st))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Adds perf-ID.map with contents FD (owned; -1: empty), or those of file
 * SAME (>= 0), to V. Returns 0 or -ENOMEM. */
static int add_file(struct tmpview *v, pid_t id, int fd, off_t size, long same)
{
	void *g = array_grow(v->files, &v->cap, v->n, sizeof(*v->files));
	struct tmpview_file *f;

	if (!g) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	v->files = g;
	f = &v->files[v->n++];
	snprintf(f->name, sizeof(f->name), PERFMAP_KEPT, (int)id);
	f->fd = fd;
	f->size = fd >= 0 ? size : 0;
	f->same = same;
	return 0;
}

/* The index of V's file whose contents are the file ST (among the SEEN
 * indexes of N files of contents), or -1. */
static long same_as(const struct tmpview *v, const long *seen, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++) {
		struct stat was;

		if (!fstat(v->files[seen[i]].fd, &was) && was.st_dev == st->st_dev &&
		    was.st_ino == st->st_ino)
			return seen[i];
	}
	return -1;
}

/* Fills V with a file for each id of IDS (sorted, unique). Each file of
 * contents is copied once (the threads of a process name the same), within
 * perfmap.h's budget: what it leaves out is empty, said in one warning.
 * Returns 0 or -ENOMEM. */
static int fill(struct tmpview *v, const struct ids *ids, int recdir,
		const struct perfmap_users *users)
{
	struct perfmap_budget budget = { 0 };
	long seen[PERFMAP_FILES_MAX];
	int err = 0;

	for (size_t i = 0; i < ids->n && !err; i++) {
		struct stat st;
		int fd = source(ids->v[i], recdir, users, &v->as, &st);
		long same = fd >= 0 ? same_as(v, seen, budget.files, &st) : -1;

		if (same >= 0 || (fd >= 0 && !perfmap_budget_take(&budget, (uint64_t)st.st_size))) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			seen[budget.files - 1] = (long)v->n;
		err = add_file(v, ids->v[i], fd, fd >= 0 ? st.st_size : 0, same);
	}
	if (!err)
		perfmap_budget_warn(&budget, "left out of perf's /tmp (empty there)");
	return err;
}

/* How a view is made here: TMPVIEW_ADMIN with CAP_SYS_ADMIN (root: a user
 * namespace would map no other user's files), else TMPVIEW_USERNS; -1 when
 * it cannot be, with *ERR the errno (asked once: a child makes an empty
 * view). */
static int view_how(int *err)
{
	static int how = -2, why;

	if (how == -2) {
		struct tmpview probe = {
			.how = nsenter_admin_permitted() ? TMPVIEW_ADMIN : TMPVIEW_USERNS,
			.uid = geteuid(), .gid = getegid(), .pidns = true,
		};
		pid_t pid = fork();
		int status;

		if (pid == 0)
			_exit(tmpview_enter(&probe) & 0xff);
		why = pid < 0 ? errno : waitpid(pid, &status, 0) != pid ? errno :
		      WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		how = why ? -1 : (int)probe.how;
	}
	*err = why;
	return how;
}

/* Whether perf opens names starting so in /tmp by its own rule (the perf
 * maps perf-N.map, jitdumps jit-N.dump): the view shows none of the real /tmp's. */
static bool perf_name(const char *name)
{
	return !strncmp(name, "perf-", 5) || !strncmp(name, "jit-", 4);
}

/* Without a view (ERR: why none): whether any name of the real /tmp perf
 * may open by its own rule is unsafe for perf to open as it is (a FIFO,
 * device or socket, also at a symbolic link's end). Returns 0, or -EPERM
 * with WHY. */
static int check_names(int err, char *why, size_t size)
{
	DIR *d = opendir("/tmp");
	struct dirent *de;
	int rc = 0;

	while (d && !rc && (de = readdir(d))) {
		struct stat st;

		if (!perf_name(de->d_name) || fstatat(dirfd(d), de->d_name, &st, 0) ||
		    S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			continue;
		snprintf(why, size, "/tmp/%s: %s of uid %d where perf script reads a JIT's perf map: "
			 "perf would open it (no private /tmp for perf: its namespace failed: %s)",
			 de->d_name, inpath_kind(st.st_mode), (int)st.st_uid, strerror(err));
		rc = -EPERM;
	}
	if (d)
		closedir(d);
	return rc;
}

/* The name of the real /tmp that PATH leads through, into NAME (NAME_MAX +
 * 1 bytes): PATH absolute, "/tmp/NAME..." ("//tmp/./NAME" too), or, REL,
 * relative to /tmp ("NAME...": a link's target there). Returns the rest of
 * PATH after NAME, or NULL when there is no such name (".." leads out). */
static const char *tmp_name(const char *path, bool rel, char *name)
{
	const char *p = path;
	size_t len;

	if (!rel) {
		if (*p != '/')
			return NULL;
		p = inpath_next_name(p, &len);
		if (len != 3 || strncmp(p, "tmp", 3))
			return NULL;
		p += len;
	}
	p = inpath_next_name(p, &len);
	if (!len || len > NAME_MAX || (len == 2 && !strncmp(p, "..", 2)))
		return NULL;
	memcpy(name, p, len);
	name[len] = 0;
	return p + len;
}

/* The names of the real /tmp the view shows, wanted before they are looked
 * up: an array, and its hash index for the repeats. */
struct names {
	char **v;                /* owned, each owned */
	size_t n, cap;
	struct hash_index index;
	size_t ncaller;          /* the first NCALLER are the caller's paths' names */
	char left[NAME_MAX + 1]; /* the first name left out past TMPVIEW_ENTRIES_MAX, or "" */
	int err;
};

/* Adds NAME to S, unless there, "." or "..", or perf_name() (the view's
 * own); past TMPVIEW_ENTRIES_MAX names it is left out (the first such one
 * noted in S->left). */
static void want(struct names *s, const char *name)
{
	uint64_t key = hash_bytes(name, strlen(name));
	size_t probe = 0;
	uint32_t i;
	char **g;

	if (s->err || perf_name(name) || !strcmp(name, ".") || !strcmp(name, ".."))
		return;
	while ((i = hash_index_next(&s->index, key, &probe)) != HASH_NONE)
		if (!strcmp(s->v[i], name))
			return;
	if (s->n >= TMPVIEW_ENTRIES_MAX) {
		if (!s->left[0])
			snprintf(s->left, sizeof(s->left), "%s", name);
		return;
	}
	g = array_grow(s->v, &s->cap, s->n, sizeof(*s->v));
	if (!g) {
		s->err = -ENOMEM;
		return;
	}
	s->v = g;
	if (!(g[s->n] = strdup(name)) || hash_index_add(&s->index, key, (uint32_t)s->n)) {
		free(g[s->n]);
		s->err = -ENOMEM;
		return;
	}
	s->n++;
}

/* Adds the name of /tmp PATH leads through, if any (an option's value after
 * its "=" too: "--symfs=/tmp/root"), to S. */
static void want_path(struct names *s, const char *path)
{
	char name[NAME_MAX + 1];
	const char *eq = strchr(path, '=');

	if (tmp_name(path, false, name) || (eq && tmp_name(eq + 1, false, name)))
		want(s, name);
}

/* What a perf.data's mappings say perf opens. */
struct scan {
	struct ids ids;          /* the perf maps' */
	struct names names;      /* the names of /tmp its files are in */
	struct dsoview dso;      /* its files another user could swap (dsoview.h) */
};

/* perfdata_mmaps()'s callback: collect()s mapping M, adds its file to the
 * dsoview when it is one (no perf map is read for it), and wants the name of
 * /tmp its file is in (perf opens the file), and ".debug" for a file right
 * in /tmp (perf looks for its debug file there:
 * dso__read_binary_type_filename()). */
static int scan_mapping(void *arg, const struct perfdata_mmap *m)
{
	struct scan *sc = arg;
	char name[NAME_MAX + 1];
	const char *rest = tmp_name(m->file, false, name);
	size_t len;

	collect(&sc->ids, m);
	if (!reads_perfmap(m))
		dsoview_add(&sc->dso, m->file);
	if (rest) {
		want(&sc->names, name);
		inpath_next_name(rest, &len);
		if (!len)
			want(&sc->names, ".debug");
	}
	return sc->ids.err ? sc->ids.err : sc->names.err ? sc->names.err : sc->dso.err;
}

/* Wants the names of /tmp the paths perf is given lead through: PATHS
 * (NULL-terminated, or NULL), this program's (the dlfilter beside it) and
 * $HOME (perf's .perfconfig). */
static void want_paths(struct names *s, const char *const *paths)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *home = getenv("HOME");

	for (size_t i = 0; paths && paths[i]; i++)
		want_path(s, paths[i]);
	if (n > 0) {
		self[n] = 0;
		want_path(s, self);
	}
	if (home)
		want_path(s, home);
	s->ncaller = s->n;
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	hash_index_free(&s->index);
}

/* Adds name I of S, of the real /tmp (DIR, its status DST), to V's
 * entries: a directory or regular file, or a symbolic link the kernel
 * would follow for the caller (its target, whose name of /tmp, if any, is
 * added to S). A name not there is left out, and so is one V's dsoview
 * builds, or a mapping's that another user may change (dsoview.h: its
 * files are bound there from their descriptors, never the name), or
 * ".debug" (where perf looks for the debug file of a binary right in /tmp)
 * when it is no directory, or one another user may put a name in (a
 * directory of root's that others may write: their file there was root's
 * program's symbols). Returns 0 or -ENOMEM. */
static int add_entry(struct tmpview *v, struct names *s, int dir, const struct stat *dst,
		     size_t i)
{
	const char *name = s->v[i];
	struct tmpview_entry *e;
	char target[PATH_MAX], to[NAME_MAX + 1];
	struct stat st;
	ssize_t n = 0;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) || dsoview_tmp_builds(&v->dso, name) ||
	    (i >= s->ncaller && !S_ISLNK(st.st_mode) && pathtrust_of(dst, &st) != PATHTRUST_US))
		return 0;
	/* perf opens a debug file in .debug by its name (a binary's debuglink):
	 * shown only when nobody else may put a name in it */
	if (i >= s->ncaller && !strcmp(name, ".debug") &&
	    (!S_ISDIR(st.st_mode) || pathtrust_of(&st, NULL) != PATHTRUST_US))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		if (pathtrust_of(dst, &st) == PATHTRUST_OTHERS)	/* as an input's (inpath.h) */
			return 0;
		n = readlinkat(dir, name, target, sizeof(target) - 1);
		if (n <= 0)
			return 0;
		target[n] = '\0';
		if (tmp_name(target, target[0] != '/', to))
			want(s, to);
	} else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		return 0;
	}
	e = array_grow(v->entries, &v->capentries, v->nentries, sizeof(*e));
	if (!e)
		return -ENOMEM;
	v->entries = e;
	e = &e[v->nentries];
	e->name = strdup(name);
	e->link = n ? strdup(target) : NULL;
	if (!e->name || (n && !e->link)) {
		free(e->name);
		free(e->link);
		return -ENOMEM;
	}
	v->nentries++;
	return 0;
}

/* Looks up S's names in the real /tmp into V's entries (add_entry(): the
 * names links there lead to are added to S, and looked up in turn), and
 * says in one warning what was left out past TMPVIEW_ENTRIES_MAX. Returns
 * 0 or -ENOMEM (/tmp unreadable: none). */
static int add_entries(struct tmpview *v, struct names *s)
{
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = s->err;
	struct stat dst;

	if (dir >= 0 && !fstat(dir, &dst))
		for (size_t i = 0; !err && i < s->n; i++)
			err = add_entry(v, s, dir, &dst, i) ? -ENOMEM : s->err;
	if (dir >= 0)
		close(dir);
	if (!err && s->left[0])
		diag_warn("perf's private /tmp shows at most %u names of the real /tmp, those the "
			  "recording's mappings and perf's paths lead through: /tmp/%s and any "
			  "after it are left out (perf finds no file there)", TMPVIEW_ENTRIES_MAX,
			  s->left);
	return err;
}

/* Whether perf's /tmp is hidden for SC's perf.data (DSO its covers): when
 * perf opens a perf map there, when a binary dsoview.h hides is under it,
 * and always for root (CAP_SYS_ADMIN permitted): perf 6.1 writes its copy of
 * the vdso as /tmp/perf-vdso.so-XXXXXX and then looks for its debug file as
 * /tmp/.debug/perf-vdso.so-XXXXXX (dso.c debuglink_paths[]), in another
 * user's directory there, who sees the name appear (inotify) and plants a
 * link: root's perf opened a root-only file through it. In the view both
 * are in perf's own tmpfs. */
static bool tmp_hidden(const struct scan *sc, const struct dsoview *dso)
{
	return sc->ids.any || dsoview_covers_tmp(dso) || nsenter_admin_permitted();
}

/* Whether perf needs a view of SC's perf.data: /tmp hidden, or a directory
 * dsoview.h hides elsewhere. */
static bool view_wanted(const struct scan *sc)
{
	return tmp_hidden(sc, &sc->dso) || dsoview_any(&sc->dso);
}

int tmpview_make(const char *perfdata, int recdir, const struct perfmap_users *users,
		 const char *const *paths, const struct runas *as, struct tmpview **view, char *why, size_t size)
{
	struct scan sc = { .ids = { 0 } };
	struct tmpview *v;
	int err, how;

	*view = NULL;
	want_paths(&sc.names, paths);	/* first: never left out for a perf.data's */
	err = perfdata_mmaps(perfdata, scan_mapping, &sc);
	if (err == -EIO)	/* damaged records: perf reads no further either */
		err = sc.ids.err ? sc.ids.err : sc.names.err ? sc.names.err : sc.dso.err;
	err = err ? err : dsoview_finish(&sc.dso, paths);
	if (err || !view_wanted(&sc)) {
		free(sc.ids.v);
		names_free(&sc.names);
		dsoview_free(&sc.dso);
		if (err == -E2BIG)
			snprintf(why, size, "its mappings name more than %u files, or %u MiB of "
				 "names, or more than %u directories other users may change: perf "
				 "would open each", DSOVIEW_PATHS_MAX, DSOVIEW_BYTES_MAX >> 20,
				 DSOVIEW_FILES_MAX);
		else if (err == -ENOTSUP)
			snprintf(why, size, "its records are compressed (perf record -z), which "
				 "snaptrace does not read (perf inject keeps them compressed): "
				 "record without -z");
		else if (err)
			snprintf(why, size, "cannot read its mappings: %s", strerror(-err));
		return err;
	}
	unique(&sc.ids);
	if (sc.ids.n > TMPVIEW_NAMES_MAX) {
		snprintf(why, size, "names %zu processes with JIT memory, more than %u: perf would "
			 "open a perf map for each", sc.ids.n, TMPVIEW_NAMES_MAX);
		free(sc.ids.v);
		names_free(&sc.names);
		dsoview_free(&sc.dso);
		return -E2BIG;
	}
	v = calloc(1, sizeof(*v));
	if (v) {
		v->as = as ? *as : (struct runas){ .on = false };
		v->dso = sc.dso;	/* the view's now */
		v->tmp = tmp_hidden(&sc, &v->dso);
		v->pidns = sc.ids.any;
	} else {
		dsoview_free(&sc.dso);
	}
	err = v ? fill(v, &sc.ids, recdir, users) : -ENOMEM;
	err = err || !v->tmp ? err : add_entries(v, &sc.names);
	free(sc.ids.v);
	names_free(&sc.names);
	if (err) {
		snprintf(why, size, "out of memory");
		tmpview_free(v);
		return err;
	}
	v->uid = geteuid();
	v->gid = getegid();
	how = view_how(&err);
	if (how < 0) {
		err = sc.ids.any ? check_names(err, why, size) : 0;	/* no perf map to guard */
		tmpview_free(v);
		return err;
	}
	v->how = (enum tmpview_how)how;
	*view = v;
	return 0;
}

void tmpview_free(struct tmpview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		if (v->files[i].fd >= 0)
			close(v->files[i].fd);
	free(v->files);
	for (size_t i = 0; i < v->nentries; i++) {
		free(v->entries[i].name);
		free(v->entries[i].link);
	}
	free(v->entries);
	dsoview_free(&v->dso);
	free(v);
}

/* Async-signal-safe from here on. */

/* Writes decimal V at P; returns the end. */
static char *put_num(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Writes TEXT (LEN bytes) into the file PATH. Returns 0 or an errno. */
static int write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* Maps ID to itself in the user namespace just made (FILE: uid_map or gid_map). */
static int map_self(const char *file, unsigned long id)
{
	char line[64], *p = line;

	p = put_num(p, id);
	*p++ = ' ';
	p = put_num(p, id);
	memcpy(p, " 1\n", 3);
	return write_file(file, line, (size_t)(p + 3 - line));
}

/* Copies V's file I into a new file of directory DIR, or links it to the
 * earlier one of the same contents. Returns 0 or an errno. */
static int put_file(int dir, const struct tmpview *v, size_t i)
{
	const struct tmpview_file *f = &v->files[i];
	int out;
	off_t off = 0;
	int err = 0;

	if (f->same >= 0)
		return linkat(dir, v->files[f->same].name, dir, f->name, 0) ? errno : 0;
	out = openat(dir, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0)
		return errno;
	while (f->fd >= 0 && off < f->size) {
		ssize_t r = sendfile(out, f->fd, &off, (size_t)(f->size - off));

		if (r <= 0) {
			err = r < 0 ? errno : 0;	/* shorter now: what there was */
			break;
		}
	}
	close(out);
	return err;
}

/* Binds E, a directory or regular file of the real /tmp (LOWER, hidden by
 * the view), with the mounts inside it at its place in the view (VIEW:
 * dsoview_show()), or makes its symbolic link again there. A name gone
 * since, or swapped for a link or another kind, is left out: perf then
 * finds nothing there. */
static void show_entry(int lower, int view, const struct tmpview_entry *e)
{
	if (e->link)
		(void)symlinkat(e->link, view, e->name);
	else
		dsoview_show(lower, view, e->name);
}

/* Mounts V's view, in a mount namespace already ours: when V->tmp, a tmpfs
 * over /tmp holding V's files and entries; then the dsoview's covers.
 * Returns 0 or an errno. */
static int mount_view(const struct tmpview *v)
{
	int lower = -1, view = -1, err = 0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return errno;
	if (v->tmp) {
		lower = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (lower < 0)
			return errno;
		if (mount("snaptrace", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
			  v->as.on ? "mode=1777" : "mode=0755") ||
		    (view = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			err = errno;
			close(lower);
			return err;
		}
		for (size_t i = 0; !err && i < v->n; i++)
			err = put_file(view, v, i);
		for (size_t i = 0; !err && i < v->nentries; i++)
			show_entry(lower, view, &v->entries[i]);
	}
	if (!err)
		err = dsoview_mount(&v->dso, lower, view);
	if (view >= 0)
		close(view);
	if (lower >= 0)
		close(lower);
	return err;
}

/* In the parent of a pid namespace's first process PID: ends as PID ends
 * (its exit status, or killed by the same signal), holding no descriptor
 * but ALIVE (the write end of the pipe that tells PID its parent lives);
 * killed, or PARENT gone, PID gets SIGKILL (PR_SET_PDEATHSIG). */
static _Noreturn void end_as(pid_t pid, int alive, pid_t parent)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	sigset_t none;
	int status;

	/* a change of capabilities may have cleared spawn's death signal */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		kill(pid, SIGKILL);

	if (alive > 0)
		close_range(0, (unsigned)alive - 1, 0);
	close_range((unsigned)alive + 1, ~0u, 0);
	sigemptyset(&dfl.sa_mask);
	sigemptyset(&ign.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)	/* none of the converter's handlers */
		sigaction(sig, sig_ignored_at_start(sig) ? &ign : &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFSIGNALED(status))
		kill(getpid(), WTERMSIG(status));
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* After unshare(CLONE_NEWPID), in a child of PARENT: forks the namespace's first process, which
 * mounts a /proc of its namespace (perf, exec'd there, sees its own
 * processes only: no pid of a perf.data's but by chance) and returns 0;
 * the caller stays outside, in end_as(), and never returns. Returns an
 * errno when the fork or the mount fails. */
static int enter_pidns(pid_t parent)
{
	struct pollfd alive_end;
	int alive[2], err;
	pid_t pid;

	if (pipe2(alive, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid > 0)
		end_as(pid, alive[1], parent);
	err = pid < 0 ? errno : 0;
	close(alive[1]);
	alive_end = (struct pollfd){ .fd = alive[0], .events = POLLIN };
	if (!err && prctl(PR_SET_PDEATHSIG, SIGKILL))
		err = errno;
	if (!err && poll(&alive_end, 1, 0) != 0)
		_exit(127);	/* the parent died before the prctl (its end of the pipe closed) */
	close(alive[0]);
	if (!err && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		err = errno;
	return err;
}

int tmpview_enter(const struct tmpview *v)
{
	pid_t parent = getppid();
	int err, ns;

	if (!v)
		return 0;
	ns = CLONE_NEWNS | (v->pidns ? CLONE_NEWPID : 0);
	if (v->how == TMPVIEW_ADMIN) {
		err = -nsenter_admin(true);
		if (!err && unshare(ns))
			err = errno;
	} else {
		err = unshare(CLONE_NEWUSER | ns) ? errno : 0;
		if (!err)
			err = write_file("/proc/self/setgroups", "deny", 4);
		if (!err)
			err = map_self("/proc/self/uid_map", v->uid);
		if (!err)
			err = map_self("/proc/self/gid_map", v->gid);
	}
	if (!err)
		err = mount_view(v);
	if (!err && v->pidns)
		err = enter_pidns(parent);
	if (v->how == TMPVIEW_ADMIN) {
		int drop = -nsenter_admin(false);

		err = err ? err : drop;
	}
	if (!err)
		err = runas_enter(&v->as);
	/* it cleared the death signal and set it again: did the parent die between? */
	if (!err && v->as.on && !v->pidns && getppid() != parent)
		_exit(127);
	return err;
}
