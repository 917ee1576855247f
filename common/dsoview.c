/* SPDX-License-Identifier: MIT */
/* dsoview: the binaries perf opens by name that another user could swap
 * (see dsoview.h). */
#include "dsoview.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "inpath.h"
#include "pathtrust.h"

#define LINKS_MAX 40             /* links followed on one path, as the kernel's */
#define SWAP_TRIES 4             /* lookups of a file that is not the one checked */

/* NAME below directory DIR (AT_FDCWD: an absolute NAME), opened with
 * FLAGS, without following any symbolic link (and, BENEATH, never out of
 * DIR): a descriptor, or -1 with errno. */
static int lookup(int dir, const char *name, int flags, bool beneath)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   (beneath ? RESOLVE_BENEATH : 0),
	};

	return (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));
}

/* What looking a path up found. */
enum place {
	PLACE_NONE,              /* nothing perf could open there that another user controls */
	PLACE_TRUSTED,           /* a file or directory nobody else may replace: CUR its
				  * path, links resolved */
	PLACE_COVER,             /* CUR a directory nobody else may rename, whose name REL
				  * ("" when it cannot be kept: a ".." in it) another may change */
};

/* Copies the names of P into REL (PATH_MAX bytes) joined by '/'; "" when
 * one is ".." or REL would be too long. */
static void rel_names(const char *p, char *rel)
{
	size_t n = 0, len;

	rel[0] = '\0';
	for (p = inpath_next_name(p, &len); len; p = inpath_next_name(p + len, &len)) {
		if ((len == 2 && !strncmp(p, "..", 2)) || n + len + 2 > PATH_MAX) {
			rel[0] = '\0';
			return;
		}
		if (n)
			rel[n++] = '/';
		memcpy(rel + n, p, len);
		rel[n += len] = '\0';
	}
}

/* Looks absolute PATH up one name at a time from "/" (CUR, PATH_MAX
 * bytes: the directory reached, links resolved; REL, PATH_MAX bytes). */
static enum place place(const char *path, char *cur, char *rel)
{
	char rest[PATH_MAX], tmp[PATH_MAX];
	const char *p = rest;
	size_t n = 0, len, hops = 0;
	struct stat dst, st;

	if (path[0] != '/' || strlen(path) >= sizeof(rest) || lstat("/", &dst))
		return PLACE_NONE;
	strcpy(rest, path);
	cur[0] = '\0';
	for (;;) {
		bool there;

		p = inpath_next_name(p, &len);
		if (!len)
			return n ? PLACE_TRUSTED : PLACE_NONE;	/* a directory */
		if (len == 2 && !strncmp(p, "..", 2)) {
			char *slash = strrchr(cur, '/');

			n = slash ? (size_t)(slash - cur) : 0;
			cur[n] = '\0';
			if (lstat(n ? cur : "/", &dst))
				return PLACE_NONE;
			p += len;
			continue;
		}
		if (n + len + 2 > PATH_MAX)
			return PLACE_NONE;
		cur[n] = '/';
		memcpy(cur + n + 1, p, len);
		cur[n + 1 + len] = '\0';
		there = !lstat(cur, &st);
		if (!there && errno != ENOENT)
			return PLACE_NONE;
		if (pathtrust_of(&dst, there ? &st : NULL) != PATHTRUST_US) {
			cur[n] = '\0';
			rel_names(p, rel);
			return n ? PLACE_COVER : PLACE_NONE;	/* never "/" itself */
		}
		if (!there)
			return PLACE_NONE;	/* nobody else may make it */
		p += len;
		if (S_ISLNK(st.st_mode)) {
			ssize_t k = readlink(cur, tmp, sizeof(tmp) - 1);

			cur[n] = '\0';
			if (k <= 0 || ++hops > LINKS_MAX ||
			    (size_t)k + strlen(p) + 2 > sizeof(tmp))
				return PLACE_NONE;
			tmp[k] = '/';
			strcpy(tmp + k + 1, p);
			strcpy(rest, tmp);
			p = rest;
			if (rest[0] == '/') {
				n = 0;
				cur[0] = '\0';
				if (lstat("/", &dst))
					return PLACE_NONE;
			}
			continue;
		}
		n += 1 + len;
		if (inpath_next_name(p, &len), !len)
			return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? PLACE_TRUSTED : PLACE_NONE;
		if (!S_ISDIR(st.st_mode))
			return PLACE_NONE;
		dst = st;
	}
}

/* Keeps STR (owned, or NULL: out of memory) in V's count of bytes;
 * returns it, or NULL with V's error set. */
static char *kept(struct dsoview *v, char *str)
{
	if (!str)
		v->err = -ENOMEM;
	else if ((v->bytes += strlen(str) + 1) > DSOVIEW_BYTES_MAX)
		v->err = -E2BIG;
	if (v->err) {
		free(str);
		return NULL;
	}
	return str;
}

