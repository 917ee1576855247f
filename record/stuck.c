/* SPDX-License-Identifier: MIT */
#include "stuck.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

/* How a system call names the file it waits on: the argument (0-based)
 * holding a path's address, or a descriptor. */
enum stuck_arg { STUCK_PATH, STUCK_FD };

/* The calls a process waits in on one file (syscall(2) numbers of this
 * architecture: those it has). */
static const struct {
	long nr;
	const char *name;
	enum stuck_arg kind;
	int arg;
} stuck_calls[] = {
#ifdef SYS_open
	{ SYS_open, "open", STUCK_PATH, 0 },
#endif
#ifdef SYS_creat
	{ SYS_creat, "creat", STUCK_PATH, 0 },
#endif
	{ SYS_openat, "openat", STUCK_PATH, 1 },
#ifdef SYS_openat2
	{ SYS_openat2, "openat2", STUCK_PATH, 1 },
#endif
	{ SYS_read, "read", STUCK_FD, 0 },
	{ SYS_write, "write", STUCK_FD, 0 },
	{ SYS_pread64, "pread64", STUCK_FD, 0 },
	{ SYS_pwrite64, "pwrite64", STUCK_FD, 0 },
	{ SYS_readv, "readv", STUCK_FD, 0 },
	{ SYS_writev, "writev", STUCK_FD, 0 },
	{ SYS_ioctl, "ioctl", STUCK_FD, 0 },
	{ SYS_flock, "flock", STUCK_FD, 0 },
	{ SYS_fsync, "fsync", STUCK_FD, 0 },
};

/* The path process PID passes at address ADDR into BUF (LEN bytes): read
 * from its memory. Returns 0 or -errno. */
static int read_path(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	char mem[64];
	ssize_t n;

	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	n = rec_proc_read_at(mem, addr, buf, len);
	return n > 0 ? 0 : n < 0 ? (int)n : -EIO;
}

/* The file descriptor FD of thread TID of PID is, into BUF (LEN bytes).
 * Returns 0 or -errno. */
static int fd_file(pid_t pid, pid_t tid, long fd, char *buf, size_t len)
{
	char link[96];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/task/%d/fd/%ld", (int)pid, (int)tid, fd);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* What thread TID of PID waits on, into BUF (LEN): 1 when it names a file,
 * 0 when only what it sleeps in, -errno when unreadable. */
static int thread_stuck(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96], line[512], wchan[128], file[PATH_MAX], in[160] = "";
	uint64_t args[6] = { 0 };
	long nr;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, (int)tid);
	if (rec_proc_read(path, wchan, sizeof(wchan)) > 0 && strcmp(wchan, "0"))
		snprintf(in, sizeof(in), " (in the kernel's %s)", wchan);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if (rec_proc_read(path, line, sizeof(line)) <= 0)
		return -EIO;
	n = sscanf(line, "%ld %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
		   " %" SCNx64, &nr, &args[0], &args[1], &args[2], &args[3], &args[4], &args[5]);
	if (n < 1 || nr < 0) {
		/* "running", or "-1 SP PC": not in a system call */
		snprintf(buf, len, "pid %d is %s%s", (int)tid, n < 1 ? "running" :
			 "not in a system call", in);
		return 0;
	}
	for (size_t i = 0; i < sizeof(stuck_calls) / sizeof(stuck_calls[0]); i++) {
		int err;

		if (stuck_calls[i].nr != nr || n < 2 + stuck_calls[i].arg)
			continue;
		if (stuck_calls[i].kind == STUCK_PATH)
			err = read_path(pid, args[stuck_calls[i].arg], file, sizeof(file));
		else
			err = fd_file(pid, tid, (long)args[stuck_calls[i].arg], file, sizeof(file));
		if (err)
			break;
		snprintf(buf, len, "pid %d is blocked in %s of %s%s", (int)tid, stuck_calls[i].name,
			 file, in);
		return 1;
	}
	snprintf(buf, len, "pid %d is blocked in system call %ld%s", (int)tid, nr, in);
	return 0;
}

int rec_proc_stuck(pid_t pid, char *buf, size_t len)
{
	char dir[64], other[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;
	int r;

	buf[0] = '\0';
	r = thread_stuck(pid, pid, buf, len);
	if (r == 1)
		return 1;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return r < 0 ? -errno : 0;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0 || tid == pid || thread_stuck(pid, (pid_t)tid, other, sizeof(other)) != 1)
			continue;
		snprintf(buf, len, "%s", other);
		r = 1;
		break;
	}
	closedir(d);
	return r < 0 ? 0 : r;
}
