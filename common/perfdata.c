/* SPDX-License-Identifier: MIT */
#include "perfdata.h"
#include "array.h"
#include "inpath.h"
#include "perfattr.h"

#include "array.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "PERFILE2"
#define HEADER_SIZE 104          /* struct perf_file_header */
#define PIPE_HEADER_SIZE 16      /* struct perf_pipe_file_header */
#define REC_HEADER 8             /* struct perf_event_header */
#define MISC_MMAP_BUILD_ID (1u << 14)   /* PERF_RECORD_MISC_MMAP_BUILD_ID */
#define MISC_BUILD_ID_SIZE (1u << 15)   /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define BUILD_ID_SIZE 20         /* bytes of a build id perf keeps */
#define BUILD_ID_NAME 36         /* struct perf_record_header_build_id: its filename */
#define MMAP2_BUILD_ID 40        /* struct perf_record_mmap2: build_id_size, then the id */
#define MMAP2_NAME 72            /* its filename */
#define MMAP2_PROT 64            /* struct perf_record_mmap2: its prot */
#define MISC_MMAP_DATA (1u << 13) /* PERF_RECORD_MISC_MMAP_DATA: a data mapping */
#define MMAP_NAME 40             /* struct perf_record_mmap: its filename */

static bool is_perf_data(const char *name)
{
	return !strncmp(name, "perf.data", 9);
}


int perfdata_open(const char *path)
{
	char why[8];
	int fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));

	if (fd < 0)
		errno = -fd;
	return fd < 0 ? -1 : fd;
}

/* Orders names as alphasort() does (strcoll), for array_sort(). */
static int by_name(const void *a, const void *b)
{
	return strcoll(*(char *const *)a, *(char *const *)b);
}

int perfdata_scan(int dirfd, char ***names)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	size_t cap = 0;
	struct dirent *de;
	char **v = NULL;

	*names = NULL;
	if (!d) {
		n = -errno;
		if (fd >= 0)
			close(fd);
		return n;
	}
	while ((de = readdir(d))) {
		char **grown;

		if (!is_perf_data(de->d_name))
			continue;
		grown = array_grow(v, &cap, (size_t)n + 1, sizeof(*v));
		if (!grown || !(grown[n] = strdup(de->d_name))) {
			v = grown ? grown : v;
			n = -ENOMEM;
			break;
		}
		v = grown;
		v[++n] = NULL;
	}
	closedir(d);
	if (n == 0 && !(v = calloc(1, sizeof(*v))))
		n = -ENOMEM;
	if (n < 0) {
		for (size_t i = 0; v && v[i]; i++)
			free(v[i]);
		free(v);
		return n;
	}
	if (n)
		array_sort(v, (size_t)n, sizeof(*v), by_name);
	*names = v;
	return n;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t le16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* pread() of exactly N bytes at OFF: 0, -EIO when the file ends first, or -errno. */
static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

