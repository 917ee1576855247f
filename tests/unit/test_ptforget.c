/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the in-process Intel PT decoder's AUX pages given back
 * (convert/ptdata.c's ptdata_forget(), ptdata_forget_before(); issue 21:
 * peak RSS flat in the input size). A queue's AUX data is a file mapped
 * MAP_PRIVATE at an offset within a page, as ptdecode_open() maps it; what
 * is mapped is read from the kernel's /proc/self/pagemap (a page's present
 * bit), not from the code under test. Checked:
 *   remapped   pages a fault mapped again behind the point given back so
 *              far (Linux maps a file's whole folio, up to 2 MiB, on a
 *              fault in it) are given back by the next call;
 *   chunk_walk a queue read chunk by chunk as ptdecode.c reads it (each
 *              chunk with the next one's PSB+, its pages but the next
 *              chunk's given back once decoded, all before the next chunk
 *              once converted) keeps at most a bounded part of it mapped,
 *              whatever its size, and nothing at its end.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ptdecode_int.h"
#include "unit.h"
#include "unit_tmp.h"

#define DATA_OFF 100            /* the AUX data's offset in the file: within a page */
#define DATA_LEN (16u << 20)    /* 16 MiB of it */
#define CHUNK (16384 + 37)      /* a chunk: perf's PSB period, PSBs not page-aligned */
#define PSB_PLUS 64             /* a PSB+'s bytes, read with the chunk before it */
#define MAPPED_MAX (6u << 20)   /* the most a walk may hold mapped: whatever DATA_LEN */

static long page;
static int pagemap = -1;

/* How many pages of Q's data [FROM, TO) are mapped (pagemap bit 63), or
 * SIZE_MAX when pagemap cannot be read. */
static size_t mapped(const struct ptd_queue *q, uint64_t from, uint64_t to)
{
	uintptr_t lo = (uintptr_t)(q->data + from) / (uintptr_t)page;
	uintptr_t hi = ((uintptr_t)(q->data + to) + (uintptr_t)page - 1) / (uintptr_t)page;
	uint64_t e[512];
	size_t n = 0;

	while (lo < hi) {
		size_t k = hi - lo < 512 ? hi - lo : 512;

		if (pread(pagemap, e, k * 8, (off_t)(lo * 8)) != (ssize_t)(k * 8))
			return SIZE_MAX;
		for (size_t i = 0; i < k; i++)
			n += e[i] >> 63;
		lo += k;
	}
	return n;
}

/* Reads [FROM, TO) of Q's data as a decoder does. */
static unsigned read_bytes(const struct ptd_queue *q, uint64_t from, uint64_t to)
{
	const volatile uint8_t *p = q->data;
	unsigned sum = 0;

	for (uint64_t off = from; off < to && off < q->data_len; off += 64)
		sum += p[off];
	return sum;
}

/* Maps a scratch file of DATA_OFF + DATA_LEN bytes as queue Q's data. */
static int map_queue(struct ptd_queue *q, const char *name)
{
	size_t size = DATA_OFF + DATA_LEN;
	uint8_t *bytes = malloc(size);
	const char *path;
	int fd;

	if (!bytes)
		return -1;
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(i * 131u >> 7);
	path = unit_tmp_write(name, bytes, size);
	free(bytes);
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return -1;
	memset(q, 0, sizeof(*q));
	q->map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (q->map == MAP_FAILED)
		return -1;
	q->map_len = size;
	q->data = (const uint8_t *)q->map + DATA_OFF;
	q->data_len = DATA_LEN;
	return 0;
}

static void remapped(void)
{
	struct ptd_queue q;
	uint64_t at = (3u << 20) + 123;

	if (map_queue(&q, "remapped.data")) {
		UNIT_FAIL("cannot map a scratch file");
		return;
	}
	read_bytes(&q, 0, DATA_LEN);
	ptdata_forget_before(&q, at);
	CHECK_INT_EQ(q.forgot, at);
	/* a chunk's pages given back once decoded, then one read again: the
	 * fault may map its whole folio again, behind AT too */
	ptdata_forget(&q, at, at + 20000);
	read_bytes(&q, at + 10000, at + 10001);
	ptdata_forget_before(&q, at + 30000);
	/* the first page holds the file's header too; AT + 30000's page is read on */
	CHECK_INT_EQ(mapped(&q, (uint64_t)page, at + 30000 - (uint64_t)page), 0);
	munmap(q.map, q.map_len);
}

static void chunk_walk(void)
{
	struct ptd_queue q;
	size_t most = 0;

	if (map_queue(&q, "walk.data")) {
		UNIT_FAIL("cannot map a scratch file");
		return;
	}
	for (uint64_t begin = 0; begin < DATA_LEN; begin += CHUNK) {
		uint64_t next = begin + CHUNK < DATA_LEN ? begin + CHUNK : DATA_LEN;
		size_t now;

		read_bytes(&q, begin, next + PSB_PLUS);	/* decoded */
		ptdata_forget(&q, begin, next);
		now = mapped(&q, 0, DATA_LEN);
		if (now > most)
			most = now;
		ptdata_forget_before(&q, next);		/* converted */
	}
	CHECK(most * (size_t)page <= MAPPED_MAX);
	/* the first and the last page hold bytes past the data */
	CHECK(mapped(&q, 0, DATA_LEN) <= 2);
	munmap(q.map, q.map_len);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	if (unit_tmp_init("test_ptforget"))
		return 1;
	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);	/* Linux's, always */
	if (pagemap < 0) {
		perror("/proc/self/pagemap");
		return 1;
	}
	UNIT_RUN(remapped);
	UNIT_RUN(chunk_walk);
	close(pagemap);
	unit_tmp_fini();
	return unit_exit();
}
