/* SPDX-License-Identifier: MIT */
#include "target.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "inpath.h"
#include "procfs.h"
#include "run.h"
#include "spawn.h"

static void init(struct rec_target *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < REC_MAX_PIDS; i++)
		t->pidfds[i] = -1;
}

int rec_target_launch(struct rec_target *t, const char *path, char *const argv[])
{
	struct spawn s = {
		.path = path, .argv = argv, .inherit_env = true, .death_signal = SIGKILL,
		.trace_me = true, .stopped = &t->start_stopped,
	};
	int status;
	pid_t pid, r;

	init(t);
	/* what the target forks comes back to the recorder when its parent dies */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = spawn_start(&s);
	if (pid < 0) {
		t->exited = true;
		return (int)pid;
	}
	t->launched = true;
	t->pids[0] = pid;
	t->npids = 1;
	snprintf(t->exe, sizeof(t->exe), "%s", path);
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r == pid && WIFSTOPPED(status)) {
		struct rec_proc_held h;

		if (!rec_proc_hold(pid, 0, &h))
			t->pidfds[0] = h.pidfd;
		return 0;
	}
	t->exited = true;
	t->status = status;
	return -ECHILD;
}

/* The interpreter that the file at PATH names (its "#!" line's, or a 64-bit
 * ELF file's PT_INTERP, the dynamic loader) into BUF (SIZE bytes). Returns
 * BUF, or NULL when it names none or cannot be read. */
static const char *interpreter(const char *path, char *buf, size_t size)
{
	char head[256], why[64];
	int fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	ssize_t n = fd < 0 ? -1 : pread(fd, head, sizeof(head) - 1, 0);
	const char *name = NULL;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (n > 2 && head[0] == '#' && head[1] == '!') {
		head[n] = '\0';
		name = head + 2 + strspn(head + 2, " \t");
		head[name - head + strcspn(name, " \t\n")] = '\0';
	} else if (n >= (ssize_t)sizeof(eh) && !memcmp(head, ELFMAG, SELFMAG) &&
		   head[EI_CLASS] == ELFCLASS64) {
		memcpy(&eh, head, sizeof(eh));
		for (unsigned i = 0; i < eh.e_phnum && i < 64 && !name; i++)
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
			    (ssize_t)sizeof(ph) && ph.p_type == PT_INTERP && ph.p_filesz > 1 &&
			    ph.p_filesz < sizeof(head) &&
			    pread(fd, head, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
				head[ph.p_filesz - 1] = '\0';
				name = head;
			}
	}
	if (fd >= 0)
		close(fd);
	if (!name || !*name)
		return NULL;
	snprintf(buf, size, "%s", name);
	return buf;
}

const char *rec_target_launch_words(const struct rec_target *t, int err, const char *path,
				    char *buf, size_t size)
{
	char interp[256];

	/* the file is there (it was resolved): what its exec lacks is what it names */
	if (err == -ENOENT && interpreter(path, interp, sizeof(interp)))
		snprintf(buf, size, "its interpreter %s: %s", interp, strerror(-err));
	else
		run_start_words(err, t->start_stopped, "", buf, size);
	return buf;
}

const char *rec_target_shell_command(const char *path, char *const argv[])
{
	static const char *const shells[] = { "sh", "dash", "bash", "ash", "ksh", "mksh",
					      "zsh", "yash", "posh" };
	const char *name = strrchr(path, '/');
	bool shell = false, c = false;
	int i;

	name = name ? name + 1 : path;
	for (size_t k = 0; k < sizeof(shells) / sizeof(shells[0]); k++)
		shell |= !strcmp(name, shells[k]);
	if (!shell || !argv[0])
		return NULL;
	for (i = 1; argv[i] && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][1] != '-')	/* bash's long options (--norc) take no 'c' */
			c |= strchr(argv[i] + 1, 'c') != NULL;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "+o") || !strcmp(argv[i], "-O") ||
		    !strcmp(argv[i], "+O"))
			i += argv[i + 1] != NULL;	/* -o OPTION: its name is no command */
	}
	return c ? argv[i] : NULL;
}

int rec_target_release(struct rec_target *t)
{
	if (!t->launched || t->released)
		return 0;
	if (ptrace(PTRACE_DETACH, t->pids[0], NULL, NULL))
		return -errno;
	t->released = true;
	return 0;
}

/* Holds process PID as T's I-th, PICKED's hold when it is PID's. Returns 0
 * or -ESRCH. */
