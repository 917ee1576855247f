/* SPDX-License-Identifier: MIT */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "array.h"
#include "funcspec.h"
#include "dsoview.h"
#include "pathtrust.h"

ssize_t rec_proc_read_at(const char *path, uint64_t offset, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		buf[0] = '\0';
		return -errno;
	}
	n = pread(fd, buf, size - 1, (off_t)offset);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

ssize_t rec_proc_read(const char *path, char *buf, size_t size)
{
	return rec_proc_read_at(path, 0, buf, size);
}

/* The fields of the stat file PATH after its comm ("STATE PPID PGRP ..."),
 * read into BUF; NULL when unreadable. */
static const char *stat_fields_at(const char *path, char *buf, size_t size)
{
	char *paren;

	if (rec_proc_read(path, buf, size) <= 0 || !(paren = strrchr(buf, ')')) || paren[1] != ' ')
		return NULL;
	return paren + 2;
}

/* The fields of /proc/ID/stat after its comm; NULL when unreadable. */
static const char *stat_fields(pid_t id, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	return stat_fields_at(path, buf, size);
}

/* Reads the state letter of /proc/ID/stat; returns it, or 0 when unreadable. */
static char proc_state(pid_t id)
{
	char buf[1024];
	const char *f = stat_fields(id, buf, sizeof(buf));

	return f ? f[0] : 0;
}

bool rec_proc_alive(pid_t id)
{
	char st;

	if (id <= 0)
		return false;
	st = proc_state(id);
	return st && st != 'Z' && st != 'X';
}

bool rec_proc_kernel_thread(pid_t id)
{
	char buf[1024];
	const char *f = stat_fields(id, buf, sizeof(buf));
	unsigned long flags = 0;

	/* "STATE PPID PGRP SESSION TTY_NR TPGID FLAGS" */
	return f && sscanf(f, "%*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
	       (flags & 0x00200000ul);
}

uint64_t rec_proc_start_time(pid_t id)
{
	pid_t parent;

	return rec_proc_parent(id, &parent);
}

uint64_t rec_proc_parent(pid_t id, pid_t *parent)
{
	char buf[1024];
	const char *f = stat_fields(id, buf, sizeof(buf));
	uint64_t start = 0;
	int ppid = 0;

	/* "STATE PPID ... STARTTIME": proc(5)'s fields 3 to 22 */
	if (f && sscanf(f, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			"%*d %*d %*d %" SCNu64, &ppid, &start) != 2)
		start = 0;
	*parent = start ? (pid_t)ppid : 0;
	return start;
}

int rec_proc_hold(pid_t pid, uint64_t start, struct rec_proc_held *h)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd ended;

	*h = (struct rec_proc_held){ .pid = pid, .pidfd = -1 };
	if (fd < 0)
		return -errno;
	h->pidfd = (int)fd;
	fcntl(h->pidfd, F_SETFD, FD_CLOEXEC);
	h->start = rec_proc_start_time(pid);
	/* alive after the start time was read: the pidfd's process was there
	 * all along, so the start time is its own */
	ended = (struct pollfd){ .fd = h->pidfd, .events = POLLIN };
	if (!h->start || poll(&ended, 1, 0) != 0 || (start && h->start != start)) {
		rec_proc_release(h);
		h->pid = pid;
		return -ESRCH;
	}
	return 0;
}

int rec_proc_still_held(const struct rec_proc_held *h)
{
	struct pollfd ended = { .fd = h->pidfd, .events = POLLIN };

	if (h->pidfd < 0 || poll(&ended, 1, 0) != 0 || rec_proc_start_time(h->pid) != h->start)
		return -ESRCH;
	return 0;
}

void rec_proc_release(struct rec_proc_held *h)
{
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
}

int rec_proc_uids(pid_t id, uid_t uid[2])
{
	char path[64], buf[4096];
	const char *at;
	long u[2];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	if (rec_proc_read(path, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, "\nUid:\t")) ||
	    sscanf(at + 6, "%ld %ld", &u[0], &u[1]) != 2 || u[0] < 0 || u[1] < 0)
		return -1;
	uid[0] = (uid_t)u[0];
	uid[1] = (uid_t)u[1];
	return 0;
}