/* Whether V saw PATH already (hashed as KEY); else adds it. */
static bool seen(struct dsoview *v, const char *path, uint64_t key)
{
	size_t probe = 0;
	uint32_t i;
	void *g;

	while ((i = hash_index_next(&v->index, key, &probe)) != HASH_NONE)
		if (!strcmp(v->seen[i].path, path))
			return true;
	if (v->nseen >= DSOVIEW_PATHS_MAX) {
		v->err = -E2BIG;
		return true;
	}
	g = array_grow(v->seen, &v->capseen, v->nseen, sizeof(*v->seen));
	if (!g) {
		v->err = -ENOMEM;
		return true;
	}
	v->seen = g;
	v->seen[v->nseen] = (struct dsoview_seen){ kept(v, strdup(path)), NULL };
	if (!v->seen[v->nseen].path || hash_index_add(&v->index, key, (uint32_t)v->nseen)) {
		free(v->seen[v->nseen].path);
		v->err = v->err ? v->err : -ENOMEM;
		return true;
	}
	v->nseen++;
	return false;
}

/* The index of cover DIR in V, added when new; V->ncovers with V's error
 * set when it cannot be. */
static size_t cover(struct dsoview *v, const char *dir)
{
	uint64_t key = hash_bytes(dir, strlen(dir));
	size_t probe = 0;
	uint32_t c;
	void *g;

	while ((c = hash_index_next(&v->cindex, key, &probe)) != HASH_NONE)
		if (!strcmp(v->covers[c], dir))
			return c;
	if (v->ncovers >= DSOVIEW_FILES_MAX) {
		v->err = -E2BIG;
		return v->ncovers;
	}
	g = array_grow(v->covers, &v->capcovers, v->ncovers, sizeof(*v->covers));
	if (g)
		v->covers = g;
	if (!g || !(v->covers[v->ncovers] = strdup(dir)) ||
	    hash_index_add(&v->cindex, key, (uint32_t)v->ncovers)) {
		if (g)
			free(v->covers[v->ncovers]);
		v->err = -ENOMEM;
		return v->ncovers;
	}
	return v->ncovers++;
}

/* Notes PATH left out of cover's tree (WHY), the first one by name. */
static void left_out(struct dsoview *v, const char *path, const char *why)
{
	if (!v->left++ && !v->left_over) {
		snprintf(v->left_path, sizeof(v->left_path), "%s", path);
		snprintf(v->left_why, sizeof(v->left_why), "%s", why);
	}
}

/* Looks REL up below cover C of V without following a link: a regular
 * file is kept to be bound (PATH: its name, for a message). */
static void add_file(struct dsoview *v, size_t c, const char *rel, const char *path)
{
	struct dsoview_file *f;
	struct stat st = { 0 };
	size_t probe = 0;
	uint64_t key;
	int dir, fd;
	uint32_t i;
	void *g;

	if (!rel[0]) {
		left_out(v, path, "\"..\" below a directory another user may change");
		return;
	}
	dir = lookup(AT_FDCWD, v->covers[c], O_PATH | O_DIRECTORY, false);
	fd = dir < 0 ? -1 : lookup(dir, rel, O_PATH, true);
	if (fd < 0 && errno == ELOOP)
		left_out(v, path, "a symbolic link");
	if (dir >= 0)
		close(dir);
	if (fd < 0)
		return;		/* not there: perf finds none there either */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		left_out(v, path, inpath_kind(st.st_mode));
		close(fd);
		return;
	}
	close(fd);
	key = hash_pair(c, hash_bytes(rel, strlen(rel)));
	while ((i = hash_index_next(&v->findex, key, &probe)) != HASH_NONE)
		if (v->files[i].cover == c && !strcmp(v->files[i].rel, rel))
			return;	/* the same path by another name */
	if (v->nfiles >= DSOVIEW_FILES_MAX) {
		if (!v->left_over++ && !v->left)
			snprintf(v->left_path, sizeof(v->left_path), "%s", path);
		return;
	}
	g = array_grow(v->files, &v->capfiles, v->nfiles, sizeof(*v->files));
	if (!g) {
		v->err = -ENOMEM;
		return;
	}
	v->files = g;
	f = &v->files[v->nfiles];
	*f = (struct dsoview_file){ .cover = c, .dev = st.st_dev, .ino = st.st_ino };
	if (!(f->rel = strdup(rel)) || hash_index_add(&v->findex, key, (uint32_t)v->nfiles)) {
		free(f->rel);
		v->err = -ENOMEM;
		return;
	}
	v->nfiles++;
}

