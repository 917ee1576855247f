/* SPDX-License-Identifier: MIT */
#include "keepbin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "buildcache.h"
#include "diag.h"
#include "inpath.h"
#include "perfdata.h"

/* The binaries rec_keep_binaries() has seen (paths, owned), each once. */
struct kept {
	char **path;
	size_t n, cap;
	int copied;
	long long bytes;        /* still allowed (PERFDATA_BINARIES_BYTES_MAX) */
	int dirfd;              /* the cache: OUTDIR/PERFDATA_BINARIES_DIR; -1: not made */
	char shown[PATH_MAX];   /* the cache, for messages */
};

/*
 * Keeps the binary PATH a snapshot names with build id HEX (a file: not
 * [kernel.kallsyms], [vdso]) in the build-id cache K->dirfd, once: opened once
 * (inpath_open(): a regular file, reached as the kernel's
 * fs.protected_symlinks allows), its build id checked against HEX, and
 * copied from that descriptor (buildcache.h). PATH is another user's name:
 * nothing opens it again, so a file swapped meanwhile changes nothing.
 */
static int keep_one(void *arg, const char *hex, const char *path)
{
	struct kept *k = arg;
	char why[160], now[REC_BUILD_ID_HEX + 1];
	struct stat st;
	void *p;
	int fd, err;

	if (path[0] != '/' || strlen(hex) < 3)
		return 0;
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->path[i], path))
			return 0;
	if (!(p = array_grow(k->path, &k->cap, k->n, sizeof(*k->path))) ||
	    !(((char **)p)[k->n] = strdup(path))) {
		k->path = p ? p : k->path;
		return -ENOMEM;
	}
	k->path = p;
	k->n++;
	fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	if (fd < 0) {
		diag_warn("%s: not kept in %s: %s", path, k->shown, why);
		return 0;
	}
	if (fstat(fd, &st)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
	} else if (rec_build_id(fd, now)) {
		snprintf(why, sizeof(why), "no ELF file");
	} else if (!perfdata_same_buildid(hex, now)) {
		snprintf(why, sizeof(why), "changed since the recording (its build id is %s, the "
			 "recording's %s)", now[0] ? now : "none", hex);
	} else if (st.st_size > k->bytes) {
		snprintf(why, sizeof(why), "%lld bytes, past the %lld GiB the kept binaries may "
			 "take in all", (long long)st.st_size, PERFDATA_BINARIES_BYTES_MAX >> 30);
	} else if ((err = rec_build_cache_add(k->dirfd, path, fd, &st, now)) && err != -EEXIST) {
		snprintf(why, sizeof(why), "%s", strerror(-err));
	} else {
		why[0] = 0;
		k->bytes -= err ? 0 : st.st_size;
		k->copied++;
	}
	close(fd);
	if (why[0])
		diag_warn("%s: not kept in %s: %s", path, k->shown, why);
	return 0;
}

int rec_keep_binaries(const char *outdir, int outdir_fd, const struct rec_snap *snaps, int nsnaps)
{
	struct kept k = { .dirfd = -1, .bytes = PERFDATA_BINARIES_BYTES_MAX };
	char path[32], why[256];

	snprintf(k.shown, sizeof(k.shown), "%.3000s/%s", outdir, PERFDATA_BINARIES_DIR);
	if ((mkdirat(outdir_fd, PERFDATA_BINARIES_DIR, 0755) && errno != EEXIST) ||
	    (k.dirfd = openat(outdir_fd, PERFDATA_BINARIES_DIR,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		diag_warn("%s: no binaries kept: %s", k.shown, strerror(errno));
		return -1;
	}
	for (int i = 0; i < nsnaps; i++) {
		int fd;

		if (!snaps[i].file[0] || snaps[i].problem[0])
			continue;
		fd = inpath_open(outdir_fd, snaps[i].file, INPATH_NOFOLLOW, why, sizeof(why));
		if (fd < 0)
			continue;
		if (perfdata_buildids(inpath_proc(fd, path, sizeof(path)), keep_one, &k, why,
				      sizeof(why)) == -ENOMEM)
			diag_warn("out of memory: not every binary kept");
		close(fd);
	}
	close(k.dirfd);
	for (size_t i = 0; i < k.n; i++)
		free(k.path[i]);
	free(k.path);
	return k.copied;
}
