/* SPDX-License-Identifier: MIT */
#include "jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inpath.h"
#include "runas.h"
#include "outpath.h"
#include "perfdata.h"

/* The base name of FILE when it is jit-NUMBER.dump (perf's jit_detect(),
 * which also wants a '/' before it), else NULL. */
static const char *jitdump_base(const char *file)
{
	const char *base = strrchr(file, '/');
	char *end;

	if (!base || strncmp(base + 1, "jit-", 4) || base[5] < '0' || base[5] > '9')
		return NULL;
	strtoul(base + 5, &end, 10);
	return strcmp(end, ".dump") ? NULL : base + 1;
}

struct find {
	char *dump;
	size_t size;
};

/* perfdata_mmaps()'s callback: the first jitdump into F->dump. */
static int is_jitdump(void *arg, const struct perfdata_mmap *m)
{
	struct find *f = arg;
	const char *file = m->file;

	if (!jitdump_base(file) || strlen(file) >= f->size)
		return 0;
	strcpy(f->dump, file);
	return 1;
}

int jitdump_find(const char *path, char *dump, size_t size)
{
	struct find f = { dump, size };

	return perfdata_mmaps(path, is_jitdump, &f) == 1;
}

struct patch {
	int fd;                  /* the perf.data copy, read-write */
	int err;                 /* the first write's failure, or 0 */
};

/* perfdata_mmaps()'s callback: a jitdump's name at AT becomes "./BASE",
 * NUL-padded over the name's bytes, or all NULs when it does not fit. */
static int relocate(void *arg, const struct perfdata_mmap *m)
{
	struct patch *p = arg;
	const char *base = jitdump_base(m->file);
	size_t len = strlen(m->file) + 1;
	char name[PATH_MAX] = "";

	if (!base)
		return 0;
	if (strlen(base) + 3 <= len)
		snprintf(name, sizeof(name), "./%s", base);
	if (pwrite(p->fd, name, len, (off_t)m->at) != (ssize_t)len) {
		p->err = errno ? -errno : -EIO;
		return 1;
	}
	return 0;
}

/* Copies regular file FROM (opened and checked) as NAME into K. */
static int copy_in(struct binaries_kept *k, const char *name, int from)
{
	struct stat st;

	if (fstat(from, &st))
		return -errno;
	return outpath_copy_at(k->fd, name, from, st.st_size, 0600);
}

/* Whether the jitdump DUMP and the perf.data DATA (open) are more than a
 * conversion copies (PERFDATA_BINARIES_BYTES_MAX in all: a copy writes a
 * sparse file's holes out). Returns 0, or -EFBIG with WHY. */
static int too_large(int dump, int data, char *why, size_t wsize)
{
	struct stat a, b;

	if (fstat(dump, &a) || fstat(data, &b))
		return 0;	/* the copy says why */
	if ((uint64_t)a.st_size + (uint64_t)b.st_size <= (uint64_t)PERFDATA_BINARIES_BYTES_MAX)
		return 0;
	snprintf(why, wsize, "%lld bytes with the perf.data, more than the %lld GiB a conversion "
		 "copies at most", (long long)a.st_size + (long long)b.st_size,
		 PERFDATA_BINARIES_BYTES_MAX >> 30);
	return -EFBIG;
}

int jitdump_private(const char *perfdata, const char *dump, const struct runas *as,
		    struct binaries_kept *k, char *why, size_t wsize)
{
	char no[300], handle[32];
	struct patch p = { .fd = -1 };
	struct runas_set who = { as, as ? 1 : 0 };
	int fd = runas_open(&who, AT_FDCWD, dump, 0, no, sizeof(no)), data = -1, err;

	*k = BINARIES_KEPT_NONE;
	if (fd < 0) {
		snprintf(why, wsize, "%s", no);
		return fd;
	}
	data = inpath_open(AT_FDCWD, perfdata, 0, no, sizeof(no));
	if (data < 0) {
		err = data;
		snprintf(why, wsize, "%s: %s", perfdata, no);
	} else if ((err = too_large(fd, data, why, wsize)) || (err = binaries_kept_dir(k))) {
		if (err != -EFBIG)
			snprintf(why, wsize, "no private directory to copy it into: %s",
				 strerror(-err));
	} else if ((err = copy_in(k, jitdump_base(dump), fd)) ||
		   (err = copy_in(k, JITDUMP_PERFDATA, data))) {
		snprintf(why, wsize, "cannot copy it: %s", strerror(-err));
	} else if ((p.fd = openat(k->fd, JITDUMP_PERFDATA, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		err = -errno;
		snprintf(why, wsize, "cannot reopen its perf.data copy: %s", strerror(errno));
	} else if ((err = perfdata_mmaps(inpath_proc(p.fd, handle, sizeof(handle)), relocate,
					 &p)) < 0 || (err = p.err)) {
		snprintf(why, wsize, "cannot rename it in the perf.data copy: %s",
			 strerror(-err));
	}
	if (p.fd >= 0)
		close(p.fd);
	if (data >= 0)
		close(data);
	close(fd);
	if (err)
		binaries_kept_remove(k);
	return err;
}
