/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/perfdata's perfdata_check(): a perf.data laid out as
 * perf 6.1 writes it (header, attribute ids, attributes, data, feature
 * section table, feature sections) is finished; cut at every byte it is
 * unfinished, naming the part the cut falls in; a header never written, a
 * data size of 0, offsets that overflow, and every file that is no
 * perf.data this reads (the other byte order too) are told apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"
#include "unit.h"
#include "unit_tmp.h"

/* The synthesized file: where perf puts each part. */
enum {
	IDS_AT = 104, ATTRS_AT = 112, ATTRS_SIZE = 144, DATA_AT = ATTRS_AT + ATTRS_SIZE,
	DATA_SIZE = 96, TABLE_AT = DATA_AT + DATA_SIZE, NFEAT = 3,
	FEATS_AT = TABLE_AT + NFEAT * 16, FEAT_SIZE = 24, FILE_SIZE = FEATS_AT + NFEAT * FEAT_SIZE,
};

static void put64(unsigned char *p, uint64_t v, bool big)
{
	for (int i = 0; i < 8; i++)
		p[big ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

/* A perf.data of FILE_SIZE bytes in BUF, in the byte order BIG. */
static void make(unsigned char *buf, bool big)
{
	static const int feats[NFEAT] = { 3, 12, 70 };   /* hostname, event_desc, a bit past 64 */

	memset(buf, 0xa5, FILE_SIZE);
	memcpy(buf, big ? "2ELIFREP" : "PERFILE2", 8);
	put64(buf + 8, 104, big);
	put64(buf + 16, ATTRS_SIZE, big);
	put64(buf + 24, ATTRS_AT, big);
	put64(buf + 32, ATTRS_SIZE, big);
	put64(buf + 40, DATA_AT, big);
	put64(buf + 48, DATA_SIZE, big);
	put64(buf + 56, 0, big);
	put64(buf + 64, 0, big);
	uint64_t bits[4] = { 0 };

	for (int i = 0; i < NFEAT; i++) {
		bits[feats[i] / 64] |= (uint64_t)1 << (feats[i] % 64);
		put64(buf + TABLE_AT + 16 * i, FEATS_AT + (uint64_t)i * FEAT_SIZE, big);
		put64(buf + TABLE_AT + 16 * i + 8, FEAT_SIZE, big);
	}
	for (int i = 0; i < 4; i++)
		put64(buf + 72 + 8 * i, bits[i], big);
	/* one attribute of perf 6.1's 128 bytes (PERF_ATTR_SIZE_VER7), then its ids */
	memset(buf + ATTRS_AT, 0, ATTRS_SIZE);
	buf[ATTRS_AT + (big ? 7 : 4)] = 128;
	put64(buf + ATTRS_AT + 24, 0x1a7, big);	/* sample_type: ip, tid, time, callchain, period... */
}

/* Writes the first N bytes of BUF as NAME; returns its path. */
static const char *file(const char *name, const unsigned char *buf, size_t n)
{
	const char *path = unit_tmp_write(name, buf, n);

	if (!path)
		UNIT_FAIL("cannot write %s", name);
	return path ? path : "";
}

static enum perfdata_state check(const char *path, char *why)
{
	strcpy(why, "(untouched)");
	return perfdata_check(path, why, 160);
}

/* The part a cut after N bytes falls in, as perfdata_check() names it. */
static const char *part_at(size_t n)
{
	return n < 104 ? "cut short inside its header" :
	       n < DATA_AT ? "cut short inside its attributes" :
	       n < TABLE_AT ? "cut short inside its data section" :
	       "cut short inside its feature sections";
}

static void finished(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	CHECK_INT_EQ(check(file("whole", buf, FILE_SIZE), why), PERFDATA_FINISHED);
	/* perf's reader takes one byte order (perfdata_header_read()) */
	make(buf, true);
	CHECK_INT_EQ(check(file("big", buf, FILE_SIZE), why), PERFDATA_OTHER);
}

/* Every cut, from 1 byte to all but the last, is unfinished, never taken
 * for a finished file, and names where it falls. */
static void every_cut_is_unfinished(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	for (size_t n = 1; n < FILE_SIZE; n++) {
		enum perfdata_state st = check(file("cut", buf, n), why);

		if (st != PERFDATA_UNFINISHED || strncmp(why, part_at(n), strlen(part_at(n))))
			UNIT_FAIL("cut at %zu: state %d, '%s', expected '%s'", n, st, why,
				  part_at(n));
	}
}

static void header_never_written(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	memset(buf, 0, 104);
	CHECK_INT_EQ(check(file("zero", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	CHECK_STR_EQ(why, "its header was never written (all zero bytes)");
}

/* perf writes the header with data size 0 at the start, and the real one at the end. */
static void data_size_zero(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	put64(buf + 48, 0, false);
	CHECK_INT_EQ(check(file("size0", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	CHECK_STR_EQ(why, "its header's data size is 0 (perf never finished it)");
}

/* Offsets and sizes near 2^64 are past the end, not wrapped into the file. */
static void overflowing_offsets(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	put64(buf + 48, UINT64_MAX - 8, false);
	CHECK_INT_EQ(check(file("ovf-data", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	/* never the saturated sum as a byte ("ending at byte 18446744073709551615") */
	CHECK_STR_EQ(why, "cut short inside its data section (its header puts its end past "
		     "byte 2^64: damaged; the file ends at byte 472)");
	make(buf, false);
	put64(buf + TABLE_AT + 8, UINT64_MAX, false);
	CHECK_INT_EQ(check(file("ovf-feat", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	CHECK(!strncmp(why, "cut short inside its feature sections", 37));
	CHECK(!strstr(why, "18446744073709551615"));
	/* a size that does not overflow is the byte it ends at */
	make(buf, false);
	put64(buf + 48, 1000, false);
	CHECK_INT_EQ(check(file("big-data", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	CHECK_STR_EQ(why, "cut short inside its data section (ending at byte 1256; the file ends "
		     "at byte 472)");
	make(buf, false);
	put64(buf + 16, 0, false);
	CHECK_INT_EQ(check(file("attr0", buf, FILE_SIZE), why), PERFDATA_UNFINISHED);
	CHECK(!strncmp(why, "its header is not one perf finished", 35));
}

/* Each field of perfattr.c's table with a bit past what linux/perf_event.h
 * defines is named (hostile15: branch_sample_type 0xffffffff crashed perf
 * script); what perf defines, and a field past the attribute's own size,
 * pass. */
static void damaged_attr(void)
{
	static const struct { size_t off; uint64_t v; const char *why; } bad[] = {
		{ 72, 0xffffffff, "its attribute 0's branch_sample_type holds bits perf does "
				  "not define (0xfff80000 of 0xffffffff)" },
		{ 24, (uint64_t)1 << 40, "its attribute 0's sample_type holds bits perf does not "
					  "define (0x10000000000 of 0x10000000000)" },
		{ 32, 0x20, "its attribute 0's read_format holds bits perf does not define "
			    "(0x20 of 0x20)" },
		{ 40, (uint64_t)1 << 38, "its attribute 0's flags holds bits perf does not define "
					 "(0x4000000000 of 0x4000000000)" },
		{ 110, 1, "its attribute 0's __reserved_2 holds bits perf does not define "
			  "(0x1 of 0x1)" },
	};
	unsigned char buf[FILE_SIZE];
	char why[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make(buf, false);
		put64(buf + ATTRS_AT + bad[i].off, bad[i].v, false);
		if (bad[i].off == 110)	/* a u16 between two fields that stay 0 */
			memset(buf + ATTRS_AT + 112, 0, 8);
		CHECK_INT_EQ(check(file("damaged", buf, FILE_SIZE), why), PERFDATA_DAMAGED);
		CHECK_STR_EQ(why, bad[i].why);
	}
	/* every bit perf defines; the same bits past the attribute's size */
	make(buf, false);
	put64(buf + ATTRS_AT + 72, 0x7ffff, false);
	CHECK_INT_EQ(check(file("defined", buf, FILE_SIZE), why), PERFDATA_FINISHED);
	make(buf, false);
	buf[ATTRS_AT + 4] = 72;	/* PERF_ATTR_SIZE_VER1: no branch_sample_type */
	put64(buf + ATTRS_AT + 72, 0xffffffff, false);
	CHECK_INT_EQ(check(file("ver1", buf, FILE_SIZE), why), PERFDATA_FINISHED);
}

/* A pipe-mode perf.data (perf record -o -) is a stream: nothing to check. */
static void pipe_mode(void)
{
	unsigned char buf[FILE_SIZE];
	char why[160];

	make(buf, false);
	put64(buf + 8, 16, false);
	CHECK_INT_EQ(check(file("pipe", buf, 40), why), PERFDATA_FINISHED);
}

static void not_perf_data(void)
{
	static const unsigned char text[] = "perf-12 [000] 1.000: cpu-clock:\n";
	char why[160];

	CHECK_INT_EQ(check(file("text", text, sizeof(text) - 1), why), PERFDATA_OTHER);
	CHECK_STR_EQ(why, "not a perf.data (no PERFILE2 header)");
	CHECK_INT_EQ(check(file("empty", text, 0), why), PERFDATA_OTHER);
	CHECK_STR_EQ(why, "empty");
	CHECK_INT_EQ(check(unit_tmp("missing"), why), PERFDATA_UNREADABLE);
	CHECK_STR_EQ(why, strerror(ENOENT));
	/* a FIFO without a writer would block an open(): it is never opened */
	CHECK_INT_EQ(mkfifo(unit_tmp("fifo"), 0600), 0);
	CHECK_INT_EQ(check(unit_tmp("fifo"), why), PERFDATA_OTHER);
	CHECK_STR_EQ(why, "not a regular file");
}

int main(void)
{
	if (unit_tmp_init("test_perfdata_check"))
		return 1;
	UNIT_RUN(finished);
	UNIT_RUN(every_cut_is_unfinished);
	UNIT_RUN(header_never_written);
	UNIT_RUN(damaged_attr);
	UNIT_RUN(data_size_zero);
	UNIT_RUN(overflowing_offsets);
	UNIT_RUN(pipe_mode);
	UNIT_RUN(not_perf_data);
	unit_tmp_fini();
	return unit_exit();
}
