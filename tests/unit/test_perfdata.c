/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/perfdata's reader of perf.data headers, event
 * names and build ids, on files written here byte by byte as perf lays
 * them out: the HEADER_EVENT_DESC feature (names perf evlist prints), the
 * HEADER_BUILD_ID feature (with and without a size in misc), MMAP2 records
 * of perf record --buildid-mmap (an AUXTRACE record's data skipped on the
 * way), the pipe format's build id records, HEADER_HOSTNAME and the
 * programs of the COMM records (perfdata_origin()); and hostile files: each of
 * them cut at every length, and with every byte of its header and build
 * id section set to 0xff, gives either the ids or an error, never a
 * crash, an overrun (the ASan build) or an id for a path not in the file.
 * Also convert/ipname's table of the processes' mappings (which frames
 * lie in memory that is no code), and convert/sideband's carrying of a recording's side-band on such
 * files (every file after the first gets all the earlier side-band, each
 * record once).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"
#include "ipname.h"
#include "nsenter.h"
#include "perfmap.h"
#include "sideband.h"
#include "tmpview.h"
#include "unit.h"
#include "unit_tmp.h"

/* whose perf maps in /tmp a view takes: the caller's, as for a perf.data of
 * theirs with no record.json (perfmap.h) */
#define CALLERS (&(struct perfmap_users){ NULL, 0, geteuid(), false })
#define FILE_MAX (128 * 1024)   /* test_tmpview_entries: 1100 mappings */

/* A perf.data being written. */
struct file {
	unsigned char b[FILE_MAX];
	size_t len;
};

static void put(struct file *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void put64(struct file *f, uint64_t v)
{
	put(f, &v, 8);
}

static void put_at64(struct file *f, size_t at, uint64_t v)
{
	memcpy(f->b + at, &v, 8);
}

/* A record header: TYPE, MISC, SIZE. */
static void put_header(struct file *f, uint32_t type, uint16_t misc, uint16_t size)
{
	put(f, &type, 4);
	put(f, &misc, 2);
	put(f, &size, 2);
}

/* A build id event (struct perf_record_header_build_id) of TYPE for PATH,
 * its id NLEN bytes of SEED, SEED + 1...; WITH_SIZE: misc says its size. */
static void put_buildid(struct file *f, uint32_t type, const char *path, unsigned char seed,
			unsigned nlen, int with_size)
{
	unsigned char id[24] = { 0 };
	size_t name = (strlen(path) + 1 + 63) / 64 * 64;   /* perf's NAME_ALIGN */
	int32_t pid = -1;
	char pad[128] = { 0 };

	for (unsigned i = 0; i < nlen; i++)
		id[i] = (unsigned char)(seed + i);
	id[20] = (unsigned char)nlen;
	put_header(f, type, with_size ? 1u << 15 : 0, (uint16_t)(36 + name));
	put(f, &pid, 4);
	put(f, id, 24);
	memcpy(pad, path, strlen(path));
	put(f, pad, name);
}

/* An MMAP2 record of PATH; with a build id of SEED... when WITH_ID. */
static void put_mmap2(struct file *f, const char *path, unsigned char seed, int with_id)
{
	unsigned char body[64] = { 0 };
	size_t name = (strlen(path) + 1 + 7) / 8 * 8;
	char pad[64] = { 0 };

	body[32] = 20;		/* build_id_size, at byte 40 of the record */
	for (int i = 0; i < 20; i++)
		body[36 + i] = (unsigned char)(seed + i);
	put_header(f, PERFDATA_REC_MMAP2, with_id ? 1u << 14 : 0, (uint16_t)(72 + name));
	put(f, body, 64);
	memcpy(pad, path, strlen(path));
	put(f, pad, name);
}

/* A file header: data at DATA_OFF, DATA_SIZE bytes; feature bits FEAT. */
static void put_file_header(struct file *f, uint64_t data_off, uint64_t data_size, uint64_t feat)
{
	put(f, "PERFILE2", 8);
	put64(f, 104);
	put64(f, 136);	/* attr_size */
	put64(f, 0);
	put64(f, 0);
	put64(f, data_off);
	put64(f, data_size);
	put64(f, 0);
	put64(f, 0);
	put64(f, feat);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
}

/* perf record's default: two records of data, then the feature table
 * (TRACING_DATA's empty section, BUILD_ID's), then the build id events. */
static void make_feature_file(struct file *f)
{
	size_t data_off = 104, table, sec;

	f->len = 0;
	put_file_header(f, data_off, 0, (1u << 1) | (1u << 2) | (1u << 5));
	put_mmap2(f, "/not/from/here", 0x77, 1);	/* ignored: the feature is there */
	put_header(f, 3, 0, 16);			/* a COMM of nothing */
	put64(f, 0);
	put_at64(f, 48, f->len - data_off);
	table = f->len;
	put64(f, 0);		/* TRACING_DATA */
	put64(f, 0);
	put64(f, 0);		/* BUILD_ID: filled below */
	put64(f, 0);
	put64(f, 0);		/* VERSION */
	put64(f, 0);
	sec = f->len;
	put_buildid(f, 0, "/usr/bin/prog", 0x10, 20, 0);
	put_buildid(f, 0, "[kernel.kallsyms]", 0x20, 20, 1);
	put_buildid(f, 0, "/lib/short.so", 0xa0, 16, 1);
	put_at64(f, table + 16, sec);
	put_at64(f, table + 24, f->len - sec);
}

/* perf record --buildid-mmap: build ids in MMAP2 records only; an
 * AUXTRACE record whose data looks like an MMAP2 is skipped. */
static void make_mmap2_file(struct file *f)
{
	struct file fake = { .len = 0 };

	f->len = 0;
	put_file_header(f, 104, 0, 0);
	put_mmap2(f, "/usr/bin/prog", 0x10, 1);
	put_mmap2(f, "/no/id.so", 0x30, 0);
	put_mmap2(&fake, "/in/aux/data", 0x50, 1);
	put_header(f, PERFDATA_REC_AUXTRACE, 0, 48);
	put64(f, fake.len);	/* the AUX data's size */
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	put(f, fake.b, fake.len);
	put_mmap2(f, "/lib/libc.so.6", 0x40, 1);
	put_at64(f, 48, f->len - 104);
}

/* perf record -o -: a 16-byte header, build id records among the others. */
static void make_pipe_file(struct file *f)
{
	f->len = 0;
	put(f, "PERFILE2", 8);
	put64(f, 16);
	put_buildid(f, PERFDATA_REC_HEADER_BUILD_ID, "/usr/bin/prog", 0x10, 20, 0);
	put_mmap2(f, "/lib/libc.so.6", 0x40, 1);
}

/* What the walk gave, as "HEX PATH\n" lines. */
struct got {
	char text[2048];
	size_t len;
};

static int collect(void *arg, const char *hex, const char *path)
{
	struct got *g = arg;
	int n = snprintf(g->text + g->len, sizeof(g->text) - g->len, "%s %s\n", hex, path);

	if (n > 0 && (size_t)n < sizeof(g->text) - g->len)
		g->len += (size_t)n;
	return 0;
}

/* Writes the first LEN bytes of F to the scratch file perf.data. Returns
 * its path, or NULL when it cannot. */
static const char *write_file(const struct file *f, size_t len)
{
	return unit_tmp_write("perf.data", f->b, len);
}

/* Writes F (its first LEN bytes) and reads its build ids into G. */
static int read_ids(const struct file *f, size_t len, struct got *g, char *why, size_t whylen)
{
	const char *path = write_file(f, len);

	if (!path)
		return -999;
	memset(g, 0, sizeof(*g));
	why[0] = 0;
	return perfdata_buildids(path, collect, g, why, whylen);
}

static void test_feature(void)
{
	struct file f;
	struct got g;
	char why[256];

	make_feature_file(&f);
	CHECK_INT_EQ(read_ids(&f, f.len, &g, why, sizeof(why)), 0);
	CHECK_STR_EQ(g.text,
		     "101112131415161718191a1b1c1d1e1f20212223 /usr/bin/prog\n"
		     "202122232425262728292a2b2c2d2e2f30313233 [kernel.kallsyms]\n"
		     "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf /lib/short.so\n");
}

/* A COMM record of NAME (at most 7 bytes). */
static void put_comm(struct file *f, const char *name)
{
	char comm[8] = { 0 };

	put_header(f, PERFDATA_REC_COMM, 0, 24);
	put64(f, 0x0000002a0000002aULL);   /* pid, tid 42 */
	memcpy(comm, name, strlen(name));
	put(f, comm, 8);
}

/* perfdata_origin(): the host perf names (HEADER_HOSTNAME: a u32 length,
 * then the padded text) and the programs of the COMM records, each once;
 * a file without the feature has no host. */
static void test_origin(void)
{
	struct file f = { .len = 0 };
	struct perfdata_origin o;
	size_t data_off = 104, table;
	uint32_t len = 8;
	const char *path;
	int fd;

	put_file_header(&f, data_off, 0, 1u << PERFDATA_FEAT_HOSTNAME);
	put_comm(&f, "app");
	put_comm(&f, "app");
	put_comm(&f, "worker");
	put_at64(&f, 48, f.len - data_off);
	table = f.len;
	put64(&f, table + 16);
	put64(&f, 12);
	put(&f, &len, 4);
	put(&f, "myhost\0\0", 8);
	path = write_file(&f, f.len);
	fd = path ? open(path, O_RDONLY) : -1;
	CHECK(fd >= 0);
	CHECK_INT_EQ(perfdata_origin(fd, &o), 0);
	CHECK_STR_EQ(o.host, "myhost");
	CHECK_INT_EQ(o.ncomms, 2);
	CHECK_STR_EQ(o.comms[0], "app");
	CHECK_STR_EQ(o.comms[1], "worker");
	if (fd >= 0)
		close(fd);
	make_feature_file(&f);   /* no HOSTNAME; a COMM of nothing */
	path = write_file(&f, f.len);
	fd = path ? open(path, O_RDONLY) : -1;
	CHECK_INT_EQ(perfdata_origin(fd, &o), 0);
	CHECK_STR_EQ(o.host, "");
	if (fd >= 0)
		close(fd);
}

static void test_mmap2(void)
{
	struct file f;
	struct got g;
	char why[256];

	make_mmap2_file(&f);
	CHECK_INT_EQ(read_ids(&f, f.len, &g, why, sizeof(why)), 0);
	CHECK_STR_EQ(g.text,
		     "101112131415161718191a1b1c1d1e1f20212223 /usr/bin/prog\n"
		     "404142434445464748494a4b4c4d4e4f50515253 /lib/libc.so.6\n");
}

static void test_pipe(void)
{
	struct file f;
	struct got g;
	char why[256];

	make_pipe_file(&f);
	CHECK_INT_EQ(read_ids(&f, f.len, &g, why, sizeof(why)), 0);
	CHECK_STR_EQ(g.text,
		     "101112131415161718191a1b1c1d1e1f20212223 /usr/bin/prog\n"
		     "404142434445464748494a4b4c4d4e4f50515253 /lib/libc.so.6\n");
}

static void test_not_perf_data(void)
{
	struct file f = { .len = 0 };
	struct got g;
	char why[256];

	put(&f, "2ELIFREP", 8);	/* the other byte order */
	put64(&f, 104ull << 56);
	CHECK_INT_EQ(read_ids(&f, f.len, &g, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "byte order") != NULL);
	make_feature_file(&f);
	put_at64(&f, 8, 112);	/* a header size no perf writes */
	CHECK_INT_EQ(read_ids(&f, f.len, &g, why, sizeof(why)), -EINVAL);
}

/* Every id a damaged file gives is one of the whole file's. */
static bool subset(const struct got *part, const struct got *whole)
{
	const char *p = part->text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		char line[256];

		if (!nl || (size_t)(nl - p) >= sizeof(line))
			return false;
		memcpy(line, p, (size_t)(nl - p));
		line[nl - p] = 0;
		if (!strstr(whole->text, line))
			return false;
		p = nl + 1;
	}
	return true;
}

