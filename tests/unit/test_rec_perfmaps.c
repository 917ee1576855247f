/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/perfmaps.h: the users noted of each recorded process
 * (record.json's "uids": a process once for each user, two at most), and
 * which processes' JIT perf maps the recorder keeps as they appear: a
 * target's descendant's (a JIT a shell or test runner started), never a
 * process's that does not descend from a target. The children write real
 * /tmp/perf-PID.map files of their own pids, removed at the end.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../record/perfmaps.h"	/* not convert/perfmaps.h */
#include "unit.h"
#include "unit_tmp.h"

static struct rec_perfmaps maps;

/* Whether M's "uids" list PID as uids UID, UID. */
static bool noted(const struct rec_perfmaps *m, pid_t pid, uid_t uid)
{
	size_t n;
	const struct perfmap_user *u = rec_perfmaps_users(m, &n);

	for (size_t i = 0; i < n; i++)
		if (u[i].pid == pid && u[i].uid[0] == uid && u[i].uid[1] == uid)
			return true;
	return false;
}

static void perfmaps_note(void)
{
	struct perfmap_user a = { 5, { 0, 0 }, 0 }, b = { 5, { 7, 7 }, 0 }, c = { 5, { 8, 8 }, 0 };
	size_t n;

	memset(&maps, 0, sizeof(maps));
	rec_perfmaps_note(&maps, &a);
	rec_perfmaps_note(&maps, &a);	/* seen again as the same user: once */
	rec_perfmaps_users(&maps, &n);
	CHECK_INT_EQ((int)n, 1);
	rec_perfmaps_note(&maps, &b);
	rec_perfmaps_note(&maps, &c);	/* a third user: two already refuse every map */
	a.pid = 6;
	rec_perfmaps_note(&maps, &a);
	rec_perfmaps_users(&maps, &n);
	CHECK_INT_EQ((int)n, 3);
	CHECK(noted(&maps, 5, 0) && noted(&maps, 5, 7) && !noted(&maps, 5, 8) && noted(&maps, 6, 0));
	CHECK_INT_EQ((int)maps.rule.n, 3);
}

/* Only perf's own spelling of a map's name gives a pid: "perf-0P.map",
 * "perf- P.map" and "perf-+P.map" once had the recorder judge P's map at
 * once, while P was still root's (hostile20 NEW 1). */
static void perfmap_pid_strict(void)
{
	static const struct {
		const char *name;
		pid_t pid;
	} names[] = {
		{ "/tmp/perf-1.map", 1 }, { "/tmp/perf-6257.map", 6257 },
		{ "/tmp/perf-4194304.map", 4194304 }, { "/tmp/perf-06257.map", -1 },
		{ "/tmp/perf- 6257.map", -1 }, { "/tmp/perf-+6257.map", -1 },
		{ "/tmp/perf--1.map", -1 }, { "/tmp/perf-0.map", -1 },
		{ "/tmp/perf-4194305.map", -1 }, { "/tmp/perf-99999999999999999999.map", -1 },
		{ "/tmp/perf-.map", -1 }, { "/tmp/perf-12.mapx", -1 }, { "/tmp/perf-12.ma", -1 },
		{ "/tmp/perf-12x.map", -1 }, { "/tmp/perf-1.map.map", -1 }, { "/var/perf-12.map", -1 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (perfmap_pid(names[i].name, strlen(names[i].name)) != names[i].pid)
			UNIT_FAIL("%s: expected %d, got %d", names[i].name, (int)names[i].pid,
				  (int)perfmap_pid(names[i].name, strlen(names[i].name)));
}

/* The body of a JIT: waits for a byte on GO, writes its map, says its pid on
 * REPORT, and exits when END closes. */
static void jit_body(int go, int end, int report)
{
	char path[64], c;
	pid_t me = getpid();
	int fd;

	if (read(go, &c, 1) != 1)
		_exit(1);
	snprintf(path, sizeof(path), PERFMAP_PATH, (int)me);
	/* a map that appears (a new name: what the watch sees), never one at
	 * its pid from before (another process's, rewritten: no new name) */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "1000 10 jit_fn\n", 15) != 15 || close(fd))
		_exit(1);
	if (write(report, &me, sizeof(me)) != sizeof(me))
		_exit(1);
	while (read(end, &c, 1) > 0)
		;
	_exit(0);
}

/* A target: a child of this process that starts a JIT (jit_body() on GO,
 * END and REPORT) and waits for it. Returns its pid. */
static pid_t fork_target(const int go[2], const int end[2], const int report[2])
{
	pid_t t = fork(), g;

	if (t == 0) {
		close(end[1]);
		if ((g = fork()) == 0)
			jit_body(go[0], end[0], report[1]);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	return t;
}

/* Ends the JITs (END closed), waits for T, removes the maps of the N pids
 * JITS and closes the pipes. */
static void end_targets(int go[2], int end[2], int report[2], pid_t t, const pid_t *jits, int n)
{
	char path[64];

	close(end[1]);
	end[1] = -1;
	waitpid(t, NULL, 0);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), PERFMAP_PATH, (int)jits[i]);
		if (jits[i] > 0)
			unlink(path);
	}
	for (int i = 0; i < 2; i++) {
		close(go[i]);
		close(end[i]);
		close(report[i]);
	}
}

