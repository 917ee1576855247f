/* SPDX-License-Identifier: MIT */
/* tmpview: the /tmp that perf sees (see tmpview.h). */
#include "tmpview.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "inpath.h"
#include "nsenter.h"
#include "perfdata.h"
#include "perfmap.h"

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

/* perfdata_mmaps()'s callback: the process and thread of a mapping perf
 * reads a perf map for. */
static int collect(void *arg, const struct perfdata_mmap *m)
{
	struct ids *ids = arg;

	if (reads_perfmap(m)) {
		add_id(ids, (pid_t)m->pid);
		add_id(ids, (pid_t)m->tid);
	}
	return ids->err;
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
 * names) when its owner is one perfmap_owner_ok() allows (the converter
 * names a map not used: convert/perfmaps.c). Returns the descriptor with
 * *ST, or -1. */
static int source(pid_t id, int recdir, struct stat *st)
{
	char name[64], path[64], why[300];
	bool kept;
	int fd = -1;

	snprintf(name, sizeof(name), PERFMAP_KEPT, (int)id);
	if (recdir >= 0)
		fd = inpath_open(recdir, name, INPATH_NOFOLLOW | INPATH_OWNED, why, sizeof(why));
	kept = fd >= 0;
	if (!kept && (fd = perfmap_open(id, 0, path, sizeof(path), why, sizeof(why))) < 0)
		return -1;
	if (fstat(fd, st) || (!kept && !perfmap_owner_ok(st->st_uid, id)) ||
	    (uint64_t)st->st_size > PERFMAP_MAX) {
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

/* Fills V with a file for each id of IDS (sorted, unique), and an empty
 * perf-1.map unless 1 is among them: perf is process 1 of its pid
 * namespace (tmpview_enter()), so a thread of its own that a perf.data's
 * tid happens to name there has Tgid 1. Each file of contents is copied
 * once (the threads of a process name the same), within perfmap.h's
 * budget: what it leaves out is empty, said in one warning. Returns 0 or
 * -ENOMEM. */
static int fill(struct tmpview *v, const struct ids *ids, int recdir)
{
	struct perfmap_budget budget = { 0 };
	long seen[PERFMAP_FILES_MAX];
	int err = 0;

	for (size_t i = 0; i < ids->n && !err; i++) {
		struct stat st;
		int fd = source(ids->v[i], recdir, &st);
		long same = fd >= 0 ? same_as(v, seen, budget.files, &st) : -1;

		if (same >= 0 || (fd >= 0 && !perfmap_budget_take(&budget, (uint64_t)st.st_size))) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			seen[budget.files - 1] = (long)v->n;
		err = add_file(v, ids->v[i], fd, fd >= 0 ? st.st_size : 0, same);
	}
	if (!err && ids->v[0] != 1)
		err = add_file(v, 1, -1, 0, -1);
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
			.uid = geteuid(), .gid = getegid(),
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

/* Without a view (ERR: why none): whether each name of V's files is safe
 * for perf to open as it is (no FIFO, device or socket, also at a symbolic
 * link's end). Returns 0, or -EPERM with WHY. */
static int check_names(const struct tmpview *v, int err, char *why, size_t size)
{
	for (size_t i = 0; i < v->n; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/tmp/%s", v->files[i].name);
		if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			continue;
		snprintf(why, size, "%s: %s of uid %d where perf script reads a JIT's perf map: "
			 "perf would open it (no private /tmp for perf: its namespace failed: %s)", path,
			 inpath_kind(st.st_mode), (int)st.st_uid, strerror(err));
		return -EPERM;
	}
	return 0;
}

/* Decodes mountinfo's octal escapes ("\040": a space) of S in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Whether mount point REL (relative to /tmp) is inside mount point IN. */
static bool inside(const char *rel, const char *in)
{
	size_t n = strlen(in);

	return !strncmp(rel, in, n) && rel[n] == '/';
}

/* Adds REL to V's mounts, unless it is inside one of them (and drops those
 * inside it). Returns 0 or -ENOMEM. */
static int add_mount(struct tmpview *v, const char *rel)
{
	char **m;
	size_t k = 0;

	for (size_t i = 0; i < v->nmounts; i++)
		if (!strcmp(rel, v->mounts[i]) || inside(rel, v->mounts[i]))
			return 0;
	for (size_t i = 0; i < v->nmounts; i++) {
		if (inside(v->mounts[i], rel))
			free(v->mounts[i]);
		else
			v->mounts[k++] = v->mounts[i];
	}
	v->nmounts = k;
	m = array_grow(v->mounts, &v->capmounts, v->nmounts, sizeof(*m));
	if (!m)
		return -ENOMEM;
	v->mounts = m;
	if (!(m[v->nmounts] = strdup(rel)))
		return -ENOMEM;
	v->nmounts++;
	return 0;
}

/* Lists the mount points below /tmp (/proc/self/mountinfo's fifth field)
 * into V, but for top-level names "perf-..." (a map of the view's place).
 * Returns 0 or -ENOMEM (unreadable: none). */
static int find_mounts(struct tmpview *v)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *point;
	size_t cap = 0;
	int err = 0;

	if (!f)
		return 0;
	while (!err && getline(&line, &cap, f) > 0) {
		point = line;
		for (int i = 0; i < 4 && point; i++)
			point = strchr(point, ' ') ? strchr(point, ' ') + 1 : NULL;
		if (!point || !strchr(point, ' '))
			continue;
		*strchr(point, ' ') = '\0';
		unescape(point);
		if (!strncmp(point, "/tmp/", 5) && point[5] && strncmp(point + 5, "perf-", 5))
			err = add_mount(v, point + 5);
	}
	free(line);
	fclose(f);
	return err;
}

int tmpview_make(const char *perfdata, int recdir, struct tmpview **view, char *why,
		 size_t size)
{
	struct ids ids = { 0 };
	struct tmpview *v;
	int err, how;

	*view = NULL;
	err = perfdata_mmaps(perfdata, collect, &ids);
	if (err == -EIO)
		err = ids.err;	/* damaged records: perf reads no further either */
	if (err || !ids.n) {
		free(ids.v);
		if (err)
			snprintf(why, size, "cannot read its mappings: %s", strerror(-err));
		return err;
	}
	unique(&ids);
	if (ids.n > TMPVIEW_NAMES_MAX) {
		snprintf(why, size, "names %zu processes with JIT memory, more than %u: perf would "
			 "open a perf map for each", ids.n, TMPVIEW_NAMES_MAX);
		free(ids.v);
		return -E2BIG;
	}
	v = calloc(1, sizeof(*v));
	err = v ? fill(v, &ids, recdir) : -ENOMEM;
	err = err ? err : find_mounts(v);
	free(ids.v);
	if (err) {
		snprintf(why, size, "out of memory");
		tmpview_free(v);
		return err;
	}
	v->uid = geteuid();
	v->gid = getegid();
	how = view_how(&err);
	if (how < 0) {
		err = check_names(v, err, why, size);
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
	for (size_t i = 0; i < v->nmounts; i++)
		free(v->mounts[i]);
	free(v->mounts);
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

/* REL below directory DIR, looked up without following any symbolic
 * link (another user's could lead anywhere: perf's libraries are loaded
 * after this) or leaving DIR: an O_PATH descriptor, or -1. */
static int beneath(int dir, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH,
	};

	return (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
}

/* Binds mount point REL of the real /tmp (LOWER, hidden by the view) with
 * the mounts inside it at its place in the view (VIEW). A mount point gone
 * since, or reached only through a link, is left out: perf then finds no
 * binary there, as before. */
static void bind_mount(int lower, int view, const char *rel)
{
	char from[48] = "/proc/self/fd/", to[48] = "/proc/self/fd/";
	int src = beneath(lower, rel), dst = beneath(view, rel);

	if (src >= 0 && dst >= 0) {
		*put_num(from + strlen(from), (unsigned long)src) = '\0';
		*put_num(to + strlen(to), (unsigned long)dst) = '\0';
		(void)mount(from, to, NULL, MS_BIND | MS_REC, NULL);
	}
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
}

/* Mounts V's view over /tmp, in a mount namespace already ours. Returns 0 or an errno. */
static int mount_view(const struct tmpview *v)
{
	char opts[128] = "lowerdir=/proc/self/fd/", *p;
	int lower, upper, err = 0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return errno;
	lower = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lower < 0)
		return errno;
	if (mount("snaptrace", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") ||
	    mkdir("/tmp/upper", 0755) || mkdir("/tmp/work", 0700)) {
		err = errno;
		close(lower);
		return err;
	}
	upper = open("/tmp/upper", O_DIRECTORY | O_CLOEXEC);
	if (upper < 0)
		err = errno;
	for (size_t i = 0; !err && i < v->n; i++)
		err = put_file(upper, v, i);
	if (upper >= 0)
		close(upper);
	p = put_num(opts + strlen(opts), (unsigned long)lower);
	memcpy(p, ",upperdir=/tmp/upper,workdir=/tmp/work", 39);
	if (!err && mount("overlay", "/tmp", "overlay", MS_NOSUID | MS_NODEV, opts))
		err = errno;
	if (!err && v->nmounts) {
		int view = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		for (size_t i = 0; view >= 0 && i < v->nmounts; i++)
			bind_mount(lower, view, v->mounts[i]);
		if (view >= 0)
			close(view);
	}
	close(lower);
	return err;
}

/* In the parent of a pid namespace's first process PID: ends as PID ends
 * (its exit status, or killed by the same signal), holding no descriptor
 * but ALIVE (the write end of the pipe that tells PID its parent lives);
 * killed, or PARENT gone, PID gets SIGKILL (PR_SET_PDEATHSIG). */
static _Noreturn void end_as(pid_t pid, int alive, pid_t parent)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int status;

	/* a change of capabilities may have cleared spawn's death signal */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		kill(pid, SIGKILL);

	if (alive > 0)
		close_range(0, (unsigned)alive - 1, 0);
	close_range((unsigned)alive + 1, ~0u, 0);
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);	/* none of the converter's handlers */
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
	int err;

	if (!v)
		return 0;
	if (v->how == TMPVIEW_ADMIN) {
		err = -nsenter_admin(true);
		if (!err && unshare(CLONE_NEWNS | CLONE_NEWPID))
			err = errno;
	} else {
		err = unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) ? errno : 0;
		if (!err)
			err = write_file("/proc/self/setgroups", "deny", 4);
		if (!err)
			err = map_self("/proc/self/uid_map", v->uid);
		if (!err)
			err = map_self("/proc/self/gid_map", v->gid);
	}
	if (!err)
		err = mount_view(v);
	if (!err)
		err = enter_pidns(parent);
	if (v->how == TMPVIEW_ADMIN) {
		int drop = -nsenter_admin(false);

		err = err ? err : drop;
	}
	return err;
}