/* Does [OFF, OFF + SIZE) lie within a file of FILE_SIZE bytes? */
static bool within(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

int perfdata_header_read(int fd, struct perfdata_header *h)
{
	unsigned char b[HEADER_SIZE];
	struct stat st;
	ssize_t n;
	uint64_t file_size;

	memset(h, 0, sizeof(*h));
	if (fstat(fd, &st))
		return -errno;
	file_size = (uint64_t)st.st_size;
	do
		n = pread(fd, b, sizeof(b), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n < 8 || memcmp(b, MAGIC, 8))
		return -EINVAL;	/* also the other byte order: "2ELIFREP" */
	if (n < PIPE_HEADER_SIZE)
		return -EIO;
	h->file_size = file_size;
	if (le64(b + 8) == PIPE_HEADER_SIZE) {
		h->pipe = true;
		h->data_off = PIPE_HEADER_SIZE;
		h->data_size = file_size - PIPE_HEADER_SIZE;
		return 0;
	}
	if (le64(b + 8) != HEADER_SIZE)
		return -EINVAL;
	if (n < HEADER_SIZE)
		return -EIO;
	h->attr_size = le64(b + 16);
	h->attrs_off = le64(b + 24);
	h->attrs_size = le64(b + 32);
	h->data_off = le64(b + 40);
	h->data_size = le64(b + 48);
	for (int i = 0; i < PERFDATA_FEAT_BITS / 64; i++)
		h->features[i] = le64(b + 72 + 8 * i);
	return within(h->data_off, h->data_size, file_size) ? 0 : -EIO;
}

int perfdata_feature(int fd, const struct perfdata_header *h, unsigned feat, uint64_t *off,
		     uint64_t *size)
{
	unsigned char sec[16];
	uint64_t index = 0, at;
	int err;

	if (h->pipe || feat >= PERFDATA_FEAT_BITS || !(h->features[feat / 64] >> (feat % 64) & 1))
		return -ENOENT;
	/* the sections follow the data, one per feature bit set, in bit order */
	for (unsigned i = 0; i < feat; i++)
		index += h->features[i / 64] >> (i % 64) & 1;
	at = h->data_off + h->data_size + index * sizeof(sec);
	err = pread_all(fd, sec, sizeof(sec), at);
	if (err)
		return err;
	*off = le64(sec);
	*size = le64(sec + 8);
	return within(*off, *size, h->file_size) ? 0 : -EIO;
}

/* Starts R on [OFF, END) of FD. */
static void records_start(struct perfdata_records *r, int fd, uint64_t off, uint64_t end)
{
	r->fd = fd;
	r->off = r->rec_off = off;
	r->end = end;
	r->buf_off = off;
	r->buf_len = 0;
}

void perfdata_records_start(struct perfdata_records *r, int fd, const struct perfdata_header *h)
{
	records_start(r, fd, h->data_off, h->data_off + h->data_size);
}

/* Makes [OFF, OFF + LEN) (LEN <= the buffer's size, within R's section) be
 * in R's buffer. Returns 0 or a negative errno (-EIO: the file ends first). */
static int records_have(struct perfdata_records *r, uint64_t off, size_t len)
{
	size_t want;

	if (off >= r->buf_off && off + len <= r->buf_off + r->buf_len)
		return 0;
	want = r->end - off < sizeof(r->buf) ? (size_t)(r->end - off) : sizeof(r->buf);
	r->buf_off = off;
	r->buf_len = 0;
	if (pread_all(r->fd, r->buf, want, off))
		return -EIO;
	r->buf_len = want;
	return 0;
}

const unsigned char *perfdata_record_next(struct perfdata_records *r, int *err)
{
	const unsigned char *rec;
	uint16_t size;

	*err = 0;
	if (r->off >= r->end)
		return NULL;
	if (r->end - r->off < REC_HEADER || (*err = records_have(r, r->off, REC_HEADER)))
		goto damaged;
	size = le16(r->buf + (r->off - r->buf_off) + 6);
	if (size < REC_HEADER || size > r->end - r->off || (*err = records_have(r, r->off, size)))
		goto damaged;
	rec = r->buf + (r->off - r->buf_off);
	r->rec_off = r->off;
	r->off += size;
	if (le32(rec) == PERFDATA_REC_AUXTRACE) {
		uint64_t aux = size >= 16 ? le64(rec + 8) : UINT64_MAX;

		if (aux > r->end - r->off)
			goto damaged;
		r->off += aux;
	}
	return rec;
damaged:
	*err = -EIO;
	r->rec_off = r->off;
	r->off = r->end;
	return NULL;
}

void perfdata_hex(const unsigned char *id, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * n] = 0;
}

/*
 * Gives FN the build id of REC (SIZE bytes, at least its filename's
 * offset): a build id event (the HEADER_BUILD_ID feature's or record's)
 * or, with MMAP2 set, an MMAP2 record carrying one (others are skipped).
 * Returns FN's answer, or 0.
 */
static int give_buildid(const unsigned char *rec, size_t size, bool mmap2,
			int (*fn)(void *, const char *, const char *), void *arg)
{
	uint16_t misc = le16(rec + 4);
	size_t id_at = mmap2 ? MMAP2_BUILD_ID + 4 : BUILD_ID_NAME - 24;
	size_t name_at = mmap2 ? MMAP2_NAME : BUILD_ID_NAME;
	size_t len = BUILD_ID_SIZE;
	char hex[2 * BUILD_ID_SIZE + 1], path[4096];
	size_t plen;

	if (mmap2 && !(misc & MISC_MMAP_BUILD_ID))
		return 0;
	if (mmap2 || (misc & MISC_BUILD_ID_SIZE))
		len = rec[mmap2 ? MMAP2_BUILD_ID : BUILD_ID_NAME - 4];
	if (len > BUILD_ID_SIZE)
		len = BUILD_ID_SIZE;
	perfdata_hex(rec + id_at, len, hex);
	plen = strnlen((const char *)rec + name_at, size - name_at);
	if (!len || !plen || plen >= sizeof(path))
		return 0;
	memcpy(path, rec + name_at, plen);
	path[plen] = 0;
	return fn(arg, hex, path);
}

