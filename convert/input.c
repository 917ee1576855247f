/* SPDX-License-Identifier: MIT */
#include "input.h"

#include "binaries.h"
#include "binrec.h"
#include "debuglink.h"
#include "diag.h"
#include "escape.h"
#include "inpath.h"
#include "ipname.h"
#include "jitdump.h"
#include "kallsyms.h"
#include "outpath.h"
#include "pathtrust.h"
#include "perf_version.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "ptdecode.h"
#include "ptsplit.h"
#include "recording.h"
#include "run.h"
#include "tmpview.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PIPE_SIZE (1 << 20)      /* bytes of perf's output the pipe holds */
#define SPOOL_POLL_NS 2000000    /* a spooling perf is looked at every 2 ms */

/* One perf script run: the whole input, or one time range of it. */
struct part {
	struct perfcmd cmd;
	int fd;                  /* perf's output: a pipe, or a spool file read at OFF */
	bool spool;
	uint64_t off;
	pid_t perf;              /* perf script child, or 0 */
	bool reaped;             /* perf was waited for already: its status is STATUS */
	int status;
	FILE *perf_err;          /* what perf script says on stderr, or NULL */
	bool eof;
	uint64_t first, last;    /* its time range (ns, inclusive) when there are several */
	size_t psbs_due;         /* PSBs of the file in [first, last] */
	size_t psbs_seen;        /* psb events at one of their times */
	bool psb_astray;         /* a psb event at no PSB's time */
	bool resumes;            /* the whole run, read on from FIRST (no --time) */
	int cwd_fd;              /* perf's working directory (the input's jit_dir), or 0: "/" (run.h) */
	const struct tmpview *view;  /* perf's /tmp (the input's), or NULL */
};

struct input {
	int fd;                  /* a text file or stdin (borrowed); -1 for a perf.data */
	uint64_t bytes, size;
	const char *path;        /* its name, for messages */
	char handle[32];         /* what is read: /proc/self/fd/N (inpath.h) */
	struct perfcmd_opts opts;  /* how perf script is run (ranges aside) */
	struct part *parts;      /* one per time range; none for a text input */
	size_t nparts, cur;
	struct ptsplit split;    /* the ranges and the PSB times they are checked by */
	bool binrec;             /* a saved output of perf script with the dlfilter */
	struct ptdecode *pt;     /* decoded in process, or NULL */
	char dlfilter[PATH_MAX]; /* the dlfilter's path */
	char evlist[4096];       /* a perf.data's events as `perf evlist -F` prints
				  * them; "": not read (Intel PT) */
	uint64_t sample_types[INPUT_MAX_EVENTS];   /* each one's sample_type bits */
	size_t nsample_types;    /* how many of them are known (0: none) */
	int jit_fd;              /* the perf.data after perf inject --jit (an unnamed
				  * file, inherited by perf script), or -1 */
	char jit_path[32];       /* /proc/self/fd/JIT_FD */
	struct binaries_kept jit_dir;  /* the private directory perf inject ran in,
				  * perf script runs in, and reads its ELF files from */
	char jit_perf[PATH_MAX]; /* perf's absolute path, for runs in JIT_DIR */
	struct tmpview *view;    /* the /tmp every perf run on it sees (its perf maps), or
				  * NULL: ours (it names none) */
	struct kallsyms_copy kallsyms;  /* the kernel symbols perf is given, or none */
	struct conv_maps *maps;  /* the mappings of what perf reads, or NULL (input_maps()) */
	struct perfmap_users map_users; /* whose perf maps may name its frames */
	pid_t start_stopped;     /* the process a start given up found stopped before
				  * its exec (run.h: -ETIME), for input_start_words() */
};

/* The name of the dlfilter, installed beside snaptrace-convert. */
static const char dlfilter_name[] = "snaptrace-dlfilter.so";

static void perf_said(FILE *f, char *buf, size_t size);

/* Runs `perf evlist -F` on PATH: its event list in OUT, one "EVENT:
 * sample_freq=N" or "EVENT: sample_period=N" a line. Returns 0, or -1 when
 * perf failed (its output is then in OUT). Every perf command run on an
 * input gets -f: without it perf refuses a file owned by another user even
 * to root. It runs in VIEW (tmpview.h: as the recording's owner where it says). */
static int evlist(const char *perf, const char *path, const struct tmpview *view, char *out,
		  size_t size)
{
	char *argv[] = { (char *)perf, "evlist", "-F", "-f", "-i", (char *)path, NULL };

	return run_capture_in(0, view, argv, out, size) != 0 ? -1 : 0;
}

/* Finds the dlfilter beside this program into IN->dlfilter and checks that
 * PERF is at least the version that has --dlfilter (unknown versions are
 * tried: input_read() falls back when perf refuses it; the version is
 * perf_version_of()'s, asked once per perf binary, not per conversion).
 * Returns true when the fast path can be tried. */
