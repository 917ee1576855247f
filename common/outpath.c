// SPDX-License-Identifier: MIT
/*
 * outpath (see outpath.h). A path is walked with openat(O_PATH|O_NOFOLLOW),
 * one component at a time, each directory held as a descriptor: nothing is
 * looked up twice by name. Named temporaries are recorded in a small fixed
 * registry (directory descriptor and name), so that a signal handler can
 * remove them with unlinkat() alone: a slot is filled before it is marked
 * used, and the mark cleared before the slot is reused.
 */
#include "outpath.h"
#include "diag.h"
#include "inpath.h"
#include "pathtrust.h"
#include "signals.h"
#include "tmptree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MAX_TEMPS 64           /* named temporaries and directories at once */
#define MAX_LINKS 40           /* symbolic links followed, as the kernel's ELOOP */
#define TEMP_PREFIX ".snaptrace-"
#define TEMP_SUFFIX ".tmp"
#define TEMP_RANDOM 12         /* characters of randomness in a temporary's name */
#define STALE_S 60             /* an unlocked temporary this old is a dead writer's */

static struct {
	volatile sig_atomic_t used;
	int dirfd;
	bool dir;              /* a directory: emptied (tmptree.h), then removed */
	char name[32];
} temps[MAX_TEMPS];

/* Removes temporary directory NAME of DIRFD with what is in it: only what its
 * owner could remove (tmptree_empty()). Async-signal-safe. */
static void remove_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (!fstat(fd, &st))
		tmptree_empty(fd, 0, st.st_uid);
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void outpath_remove_temps(void)
{
	int saved = errno;

	for (int i = 0; i < MAX_TEMPS; i++) {
		if (!temps[i].used)
			continue;
		if (temps[i].dir)
			remove_dir(temps[i].dirfd, temps[i].name);
		else
			unlinkat(temps[i].dirfd, temps[i].name, 0);
	}
	errno = saved;
}

static void on_signal(int sig)
{
	outpath_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void outpath_remove_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa = { .sa_handler = on_signal };

	/* one ignored at start stays ignored (a SIGPIPE: write errors tell) */
	sig_not_ignored(sigs, sizeof(sigs) / sizeof(sigs[0]), &sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&sa.sa_mask, sigs[i]))
			sigaction(sigs[i], &sa, NULL);
}

/* Records temporary NAME of DIRFD (a directory when DIR) for removal on a
 * signal; returns its slot or -1 (full). */
static int temp_register(int dirfd, const char *name, bool dir)
{
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used)
			continue;
		temps[i].dirfd = dirfd;
		temps[i].dir = dir;
		snprintf(temps[i].name, sizeof(temps[i].name), "%s", name);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		temps[i].used = 1;
		return i;
	}
	return -1;
}

void outpath_temp_forget(int *slot)
{
	if (*slot >= 0)
		temps[*slot].used = 0;
	*slot = -1;
}

int outpath_temp_dir(int parent, const char *prefix, char *name, size_t size, int *slot)
{
	size_t len = strlen(prefix);

	*slot = -1;
	if (len + OUTPATH_TEMP_DIR_RANDOM + 1 > size || len + OUTPATH_TEMP_DIR_RANDOM + 1 > sizeof(temps[0].name))
		return -ENAMETOOLONG;
	for (int tries = 0; tries < 100; tries++) {
		int fd, err;

		memcpy(name, prefix, len);
		err = outpath_random(name + len, OUTPATH_TEMP_DIR_RANDOM);
		if (err)
			return err;
		*slot = temp_register(parent, name, true);
		if (mkdirat(parent, name, 0700)) {
			err = -errno;
			outpath_temp_forget(slot);
			if (err == -EEXIST)
				continue;
			return err;
		}
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		err = -errno;
		unlinkat(parent, name, AT_REMOVEDIR);	/* only an empty directory */
		outpath_temp_forget(slot);
		return err;
	}
	return -EEXIST;
}

int outpath_random(char *out, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	unsigned char r[64];

	if (len > sizeof(r) || getrandom(r, len, 0) != (ssize_t)len)
		return len > sizeof(r) ? -EINVAL : errno ? -errno : -EIO;
	for (size_t i = 0; i < len; i++)
		out[i] = digits[r[i] & 63];
	out[len] = '\0';
	return 0;
}

/* A new unpredictable temporary name into NAME (32 bytes). Returns 0 or a
 * negative errno (no randomness: getrandom() failed). */