/* Each file cut at every length: the ids of the whole, an error with a
 * reason, or (cut within its records' data) fewer of its ids. */
static void test_cut(void)
{
	void (*make[])(struct file *) = { make_feature_file, make_mmap2_file, make_pipe_file };

	for (size_t m = 0; m < sizeof(make) / sizeof(make[0]); m++) {
		struct file f;
		struct got whole, g;
		char why[256];

		make[m](&f);
		CHECK_INT_EQ(read_ids(&f, f.len, &whole, why, sizeof(why)), 0);
		for (size_t len = 0; len < f.len; len++) {
			int rc = read_ids(&f, len, &g, why, sizeof(why));

			if (rc == 0 && !subset(&g, &whole))
				UNIT_FAIL("file %zu cut at %zu: ids not in the file: %s", m, len, g.text);
			if (rc && (rc == -999 || !why[0] || (rc != -EIO && rc != -EINVAL)))
				UNIT_FAIL("file %zu cut at %zu: %d, \"%s\"", m, len, rc, why);
		}
	}
}

/* Every byte of the header, the feature table and the build ids set to
 * 0xff in turn: an error or ids; never a read out of bounds. */
static void test_garbage(void)
{
	void (*make[])(struct file *) = { make_feature_file, make_mmap2_file, make_pipe_file };

	for (size_t m = 0; m < sizeof(make) / sizeof(make[0]); m++) {
		struct file f;
		struct got g;
		char why[256];

		make[m](&f);
		for (size_t at = 0; at < f.len; at++) {
			unsigned char was = f.b[at];
			int rc;

			f.b[at] = 0xff;
			rc = read_ids(&f, f.len, &g, why, sizeof(why));
			if (rc && (rc == -999 || !why[0]))
				UNIT_FAIL("file %zu, byte %zu: %d without a reason", m, at, rc);
			f.b[at] = was;
		}
	}
}

/* HEADER_EVENT_DESC of two events, "cpu-clock" (two ids) and
 * "sched:sched_switch" (one), after an empty data section. */
static void make_event_desc_file(struct file *f)
{
	static const char *names[] = { "cpu-clock", "sched:sched_switch" };
	unsigned char attr[136] = { 0 };
	uint32_t u;
	size_t table, sec;

	f->len = 0;
	put_file_header(f, 104, 0, 1u << 12);
	table = f->len;
	put64(f, 0);
	put64(f, 0);
	sec = f->len;
	u = 2;
	put(f, &u, 4);
	u = sizeof(attr);
	put(f, &u, 4);
	for (int i = 0; i < 2; i++) {
		char name[32] = { 0 };
		/* cpu-clock at 4000 Hz (freq, bit 10 of the bit field at 40);
		 * sched_switch every event (sample_period 1) */
		uint64_t period = i == 0 ? 4000 : 1, bits = i == 0 ? 1u << 10 : 0;

		memcpy(attr + 16, &period, 8);
		memcpy(attr + 40, &bits, 8);
		put(f, attr, sizeof(attr));
		u = 2 - (uint32_t)i;	/* ids */
		put(f, &u, 4);
		u = 32;			/* the name, NUL-padded */
		put(f, &u, 4);
		strcpy(name, names[i]);
		put(f, name, 32);
		for (uint32_t k = 0; k < 2 - (uint32_t)i; k++)
			put64(f, 1000 + k);
	}
	put_at64(f, table, sec);
	put_at64(f, table + 8, f->len - sec);
}