static bool dlfilter_usable(struct input *in, const char *perf)
{
	static const char *asked;	/* the perf whose version is known (one per run) */
	static bool has;
	char self[PATH_MAX];
	struct perf_version v;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = 0;
	if ((size_t)snprintf(in->dlfilter, sizeof(in->dlfilter), "%s/%s", dirname(self),
			     dlfilter_name) >= sizeof(in->dlfilter) ||
	    access(in->dlfilter, R_OK))
		return false;
	if (asked == perf)	/* each input of a multi-snapshot run: asked once */
		return has;
	if (perf_version_of(perf, &v))
		return false;
	asked = perf;
	has = perf_version_has(&v, PERF_FEAT_DLFILTER) != 0;
	return has;
}

/* Starts part P of input IN's perf script: its output into a pipe, or into
 * a spool file when P->spool; stderr into P->perf_err (made when missing,
 * emptied when there). Returns 0 or a negative errno (-ETIME: stopped
 * before its exec, IN->start_stopped the process found so). */
static int spawn(struct input *in, struct part *p)
{
	int fd;
	pid_t pid;

	if (!p->perf_err) {	/* shown as one line at the end; else inherited */
		fd = outpath_unnamed();	/* close-on-exec, unlike tmpfile()'s */
		if (fd >= 0 && !(p->perf_err = fdopen(fd, "w+")))
			close(fd);
	} else if (ftruncate(fileno(p->perf_err), 0) == 0)
		rewind(p->perf_err);
	if (p->spool) {
		fd = outpath_unnamed();
		if (fd < 0)
			return fd;
		pid = run_start((char *const *)p->cmd.argv, fd,
				p->perf_err ? fileno(p->perf_err) : STDERR_FILENO, p->cwd_fd, true,
				p->view, &in->start_stopped);
		if (pid < 0)
			close(fd);
	} else {
		pid = run_spawn((char *const *)p->cmd.argv,
				p->perf_err ? fileno(p->perf_err) : STDERR_FILENO, &fd, p->cwd_fd,
				true, p->view, &in->start_stopped);
		if (pid >= 0)
			(void)fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE);	/* fewer switches; a hint */
	}
	if (pid < 0)
		return (int)pid;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = fd;
	p->off = 0;
	p->perf = pid;
	p->reaped = false;
	p->eof = false;
	return 0;
}

/* Stops part P's perf (when it still runs) and frees what it holds. */
static void part_end(struct part *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (p->perf > 0 && !p->reaped) {
		p->status = run_end(p->perf);
		p->reaped = true;
	}
	if (p->perf_err)
		fclose(p->perf_err);
	p->perf_err = NULL;
}

