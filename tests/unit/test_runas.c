/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/runas.c's runas_open(): a file is kept only when
 * each user of the set may open it, judged by a child with their
 * credentials (uid 65534 here, as the rootsafe suite's second user): a
 * root-only file is -EPERM with one phrase naming the uid, a file they may
 * read is opened, a link at the end is followed as they would follow it
 * (and refused with INPATH_NOFOLLOW, as inpath_open() refuses it), a name
 * relative to a directory descriptor is theirs to open too; no users: the
 * caller's open alone. runas_image(): an ELF program copied into a sealed,
 * read-only unnamed file of mode 0111 (a script, a directory: -ENOEXEC), and
 * a child that becomes uid 65534 and execs it is not dumpable (its /proc
 * files root's, where the same program exec'd from its path is theirs:
 * the kernel's would_dump() rule, which keeps their ptrace off it).
 * Needs root (it sets another user's credentials).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inpath.h"
#include "runas.h"
#include "unit.h"

#define NOBODY 65534

/* A directory others may search (the unit scratch directory is 0700). */
static char dir[64];

static const char *at(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void make_file(const char *name, mode_t mode)
{
	FILE *f = fopen(at(name), "w");

	CHECK(f && fputs("x\n", f) >= 0 && !fclose(f) && !chmod(at(name), mode));
}

static void test_open_as(void)
{
	struct runas as;
	struct runas_set who = { &as, 1 }, none = { NULL, 0 };
	char why[200] = "";
	int fd, dfd;

	runas_prepare(&as, NOBODY, NOBODY);
	make_file("rootonly", 0600);
	make_file("public", 0644);
	CHECK(!symlink("public", at("link")));

	fd = runas_open(&who, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK_INT_EQ(fd, -EPERM);
	CHECK_STR_EQ(why, "uid 65534, whose recording it is, may not open it");
	fd = runas_open(&none, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	fd = runas_open(NULL, AT_FDCWD, at("rootonly"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);

	fd = runas_open(&who, AT_FDCWD, at("public"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	fd = runas_open(&who, AT_FDCWD, at("link"), 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT_EQ(runas_open(&who, AT_FDCWD, at("link"), INPATH_NOFOLLOW, why, sizeof(why)),
		     -ELOOP);
	CHECK_INT_EQ(runas_open(&who, AT_FDCWD, at("missing"), 0, why, sizeof(why)), -ENOENT);

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0);
	fd = runas_open(&who, dfd, "public", 0, why, sizeof(why));
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT_EQ(runas_open(&who, dfd, "rootonly", 0, why, sizeof(why)), -EPERM);
	close(dfd);

	unlink(at("rootonly"));
	unlink(at("public"));
	unlink(at("link"));
}

/* The owner of /proc/PID/environ once PID runs a program whose comm is
 * COMM (the child's exec done), or -1. A process that is not dumpable has
 * root's files there (task_dump_owner(); /proc/PID itself stays theirs). */
static long exec_owner(pid_t pid, const char *comm)
{
	const struct timespec nap = { 0, 2 * 1000 * 1000 };
	char path[64], got[64];
	struct stat st;

	for (int i = 0; i < 2500; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "r");
		got[0] = '\0';
		if (f) {
			if (!fgets(got, sizeof(got), f))
				got[0] = '\0';
			fclose(f);
		}
		got[strcspn(got, "\n")] = '\0';
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
		if (!strcmp(got, comm))
			return stat(path, &st) ? -1 : (long)st.st_uid;
		nanosleep(&nap, NULL);
	}
	return -1;
}

/* Starts PROG ("sleep 10") as AS, from IMAGE (an fd) or, IMAGE -1, its
 * path; returns the owner of its /proc files once exec'd (exec_owner()),
 * the child ended. */
static long run_as_owner(const struct runas *as, const char *prog, int image, const char *comm)
{
	char *const argv[] = { (char *)"sleep", (char *)"10", NULL };
	char *const envp[] = { NULL };
	long owner;
	pid_t pid = fork();

	if (pid == 0) {
		if (runas_enter(as))
			_exit(126);
		if (image >= 0)
			fexecve(image, argv, envp);
		else
			execve(prog, argv, envp);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	owner = exec_owner(pid, comm);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return owner;
}

static void test_image(void)
{
	const char *sleep_prog = "/bin/sleep";
	struct runas as;
	struct stat st;
	int fd;

	runas_prepare(&as, NOBODY, NOBODY);
	fd = runas_image(sleep_prog);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == 0);
	CHECK_INT_EQ(st.st_mode & 07777, 0111);
	CHECK_INT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK((fcntl(fd, F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)) ==
	      (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL));
	/* the kernel's rule: theirs from the path, root's (not dumpable) from the image */
	CHECK_INT_EQ(run_as_owner(&as, sleep_prog, -1, "sleep"), NOBODY);
	CHECK_INT_EQ(run_as_owner(&as, sleep_prog, fd, "memfd:sleep"), 0);
	close(fd);

	make_file("script", 0755);
	CHECK_INT_EQ(runas_image(at("script")), -ENOEXEC);
	CHECK_INT_EQ(runas_image(dir), -ENOEXEC);
	CHECK_INT_EQ(runas_image(at("missing")), -ENOENT);
	unlink(at("script"));
}

int main(void)
{
	if (geteuid() != 0) {
		UNIT_SKIP(test_open_as, "second_user", "not root");
		UNIT_SKIP(test_image, "second_user", "not root");
		return unit_exit();
	}
	snprintf(dir, sizeof(dir), "/tmp/test_runas.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0711))
		return 1;
	UNIT_RUN(test_open_as);
	UNIT_RUN(test_image);
	rmdir(dir);
	return unit_exit();
}
