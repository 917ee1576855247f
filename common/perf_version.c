/* SPDX-License-Identifier: MIT */
#include "perf_version.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "inpath.h"
#include "outpath.h"
#include "pathtrust.h"
#include "run.h"

#define CACHE_NAME "perf-versions"
#define CACHE_LINES 16          /* binaries remembered; the oldest go first */
#define CACHE_LINE 512

static const struct {
	int major, minor;
	const char *option;
} features[PERF_FEAT_COUNT] = {
	[PERF_FEAT_SNAPSHOT_ON_EXIT] = { 5, 4, "--snapshot=e" },
	[PERF_FEAT_KCORE] = { 5, 5, "--kcore" },
	[PERF_FEAT_CONTROL] = { 5, 10, "--control" },
	[PERF_FEAT_DLFILTER] = { 5, 14, "--dlfilter" },
	[PERF_FEAT_NO_BPF_EVENT] = { 5, 1, "--no-bpf-event" },
	[PERF_FEAT_BUILDID_MMAP] = { 5, 12, "--buildid-mmap" },
};

/* Reads a decimal number of at most 6 digits at *P; advances *P. -1 if none. */
static int read_num(const char **p)
{
	int n = 0, digits = 0;

	while (isdigit((unsigned char)**p)) {
		if (++digits > 6)
			return -1;
		n = n * 10 + (**p - '0');
		(*p)++;
	}
	return digits ? n : -1;
}

/*
 * Finds MAJOR.MINOR[.PATCH] starting exactly at S. Returns 0 and fills V, or
 * -EINVAL when S does not start with one.
 */
static int parse_numbers(const char *s, struct perf_version *v)
{
	const char *p = s;
	int major, minor, patch = 0;

	major = read_num(&p);
	if (major < 2 || major > 99 || *p != '.')
		return -EINVAL;
	p++;
	minor = read_num(&p);
	if (minor < 0)
		return -EINVAL;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		patch = read_num(&p);
		if (patch < 0)
			patch = 0;
	}
	v->major = major;
	v->minor = minor;
	v->patch = patch;
	v->known = true;
	return 0;
}

int perf_version_parse(const char *text, struct perf_version *v)
{
	const char *s, *end;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (!text)
		return -EINVAL;
	s = strstr(text, "version");
	s = s ? s + strlen("version") : text;
	while (*s == ' ' || *s == '\t')
		s++;
	end = s;
	while (*end && *end != '\n' && *end != '\r')
		end++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - s);
	if (n >= sizeof(v->text))
		n = sizeof(v->text) - 1;
	memcpy(v->text, s, n);
	v->text[n] = '\0';

	/* The version normally starts the text; else take the first number. */
	for (s = v->text; *s; s++) {
		if (!isdigit((unsigned char)*s))
			continue;
		if (s > v->text && isdigit((unsigned char)s[-1]))
			continue;
		if (parse_numbers(s, v) == 0)
			return 0;
	}
	v->known = false;
	v->major = v->minor = v->patch = 0;
	return -EINVAL;
}

bool perf_version_at_least(const struct perf_version *v, int major, int minor)
{
	if (!v->known)
		return false;
	return v->major > major || (v->major == major && v->minor >= minor);
}

int perf_version_has(const struct perf_version *v, enum perf_feature f)
{
	if (f < 0 || f >= PERF_FEAT_COUNT)
		return 0;
	if (!v->known)
		return -1;
	return perf_version_at_least(v, features[f].major, features[f].minor);
}

const char *perf_feature_option(enum perf_feature f)
{
	if (f < 0 || f >= PERF_FEAT_COUNT)
		return "?";
	return features[f].option;
}

const char *perf_version_str(const struct perf_version *v, char *buf, unsigned size)
{
	if (!v->known)
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%d.%d.%d", v->major, v->minor, v->patch);
	return buf;
}

/* The cache file's directory ($XDG_CACHE_HOME/snaptrace) into DIR. Returns
 * false when there is no home to put it in. */