long rec_proc_uid(pid_t id)
{
	uid_t u[2];

	return rec_proc_uids(id, u) ? -1 : (long)u[0];
}

bool rec_proc_others(pid_t id)
{
	char path[64], buf[4096];
	const char *at;
	long u[4];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	if (rec_proc_read(path, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, "\nUid:\t")) ||
	    sscanf(at + 6, "%ld %ld %ld %ld", &u[0], &u[1], &u[2], &u[3]) != 4)
		return true;
	for (int i = 0; i < 4; i++)
		if (u[i] < 0 || !pathtrust_uid_ours((uid_t)u[i]))
			return true;
	return false;
}

pid_t rec_proc_tgid(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			tgid = v;
			break;
		}
	}
	fclose(f);
	return tgid;
}

int rec_proc_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size ? size - 1 : 0);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return 0;
}

int rec_proc_state(pid_t pid, pid_t tid, char *state, char *wchan, size_t size)
{
	char path[96], buf[1024];
	const char *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	f = stat_fields_at(path, buf, sizeof(buf));
	if (!f || !f[0])
		return -ENOENT;
	*state = f[0];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, (int)tid);
	if (rec_proc_read(path, wchan, size) < 0 || !strcmp(wchan, "0"))
		wchan[0] = '\0';
	return 0;
}

int rec_proc_children(pid_t pid, pid_t *pids, int n, int max)
{
	char path[64];
	struct dirent *d;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(tasks = opendir(path)))
		return n;
	while (n < max && (d = readdir(tasks))) {
		long v;
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, d->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (n < max && fscanf(f, "%ld", &v) == 1)
			pids[n++] = (pid_t)v;
		fclose(f);
	}
	closedir(tasks);
	return n;
}

int rec_proc_tasks(pid_t pid, pid_t **tids, size_t *cap)
{
	char path[64];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		pid_t *v;

		if (*end || tid <= 0)
			continue;
		v = array_grow(*tids, cap, n, sizeof(**tids));
		if (!v) {
			closedir(d);
			return -ENOMEM;
		}
		*tids = v;
		(*tids)[n++] = (pid_t)tid;
	}
	closedir(d);
	return n > INT_MAX ? -E2BIG : (int)n;
}

/* Parses one maps line into *M; returns 0, or -EINVAL for an anonymous or odd line. */
static int parse_map_line(const char *line, struct rec_map *m)
{
	char perms[8];
	int pos = 0;
	uint64_t start, end, off, inode;
	const char *p;
	size_t n;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %" SCNu64 " %n",
		   &start, &end, perms, &off, &inode, &pos) < 5 || !pos)
		return -EINVAL;
	p = line + pos;
	if (*p != '/')
		return -EINVAL;
	/* the kernel writes a newline in a path as \012 (seq_file_path) */
	for (n = 0; *p && *p != '\n'; n++) {
		if (n + 1 >= sizeof(m->path))
			return -EINVAL;
		if (!strncmp(p, "\\012", 4)) {
			m->path[n] = '\n';
			p += 4;
		} else {
			m->path[n] = *p++;
		}
	}
	m->path[n] = '\0';
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->exec = perms[2] == 'x';
	return 0;
}

int rec_proc_each_map(pid_t pid, int (*fn)(const struct rec_map *m, void *arg), void *arg)
{
	char file[64], line[4400];
	struct rec_map m;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!parse_map_line(line, &m) && fn(&m, arg))
			break;
	fclose(f);
	return 0;
}

struct find_map {
	const char *path;       /* NULL: by address */
	uint64_t file_offset, addr;
	struct rec_map *m;
	bool found;
};

static int find_map_cb(const struct rec_map *cur, void *arg)
{
	struct find_map *fm = arg;
	bool hit;

	if (fm->path)
		hit = !strcmp(cur->path, fm->path) && fm->file_offset >= cur->pgoff &&
		      fm->file_offset < cur->pgoff + (cur->end - cur->start);
	else
		hit = fm->addr >= cur->start && fm->addr < cur->end;
	if (hit && !(fm->found && fm->m->exec)) {
		*fm->m = *cur;
		fm->found = true;
	}
	return 0;
}

