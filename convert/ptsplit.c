/* SPDX-License-Identifier: MIT */
/*
 * One pass over the perf.data's records (perf's on-disk format,
 * tools/perf/Documentation/perf.data-file-format.txt): AUXTRACE_INFO gives
 * the TSC conversion, each AUXTRACE record is followed by its PT bytes; in
 * them every PSB (a 16-byte pattern no other packet makes) starts a PSB+
 * whose TSC packet is the time perf's decoder has there. Each PSB weighs
 * the bytes up to the next one in its buffer.
 */
#include "ptsplit.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "perfdata.h"

#define AUXTRACE_SIZE 48        /* struct perf_record_auxtrace, without its data */
#define PSB_LEN 16
#define PSBPLUS_MAX 256         /* bytes of PSB+ looked through for its TSC */
#define CHUNK (1u << 20)
#define AUXTRACE_INTEL_PT 1     /* AUXTRACE_INFO's type (perf's enum auxtrace_type) */
#define INFO_WITHIN 4096        /* records looked through for AUXTRACE_INFO */

/* AUXTRACE_INFO's private words for Intel PT (tools/perf/util/intel-pt.h). */
enum { PT_TIME_SHIFT = 1, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO, PT_WORDS };

struct psb {
	uint64_t time;          /* perf time, ns */
	uint64_t bytes;         /* PT bytes from this PSB to the next one of its buffer */
};

struct scan {
	int fd;
	bool have_tc;           /* the TSC conversion is known */
	uint64_t shift, mult, zero;
	struct psb *psbs;
	size_t npsbs, cap;
	uint64_t total;         /* bytes of all PSBs */
	bool nomem;
	bool backwards;         /* a buffer's PSB+ times go back: damaged timing */
	unsigned char *buf;     /* CHUNK + PSBPLUS_MAX */
};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* perf's tsc_to_perf_time() */
static uint64_t perf_time(const struct scan *s, uint64_t tsc)
{
	uint64_t quot = tsc >> s->shift, rem = tsc & ((1ull << s->shift) - 1);

	return s->zero + quot * s->mult + ((rem * s->mult) >> s->shift);
}

/* The length of the PSB+ packet at P (N bytes there), 0 for PSBEND or a
 * packet that is not part of a PSB+ (perf's intel-pt-pkt-decoder.c). */
static size_t packet_len(const unsigned char *p, size_t n)
{
	static const unsigned char fup_ip[8] = { 0, 2, 4, 6, 6, 0xff, 8, 0xff };

	if (p[0] == 0x00)
		return 1;               /* PAD */
	if (p[0] == 0x19)
		return 8;               /* TSC */
	if (p[0] == 0x99 || p[0] == 0x59)
		return 2;               /* MODE, MTC */
	if ((p[0] & 0x1f) == 0x1d && fup_ip[p[0] >> 5] != 0xff)
		return 1u + fup_ip[p[0] >> 5];  /* FUP */
	if (p[0] != 0x02 || n < 2)
		return 0;
	switch (p[1]) {
	case 0x03: return 4;            /* CBR */
	case 0x73: case 0xc8: return 7; /* TMA, VMCS */
	case 0x43: return 8;            /* PIP */
	}
	return 0;                       /* PSBEND, or not PSB+ */
}

/* The TSC of the PSB+ after a PSB (P, N bytes), or false when it has none. */
static bool psb_tsc(const unsigned char *p, size_t n, uint64_t *tsc)
{
	size_t i = 0, len;

	while (i < n && (len = packet_len(p + i, n - i)) && i + len <= n) {
		if (p[i] == 0x19) {
			unsigned char b[8] = { 0 };

			memcpy(b, p + i + 1, 7);
			*tsc = le64(b);
			return true;
		}
		i += len;
	}
	return false;
}

static void add_psb(struct scan *s, uint64_t time)
{
	struct psb *t = array_grow(s->psbs, &s->cap, s->npsbs, sizeof(*t));

	if (!t) {
		s->nomem = true;
		return;
	}
	s->psbs = t;
	s->psbs[s->npsbs++] = (struct psb){ time, 0 };
}

/* Scans SIZE bytes of PT at file offset OFF. */
static bool scan_aux(struct scan *s, uint64_t off, uint64_t size)
{
	static const unsigned char psb[PSB_LEN] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
						    2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	uint64_t pos = 0, last = UINT64_MAX;	/* buffer offset of the last PSB */
	size_t first = s->npsbs;
	uint64_t time = 0;			/* of the buffer's last PSB */

	while (pos < size) {
		size_t want = size - pos > CHUNK + PSBPLUS_MAX ? CHUNK + PSBPLUS_MAX :
			      (size_t)(size - pos);
		size_t step = want > CHUNK ? CHUNK : want;	/* PSBs starting in this chunk */
		ssize_t r = pread(s->fd, s->buf, want, (off_t)(off + pos));
		const unsigned char *p = s->buf, *end;

		if (r != (ssize_t)want)
			return false;
		end = s->buf + step;
		while ((p = memmem(p, (size_t)(s->buf + want - p), psb, PSB_LEN)) && p < end) {
			uint64_t at = pos + (uint64_t)(p - s->buf), tsc;

			if (psb_tsc(p + PSB_LEN, (size_t)(s->buf + want - p) - PSB_LEN, &tsc)) {
				if (last != UINT64_MAX && s->npsbs > first)
					s->psbs[s->npsbs - 1].bytes = at - last;
				s->backwards |= perf_time(s, tsc) < time;
				time = perf_time(s, tsc);
				add_psb(s, time);
				last = at;
			}
			p += PSB_LEN;
		}
		pos += step;
	}
	if (last != UINT64_MAX && s->npsbs > first)
		s->psbs[s->npsbs - 1].bytes = size - last;
	return true;
}