/* Writes the first LEN bytes of F and reads its event names into NAMES. */
static int read_names(const struct file *f, size_t len, char *names, size_t size)
{
	const char *path = write_file(f, len);

	return path ? perfdata_event_names(path, names, size) : -999;
}

/* S without its numbers and with sample_freq as sample_period (a static
 * buffer per call site: one of two). */
static const char *shape(const char *s)
{
	static char buf[2][256];
	static int k;
	char *o = buf[k ^= 1];
	size_t n = 0;

	for (; *s && n + 1 < sizeof(buf[0]); s++) {
		if (!strncmp(s, "sample_freq", 11)) {
			n += (size_t)snprintf(o + n, sizeof(buf[0]) - n, "sample_period");
			s += 10;
		} else if (*s < '0' || *s > '9') {
			o[n++] = *s;
		}
	}
	o[n] = 0;
	return o;
}

/* What perf evlist -F prints of make_event_desc_file()'s events. */
#define EVENTS "cpu-clock: sample_freq=4000\nsched:sched_switch: sample_period=1\n"

static void test_event_names(void)
{
	struct file f;
	char names[256], small[40];

	make_event_desc_file(&f);
	CHECK_INT_EQ(read_names(&f, f.len, names, sizeof(names)), 0);
	CHECK_STR_EQ(names, EVENTS);
	/* a buffer too small for the second line keeps the first */
	CHECK_INT_EQ(read_names(&f, f.len, small, sizeof(small)), 0);
	CHECK_STR_EQ(small, "cpu-clock: sample_freq=4000\n");
	/* no such feature: perf must be asked */
	make_mmap2_file(&f);
	CHECK_INT_EQ(read_names(&f, f.len, names, sizeof(names)), -ENOENT);
	make_pipe_file(&f);
	CHECK_INT_EQ(read_names(&f, f.len, names, sizeof(names)), -ENOENT);
	/* cut anywhere, or any byte 0xff: names of the file, or an error */
	make_event_desc_file(&f);
	for (size_t len = 0; len < f.len; len++) {
		int rc = read_names(&f, len, names, sizeof(names));

		if (rc == 0 || (rc != -EIO && rc != -EINVAL))
			UNIT_FAIL("cut at %zu: %d, \"%s\"", len, rc, names);
	}
	for (size_t at = 0; at < f.len; at++) {
		unsigned char was = f.b[at];
		int rc;

		f.b[at] = 0xff;
		rc = read_names(&f, f.len, names, sizeof(names));
		/* the file's names, or one with the byte in it; the numbers
		 * are the attrs' whatever they say */
		if (rc == 0 && strcmp(shape(names), shape(EVENTS)) && !strstr(names, "\xff"))
			UNIT_FAIL("byte %zu: \"%s\"", at, names);
		f.b[at] = was;
	}
}

/* The attributes section (two struct perf_file_attr of 136 bytes, the
 * attr's sample_type at 24) after the header, an empty data section. */
static void test_sample_types(void)
{
	struct file f;
	unsigned char attr[136] = { 0 };
	uint64_t types[2] = { (1u << 5) | (1u << 13), 1u << 1 }, got[2] = { 1, 1 };
	const char *path;

	f.len = 0;
	put_file_header(&f, 104 + 2 * sizeof(attr), 0, 0);
	put_at64(&f, 24, 104);
	put_at64(&f, 32, 2 * sizeof(attr));
	for (int i = 0; i < 2; i++) {
		memcpy(attr + 24, &types[i], 8);
		put(&f, attr, sizeof(attr));
	}
	path = write_file(&f, f.len);
	/* each event's own, in order: not or-ed (one event's copy of the
	 * stack says nothing of another's call chains) */
	CHECK_INT_EQ(perfdata_sample_types(path, got, 2), 2);
	CHECK_U64_EQ(got[0], types[0]);
	CHECK_U64_EQ(got[1], types[1]);
	/* more events than room: the count, the first MAX */
	got[0] = got[1] = 1;
	CHECK_INT_EQ(perfdata_sample_types(path, got, 1), 2);
	CHECK_U64_EQ(got[0], types[0]);
	CHECK_U64_EQ(got[1], 1);
	/* the attributes past the end of the file */
	put_at64(&f, 32, 3 * sizeof(attr));
	path = write_file(&f, f.len);
	CHECK_INT_EQ(perfdata_sample_types(path, got, 2), -EIO);
	/* the pipe format lists none */
	make_pipe_file(&f);
	path = write_file(&f, f.len);
	CHECK_INT_EQ(perfdata_sample_types(path, got, 2), -ENOENT);
}

/* The times perfdata_sample_times() reads of F (written out): how many,
 * the first 4 into GOT (0 past them) and their events into EVENTS (when
 * not NULL; 99 past them); -1 when it fails. */
static long times_of(struct file *f, uint64_t got[4], int events[4])
{
	struct perfdata_time *times = NULL;
	size_t n = 0;
	int err = perfdata_sample_times(write_file(f, f->len), &times, &n);

	for (size_t i = 0; i < 4; i++) {
		got[i] = i < n ? times[i].ns : 0;
		if (events)
			events[i] = i < n ? times[i].event : 99;
	}
	free(times);
	return err ? -1 : (long)n;
}

/* Samples of two events whose sample_type puts the time after the
 * identifier, ip and pid/tid (perf record's), out of time order, between
 * other records: their times, sorted, with a context switch's from its
 * sample_id trailer; events that disagree: -ENOTSUP. */
static void test_sample_times(void)
{
	struct file f;
	unsigned char attr[136] = { 0 };
	uint64_t type = (1u << 16) | (1u << 0) | (1u << 1) | (1u << 2), t[] = { 30, 10, 20 };
	uint64_t got[4];
	struct perfdata_time *times = NULL;
	size_t n = 9, data_off = 104 + 2 * sizeof(attr);
	const char *path;

	f.len = 0;
	put_file_header(&f, data_off, 0, 0);
	put_at64(&f, 24, 104);
	put_at64(&f, 32, 2 * sizeof(attr));
	memcpy(attr + 24, &type, 8);
	put(&f, attr, sizeof(attr));
	put(&f, attr, sizeof(attr));
	for (int i = 0; i < 3; i++) {
		put_header(&f, PERFDATA_REC_SAMPLE, 0, 8 + 32);
		put64(&f, 7);          /* identifier */
		put64(&f, 0x401000);   /* ip */
		put64(&f, 1);          /* pid, tid */
		put64(&f, t[i]);       /* time */
		put_header(&f, 3, 0, 16);   /* a COMM of nothing */
		put64(&f, 0);
	}
	put_at64(&f, 48, f.len - data_off);
	CHECK_INT_EQ((int)times_of(&f, got, NULL), 3);
	CHECK(got[0] == 10 && got[1] == 20 && got[2] == 30);
	/* the second event records context switches (context_switch,
	 * sample_id_all; its trailer pid/tid, time, cpu, identifier): a
	 * switch-in before the first sample is where the data starts (the
	 * old code read samples alone: a call that returned after that
	 * switch-in and before the first sample was held by no snapshot) */
	uint64_t flags = (1ull << 26) | (1ull << 18);
	uint64_t type2 = type | (1u << 7);
	memcpy(f.b + 104 + sizeof(attr) + 24, &type2, 8);
	memcpy(f.b + 104 + sizeof(attr) + 40, &flags, 8);
	put_header(&f, PERFDATA_REC_SWITCH, 0, 8 + 32);
	put64(&f, 1);          /* pid, tid */
	put64(&f, 5);          /* time */
	put64(&f, 0);          /* cpu */
	put64(&f, 8);          /* identifier */
	put_at64(&f, 48, f.len - data_off);
	CHECK_INT_EQ((int)times_of(&f, got, NULL), 4);
	CHECK(got[0] == 5 && got[1] == 10 && got[3] == 30);
	/* without sample_id_all the switch has no time: the samples alone */
	flags = 1ull << 26;
	memcpy(f.b + 104 + sizeof(attr) + 40, &flags, 8);
	CHECK_INT_EQ((int)times_of(&f, got, NULL), 3);
	/* the second event has no identifier: its time is elsewhere */
	type &= ~(1ull << 16);
	memcpy(f.b + 104 + sizeof(attr) + 24, &type, 8);
	path = write_file(&f, f.len);
	CHECK_INT_EQ(perfdata_sample_times(path, &times, &n), -ENOTSUP);
	CHECK(times == NULL && n == 0);
}

