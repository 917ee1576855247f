/* SPDX-License-Identifier: MIT */
/* perfmap: a JIT's perf map (see perfmap.h). */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "inpath.h"
#include "pathtrust.h"

pid_t perfmap_pid(const char *dso, size_t len)
{
	char buf[40];
	unsigned long pid;
	int end = 0;

	if (len >= sizeof(buf) || len < 15 || memcmp(dso, "/tmp/perf-", 10))
		return -1;
	memcpy(buf, dso, len);
	buf[len] = '\0';
	if (sscanf(buf, "/tmp/perf-%lu.map%n", &pid, &end) != 1 || (size_t)end != len ||
	    !pid || pid > 4194304)
		return -1;
	return (pid_t)pid;
}

bool perfmap_budget_take(struct perfmap_budget *b, uint64_t size)
{
	if (b->files < PERFMAP_FILES_MAX && size <= PERFMAP_TOTAL_MAX - b->bytes) {
		b->files++;
		b->bytes += size;
		return true;
	}
	b->left_out++;
	b->left_bytes += size;
	return false;
}

void perfmap_budget_warn(const struct perfmap_budget *b, const char *what)
{
	if (b->left_out)
		diag_warn("%u JIT perf map%s (%" PRIu64 " bytes) %s: more than %u maps or %u MiB "
			  "in all; their functions show as addresses", b->left_out,
			  b->left_out == 1 ? "" : "s", b->left_bytes, what, PERFMAP_FILES_MAX,
			  PERFMAP_TOTAL_MAX >> 20);
}

/* What /proc/PID/status tells of a process whose perf map is looked for. */
struct proc_of {
	bool live;              /* its status was read */
	uid_t uid[2];           /* its real and effective uids (live) */
	pid_t ids[3];           /* the names its map may have, the first choice first */
	int n;
};

/* Fills *P for process PID: the names its perf map may have (the live
 * process's innermost NStgid and its Tgid, then PID) and its uids, from
 * /proc/PID/status (lines that start with the field's name: "Uid:" real,
 * effective, saved, fs). */
static void proc_of(pid_t pid, struct proc_of *p)
{
	char path[40], buf[4096], *s;
	long nstgid = 0, tgid = 0;
	int fd;
	ssize_t len;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[len > 0 ? len : 0] = '\0';
	for (s = buf; len > 0 && (s = strchr(s, '\n')); ) {
		char *end;

		if (!strncmp(++s, "Tgid:", 5))
			tgid = strtol(s + 5, NULL, 10);
		if (!strncmp(s, "Uid:", 4)) {
			unsigned long r = strtoul(s + 4, &end, 10), e = strtoul(end, &end, 10);

			p->live = true;
			p->uid[0] = (uid_t)r;
			p->uid[1] = (uid_t)e;
		}
		if (strncmp(s, "NStgid:", 7))
			continue;
		for (s += 7; ; s = end) {
			long v = strtol(s, &end, 10);

			if (end == s || v <= 0)
				break;
			nstgid = v;	/* the last: the innermost */
		}
	}
	for (int i = 0; i < 3; i++) {
		long v = i == 0 ? nstgid : i == 1 ? tgid : pid;
		bool seen = false;

		for (int k = 0; k < p->n; k++)
			seen |= p->ids[k] == v;
		if (v > 0 && v <= 4194304 && !seen)
			p->ids[p->n++] = (pid_t)v;
	}
}

/* perfmap_owner_ok() for a process P tells. */
static bool owner_ok(const struct proc_of *p, uid_t uid, pid_t pid, char *why, size_t wsize)
{
	if (p->live ? uid == p->uid[0] || uid == p->uid[1] : pathtrust_uid_ours(uid))
		return true;
	if (p->live)
		snprintf(why, wsize, "owned by uid %d, not by process %d's user (uid %d)", (int)uid,
			 (int)pid, (int)p->uid[p->uid[1] != p->uid[0]]);
	else
		snprintf(why, wsize, "owned by uid %d, not by root or you (process %d is gone)",
			 (int)uid, (int)pid);
	return false;
}

int perfmap_open(pid_t pid, unsigned flags, char *path, size_t size, char *why, size_t wsize)
{
	char refused[64] = "", said[300] = "";
	struct proc_of p;
	int err = -ENOENT;

	proc_of(pid, &p);
	for (int i = 0; i < p.n; i++) {
		struct stat st;
		int fd;

		snprintf(path, size, PERFMAP_PATH, (int)p.ids[i]);
		fd = inpath_open(AT_FDCWD, path, INPATH_NOFOLLOW | flags, why, wsize);
		if (fd >= 0 && fstat(fd, &st))
			st.st_uid = (uid_t)-1;	/* nobody's */
		if (fd >= 0 && owner_ok(&p, st.st_uid, pid, why, wsize))
			return fd;
		if (fd >= 0) {
			close(fd);
			fd = -EPERM;
		}
		if (fd != -ENOENT && err == -ENOENT) {	/* the first refusal is said */
			err = fd;
			snprintf(refused, sizeof(refused), "%s", path);
			snprintf(said, sizeof(said), "%s", why);
		}
	}
	if (err != -ENOENT) {
		snprintf(path, size, "%s", refused);
		snprintf(why, wsize, "%s", said);
	}
	return err;
}

bool perfmap_owner_ok(uid_t uid, pid_t pid, char *why, size_t wsize)
{
	struct proc_of p;

	proc_of(pid, &p);
	return owner_ok(&p, uid, pid, why, wsize);
}

static int by_start(const void *a, const void *b)
{
	const struct perfmap_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Parses line [P, END) "START SIZE NAME" into *S; false when it does not parse. */
static bool parse_line(char *p, char *end, struct perfmap_sym *s)
{
	char *q;

	*end = '\0';
	s->start = strtoull(p, &q, 16);
	if (q == p || *q != ' ')
		return false;
	p = q + 1;
	s->size = strtoull(p, &q, 16);
	if (q == p || *q != ' ' || !q[1])
		return false;
	s->name = q + 1;
	s->len = (size_t)(end - s->name);
	return true;
}

int perfmap_read(int fd, pid_t pid, struct perfmap *m)
{
	struct stat st;
	size_t cap = 0, len = 0;
	char *p, *nl;
	ssize_t r;

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > PERFMAP_MAX)
		return -EFBIG;
	m->text = malloc((size_t)st.st_size + 1);
	if (!m->text)
		return -ENOMEM;
	while (len < (size_t)st.st_size &&
	       (r = read(fd, m->text + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)r;
	m->text[len] = '\0';
	for (p = m->text; p < m->text + len; p = nl + 1) {
		struct perfmap_sym s;
		void *g;

		nl = memchr(p, '\n', (size_t)(m->text + len - p));
		if (!nl)
			nl = m->text + len;
		if (!parse_line(p, nl, &s))
			continue;
		g = array_grow(m->sym, &cap, m->n, sizeof(*m->sym));
		if (!g) {
			perfmap_free(m);
			return -ENOMEM;
		}
		m->sym = g;
		m->sym[m->n++] = s;
	}
	array_sort(m->sym, m->n, sizeof(*m->sym), by_start);
	return 0;
}

const struct perfmap_sym *perfmap_lookup(const struct perfmap *m, uint64_t ip)
{
	size_t lo = 0, hi = m->n;

	/* the last function starting at or before IP */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sym[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip - m->sym[lo - 1].start >= m->sym[lo - 1].size)
		return NULL;
	return &m->sym[lo - 1];
}

void perfmap_free(struct perfmap *m)
{
	free(m->text);
	free(m->sym);
	memset(m, 0, sizeof(*m));
}
