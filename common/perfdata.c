/* SPDX-License-Identifier: MIT */
#include "perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_perf_data(const struct dirent *d)
{
	return !strncmp(d->d_name, "perf.data", 9);
}

int perfdata_scan(const char *dir, char ***paths)
{
	struct dirent **ents = NULL;
	int nents = scandir(dir, &ents, is_perf_data, alphasort), n = 0;
	char **v;

	*paths = NULL;
	if (nents < 0)
		return -errno;
	v = calloc((size_t)nents + 1, sizeof(*v));
	for (int i = 0; i < nents; i++) {
		struct stat st;
		char *path;

		if (v && asprintf(&path, "%s/%s", dir, ents[i]->d_name) >= 0) {
			if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
				v[n++] = path;
			else
				free(path);
		}
		free(ents[i]);
	}
	free(ents);
	if (!v)
		return -ENOMEM;
	*paths = v;
	return n;
}

/* perf's struct perf_file_header (tools/perf/util/header.h): the magic,
 * its own size, the size of one attribute, the sections attrs, data and
 * event_types (offset, size each), then the feature bitmap. */
#define HEADER_SIZE 104
#define HEADER_SIZE_NO_FEATURES 72   /* an older perf's: no feature bitmap */
#define PIPE_HEADER_SIZE 16          /* struct perf_pipe_file_header: a stream */
#define FEAT_BITS 256                /* HEADER_FEAT_BITS */
#define SECTION_SIZE 16              /* struct perf_file_section: offset, size */

/* The magic as a little-endian and as a big-endian perf writes it. */
static const char magic_le[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
static const char magic_be[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };

/* The u64 at P in the file's byte order (BIG: big-endian). */
static uint64_t get64(const unsigned char *p, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
	return v;
}

/* OFF + LEN, or UINT64_MAX where that overflows (never within a file). */
static uint64_t end_of(uint64_t off, uint64_t len)
{
	return off + len < off ? UINT64_MAX : off + len;
}

/* A stretch of the file that its header describes. */
struct region {
	const char *name;
	uint64_t start, end;
};

/* The region of R (N of them) that a file of SIZE bytes cuts short: the one
 * holding byte SIZE, else the first to end past it; NULL when none. */
static const struct region *cut_region(const struct region *r, size_t n, uint64_t size)
{
	const struct region *cut = NULL;

	for (size_t i = 0; i < n; i++) {
		if (r[i].end <= size)
			continue;
		if (r[i].start <= size)
			return &r[i];
		if (!cut || r[i].end < cut->end)
			cut = &r[i];
	}
	return cut;
}

/* What a file of FSIZE bytes whose first N bytes are H (at most
 * HEADER_SIZE) is, as perfdata_check() says it; FD is read for the
 * feature section table. */
static enum perfdata_state verdict(int fd, const unsigned char *h, size_t n, uint64_t fsize,
				   char *why, size_t size)
{
	unsigned char table[FEAT_BITS * SECTION_SIZE];
	bool big = !memcmp(h, magic_be, n < 8 ? n : 8), zero = true;
	uint64_t hsize, nfeat = 0, feat_at, feat_end;
	struct region r[3];
	const struct region *cut;

	for (size_t i = 0; i < n; i++)
		zero &= !h[i];
	if (n == 0) {
		snprintf(why, size, "empty");
		return PERFDATA_OTHER;
	}
	/* perf writes the header last: a file it did not finish has none */
	if (zero) {
		snprintf(why, size, "its header was never written (zero bytes)");
		return PERFDATA_UNFINISHED;
	}
	if (memcmp(h, big ? magic_be : magic_le, n < 8 ? n : 8)) {
		snprintf(why, size, "not a perf.data (no PERFILE2 header)");
		return PERFDATA_OTHER;
	}
	hsize = n >= 16 ? get64(h + 8, big) : 0;
	if (hsize == PIPE_HEADER_SIZE)
		return PERFDATA_FINISHED;
	if (n < 16 || (n < HEADER_SIZE && n < hsize)) {
		snprintf(why, size, "cut short inside its header (%zu of its %d bytes)", n,
			 HEADER_SIZE);
		return PERFDATA_UNFINISHED;
	}
	if ((hsize != HEADER_SIZE && hsize != HEADER_SIZE_NO_FEATURES) || !get64(h + 16, big)) {
		snprintf(why, size, "its header is not one perf finished (header size %llu, "
			 "attribute size %llu)", (unsigned long long)hsize,
			 (unsigned long long)get64(h + 16, big));
		return PERFDATA_UNFINISHED;
	}
	if (!get64(h + 48, big)) {
		/* perf's own words: "data size field is 0 ... properly terminated?" */
		snprintf(why, size, "its header's data size is 0 (perf never finished it)");
		return PERFDATA_UNFINISHED;
	}
	for (int i = 0; hsize == HEADER_SIZE && i < FEAT_BITS / 64; i++)
		nfeat += (uint64_t)__builtin_popcountll(get64(h + 72 + 8 * i, big));
	feat_at = end_of(get64(h + 40, big), get64(h + 48, big));
	feat_end = end_of(feat_at, nfeat * SECTION_SIZE);
	if (feat_end <= fsize &&
	    pread(fd, table, nfeat * SECTION_SIZE, (off_t)feat_at) == (ssize_t)(nfeat * SECTION_SIZE))
		for (uint64_t i = 0; i < nfeat; i++) {
			uint64_t e = end_of(get64(table + i * SECTION_SIZE, big),
					    get64(table + i * SECTION_SIZE + 8, big));

			feat_end = e > feat_end ? e : feat_end;
		}
	r[0] = (struct region){ "attributes", get64(h + 24, big),
				end_of(get64(h + 24, big), get64(h + 32, big)) };
	r[1] = (struct region){ "data section", get64(h + 40, big), feat_at };
	r[2] = (struct region){ "feature sections", feat_at, feat_end };
	cut = cut_region(r, 3, fsize);
	if (!cut)
		return PERFDATA_FINISHED;
	snprintf(why, size, "cut short inside its %s (ending at byte %llu; the file ends "
		 "at byte %llu)", cut->name, (unsigned long long)cut->end, (unsigned long long)fsize);
	return PERFDATA_UNFINISHED;
}

enum perfdata_state perfdata_check(const char *path, char *why, size_t size)
{
	unsigned char h[HEADER_SIZE];
	enum perfdata_state state;
	struct stat st;
	ssize_t n = -1;
	int fd = -1;

	/* a FIFO, a device or standard input is never waited on, nor read */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(why, size, "not a regular file");
		return PERFDATA_OTHER;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st))
		n = pread(fd, h, sizeof(h), 0);
	if (n < 0) {
		snprintf(why, size, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return PERFDATA_UNREADABLE;
	}
	state = verdict(fd, h, (size_t)n, (uint64_t)st.st_size, why, size);
	close(fd);
	return state;
}