static int temp_name(char *name)
{
	int err = outpath_random(name + sizeof(TEMP_PREFIX) - 1, TEMP_RANDOM);

	if (err)
		return err;
	memcpy(name, TEMP_PREFIX, sizeof(TEMP_PREFIX) - 1);
	memcpy(name + sizeof(TEMP_PREFIX) - 1 + TEMP_RANDOM, TEMP_SUFFIX, sizeof(TEMP_SUFFIX));
	return 0;
}

static bool is_temp_name(const char *name)
{
	size_t n = strlen(name);

	return n == sizeof(TEMP_PREFIX) - 1 + TEMP_RANDOM + sizeof(TEMP_SUFFIX) - 1 &&
	       !strncmp(name, TEMP_PREFIX, sizeof(TEMP_PREFIX) - 1) &&
	       !strcmp(name + n - (sizeof(TEMP_SUFFIX) - 1), TEMP_SUFFIX);
}

/* Where a path ends: its directory (held), its last name, and what is there. */
struct place {
	int dirfd;                /* O_PATH, owned */
	char name[NAME_MAX + 1];
	bool exists;
	struct stat st;           /* of what NAME is (never a link) when it exists */
};

/*
 * May the caller follow link L found in directory D? Only where nobody but
 * the caller and root may have put it there or may replace it
 * (PATHTRUST_US, pathtrust.h): another user's link never, also in their own
 * directory, where the kernel would follow it and root would write where
 * they point. Returns true, or false with WHY (SIZE bytes) saying why not:
 * "another user's (uid U)", or where it is.
 */
static bool may_follow(const struct stat *d, const struct stat *l, char *why, size_t size)
{
	enum pathtrust who = pathtrust_of(d, l);

	if (who == PATHTRUST_US)
		return true;
	if (l->st_uid != geteuid() && l->st_uid != 0)
		snprintf(why, size, "another user's (uid %u)", (unsigned)l->st_uid);
	else if (who == PATHTRUST_DIR_OWNER)
		snprintf(why, size, "in a directory of uid %u, who may replace it",
			 (unsigned)d->st_uid);
	else
		snprintf(why, size, "in a directory others may write without the sticky bit, "
			 "who may replace it");
	return false;
}

/* An existing FIFO or device is written straight only when the caller's, or
 * root's under no other name (a hard link to /dev/sda made elsewhere is not
 * /dev/sda named by the caller). */
static bool own_special(const struct stat *st)
{
	return st->st_uid == geteuid() || (st->st_uid == 0 && st->st_nlink == 1);
}

/* "PATH: expected an existing directory DIR, found none" into ERRBUF: DIR
 * the first LEN bytes of WALKED, the path walked (PATH, or what its
 * symbolic links made of it: then LINK, the last one followed, is named). */
static void no_dir(const char *path, const char *walked, size_t len, const char *link,
		   char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s: expected an existing directory %.*s%s%s%s, found none",
		 path, (int)len, walked, link ? " (where the symbolic link " : "", link ? link : "",
		 link ? " points)" : "");
}

/*
 * Walks PATH as outpath.h says into *P. Returns 0, or a negative errno with
 * one line naming PATH in ERRBUF: -EPERM for a link not followed, -ENOENT
 * for a missing directory on the way.
 */
