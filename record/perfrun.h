/* SPDX-License-Identifier: MIT */
/*
 * perfrun: one running `perf record` child. It runs in its own process
 * group (Ctrl-C on the terminal does not reach it; the recorder decides),
 * with PR_SET_PDEATHSIG so it stops if the recorder dies, PAGER=cat, stdin
 * from /dev/null, stdout and stderr into a pipe the recorder reads, and
 * (when the plan says so) the control pipe as its fds 3 and 4 for
 * --control=fd:3,4 (perf-record(1): commands "enable", "disable",
 * "snapshot", "stop"; each acknowledged with "ack\n"), and the write end of
 * that control pipe as its fd 5 (below). Started by spawn_start().
 *
 * perf's messages are kept (the last 16 KiB) to be shown when it fails, and
 * scanned for "[ perf record: Dump FILE ]", the line --switch-output prints
 * when a snapshot file is complete. FILE is perf's -o path plus
 * ".<timestamp>"; the path is matched as the recorder passed it, so a path
 * holding newlines or " ]" is still recognised.
 *
 * perf ignores SIGPIPE (inherited SIG_IGN) and holds a write end of its own
 * control pipe: when the recorder dies, perf's messages and acks go nowhere
 * and its control fd does not hang up, and perf still writes its data
 * (PR_SET_PDEATHSIG sends it SIGTERM, which it handles like SIGINT).
 * Why: docs/design.md "Process model".
 */
#ifndef SNAPTRACE_REC_PERFRUN_H
#define SNAPTRACE_REC_PERFRUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_PERF_LOG_SIZE 16384

struct rec_perf {
	pid_t pid;            /* 0 once reaped */
	int status;           /* wait status, valid once reaped */
	bool exited;
	int out_fd;           /* read end of perf's stdout+stderr, -1 at EOF */
	int ctl_fd;           /* write end of perf's fd 3, -1 without control */
	int ack_fd;           /* read end of perf's fd 4, -1 without control */
	char log[REC_PERF_LOG_SIZE]; /* perf's output, the most recent part */
	size_t log_len;
	const char *out;      /* perf's -o path (not owned) */
	char line[PATH_MAX + 128]; /* partial line being assembled */
	size_t line_len;
	char dump[PATH_MAX + 128]; /* a Dump line's text so far (it may span lines) */
	size_t dump_len;
	bool in_dump;         /* a Dump line started and is not complete yet */
	char **dumps;         /* files named by "Dump" lines, in order (owned) */
	size_t ndumps, dumps_cap;
	uint64_t dump_real_ns; /* CLOCK_REALTIME when the last Dump line was read
				* (after perf named its file), 0: none yet */
	char stuck[PATH_MAX + 256]; /* what perf waited on when it timed out or had
				     * to be killed (rec_proc_stuck()), "" otherwise */
};

/*
 * Starts ARGV (argv[0] the perf path, absolute) as described above in the
 * recording directory DIRFD (its working directory), writing into OUT (the
 * -o path in ARGV, relative to DIRFD; kept by pointer, it must outlive P);
 * CONTROL adds the control pipe. Returns 0 or a negative errno from
 * spawn_start() (e.g. -ENOENT: no program at argv[0]; P->pid is then 0).
 */
int rec_perf_start(struct rec_perf *p, char *const argv[], int dirfd, const char *out,
		   bool control);

/*
 * Reads what perf printed (non-blocking), appends it to the log, records
 * Dump lines. Returns the number of new Dump lines, 0, or -EPIPE at EOF.
 */
int rec_perf_read_output(struct rec_perf *p);

/*
 * Sends control command CMD ("enable", "snapshot", ...) and waits for the
 * ack up to TIMEOUT_MS, reading perf's output meanwhile. Returns 0, -ETIMEDOUT
 * (P->stuck then says what perf waits on),
 * -EPIPE when perf is gone, or -ENOTSUP without a control pipe.
 */
int rec_perf_control(struct rec_perf *p, const char *cmd, int timeout_ms);

/*
 * Waits until perf has opened its events and sits in its main loop: for
 * perf without --control. Polls /proc/PID (every 5 ms) up to TIMEOUT_MS.
 * Returns 0, -ETIMEDOUT (P->stuck then says what perf waits on), or -EPIPE
 * when perf exited.
 */
int rec_perf_wait_started(struct rec_perf *p, int timeout_ms);

/* How long perf names its files to (builtin-record.c,
 * fetch_current_timestamp(): "%Y%m%d%H%M%S" and the hundredths). */
#define REC_PERF_NAME_NS 10000000ULL

/*
 * How long to wait, at wall time NOW_NS (CLOCK_REALTIME), before perf may
 * switch files again so that the file it switches to gets another name
 * than the one it named before wall time LAST_NS (0: none): until the next
 * REC_PERF_NAME_NS of the wall clock begins. 0 when that has begun.
 */
uint64_t rec_perf_name_wait_ns(uint64_t last_ns, uint64_t now_ns);

/*
 * Sends signal SIG to perf (not to its group). SIGUSR2, SIGINT and SIGTERM
 * make perf switch files (a snapshot, its stop): they wait until the file
 * named by the last Dump line read (what perf printed so far is read first)
 * can no longer share its name (rec_perf_name_wait_ns(): at most 10 ms),
 * since perf's rename would replace it. Returns 0 or -errno.
 */
int rec_perf_signal(struct rec_perf *p, int sig);

/*
 * Collects perf's exit status if it has exited (WNOHANG unless BLOCK).
 * Returns 1 when it has exited (now or before), 0 when still running.
 */
int rec_perf_reap(struct rec_perf *p, bool block);

/*
 * Stops perf: SIGINT, then waits up to TIMEOUT_MS for it to write its data
 * and exit, reading its output; SIGKILL after that. Returns 0 when perf
 * exited by itself within the time, -ETIMEDOUT when it had to be killed
 * (P->stuck then says what it waited on).
 */
int rec_perf_stop(struct rec_perf *p, int timeout_ms);

/* Closes the pipes and frees the Dump list. Does not touch the process. */
void rec_perf_free(struct rec_perf *p);

/* Milliseconds of CLOCK_MONOTONIC (for timeouts and latencies). */
double rec_now_ms(void);

#endif