static int hold(struct rec_target *t, int i, pid_t pid, struct rec_proc_held *picked)
{
	struct rec_proc_held h;
	int err;

	if (picked && picked->pid == pid && picked->pidfd >= 0) {
		h = *picked;
		picked->pidfd = -1;
		err = rec_proc_still_held(&h);
	} else {
		err = rec_proc_hold(pid, 0, &h);
		if (err && err != -ESRCH) {	/* no pidfd here: the start time alone */
			h.start = rec_proc_start_time(pid);
			err = h.start ? 0 : -ESRCH;
		}
	}
	if (err) {
		rec_proc_release(&h);
		return err;
	}
	t->pidfds[i] = h.pidfd;
	t->starts[i] = h.start;
	return 0;
}

int rec_target_attach(struct rec_target *t, const pid_t *pids, int n, pid_t tid,
		      struct rec_proc_held *picked, pid_t *bad)
{
	init(t);
	if (n > REC_MAX_PIDS || (n == 0 && tid <= 0))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		if (!rec_proc_alive(pids[i])) {
			*bad = pids[i];
			return -ESRCH;
		}
		if (rec_proc_kernel_thread(pids[i])) {
			*bad = pids[i];
			return -EPERM;
		}
		t->pids[t->npids++] = pids[i];
	}
	if (n == 0) {
		pid_t tgid = rec_proc_tgid(tid);

		t->tid_start = rec_proc_start_time(tid);
		if (tgid <= 0 || !rec_proc_alive(tid) || !t->tid_start) {
			*bad = tid;
			return -ESRCH;
		}
		if (rec_proc_kernel_thread(tid)) {
			*bad = tid;
			return -EPERM;
		}
		t->tid = tid;
		t->pids[t->npids++] = tgid;
	}
	for (int i = 0; i < t->npids; i++)
		if (hold(t, i, t->pids[i], picked)) {
			*bad = t->tid ? t->tid : t->pids[i];
			return -ESRCH;
		}
	snprintf(t->exe, sizeof(t->exe), "/proc/%d/exe", (int)t->pids[0]);
	return 0;
}

int rec_target_still_same(const struct rec_target *t, pid_t *bad)
{
	if (t->launched)
		return 0;
	for (int i = 0; i < t->npids; i++) {
		struct rec_proc_held h = { t->pids[i], t->pidfds[i], t->starts[i] };

		if (t->pidfds[i] >= 0 ? rec_proc_still_held(&h) != 0 :
		    rec_proc_start_time(t->pids[i]) != t->starts[i]) {
			*bad = t->pids[i];
			return -ESRCH;
		}
	}
	if (t->tid && rec_proc_start_time(t->tid) != t->tid_start) {
		*bad = t->tid;
		return -ESRCH;
	}
	return 0;
}

pid_t rec_target_wait(struct rec_target *t, pid_t pid, int *status, int options)
{
	siginfo_t si = { 0 };

	/* what comes next, left to be waited for (WNOWAIT): an exit, a stop */
	if (waitid(pid < 0 ? P_ALL : P_PID, pid < 0 ? 0 : (id_t)pid, &si,
		   WEXITED | WNOWAIT | (options & WNOHANG)) || !si.si_pid)
		return waitpid(pid, status, options);
	if (t->launched && si.si_pid == t->pids[0] && (si.si_code == CLD_EXITED ||
	    si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) &&
	    !rec_proc_uids(si.si_pid, t->exit_user.uid)) {
		t->exit_user.pid = si.si_pid;
		t->exit_noted = true;
	}
	return waitpid(si.si_pid, status, options);
}

bool rec_target_reaped(struct rec_target *t, pid_t pid, int status)
{
	if (!t->launched || pid != t->pids[0] || t->exited)
		return false;
	if (WIFSTOPPED(status))
		return false;
	t->exited = true;
	t->status = status;
	return true;
}

bool rec_target_alive(struct rec_target *t)
{
	if (t->launched) {
		int status;

		if (t->exited)
			return false;
		if (rec_target_wait(t, t->pids[0], &status, WNOHANG) == t->pids[0])
			rec_target_reaped(t, t->pids[0], status);
		return !t->exited;
	}
	if (t->tid)
		return rec_proc_alive(t->tid);
	for (int i = 0; i < t->npids; i++)
		if (rec_proc_alive(t->pids[i]))
			return true;
	return false;
}

/*
 * The part of struct pidfd_info (linux/pidfd.h, Linux 6.15) read here:
 * its first 64 bytes (PIDFD_INFO_SIZE_VER0), which end with the exit code.
 */
struct pidfd_info_v0 {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define PIDFD_INFO_EXIT_BIT (1ull << 3)
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfd_info_v0)

