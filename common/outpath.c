// SPDX-License-Identifier: MIT
/*
 * outpath (see outpath.h). Temporaries are recorded in a small fixed
 * registry of path buffers, so that a signal handler can remove them with
 * unlink() alone: a slot's path is written before the slot is marked used,
 * and the mark cleared before the slot is reused.
 */
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TEMPS 8          /* temporaries open at once */
#define MAX_LINKS 40         /* symbolic links followed, as the kernel's ELOOP */

static struct {
	volatile sig_atomic_t used;
	char path[PATH_MAX];
} temps[MAX_TEMPS];

void outpath_remove_temps(void)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used)
			unlink(temps[i].path);
}

static void on_signal(int sig)
{
	outpath_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void outpath_remove_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Records TMP for removal on a signal; returns its slot or -1 (registry full). */
static int temp_register(const char *tmp)
{
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used)
			continue;
		snprintf(temps[i].path, sizeof(temps[i].path), "%s", tmp);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		temps[i].used = 1;
		return i;
	}
	return -1;
}

static void temp_forget(int slot)
{
	if (slot >= 0)
		temps[slot].used = 0;
}

/* Joins directory DIR (of length DLEN) and NAME into a new string. */
static char *join(const char *dir, size_t dlen, const char *name)
{
	char *s;

	if (asprintf(&s, "%.*s/%s", (int)dlen, dir, name) < 0)
		return NULL;
	return s;
}

/*
 * Resolves PATH as a writer will reach it: every symbolic link followed,
 * also a last one whose target does not exist yet. Returns a new absolute
 * path, or NULL with errno set.
 */
static char *resolve(const char *path)
{
	char *cur = strdup(path), *res = NULL;
	int hops;

	for (hops = 0; cur && hops <= MAX_LINKS; hops++) {
		char buf[PATH_MAX], *slash, *next;
		struct stat st;
		ssize_t n;

		if (realpath(cur, buf)) {
			res = strdup(buf);
			break;
		}
		if (errno != ENOENT)
			break;
		slash = strrchr(cur, '/');
		if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)) {	/* dangling link */
			n = readlink(cur, buf, sizeof(buf) - 1);
			if (n < 0)
				break;
			buf[n] = 0;
			next = buf[0] == '/' || !slash ? strdup(buf)
						       : join(cur, (size_t)(slash - cur), buf);
			free(cur);
			cur = next;
			continue;
		}
		/* A new name: resolve its directory. */
		if (!slash) {
			res = realpath(".", buf) ? join(buf, strlen(buf), cur) : NULL;
		} else {
			char dir[PATH_MAX];

			snprintf(dir, sizeof(dir), "%.*s", (int)(slash == cur ? 1 : slash - cur), cur);
			res = realpath(dir, buf) ? join(buf, strcmp(buf, "/") ? strlen(buf) : 0,
							slash + 1) : NULL;
		}
		break;
	}
	if (hops > MAX_LINKS)
		errno = ELOOP;
	free(cur);
	return res;
}

/*
 * Creates a new temporary beside PATH; returns its fd, *TMP and its registry
 * *SLOT, or -errno. The name is registered before the file exists, so a
 * signal at any moment removes it (the name holds our pid: a file of that
 * name left by an earlier process of the same pid is nobody's).
 */
static int make_temp(const char *path, char **tmp, int *slot)
{
	const char *slash = strrchr(path, '/');

	for (unsigned n = 0; n < 1000; n++) {
		char name[64];
		int fd, err;

		snprintf(name, sizeof(name), ".st-%ld-%u.tmp", (long)getpid(), n);
		*tmp = join(path, (size_t)(slash - path), name);
		if (!*tmp)
			return -ENOMEM;
		*slot = temp_register(*tmp);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		err = errno;
		temp_forget(*slot);
		*slot = -1;
		free(*tmp);
		*tmp = NULL;
		if (err != EEXIST)
			return -err;
	}
	return -EEXIST;
}

