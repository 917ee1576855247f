/* SPDX-License-Identifier: MIT */
/* binaries: the recorded binaries checked against the files now (see binaries.h). */
#include "binaries.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "elfid.h"
#include "inpath.h"
#include "outpath.h"
#include "perfdata.h"
#include "tmptree.h"

/* The build id of the regular file PATH into HEX; false when it cannot be
 * read as an ELF file (gone, not a regular file: inpath_open() looks before
 * it opens, so no device is opened; a link another user may have put in a
 * shared directory is not followed), or WHO's users may not open it
 * (runas_open()). A file there but held by a lease (fcntl F_SETLEASE: its
 * owner makes every other open wait) is no file gone: *LEASED (WHY_SIZE
 * bytes) is then inpath_open()'s words, "held by a lease of uid N", else
 * empty. */
static bool file_id(const struct runas_set *who, const char *path, char *hex, char *leased,
		    size_t why_size)
{
	int fd = runas_open(who, AT_FDCWD, path, 0, leased, why_size);
	bool ok = fd >= 0 && !elfid_fd(fd, hex, BINARIES_ID_MAX + 1);

	if (fd != -EWOULDBLOCK)
		leased[0] = 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

bool binaries_cache_path(const char *cache, const char *id, const char *file, char *p,
			 size_t size)
{
	size_t n = strlen(id);

	while (n > 2 && id[n - 1] == '0' && id[n - 2] == '0')
		n -= 2;   /* perf names a padded id by its own length */
	return cache && n >= 3 &&
	       (size_t)snprintf(p, size, "%s/.build-id/%.2s/%.*s%s%s", cache, id, (int)(n - 2),
				id + 2, file ? "/" : "", file ? file : "") < size;
}

/* Whether the build-id cache CACHE holds the binary of ID. */
static bool cached(const char *cache, const char *id)
{
	char p[4096];

	return binaries_cache_path(cache, id, NULL, p, sizeof(p)) && !access(p, F_OK);
}

struct walk {
	struct binaries *b;
	const char *cache;
	bool perf_knows;              /* perf has the build id (the perf.data's), and so
				       * names no frame of a file of another */
};

static int on_id(void *arg, const char *hex, const char *path)
{
	struct walk *w = arg;
	struct binaries *b = w->b;
	struct binary *e;
	char now[BINARIES_ID_MAX + 1], full[4096], leased[80];
	/* no file and one its owner may not open are one to them (runas.h) */
	const char *gone = b->who && b->who->n ? "gone (or not one the recording's owner may open)"
					       : "gone";
	bool there;

	if (path[0] != '/' || !hex[0])
		return 0;   /* [kernel.kallsyms], [vdso], //anon */
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->b[i].path, path))
			return 0;
	e = array_grow(b->b, &b->cap, b->n, sizeof(*b->b));
	if (!e)
		return -ENOMEM;
	b->b = e;
	e = &b->b[b->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path)))
		return -ENOMEM;
	snprintf(e->id, sizeof(e->id), "%s", hex);
	b->n++;
	snprintf(full, sizeof(full), "%s%s", b->symfs ? b->symfs : "", path);
	there = file_id(b->who, full, now, leased, sizeof(leased));
	if ((there && perfdata_same_buildid(hex, now)) || cached(w->cache, hex))
		return 0;
	if (leased[0]) {	/* there: not "gone"; perf's own open of it waits the lease out */
		diag_warn("%s: %s: its build id is unchecked, and perf waits up to "
			  "/proc/sys/fs/lease-break-time seconds to open it", full, leased);
		return 0;
	}
	e->changed = true;
	if (!w->perf_knows)
		diag_warn("%s: %s since the recording (build id %s%s%s): the recording names "
			  "its build id, not perf, so perf names its frames from the file there "
			  "now, which may name them wrongly; give perf the binary as it was: "
			  "--perf-arg=--symfs=DIR", full, there ? "changed" : gone, hex,
			  there ? ", the file's now " : "", there ? (now[0] ? now : "none") : "");
	else if (there)
		diag_warn("%s: changed since the recording (its build id is %s, the recording's "
			  "%s): perf names none of its frames; record with --keep-binaries to keep "
			  "the binaries in the recording, or give perf the binary as it was: "
			  "--perf-arg=--symfs=DIR", full, now[0] ? now : "none", hex);
	else
		diag_warn("%s: %s since the recording (build id %s): perf names none of its "
			  "frames; record with --keep-binaries to keep the binaries in the "
			  "recording, or give perf the binary as it was: --perf-arg=--symfs=DIR",
			  full, gone, hex);
	return 0;
}