/* Each sample's event, by its identifier among those each attribute lists
 * (perf record's files of several events): a context switch is none, an
 * identifier no attribute lists is unknown; a file of one event needs none
 * (issue 24: the recorder tells the sampled event's samples of a call from
 * its switches' by this). */
static void test_sample_events(void)
{
	struct file f;
	unsigned char attr[136] = { 0 };
	uint64_t type = (1u << 16) | (1u << 0) | (1u << 1) | (1u << 2), got[4];
	uint64_t flags = (1ull << 26) | (1ull << 18), ids[] = { 9, 7 }, sample_id[] = { 7, 11, 9 };
	size_t ids_off = 104 + 2 * sizeof(attr), data_off = ids_off + 16;
	int ev[4];

	f.len = 0;
	put_file_header(&f, data_off, 0, 0);
	put_at64(&f, 24, 104);
	put_at64(&f, 32, 2 * sizeof(attr));
	memcpy(attr + 24, &type, 8);
	for (int k = 0; k < 2; k++) {
		uint64_t at = ids_off + 8 * (uint64_t)k, size = 8;

		/* the second records the switches; each lists its identifier */
		memcpy(attr + 40, k ? &flags : &(uint64_t){ 0 }, 8);
		memcpy(attr + sizeof(attr) - 16, &at, 8);
		memcpy(attr + sizeof(attr) - 8, &size, 8);
		put(&f, attr, sizeof(attr));
	}
	put(&f, ids, sizeof(ids));
	for (int i = 0; i < 3; i++) {
		put_header(&f, PERFDATA_REC_SAMPLE, 0, 8 + 32);
		put64(&f, sample_id[i]);
		put64(&f, 0x401000);
		put64(&f, 1);
		put64(&f, 10 * (uint64_t)(i + 1));
	}
	put_header(&f, PERFDATA_REC_SWITCH, 0, 8 + 24);
	put64(&f, 1);          /* pid, tid */
	put64(&f, 5);          /* time */
	put64(&f, 7);          /* identifier */
	put_at64(&f, 48, f.len - data_off);
	CHECK_INT_EQ((int)times_of(&f, got, ev), 4);
	CHECK(got[0] == 5 && got[1] == 10 && got[2] == 20 && got[3] == 30);
	CHECK_INT_EQ(ev[0], PERFDATA_TIME_SWITCH);
	CHECK_INT_EQ(ev[1], 1);
	CHECK_INT_EQ(ev[2], PERFDATA_TIME_UNKNOWN);
	CHECK_INT_EQ(ev[3], 0);
	/* ids past the end of the file: refused, not read as none */
	put_at64(&f, 104 + sizeof(attr) - 16, f.len);
	CHECK_INT_EQ((int)times_of(&f, got, ev), -1);
	/* one event: every sample is its own, identifier or not */
	put_at64(&f, 104 + sizeof(attr) - 16, ids_off);
	put_at64(&f, 32, sizeof(attr));
	put_at64(&f, 104 + sizeof(attr) - 16 + sizeof(attr), 0);
	CHECK_INT_EQ((int)times_of(&f, got, ev), 3);
	CHECK(ev[0] == 0 && ev[1] == 0 && ev[2] == 0);
}

/* Keeps every record but COMMs. */
static bool not_comm(const unsigned char *rec, void *arg)
{
	(void)arg;
	return rec[0] != PERFDATA_REC_COMM;
}

/* perfdata_rewrite: a prefix of records first, a record left out, the
 * feature sections moved (their build ids read back the same); the pipe
 * format refused. */
