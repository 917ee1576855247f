/* SPDX-License-Identifier: MIT */
#include "perfrun.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "plan.h"
#include "procfs.h"
#include "spawn.h"
#include "stuck.h"

double rec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int rec_perf_start(struct rec_perf *p, char *const argv[], int dirfd, const char *output,
		   bool control)
{
	static const char *const pager[] = { "PAGER=cat", NULL };
	int out[2] = { -1, -1 }, ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, err;
	/* after the recorder's death its messages have no reader: perf must
	 * still write its data (exec keeps SIG_IGN) */
	struct spawn s = {
		.path = argv[0], .argv = argv, .env = pager, .cwd_fd = dirfd, .new_pgroup = true,
		.death_signal = SIGTERM, .ignore_sigpipe = true,
	};
	pid_t pid;

	memset(p, 0, sizeof(*p));
	p->out = output;
	p->out_fd = p->ctl_fd = p->ack_fd = -1;
	if (pipe2(out, O_CLOEXEC) ||
	    (control && (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)))) {
		err = -errno;
		goto fail;
	}
	s.fds[0] = SPAWN_DEVNULL;
	s.fds[1] = s.fds[2] = out[1];
	s.nfds = 3;
	if (control) {
		s.fds[REC_PERF_CTL_FD] = ctl[0];
		s.fds[REC_PERF_ACK_FD] = ack[1];
		/* perf keeps a write end of its control pipe: the recorder's
		 * death must not hang it up (perf 6.1 then fails with "Thread
		 * and evlist pollfd index mismatch" and writes no data) */
		s.fds[REC_PERF_ACK_FD + 1] = ctl[1];
		s.nfds = REC_PERF_ACK_FD + 2;
	}
	pid = spawn_start(&s);
	if (pid < 0) {
		err = (int)pid;
		goto fail;
	}
	p->pid = pid;
	close(out[1]);
	p->out_fd = out[0];
	fcntl(p->out_fd, F_SETFL, O_NONBLOCK);
	if (control) {
		close(ctl[0]);
		close(ack[1]);
		p->ctl_fd = ctl[1];
		p->ack_fd = ack[0];
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
	return err;
}

static void log_append(struct rec_perf *p, const char *s, size_t n)
{
	if (n >= sizeof(p->log)) {
		s += n - (sizeof(p->log) - 1);
		n = sizeof(p->log) - 1;
	}
	if (p->log_len + n >= sizeof(p->log)) {
		size_t drop = p->log_len + n - (sizeof(p->log) - 1);

		memmove(p->log, p->log + drop, p->log_len - drop);
		p->log_len -= drop;
	}
	memcpy(p->log + p->log_len, s, n);
	p->log_len += n;
	p->log[p->log_len] = '\0';
}

/* Nanoseconds of CLOCK_REALTIME: the clock perf names its files by. */
static uint64_t real_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Appends NAME (LEN bytes) to P's Dump list; returns 1, or 0 on out-of-memory. */
static int add_dump(struct rec_perf *p, const char *name, size_t len)
{
	char **v = array_grow(p->dumps, &p->dumps_cap, p->ndumps, sizeof(*p->dumps));
	char *file;

	if (!v)
		return 0;
	p->dumps = v;
	file = strndup(name, len);
	if (!file)
		return 0;
	p->dumps[p->ndumps++] = file;
	p->dump_real_ns = real_now_ns();
	return 1;
}

/*
 * Where the file name in the Dump text P->dump ends: after P->out (matched
 * byte for byte, newlines included) and ".<timestamp>", before " ]". Returns
 * the end, NULL while the text is a beginning of P->out (the path goes on on
 * the next line), or P->dump itself when the text is no Dump of ours.
 */
static const char *dump_name_end(const struct rec_perf *p)
{
	size_t olen = strlen(p->out);
	const char *q = p->dump + olen, *end;

	if (p->dump_len < olen)
		return memcmp(p->dump, p->out, p->dump_len) ? p->dump : NULL;
	if (memcmp(p->dump, p->out, olen)) {
		end = strstr(p->dump, " ]");   /* perf printed another path */
		return end ? end : p->dump;
	}
	if (*q == '.')
		while (isdigit((unsigned char)*++q))
			;
	return strncmp(q, " ]", 2) ? p->dump : q;
}

/* Handles one complete line of perf output; returns 1 when it completed a Dump line. */
static int handle_line(struct rec_perf *p, const char *line)
{
	static const char tag[] = "[ perf record: Dump ";
	const char *s = strstr(line, tag), *end;
	size_t n;

	if (p->in_dump) {
		s = line;
		p->dump[p->dump_len++] = '\n';
	} else if (s) {
		s += sizeof(tag) - 1;
		p->dump_len = 0;
		p->in_dump = true;
	} else {
		return 0;
	}
	n = strlen(s);
	if (p->dump_len + n + 1 >= sizeof(p->dump)) {
		p->in_dump = false;
		return 0;
	}
	memcpy(p->dump + p->dump_len, s, n + 1);
	p->dump_len += n;
	end = dump_name_end(p);
	if (!end)
		return 0;
	p->in_dump = false;
	return end != p->dump && add_dump(p, p->dump, (size_t)(end - p->dump));
}

