/* SPDX-License-Identifier: MIT */
#include "frontend.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "inpath.h"
#include "outpath.h"
#include "pathtrust.h"
#include "perfdata.h"
#include "run.h"

/* Finds snaptrace-convert next to this program. Returns 0 or -1 after an error. */
static int find_convert(struct rec_frontend *fe)
{
	int err = run_find_sibling("snaptrace-convert", fe->convert, sizeof(fe->convert));

	if (err == -ENOENT)
		diag_error("%s: expected the snaptrace-convert program next to "
			   "snaptrace-record, found none", fe->convert);
	else if (err)
		diag_error("/proc/self/exe: cannot read it: %s", strerror(-err));
	return err ? -1 : 0;
}

/* The snaptrace-convert command line of the recording in DIR (NULL on
 * out-of-memory; the caller frees the array), with --check-options first
 * when CHECK. */
static char **convert_argv(const struct rec_frontend *fe, const char *dir, bool check)
{
	const struct rec_cli *cli = fe->cli;
	char **argv = calloc((size_t)cli->nconvert_args + 10, sizeof(*argv));
	int n = 0;

	if (!argv)
		return NULL;
	argv[n++] = (char *)fe->convert;
	if (check)
		argv[n++] = "--check-options";
	if (cli->rec.quiet)
		argv[n++] = "--quiet";
	if (cli->rec.perf_path) {
		argv[n++] = "--perf";
		argv[n++] = (char *)cli->rec.perf_path;
	}
	for (int i = 0; i < cli->nconvert_args; i++)
		argv[n++] = (char *)cli->convert_args[i];
	argv[n++] = (char *)dir;
	argv[n++] = "-o";
	argv[n++] = fe->trace_fd >= 0 ? "-" : (char *)cli->trace;   /* -: fe->trace_fd */
	return argv;
}

/* Before anything is recorded: does snaptrace-convert take the
 * --convert-arg arguments for a conversion of DIR (--check-options)? A
 * usage error of them (a bad value, an option that prints and writes no
 * trace such as --help) would come only after the recording, with no
 * trace. Returns -1 when they do, else the exit status (the converter
 * said why). */
static int check_convert_args(const struct rec_frontend *fe, const char *dir)
{
	char **argv;
	pid_t pid;
	int st;

	if (!fe->cli->nconvert_args)
		return -1;
	argv = convert_argv(fe, dir, true);
	if (!argv) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	pid = run_start(argv, STDERR_FILENO, STDERR_FILENO, RUN_CWD_CALLER, false, NULL, NULL);
	free(argv);
	if (pid < 0) {
		diag_error("%s: cannot run it: %s", fe->convert, strerror((int)-pid));
		return EXIT_RUNTIME;
	}
	st = run_wait(pid);
	if (st == 0)
		return -1;
	diag_error("--convert-arg: snaptrace-convert refuses the arguments (above): nothing "
		   "recorded");
	return st == EXIT_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
}

/* -o naming a FIFO or a device: opened now, into FE->trace_fd (the converter
 * writes it as -o -), so that recording never starts for a FIFO no one
 * reads, and its reader stays connected until the trace is written. Returns
 * 0, or -1 after a one-line error. */