static void test_rewrite(void)
{
	struct file f, pre;
	struct got before, after;
	struct perfdata_records *r = malloc(sizeof(*r));
	struct perfdata_header h;
	const unsigned char *rec;
	char why[256];
	int fd, err, types[8], n = 0;

	make_feature_file(&f);
	CHECK_INT_EQ(read_ids(&f, f.len, &before, why, sizeof(why)), 0);
	pre.len = 0;
	put_header(&pre, PERFDATA_REC_FORK, 0, 8 + 8);
	put64(&pre, 0);
	fd = open(unit_tmp("rewritten.data"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && r);
	if (fd < 0 || !r) {
		free(r);
		return;
	}
	CHECK_INT_EQ(perfdata_rewrite(write_file(&f, f.len), pre.b, pre.len, not_comm, NULL, fd), 0);
	memset(&after, 0, sizeof(after));
	CHECK_INT_EQ(perfdata_buildids(unit_tmp("rewritten.data"), collect, &after, why,
				       sizeof(why)), 0);
	CHECK_STR_EQ(after.text, before.text);
	CHECK_INT_EQ(perfdata_header_read(fd, &h), 0);
	perfdata_records_start(r, fd, &h);
	while ((rec = perfdata_record_next(r, &err)) && n < 8)
		types[n++] = rec[0];
	CHECK_INT_EQ(err, 0);
	CHECK_INT_EQ(n, 2);   /* the FORK, the MMAP2; the COMM left out */
	CHECK_INT_EQ(types[0], PERFDATA_REC_FORK);
	CHECK_INT_EQ(types[1], PERFDATA_REC_MMAP2);
	close(fd);
	free(r);
	make_pipe_file(&f);
	fd = open(unit_tmp("rewritten.data"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK_INT_EQ(perfdata_rewrite(write_file(&f, f.len), NULL, 0, NULL, NULL, fd), -ENOTSUP);
	close(fd);
}

/* A file of MMAP2 records (PATHS, N of them, with build ids of SEED...)
 * and a COMM of pid 7 when WITH_COMM, written to NAME in the scratch
 * directory; returns its path. */
static const char *sideband_file(const char *name, const char *const *paths, int n,
				 int with_comm)
{
	struct file f = { .len = 0 };

	put_file_header(&f, 104, 0, 0);
	for (int i = 0; i < n; i++)
		put_mmap2(&f, paths[i], (unsigned char)(0x10 * (i + 1)), 1);
	if (with_comm) {
		put_header(&f, PERFDATA_REC_COMM, 0, 8 + 16);
		put(&f, (const uint32_t[]){ 7, 7 }, 8);
		put(&f, "prog\0\0\0\0", 8);
	}
	put_at64(&f, 48, f.len - 104);
	return unit_tmp_write(name, f.b, f.len);
}

/* sideband: the first file carries nothing; a later one gets all the
 * earlier records, also when it names every pid (perf's switch lists only
 * executable maps); a record seen again (perf's synthesized records of
 * every switch) is held once; one new record is added. */
static void test_sideband(void)
{
	static const char *const first[] = { "/usr/bin/prog", "/lib/libc.so.6" };
	static const char *const later[] = { "/usr/bin/prog", "/lib/libc.so.6", "/lib/libm.so.6" };
	const int64_t pids[] = { 7 };
	struct sideband sb = { 0 };
	size_t len;

	CHECK_INT_EQ(sideband_scan(&sb, sideband_file("s0.data", first, 2, 1), pids, 1), 0);
	CHECK(sb.complete);
	CHECK(!sideband_wanted(&sb));
	CHECK_INT_EQ(sideband_next(&sb), 0);
	len = sb.len;
	CHECK(len > 0);
	CHECK_INT_EQ(sideband_scan(&sb, sideband_file("s1.data", first, 2, 1), pids, 1), 0);
	CHECK(sb.complete);
	CHECK(sideband_wanted(&sb));
	CHECK_INT_EQ(sideband_next(&sb), 0);
	CHECK_U64_EQ(sb.len, len);
	CHECK_INT_EQ(sideband_scan(&sb, sideband_file("s2.data", later, 3, 0), pids, 1), 0);
	CHECK(!sb.complete);
	CHECK(sideband_wanted(&sb));
	CHECK_INT_EQ(sideband_next(&sb), 0);
	CHECK(sb.len > len);
	len = sb.len;
	for (int i = 0; i < 100; i++) {
		CHECK_INT_EQ(sideband_scan(&sb, sideband_file("s3.data", later, 3, 1), pids, 1), 0);
		CHECK_INT_EQ(sideband_next(&sb), 0);
	}
	CHECK_U64_EQ(sb.len, len);
	sideband_free(&sb);
}

/* The data section and the feature sections, read back from a file. */
static void test_header_feature(void)
{
	struct file f;
	struct perfdata_header h;
	uint64_t off = 0, size = 0;
	int fd;

	make_feature_file(&f);
	CHECK_INT_EQ(read_ids(&f, f.len, &(struct got){ .len = 0 }, (char[64]){ 0 }, 64), 0);
	fd = open(unit_tmp("perf.data"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK_INT_EQ(perfdata_header_read(fd, &h), 0);
	CHECK(!h.pipe);
	CHECK_U64_EQ(h.data_off, 104);
	CHECK_U64_EQ(h.file_size, f.len);
	CHECK_INT_EQ(perfdata_feature(fd, &h, PERFDATA_FEAT_BUILD_ID, &off, &size), 0);
	CHECK_U64_EQ(off + size, f.len);
	CHECK_INT_EQ(perfdata_feature(fd, &h, 3, &off, &size), -ENOENT);
	close(fd);
}

/* A MMAP (MMAP2: prot and flags too) record of PATH by PID (its thread
 * too) at AT (start, len, pgoff), MISC its header's. */
static void put_map_at(struct file *f, uint32_t type, uint16_t misc, uint32_t pid, uint32_t prot,
		       uint32_t flags, const uint64_t at[3], const char *path)
{
	unsigned char body[64] = { 0 };
	size_t head = type == PERFDATA_REC_MMAP2 ? 64 : 32;
	size_t name = (strlen(path) + 1 + 7) / 8 * 8;
	char pad[64] = { 0 };

	memcpy(body, &pid, 4);
	memcpy(body + 4, &pid, 4);
	memcpy(body + 8, at, 3 * sizeof(*at));   /* start, len, pgoff */
	memcpy(body + 56, &prot, 4);
	memcpy(body + 60, &flags, 4);
	put_header(f, type, misc, (uint16_t)(8 + head + name));
	put(f, body, head);
	memcpy(pad, path, strlen(path));
	put(f, pad, name);
}

/* put_map_at() at an address of PID's. */
static void put_map(struct file *f, uint32_t type, uint16_t misc, uint32_t pid, uint32_t prot,
		    uint32_t flags, const char *path)
{
	const uint64_t at[3] = { 0x400000 + (pid % 16) * 0x10000, 0x3000, (pid % 16) * 0x1000 };

	put_map_at(f, type, misc, pid, prot, flags, at, path);
}

/* Mappings perf reads a perf map for, and others: pids past any live one
 * (pid_max is at most 4194304) from 4194401 on. */
static void make_jit_file(struct file *f)
{
	f->len = 0;
	put_file_header(f, 104, 0, 0);
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 0x22, "//anon");            /* r-x: yes */
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194402, 3, 0x22, "//anon");            /* rw-: no */
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194403, 1, 0, "/tmp/perf-7.map");      /* the name: yes */
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194404, 4, 0x40000, "/hugetlb/x");   /* MAP_HUGETLB: yes */
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194405, 4, 2, "/usr/lib/libc.so.6");   /* a file: no */
	put_map(f, PERFDATA_REC_MMAP, 0, 4194406, 0, 0, "[heap]");                /* MMAP: exec */
	put_map(f, PERFDATA_REC_MMAP, 1u << 13, 4194407, 0, 0, "[heap]");         /* MMAP_DATA: no */
	put_map(f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 0x22, "[stack]");           /* again: once */
	put_at64(f, 48, f->len - 104);
}

/* What perfdata_mmaps() gives, a line each. */
static int mmap_line(void *arg, const struct perfdata_mmap *m)
{
	struct got *g = arg;
	int n = snprintf(g->text + g->len, sizeof(g->text) - g->len,
			 "%s %u/%u %s %#x %#" PRIx64 "+%#" PRIx64 "@%#" PRIx64 "\n", m->file,
			 m->pid, m->tid, m->exec ? "x" : "-", m->flags, m->start, m->len, m->pgoff);

	if (n > 0 && (size_t)n < sizeof(g->text) - g->len)
		g->len += (size_t)n;
	return 0;
}

static void test_mmaps(void)
{
	struct file f;
	struct got g = { .len = 0 };
	const char *path;

	make_jit_file(&f);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(perfdata_mmaps(path, mmap_line, &g), 0);
	CHECK_STR_EQ(g.text,
		     "//anon 4194401/4194401 x 0x22 0x410000+0x3000@0x1000\n"
		     "//anon 4194402/4194402 - 0x22 0x420000+0x3000@0x2000\n"
		     "/tmp/perf-7.map 4194403/4194403 - 0 0x430000+0x3000@0x3000\n"
		     "/hugetlb/x 4194404/4194404 x 0x40000 0x440000+0x3000@0x4000\n"
		     "/usr/lib/libc.so.6 4194405/4194405 x 0x2 0x450000+0x3000@0x5000\n"
		     "[heap] 4194406/4194406 x 0 0x460000+0x3000@0x6000\n"
		     "[heap] 4194407/4194407 - 0 0x470000+0x3000@0x7000\n"
		     "[stack] 4194401/4194401 x 0x22 0x410000+0x3000@0x1000\n");
}

/* convert/ipname's table of the mappings: whether a call chain's frame, as
 * perf prints it (the address in memory perf maps one to one, else the
 * offset in the file), lies in a mapping that is not executable and in no
 * executable one of its name, per process. */