static int locate(const char *path, struct place *p, char *errbuf, size_t errlen)
{
	char rest[2 * PATH_MAX], *r = rest, link[NAME_MAX + 1] = "";
	int cur, hops = 0, err;

	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
	if (!*path || strlen(path) >= sizeof(rest) / 2) {
		err = *path ? -ENAMETOOLONG : -ENOENT;
		snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(-err));
		return err;
	}
	strcpy(rest, path);
	cur = open(*r == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		goto fail_errno;
	for (;;) {
		char comp[NAME_MAX + 1], *end;
		struct stat st, dst;
		bool last;
		size_t len;
		int fd;

		while (*r == '/')
			r++;
		if (!*r) {	/* ends at a directory ("/", "dir/") */
			p->dirfd = cur;
			strcpy(p->name, ".");
			p->exists = !fstat(cur, &p->st);
			return 0;
		}
		end = strchrnul(r, '/');
		len = (size_t)(end - r);
		last = !*end;
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail_errno;
		}
		memcpy(comp, r, len);
		comp[len] = 0;
		r = end;
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && last) {
			p->dirfd = cur;
			strcpy(p->name, comp);
			return 0;
		}
		if (fd < 0 && errno == ENOENT) {
			no_dir(path, rest, (size_t)(r - rest), hops ? link : NULL, errbuf, errlen);
			close(cur);
			return -ENOENT;
		}
		if (fd < 0 || fstat(fd, &st)) {
			if (fd >= 0)
				close(fd);
			goto fail_errno;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], joined[sizeof(rest)];
			char why[96] = "";
			ssize_t n = -1;

			if (!fstat(cur, &dst) && may_follow(&dst, &st, why, sizeof(why)))
				n = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (why[0]) {
				snprintf(errbuf, errlen, "%s: cannot write: not following the "
					 "symbolic link %s, %s: an output follows only links "
					 "nobody but its caller and root may have put there; give "
					 "the path it points to", path, comp, why);
				close(cur);
				return -EPERM;
			}
			if (n <= 0 || ++hops > MAX_LINKS) {
				errno = n < 0 ? errno : n == 0 ? ENOENT : ELOOP;
				goto fail_errno;
			}
			target[n] = 0;
			strcpy(link, comp);
			if ((size_t)snprintf(joined, sizeof(joined), "%s%s", target, r) >=
			    sizeof(joined)) {
				errno = ENAMETOOLONG;
				goto fail_errno;
			}
			strcpy(rest, joined);
			r = rest;
			if (*r == '/') {
				close(cur);
				cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (cur < 0)
					goto fail_errno;
			}
			continue;
		}
		if (last) {
			close(fd);
			p->dirfd = cur;
			strcpy(p->name, comp);
			p->exists = true;
			p->st = st;
			return 0;
		}
		close(cur);
		cur = fd;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			goto fail_errno;
		}
	}
fail_errno:
	err = -errno;
	snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(errno));
	if (cur >= 0)
		close(cur);
	return err;
}

const char *outpath_shown(const char *path, char *buf, size_t size)
{
	char real[PATH_MAX];
	ssize_t n;

	if (strcmp(path, "-")) {
		snprintf(buf, size, "%s", path);
		return buf;
	}
	n = readlink("/proc/self/fd/1", real, sizeof(real) - 1);
	real[n > 0 ? n : 0] = '\0';
	snprintf(buf, size, real[0] == '/' ? "standard output (%s)" : "standard output", real);
	return buf;
}

/* Whether FD is a pipe or socket whose reader is gone (poll's POLLERR on a
 * pipe's write end), found without writing (which would raise SIGPIPE). */
static bool reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	struct stat st;

	return !fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
	       poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int outpath_stdout_done(int rc)
{
	char shown[PATH_MAX + 32];
	int err;

	errno = 0;
	if (rc || (!fflush(stdout) && !ferror(stdout)))
		return rc;
	/* errno is this flush's reason; when an earlier write failed and this
	 * one had nothing left to write, that reason is gone */
	err = errno;
	/* a reader that stopped reading (| head): the end every program meets
	 * whose SIGPIPE is at its default, the recorder too (it ignores
	 * SIGPIPE for perf's sake); one ignored at start: the message says */
	if ((err == EPIPE || (!err && reader_gone(STDOUT_FILENO))) &&
	    !sig_ignored_at_start(SIGPIPE)) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	diag_error("%s: cannot write: %s", outpath_shown("-", shown, sizeof(shown)),
		   err ? strerror(err) : "a write to it failed");
	return EXIT_RUNTIME;
}

/* Whether FD (the output PATH) is a terminal, which a binary trace would
 * garble: then refused, as gzip refuses, with the reason in ERRBUF. */
static bool terminal(const char *path, int fd, char *errbuf, size_t errlen)
{
	if (!isatty(fd))
		return false;
	snprintf(errbuf, errlen, "%s: %s %s; %s", path, strcmp(path, "-") ? "is" :
		 "standard output is", OUTPATH_TERMINAL, strcmp(path, "-") ? "give -o FILE" :
		 "redirect it (> FILE, | CMD) or give -o FILE");
	return true;
}

/* The refusal of an existing FIFO or device P another user owns; -EPERM. */
static int not_own_special(const char *path, const struct place *p, char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s: cannot write: %s of uid %u%s, not yours or root's: an "
		 "output writes into a FIFO or device only when its caller or root owns it",
		 path, inpath_kind(p->st.st_mode), (unsigned)p->st.st_uid,
		 p->st.st_uid == 0 ? " with another name (a hard link)" : "");
	return -EPERM;
}