/* Target T (a child of this process) starts G, a JIT; X, T's sibling, is a
 * JIT too: G's map is kept (T's descendant), X's is not (this process is
 * no target, and launched no program). */
static void perfmaps_descendants(void)
{
	int go[2], end[2], report[2], dir, kept;
	pid_t t, x, g = 0, got[2] = { 0, 0 };
	char path[64];

	if (unit_tmp_init("test_rec_perfmaps") || pipe(go) || pipe(end) || pipe(report)) {
		CHECK(false);
		return;
	}
	t = fork_target(go, end, report);
	x = fork();
	if (x == 0) {
		close(end[1]);
		jit_body(go[0], end[0], report[1]);
	}
	rec_perfmaps_start(&maps, &t, 1, false, true);
	CHECK(rec_perfmaps_fd(&maps) >= 0);
	CHECK(write(go[1], "gg", 2) == 2);
	for (int i = 0; i < 2; i++)
		CHECK(read(report[0], &got[i], sizeof(got[i])) == sizeof(got[i]));
	for (int i = 0; i < 4; i++) {	/* both maps' events, maybe in two reads */
		struct pollfd p = { rec_perfmaps_fd(&maps), POLLIN, 0 };

		if (poll(&p, 1, 200) > 0)
			rec_perfmaps_notified(&maps, 0);
	}
	g = got[0] == x ? got[1] : got[0];
	dir = open(unit_tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	kept = rec_perfmaps_keep(&maps, dir);
	CHECK_INT_EQ(kept, 1);
	snprintf(path, sizeof(path), PERFMAP_KEPT, (int)g);
	CHECK(faccessat(dir, path, F_OK, 0) == 0);
	snprintf(path, sizeof(path), PERFMAP_KEPT, (int)x);
	CHECK(faccessat(dir, path, F_OK, 0) != 0);
	CHECK(noted(&maps, t, geteuid()) && noted(&maps, g, geteuid()));
	CHECK(!noted(&maps, x, geteuid()));
	close(dir);
	close(end[1]);
	end[1] = -1;
	waitpid(x, NULL, 0);
	end_targets(go, end, report, t, got, 2);
	unit_tmp_fini();
}

/* Target T (a child of this process) starts G, a JIT, whose map is made
 * before the watch starts (its name's event lost, as when the kernel's
 * queue overflowed in a flood of another user's names: hostile21 NEW 2):
 * rec_perfmaps_rescan() finds it among T's descendants and keeps it. */
static void perfmaps_rescan(void)
{
	int go[2], end[2], report[2], dir;
	pid_t t, g = 0;
	char path[64];

	if (unit_tmp_init("test_rec_perfmaps") || pipe(go) || pipe(end) || pipe(report)) {
		CHECK(false);
		return;
	}
	t = fork_target(go, end, report);
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(read(report[0], &g, sizeof(g)) == sizeof(g));
	rec_perfmaps_start(&maps, &t, 1, false, true);
	dir = open(unit_tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rec_perfmaps_rescan(&maps, 0);
	CHECK_INT_EQ(rec_perfmaps_keep(&maps, dir), 1);
	snprintf(path, sizeof(path), PERFMAP_KEPT, (int)g);
	CHECK(faccessat(dir, path, F_OK, 0) == 0);
	CHECK(noted(&maps, g, geteuid()));
	rec_perfmaps_free(&maps);
	close(dir);
	end_targets(go, end, report, t, &g, 1);
	unit_tmp_fini();
}

/* A flood of names in /tmp (anyone's) is read one buffer a call: 600 names
 * made (of no process: a pid past the kernel's most) leave news to read
 * after one call, the recorder's loop having its turn between (hostile21
 * NEW 1: it read until the queue was empty, which another user's flood
 * never let it be: Ctrl-C waited 27 s). */
static void perfmaps_bounded(void)
{
	struct pollfd p;
	pid_t self = getpid();

	rec_perfmaps_start(&maps, &self, 1, false, true);
	CHECK(rec_perfmaps_fd(&maps) >= 0);
	for (int i = 0; i < 600; i++) {	/* names apart: the kernel merges a repeat */
		char name[64];
		int fd;

		snprintf(name, sizeof(name), PERFMAP_PATH, 4194400 + i);
		if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0) {
			close(fd);
			unlink(name);
		}
	}
	p = (struct pollfd){ rec_perfmaps_fd(&maps), POLLIN, 0 };
	CHECK(poll(&p, 1, 1000) == 1);
	rec_perfmaps_notified(&maps, 0);
	p.revents = 0;
	CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLIN));
	rec_perfmaps_free(&maps);
}