int perfdata_buildids(const char *path, int (*fn)(void *arg, const char *hex, const char *path),
		      void *arg, char *errbuf, size_t errlen)
{
	struct perfdata_header h;
	struct perfdata_records *r = NULL;
	const unsigned char *rec;
	uint64_t off, size;
	bool feature;
	int fd = perfdata_open(path), err, rc = 0;

	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "%s", strerror(errno));
		return err;
	}
	err = perfdata_header_read(fd, &h);
	if (err) {
		snprintf(errbuf, errlen, "%s", err == -EINVAL ?
			 "not a perf.data of this byte order and header size" :
			 err == -EIO ? "its header is cut short, or its data lies past its end" :
			 strerror(-err));
		goto out;
	}
	err = perfdata_feature(fd, &h, PERFDATA_FEAT_BUILD_ID, &off, &size);
	feature = err == 0;
	if (err && err != -ENOENT) {
		snprintf(errbuf, errlen, "its HEADER_BUILD_ID section %s", err == -EIO ?
			 "lies past the end of the file" : strerror(-err));
		goto out;
	}
	err = 0;
	r = malloc(sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		snprintf(errbuf, errlen, "out of memory");
		goto out;
	}
	if (feature)
		records_start(r, fd, off, off + size);
	else
		perfdata_records_start(r, fd, &h);
	while (!rc && (rec = perfdata_record_next(r, &err))) {
		bool mmap2 = !feature && le32(rec) == PERFDATA_REC_MMAP2;
		uint16_t len = le16(rec + 6);

		if (!feature && !mmap2 && le32(rec) != PERFDATA_REC_HEADER_BUILD_ID)
			continue;
		if (len < (mmap2 ? MMAP2_NAME : BUILD_ID_NAME)) {
			err = -EIO;	/* too short for its kind */
			break;
		}
		rc = give_buildid(rec, len, mmap2, fn, arg);
	}
	if (err)
		snprintf(errbuf, errlen, "its %s is damaged or cut short at byte %llu",
			 feature ? "HEADER_BUILD_ID section" : "data section",
			 (unsigned long long)r->rec_off);
out:
	free(r);
	close(fd);
	return err ? err : rc;
}

int perfdata_mmaps(const char *path, int (*fn)(void *arg, const struct perfdata_mmap *m),
		   void *arg)
{
	struct perfdata_header h;
	struct perfdata_records *r = NULL;
	const unsigned char *rec;
	int fd = perfdata_open(path), err, rc = 0;

	if (fd < 0)
		return -errno;
	err = perfdata_header_read(fd, &h);
	if (!err && !(r = malloc(sizeof(*r))))
		err = -ENOMEM;
	if (!err)
		perfdata_records_start(r, fd, &h);
	while (!err && !rc && (rec = perfdata_record_next(r, &err))) {
		uint32_t type = le32(rec);
		bool mmap2 = type == PERFDATA_REC_MMAP2;
		size_t len = le16(rec + 6), at = mmap2 ? MMAP2_NAME : MMAP_NAME;
		struct perfdata_mmap m;
		char file[4096];
		size_t n;

		if (type == PERFDATA_REC_COMPRESSED) {
			err = -ENOTSUP;
			break;
		}
		if (type != PERFDATA_REC_MMAP && !mmap2)
			continue;
		if (len <= at)
			continue;	/* no name */
		n = strnlen((const char *)rec + at, len - at);
		if (n >= sizeof(file))
			continue;
		memcpy(file, rec + at, n);
		file[n] = 0;
		m = (struct perfdata_mmap){
			.file = file, .at = r->rec_off + at, .pid = le32(rec + 8),
			.tid = le32(rec + 12), .start = le64(rec + 16), .len = le64(rec + 24),
			.pgoff = le64(rec + 32), .flags = mmap2 ? le32(rec + MMAP2_PROT + 4) : 0,
			.exec = mmap2 ? (le32(rec + MMAP2_PROT) & PROT_EXEC) != 0 :
					!(le16(rec + 4) & MISC_MMAP_DATA),
		};
		rc = fn(arg, &m);
	}
	free(r);
	close(fd);
	return err ? err : rc;
}

/* Reads a u32 at *AT within [.., END) of FD into *V and moves *AT past it.
 * Returns 0 or a negative errno (-EIO: past END). */
static int read_u32(int fd, uint64_t *at, uint64_t end, uint32_t *v)
{
	unsigned char b[4];
	int err;

	if (end - *at < 4)
		return -EIO;
	err = pread_all(fd, b, 4, *at);
	if (err)
		return err;
	*v = le32(b);
	*at += 4;
	return 0;
}

/* Bytes of struct perf_event_attr read: up to its bit field (perf's
 * PERF_ATTR_SIZE_VER0 is 64). */
#define ATTR_SAMPLE_MIN 48