int outpath_open(struct outpath *o, const char *path, char *errbuf, size_t errlen)
{
	struct stat st;
	int err;

	*o = (struct outpath){ .fd = -1, .slot = -1 };
	if (!strcmp(path, "-")) {
		o->path = strdup("-");
		if (!o->path)
			goto nomem;
		o->fd = STDOUT_FILENO;
		return 0;
	}
	errno = 0;
	o->path = resolve(path);
	if (!o->path) {
		err = errno ? -errno : -ENOMEM;
		snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(-err));
		return err;
	}
	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			err = -EISDIR;
			snprintf(errbuf, errlen, "%s: cannot write: is a directory", path);
			goto fail;
		}
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC);	/* a device, FIFO...: straight */
		if (o->fd < 0) {
			err = -errno;
			snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	o->fd = make_temp(o->path, &o->tmp, &o->slot);
	if (o->fd < 0) {
		err = o->fd;
		o->fd = -1;
		snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(-err));
		goto fail;
	}
	return 0;
nomem:
	err = -ENOMEM;
	snprintf(errbuf, errlen, "%s: out of memory", path);
fail:
	free(o->path);
	*o = (struct outpath){ .fd = -1, .slot = -1 };
	return err;
}

static void release(struct outpath *o)
{
	temp_forget(o->slot);
	free(o->path);
	free(o->tmp);
	*o = (struct outpath){ .fd = -1, .slot = -1 };
}

int outpath_commit(struct outpath *o)
{
	int err = 0;

	if (o->fd > STDOUT_FILENO && close(o->fd) < 0)
		err = -errno;
	o->fd = -1;
	if (o->tmp && !err && rename(o->tmp, o->path) < 0)
		err = -errno;
	if (o->tmp && err)
		unlink(o->tmp);
	release(o);
	return err;
}

void outpath_abort(struct outpath *o)
{
	if (o->fd > STDOUT_FILENO)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

bool outpath_same_file(const char *out, const char *in)
{
	struct stat so, si;
	char *ro, *ri;
	bool same;

	if (!strcmp(out, "-") || !strcmp(in, "-"))
		return false;
	if (stat(out, &so) == 0 && stat(in, &si) == 0)
		return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
	ro = resolve(out);
	ri = resolve(in);
	same = ro && ri && !strcmp(ro, ri);
	free(ro);
	free(ri);
	return same;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

enum outpath_format outpath_format(const char *path)
{
	size_t n = strlen(path);
	struct stat st;

	if (!strcmp(path, "-") || ends_with(path, n, ".fxt"))
		return OUTPATH_FORMAT_RAW;
	if (ends_with(path, n, ".gz"))
		return OUTPATH_FORMAT_GZIP;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return OUTPATH_FORMAT_RAW;	/* a device or FIFO, as stdout */
	return OUTPATH_FORMAT_NONE;
}

static bool stdout_closed;

void outpath_keep_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == STDOUT_FILENO)
			stdout_closed = true;
		/* the lowest free number: FD itself, as the ones below are open */
		if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
			return;
	}
}

int outpath_check(const char *path, char *errbuf, size_t errlen)
{
	char copy[PATH_MAX], *dir;
	struct stat st;

	if (!strcmp(path, "-")) {
		if (!stdout_closed)
			return 0;
		snprintf(errbuf, errlen, "-: standard output is closed: expected somewhere to "
			 "write the trace; redirect it or give -o FILE");
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(errbuf, errlen, "%s: is a directory, expected a trace file name "
			 "(FILE.fxt.gz, FILE.gz, FILE.fxt or -)", path);
		return -1;
	}
	if (outpath_format(path) == OUTPATH_FORMAT_NONE) {
		snprintf(errbuf, errlen, "%s: unknown output type: expected FILE.fxt.gz or "
			 "FILE.gz (gzip), FILE.fxt (raw) or - (stdout)", path);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(errbuf, errlen, "%s: expected an existing directory %s, found none",
			 path, dir);
		return -1;
	}
	if (access(dir, W_OK)) {
		snprintf(errbuf, errlen, "%s: directory %s is not writable", path, dir);
		return -1;
	}
	return 0;
}

int outpath_unnamed(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || errno != EOPNOTSUPP)
		return fd >= 0 ? fd : -errno;
	if ((size_t)snprintf(path, sizeof(path), "%s/.snaptrace-XXXXXX", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}