/* Writes TEXT as the map at PATH (new or truncated). Returns 0 or -1. */
static int write_map(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	return fd < 0 || close(fd) || n != (ssize_t)strlen(text) ? -1 : 0;
}

/* A child of the test, its map at PATH (/tmp/perf-T.map), told to go on
 * by a byte on GO, saying it did by one on ACK, ending as GO closes. */
struct child {
	int go[2], ack[2], dir;   /* DIR: the test's scratch directory, kept copies */
	pid_t t;
	char path[64];
};

/* Starts the scratch directory and K's child. Returns 1 in the child, 0 in
 * the test, -1 when it cannot (a failed check). */
static int child_start(struct child *k)
{
	if (unit_tmp_init("test_rec_perfmaps") || pipe(k->go) || pipe(k->ack)) {
		CHECK(false);
		return -1;
	}
	k->t = fork();
	if (k->t < 0) {
		CHECK(false);
		return -1;
	}
	if (k->t == 0)
		close(k->go[1]);
	snprintf(k->path, sizeof(k->path), PERFMAP_PATH, (int)(k->t ? k->t : getpid()));
	k->dir = k->t ? open(unit_tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	return k->t == 0;
}

/* In K's child, having done its part (OK): waits for GO to close, exits. */
static void child_exit(struct child *k, bool ok)
{
	char c;

	if (!ok)
		_exit(1);
	while (read(k->go[0], &c, 1) > 0)
		;
	_exit(0);
}

/* Ends K's child and removes its map and the scratch directory. */
static void child_end(struct child *k)
{
	close(k->go[1]);
	waitpid(k->t, NULL, 0);
	unlink(k->path);
	close(k->dir);
	close(k->go[0]);
	close(k->ack[0]);
	close(k->ack[1]);
	unit_tmp_fini();
}

/* A launched target T (a child of this process, of this user) with a map at
 * its pid from before it ran: not its while unchanged (a setpriv launch,
 * still root's as its map was opened, once could have had root's stale map
 * judged its own); its once T writes it. */
static void perfmaps_stale(void)
{
	struct child k;
	char c;
	int r = child_start(&k);

	if (r == 1)
		child_exit(&k, read(k.go[0], &c, 1) == 1 &&
			   !write_map(k.path, "2000 10 jit_function\n") && write(k.ack[1], "k", 1) == 1);
	if (r)
		return;
	CHECK_INT_EQ(write_map(k.path, "1000 10 stale_fn\n"), 0);
	rec_perfmaps_start(&maps, &k.t, 1, true, false);
	CHECK_INT_EQ(rec_perfmaps_keep(&maps, k.dir), 0);
	rec_perfmaps_start(&maps, &k.t, 1, true, false);
	CHECK(write(k.go[1], "g", 1) == 1 && read(k.ack[0], &c, 1) == 1);
	CHECK_INT_EQ(rec_perfmaps_keep(&maps, k.dir), 1);
	child_end(&k);
}

/* The time M noted process PID came to be ("born"), 0: none. */
static int64_t born_of(const struct rec_perfmaps *m, pid_t pid)
{
	size_t n;
	const struct perfmap_user *u = rec_perfmaps_users(m, &n);

	for (size_t i = 0; i < n; i++)
		if (u[i].pid == pid)
			return u[i].born;
	return 0;
}

/* Now, ns since the epoch. */
static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* An attached process T, root's as its map (root's, made since T came to
 * be) is opened, that drops to another user before the map is kept: the
 * map held is not that user's, nor is the one there then: none kept (the
 * recorder once kept the map judged by the user T had as it was opened,
 * root's: a child of root's launch that became hers took root's map).
 * T's users are both noted, with when it came to be. */
