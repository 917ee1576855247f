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

pid_t perfmap_pid(const char *dso, size_t len)
{
	unsigned long pid = 0;
	size_t i = 10;

	/* perf's own spelling only, "/tmp/perf-%d.map": digits, the first not
	 * 0; sscanf's "%lu" also took "perf-0P.map", "perf- P.map" and
	 * "perf-+P.map" for pid P, names anyone may make in /tmp, and the
	 * recorder judged P's map at once, while P (a child of root's launch
	 * about to become hers) was still root's: root's stale map was kept
	 * as P's (hostile20 NEW 1) */
	if (len < 15 || memcmp(dso, "/tmp/perf-", 10) || dso[i] == '0')
		return -1;
	for (; i < len && dso[i] >= '0' && dso[i] <= '9' && pid <= 4194304; i++)
		pid = pid * 10 + (unsigned long)(dso[i] - '0');
	if (i == 10 || len - i != 4 || memcmp(dso + i, ".map", 4) || !pid || pid > 4194304)
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

/* Reads /proc/PID/status into BUF (SIZE bytes, NUL-terminated; "" when
 * it cannot: the process is gone). */
static void status_of(pid_t pid, char *buf, size_t size)
{
	char path[40];
	int fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	buf[len > 0 ? len : 0] = '\0';
}

/* The names process PID's perf map may have, the first choice first: the
 * live process's innermost NStgid and its Tgid (/proc/PID/status, lines
 * that start with the field's name), then PID. Returns how many, into IDS. */
static int names_of(pid_t pid, pid_t ids[3])
{
	char buf[4096], *s;
	long nstgid = 0, tgid = 0;
	int n = 0;

	status_of(pid, buf, sizeof(buf));
	for (s = buf; (s = strchr(s, '\n')); ) {
		char *end;

		if (!strncmp(++s, "Tgid:", 5))
			tgid = strtol(s + 5, NULL, 10);
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

		for (int k = 0; k < n; k++)
			seen |= ids[k] == v;
		if (v > 0 && v <= 4194304 && !seen)
			ids[n++] = (pid_t)v;
	}
	return n;
}

/* The live process PID with its real and effective uids (a line of its
 * status that starts "Uid:") into P; false when it is gone. */
static bool live_user(pid_t pid, struct perfmap_user *p)
{
	char buf[4096], *s, *end;

	status_of(pid, buf, sizeof(buf));
	for (s = buf; (s = strchr(s, '\n')); )
		if (!strncmp(++s, "Uid:", 4)) {
			p->pid = pid;
			p->uid[0] = (uid_t)strtoul(s + 4, &end, 10);
			p->uid[1] = (uid_t)strtoul(end, NULL, 10);
			return true;
		}
	return false;
}

/* Whether UID is P's user: its real and effective uid both (a setuid
 * program's effective uid is not its user's: her process that exec'd sg,
 * uids 1001 0, once had root's map). */
static bool user_of(const struct perfmap_user *p, uid_t uid)
{
	return uid == p->uid[0] && uid == p->uid[1];
}

/* P's uid that is not UID, to name in a message. */
static int shown_uid(const struct perfmap_user *p, uid_t uid)
{
	return (int)p->uid[p->uid[0] == uid];
}

/* The entry of U->v for PID whose user is not UID (the first), else NULL;
 * into *ANY whether U->v holds PID at all, into *OTHER an entry of PID
 * whose user differs from the first entry's (the process was seen as two
 * users), else NULL. */
static const struct perfmap_user *noted(const struct perfmap_users *u, uid_t uid, pid_t pid,
					bool *any, const struct perfmap_user **other)
{
	const struct perfmap_user *first = NULL, *bad = NULL;

	*other = NULL;
	for (size_t i = 0; i < u->n; i++) {
		const struct perfmap_user *p = &u->v[i];

		if (p->pid != pid)
			continue;
		if (!first)
			first = p;
		else if (!*other && (p->uid[0] != first->uid[0] || p->uid[1] != first->uid[1]))
			*other = p;
		if (!bad && !user_of(p, uid))
			bad = p;
	}
	*any = first != NULL;
	return *other ? first : bad;
}

bool perfmap_users_ok(const struct perfmap_users *u, uid_t uid, pid_t pid, char *why,
		      size_t wsize)
{
	const struct perfmap_user *bad, *other;
	struct perfmap_user live;
	bool any, alive;

	bad = noted(u, uid, pid, &any, &other);
	alive = any && u->live && live_user(pid, &live);
	if (alive && user_of(&live, uid))	/* the recorder: the process's user as it runs */
		return true;
	if (other && !u->live)
		snprintf(why, wsize, "owned by uid %d; process %d ran as more than one user while "
			 "recorded (uid %d, effective uid %d, and uid %d, effective uid %d)",
			 (int)uid, (int)pid, (int)bad->uid[0], (int)bad->uid[1],
			 (int)other->uid[0], (int)other->uid[1]);
	else if (bad && !other)
		snprintf(why, wsize, "owned by uid %d, not by process %d's user (uid %d)",
			 (int)uid, (int)pid, shown_uid(bad, uid));
	else if (alive)
		snprintf(why, wsize, "owned by uid %d, not by process %d's user now (uid %d, "
			 "effective uid %d)", (int)uid, (int)pid, (int)live.uid[0],
			 (int)live.uid[1]);
	else if (any && u->live)
		snprintf(why, wsize, "owned by uid %d, process %d gone before its map was "
			 "opened", (int)uid, (int)pid);
	else if (any)
		return true;
	else if (u->n)	/* a thread, a process the recorder never judged: its user is not known */
		snprintf(why, wsize, "process %d is not one the recording lists (a child or "
			 "a thread: its user is not known) and the recording kept no copy", (int)pid);
	/* none told: the live process must be the owner's too (a stale map of a
	 * process gone, its pid another user's by now, is not that process's) */
	else if (!live_user(pid, &live))
		snprintf(why, wsize, "owned by uid %d, process %d gone, and no record.json tells "
			 "its user", (int)uid, (int)pid);
	else if (uid != u->owner || !user_of(&live, uid))
		snprintf(why, wsize, "owned by uid %d, not by both the recording's owner (uid %d) "
			 "and process %d's user (uid %d, effective uid %d)", (int)uid,
			 (int)u->owner, (int)pid, (int)live.uid[0], (int)live.uid[1]);
	else
		return true;
	return false;
}

/* Whether the file ST at process PID's map's name last changed (its
 * ctime) more than PERFMAP_BORN_SLACK_NS before PID came to be, as U tells
 * it: an earlier process's of that pid. */
static bool stale(const struct perfmap_users *u, const struct stat *st, pid_t pid)
{
	int64_t born = 0, changed = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;

	for (size_t i = 0; i < u->n; i++)
		if (u->v[i].pid == pid && u->v[i].born > born)
			born = u->v[i].born;
	return born && changed < born - PERFMAP_BORN_SLACK_NS;
}

bool perfmap_file_ok(const struct perfmap_users *u, const struct stat *st, pid_t pid, char *why,
		     size_t wsize)
{
	if (stale(u, st, pid)) {
		snprintf(why, wsize, "there, unchanged, since before process %d came to be: a "
			 "stale map, not its", (int)pid);
		return false;
	}
	return perfmap_users_ok(u, st->st_uid, pid, why, wsize);
}

int perfmap_open(pid_t pid, const struct perfmap_users *u, unsigned flags, char *path,
		 size_t size, char *why, size_t wsize)
{
	char refused[64] = "", said[300] = "";
	pid_t ids[3];
	int n = names_of(pid, ids), err = -ENOENT;

	for (int i = 0; i < n; i++) {
		struct stat st;
		int fd;

		snprintf(path, size, PERFMAP_PATH, (int)ids[i]);
		fd = inpath_open(AT_FDCWD, path, INPATH_NOFOLLOW | flags, why, wsize);
		if (fd >= 0 && fstat(fd, &st))
			st = (struct stat){ .st_uid = (uid_t)-1 };	/* nobody's */
		if (fd >= 0 && stale(u, &st, pid)) {
			close(fd);	/* an earlier process's: none of its, nothing to say */
			continue;
		}
		if (fd >= 0 && perfmap_file_ok(u, &st, pid, why, wsize))
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