/*
 * Removes what killed writers left in directory DIRFD: named temporaries
 * of the caller's that nobody holds locked and that are a minute old.
 */
static void sweep(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	time_t now = time(NULL);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char proc[32];
		struct stat st, again;
		int pf, rf;

		if (!is_temp_name(de->d_name))
			continue;
		pf = openat(dirfd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pf < 0)
			continue;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pf);
		rf = !fstat(pf, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		     st.st_mtime < now - STALE_S ? open(proc, O_RDONLY | O_CLOEXEC) : -1;
		if (rf >= 0 && !flock(rf, LOCK_EX | LOCK_NB) && !fstatat(dirfd, de->d_name, &again,
		    AT_SYMLINK_NOFOLLOW) && again.st_ino == st.st_ino && again.st_dev == st.st_dev)
			unlinkat(dirfd, de->d_name, 0);
		if (rf >= 0)
			close(rf);
		close(pf);
	}
	closedir(d);
}

/*
 * Creates a new named temporary in DIRFD (registered first, so that a
 * signal at any moment removes it): LINK_FROM, when not NULL, a
 * /proc/self/fd path, is linked there, else a new file is created. Returns
 * the new file's fd (0 after a link), with its name in TMP and its *SLOT;
 * or a negative errno.
 */
static int named_temp(int dirfd, const char *link_from, char *tmp, int *slot)
{
	for (int tries = 0; tries < 100; tries++) {
		int fd, err = temp_name(tmp);

		if (err)
			return err;
		*slot = temp_register(dirfd, tmp, false);
		fd = link_from ? linkat(AT_FDCWD, link_from, dirfd, tmp, AT_SYMLINK_FOLLOW) :
			openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       OUTPATH_FILE_MODE);
		if (fd >= 0)
			return fd;
		err = errno;
		outpath_temp_forget(slot);
		tmp[0] = 0;
		if (err != EEXIST)
			return -err;
	}
	return -EEXIST;
}

/* Whether ERR (a negative errno) is a write's own failure, a runtime one
 * (no space, a quota, an I/O error), not the place's: the one rule of
 * outpath_check()'s exit status and outpath_dir()'s errno. */
static bool write_failed(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EIO || err == -EFBIG;
}

/*
 * Whether a new file can be written in directory DIRFD, made as
 * outpath_open() makes one and dropped: an unnamed file (O_TMPFILE), else
 * (no O_TMPFILE there) a named temporary, removed. Permissions alone cannot
 * tell (root passes access(2) where sysfs or a read-only bind mount refuse
 * the file). Returns 0 or a negative errno.
 */
static int probe_write(int dirfd)
{
	char tmp[32];
	int err, slot = -1, fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		fd = named_temp(dirfd, NULL, tmp, &slot);
		if (fd >= 0)
			unlinkat(dirfd, tmp, 0);
		outpath_temp_forget(&slot);
	} else if (fd < 0) {
		fd = -errno;
	}
	if (fd < 0)
		return fd;
	/* a file system with no block left for us: a trace would fail at its
	 * first write (a file system that cannot allocate ahead says nothing) */
	err = fallocate(fd, 0, 0, 4096) ? errno : 0;
	close(fd);
	return err == ENOSPC || err == EDQUOT ? -err : 0;
}

/*
 * Whether the device open at FD takes writes: a write of no bytes reaches
 * the driver, which answers as it would a write of some (/dev/full: no
 * space), writing nothing. Only for a device: a pipe with no reader would
 * raise SIGPIPE. Returns 0 or the write's negative errno (-EAGAIN: it would
 * wait, so it takes writes).
 */
static int probe_device(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) ||
	    write(fd, "", 0) >= 0 || errno == EAGAIN || errno == EINTR)
		return 0;
	return -errno;
}

/* probe_device() of the device P names, opened as outpath_open() opens it. */
static int probe_path(const struct place *p)
{
	int err, fd = openat(p->dirfd, p->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
			     O_NONBLOCK);

	if (fd < 0)
		return -errno;
	err = probe_device(fd);
	close(fd);
	return err;
}

static void release(struct outpath *o)
{
	outpath_temp_forget(&o->slot);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	*o = (struct outpath){ .fd = -1, .dirfd = -1, .slot = -1 };
}