int rec_target_exit(struct rec_target *t, int i, int wait_ms, int *status)
{
	if (t->launched) {
		for (int waited = 0; rec_target_alive(t); waited += 5) {
			if (waited >= wait_ms)
				return -1;
			poll(NULL, 0, 5);
		}
		*status = t->status;
		return 1;
	}
	if (rec_proc_alive(t->pids[i]))
		return -1;
	for (int waited = 0; t->pidfds[i] >= 0; waited += 5) {
		struct pidfd_info_v0 info = { .mask = PIDFD_INFO_EXIT_BIT };

		if (ioctl(t->pidfds[i], PIDFD_GET_INFO_V0, &info))
			return 0;   /* a kernel before 6.14 */
		if (info.mask & PIDFD_INFO_EXIT_BIT) {
			*status = info.exit_code;
			return 1;
		}
		if (waited >= wait_ms)
			break;
		poll(NULL, 0, 5);
	}
	return 0;
}

/* Reaps the children that exited; returns how many. */
static int reap_exited(void)
{
	int n = 0, status;

	while (waitpid(-1, &status, WNOHANG) > 0)
		n++;
	return n;
}

/*
 * Ends what the launched target left running: as their subreaper the
 * recorder inherits them when their parent dies (perf is reaped by now, so
 * every child is one of them). SIGTERM, then SIGKILL after 500 ms, until
 * none is left (killing one may orphan its own children); says so in one
 * line (how many, the first one's pid, SIGKILL when it came to that).
 */
static void end_descendants(void)
{
	double waited = 0;
	pid_t kids[256], seen[256], first = 0;
	int n, nseen = 0, more = 0;
	bool killed = false;

	while ((n = rec_proc_children(getpid(), kids, 0, 256)) > 0) {
		for (int i = 0; i < n; i++) {
			int k = 0;

			while (k < nseen && seen[k] != kids[i])
				k++;
			if (k == nseen && nseen < 256)
				seen[nseen++] = kids[i];
			else if (k == nseen)
				more++;   /* past 256: counted, maybe twice */
			first = first ? first : kids[i];
			killed |= waited >= 500;
			kill(kids[i], waited < 500 ? SIGTERM : SIGKILL);
		}
		for (int i = 0; i < 10 && !reap_exited(); i++, waited += 5)
			poll(NULL, 0, 5);
	}
	reap_exited();
	if (nseen)
		diag_info("the launched program left %d process%s running (process %d%s): ended "
			  "with SIGTERM%s", nseen + more, nseen + more == 1 ? "" : "es", (int)first,
			  nseen + more == 1 ? "" : " first", killed ? ", then SIGKILL (not all had "
			  "exited 500 ms later)" : "");
}

int rec_target_end(struct rec_target *t, const char *why)
{
	int status = 0;
	pid_t r = 0;
	bool killed;

	if (!t->launched)
		return -1;
	if (!rec_target_alive(t))
		return 1;   /* reaped now or before: it ended by itself */
	if (!t->released) {
		kill(t->pids[0], SIGKILL);
		ptrace(PTRACE_DETACH, t->pids[0], NULL, NULL);
		while (waitpid(t->pids[0], &status, 0) < 0 && errno == EINTR)
			;
		t->exited = true;
		t->status = status;
		return 0;
	}
	/* SIGTERM lets it clean up; SIGKILL after 500 ms */
	kill(t->pids[0], SIGTERM);
	kill(t->pids[0], SIGCONT);   /* stopped at the trigger */
	for (int i = 0; i < 100 && r == 0; i++) {
		r = waitpid(t->pids[0], &status, WNOHANG);
		if (r == 0)
			poll(NULL, 0, 5);
	}
	killed = r == 0;
	if (killed)
		kill(t->pids[0], SIGKILL);
	while (r <= 0 && (r = waitpid(t->pids[0], &status, 0)) < 0 && errno == EINTR)
		;
	t->exited = true;
	t->status = status;
	/* a status of its own (it caught or ignored the SIGTERM): its end, told as it is */
	if (WIFEXITED(status)) {
		diag_info("%s: sent SIGTERM to the launched program (process %d); it exited "
			  "with status %d", why ? why : "the recording ended", (int)t->pids[0],
			  WEXITSTATUS(status));
		return 2;
	}
	diag_info("%s: ended the launched program (process %d) with SIGTERM%s; what it had "
		  "not written yet (buffered output) is lost", why ? why : "the recording ended",
		  (int)t->pids[0], killed ? ", then SIGKILL (it had not exited 500 ms later)" : "");
	return 0;
}

void rec_target_finish(struct rec_target *t, const char *why)
{
	rec_target_end(t, why);
	if (t->launched)
		end_descendants();
	for (int i = 0; i < REC_MAX_PIDS; i++) {
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
		t->pidfds[i] = -1;
	}
}