int rec_perf_read_output(struct rec_perf *p)
{
	char buf[4096];
	int dumps = 0;

	while (p->out_fd >= 0) {
		ssize_t n = read(p->out_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			close(p->out_fd);
			p->out_fd = -1;
			if (p->line_len) {
				p->line[p->line_len] = '\0';
				dumps += handle_line(p, p->line);
				p->line_len = 0;
			}
			return dumps ? dumps : -EPIPE;
		}
		log_append(p, buf, (size_t)n);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && p->line_len + 1 < sizeof(p->line)) {
				p->line[p->line_len++] = buf[i];
				continue;
			}
			if (buf[i] != '\n')
				continue;   /* over-long line: keep its start */
			p->line[p->line_len] = '\0';
			dumps += handle_line(p, p->line);
			p->line_len = 0;
		}
	}
	return p->out_fd < 0 && !dumps ? -EPIPE : dumps;
}

/* Notes in P->stuck what perf waits on, before it is stopped or killed.
 * Returns -ETIMEDOUT. */
static int note_stuck(struct rec_perf *p)
{
	p->stuck[0] = '\0';
	if (p->pid && !p->exited)
		rec_proc_stuck(p->pid, p->stuck, sizeof(p->stuck));
	return -ETIMEDOUT;
}

int rec_perf_control(struct rec_perf *p, const char *cmd, int timeout_ms)
{
	double deadline = rec_now_ms() + timeout_ms;
	char msg[64], ack[8];
	size_t got = 0;
	int n = snprintf(msg, sizeof(msg), "%s\n", cmd);

	if (p->ctl_fd < 0)
		return -ENOTSUP;
	if (write(p->ctl_fd, msg, (size_t)n) != n)
		return -EPIPE;
	while (got < 5) {
		struct pollfd pf[2] = { { p->ack_fd, POLLIN, 0 }, { p->out_fd, POLLIN, 0 } };
		int left = (int)(deadline - rec_now_ms()), r;
		ssize_t k;

		if (left <= 0)
			return note_stuck(p);
		r = poll(pf, p->out_fd >= 0 ? 2 : 1, left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (pf[1].revents && p->out_fd >= 0)
			rec_perf_read_output(p);
		if (!pf[0].revents)
			continue;
		k = read(p->ack_fd, ack + got, 5 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EPIPE;
		got += (size_t)k;
	}
	return strncmp(ack, "ack\n", 4) ? -EPROTO : 0;
}

/* Whether perf PID holds a perf_event fd (its events are open). */
static bool has_perf_event_fd(pid_t pid)
{
	char dir[64], path[400], target[64];
	struct dirent *de;
	bool yes = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!yes && (de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		yes = strstr(target, "perf_event") != NULL;
	}
	closedir(d);
	return yes;
}

/* Whether PID sleeps in poll/select (perf's main loop waits there). */
static bool sleeps_in_poll(pid_t pid)
{
	char path[64], wchan[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	if (rec_proc_read(path, wchan, sizeof(wchan)) <= 0)
		return false;
	return strstr(wchan, "poll") || strstr(wchan, "select");
}

int rec_perf_wait_started(struct rec_perf *p, int timeout_ms)
{
	double deadline = rec_now_ms() + timeout_ms;

	while (rec_now_ms() < deadline) {
		rec_perf_read_output(p);
		if (rec_perf_reap(p, false))
			return -EPIPE;
		if (has_perf_event_fd(p->pid) && sleeps_in_poll(p->pid))
			return 0;
		poll(NULL, 0, 5);
	}
	return note_stuck(p);
}

uint64_t rec_perf_name_wait_ns(uint64_t last_ns, uint64_t now_ns)
{
	uint64_t next = (last_ns / REC_PERF_NAME_NS + 1) * REC_PERF_NAME_NS;

	return last_ns && now_ns < next ? next - now_ns : 0;
}

int rec_perf_signal(struct rec_perf *p, int sig)
{
	if (!p->pid || p->exited)
		return -ESRCH;
	if (sig == SIGUSR2 || sig == SIGINT || sig == SIGTERM) {
		uint64_t wait;

		rec_perf_read_output(p);
		wait = rec_perf_name_wait_ns(p->dump_real_ns, real_now_ns());
		if (wait) {
			struct timespec ts = { 0, (long)wait };

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
	}
	return kill(p->pid, sig) ? -errno : 0;
}

int rec_perf_reap(struct rec_perf *p, bool block)
{
	pid_t r;

	if (p->exited)
		return 1;
	if (!p->pid)
		return 1;
	do
		r = waitpid(p->pid, &p->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == p->pid || (r < 0 && errno == ECHILD)) {
		p->exited = true;
		return 1;
	}
	return 0;
}

int rec_perf_stop(struct rec_perf *p, int timeout_ms)
{
	double deadline = rec_now_ms() + timeout_ms;
	int err = 0;

	rec_perf_signal(p, SIGINT);
	for (;;) {
		struct pollfd pf = { p->out_fd, POLLIN, 0 };
		int left = (int)(deadline - rec_now_ms());

		if (rec_perf_reap(p, false) && p->out_fd < 0)
			break;
		if (left <= 0) {
			err = note_stuck(p);
			rec_perf_signal(p, SIGKILL);
			rec_perf_reap(p, true);
			break;
		}
		if (p->out_fd >= 0) {
			if (poll(&pf, 1, left > 50 ? 50 : left) > 0)
				rec_perf_read_output(p);
		} else {
			poll(NULL, 0, 5);
		}
	}
	rec_perf_read_output(p);
	return err;
}

void rec_perf_free(struct rec_perf *p)
{
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->ctl_fd >= 0)
		close(p->ctl_fd);
	if (p->ack_fd >= 0)
		close(p->ack_fd);
	p->out_fd = p->ctl_fd = p->ack_fd = -1;
	for (size_t i = 0; i < p->ndumps; i++)
		free(p->dumps[i]);
	free(p->dumps);
	p->dumps = NULL;
	p->ndumps = p->dumps_cap = 0;
}