static void perfmaps_dropped(void)
{
	int64_t before = now_ns(), born;
	struct child k;
	char c;
	int r;

	if (geteuid() != 0) {
		UNIT_SKIP(perfmaps_dropped, "root", "only root's process may become another user");
		return;
	}
	r = child_start(&k);
	if (r == 1)
		child_exit(&k, !write_map(k.path, "1000 10 root_fn\n") && write(k.ack[1], "k", 1) == 1 &&
			   read(k.go[0], &c, 1) == 1 && !setresgid(65534, 65534, 65534) &&
			   !setresuid(65534, 65534, 65534) && write(k.ack[1], "k", 1) == 1);
	if (r)
		return;
	CHECK(read(k.ack[0], &c, 1) == 1);
	rec_perfmaps_start(&maps, &k.t, 1, false, false);
	CHECK(maps.nproc == 1 && maps.proc[0].fd >= 0);	/* root's, of root's process */
	CHECK(write(k.go[1], "g", 1) == 1 && read(k.ack[0], &c, 1) == 1);
	CHECK_INT_EQ(rec_perfmaps_keep(&maps, k.dir), 0);
	CHECK(noted(&maps, k.t, 0) && noted(&maps, k.t, 65534));
	born = born_of(&maps, k.t);
	if (born < before - 1000000000 || born > now_ns())
		UNIT_FAIL("process %d noted born at %lld, not between %lld and now", (int)k.t,
			  (long long)born, (long long)before);
	child_end(&k);
}

int main(void)
{
	UNIT_RUN(perfmaps_note);
	UNIT_RUN(perfmap_pid_strict);
	UNIT_RUN(perfmaps_descendants);
	UNIT_RUN(perfmaps_stale);
	UNIT_RUN(perfmaps_dropped);
	UNIT_RUN(perfmaps_rescan);
	UNIT_RUN(perfmaps_bounded);
	return unit_exit();
}