int outpath_open(struct outpath *o, const char *path, char *errbuf, size_t errlen)
{
	struct place p = { .dirfd = -1 };
	int err;

	*o = (struct outpath){ .fd = -1, .dirfd = -1, .slot = -1, .path = strdup(path) };
	if (!o->path) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (!strcmp(path, "-")) {
		if (terminal(path, STDOUT_FILENO, errbuf, errlen)) {
			release(o);
			return -ENOTTY;
		}
		o->fd = STDOUT_FILENO;
		return 0;
	}
	err = locate(path, &p, errbuf, errlen);
	if (err)
		goto fail;
	if (p.exists && S_ISDIR(p.st.st_mode)) {
		err = -EISDIR;
		snprintf(errbuf, errlen, "%s: cannot write: is a directory", path);
		goto fail;
	}
	if (p.exists && !S_ISREG(p.st.st_mode)) {	/* a device, a FIFO...: straight */
		struct stat st;

		err = own_special(&p.st) ? 0 : not_own_special(path, &p, errbuf, errlen);
		if (err)
			goto fail;
		/* never waiting: a FIFO without a reader, a device not ready */
		o->fd = openat(p.dirfd, p.name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
			       O_NONBLOCK);
		if (o->fd < 0 && errno == ENXIO && S_ISFIFO(p.st.st_mode)) {
			err = -ENXIO;
			snprintf(errbuf, errlen, "%s: %s", path, OUTPATH_NO_READER);
			goto fail;
		}
		if (o->fd < 0 || fstat(o->fd, &st) || st.st_ino != p.st.st_ino ||
		    st.st_dev != p.st.st_dev || fcntl(o->fd, F_SETFL, 0)) {
			err = o->fd < 0 ? -errno : -EAGAIN;
			snprintf(errbuf, errlen, "%s: cannot write: %s", path, o->fd < 0 ?
				 strerror(errno) : "it was replaced while being opened");
			goto fail;
		}
		if (terminal(path, o->fd, errbuf, errlen)) {
			err = -ENOTTY;
			goto fail;
		}
		close(p.dirfd);
		return 0;
	}
	sweep(p.dirfd);
	o->dirfd = p.dirfd;
	p.dirfd = -1;
	strcpy(o->name, p.name);
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, OUTPATH_FILE_MODE);
	if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		o->fd = named_temp(o->dirfd, NULL, o->tmp, &o->slot);
	else if (o->fd < 0)
		o->fd = -errno;
	if (o->fd < 0) {
		err = o->fd;
		snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(-err));
		goto fail;
	}
	flock(o->fd, LOCK_EX);	/* alive: sweep() leaves it */
	return 0;
fail:
	if (p.dirfd >= 0)
		close(p.dirfd);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	release(o);
	return err;
}

/* Puts O's file (open as O->fd) under O->name. Returns 0 or a negative errno. */
static int place_file(struct outpath *o)
{
	char proc[32];
	struct stat st;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	/* a new name: never replacing what appeared meanwhile */
	if (!o->tmp[0] && !linkat(AT_FDCWD, proc, o->dirfd, o->name, AT_SYMLINK_FOLLOW))
		return 0;
	if (o->tmp[0] && !renameat2(o->dirfd, o->tmp, o->dirfd, o->name, RENAME_NOREPLACE)) {
		o->tmp[0] = 0;
		return 0;
	}
	if (errno != EEXIST && !(o->tmp[0] && errno == EINVAL))
		return -errno;
	/* the name is taken: replaced only when it is a regular file */
	if (!fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st.st_mode))
		return -EEXIST;
	if (!o->tmp[0]) {
		int err = named_temp(o->dirfd, proc, o->tmp, &o->slot);

		if (err < 0)
			return err;
	}
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name))
		return -errno;
	o->tmp[0] = 0;
	return 0;
}

int outpath_commit(struct outpath *o)
{
	int err = 0, keep;

	if (o->dirfd < 0) {	/* standard output, or written straight */
		if (o->fd > STDOUT_FILENO && close(o->fd) < 0)
			err = -errno;
		release(o);
		return err;
	}
	/* close(2) reports what the file system could not write (NFS): a
	 * duplicate keeps the file open for its link */
	keep = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	if (keep < 0 || close(o->fd) < 0)
		err = -errno;
	o->fd = keep;
	if (!err)
		err = place_file(o);
	if (o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->fd >= 0)
		close(o->fd);
	release(o);
	return err;
}