int dsoview_add(struct dsoview *v, const char *path)
{
	char cur[PATH_MAX], rel[PATH_MAX];
	size_t c;

	if (v->err || path[0] != '/' || seen(v, path, hash_bytes(path, strlen(path))))
		return v->err;
	switch (place(path, cur, rel)) {
	case PLACE_TRUSTED:
		v->seen[v->nseen - 1].trusted = kept(v, strdup(cur));
		break;
	case PLACE_COVER:
		c = cover(v, cur);
		if (!v->err)
			add_file(v, c, rel, path);
		break;
	case PLACE_NONE:
		break;
	}
	return v->err;
}

/* Shows NAME (LEN bytes) of cover C, unless a file is bound below it or it
 * is shown already. */
static void show(struct dsoview *v, size_t c, const char *name, size_t len)
{
	struct dsoview_name *s;
	char *dup;

	for (size_t i = 0; i < v->nfiles; i++)
		if (v->files[i].cover == c && !strncmp(v->files[i].rel, name, len) &&
		    (v->files[i].rel[len] == '/' || !v->files[i].rel[len]))
			return;
	for (size_t i = 0; i < v->nnames; i++)
		if (v->names[i].cover == c && strlen(v->names[i].name) == len &&
		    !strncmp(v->names[i].name, name, len))
			return;
	s = array_grow(v->names, &v->capnames, v->nnames, sizeof(*v->names));
	dup = s ? strndup(name, len) : NULL;
	if (!dup) {
		v->err = -ENOMEM;
		return;
	}
	v->names = s;
	v->names[v->nnames++] = (struct dsoview_name){ .cover = c, .name = dup };
}

/* Shows in each cover but "/tmp" the name that the path PATH (absolute,
 * links resolved) leads through below it. */
static void show_through(struct dsoview *v, const char *path)
{
	for (size_t c = 0; c < v->ncovers && !v->err; c++) {
		size_t n = strlen(v->covers[c]), len;
		const char *name;

		if (strcmp(v->covers[c], "/tmp") && !strncmp(path, v->covers[c], n) &&
		    path[n] == '/' && (name = inpath_next_name(path + n, &len), len))
			show(v, c, name, len);
	}
}

/* Shows the names a path the caller gives perf (PATH, or an option's value
 * after '=') leads through. */
static void show_caller(struct dsoview *v, const char *path)
{
	char cur[PATH_MAX], rel[PATH_MAX], full[PATH_MAX];
	const char *eq = strchr(path, '=');
	enum place pl = place(eq && path[0] != '/' ? eq + 1 : path, cur, rel);

	if (pl == PLACE_TRUSTED)
		show_through(v, cur);
	else if (pl == PLACE_COVER && (size_t)snprintf(full, sizeof(full), "%s/%s", cur, rel) <
		 sizeof(full))
		show_through(v, full);	/* the caller named it: by name */
}

int dsoview_finish(struct dsoview *v, const char *const *paths)
{
	for (size_t i = 0; i < v->nseen; i++) {
		if (v->seen[i].trusted && !v->err)
			show_through(v, v->seen[i].trusted);
		free(v->seen[i].trusted);
		free(v->seen[i].path);
	}
	for (size_t c = 0; c < v->ncovers && !v->err; c++)
		show_through(v, v->covers[c]);	/* a cover below another */
	for (size_t i = 0; paths && paths[i] && !v->err; i++)
		show_caller(v, paths[i]);
	free(v->seen);
	v->seen = NULL;
	v->nseen = v->capseen = 0;
	hash_index_free(&v->index);
	hash_index_free(&v->findex);
	hash_index_free(&v->cindex);
	if (!v->err && (v->left || v->left_over))
		diag_warn("%zu binar%s in directories other users may change left out of perf's "
			  "view (perf finds no file there: its frames unnamed): %s%s%s%s",
			  v->left + v->left_over, v->left + v->left_over == 1 ? "y" : "ies",
			  v->left_path, v->left ? ": " : "", v->left ? v->left_why : "",
			  v->left_over ? " (at most 1024 are shown)" : "");
	return v->err;
}

bool dsoview_any(const struct dsoview *v)
{
	return v->ncovers > 0;
}

bool dsoview_covers_tmp(const struct dsoview *v)
{
	for (size_t c = 0; c < v->ncovers; c++)
		if (!strcmp(v->covers[c], "/tmp"))
			return true;
	return false;
}

bool dsoview_tmp_builds(const struct dsoview *v, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < v->nfiles; i++)
		if (!strcmp(v->covers[v->files[i].cover], "/tmp") &&
		    !strncmp(v->files[i].rel, name, len) &&
		    (v->files[i].rel[len] == '/' || !v->files[i].rel[len]))
			return true;
	return false;
}