static void test_maps_data(void)
{
	enum { A = 4194501, B = 4194502, C = 4194503 };
	static const struct {
		uint32_t type, pid, prot;
		uint16_t misc;
		uint64_t at[3];
		const char *file;
	} maps[] = {
		{ PERFDATA_REC_MMAP2, A, 3, 0, { 0x7f0000000000, 0x10000, 0x7f0000000000 }, "//anon" },
		{ PERFDATA_REC_MMAP2, A, 5, 0, { 0x7f0000100000, 0x1000, 0x7f0000100000 }, "//anon" },
		/* mapped over: data, then code (perf's name tells nothing more) */
		{ PERFDATA_REC_MMAP2, A, 3, 0, { 0x7f0000200000, 0x1000, 0x7f0000200000 }, "//anon" },
		{ PERFDATA_REC_MMAP2, A, 7, 0, { 0x7f0000200000, 0x1000, 0x7f0000200000 }, "//anon" },
		{ PERFDATA_REC_MMAP2, A, 3, 0, { 0x600000, 0x4000, 0 }, "/data/f" },
		{ PERFDATA_REC_MMAP2, A, 1, 0, { 0x500000, 0x1000, 0 }, "/bin/p" },
		{ PERFDATA_REC_MMAP2, A, 5, 0, { 0x501000, 0x1000, 0x1000 }, "/bin/p" },
		{ PERFDATA_REC_MMAP2, A, 1, 0, { 0x502000, 0x1000, 0x2000 }, "/bin/p" },
		{ PERFDATA_REC_MMAP2, A, 3, 0, { 0x1000000, 0x1000, 0 }, "[heap]" },
		/* an old perf's MMAP: code unless it says data */
		{ PERFDATA_REC_MMAP, C, 0, 0, { 0x7f0000000000, 0x10000, 0x7f0000000000 }, "//anon" },
		{ PERFDATA_REC_MMAP, C, 0, 1u << 13, { 0x1000000, 0x1000, 0 }, "[heap]" },
	};
	struct conv_maps *m = NULL;
	struct file f;
	const char *path;

	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		put_map_at(&f, maps[i].type, maps[i].misc, maps[i].pid, maps[i].prot, 0x22,
			   maps[i].at, maps[i].file);
	put_at64(&f, 48, f.len - 104);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(conv_maps_read(path, &m), 0);
#define DATA(pid, file, addr) conv_maps_data(m, pid, file, strlen(file), addr)
	CHECK(DATA(A, "//anon", 0x7f0000002345));        /* in the arena */
	CHECK(DATA(A, "//anon", 0x7f0000000000));
	CHECK(!DATA(A, "//anon", 0x7f0000010000));       /* past it */
	CHECK(!DATA(A, "//anon", 0x7f0000100010));       /* the JIT's code */
	CHECK(!DATA(A, "//anon", 0x7f0000200010));       /* code once */
	CHECK(!DATA(A, "/tmp/perf-4194501.map", 0x7f0000100010));   /* perf's name of code */
	CHECK(DATA(A, "/data/f", 0x2345));               /* a file: its offset */
	CHECK(!DATA(A, "/data/f", 0x602345));
	CHECK(DATA(A, "/bin/p", 0x800));                 /* the ELF header's segment */
	CHECK(!DATA(A, "/bin/p", 0x1800));               /* code */
	CHECK(!DATA(A, "/bin/p", 0x2000));               /* a return address past its end */
	CHECK(DATA(A, "/bin/p", 0x2001));                /* .rodata */
	CHECK(DATA(A, "[heap]", 0x1000800));             /* its address */
	CHECK(!DATA(B, "//anon", 0x7f0000002345));       /* another process's */
	CHECK(!DATA(C, "//anon", 0x7f0000002345));       /* MMAP: code */
	CHECK(DATA(C, "[heap]", 0x1000800));             /* MMAP with MMAP_DATA */
	CHECK(!DATA(A, "/data/f", 0x4000));
#undef DATA
	CHECK(!conv_maps_data(NULL, A, "//anon", 6, 0x7f0000002345));
	conv_maps_free(m);

	/* no mapping that is not code (perf record without -d): nothing is data */
	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	put_map_at(&f, PERFDATA_REC_MMAP2, 0, A, 5, 0x22, maps[1].at, "//anon");
	put_at64(&f, 48, f.len - 104);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(conv_maps_read(path, &m), 0);
	CHECK(!conv_maps_data(m, A, "//anon", 6, 0x7f0000100010));
	conv_maps_free(m);
}

/* The perf maps a view holds for that file: one per process perf reads
 * one for (tmpview.h), each empty (no such file in /tmp), and no other
 * (perf's own, perf-1.map as process 1 of its pid namespace, not there). */
static void test_tmpview_names(void)
{
	struct tmpview *v = NULL;
	struct file f;
	char why[256] = "", names[256] = "";
	const char *path;

	make_jit_file(&f);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(tmpview_make(path, -1, CALLERS, NULL, NULL, &v, why, sizeof(why)), 0);
	CHECK(v != NULL);
	for (size_t i = 0; v && i < v->n; i++) {
		strcat(names, v->files[i].name);
		strcat(names, v->files[i].fd < 0 ? " " : "+ ");
	}
	CHECK_STR_EQ(names, "perf-4194401.map perf-4194403.map perf-4194404.map perf-4194406.map ");
	tmpview_free(v);
}

/* A perf.data of files only (no perf map to open): root still gets a
 * view, empty of perf maps (perf's copy of the vdso and the debug file it
 * then looks for in /tmp/.debug stay in perf's tmpfs: tmpview.h); another
 * caller none. */
static void test_tmpview_no_maps(void)
{
	struct tmpview *v = NULL;
	struct file f;
	char why[256] = "";
	const char *path;

	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194405, 4, 2, "/usr/lib/libc.so.6");
	put_at64(&f, 48, f.len - 104);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(tmpview_make(path, -1, CALLERS, NULL, NULL, &v, why, sizeof(why)), 0);
	if (nsenter_admin_permitted()) {
		CHECK(v != NULL);
		CHECK(v && v->n == 0);
	} else {
		CHECK(v == NULL);
	}
	tmpview_free(v);
}

/* The names of V's entries that start with PREFIX, a space after each,
 * into OUT (SIZE bytes); returns how many. */
static size_t entries_named(const struct tmpview *v, const char *prefix, char *out, size_t size)
{
	size_t n = 0, len = 0;

	out[0] = 0;
	for (size_t i = 0; v && i < v->nentries; i++)
		if (!strncmp(v->entries[i].name, prefix, strlen(prefix))) {
			n++;
			if (len < size)
				len += (size_t)snprintf(out + len, size - len, "%s%s ",
							v->entries[i].name, v->entries[i].link ? "@" : "");
		}
	return n;
}

/* The names of the real /tmp a view shows: those the mappings' files are in
 * (after "/tmp//./"), the link among them and the name its target leads to,
 * never a name missing, ".." or another name of /tmp (here: one made
 * beside them); past TMPVIEW_ENTRIES_MAX mapped names, no more. */
static void test_tmpview_entries(void)
{
	char p[64], path[128], why[256] = "", names[512], want[512];
	const char *names_at[] = { "a", "b", "c", "other" };
	struct tmpview *v = NULL;
	static struct file f;
	const char *data;
	int fd;

	snprintf(p, sizeof(p), "st-unit-view-%d-", (int)getpid());
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/tmp/%s%s", p, names_at[i]);
		CHECK(mkdir(path, 0700) == 0);
	}
	snprintf(path, sizeof(path), "/tmp/%slink", p);
	snprintf(names, sizeof(names), "%sc/x", p);
	CHECK(symlink(names, path) == 0);
	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 0x22, "//anon");
	snprintf(path, sizeof(path), "/tmp/%sa/bin", p);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, path);
	snprintf(path, sizeof(path), "//tmp/./%sb/lib.so", p);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, path);
	snprintf(path, sizeof(path), "/tmp/%slink/y.so", p);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, path);
	snprintf(path, sizeof(path), "/tmp/%smissing/z.so", p);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, path);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, "/tmp/../etc/passwd");
	put_at64(&f, 48, f.len - 104);
	data = write_file(&f, f.len);
	CHECK(data != NULL);
	CHECK_INT_EQ(tmpview_make(data, -1, CALLERS, NULL, NULL, &v, why, sizeof(why)), 0);
	CHECK_INT_EQ((int)entries_named(v, p, names, sizeof(names)), 4);
	snprintf(want, sizeof(want), "%sa %sb %slink@ %sc ", p, p, p, p);
	CHECK_STR_EQ(names, want);
	tmpview_free(v);
	v = NULL;

	/* 1100 names of /tmp, each mapped: TMPVIEW_ENTRIES_MAX of them shown */
	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 0x22, "//anon");
	for (int i = 0; i < 1100; i++) {
		snprintf(path, sizeof(path), "/tmp/%sn%d", p, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 2, path);
	}
	put_at64(&f, 48, f.len - 104);
	data = write_file(&f, f.len);
	CHECK(data != NULL);
	CHECK_INT_EQ(tmpview_make(data, -1, CALLERS, NULL, NULL, &v, why, sizeof(why)), 0);
	CHECK(v && v->nentries <= TMPVIEW_ENTRIES_MAX);
	CHECK(entries_named(v, p, names, sizeof(names)) + 8 >= TMPVIEW_ENTRIES_MAX);
	tmpview_free(v);
	for (int i = 0; i < 1100; i++) {
		snprintf(path, sizeof(path), "/tmp/%sn%d", p, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "/tmp/%slink", p);
	unlink(path);
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/tmp/%s%s", p, names_at[i]);
		rmdir(path);
	}
}