int perfdata_event_names(const char *path, char *buf, size_t size)
{
	struct perfdata_header h;
	uint64_t at = 0, end, len = 0;
	uint32_t nr, attr_size;
	size_t used = 0;
	bool full = false;
	int fd = perfdata_open(path), err;

	if (size)
		buf[0] = 0;
	if (fd < 0)
		return -errno;
	err = perfdata_header_read(fd, &h);
	if (!err)
		err = perfdata_feature(fd, &h, PERFDATA_FEAT_EVENT_DESC, &at, &len);
	end = at + len;
	/* u32 nr, u32 attr_size; per event: the attr, u32 nr_ids, the name
	 * (u32 length, NUL-padded bytes), the ids (u64 each) */
	if (!err)
		err = read_u32(fd, &at, end, &nr);
	if (!err)
		err = read_u32(fd, &at, end, &attr_size);
	for (uint32_t i = 0; !err && i < nr; i++) {
		uint32_t nr_ids, name_len;
		unsigned char attr[ATTR_SAMPLE_MIN];
		char name[256], line[320];
		bool freq;
		uint64_t n_or_freq;
		size_t n;

		if (end - at < attr_size || attr_size < sizeof(attr)) {
			err = -EIO;
			break;
		}
		err = pread_all(fd, attr, sizeof(attr), at);
		if (err)
			break;
		/* struct perf_event_attr: sample_period (or sample_freq) at 16,
		 * the bit field at 40 whose bit 10 is freq */
		n_or_freq = le64(attr + 16);
		freq = le64(attr + 40) >> 10 & 1;
		at += attr_size;
		err = read_u32(fd, &at, end, &nr_ids);
		if (!err)
			err = read_u32(fd, &at, end, &name_len);
		if (err || end - at < name_len + 8ull * nr_ids) {
			err = err ? err : -EIO;
			break;
		}
		n = name_len < sizeof(name) - 1 ? name_len : sizeof(name) - 1;
		err = pread_all(fd, name, n, at);
		name[n] = 0;
		at += name_len + 8ull * nr_ids;
		n = (size_t)snprintf(line, sizeof(line), "%s: %s=%" PRIu64 "\n", name,
				     freq ? "sample_freq" : "sample_period", n_or_freq);
		/* the first that does not fit ends the list: the names keep the
		 * attributes' order (perfdata_sample_types) */
		if (!err && n < sizeof(line) && used + n + 1 <= size && !full) {
			memcpy(buf + used, line, n + 1);
			used += n;
		} else {
			full = true;
		}
	}
	close(fd);
	return err;
}

/* Adds the COMM record REC's name to O's when it is new and there is room. */
static void origin_comm(struct perfdata_origin *o, const unsigned char *rec)
{
	size_t size = le16(rec + 6);
	char name[16];

	if (size < 8 + 8 + 1 || o->ncomms >= PERFDATA_ORIGIN_COMMS)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)strnlen((const char *)rec + 16,
		 size - 16 < sizeof(name) - 1 ? size - 16 : sizeof(name) - 1), rec + 16);
	for (int i = 0; i < o->ncomms; i++)
		if (!strcmp(o->comms[i], name))
			return;
	memcpy(o->comms[o->ncomms++], name, sizeof(name));
}

int perfdata_origin(int fd, struct perfdata_origin *o)
{
	struct perfdata_header h;
	struct perfdata_records *r;
	const unsigned char *rec;
	unsigned char len[4];
	uint64_t off, size;
	int err = perfdata_header_read(fd, &h);

	memset(o, 0, sizeof(*o));
	if (err)
		return err;
	/* a perf string: u32 length (with its padding), then the NUL-terminated text */
	if (!perfdata_feature(fd, &h, PERFDATA_FEAT_HOSTNAME, &off, &size) && size > 4 &&
	    !pread_all(fd, len, sizeof(len), off)) {
		size_t n = le32(len) < size - 4 ? le32(len) : size - 4;

		if (n >= sizeof(o->host))
			n = sizeof(o->host) - 1;
		if (pread_all(fd, o->host, n, off + 4))
			n = 0;
		o->host[n] = '\0';
		o->host[strcspn(o->host, "\n")] = '\0';
	}
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	perfdata_records_start(r, fd, &h);
	for (int i = 0; i < PERFDATA_ORIGIN_RECORDS && (rec = perfdata_record_next(r, &err)); i++)
		if (le32(rec) == PERFDATA_REC_COMM)
			origin_comm(o, rec);
	free(r);
	return 0;
}

