/* SPDX-License-Identifier: MIT */
/* perfmaps: a JIT's perf maps kept in the recording (see perfmaps.h). */
#include "perfmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "inpath.h"
#include "perfmap.h"

/* Copies FD (SIZE bytes) into NAME, new in OUTDIR_FD. Returns 0 or a negative errno. */
static int copy_into(int fd, off_t size, int outdir_fd, const char *name)
{
	char buf[65536];
	off_t done = 0;
	ssize_t r = 0;
	int out = openat(outdir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 0600);

	if (out < 0)
		return -errno;
	while (done < size && (r = read(fd, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)r) != r) {
			r = -1;
			break;
		}
		done += r;
	}
	if (r < 0 || close(out)) {
		int err = -errno;

		unlinkat(outdir_fd, name, 0);
		return err ? err : -EIO;
	}
	return 0;
}

int rec_perfmaps_keep(int outdir_fd, const pid_t *pids, int npids)
{
	struct perfmap_budget budget = { 0 };
	int kept = 0;

	for (int i = 0; i < npids; i++) {
		char path[64], name[64], why[200];
		struct stat st;
		int fd, err;

		snprintf(name, sizeof(name), PERFMAP_KEPT, (int)pids[i]);
		fd = perfmap_open(pids[i], INPATH_OWNED, path, sizeof(path), why, sizeof(why));
		if (fd == -ENOENT)
			continue;   /* no JIT there */
		if (fd < 0) {
			diag_warn("%s: not kept in the recording: %s", path, why);
			continue;
		}
		err = fstat(fd, &st) ? -errno : 0;
		if (!err && (uint64_t)st.st_size > PERFMAP_MAX)
			diag_warn("%s: not kept in the recording: %lld bytes, more than %u",
				  path, (long long)st.st_size, PERFMAP_MAX);
		else if (!err && perfmap_budget_take(&budget, (uint64_t)st.st_size)) {
			err = copy_into(fd, st.st_size, outdir_fd, name);
			if (err)
				diag_warn("%s: not kept in the recording: %s", path, strerror(-err));
			else
				kept++;
		}
		close(fd);
	}
	perfmap_budget_warn(&budget, "not kept in the recording");
	return kept;
}