/* How many of SP's PSBs are at or before TIME. */
static size_t psbs_upto(const struct ptsplit *sp, uint64_t time)
{
	size_t lo = 0, hi = sp->npsbs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->psbs[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Makes IN's parts: one per time range of the decoding when JOBS > 1 and
 * the branches come through the dlfilter (ptsplit.h), else one. */
static int make_parts(struct input *in, unsigned jobs)
{
	const struct ptsplit *sp = &in->split;
	size_t nb;

	/* Text would spool gigabytes: ranges only for the dlfilter's records;
	 * none when the user gave perf a --time of their own. */
	for (size_t i = 0; i < in->opts.nextra && jobs > 1; i++)
		if (!strncmp(in->opts.extra[i], "--time", 6))
			jobs = 1;
	if (jobs > 1 && in->opts.dlfilter)
		ptsplit_plan(in->handle, jobs, &in->split);
	nb = sp->nbounds;
	in->parts = calloc(nb + 1, sizeof(*in->parts));
	if (!in->parts)
		return -ENOMEM;
	in->nparts = nb + 1;
	for (size_t k = 0; k < in->nparts; k++) {
		struct part *p = &in->parts[k];
		struct perfcmd_opts o = in->opts;

		o.has_range = nb > 0;
		o.first = k ? sp->bounds[k - 1] : 0;
		o.last = k < nb ? sp->bounds[k] - 1 : UINT64_MAX;
		perfcmd_build(&p->cmd, &o);
		p->first = o.first;
		p->last = o.last;
		p->psbs_due = psbs_upto(sp, o.last) - psbs_upto(sp, o.first - (k > 0));
		p->fd = -1;
		p->spool = k > 0;	/* read after the ranges before it */
		p->cwd_fd = in->jit_fd >= 0 ? in->jit_dir.fd : 0;
		p->view = in->view;
	}
	for (size_t k = 0; k < in->nparts; k++) {
		int err = spawn(in, &in->parts[k]);

		if (err)
			return err;
	}
	return 0;
}

/*
 * Who made the recording the input HANDLE is of (docs/design.md "Threat
 * model"): its file's owner, and when that is root or the caller, its
 * recording directory's (REC_DIRFD, -1: none; a recording of another
 * user's holds root's perf.data only as the user chose); (uid_t)-1 when it
 * cannot be told, which is nobody's the tools trust. *GID (when not NULL):
 * the file's group.
 */
static uid_t recording_owner(const char *handle, int rec_dirfd, gid_t *gid)
{
	struct stat st, dir;
	uid_t owner;

	if (stat(handle, &st)) {
		st.st_uid = (uid_t)-1;
		st.st_gid = (gid_t)-1;
	}
	owner = st.st_uid;
	if (pathtrust_uid_ours(owner) && rec_dirfd >= 0)
		owner = fstat(rec_dirfd, &dir) ? (uid_t)-1 : dir.st_uid;
	if (gid)
		*gid = st.st_gid;
	return owner;
}

int input_owner_as(const char *path, const char *handle, int rec_dirfd, struct runas *as,
		   char *errbuf, size_t errlen)
{
	gid_t gid;
	uid_t owner = recording_owner(handle, rec_dirfd, &gid);

	as->on = false;
	if (geteuid() != 0 || pathtrust_uid_ours(owner))
		return 0;
	if (owner == (uid_t)-1 || gid == (gid_t)-1) {
		snprintf(errbuf, errlen, "%s: whose recording it is cannot be told: perf would "
			 "read it as root", path);
		return -EPERM;
	}
	runas_prepare(as, owner, gid);
	return 0;
}

/* Gives the private directory K perf reads (or writes) to the user perf
 * runs as (input_owner_as()), if not the caller. Returns 0 or a negative errno. */
static int give_to_perf(const struct input *in, const struct binaries_kept *k)
{
	if (!in->view || !in->view->as.on)
		return 0;
	return binaries_kept_give(k, in->view->as.uid, in->view->as.gid);
}

/*
 * When the perf.data IN names a jitdump (jitdump.h): runs `perf inject
 * --jit` on a private copy of both (jitdump_private()), in its directory,
 * into an unnamed file, which perf script then reads instead (in->jit_path),
 * run in that directory too (the ELF files perf inject wrote are named
 * relative to it), as PERF resolved to an absolute path (in->jit_perf). A
 * jitdump that cannot be used (gone, not a regular file, another user's
 * link, a clock perf inject refuses, perf inject failing) is a warning: the
 * JIT's frames stay unnamed, the rest converts.
 */
static void inject_jitdump(struct input *in, const char *perf)
{
	char dump[PATH_MAX], why[600], said[600] = "";
	char *argv[] = { in->jit_perf, "inject", "--jit", "-f", "-i", JITDUMP_PERFDATA, "-o",
			 in->jit_path, NULL };
	int fd, st;

	if (jitdump_find(in->handle, dump, sizeof(dump)) != 1)
		return;
	if (run_find_program(perf, in->jit_perf, sizeof(in->jit_perf)))
		return;		/* no such perf: perf script says so */
	if (jitdump_private(in->handle, dump, in->view ? &in->view->as : NULL, &in->jit_dir, why,
			    sizeof(why))) {
		diag_warn("%s: the JIT's jitdump %s is not read (%s): its frames stay unnamed",
			  in->path, dump, why);
		return;
	}
	fd = outpath_unnamed();
	/* perf inject (as input_owner_as() says) writes its ELF files there and into FD */
	if (fd >= 0 && in->view && in->view->as.on &&
	    (give_to_perf(in, &in->jit_dir) || fchown(fd, in->view->as.uid, in->view->as.gid))) {
		close(fd);
		fd = -EPERM;
	}
	if (fd < 0) {	/* perf inject and perf script get it: their argv names it */
		diag_warn("%s: no file for perf inject --jit: %s", in->path, strerror(-fd));
		if (fd >= 0)
			close(fd);
		binaries_kept_remove(&in->jit_dir);
		return;
	}
	snprintf(in->jit_path, sizeof(in->jit_path), "/proc/self/fd/%d", fd);
	st = run_capture_in(in->jit_dir.fd, in->view, argv, said, sizeof(said));
	for (char *nl; (nl = strchr(said, '\n'));)
		*nl = ' ';
	if (st != 0 || strstr(said, "-k 1") || lseek(fd, 0, SEEK_END) <= 0) {
		diag_warn("%s: perf inject --jit could not use the jitdump %s (%s): the JIT's "
			  "frames stay unnamed%s", in->path, dump, said[0] ? said : "no output",
			  strstr(said, "-k 1") ? " (record with perf's -k mono, as snaptrace-record "
			  "does when sampling)" : "");
		close(fd);
		binaries_kept_remove(&in->jit_dir);
		in->jit_path[0] = 0;
		return;
	}
	in->jit_fd = fd;
}

/* Whether the user gave perf a kernel of their own (--perf-arg). */
static bool own_kernel(const struct input_perf *perf)
{
	static const char *const opts[] = { "--kallsyms", "--vmlinux", "-k", "--symfs" };

	for (size_t i = 0; i < perf->nargs; i++)
		for (size_t j = 0; j < sizeof(opts) / sizeof(opts[0]); j++)
			if (!strncmp(perf->args[i], opts[j], strlen(opts[j])))
				return true;
	return false;
}

/* Whether an event of IN records call chains (its sample_type has
 * PERF_SAMPLE_CALLCHAIN), or its events are not known. */
static bool records_chains(const struct input *in)
{
	for (size_t i = 0; i < in->nsample_types; i++)
		if (in->sample_types[i] & PERF_SAMPLE_CALLCHAIN)
			return true;
	return !in->nsample_types;
}

/*
 * The kernel symbols perf is given (docs/design.md "Kernel symbols"). A
 * recording made by root or the caller (its perf.data, and its recording
 * directory, theirs) is named from the running kernel's: sampled, the lines
 * of /proc/kallsyms its samples need (not with the user's perf arguments,
 * nor the recording's kept binaries: a kernel of their own). Another user's
 * could hold kernel samples at addresses of their choosing, and the trace
 * would tell them the running kernel's layout (kallsyms_show_value() hides
 * it from them): named from what the recording kept, else unnamed, said
 * once a conversion; a kernel the user gave perf stays theirs. Returns 0,
 * or a negative errno with ERRBUF one line (no table for perf, which would
 * then read the running kernel's).
 */
static int kernel_symbols(struct input *in, const struct input_perf *perf, char *errbuf,
			  size_t errlen)
{
	static bool said;
	uid_t owner = recording_owner(in->handle, perf->rec_dirfd, NULL);
	int kept;

	if (pathtrust_uid_ours(owner)) {
		if (in->opts.kind != PERFCMD_BRANCHES && !perf->nargs && !perf->buildid_dir &&
		    kallsyms_copy_make(in->handle, &in->kallsyms) > 0)
			in->opts.kallsyms = in->kallsyms.path;
		return 0;
	}
	if (own_kernel(perf))
		return 0;
	kept = kallsyms_copy_untrusted(in->handle, perf->buildid_dir, &in->kallsyms);
	if (kept >= 0) {
		int err = give_to_perf(in, &in->kallsyms.dir);

		kept = err ? err : kept;
	}
	if (kept < 0) {
		snprintf(errbuf, errlen, "%s: a recording of uid %d's: no private kernel symbol "
			 "table for perf, which would read the running kernel's: %s", in->path,
			 (int)owner, strerror(-kept));
		return kept;
	}
	in->opts.kallsyms = in->kallsyms.path;
	if (!kept && !said)
		diag_warn("%s: its kernel frames stay unnamed: a recording of uid %d's, neither "
			  "root's nor yours, named from the running kernel's symbols would show "
			  "that user its addresses", in->path, (int)owner);
	said = said || !kept;
	return 0;
}

static int run_perf_script(struct input *in, const struct input_perf *perf, char *errbuf,
			   size_t errlen)
{
	char out[sizeof(in->evlist)] = "intel_pt", why[400], prog[PATH_MAX];
	struct runas as;
	bool read = !ptsplit_intel_pt(in->handle);
	const char **paths = calloc(perf->nargs + 2, sizeof(*paths));
	int err;

	if (!paths) {
		snprintf(errbuf, errlen, "%s: out of memory", in->path);
		return -ENOMEM;
	}
	/* the paths perf is given: its program as found, the extra arguments */
	paths[0] = run_find_program(perf->perf, prog, sizeof(prog)) ? perf->perf : prog;
	for (size_t i = 0; i < perf->nargs; i++)
		paths[i + 1] = perf->args[i];
	err = input_owner_as(in->path, in->handle, perf->rec_dirfd, &as, errbuf, errlen);
	if (err) {
		free(paths);
		return err;
	}
	err = tmpview_make(in->handle, perf->rec_dirfd, &in->map_users, paths, &as, &in->view,
			   why, sizeof(why));
	free(paths);
	if (!err)
		err = debuglink_check(in->handle, perf->symfs,
				      &(struct runas_set){ &as, as.on ? 1 : 0 }, why,
				      sizeof(why));
	if (!err && as.on && !in->view) {
		snprintf(why, sizeof(why), "no view to run perf in as uid %d: perf would read it "
			 "as root", (int)as.uid);
		err = -EPERM;
	}
	if (err) {
		snprintf(errbuf, errlen, "%s: %s", in->path, why);
		return err;
	}

	/* perf's own answer only when the file does not say (a perf run costs
	 * ~25 ms: the events of its header, else perf evlist's) */
	if (read && perfdata_event_names(in->handle, out, sizeof(out)) &&
	    evlist(perf->perf, in->handle, in->view, out, sizeof(out))) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = 0;
		char shown[ESC_EXCERPT_SIZE];

		snprintf(errbuf, errlen, "%s: `%s evlist` failed (is perf installed, and the "
			 "file a perf.data?): %s", in->path, perf->perf,
			 esc_excerpt(shown, out, strlen(out)));
		return -EINVAL;
	}
	if (read) {
		memcpy(in->evlist, out, sizeof(out));
		int n = perfdata_sample_types(in->handle, in->sample_types, INPUT_MAX_EVENTS);

		in->nsample_types = n < 0 ? 0 : n < INPUT_MAX_EVENTS ? (size_t)n : INPUT_MAX_EVENTS;
		inject_jitdump(in, perf->perf);   /* sampling: recorded in perf's -k mono */
	}
	in->opts = (struct perfcmd_opts){
		.perf = in->jit_fd >= 0 ? in->jit_perf : perf->perf,
		.input = in->jit_fd >= 0 ? in->jit_path : in->handle,
		.extra = perf->args, .nextra = perf->nargs,
		.buildid_dir = perf->buildid_dir ? perf->buildid_dir : PERFCMD_NO_BUILDID_CACHE,
		.kind = strstr(out, "intel_pt") ? PERFCMD_BRANCHES :
			strstr(out, "sched:sched_switch") || strstr(out, "signal:signal_deliver") ?
			PERFCMD_SCHED : PERFCMD_SAMPLES,
	};
	/* the processes' mappings, from what perf script reads, for the junk
	 * rule of call chains: not read when no event records one (Intel PT's
	 * branches), a walk of the whole perf.data for nothing */
	err = records_chains(in) ? conv_maps_read(in->opts.input, &in->maps) : 0;
	if (err == -ENOMEM) {
		snprintf(errbuf, errlen, "%s: out of memory", in->path);
		return err;
	}
	if (in->opts.kind == PERFCMD_BRANCHES && !perf->perf_decoder) {
		char why[512];

		/* a recording's kept binaries are perf's build-id cache: perf's; another
		 * user's recording names files perf opens as that user, the decoder here
		 * as the caller (docs/design.md "Threat model") */
		err = perf->buildid_dir || as.on ? 1 : ptdecode_open(in->handle, perf->symfs,
								     perf->jobs, &in->pt, why,
								     sizeof(why));
		if (perf->buildid_dir)
			snprintf(why, sizeof(why), "the recording's kept binaries (perf --buildid-dir)");
		else if (as.on)
			snprintf(why, sizeof(why), "a recording of uid %d's, whose files perf opens as "
				 "that user", (int)as.uid);
		if (err == 0) {
			in->size = 0;
			return 0;
		}
		if (err < 0) {
			snprintf(errbuf, errlen, "%s: %s", in->path, why);
			return err;
		}
		/* one line, and perf script decodes it (docs/design.md "Decoding") */
		diag_info("%s: decoding through perf script: %s", in->path, why);
	}
	if (in->opts.kind == PERFCMD_BRANCHES && !perf->no_dlfilter &&
	    dlfilter_usable(in, perf->perf))
		in->opts.dlfilter = in->dlfilter;
	err = kernel_symbols(in, perf, errbuf, errlen);
	if (err)
		return err;
	err = make_parts(in, perf->jobs);
	if (err) {
		char why[160];

		snprintf(errbuf, errlen, "%s: cannot run %s: %s", in->path, perf->perf,
			 input_start_words(in, err, why, sizeof(why)));
		return err;
	}
	in->size = 0;
	return 0;
}

/* perf script ended with no output while given the dlfilter: when it
 * failed (a perf that refuses --dlfilter, or cannot load it), runs it again
 * without, as one range (text would spool gigabytes). Returns 1 when it was
 * restarted, 0 when not, or a negative errno. */
static int without_dlfilter(struct input *in)
{
	struct part *p = &in->parts[0];
	char said[400] = "", shown[ESC_EXCERPT_SIZE], how[96];
	int err;

	p->status = run_wait(p->perf);
	p->reaped = true;
	if (p->status == 0)
		return 0;
	if (p->perf_err) {
		fflush(p->perf_err);
		perf_said(p->perf_err, said, sizeof(said));
	}
	diag_info("%s: perf script failed with the dlfilter (%s%s%s): decoding "
		  "through text", in->path, run_status_words(p->status, how, sizeof(how)),
		  said[0] ? ": " : "",
		  esc_excerpt(shown, said, strlen(said)));
	while (in->nparts > 1)
		part_end(&in->parts[--in->nparts]);
	in->opts.dlfilter = NULL;
	perfcmd_build(&p->cmd, &in->opts);
	err = spawn(in, p);
	return err ? err : 1;
}

/* Does HEAD (N bytes) hold a binary record of the dlfilter at a line's
 * start (a saved output of perf script --dlfilter snaptrace-dlfilter.so)? */
static bool holds_binrec(const char *head, size_t n)
{
	for (size_t i = 0; i + sizeof(struct binrec_header) <= n; i++)
		if (head[i] == BINREC_MARK && (i == 0 || head[i - 1] == '\n'))
			return head[i + 1] >= BINREC_STRING && head[i + 1] <= BINREC_VERSION;
	return false;
}

/*
 * The first bytes of the pipe FD, up to SIZE into HEAD, left in the pipe for
 * the reader (tee(2) copies them into a pipe of our own); waits for the
 * writer's first write. Returns how many: 0 at its end or on an error (the
 * reader then meets it).
 */
static ssize_t pipe_peek(int fd, char *head, size_t size)
{
	int p[2];
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return 0;
	do
		n = tee(fd, p[1], size, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		n = read(p[0], head, (size_t)n);
	close(p[0]);
	close(p[1]);
	return n > 0 ? n : 0;
}

static void input_free(struct input *in)
{
	ptdecode_close(in->pt);
	for (size_t k = 0; k < in->nparts; k++)
		part_end(&in->parts[k]);
	free(in->parts);
	ptsplit_free(&in->split);
	if (in->jit_fd >= 0)
		close(in->jit_fd);
	binaries_kept_remove(&in->jit_dir);
	kallsyms_copy_free(&in->kallsyms);
	tmpview_free(in->view);
	conv_maps_free(in->maps);
	free(in);
}

int input_open(const char *path, int fd, const struct input_perf *perf, struct input **out,
	       char *errbuf, size_t errlen)
{
	struct input *in = calloc(1, sizeof(*in));
	struct stat st;
	int err;

	if (!in) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	in->path = path;
	in->fd = fd;
	in->jit_fd = -1;
	in->jit_dir = BINARIES_KEPT_NONE;
	in->kallsyms.dir = in->jit_dir;
	inpath_proc(fd, in->handle, sizeof(in->handle));
	if (perf->rec && perf->rec->has_uids)	/* none told: nobody's */
		in->map_users = (struct perfmap_users){ perf->rec->uids, perf->rec->nuids,
							(uid_t)-1, false };
	else
		in->map_users.owner = recording_owner(in->handle, perf->rec_dirfd, NULL);
	if (fstat(in->fd, &st))
		st.st_mode = 0;	/* unknown: read it as a stream */
	if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) {
		char head[1 << 16];	/* where a saved dlfilter output shows its first record */
		ssize_t n = S_ISREG(st.st_mode) ? pread(in->fd, head, sizeof(head), 0)
						: pipe_peek(in->fd, head, sizeof(head));

		in->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		err = -EMEDIUMTYPE;
		if (n >= 7 && !memcmp(head, "PERFILE", 7) && S_ISFIFO(st.st_mode)) {
			/* perf reads a perf.data from a file (it seeks), ours
			 * a pipe-mode one too, through its handle */
			snprintf(errbuf, errlen, "%s: a perf.data from a pipe: give it as a file",
				 path);
			goto fail;
		} else if (n >= 7 && !memcmp(head, "PERFILE", 7)) {
			in->fd = -1;	/* perf reads it, through the handle */
			err = run_perf_script(in, perf, errbuf, errlen);
			if (err)
				goto fail;
		} else if (n > 0 && S_ISREG(st.st_mode) && holds_binrec(head, (size_t)n)) {
			in->binrec = true;
		} else if (n > 0 && S_ISREG(st.st_mode) && memchr(head, 0, (size_t)n)) {
			snprintf(errbuf, errlen, "%s: a binary file, expected a perf.data or perf "
				 "script text", path);
			goto fail;
		}
	} else if (S_ISDIR(st.st_mode)) {
		err = -EMEDIUMTYPE;
		snprintf(errbuf, errlen, "%s: is a directory, expected a perf.data or text file",
			 path);
		goto fail;
	}
	*out = in;
	return 0;
fail:
	input_free(in);
	return err;
}

/* Reads from a spool file that its perf may still be writing: at its end,
 * waits for more or for perf's exit. Returns as read(). */
static ssize_t read_spool(struct part *p, char *buf, size_t cap)
{
	struct run_stopwatch w = { 0, 0 };

	for (;;) {
		ssize_t r = pread(p->fd, buf, cap, (off_t)p->off);

		if (r > 0) {
			p->off += (uint64_t)r;
			return r;
		}
		if (r < 0 && errno != EINTR)
			return r;
		if (r == 0 && p->reaped)
			return 0;
		if (r == 0) {
			int st = run_try_wait(p->perf);

			if (st == -EAGAIN && run_held_stopped(p->perf, &w)) {
				errno = ETIME;
				return -1;
			} else if (st == -EAGAIN) {
				struct timespec ts = { 0, SPOOL_POLL_NS };

				nanosleep(&ts, NULL);
			} else {
				p->status = st;	/* what it wrote before it ended is read next */
				p->reaped = true;
			}
		}
	}
}

/* Who may stop IN's perf, in WHO (WHO_SIZE bytes), which it returns: "; it
 * runs as uid N, who may stop it" where it runs as the recording's owner,
 * else "" (run.h's words: after "a stop signal or a debugger"). */
static const char *stopper(const struct input *in, char *who, size_t who_size)
{
	who[0] = 0;
	if (in->view && in->view->as.on)
		snprintf(who, who_size, "; it runs as uid %u, who may stop it",
			 (unsigned)in->view->as.uid);
	return who;
}

/* Says into ERRBUF that part P's perf script stayed stopped (run.h). */
static void stopped_said(const struct input *in, const struct part *p, char *errbuf,
			 size_t errlen)
{
	char who[64];

	snprintf(errbuf, errlen, "perf script (pid %d) stopped for %d s (a stop signal or a "
		 "debugger%s): given up", (int)run_stopped(p->perf), RUN_STOPPED_MS / 1000,
		 stopper(in, who, sizeof(who)));
}

const char *input_start_words(const struct input *in, int err, char *buf, size_t size)
{
	char who[64];

	return run_start_words(err, in->start_stopped, stopper(in, who, sizeof(who)), buf, size);
}

long input_read(struct input *in, char *buf, size_t cap, char *errbuf, size_t errlen)
{
	struct part *p = in->nparts ? &in->parts[in->cur] : NULL;
	int fd = p ? p->fd : in->fd;
	ssize_t r;

	if (p && p->spool) {
		r = read_spool(p, buf, cap);
	} else if (p) {
		r = run_read(p->perf, fd, buf, cap);
	} else {
		do
			r = read(fd, buf, cap);
		while (r < 0 && errno == EINTR);
	}
	if (r < 0 && errno == ETIME) {
		stopped_said(in, p, errbuf, errlen);
		return -ETIME;
	}
	if (r < 0) {
		snprintf(errbuf, errlen, "%s", strerror(errno));
		return -errno;
	}
	if (r == 0 && p && p->cmd.dlfilter_arg && in->bytes == 0 && in->cur == 0) {
		int again = without_dlfilter(in);

		if (again < 0) {
			char why[160];

			snprintf(errbuf, errlen, "cannot run perf again: %s",
				 input_start_words(in, again, why, sizeof(why)));
			return again;
		}
		if (again)
			return input_read(in, buf, cap, errbuf, errlen);
	}
	if (r == 0 && p)
		p->eof = true;
	in->bytes += (uint64_t)r;
	return (long)r;
}

void input_psb_seen(struct input *in, uint64_t time)
{
	struct part *p = in->nparts > 1 ? &in->parts[in->cur] : NULL;
	size_t n;

	if (!p || p->resumes)
		return;
	n = psbs_upto(&in->split, time);
	if (n && in->split.psbs[n - 1] == time)
		p->psbs_seen++;
	else
		p->psb_astray = true;
}

/*
 * The ranges after part K cannot be read as they are (its psb events do not
 * show perf's decoder at its PSBs' times: a damaged timing packet). Stops
 * their perf and reads on from the whole run's perf script, from the time
 * after part K's range: what -j 1 shows there. Returns 0 or a negative errno.
 */
static int resume_whole(struct input *in, size_t k)
{
	struct part *next = &in->parts[k + 1];
	struct perfcmd_opts o = in->opts;

	diag_info("%s: -j: the rest after %llu.%09llu s is decoded in one range: perf's times "
		  "there do not match the PSB packets' (a damaged timing packet)", in->path,
		  (unsigned long long)(in->parts[k].last / 1000000000u),
		  (unsigned long long)(in->parts[k].last % 1000000000u));
	while (in->nparts > k + 1)
		part_end(&in->parts[--in->nparts]);
	memset(next, 0, sizeof(*next));
	perfcmd_build(&next->cmd, &o);
	next->fd = -1;
	next->first = in->parts[k].last + 1;
	next->last = UINT64_MAX;
	next->resumes = true;
	next->cwd_fd = in->parts[k].cwd_fd;
	next->view = in->view;
	in->nparts = k + 2;
	return spawn(in, next);
}

int input_next_part(struct input *in)
{
	struct part *p = in->nparts ? &in->parts[in->cur] : NULL;
	int err;

	if (!p || in->cur + 1 >= in->nparts || !p->eof)
		return 0;
	if (p->psbs_seen != p->psbs_due || p->psb_astray) {
		err = resume_whole(in, in->cur);
		if (err)
			return err;
	}
	in->cur++;
	return 1;
}

bool input_part_range(const struct input *in, uint64_t *first, uint64_t *last, bool *resumes)
{
	const struct part *p = in->nparts > 1 ? &in->parts[in->cur] : NULL;

	if (!p)
		return false;
	*first = p->first;
	*last = p->last;
	*resumes = p->resumes;
	return true;
}

struct ptdecode *input_ptdecode(const struct input *in)
{
	return in->pt;
}

bool input_binstream(const struct input *in)
{
	return (in->nparts && in->parts[0].cmd.dlfilter_arg) || in->binrec;
}

uint64_t input_bytes(const struct input *in)
{
	return in->bytes;
}

uint64_t input_size(const struct input *in)
{
	return in->size;
}

const struct perfcmd *input_perf_command(const struct input *in, size_t k)
{
	return k < in->nparts ? &in->parts[k].cmd : NULL;
}

/* Reads what perf script wrote to stderr into BUF as one line: its lines
 * joined by a space, blank ones dropped, cut at SIZE. */
/* What perf's own warnings mean for the trace, where perf's words say
 * what to check on the host instead: a line of perf's (found anywhere in
 * what it said) and the words appended. */
static const struct {
	const char *says, *means;
} perf_warnings[] = {
	/* perf script counts the PERF_RECORD_LOST records of the file */
	{ " chunks!", " (what this means: while recording, perf's ring buffer was full and "
	  "the kernel dropped events that many times; the trace has a gap at each, where "
	  "samples, switches or maps are missing; a larger --snapshot-size, a lower "
	  "--sampling-freq or fewer --event make it rarer)" },
	{ " samples!", " (what this means: the kernel dropped that many samples while "
	  "recording, perf's ring buffer being full: the trace has fewer samples there)" },
	/* perf 6.x: "Processed N samples and lost P%!", from the
	 * PERF_RECORD_LOST_SAMPLES records perf record writes at its end with
	 * each event's lost count over the whole recording, into its last file
	 * only (--switch-output: the last snapshot), P against that file's own
	 * samples */
	{ "%!", " (what this means: perf record writes, at its end, how many samples the "
	  "kernel dropped over the whole recording into its last file, and perf script "
	  "counts them against that file's samples alone: a last snapshot with few or no "
	  "samples, as the one taken at the program's exit, shows up to 100%; the samples "
	  "dropped came while perf paused a snapshot's ring to write it, or filled a ring: "
	  "fewer with --callgraph fp (~115 bytes a sample, dwarf's ~8 KiB) or a lower "
	  "--sampling-freq)" },
};

/* The words perf_warnings[] appends to SAID, or "". */
static const char *perf_means(const char *said)
{
	for (size_t i = 0; i < sizeof(perf_warnings) / sizeof(perf_warnings[0]); i++)
		if (strstr(said, perf_warnings[i].says))
			return perf_warnings[i].means;
	return "";
}

static void perf_said(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c, last = ' ';

	buf[0] = 0;
	rewind(f);
	while ((c = getc(f)) != EOF && n + 4 < size) {
		if (c == '\n' || c == '\t' || c == '\r')
			c = ' ';
		if (c == ' ' && last == ' ')
			continue;
		buf[n++] = (char)c;	/* escaped where it is printed (diag.h) */
		last = c;
	}
	if (c != EOF)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
}

int input_close(struct input *in, char *errbuf, size_t errlen)
{
	int rc = 0;

	/* A failure of any range is the input's; else the first range's words. */
	for (size_t k = 0; k < in->nparts; k++) {
		struct part *p = &in->parts[k];
		char said[400] = "";
		bool ended = p->eof;
		int st;

		if (p->fd >= 0)
			close(p->fd);
		p->fd = -1;
		st = p->reaped ? p->status : ended ? run_wait(p->perf) : run_end(p->perf);
		p->reaped = true;
		if (p->perf_err)
			perf_said(p->perf_err, said, sizeof(said));
		if (st != 0 && ended && rc >= 0) {
			char how[96];

			snprintf(errbuf, errlen, "%s: perf script%s%s %s%s%s", in->path,
				 in->nparts > 1 ? " --time " : "", in->nparts > 1 ? p->cmd.time : "",
				 run_status_words(st, how, sizeof(how)), said[0] ? ": " : "", said);
			rc = -1;
		} else if (said[0] && rc == 0) {
			snprintf(errbuf, errlen, "%s: perf script: %s%s", in->path, said,
				 perf_means(said));
			rc = 1;
		}
	}
	input_free(in);
	return rc;
}

const struct perfmap_users *input_perfmap_users(const struct input *in)
{
	return &in->map_users;
}

const struct conv_maps *input_maps(const struct input *in)
{
	return in->maps;
}

int input_dso_dir(const struct input *in)
{
	return in->jit_fd >= 0 ? in->jit_dir.fd : -1;
}

const char *input_evlist(const struct input *in)
{
	return in->evlist;
}

const uint64_t *input_sample_types(const struct input *in, size_t *n)
{
	*n = in->nsample_types;
	return in->sample_types;
}