int perfdata_sample_types(const char *path, uint64_t *types, size_t max)
{
	struct perfdata_header h;
	unsigned char b[8];
	int fd = perfdata_open(path), err, n = 0;

	if (fd < 0)
		return -errno;
	err = perfdata_header_read(fd, &h);
	if (!err && h.pipe)
		err = -ENOENT;
	if (!err && (h.attr_size < 32 || !within(h.attrs_off, h.attrs_size, h.file_size)))
		err = -EIO;
	for (uint64_t at = 0; !err && at + h.attr_size <= h.attrs_size && n < INT_MAX;
	     at += h.attr_size, n++) {
		err = pread_all(fd, b, sizeof(b), h.attrs_off + at + 24);
		if (!err && (size_t)n < max)
			types[n] = le64(b);
	}
	close(fd);
	return err ? err : n;
}

/* Writes N bytes at BUF to FD at *AT and moves *AT past them. Returns 0 or a
 * negative errno. */
static int pwrite_all(int fd, const void *buf, size_t n, uint64_t *at)
{
	const char *p = buf;

	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)*at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
		*at += (uint64_t)w;
	}
	return 0;
}

/* Copies [FROM, FROM + N) of IN to OUT at *AT. Returns 0 or a negative errno. */
static int copy_range(int in, uint64_t from, uint64_t n, int out, uint64_t *at)
{
	unsigned char buf[1 << 16];

	while (n) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		int err = pread_all(in, buf, k, from);

		if (!err)
			err = pwrite_all(out, buf, k, at);
		if (err)
			return err;
		from += k;
		n -= k;
	}
	return 0;
}

/* The data section's records of the file H was read from (IN) that KEEP
 * accepts, written to OUT at *AT. Returns 0 or a negative errno. */
static int copy_records(int in, const struct perfdata_header *h,
			bool (*keep)(const unsigned char *rec, void *arg), void *arg, int out,
			uint64_t *at)
{
	struct perfdata_records *r = malloc(sizeof(*r));
	const unsigned char *rec;
	int err = 0;

	if (!r)
		return -ENOMEM;
	perfdata_records_start(r, in, h);
	while (!err && (rec = perfdata_record_next(r, &err))) {
		if (le32(rec) == PERFDATA_REC_AUXTRACE)
			err = -ENOTSUP;   /* its AUX data follows; PT's index points at it */
		else if (!keep || keep(rec, arg))
			err = pwrite_all(out, rec, le16(rec + 6), at);
	}
	free(r);
	return err;
}

int perfdata_rewrite(const char *path, const void *prefix, size_t len,
		     bool (*keep)(const unsigned char *rec, void *arg), void *arg, int out_fd)
{
	struct perfdata_header h;
	unsigned char sec[16], size[8];
	uint64_t at = 0, table, nfeat = 0, data_size;
	int fd = perfdata_open(path), err;

	if (fd < 0)
		return -errno;
	err = perfdata_header_read(fd, &h);
	if (!err && (h.pipe || h.features[0] >> PERFDATA_FEAT_AUXTRACE & 1 ||
		     h.features[0] >> PERFDATA_FEAT_DIR_FORMAT & 1))
		err = -ENOTSUP;
	for (int i = 0; i < PERFDATA_FEAT_BITS / 64; i++)
		nfeat += (uint64_t)__builtin_popcountll(h.features[i]);
	table = h.data_off + h.data_size;
	if (!err && !within(table, nfeat * sizeof(sec), h.file_size))
		err = -EIO;
	/* the header and attributes, the new data section */
	if (!err)
		err = copy_range(fd, 0, h.data_off, out_fd, &at);
	if (!err)
		err = pwrite_all(out_fd, prefix, len, &at);
	if (!err)
		err = copy_records(fd, &h, keep, arg, out_fd, &at);
	data_size = at - h.data_off;
	/* the feature table, each section moved as far as the data section's end */
	for (uint64_t i = 0; !err && i < nfeat; i++) {
		err = pread_all(fd, sec, sizeof(sec), table + i * sizeof(sec));
		if (!err) {
			uint64_t off = le64(sec) + data_size - h.data_size;

			memcpy(sec, &off, 8);   /* the byte order le64() reads */
			err = pwrite_all(out_fd, sec, sizeof(sec), &at);
		}
	}
	if (!err)
		err = copy_range(fd, table + nfeat * sizeof(sec),
				 h.file_size - table - nfeat * sizeof(sec), out_fd, &at);
	memcpy(size, &data_size, 8);
	at = 48;   /* struct perf_file_header: data.size */
	if (!err)
		err = pwrite_all(out_fd, size, sizeof(size), &at);
	close(fd);
	return err;
}

/* PERF_SAMPLE_* bits that say where a sample's time is, and where a
 * sample_id trailer's is (perf_event_open(2): the trailer is pid/tid, time,
 * id, stream_id, cpu, identifier, each present when its bit is). */
