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
	return sb->len;
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

/* The size of the record at REC (a perf_event_header first). */
static uint16_t rec_size(const unsigned char *rec)
{
	uint16_t size;

	memcpy(&size, rec + 6, 2);
	return size;
}

/* Puts the record at OFF of SB->recs, of hash H, into SB->slots (which has
 * room). */
static void slot_put(struct sideband *sb, uint64_t h, size_t off)
{
	size_t i = h & (sb->nslots - 1);

	while (sb->slots[i])
		i = (i + 1) & (sb->nslots - 1);
	sb->slots[i] = (h & 0xffffffff00000000ull) | (off + 1);
}

/* Whether SB holds a record equal to REC (SIZE bytes, hash H). */
static bool held(const struct sideband *sb, const unsigned char *rec, uint16_t size, uint64_t h)
{
	for (size_t i = h & (sb->nslots - 1); sb->slots[i]; i = (i + 1) & (sb->nslots - 1)) {
		const unsigned char *r = sb->recs + (uint32_t)sb->slots[i] - 1;

		if (sb->slots[i] >> 32 == h >> 32 && rec_size(r) == size && !memcmp(r, rec, size))
			return true;
	}
	return false;
}

/* Makes room in SB->slots for one more record (at most half full).
 * Returns 0 or -ENOMEM. */
static int slots_room(struct sideband *sb)
{
	size_t n = sb->nslots ? sb->nslots * 2 : 256;
	uint64_t *t;

	if ((sb->nrecs + 1) * 2 <= sb->nslots)
		return 0;
	t = calloc(n, sizeof(*t));
	if (!t)
		return -ENOMEM;
	free(sb->slots);
	sb->slots = t;
	sb->nslots = n;
	for (size_t off = 0; off < sb->len; off += rec_size(sb->recs + off))
		slot_put(sb, hash_bytes(sb->recs + off, rec_size(sb->recs + off)), off);
	return 0;
}

int sideband_next(struct sideband *sb)
{
	for (size_t off = 0; off < sb->mine_len; off += rec_size(sb->mine + off)) {
		const unsigned char *rec = sb->mine + off;
		uint16_t size = rec_size(rec);
		uint64_t h = hash_bytes(rec, size);
		size_t at = sb->len;
		int err;

		if (sb->nslots && held(sb, rec, size, h))
			continue;
		if ((err = slots_room(sb)) || (err = append(&sb->recs, &sb->len, &sb->cap, rec, size)))
			return err;
		slot_put(sb, h, at);
		sb->nrecs++;
	}
	return 0;
}

void sideband_free(struct sideband *sb)
{
	free(sb->recs);
	free(sb->slots);
	free(sb->mine);
	memset(sb, 0, sizeof(*sb));
}