/* Starts R on the records of the perf.data open as FD. Returns false when
 * it is not one this reads (perf's pipe format has no AUXTRACE_INFO up
 * front for ptsplit_intel_pt, nor PT a split would help). */
static bool records_start(int fd, struct perfdata_records *r)
{
	struct perfdata_header h;

	if (perfdata_header_read(fd, &h) || h.pipe)
		return false;
	perfdata_records_start(r, fd, &h);
	return true;
}

/* Reads the records of the data section. Returns false when the file is
 * not one this reads. */
static bool scan_records(struct scan *s)
{
	struct perfdata_records *r = malloc(sizeof(*r));
	const unsigned char *rec;
	int err = -1;

	if (!r || !records_start(s->fd, r)) {
		free(r);
		return false;
	}
	while (!s->nomem && (rec = perfdata_record_next(r, &err))) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, rec, 4);
		memcpy(&size, rec + 6, 2);
		if (type == PERFDATA_REC_AUXTRACE_INFO) {
			if (size < 16 + 8 * PT_WORDS)
				break;
			s->shift = le64(rec + 16 + 8 * PT_TIME_SHIFT);
			s->mult = le64(rec + 16 + 8 * PT_TIME_MULT);
			s->zero = le64(rec + 16 + 8 * PT_TIME_ZERO);
			s->have_tc = le64(rec + 16 + 8 * PT_CAP_USER_TIME_ZERO) && s->shift < 64;
		} else if (type == PERFDATA_REC_AUXTRACE) {
			/* its PT bytes follow it (the walk skips them) */
			if (size < AUXTRACE_SIZE || !s->have_tc ||
			    !scan_aux(s, r->rec_off + size, le64(rec + 8)))
				break;
		}
	}
	free(r);
	return !rec && !err && !s->nomem;
}

static int by_time(const void *a, const void *b)
{
	const struct psb *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

void ptsplit_plan(const char *path, unsigned n, struct ptsplit *out)
{
	struct scan s = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	uint64_t sum = 0;
	size_t nb = 0;

	memset(out, 0, sizeof(*out));
	if (n > PTSPLIT_MAX)
		n = PTSPLIT_MAX;
	s.buf = malloc(CHUNK + PSBPLUS_MAX);
	if (s.fd >= 0 && s.buf && n > 1 && scan_records(&s) && s.npsbs > 1 && !s.backwards) {
		array_sort(s.psbs, s.npsbs, sizeof(*s.psbs), by_time);
		for (size_t i = 0; i < s.npsbs; i++)
			s.total += s.psbs[i].bytes;
		/* Range k starts just after the first PSB at or past k/n of the
		 * work: perf fast-forwards to that PSB (the last one before
		 * the range), whose own samples fall in range k - 1. */
		for (size_t i = 1; i < s.npsbs && nb < n - 1; i++) {
			sum += s.psbs[i - 1].bytes;
			if (sum * n >= s.total * (nb + 1) &&
			    s.psbs[i].time > s.psbs[0].time &&
			    (nb == 0 || s.psbs[i].time + 1 > out->bounds[nb - 1]))
				out->bounds[nb++] = s.psbs[i].time + 1;
		}
	}
	if (nb && (out->psbs = malloc(s.npsbs * sizeof(*out->psbs)))) {
		for (size_t i = 0; i < s.npsbs; i++)
			out->psbs[i] = s.psbs[i].time;
		out->npsbs = s.npsbs;
		out->nbounds = nb;
	}
	if (s.fd >= 0)
		close(s.fd);
	free(s.buf);
	free(s.psbs);
}

void ptsplit_free(struct ptsplit *p)
{
	free(p->psbs);
	memset(p, 0, sizeof(*p));
}

bool ptsplit_intel_pt(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct perfdata_records *r = malloc(sizeof(*r));
	const unsigned char *rec;
	bool pt = false;

	/* perf record writes it before any sample or AUX data */
	if (fd >= 0 && r && records_start(fd, r)) {
		for (int i = 0; i < INFO_WITHIN && (rec = perfdata_record_next(r, &err)); i++) {
			uint32_t type, aux;
			uint16_t size;

			memcpy(&type, rec, 4);
			memcpy(&size, rec + 6, 2);
			memcpy(&aux, rec + 8, 4);
			if (type == PERFDATA_REC_AUXTRACE_INFO) {
				pt = size >= 16 && aux == AUXTRACE_INTEL_PT;
				break;
			}
			if (type == PERFDATA_REC_AUXTRACE)
				break;
		}
	}
	if (fd >= 0)
		close(fd);
	free(r);
	return pt;
}