#define SAMPLE_IP (1u << 0)
#define SAMPLE_TID (1u << 1)
#define SAMPLE_TIME (1u << 2)
#define SAMPLE_ID (1u << 6)
#define SAMPLE_CPU (1u << 7)
#define SAMPLE_STREAM_ID (1u << 9)
#define SAMPLE_IDENTIFIER (1u << 16)
#define ATTR_SAMPLE_ID_ALL (1u << 18)       /* perf_event_attr's flags (offset 40) */
#define ATTR_CONTEXT_SWITCH (1u << 26)

/* What perfdata_sample_times() collects: where the times of the records of
 * a file are, which event a sample's identifier names, and the times. */
struct sample_times {
	uint64_t off;        /* a sample's time in bytes after its header, the same
			      * for every event */
	uint64_t tail;       /* a switch's in bytes before the record's end, in the
			      * sample_id trailer of the events that record switches
			      * (context_switch set); 0: none does, one has no trailer
			      * (sample_id_all unset) or they put it at different
			      * places */
	bool identified;     /* every event's sample starts with its identifier */
	int nattrs;
	struct id_event {
		uint64_t id;
		int event;   /* its attribute's index */
	} *ids;              /* NIDS, sorted by id once read */
	size_t nids, capids;
	struct perfdata_time *times;
	size_t n, cap;
};

/* Most identifiers read from a file's attributes (perf gives each event
 * one per thread or CPU it opened): beyond them a sample's event is
 * unknown. */
#define SAMPLE_IDS_MAX 65536

/* Adds the identifiers of event EVENT, listed at OFF (SIZE bytes) of the
 * file H was read from (FD), to T. Returns 0 or a negative errno. */
static int add_ids(int fd, const struct perfdata_header *h, uint64_t off, uint64_t size,
		   int event, struct sample_times *t)
{
	unsigned char b[8];
	int err = 0;

	if (!within(off, size, h->file_size))
		return -EIO;
	for (uint64_t at = 0; !err && at + 8 <= size && t->nids < SAMPLE_IDS_MAX; at += 8) {
		struct id_event *ids = array_grow(t->ids, &t->capids, t->nids, sizeof(*t->ids));

		if (!ids)
			return -ENOMEM;
		t->ids = ids;
		err = pread_all(fd, b, sizeof(b), off + at);
		t->ids[t->nids++] = (struct id_event){ .id = le64(b), .event = event };
	}
	return err;
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_event *)a)->id, y = ((const struct id_event *)b)->id;

	return x < y ? -1 : x > y;
}

/* Reads into T where the times of the records of the file H was read from
 * (FD) are and the identifiers of its events (struct sample_times). Returns
 * 0, -ENOTSUP (samples without a time, or with it at different places) or a
 * negative errno. */
static int record_time_offsets(int fd, const struct perfdata_header *h, struct sample_times *t)
{
	unsigned char b[24], sec[16];
	bool known = false, tail_known = false, tail_ok = true;
	int err = 0;

	if (h->pipe || h->attr_size < 48 + 16 || !within(h->attrs_off, h->attrs_size, h->file_size))
		return h->pipe ? -ENOTSUP : -EIO;
	t->tail = 0;
	t->identified = true;
	for (uint64_t at = 0; !err && at + h->attr_size <= h->attrs_size && t->nattrs < INT_MAX;
	     at += h->attr_size, t->nattrs++) {
		uint64_t type, flags, o, tl;

		err = pread_all(fd, b, sizeof(b), h->attrs_off + at + 24);
		type = le64(b);
		flags = le64(b + 16);
		o = 8 * (!!(type & SAMPLE_IDENTIFIER) + !!(type & SAMPLE_IP) + !!(type & SAMPLE_TID));
		tl = 8 * (1 + !!(type & SAMPLE_ID) + !!(type & SAMPLE_STREAM_ID) +
			  !!(type & SAMPLE_CPU) + !!(type & SAMPLE_IDENTIFIER));
		if (!err && (!(type & SAMPLE_TIME) || (known && o != t->off)))
			err = -ENOTSUP;
		t->off = o;
		known = true;
		t->identified = t->identified && (type & SAMPLE_IDENTIFIER);
		/* the attribute entry ends with its identifiers' file section */
		if (!err)
			err = pread_all(fd, sec, sizeof(sec), h->attrs_off + at + h->attr_size - 16);
		if (!err)
			err = add_ids(fd, h, le64(sec), le64(sec + 8), t->nattrs, t);
		if (!(flags & ATTR_CONTEXT_SWITCH))
			continue;
		tail_ok = tail_ok && (flags & ATTR_SAMPLE_ID_ALL) && (!tail_known || tl == t->tail);
		t->tail = tl;
		tail_known = true;
	}
	if (!tail_ok)
		t->tail = 0;
	array_sort(t->ids, t->nids, sizeof(*t->ids), by_id);
	return err ? err : known ? 0 : -ENOTSUP;
}

