/* SPDX-License-Identifier: MIT */
#include "runas.h"
#include "inpath.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/keyctl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void runas_prepare(struct runas *r, uid_t uid, gid_t gid)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	int n = RUNAS_GROUPS_MAX;

	memset(r, 0, sizeof(*r));
	r->on = true;
	r->uid = uid;
	r->gid = gid;
	r->groups[0] = gid;
	r->ngroups = 1;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) || !found)
		return;
	r->gid = pw.pw_gid;
	r->groups[0] = pw.pw_gid;
	/* more groups than fit: the first RUNAS_GROUPS_MAX, n set to all of them */
	if (getgrouplist(pw.pw_name, pw.pw_gid, r->groups, &n) < 0)
		n = RUNAS_GROUPS_MAX;
	r->ngroups = n;
}

/* In a child about to become another user: gives up the caller's
 * controlling terminal (TIOCNOTTY; none: nothing to give up), so that
 * neither it nor what it starts can open /dev/tty to push input into the
 * caller's shell (TIOCSTI), write to it raw or take its foreground. Not a
 * session leader (spawn.h's children are not): only this process loses
 * it. */
static int leave_terminal(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK), err = 0;

	if (fd < 0)
		return errno == ENXIO || errno == ENOENT ? 0 : errno;
	if (ioctl(fd, TIOCNOTTY))
		err = errno;
	close(fd);
	return err;
}

int runas_enter(const struct runas *r)
{
	int sig = 0, err;

	if (!r->on)
		return 0;
	if (prctl(PR_GET_PDEATHSIG, &sig))
		return errno;
	if ((err = leave_terminal()))
		return err;
	/* raw calls: glibc's wrappers go through its machinery for every thread */
	if (syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) ||
	    syscall(SYS_setresgid, r->gid, r->gid, r->gid) ||
	    syscall(SYS_setresuid, r->uid, r->uid, r->uid))
		return errno;
	/* the change of credentials cleared it (commit_creds()) */
	if (sig && prctl(PR_SET_PDEATHSIG, sig))
		return errno;
	/* a session keyring of its own, empty: the caller's (root's, set up by
	 * pam_keyinit) would be the user's to read through this process */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
		return errno;
	return 0;
}

/* Reaps child PID, which became another user (one open, a few ms), into
 * *STATUS. The user may signal it: stopped, or not done within
 * RUNAS_CHILD_MS, it is killed and reaped and the answer is false (hostile17:
 * a kill(-1, SIGSTOP) loop of hers held root's conversion for ever). */
static bool reaped_in_time(pid_t pid, int *status)
{
	const struct timespec nap = { 0, 2 * 1000 * 1000 };

	for (int ms = 0; ms < RUNAS_CHILD_MS; ms += 2) {
		pid_t got = waitpid(pid, status, WNOHANG | WUNTRACED);

		if (got == pid && !WIFSTOPPED(*status))
			return true;
		if ((got < 0 && errno != EINTR) || got == pid)
			break;	/* gone otherwise, or stopped */
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return false;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U	/* Linux 6.3: executable, whatever vm.memfd_noexec says */
#endif

/* An unnamed file for runas_image()'s copy of PATH (sealable,
 * close-on-exec; its name PATH's last part: the process's comm is then
 * "memfd:NAME"), or -ENOSYS when the system makes none that may be
 * executed. */
static int image_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char name[64];	/* memfd_create() takes at most 249 bytes */
	int fd;

	snprintf(name, sizeof(name), "%s", base);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)	/* before Linux 6.3: no MFD_EXEC, every memfd may be */
		fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd >= 0)
		return fd;
	return errno == ENOMEM || errno == EMFILE || errno == ENFILE ? -errno : -ENOSYS;
}

/* Copies SIZE bytes of SRC into DST from their starts. Returns 0 or a
 * negative errno (-EIO: SRC ended before SIZE). */
static int copy_all(int dst, int src, off_t size)
{
	off_t at = 0;

	while (at < size) {
		ssize_t n = sendfile(dst, src, &at, (size_t)(size - at));

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0)
			return -EIO;
	}
	return 0;
}

int runas_image(const char *path)
{
	static const unsigned char elf[4] = { 0x7f, 'E', 'L', 'F' };
	unsigned char magic[4];
	char self[40];
	struct stat st;
	int src = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), img = -1, ro, err;

	if (src < 0)
		return -errno;
	if (fstat(src, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -ENOEXEC;
	else if (pread(src, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
		 memcmp(magic, elf, sizeof(elf)))
		err = -ENOEXEC;
	else if ((img = image_file(path)) < 0)
		err = img;
	else if (!(err = copy_all(img, src, st.st_size)) &&
		 (fchmod(img, 0111) ||
		  fcntl(img, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)))
		err = -errno;
	close(src);
	if (err) {
		if (img >= 0)
			close(img);
		return err;
	}
	/* read-only: a file open for writing is no program to exec (ETXTBSY
	 * before Linux 6.11) */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", img);
	ro = open(self, O_RDONLY | O_CLOEXEC);
	err = ro < 0 ? -errno : 0;
	close(img);
	return ro < 0 ? err : ro;
}

bool runas_may_open(const struct runas *r, int dirfd, const char *path, bool follow,
		    const struct stat *st)
{
	pid_t pid;
	int status;

	if (!r->on)
		return true;
	pid = fork();
	if (pid == 0) {
		struct stat got;
		int fd;

		if (runas_enter(r))
			_exit(2);
		fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
			    (follow ? 0 : O_NOFOLLOW));
		_exit(fd >= 0 && !fstat(fd, &got) && got.st_dev == st->st_dev &&
		      got.st_ino == st->st_ino ? 0 : 1);
	}
	if (pid < 0)
		return false;
	return reaped_in_time(pid, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int runas_open(const struct runas_set *who, int dirfd, const char *path, unsigned flags,
	       char *why, size_t size)
{
	int fd = inpath_open(dirfd, path, flags, why, size);
	struct stat st;

	if (fd < 0 || !who || !who->n)
		return fd;
	if (fstat(fd, &st)) {
		int err = -errno;

		snprintf(why, size, "%s", strerror(-err));
		close(fd);
		return err;
	}
	for (size_t i = 0; i < who->n; i++)
		if (!runas_may_open(&who->as[i], dirfd, path, !(flags & INPATH_NOFOLLOW), &st)) {
			snprintf(why, size, "uid %u, whose recording it is, may not open it",
				 (unsigned)who->as[i].uid);
			close(fd);
			return -EPERM;
		}
	return fd;
}