static int open_special(struct rec_frontend *fe)
{
	struct outpath out;
	struct stat st;
	char err[PATH_MAX + 256];

	if (!strcmp(fe->cli->trace, "-") || stat(fe->cli->trace, &st) || S_ISREG(st.st_mode))
		return 0;
	if (outpath_open(&out, fe->cli->trace, err, sizeof(err))) {
		diag_error("%s", err);
		return -1;
	}
	fe->trace_fd = fcntl(out.fd, F_DUPFD_CLOEXEC, 3);
	outpath_commit(&out);   /* a straight output: closes its own descriptor */
	if (fe->trace_fd < 0) {
		diag_error("%s: cannot keep it open: %s", fe->cli->trace, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether paths A and B name one entry: their last components equal and
 * their directories the same one (by device and inode; a directory that is
 * not there yet is another). */
static bool same_entry(const char *a, const char *b)
{
	char da[PATH_MAX], db[PATH_MAX], na[PATH_MAX], nb[PATH_MAX];
	struct stat sa, sb;

	if ((size_t)snprintf(da, sizeof(da), "%s", a) >= sizeof(da) ||
	    (size_t)snprintf(db, sizeof(db), "%s", b) >= sizeof(db))
		return false;
	memcpy(na, da, sizeof(na));
	memcpy(nb, db, sizeof(nb));
	return !strcmp(basename(na), basename(nb)) && !stat(dirname(da), &sa) &&
	       !stat(dirname(db), &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Whether someone other than the caller (and root) can rename an entry on the
 * way to directory DIR (not there yet: its parent must be): the converter
 * reads the recording by name after it is written, so a directory another
 * user may swap (renameat2 RENAME_EXCHANGE) would give the caller that user's
 * recording as its own. An ancestor is safe when pathtrust_of() says so for
 * the entry on the way in it (PATHTRUST_US: root or the caller owns it and
 * nobody else may write it, or it is sticky, as /tmp, and the entry is root's
 * or the caller's). Returns false, or true with WHY (SIZE bytes) naming the
 * ancestor and who.
 */
static bool renamable_by_others(const char *dir, char *why, size_t size)
{
	char copy[PATH_MAX], real[PATH_MAX];
	uid_t me = geteuid();
	struct stat st;
	bool mine;

	if ((size_t)snprintf(copy, sizeof(copy), "%s", dir) >= sizeof(copy) ||
	    !realpath(dirname(copy), real))
		return false;   /* no parent: creating the directory says why */
	if (pathtrust_upward(real, (struct stat){ .st_uid = me }, &st) != 0)
		return false;   /* nobody else, or one gone: creating it says why */
	mine = st.st_uid == me || st.st_uid == 0;
	snprintf(why, size, "%s (%s uid %u%s) lets another user rename what is in it",
		 real, mine ? "writable by others, owner" : "owned by",
		 (unsigned)st.st_uid, st.st_mode & S_ISVTX ? ", sticky" : "");
	return true;
}

/* Makes the temporary recording directory DIR ("PATH/snaptrace.XXXXXX", its
 * X's replaced) in directory DIRFD (PATH's, held), mode 0700, as mkdtemp()
 * would but through DIRFD. Returns 0 or a negative errno. */
static int temp_dir(int dirfd, char *dir)
{
	char *x = dir + strlen(dir) - 6;

	for (int i = 0; i < 16; i++) {
		int err = outpath_random(x, 6);

		if (err)
			return err;
		if (!mkdirat(dirfd, strrchr(dir, '/') + 1, 0700))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int rec_frontend_prepare(struct rec_frontend *fe, struct rec_cli *cli)
{
	const char *tmp = getenv("TMPDIR");
	char err[PATH_MAX + 128], real[PATH_MAX];
	int rc, tmp_fd = -1;

	memset(fe, 0, sizeof(*fe));
	fe->cli = cli;
	fe->trace_fd = -1;
	rc = outpath_check(cli->trace, err, sizeof(err));
	if (rc == EXIT_USAGE)
		diag_error("%s (see snaptrace %s --help)", err,
			   cli->verb == REC_VERB_RUN ? "run" : "attach");
	else if (rc)
		diag_error("%s", err);
	if (rc)
		return rc;
	if (cli->data_dir && strcmp(cli->trace, "-") && same_entry(cli->trace, cli->data_dir)) {
		diag_error("-o %s: the recording directory (-d %s): expected another path for "
			   "the trace (see snaptrace %s --help)", cli->trace, cli->data_dir,
			   cli->verb == REC_VERB_RUN ? "run" : "attach");
		return EXIT_USAGE;
	}
	if (find_convert(fe))
		return EXIT_RUNTIME;
	rc = check_convert_args(fe, cli->data_dir ? cli->data_dir : "snaptrace.XXXXXX");
	if (rc >= 0)
		return rc;
	if (open_special(fe))
		return EXIT_USAGE;
	if (!strcmp(cli->trace, "-")) {
		fflush(stdout);
		fe->trace_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fe->trace_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			diag_error("stdout: cannot keep it for the trace: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (cli->data_dir) {
		snprintf(fe->dir, sizeof(fe->dir), "%s", cli->data_dir);
	} else {
		/* TMPDIR walked as an output's path: its real path is what is named */
		tmp_fd = outpath_walk_dir(tmp, real, sizeof(real), err, sizeof(err));
		if (tmp_fd < 0) {
			diag_error("TMPDIR %s", err);
			return EXIT_USAGE;
		}
		if ((size_t)snprintf(fe->dir, sizeof(fe->dir), "%s/snaptrace.XXXXXX", real) >=
		    sizeof(fe->dir)) {
			diag_error("TMPDIR %s: %s: a name too long", tmp, real);
			close(tmp_fd);
			return EXIT_USAGE;
		}
	}
	if (renamable_by_others(fe->dir, err, sizeof(err))) {
		diag_error("%s %s: %s: the recording could be swapped before it is converted; "
			   "choose a directory only you can write", cli->data_dir ? "-d" : "TMPDIR",
			   cli->data_dir ? cli->data_dir : tmp, err);
		if (tmp_fd >= 0)
			close(tmp_fd);
		return EXIT_USAGE;
	}
	if (tmp_fd >= 0) {
		rc = temp_dir(tmp_fd, fe->dir);
		close(tmp_fd);
		if (rc) {
			diag_error("%s: cannot create a temporary directory: %s", fe->dir,
				   strerror(-rc));
			return EXIT_RUNTIME;
		}
		fe->temporary = true;
	}
	cli->rec.outdir = fe->dir;
	return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* The number of non-empty perf.data* files perf left in directory DIRFD, of
 * which *FINISHED are perf.data files perf finished (perfdata.h); -1 when
 * out of memory. */
static int perf_files(int dirfd, int *finished)
{
	char **names, why[160], handle[32];
	int n = perfdata_scan(dirfd, &names), files = 0;

	*finished = 0;
	for (int i = 0; i < n; i++) {
		int fd = inpath_open(dirfd, names[i], INPATH_NOFOLLOW, why, sizeof(why));
		struct stat st;

		if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0) {
			files++;
			*finished += perfdata_check(inpath_proc(fd, handle, sizeof(handle)), why,
						    sizeof(why)) == PERFDATA_FINISHED;
		}
		if (fd >= 0)
			close(fd);
		free(names[i]);
	}
	free(names);
	return n == -ENOMEM ? -1 : files;
}

/*
 * Whether the recording holds anything to convert: a snapshot perf finished
 * or, when perf recorded but the session settled none (perf died), a
 * perf.data file perf finished (snaptrace-convert then takes every one, as
 * record.json lists none). A perf that exited before recording left at most
 * its header: nothing to convert (its files stay, named).
 * Returns 1, 0, or -1 when out of memory.
 */
static int has_data(const struct rec_session *s)
{
	int found = 0;

	for (int i = 0; i < s->nsnaps; i++)
		found |= s->snaps[i].file[0] && !s->snaps[i].problem[0];
	if (found || s->nsnaps)
		return found;
	if (s->start_ms <= 0 || s->ready_ms <= 0)
		return 0;   /* perf's files only when perf recorded (a -d directory may hold others) */
	return perf_files(s->outdir_fd, &found) < 0 ? -1 : found > 0;
}

/* The first stop signal (sig_stops) read from SIGFD (what is there now;
 * SIGCHLD is passed over), or STOPPED when it is not 0; then PID, when > 0,
 * gets SIGTERM. */
static int read_stop(int sigfd, int stopped, pid_t pid)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD && !stopped) {
			stopped = (int)si.ssi_signo;
			if (pid > 0)
				kill(pid, SIGTERM);
		}
	return stopped;
}

/* Runs snaptrace-convert on the recording directory (its record.json says
 * which files, hits and names), stopping it on a stop signal read
 * from SIGFD. One still pending now came after perf's end (the session read
 * the recording's then: session.h): the converter is not started. Returns
 * its exit status, or 128 + N when signal N stopped it. */
static int convert(struct rec_frontend *fe, int sigfd)
{
	int status = 0, stopped = read_stop(sigfd, 0, 0);
	char **argv = stopped ? NULL : convert_argv(fe, fe->dir, false);
	pid_t pid = 0;

	if (!argv && !stopped) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (argv)
		pid = run_start(argv, fe->trace_fd >= 0 ? fe->trace_fd : STDOUT_FILENO,
				STDERR_FILENO, RUN_CWD_CALLER, false, NULL, NULL);
	free(argv);
	if (pid < 0) {
		diag_error("%s: cannot run it: %s", fe->convert, strerror((int)-pid));
		return EXIT_RUNTIME;
	}
	/* SIGCHLD arrives on SIGFD too: one loop waits for the end and for signals */
	while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
		struct pollfd pf = { sigfd, POLLIN, 0 };

		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			break;
		stopped = read_stop(sigfd, stopped, pid);
	}
	if (stopped) {
		diag_error("%s: stopping the conversion", strsignal(stopped));
		return 128 + stopped;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether DIR still names the recording directory open as FD (the
 * converter reads it by name: a -d DIR in another user's directory may have
 * been renamed and replaced meanwhile). */
static bool still_there(const char *dir, int fd)
{
	struct stat a, b;

	return !stat(dir, &a) && !fstat(fd, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int rec_frontend_finish(struct rec_frontend *fe, const struct rec_session *s, int status,
			int sigfd)
{
	int n = has_data(s), conv = 0, finished;

	if (n > 0 && !still_there(fe->dir, s->outdir_fd)) {
		diag_error("%s: no longer the recording directory (renamed or replaced while "
			   "recording): not converted", fe->dir);
		return EXIT_RUNTIME;
	}
	if (n > 0)
		conv = convert(fe, sigfd);
	if (n <= 0) {
		/* nothing to convert: remove the temporary directory if empty, else name
		 * it, as a -d directory holding what a failed perf left (a usage
		 * error recorded nothing: what is there was there before) */
		if (fe->temporary ? rmdir(fe->dir) != 0 :
		    status != EXIT_OK && status != EXIT_USAGE && perf_files(s->outdir_fd, &finished) != 0)
			diag_error("what perf wrote stays in %s", fe->dir);
		return n < 0 ? EXIT_RUNTIME : status;
	}
	if (conv != 0) {
		diag_error("%s; the recording stays in %s",
			   conv > 128 ? "conversion stopped" : "conversion failed", fe->dir);
		return EXIT_RUNTIME;
	}
	if (fe->trace_fd < 0 && access(fe->cli->trace, F_OK)) {	/* never a lost recording */
		diag_error("%s: snaptrace-convert wrote no trace; the recording stays in %s",
			   fe->cli->trace, fe->dir);
		return EXIT_RUNTIME;
	}
	if (status != EXIT_OK) {
		diag_error("the trace of what was captured is in %s; the recording stays in %s",
			   fe->cli->trace, fe->dir);
		return status;
	}
	if (fe->temporary)
		nftw(fe->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	else
		diag_info("recording kept in %s", fe->dir);
	return EXIT_OK;
}