/* A PERF_RECORD_COMPRESSED record (perf record -z) after a mapping: its
 * mappings are not read, so perfdata_mmaps() stops there and no view is
 * made: the conversion is refused, naming -z. */
static void test_tmpview_compressed(void)
{
	struct tmpview *v = NULL;
	struct got g = { .len = 0 };
	char why[256] = "";
	struct file f;
	const char *path;
	uint64_t zero = 0;

	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194401, 5, 0x22, "//anon");
	put_header(&f, PERFDATA_REC_COMPRESSED, 0, 16);
	put(&f, &zero, 8);
	put_map(&f, PERFDATA_REC_MMAP2, 0, 4194402, 5, 0x22, "//anon");
	put_at64(&f, 48, f.len - 104);
	path = write_file(&f, f.len);
	CHECK(path != NULL);
	CHECK_INT_EQ(perfdata_mmaps(path, mmap_line, &g), -ENOTSUP);
	CHECK_STR_EQ(g.text, "//anon 4194401/4194401 x 0x22 0x410000+0x3000@0x1000\n");
	CHECK_INT_EQ(tmpview_make(path, -1, CALLERS, NULL, NULL, &v, why, sizeof(why)), -ENOTSUP);
	CHECK(v == NULL);
	CHECK(strstr(why, "compressed (perf record -z)") && strstr(why, "record without -z"));
	tmpview_free(v);
}

/* A process seen as two users while recorded (a launch noted as root's
 * before it ran that became uid 1000's: setpriv): no map from /tmp is its,
 * neither user's (root's stale 0600 map at its pid once named its frames);
 * seen twice as one user, that user's; the recorder (live) judges it by its
 * user as it runs (this process), whatever it was seen as before. */