int binaries_check_recorded(struct binaries *b, const char *path, const char *hex)
{
	struct walk w = { b, NULL, false };

	return on_id(&w, hex, path);
}

int binaries_check(struct binaries *b, const char *perfdata, const char *cache)
{
	struct walk w = { b, cache, true };
	char why[256];
	int err = perfdata_buildids(perfdata, on_id, &w, why, sizeof(why));

	return err == -ENOMEM ? err : err ? -EIO : 0;
}

/* The entry of B for DSO (LEN bytes), or NULL. */
static const struct binary *binary_of(const struct binaries *b, const char *dso, size_t len)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (strlen(b->b[i].path) == len && !memcmp(b->b[i].path, dso, len))
			return &b->b[i];
	return NULL;
}

bool binaries_changed(const struct binaries *b, const char *dso, size_t len)
{
	const struct binary *e = binary_of(b, dso, len);

	return e && e->changed;
}

bool binaries_is_recorded(const struct binaries *b, const char *dso, size_t len, const char *hex)
{
	const struct binary *e = binary_of(b, dso, len);

	return !e || !e->id[0] || (hex[0] && perfdata_same_buildid(e->id, hex));
}

void binaries_free(struct binaries *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->b[i].path);
	free(b->b);
	b->b = NULL;
	b->n = b->cap = 0;
}

/* Entries a kept-binaries tree may hold, and its depth: a tree past them is
 * refused (perf would walk it all). */
#define KEPT_ENTRIES_MAX 100000
#define KEPT_DEPTH_MAX 64

/* Whether symbolic link TARGET, in a directory DEPTH levels below the top
 * of the tree, stays in it: "../" at most DEPTH times, then names only. */
static bool link_inside(const char *target, int depth)
{
	bool names = false;

	if (target[0] == '/' || !target[0])
		return false;
	for (const char *c = target; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && !strncmp(c, "..", 2)) {
			if (names || --depth < 0)
				return false;
		} else if (n && !(n == 1 && *c == '.')) {
			names = true;
		}
		c += n + (c[n] == '/');
	}
	return true;
}

/* Where a kept-binaries tree is copied: the walk's state. */
struct copy {
	uid_t owner;            /* the tree's top directory's owner */
	unsigned left;          /* entries still allowed */
	long long bytes;        /* bytes still allowed */
	char at[PATH_MAX];      /* the entry's path from the top, for WHY */
	char *why;
	size_t wsize;
};

/*
 * Copies every entry of directory FD, DEPTH levels below the top of a
 * kept-binaries tree, into directory TO: directories, regular files (with
 * one name, or the tree owner's), and symbolic links that stay in the tree.
 * Each entry is opened once and what was opened is checked and copied:
 * renaming or replacing anything in the tree meanwhile changes nothing in
 * the copy. C->at holds the path so far (LEN bytes). Returns true, or false
 * with C->why naming the first entry refused and what it is.
 */
/* Over 80 lines, kept whole: one branch per kind of entry, each checked on
 * the descriptor it copies from, read best in one place (Threat model). */