int rec_proc_find_map(pid_t pid, const char *path, uint64_t file_offset, uint64_t addr,
		      struct rec_map *m)
{
	struct find_map fm = { .path = path, .file_offset = file_offset, .addr = addr, .m = m };
	int err = rec_proc_each_map(pid, find_map_cb, &fm);

	return err ? err : fm.found ? 0 : -ENOENT;
}

int rec_proc_map_open(pid_t pid, const struct rec_map *m, struct stat *st)
{
	char path[96];
	struct stat own;
	int pfd, fd;

	if (!st)
		st = &own;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
		 m->start, m->end);
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) || !S_ISREG(st->st_mode)) {
		close(pfd);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

/* The length of maps path PATH without the " (deleted)" the kernel adds for
 * a file removed since it was mapped (rec_proc_map_open() still reads it). */
static size_t undeleted_len(const char *path)
{
	size_t n = strlen(path), d = strlen(" (deleted)");

	return n > d && !strcmp(path + n - d, " (deleted)") ? n - d : n;
}

/* Is a maps path no file of a directory: a memfd ("/memfd:NAME (deleted)"),
 * anonymous shared memory ("/dev/zero (deleted)", "/SYSV...")? */
static bool not_a_named_file(const char *path)
{
	return !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5) ||
	       !strcmp(path, "/dev/zero (deleted)");
}

struct exec_files {
	pid_t pid;
	char (*paths)[4096];
	int *fds;
	int max, n;
};

static int exec_files_cb(const struct rec_map *m, void *arg)
{
	struct exec_files *ef = arg;
	int fd;

	if (!m->exec || not_a_named_file(m->path))
		return 0;
	for (int i = 0; i < ef->n && i < ef->max; i++)
		if (!strcmp(ef->paths[i], m->path))
			return 0;
	if (ef->n < ef->max) {
		if ((fd = rec_proc_map_open(ef->pid, m, NULL)) < 0)
			return 0;	/* no regular file (any more) */
		snprintf(ef->paths[ef->n], sizeof(ef->paths[ef->n]), "%s", m->path);
		ef->fds[ef->n] = fd;
	}
	ef->n++;
	return 0;
}

bool rec_proc_exe_name(const char *exe, char *out, size_t size)
{
	ssize_t n;
	int k = 0;

	if (sscanf(exe, "/proc/%*d/exe%n", &k) < 0 || !k || exe[k])
		return false;
	n = readlink(exe, out, size - 1);
	if (n < 0)
		snprintf(out, size, "%s", exe);
	else
		out[n] = '\0';
	return true;
}