void dsoview_free(struct dsoview *v)
{
	for (size_t i = 0; i < v->nfiles; i++)
		free(v->files[i].rel);
	for (size_t i = 0; i < v->nnames; i++)
		free(v->names[i].name);
	for (size_t c = 0; c < v->ncovers; c++)
		free(v->covers[c]);
	for (size_t i = 0; i < v->nseen; i++) {
		free(v->seen[i].path);
		free(v->seen[i].trusted);
	}
	free(v->files);
	free(v->names);
	free(v->covers);
	free(v->seen);
	hash_index_free(&v->index);
	hash_index_free(&v->findex);
	hash_index_free(&v->cindex);
	*v = (struct dsoview){ 0 };
}

/* Async-signal-safe from here on. */

/* "/proc/self/fd/FD" into BUF (48 bytes). */
static const char *proc_fd(char *buf, int fd)
{
	char tmp[16];
	size_t n = 0, k = 14;

	memcpy(buf, "/proc/self/fd/", 14);
	do
		tmp[n++] = (char)('0' + fd % 10);
	while ((fd /= 10));
	while (n)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
	return buf;
}

void dsoview_bind(int src, const struct stat *st, int top, const char *rel)
{
	char from[48], to[48], dir[PATH_MAX];
	int made, dst;

	for (const char *s = rel; (s = strchr(s, '/')); s++) {
		memcpy(dir, rel, (size_t)(s - rel));
		dir[s - rel] = '\0';
		(void)mkdirat(top, dir, 0755);	/* there already: a file's other parent */
	}
	made = S_ISDIR(st->st_mode) ? mkdirat(top, rel, 0755) :
	       openat(top, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (made < 0)
		return;
	if (!S_ISDIR(st->st_mode))
		close(made);
	dst = lookup(top, rel, O_PATH, true);
	if (dst < 0)
		return;
	if (mount(proc_fd(from, src), proc_fd(to, dst), NULL, MS_BIND | MS_REC, NULL))
		(void)unlinkat(top, rel, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0);
	close(dst);
}

void dsoview_show(int lower, int top, const char *name)
{
	int src = lookup(lower, name, O_PATH, true);
	struct stat st;

	if (src < 0)
		return;
	if (!fstat(src, &st) && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		dsoview_bind(src, &st, top, name);
	close(src);
}

/* Binds file F of a cover, looked up again below the real directory
 * LOWER, at its place below TOP when it is the very file the converter
 * checked (device and inode; a few tries: another user swapping names in a
 * loop), else not at all. */
static void bind_file(const struct dsoview_file *f, int lower, int top)
{
	for (int try = 0; try < SWAP_TRIES; try++) {
		int fd = lookup(lower, f->rel, O_PATH, true);
		struct stat st;
		bool same = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
			    st.st_dev == f->dev && st.st_ino == f->ino;

		if (same)
			dsoview_bind(fd, &st, top, f->rel);
		if (fd >= 0)
			close(fd);
		if (same || fd < 0)
			return;
	}
}

/* Hides cover C of V by a tmpfs holding its names and files; the cover
 * "/tmp" is TMPFD's, its real directory TMPLOWER. Returns 0 or an errno. */
static int mount_cover(const struct dsoview *v, size_t c, int tmplower, int tmpfd)
{
	bool tmp = !strcmp(v->covers[c], "/tmp");
	char at[48];
	int lower = tmplower, top = tmpfd, err = 0;

	if (!tmp) {
		lower = lookup(AT_FDCWD, v->covers[c], O_PATH | O_DIRECTORY, false);
		if (lower < 0)
			return errno == ENOENT ? 0 : errno;	/* not in the view: perf finds
								 * nothing there either */
		if (mount("snaptrace", proc_fd(at, lower), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") ||
		    (top = lookup(AT_FDCWD, v->covers[c], O_RDONLY | O_DIRECTORY, false)) < 0) {
			err = errno;
			close(lower);
			return err;
		}
		for (size_t i = 0; i < v->nnames; i++)
			if (v->names[i].cover == c)
				dsoview_show(lower, top, v->names[i].name);
	}
	for (size_t i = 0; top >= 0 && lower >= 0 && i < v->nfiles; i++)
		if (v->files[i].cover == c)
			bind_file(&v->files[i], lower, top);
	if (!tmp) {
		close(top);
		close(lower);
	}
	return 0;
}

int dsoview_mount(const struct dsoview *v, int tmplower, int tmpfd)
{
	bool done[DSOVIEW_FILES_MAX] = { 0 };

	/* each cover after those above it: the shortest path first */
	for (size_t k = 0; k < v->ncovers; k++) {
		size_t best = v->ncovers;
		int err;

		for (size_t c = 0; c < v->ncovers; c++)
			if (!done[c] && (best == v->ncovers ||
					 strlen(v->covers[c]) < strlen(v->covers[best])))
				best = c;
		done[best] = true;
		err = mount_cover(v, best, tmplower, tmpfd);
		if (err)
			return err;
	}
	return 0;
}