static void test_perfmap_users_seen(void)
{
	const struct perfmap_user seen[] = { { 4194301, { 0, 0 }, 0 }, { 4194302, { 1000, 1000 }, 0 },
					     { 4194301, { 1000, 1000 }, 0 }, { 4194302, { 1000, 1000 }, 0 } };
	struct perfmap_users rec = { seen, 4, (uid_t)-1, false };
	char why[300] = "";

	CHECK(!perfmap_users_ok(&rec, 0, 4194301, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 0; process 4194301 ran as more than one user while "
		     "recorded (uid 0, effective uid 0, and uid 1000, effective uid 1000)");
	CHECK(!perfmap_users_ok(&rec, 1000, 4194301, why, sizeof(why)));
	CHECK(strstr(why, "ran as more than one user") != NULL);
	CHECK(perfmap_users_ok(&rec, 1000, 4194302, why, sizeof(why)));
	CHECK(!perfmap_users_ok(&rec, 0, 4194302, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 0, not by process 4194302's user (uid 1000)");
	if (getuid() == geteuid()) {
		const struct perfmap_user me[] = { { getpid(), { getuid() + 1, getuid() + 1 }, 0 },
						   { getpid(), { getuid(), getuid() }, 0 } };
		struct perfmap_users live = { me, 2, (uid_t)-1, true };

		CHECK(perfmap_users_ok(&live, getuid(), getpid(), why, sizeof(why)));
		CHECK(!perfmap_users_ok(&live, getuid() + 1, getpid(), why, sizeof(why)));
		CHECK(strstr(why, "user now") != NULL);
		live.n = 0;	/* not one the recorder noted: none */
		CHECK(!perfmap_users_ok(&live, getuid(), getpid(), why, sizeof(why)));
	}
}

/* A map file last changed before its process came to be ("born") is an
 * earlier process's of that pid, not its, whoever owns it (root's stale
 * 0600 map was judged a child's of root's launch while the child was still
 * root's); one changed since, or within PERFMAP_BORN_SLACK_NS before (the
 * file times run a clock tick behind), is judged by its owner; no born
 * told (an older record.json): by its owner alone. */
static void test_perfmap_born(void)
{
	const int64_t born = 1700000000000000000;
	const struct perfmap_user seen[] = { { 4194301, { 0, 0 }, born },
					     { 4194301, { 0, 0 }, 0 }, { 4194302, { 0, 0 }, 0 } };
	struct perfmap_users rec = { seen, 3, (uid_t)-1, false };
	struct stat st = { .st_uid = 0 };
	char why[300] = "";

	st.st_ctim = (struct timespec){ born / 1000000000 - 1, 0 };
	CHECK(!perfmap_file_ok(&rec, &st, 4194301, why, sizeof(why)));
	CHECK_STR_EQ(why, "there, unchanged, since before process 4194301 came to be: a stale "
		     "map, not its");
	st.st_ctim = (struct timespec){ born / 1000000000, 0 };
	st.st_ctim.tv_sec -= 1;
	st.st_ctim.tv_nsec = 1000000000 - PERFMAP_BORN_SLACK_NS - 1;
	CHECK(!perfmap_file_ok(&rec, &st, 4194301, why, sizeof(why)));
	st.st_ctim.tv_nsec += 2;	/* within the slack */
	CHECK(perfmap_file_ok(&rec, &st, 4194301, why, sizeof(why)));
	st.st_ctim = (struct timespec){ born / 1000000000 + 5, 0 };
	CHECK(perfmap_file_ok(&rec, &st, 4194301, why, sizeof(why)));
	st.st_uid = 1000;	/* a fresh map is still judged by its owner */
	CHECK(!perfmap_file_ok(&rec, &st, 4194301, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 1000, not by process 4194301's user (uid 0)");
	st = (struct stat){ .st_uid = 0 };	/* no born told: its owner alone */
	CHECK(perfmap_file_ok(&rec, &st, 4194302, why, sizeof(why)));
}

/* Whose perf map may name a process's frames (perfmap.h): a recorded
 * process's user as recorded, its real and effective uid both, whoever has
 * its pid now; a pid not recorded (a child, a thread): nobody's map, for
 * every user (root's launch that dropped to another user once had its
 * children take root's maps: hostile18 NEW 1); the recorder's rule (live):
 * also the live process's user now; none told: the perf.data's owner, who
 * must also be the live process's user, real and effective (a setuid
 * program's euid 0 once took root's map: hostile18 NEW 3; a process gone:
 * none; pid 4194303 is past this host's pid_max or at least unused in the
 * test's namespace). */
static void test_perfmap_users(void)
{
	const struct perfmap_user two[] = { { 4194301, { 1000, 1000 }, 0 }, { 4194302, { 1000, 0 }, 0 } };
	const struct perfmap_user roots[] = { { 4194301, { 0, 0 }, 0 } };
	struct perfmap_users rec = { two, 2, (uid_t)-1, false };
	struct perfmap_users none = { NULL, 0, geteuid(), false };
	char why[200] = "";

	CHECK(perfmap_users_ok(&rec, 1000, 4194301, why, sizeof(why)));
	CHECK(!perfmap_users_ok(&rec, 0, 4194301, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 0, not by process 4194301's user (uid 1000)");
	/* a setuid program (real 1000, effective 0): neither uid alone is its user */
	CHECK(!perfmap_users_ok(&rec, 0, 4194302, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 0, not by process 4194302's user (uid 1000)");
	CHECK(!perfmap_users_ok(&rec, 1000, 4194302, why, sizeof(why)));
	CHECK_STR_EQ(why, "owned by uid 1000, not by process 4194302's user (uid 0)");
	/* a pid not recorded: no map, even of a user every process recorded had */
	CHECK(!perfmap_users_ok(&rec, 1000, 4194303, why, sizeof(why)));
	CHECK(!perfmap_users_ok(&(struct perfmap_users){ roots, 1, (uid_t)-1, false }, 0, 4194303,
				why, sizeof(why)));
	CHECK_STR_EQ(why, "process 4194303 is not one the recording lists (a child or a "
		     "thread: its user is not known) and the recording kept no copy");
	/* one process recorded: another pid (a live one, this) is no map's,
	 * not its user's, not the live process's user's */
	rec.n = 1;
	CHECK(!perfmap_users_ok(&rec, 1000, getpid(), why, sizeof(why)));
	CHECK(!perfmap_users_ok(&rec, geteuid(), getpid(), why, sizeof(why)));
	/* a process recorded as uid 1000's whose pid a live process of the caller's
	 * has now (this one): the caller's map is not its */
	if (geteuid() != 1000 && getuid() != 1000) {
		struct perfmap_user was = { getpid(), { 1000, 1000 }, 0 };
		struct perfmap_user me = { getpid(), { getuid(), geteuid() }, 0 };

		CHECK(!perfmap_users_ok(&(struct perfmap_users){ &was, 1, geteuid(), false },
					geteuid(), getpid(), why, sizeof(why)));
		/* the recorder's rule: recorded as uid 1000's, but the user now (this
		 * process) is another: a launch noted before it dropped its uid */
		CHECK(!perfmap_users_ok(&(struct perfmap_users){ &was, 1, (uid_t)-1, true },
					1000, getpid(), why, sizeof(why)));
		CHECK(strstr(why, "not by process") && strstr(why, "user now"));
		if (getuid() == geteuid())
			CHECK(perfmap_users_ok(&(struct perfmap_users){ &me, 1, (uid_t)-1, true },
					       geteuid(), getpid(), why, sizeof(why)));
		me.pid = 4194303;	/* gone: the recorder judges no map of it */
		CHECK(!perfmap_users_ok(&(struct perfmap_users){ &me, 1, (uid_t)-1, true },
					geteuid(), 4194303, why, sizeof(why)));
		CHECK(strstr(why, "gone before its map was opened") != NULL);
	}
	if (getuid() == geteuid())
		CHECK(perfmap_users_ok(&none, geteuid(), getpid(), why, sizeof(why)));
	CHECK(!perfmap_users_ok(&none, geteuid() + 1, getpid(), why, sizeof(why)));
	CHECK(strstr(why, "not by both the recording's owner") != NULL);
	CHECK(!perfmap_users_ok(&none, geteuid(), 4194303, why, sizeof(why)));
	CHECK(strstr(why, "process 4194303 gone, and no record.json tells its user") != NULL);
	none.owner = geteuid() + 1;	/* another's perf.data: the live process's user is not it */
	CHECK(!perfmap_users_ok(&none, geteuid(), getpid(), why, sizeof(why)));
}

/* A view of 35 processes whose maps the recording kept: at most
 * PERFMAP_FILES_MAX files and PERFMAP_TOTAL_MAX bytes of contents
 * (perfmap.h), the rest empty; a map of the same file (a hard link, as a
 * thread's is its process's) is one copy. */
static void test_tmpview_budget(void)
{
	struct tmpview *v = NULL;
	struct file f;
	char why[256] = "", name[64];
	const char *path, *dir = unit_tmp("kept");
	int rec, files = 0, same = -1;
	uint64_t bytes = 0;

	f.len = 0;
	put_file_header(&f, 104, 0, 0);
	for (uint32_t pid = 4194401; pid <= 4194435; pid++)
		put_map(&f, PERFDATA_REC_MMAP2, 0, pid, 5, 0x22, "//anon");
	put_at64(&f, 48, f.len - 104);
	path = write_file(&f, f.len);
	CHECK(path != NULL && mkdir(dir, 0755) == 0);
	rec = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(rec >= 0);
	for (int pid = 4194401; rec >= 0 && pid <= 4194434; pid++) {
		int fd;

		snprintf(name, sizeof(name), "perf-%d.map", pid);
		fd = openat(rec, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		CHECK(fd >= 0 && write(fd, "1000 10 f\n", 10) == 10);
		/* sparse: 200 MiB, then 100 MiB (past the 256 MiB in all) */
		if (pid <= 4194402)
			CHECK(ftruncate(fd, pid == 4194401 ? 200 << 20 : 100 << 20) == 0);
		close(fd);
	}
	CHECK(linkat(rec, "perf-4194403.map", rec, "perf-4194435.map", 0) == 0);
	CHECK_INT_EQ(tmpview_make(path, rec, CALLERS, NULL, NULL, &v, why, sizeof(why)), 0);
	CHECK(v != NULL);
	for (size_t i = 0; v && i < v->n; i++) {
		if (v->files[i].fd >= 0) {
			files++;
			bytes += (uint64_t)v->files[i].size;
		}
		if (!strcmp(v->files[i].name, "perf-4194402.map") ||
		    !strcmp(v->files[i].name, "perf-4194434.map"))
			CHECK(v->files[i].fd < 0 && v->files[i].same < 0);
		if (!strcmp(v->files[i].name, "perf-4194435.map"))
			same = (int)v->files[i].same;
	}
	CHECK_INT_EQ(files, (int)PERFMAP_FILES_MAX);
	CHECK(bytes <= PERFMAP_TOTAL_MAX);
	CHECK(same >= 0 && v && !strcmp(v->files[same].name, "perf-4194403.map"));
	tmpview_free(v);
	if (rec >= 0)
		close(rec);
}

int main(void)
{
	if (unit_tmp_init("test_perfdata"))
		return 1;
	UNIT_RUN(test_feature);
	UNIT_RUN(test_tmpview_budget);
	UNIT_RUN(test_perfmap_users);
	UNIT_RUN(test_perfmap_users_seen);
	UNIT_RUN(test_perfmap_born);
	UNIT_RUN(test_mmap2);
	UNIT_RUN(test_origin);
	UNIT_RUN(test_pipe);
	UNIT_RUN(test_not_perf_data);
	UNIT_RUN(test_cut);
	UNIT_RUN(test_garbage);
	UNIT_RUN(test_header_feature);
	UNIT_RUN(test_event_names);
	UNIT_RUN(test_sample_types);
	UNIT_RUN(test_sample_times);
	UNIT_RUN(test_sample_events);
	UNIT_RUN(test_rewrite);
	UNIT_RUN(test_sideband);
	UNIT_RUN(test_mmaps);
	UNIT_RUN(test_maps_data);
	UNIT_RUN(test_tmpview_names);
	UNIT_RUN(test_tmpview_no_maps);
	UNIT_RUN(test_tmpview_entries);
	UNIT_RUN(test_tmpview_compressed);
	unit_tmp_fini();
	return unit_exit();
}