bool rec_proc_same_mntns(pid_t pid)
{
	char path[64];
	struct stat mine, theirs;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return !stat("/proc/self/ns/mnt", &mine) && !stat(path, &theirs) &&
	       mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

int rec_proc_exec_files(pid_t pid, char (*paths)[4096], int *fds, int max)
{
	struct exec_files ef = { .pid = pid, .paths = paths, .fds = fds, .max = max };
	int err = rec_proc_same_mntns(pid) ? rec_proc_each_map(pid, exec_files_cb, &ef) : -EXDEV;

	return err ? err : ef.n;
}

/* rec_proc_each_map()'s callback: adds an executable mapping's path to the
 * dsoview ARG; stops once it hides a directory. */
static int others_map_cb(const struct rec_map *m, void *arg)
{
	struct dsoview *v = arg;

	if (m->exec && m->path[0] == '/')
		dsoview_add(v, m->path);
	return dsoview_any(v) || v->err;
}

bool rec_proc_path_others(const char *path)
{
	struct dsoview v = { 0 };
	bool others = dsoview_add(&v, path) || dsoview_any(&v);

	dsoview_free(&v);
	return others;
}

bool rec_proc_maps_others(pid_t pid)
{
	struct dsoview v = { 0 };
	bool others;

	if (!rec_proc_same_mntns(pid))
		return false;
	others = rec_proc_each_map(pid, others_map_cb, &v) || dsoview_any(&v) || v.err;
	dsoview_free(&v);
	return others;
}

struct lib_in_maps {
	pid_t pid;
	const char *lib;
	const char *real;       /* LIB a path: its real path (a name to compare), or NULL */
	char *out;
	size_t size;
	int fd;                 /* the mapped file found, -1: none yet */
};

/* Whether maps path PATH, LEN bytes of it, is the path P. */
static bool same_path(const char *path, size_t len, const char *p)
{
	return p && strlen(p) == len && !strncmp(path, p, len);
}

static int lib_in_maps_cb(const struct rec_map *m, void *arg)
{
	struct lib_in_maps *lm = arg;
	size_t len = undeleted_len(m->path);
	const char *base = m->path + len;
	char name[4096];

	if (not_a_named_file(m->path))
		return 0;
	if (strchr(lm->lib, '/')) {
		if (!same_path(m->path, len, lm->lib) && !same_path(m->path, len, lm->real))
			return 0;
	} else {
		while (base > m->path && base[-1] != '/')
			base--;
		snprintf(name, sizeof(name), "%.*s", (int)(m->path + len - base), base);
		if (!funcspec_lib_matches(name, lm->lib))
			return 0;
	}
	/* the mapped file itself: its name may be another file's now */
	if ((lm->fd = rec_proc_map_open(lm->pid, m, NULL)) < 0)
		return 0;
	snprintf(lm->out, lm->size, "%s", m->path);
	return 1;
}

/* Finds LIB among PID's mappings: OUT its maps name, *FD the mapped file. */
static int find_lib_in_maps(pid_t pid, const char *lib, char *out, size_t size, int *fd)
{
	char real[PATH_MAX];
	struct lib_in_maps lm = { .pid = pid, .lib = lib, .out = out, .size = size, .fd = -1 };
	int err;

	if (strchr(lib, '/') && realpath(lib, real))
		lm.real = real;	/* a name only: what is opened is a mapping's file */
	err = rec_proc_each_map(pid, lib_in_maps_cb, &lm);
	*fd = lm.fd;
	return err ? err : lm.fd >= 0 ? 0 : -ENOENT;
}

static int find_lib_in_dir(const char *dir, const char *lib, char *out, size_t size)
{
	struct dirent *de;
	int err = -ENOENT;
	DIR *d = opendir(dir);

	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (!funcspec_lib_matches(de->d_name, lib))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		snprintf(out, size, "%s", path);
		err = 0;
		/* prefer the versioned runtime name (libm.so.6) over a dev link */
		if (strstr(de->d_name, ".so."))
			break;
	}
	closedir(d);
	return err;
}

int rec_proc_find_lib(pid_t pid, const char *lib, char *out, size_t size, int *fd)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	const char *env = getenv("LD_LIBRARY_PATH");
	unsigned i;

	*fd = -1;
	if (pid > 0 && !rec_proc_same_mntns(pid))
		return -EXDEV;	/* neither its paths nor these directories are its files */
	if (pid > 0 && find_lib_in_maps(pid, lib, out, size, fd) == 0)
		return 0;
	if (strchr(lib, '/')) {
		if (access(lib, R_OK))
			return -ENOENT;
		snprintf(out, size, "%s", lib);
		return 0;
	}
	if (env) {
		char copy[4096], *save = NULL, *dir;

		snprintf(copy, sizeof(copy), "%s", env);
		for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
			if (find_lib_in_dir(dir, lib, out, size) == 0)
				return 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (find_lib_in_dir(dirs[i], lib, out, size) == 0)
			return 0;
	return -ENOENT;
}

int rec_proc_mapped_lib(pid_t pid, const char *lib, char *out, size_t size, int *fd)
{
	*fd = -1;
	if (!rec_proc_same_mntns(pid))
		return -EXDEV;
	return find_lib_in_maps(pid, lib, out, size, fd);
}
