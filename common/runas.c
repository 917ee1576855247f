/* SPDX-License-Identifier: MIT */
#include "runas.h"
#include "inpath.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

int runas_enter(const struct runas *r)
{
	int sig = 0;

	if (!r->on)
		return 0;
	if (prctl(PR_GET_PDEATHSIG, &sig))
		return errno;
	/* raw calls: glibc's wrappers go through its machinery for every thread */
	if (syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) ||
	    syscall(SYS_setresgid, r->gid, r->gid, r->gid) ||
	    syscall(SYS_setresuid, r->uid, r->uid, r->uid))
		return errno;
	/* the change of credentials cleared it (commit_creds()) */
	if (sig && prctl(PR_SET_PDEATHSIG, sig))
		return errno;
	return 0;
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
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
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