static bool tree_copy(int fd, int to, int depth, struct copy *c, size_t len)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	bool ok = d != NULL;

	if (!d) {
		snprintf(c->why, c->wsize, "%s: cannot list it: %s", len ? c->at : ".",
			 strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	while (ok && (de = readdir(d))) {
		char target[PATH_MAX], why[160];
		struct stat st;
		ssize_t n;
		int sub, sub_to, in, err = 0;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(c->at + len, sizeof(c->at) - len, "%s%s", len ? "/" : "", de->d_name);
		if (!c->left--) {
			snprintf(c->why, c->wsize, "more than %d entries", KEPT_ENTRIES_MAX);
			ok = false;
		} else if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			snprintf(c->why, c->wsize, "%s: %s", c->at, strerror(errno));
			ok = false;
		} else if (S_ISDIR(st.st_mode)) {
			sub = depth < KEPT_DEPTH_MAX ? openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
							      O_NOFOLLOW | O_CLOEXEC) : -1;
			sub_to = sub < 0 || mkdirat(to, de->d_name, 0700) ? -1 :
				 openat(to, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
			if (sub < 0 || sub_to < 0) {
				snprintf(c->why, c->wsize, "%s: %s", c->at, depth < KEPT_DEPTH_MAX ?
					 strerror(errno) : "nested too deep");
				ok = false;
			} else {
				ok = tree_copy(sub, sub_to, depth + 1, c, strlen(c->at));
			}
			if (sub >= 0)
				close(sub);
			if (sub_to >= 0)
				close(sub_to);
		} else if (S_ISREG(st.st_mode)) {
			/* opened as inpath does: what is checked is what is copied */
			in = inpath_open(fd, de->d_name, INPATH_NOFOLLOW, why, sizeof(why));
			if (in >= 0 && !fstat(in, &st) && st.st_nlink > 1 && st.st_uid != c->owner)
				snprintf(why, sizeof(why), "a hard link to a file of uid %u, not of "
					 "the directory's owner (uid %u)", (unsigned)st.st_uid,
					 (unsigned)c->owner);
			else if (in >= 0 && (c->bytes -= st.st_size) < 0)
				snprintf(why, sizeof(why), "more than %lld GiB in all",
					 PERFDATA_BINARIES_BYTES_MAX >> 30);
			else if (in >= 0 && (err = outpath_copy_at(to, de->d_name, in,
								   st.st_size, 0600)))
				snprintf(why, sizeof(why), "cannot copy it: %s", strerror(-err));
			else if (in >= 0)
				why[0] = 0;
			if (why[0]) {
				snprintf(c->why, c->wsize, "%s: %s", c->at, why);
				ok = false;
			}
			if (in >= 0)
				close(in);
		} else if (S_ISLNK(st.st_mode)) {
			n = readlinkat(fd, de->d_name, target, sizeof(target) - 1);
			target[n > 0 ? n : 0] = 0;
			if (n <= 0 || !link_inside(target, depth)) {
				snprintf(c->why, c->wsize, "%s: a symbolic link out of it (to %s)",
					 c->at, target);
				ok = false;
			} else if (symlinkat(target, to, de->d_name)) {
				snprintf(c->why, c->wsize, "%s: %s", c->at, strerror(errno));
				ok = false;
			}
		} else {
			snprintf(c->why, c->wsize, "%s: %s", c->at, inpath_kind(st.st_mode));
			ok = false;
		}
		c->at[len] = 0;
	}
	closedir(d);
	return ok;
}

/* Gives the tree below the directory FD (DEPTH levels down from a copy) to
 * UID and GID, as binaries_kept_give(). Returns 0 or the first negative errno. */
static int tree_give(int fd, int depth, uid_t uid, gid_t gid)
{
	/* a description of its own: a dup's offset, left at the end, is tmptree_empty()'s too */
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	if (!d) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fchownat(fd, de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			break;
		}
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || depth >= KEPT_DEPTH_MAX)
			continue;
		sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && (errno == ENOTDIR || errno == ELOOP))
			continue;	/* DT_UNKNOWN: a file or a link */
		err = sub < 0 ? -errno : tree_give(sub, depth + 1, uid, gid);
		if (sub >= 0)
			close(sub);
	}
	closedir(d);
	return err;
}

int binaries_kept_give(const struct binaries_kept *k, uid_t uid, gid_t gid)
{
	int err;

	if (k->fd < 0)
		return 0;
	err = tree_give(k->fd, 0, uid, gid);
	return err ? err : fchown(k->fd, uid, gid) ? -errno : 0;
}

const char *binaries_kept_handle(const struct binaries_kept *k)
{
	return k->fd >= 0 ? k->handle : NULL;
}

void binaries_kept_remove(struct binaries_kept *k)
{
	struct stat st;

	if (k->fd >= 0 && !fstat(k->fd, &st)) {
		tmptree_empty(k->fd, 0, st.st_uid);	/* the caller's, or given */
		unlinkat(k->parent, k->name, AT_REMOVEDIR);
	}
	outpath_temp_forget(&k->slot);
	if (k->fd >= 0)
		close(k->fd);
	if (k->parent >= 0)
		close(k->parent);
	*k = BINARIES_KEPT_NONE;
}