static int by_time(const void *a, const void *b)
{
	uint64_t x = ((const struct perfdata_time *)a)->ns, y = ((const struct perfdata_time *)b)->ns;

	return x < y ? -1 : x > y;
}

/* Calls FN(ARG, REC, SIZE) for each record of the perf.data at PATH that is
 * a sample or, with SWITCHES, a context switch (PERF_RECORD_SWITCH,
 * PERF_RECORD_SWITCH_CPU_WIDE), as perfdata_samples() says. */
static int each_record(const char *path, bool switches,
		       int (*fn)(void *arg, const unsigned char *rec, size_t size), void *arg)
{
	struct perfdata_records *r = malloc(sizeof(*r));
	struct perfdata_header h;
	const unsigned char *rec;
	int fd = perfdata_open(path), err;

	if (!r || fd < 0) {
		err = !r ? -ENOMEM : -errno;
		goto out;
	}
	err = perfdata_header_read(fd, &h);
	if (!err)
		perfdata_records_start(r, fd, &h);
	while (!err && (rec = perfdata_record_next(r, &err)))
		if (le32(rec) == PERFDATA_REC_SAMPLE || (switches &&
		    (le32(rec) == PERFDATA_REC_SWITCH || le32(rec) == PERFDATA_REC_SWITCH_CPU_WIDE)))
			err = fn(arg, rec, le16(rec + 6));
out:
	if (fd >= 0)
		close(fd);
	free(r);
	return err;
}

int perfdata_samples(const char *path,
		     int (*fn)(void *arg, const unsigned char *rec, size_t size), void *arg)
{
	return each_record(path, false, fn, arg);
}

/* The event of sample REC (SIZE bytes) of T's file: its attribute's index,
 * PERFDATA_TIME_UNKNOWN when no identifier names one. */
static int sample_event(const struct sample_times *t, const unsigned char *rec, size_t size)
{
	struct id_event key;
	const struct id_event *found;

	if (t->nattrs == 1)
		return 0;
	if (!t->identified || size < REC_HEADER + 8)
		return PERFDATA_TIME_UNKNOWN;
	key.id = le64(rec + REC_HEADER);
	found = array_search(&key, t->ids, t->nids, sizeof(*t->ids), by_id);
	return found ? found->event : PERFDATA_TIME_UNKNOWN;
}

static int add_time(void *arg, const unsigned char *rec, size_t size)
{
	struct sample_times *t = arg;
	struct perfdata_time *p;
	size_t at;
	int event = PERFDATA_TIME_SWITCH;

	if (le32(rec) == PERFDATA_REC_SAMPLE) {
		if (size < REC_HEADER + t->off + 8)
			return 0;
		at = REC_HEADER + t->off;
		event = sample_event(t, rec, size);
	} else {
		if (!t->tail || size < REC_HEADER + t->tail)
			return 0;
		at = size - t->tail;
	}
	if (!(p = array_grow(t->times, &t->cap, t->n, sizeof(*t->times))))
		return -ENOMEM;
	t->times = p;
	t->times[t->n++] = (struct perfdata_time){ .ns = le64(rec + at), .event = event };
	return 0;
}

