/* SPDX-License-Identifier: MIT */
/* sideband: a recording's side-band carried into later snapshots (see sideband.h). */
#include "sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outpath.h"
#include "perfdata.h"

/* Whether REC (a perf_event_header first) is a side-band record. */
static bool is_sideband(const unsigned char *rec)
{
	uint32_t type;

	memcpy(&type, rec, 4);
	return type == PERFDATA_REC_COMM || type == PERFDATA_REC_MMAP ||
	       type == PERFDATA_REC_MMAP2 || type == PERFDATA_REC_FORK;
}

/* Appends N bytes at P to *BUF (*LEN used of *CAP). Returns 0 or -ENOMEM. */
static int append(unsigned char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (!n)
		return 0;   /* nothing: P may be NULL */
	if (*len + n > SIDEBAND_MAX)
		return -ENOMEM;
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 4096;
		void *q;

		while (c < *len + n)
			c *= 2;
		q = realloc(*buf, c);
		if (!q)
			return -ENOMEM;
		*buf = q;
		*cap = c;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

int sideband_scan(struct sideband *sb, const char *path, const int64_t *pids, size_t npids)
{
	struct perfdata_records *r = malloc(sizeof(*r));
	struct perfdata_header h;
	const unsigned char *rec;
	size_t named = 0;
	uint64_t seen = 0;   /* bit i: a COMM of pids[i] (the first 64) */
	int fd, err;

	sb->mine_len = 0;
	sb->complete = false;
	if (!r)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : perfdata_header_read(fd, &h);
	if (!err)
		perfdata_records_start(r, fd, &h);
	while (!err && (rec = perfdata_record_next(r, &err))) {
		uint16_t size;
		uint32_t pid;

		if (!is_sideband(rec))
			continue;
		memcpy(&size, rec + 6, 2);
		err = append(&sb->mine, &sb->mine_len, &sb->mine_cap, rec, size);
		memcpy(&pid, rec + 8, 4);   /* a COMM's pid, then tid */
		for (size_t i = 0; i < npids && i < 64 && rec[0] == PERFDATA_REC_COMM; i++)
			if (pids[i] == (int64_t)pid && !(seen >> i & 1)) {
				seen |= 1ull << i;
				named++;
			}
	}
	if (fd >= 0)
		close(fd);
	free(r);
	if (err)
		sb->mine_len = 0;
	sb->complete = !err && named == (npids < 64 ? npids : 64);
	return err;
}

bool sideband_wanted(const struct sideband *sb)
{
	return !sb->complete && sb->len;
}

int sideband_carry(const struct sideband *sb, const char *path, char *data, size_t size)
{
	int fd = outpath_unnamed(), err;

	if (fd < 0)
		return fd;
	err = perfdata_rewrite(path, sb->recs, sb->len, NULL, NULL, fd);
	if (err) {
		close(fd);
		return err;
	}
	snprintf(data, size, "/proc/%d/fd/%d", (int)getpid(), fd);
	return fd;
}

int sideband_next(struct sideband *sb)
{
	if (sb->complete)
		sb->len = 0;
	return append(&sb->recs, &sb->len, &sb->cap, sb->mine, sb->mine_len);
}

void sideband_free(struct sideband *sb)
{
	free(sb->recs);
	free(sb->mine);
	memset(sb, 0, sizeof(*sb));
}
