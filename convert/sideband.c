/* SPDX-License-Identifier: MIT */
/* sideband: a recording's side-band carried into later snapshots (see sideband.h). */
#include "sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
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
	fd = perfdata_open(path);
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
	return sb->len;
}

int sideband_carry(const struct sideband *sb, const char *path)
{
	int fd = outpath_unnamed(), err;

	if (fd < 0)
		return fd;
	err = perfdata_rewrite(path, sb->recs, sb->len, NULL, NULL, fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* The size of the record at REC (a perf_event_header first). */
static uint16_t rec_size(const unsigned char *rec)
{
	uint16_t size;

	memcpy(&size, rec + 6, 2);
	return size;
}

/* Whether SB holds a record equal to REC (SIZE bytes, hash H). */
static bool held(const struct sideband *sb, const unsigned char *rec, uint16_t size, uint64_t h)
{
	size_t probe = 0;
	uint32_t off;

	while ((off = hash_index_next(&sb->index, h, &probe)) != HASH_NONE)
		if (rec_size(sb->recs + off) == size && !memcmp(sb->recs + off, rec, size))
			return true;
	return false;
}

int sideband_next(struct sideband *sb)
{
	for (size_t off = 0; off < sb->mine_len; off += rec_size(sb->mine + off)) {
		const unsigned char *rec = sb->mine + off;
		uint16_t size = rec_size(rec);
		uint64_t h = hash_bytes(rec, size);
		size_t at = sb->len;
		int err;

		if (held(sb, rec, size, h))
			continue;
		if (at >= HASH_NONE)
			return -ENOMEM;   /* 4 GiB of side-band records: no offset for more */
		if ((err = hash_index_reserve(&sb->index, sb->nrecs + 1)) ||
		    (err = append(&sb->recs, &sb->len, &sb->cap, rec, size)))
			return err;
		hash_index_add(&sb->index, h, (uint32_t)at);   /* reserved: cannot fail */
		sb->nrecs++;
	}
	return 0;
}

void sideband_free(struct sideband *sb)
{
	free(sb->recs);
	hash_index_free(&sb->index);
	free(sb->mine);
	memset(sb, 0, sizeof(*sb));
}