int perfdata_sample_times(const char *path, struct perfdata_time **times, size_t *n)
{
	struct sample_times t = { 0 };
	struct perfdata_header h;
	int fd = perfdata_open(path), err;

	err = fd < 0 ? -errno : perfdata_header_read(fd, &h);
	if (!err)
		err = record_time_offsets(fd, &h, &t);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = each_record(path, true, add_time, &t);
	free(t.ids);
	if (err) {
		free(t.times);
		t.times = NULL;
		t.n = 0;
	} else {
		array_sort(t.times, t.n, sizeof(*t.times), by_time);
	}
	*times = t.times;
	*n = t.n;
	return err;
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

/* Where the feature sections of the file H was read from (FD) end: the
 * section table's end, or the furthest section's end when the table is in
 * the file. */
static uint64_t features_end(int fd, const struct perfdata_header *h)
{
	uint64_t nfeat = 0, end, off, size;

	for (int i = 0; i < PERFDATA_FEAT_BITS / 64; i++)
		nfeat += (uint64_t)__builtin_popcountll(h->features[i]);
	end = end_of(end_of(h->data_off, h->data_size), nfeat * 16);
	if (end > h->file_size)
		return end;
	for (unsigned feat = 0; feat < PERFDATA_FEAT_BITS; feat++) {
		int err;

		off = size = 0;
		err = perfdata_feature(fd, h, feat, &off, &size);

		if (!err || err == -EIO)
			end = end_of(off, size) > end ? end_of(off, size) : end;
	}
	return end;
}

/* What the file open as FD, whose first N bytes are HEAD (at most 16), is,
 * as perfdata_check() says it. */
static enum perfdata_state verdict(int fd, const unsigned char *head, size_t n, char *why,
				   size_t size)
{
	struct perfdata_header h;
	struct region r[3];
	const struct region *cut;
	bool zero = true;
	int err;

	for (size_t i = 0; i < n; i++)
		zero &= !head[i];
	if (n == 0) {
		snprintf(why, size, "empty");
		return PERFDATA_OTHER;
	}
	/* perf writes the header last: a file it did not finish has none */
	if (zero) {
		snprintf(why, size, "its header was never written (all zero bytes)");
		return PERFDATA_UNFINISHED;
	}
	if (memcmp(head, MAGIC, n < 8 ? n : 8)) {
		snprintf(why, size, "not a perf.data (no PERFILE2 header)");
		return PERFDATA_OTHER;
	}
	err = n < PIPE_HEADER_SIZE ? -EIO : perfdata_header_read(fd, &h);
	if (err == -EIO && (n < PIPE_HEADER_SIZE || h.file_size < HEADER_SIZE)) {
		snprintf(why, size, "cut short inside its header (%" PRIu64 " of its %d bytes)",
			 n < PIPE_HEADER_SIZE ? (uint64_t)n : h.file_size, HEADER_SIZE);
		return PERFDATA_UNFINISHED;
	}
	if (err == -EINVAL || (!err && !h.pipe && !h.attr_size)) {
		snprintf(why, size, "its header is not one perf finished (header size %" PRIu64
			 ", attribute size %" PRIu64 ")", le64(head + 8), h.attr_size);
		return PERFDATA_UNFINISHED;
	}
	if (err && err != -EIO) {
		snprintf(why, size, "%s", strerror(-err));
		return PERFDATA_UNREADABLE;
	}
	if (h.pipe)
		return PERFDATA_FINISHED;
	if (!h.data_size) {
		/* perf's own words: "data size field is 0 ... properly terminated?" */
		snprintf(why, size, "its header's data size is 0 (perf never finished it)");
		return PERFDATA_UNFINISHED;
	}
	r[0] = (struct region){ "attributes", h.attrs_off, end_of(h.attrs_off, h.attrs_size) };
	r[1] = (struct region){ "data section", h.data_off, end_of(h.data_off, h.data_size) };
	r[2] = (struct region){ "feature sections", r[1].end, features_end(fd, &h) };
	cut = cut_region(r, 3, h.file_size);
	if (!cut) {
		err = perfattr_check(fd, h.attrs_off, h.attrs_size, h.attr_size, why, size);
		if (err < 0)
			snprintf(why, size, "%s", strerror(-err));
		return err < 0 ? PERFDATA_UNREADABLE : err ? PERFDATA_DAMAGED : PERFDATA_FINISHED;
	}
	if (cut->end == UINT64_MAX)	/* end_of() saturated: no file is that long */
		snprintf(why, size, "cut short inside its %s (its header puts its end past "
			 "byte 2^64: damaged; the file ends at byte %" PRIu64 ")", cut->name,
			 h.file_size);
	else
		snprintf(why, size, "cut short inside its %s (ending at byte %" PRIu64 "; the file "
			 "ends at byte %" PRIu64 ")", cut->name, cut->end, h.file_size);
	return PERFDATA_UNFINISHED;
}

enum perfdata_state perfdata_check(const char *path, char *why, size_t size)
{
	unsigned char head[PIPE_HEADER_SIZE];
	enum perfdata_state state;
	ssize_t n = -1;
	int fd;

	/* a FIFO, a device or standard input is never waited on, nor read */
	fd = perfdata_open(path);
	if (fd < 0 && errno == EINVAL) {
		snprintf(why, size, "not a regular file");
		return PERFDATA_OTHER;
	}
	if (fd >= 0)
		n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		snprintf(why, size, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return PERFDATA_UNREADABLE;
	}
	state = verdict(fd, head, (size_t)n, why, size);
	close(fd);
	return state;
}

bool perfdata_same_buildid(const char *recorded, const char *hex)
{
	size_t n = strlen(hex);

	return n && !strncmp(recorded, hex, n) && strspn(recorded + n, "0") == strlen(recorded + n);
}