void outpath_abort(struct outpath *o)
{
	if (o->fd > STDOUT_FILENO)
		close(o->fd);
	if (o->dirfd >= 0 && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	release(o);
}

bool outpath_names(const char *out, const struct stat *st)
{
	struct place p;
	char why[16];
	bool same;

	if (!strcmp(out, "-") || locate(out, &p, why, sizeof(why)))
		return false;
	same = p.exists && p.st.st_dev == st->st_dev && p.st.st_ino == st->st_ino;
	close(p.dirfd);
	return same;
}

/* Whether directory FD holds anything; its first entry's name into FIRST
 * (NAME_MAX + 1 bytes), preferring "record.json". */
static bool holds_entries(int fd, char *first)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	first[0] = 0;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		strcpy(first, "?");	/* cannot be listed: not taken as empty */
		return true;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!first[0] || !strcmp(de->d_name, "record.json")))
			snprintf(first, NAME_MAX + 1, "%s", de->d_name);
	closedir(d);
	return first[0] != 0;
}

int outpath_dir(const char *flag, const char *path, bool *created, char *errbuf, size_t errlen)
{
	const char *again = flag ? flag : "-o";
	char first[NAME_MAX + 1], lead[PATH_MAX + 16], why[PATH_MAX + 256];
	struct place p;
	struct stat st;
	int fd, err = locate(path, &p, why, sizeof(why));

	/* messages start "FLAG PATH: " (the option given), or "PATH: " */
	snprintf(lead, sizeof(lead), "%s%s%s", flag ? flag : "", flag ? " " : "", path);
	*created = false;
	if (err) {
		snprintf(errbuf, errlen, "%s%s%s", flag ? flag : "", flag ? " " : "", why);
		return err;
	}
	if (!p.exists && mkdirat(p.dirfd, p.name, 0755) == 0)
		*created = true;
	else if (!p.exists && errno != EEXIST)
		goto fail_errno;
	fd = openat(p.dirfd, p.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) {
		snprintf(errbuf, errlen, "%s: expected a directory, found %s", lead,
			 inpath_kind(p.st.st_mode));
		close(p.dirfd);
		return -ENOTDIR;
	}
	if (fd < 0 || fstat(fd, &st))
		goto fail_errno;
	err = 0;
	if (st.st_uid != geteuid()) {
		snprintf(errbuf, errlen, "%s: a directory of uid %u: a recording directory must "
			 "be its recorder's own (perf writes its files there by name); give a new "
			 "name", lead, (unsigned)st.st_uid);
		err = -EPERM;
	} else if (pathtrust_of(&st, NULL) != PATHTRUST_US) {
		snprintf(errbuf, errlen, "%s: writable by others (mode %04o): a recording directory "
			 "must be its recorder's alone (perf writes its files there by name); give a "
			 "new name", lead, (unsigned)(st.st_mode & 07777));
		err = -EPERM;
	} else if ((err = probe_write(fd))) {
		snprintf(errbuf, errlen, "%s: cannot write a file in it: %s", lead, strerror(-err));
		if (!write_failed(err))
			err = -EACCES;
	} else if (!*created && holds_entries(fd, first)) {
		if (!strcmp(first, "record.json"))
			snprintf(errbuf, errlen, "%s: expected a new directory, found an earlier "
				 "recording (record.json); nothing was recorded: choose another %s",
				 lead, again);
		else
			snprintf(errbuf, errlen, "%s: expected a new or empty directory, found %s "
				 "in it; nothing was recorded: choose another %s", lead, first, again);
		err = -ENOTEMPTY;
	}
	if (err) {
		close(fd);
		if (*created && !unlinkat(p.dirfd, p.name, AT_REMOVEDIR))   /* nothing recorded */
			*created = false;
	} else {
		err = fd;
	}
	close(p.dirfd);
	return err;
fail_errno:
	err = -errno;
	snprintf(errbuf, errlen, "%s: cannot create the output directory: %s", lead,
		 strerror(errno));
	close(p.dirfd);
	return err;
}