static bool cache_dir(char *dir, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(dir, size, "%s/snaptrace", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, size, "%s/.cache/snaptrace", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* Whether PATH is a directory of the caller's (root's counts for root)
 * where nobody else may put a name (pathtrust.h): PATH itself, not a link
 * (lstat), except for BASE, the $HOME or $XDG_CACHE_HOME the caller named,
 * which is followed. */
static bool own_dir(const char *path, bool base)
{
	struct stat st;

	return !(base ? stat(path, &st) : lstat(path, &st)) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && pathtrust_of(&st, NULL) == PATHTRUST_US;
}

/* Makes the cache directory DIR (cache_dir()'s) and the one above it
 * (~/.cache, or $XDG_CACHE_HOME) where missing, each only inside a
 * directory of the caller's that nobody else may write (own_dir()): root
 * run with another user's HOME, or a ~/.cache that is a link to elsewhere,
 * gets no cache, never a directory made where that user points. Returns
 * whether DIR may be used. */
static bool make_cache_dir(const char *dir)
{
	char up[PATH_MAX], base[PATH_MAX], *slash;
	bool xdg = getenv("XDG_CACHE_HOME") && getenv("XDG_CACHE_HOME")[0] == '/';
	struct stat st;

	snprintf(up, sizeof(up), "%s", dir);
	if (!(slash = strrchr(up, '/')) || slash == up)
		return false;
	*slash = 0;
	if (!own_dir(up, xdg)) {
		if (!lstat(up, &st))
			return false;   /* there, and not the caller's own */
		snprintf(base, sizeof(base), "%s", up);
		slash = strrchr(base, '/');
		*(slash == base ? slash + 1 : slash) = 0;
		if (!own_dir(base, true) || (mkdir(up, 0700) && errno != EEXIST) || !own_dir(up, xdg))
			return false;
	}
	mkdir(dir, 0700);
	return own_dir(dir, false);
}

/* The cache key of the binary at PATH into KEY ("KEY\t" starts its line).
 * Returns false when PATH cannot be looked at. */
static bool cache_key(const char *path, char *key, size_t size)
{
	struct stat st;
	struct utsname u;
	int n;

	if (stat(path, &st) || uname(&u))
		return false;
	n = snprintf(key, size, "%llu %llu %lld %lld.%09ld %lld.%09ld %s %s\t",
		     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		     (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		     (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, u.release, path);
	return n > 0 && (size_t)n < size && !strchr(path, '\n') && !strchr(path, '\t');
}

/* Looks KEY up in the cache file PATH: the version text it holds into
 * TEXT. Returns true when found. */
static bool cache_find(const char *path, const char *key, char *text, size_t size)
{
	char line[CACHE_LINE], why[160];
	int fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	bool found = false;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(text, size, "%s", line + strlen(key));
			found = true;
		}
	fclose(f);
	return found;
}

/* Is LINE of the cache about the binary at EXE (its key ends " EXE\t")? */
static bool cache_line_of(const char *line, const char *exe)
{
	const char *tab = strchr(line, '\t');
	size_t n = strlen(exe);

	return tab && (size_t)(tab - line) > n && tab[-(long)n - 1] == ' ' &&
	       !strncmp(tab - n, exe, n);
}

/* Writes KEY TEXT as the newest line of the cache file PATH in DIR, with
 * up to CACHE_LINES - 1 of its lines about other binaries than EXE
 * (outpath.h: readers see the old file or the new). Failures are ignored. */
static void cache_store(const char *dir, const char *path, const char *exe, const char *key,
			const char *text)
{
	char tmp[PATH_MAX], line[CACHE_LINE], *nl;
	char *lines[CACHE_LINES] = { NULL };
	int n = 0, fd;
	struct outpath out;
	FILE *in, *f;

	if (!make_cache_dir(dir))
		return;
	fd = inpath_open(AT_FDCWD, path, 0, tmp, sizeof(tmp));
	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !in)
		close(fd);
	while (in && n < CACHE_LINES - 1 && fgets(line, sizeof(line), in))
		if ((nl = strchr(line, '\n')) && !cache_line_of(line, exe))
			lines[n++] = strdup(line);
	if (in)
		fclose(in);
	if (!outpath_open(&out, path, tmp, sizeof(tmp))) {
		fd = fcntl(out.fd, F_DUPFD_CLOEXEC, 0);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (f) {
			fprintf(f, "%s%s\n", key, text);
			for (int i = 0; i < n; i++)
				if (lines[i])
					fputs(lines[i], f);
		}
		if (!f || fclose(f))
			outpath_abort(&out);
		else
			outpath_commit(&out);
		if (!f && fd >= 0)
			close(fd);
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
}

int perf_version_of(const char *perf, struct perf_version *v)
{
	char exe[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + 32], key[PATH_MAX + 128];
	char out[256];
	char *argv[] = { exe, "--version", NULL };
	bool cached = cache_dir(dir, sizeof(dir)) &&
		      (size_t)snprintf(file, sizeof(file), "%s/%s", dir, CACHE_NAME) < sizeof(file);

	perf_version_parse("", v);
	if (run_find_program(perf, exe, sizeof(exe)))
		return -1;
	cached = cached && cache_key(exe, key, sizeof(key));
	if (cached && cache_find(file, key, out, sizeof(out))) {
		perf_version_parse(out, v);
		return 0;
	}
	if (run_capture(argv, out, sizeof(out)) != 0)
		return -1;
	perf_version_parse(out, v);
	if (cached)
		cache_store(dir, file, exe, key, v->text);
	return 0;
}