#define KEPT_PREFIX "snaptrace-kept-"
#define KEPT_STALE_S 60         /* an unlocked copy this old is a dead converter's */

/*
 * Removes the private copies in directory PARENT that converters killed
 * before they could (a signal, SIGKILL) left: a directory named as one
 * (KEPT_PREFIX and OUTPATH_TEMP_DIR_RANDOM characters, no link), mode 0700, a minute
 * old and not locked (a live converter holds its copy locked), the
 * caller's or, when the caller is root, given to another user
 * (binaries_kept_give(): root's conversion of their recording); only what
 * its owner could remove (tmptree_empty()): a directory of theirs named so
 * costs them nothing they could not do themselves.
 */
static void remove_stale(int parent)
{
	int dup_fd = fcntl(parent, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	time_t now = time(NULL);
	uid_t me = geteuid();

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (strncmp(de->d_name, KEPT_PREFIX, sizeof(KEPT_PREFIX) - 1) ||
		    strlen(de->d_name) != sizeof(KEPT_PREFIX) - 1 + OUTPATH_TEMP_DIR_RANDOM)
			continue;
		fd = openat(parent, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && (st.st_uid == me || me == 0) && !(st.st_mode & 07077) &&
		    now - st.st_mtime > KEPT_STALE_S && !flock(fd, LOCK_EX | LOCK_NB)) {
			tmptree_empty(fd, 0, st.st_uid);
			unlinkat(parent, de->d_name, AT_REMOVEDIR);
		}
		close(fd);
	}
	closedir(d);
}

int binaries_kept_dir(struct binaries_kept *k)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	int err;

	*k = BINARIES_KEPT_NONE;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	k->parent = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (k->parent < 0)
		return -errno;
	remove_stale(k->parent);
	/* registered before it exists: a signal from then on removes it */
	k->fd = outpath_temp_dir(k->parent, KEPT_PREFIX, k->name, sizeof(k->name), &k->slot);
	/* made 0700: nobody else could; checked all the same, as a directory
	 * others may write could have had it renamed meanwhile (then left) */
	err = k->fd < 0 ? k->fd : fstat(k->fd, &st) || st.st_uid != geteuid() ||
	      (st.st_mode & 077) ? -EPERM : 0;
	if (err == -EPERM) {
		close(k->fd);
		k->fd = -1;
	}
	if (!err && flock(k->fd, LOCK_EX | LOCK_NB))
		err = -errno;
	if (err) {
		k->fd = err == -EPERM || k->fd < 0 ? -1 : k->fd;
		binaries_kept_remove(k);
		return err;
	}
	inpath_proc(k->fd, k->handle, sizeof(k->handle));
	return 0;
}

int binaries_kept_copy(int recdir, struct binaries_kept *k, char *why, size_t wsize)
{
	struct copy c = { .left = KEPT_ENTRIES_MAX, .bytes = PERFDATA_BINARIES_BYTES_MAX, .why = why,
			  .wsize = wsize };
	struct stat st;
	int fd = openat(recdir, PERFDATA_BINARIES_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC), err;

	*k = BINARIES_KEPT_NONE;
	if (fd < 0) {
		err = -errno;
		if ((errno == ENOTDIR || errno == ELOOP) &&
		    !fstatat(recdir, PERFDATA_BINARIES_DIR, &st, AT_SYMLINK_NOFOLLOW))
			snprintf(why, wsize, "no directory (%s)", inpath_kind(st.st_mode));
		else
			snprintf(why, wsize, "%s", strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(why, wsize, "%s", strerror(errno));
	} else if ((err = binaries_kept_dir(k))) {
		snprintf(why, wsize, "no private directory to copy them into: %s", strerror(-err));
	} else {
		c.owner = st.st_uid;
		err = tree_copy(fd, k->fd, 0, &c, 0) ? 0 : -EPERM;
	}
	close(fd);
	if (err) {
		binaries_kept_remove(k);
		return err;
	}
	inpath_proc(k->fd, k->handle, sizeof(k->handle));
	return 0;
}