int outpath_walk_dir(const char *path, char *real, size_t size, char *errbuf, size_t errlen)
{
	struct place p;
	char proc[64];
	ssize_t n;
	int fd, err = locate(path, &p, errbuf, errlen);

	if (err)
		return err;
	if (!p.exists) {
		snprintf(errbuf, errlen, "%s: expected an existing directory, found none", path);
		close(p.dirfd);
		return -ENOENT;
	}
	fd = openat(p.dirfd, p.name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(p.dirfd);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: expected a directory, found %s", path,
			 err == -ENOTDIR ? inpath_kind(p.st.st_mode) : strerror(-err));
		return err;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, size - 1);
	if (n <= 0 || real[0] != '/' || (size_t)n >= size - 1) {
		snprintf(errbuf, errlen, "%s: cannot tell where it is: %s", path,
			 n < 0 ? strerror(errno) : "a name too long");
		close(fd);
		return n < 0 ? -errno : -ENAMETOOLONG;
	}
	real[n] = '\0';
	return fd;
}

int outpath_create_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			OUTPATH_FILE_MODE);

	return fd < 0 ? -errno : fd;
}

int outpath_copy_at(int dirfd, const char *name, int from, off_t size, mode_t mode)
{
	int to = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 mode & 0755);
	off_t at = 0;
	int err = 0;

	if (to < 0)
		return -errno;
	while (!err && at < size) {
		ssize_t n = copy_file_range(from, &at, to, NULL, (size_t)(size - at), 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP ||
			      errno == EINVAL))
			n = sendfile(to, from, &at, (size_t)(size - at));
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
	}
	if (close(to) && !err)
		err = -errno;
	if (err)
		unlinkat(dirfd, name, 0);
	return err;
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
		/* the lowest free number: FD itself, as the ones below are open;
		 * standard fds, for a child as for this process */
		if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
			return;
	}
}

int outpath_check(const char *path, char *errbuf, size_t errlen)
{
	struct place p = { .dirfd = -1 };
	char copy[PATH_MAX], dir[PATH_MAX];
	ssize_t n = 0;
	int err, rc = EXIT_USAGE;

	if (!strcmp(path, "-")) {
		if (terminal(path, STDOUT_FILENO, errbuf, errlen))
			return EXIT_USAGE;
		if (!stdout_closed && (err = probe_device(STDOUT_FILENO))) {
			snprintf(errbuf, errlen, "%s: cannot write: %s; redirect it or give -o FILE",
				 outpath_shown(path, dir, sizeof(dir)), strerror(-err));
			return EXIT_RUNTIME;	/* a write that fails */
		}
		if (!stdout_closed)
			return EXIT_OK;
		snprintf(errbuf, errlen, "-: standard output is closed: expected somewhere to "
			 "write the trace; redirect it or give -o FILE");
		return EXIT_USAGE;
	}
	err = locate(path, &p, errbuf, errlen);
	if (!err && p.exists && S_ISDIR(p.st.st_mode)) {
		snprintf(errbuf, errlen, "%s: is a directory, expected a trace file name "
			 "(FILE.fxt.gz, FILE.gz, FILE.fxt or -)", path);
		err = -EISDIR;
	} else if (outpath_format(path) == OUTPATH_FORMAT_NONE) {
		snprintf(errbuf, errlen, "%s: unknown output type: expected FILE.fxt.gz or "
			 "FILE.gz (gzip), FILE.fxt (raw) or - (stdout)", path);
		err = err ? err : -EINVAL;
	} else if (!err && p.exists && !S_ISREG(p.st.st_mode) && !own_special(&p.st)) {
		err = not_own_special(path, &p, errbuf, errlen);
	} else if (!err && p.exists && (S_ISCHR(p.st.st_mode) || S_ISBLK(p.st.st_mode))) {
		err = probe_path(&p);
		if (err)
			snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(-err));
		rc = write_failed(err) ? EXIT_RUNTIME : EXIT_USAGE;
	} else if (!err && (err = probe_write(p.dirfd))) {
		/* the directory reached (through PATH's links), by its kernel name */
		snprintf(copy, sizeof(copy), "/proc/self/fd/%d", p.dirfd);
		n = readlink(copy, dir, sizeof(dir) - 1);
		snprintf(copy, sizeof(copy), "%s", path);
		snprintf(errbuf, errlen, "%s: cannot write a file in directory %s: %s", path,
			 n > 0 ? (dir[n] = 0, dir) : dirname(copy), strerror(-err));
		rc = write_failed(err) ? EXIT_RUNTIME : EXIT_USAGE;
	}
	if (p.dirfd >= 0)
		close(p.dirfd);
	return err ? rc : EXIT_OK;
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
