/* SPDX-License-Identifier: MIT */
/*
 * ptdata: an Intel PT perf.data read for the in-process decoder
 * (ptdecode_int.h): one pass over its records through common/perfdata.c
 * (perf's on-disk format, tools/perf/Documentation/perf.data-file-format.txt):
 * the attrs (one sample_id layout for all), AUXTRACE_INFO (Intel PT's TSC
 * conversion, perf-time <-> TSC as perf computes it), the side-band records
 * kept in time order, the AUX queues (one AUXTRACE buffer each); any other
 * record it does not reproduce is a reason to leave the file to perf. Then
 * libipt's packet decoder over each queue's data: only the packets
 * ptblock.c reproduces, and where its PSBs are.
 */
#include "ptdecode_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "array.h"
#include "perfdata.h"

/* perf's record types (PERF_RECORD_*) and what this does with them. */
enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6, REC_FORK = 7, REC_READ = 8, REC_SAMPLE = 9, REC_MMAP2 = 10,
	REC_AUX = 11, REC_ITRACE_START = 12, REC_LOST_SAMPLES = 13, REC_SWITCH = 14,
	REC_SWITCH_CPU_WIDE = 15, REC_NAMESPACES = 16, REC_KSYMBOL = 17, REC_BPF_EVENT = 18,
	REC_CGROUP = 19, REC_TEXT_POKE = 20, REC_AUX_OUTPUT_HW_ID = 21,
	REC_USER_FIRST = 64,    /* perf's own records: header, features, AUXTRACE... */
	REC_AUXTRACE_INFO = 70, REC_AUXTRACE = 71,
};

#define AUX_FLAG_TRUNCATED 1u              /* PERF_AUX_FLAG_TRUNCATED */
#define PROT_EXEC_BIT 4u

/* perf_event_attr: sample_type bits and flag bits read here. */
enum {
	S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3, S_ID = 1u << 6,
	S_CPU = 1u << 7, S_STREAM_ID = 1u << 9, S_IDENTIFIER = 1u << 16,
};
#define ATTR_EXCLUDE_KERNEL (1ull << 5)
#define ATTR_SAMPLE_ID_ALL (1ull << 18)

/* AUXTRACE_INFO's private words for Intel PT (tools/perf/util/intel-pt.h). */
enum { PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO,
       PT_TSC_BIT, PT_NORETCOMP_BIT, PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE,
       PT_PER_CPU_MMAPS, PT_WORDS, PT_MTC_BIT = PT_WORDS, PT_MTC_FREQ_BITS, PT_TSC_CTC_N,
       PT_TSC_CTC_D, PT_CYC_BIT, PT_MAX_NONTURBO_RATIO, PT_MTC_WORDS = PT_MAX_NONTURBO_RATIO };
#define AUXTRACE_INTEL_PT 1


int ptdata_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 1;
}

/* perf's tsc_to_perf_time() */
uint64_t ptdata_perf_time(const struct ptdecode *d, uint64_t tsc)
{
	uint64_t quot = tsc >> d->shift, rem = tsc & ((1ull << d->shift) - 1);

	return d->zero + quot * d->mult + ((rem * d->mult) >> d->shift);
}

/* perf's perf_time_to_tsc() */
uint64_t ptdata_tsc(const struct ptdecode *d, uint64_t ns)
{
	uint64_t t = ns - d->zero, quot = t / d->mult, rem = t % d->mult;

	return (quot << d->shift) + (rem << d->shift) / d->mult;
}

/* The sample_type bits of the sample_id trailer every record carries. */
#define S_ID_ALL_BITS (S_TID | S_TIME | S_ID | S_STREAM_ID | S_CPU | S_IDENTIFIER)

#define MAX_ATTRS 16     /* the events whose config is kept */

struct attrs {
	uint64_t id_bits;       /* the trailer's: S_ID_ALL_BITS of sample_type */
	struct { uint32_t type; uint64_t config; } ev[MAX_ATTRS];  /* the first ones */
	bool id_all;
	bool kernel;            /* some event traces the kernel */
	size_t n;
};

/* Reads the attrs: one sample_id layout for all (the trailer of every
 * record; perf's dummy event of CPU-wide switches has a sample layout of its
 * own, its trailer the same). Returns 0, or 1 with a reason. */
static int read_attrs(int fd, const struct perfdata_header *h, struct attrs *a, char *why,
		      size_t len)
{
	unsigned char buf[256];

	memset(a, 0, sizeof(*a));
	if (h->attr_size < 64 + 16 || h->attr_size > sizeof(buf) + 16)
		return ptdata_why(why, len, "an attr size of %llu bytes", (unsigned long long)h->attr_size);
	for (uint64_t off = 0; off + h->attr_size <= h->attrs_size; off += h->attr_size) {
		uint64_t bits, flags;

		if (pread(fd, buf, 48, (off_t)(h->attrs_off + off)) != 48)
			return ptdata_why(why, len, "its attrs cannot be read");
		bits = perfdata_u64(buf + 24) & S_ID_ALL_BITS;
		flags = perfdata_u64(buf + 40);
		if (a->n < MAX_ATTRS) {
			a->ev[a->n].type = perfdata_u32(buf);
			a->ev[a->n].config = perfdata_u64(buf + 8);
		}
		if (a->n && (bits != a->id_bits || !(flags & ATTR_SAMPLE_ID_ALL) != !a->id_all))
			return ptdata_why(why, len, "events with different sample_id layouts");
		a->id_bits = bits;
		a->id_all = flags & ATTR_SAMPLE_ID_ALL;
		a->kernel |= !(flags & ATTR_EXCLUDE_KERNEL);
		a->n++;
	}
	if (!a->n)
		return ptdata_why(why, len, "no event");
	if (!a->id_all || !(a->id_bits & S_TIME) || !(a->id_bits & S_TID))
		return ptdata_why(why, len, "side-band records without their time and thread");
	return 0;
}

/* The time, pid, tid and CPU (-1: not recorded) of the sample_id trailer
 * of record REC (SIZE bytes): its words in perf's order (TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER). */
static bool trailer(const struct attrs *a, const unsigned char *rec, size_t size, uint64_t *time,
		    int32_t *pid, int32_t *tid, int32_t *cpu)
{
	uint64_t st = a->id_bits;
	size_t n = (size_t)!!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ID) +
		   !!(st & S_STREAM_ID) + !!(st & S_CPU) + !!(st & S_IDENTIFIER);
	const unsigned char *p = rec + size - 8 * n;

	if (size < 8 + 8 * n)
		return false;
	*pid = (int32_t)perfdata_u32(p);
	*tid = (int32_t)perfdata_u32(p + 4);
	*time = perfdata_u64(p + 8);
	p += 16 + 8 * (size_t)(!!(st & S_ID) + !!(st & S_STREAM_ID));
	*cpu = st & S_CPU ? (int32_t)perfdata_u32(p) : -1;
	return true;
}

static struct ptd_sb *sb_add(struct ptdecode *d)
{
	struct ptd_sb *t = array_grow(d->sbs, &d->capsbs, d->nsbs, sizeof(*t));

	if (!t)
		return NULL;
	d->sbs = t;
	memset(&t[d->nsbs], 0, sizeof(*t));
	t[d->nsbs].seq = d->nsbs;
	return &t[d->nsbs++];
}

/* A NUL-terminated string at P within END, copied. */
static char *str_at(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *z = memchr(p, 0, (size_t)(end - p));

	return z ? strndup((const char *)p, (size_t)(z - p)) : NULL;
}

/* Side-band record REC (TYPE, MISC, SIZE bytes) kept for the decoder.
 * Returns 0, 1 with a reason, or -ENOMEM. */
static int take_sideband(struct ptdecode *d, const struct attrs *a, const unsigned char *rec,
			 uint32_t type, uint32_t misc, uint16_t size, char *why, size_t len)
{
	struct ptd_sb *s;
	uint64_t time;
	int32_t pid, tid, cpu;

	if (!trailer(a, rec, size, &time, &pid, &tid, &cpu))
		return ptdata_why(why, len, "a damaged side-band record");
	s = sb_add(d);
	if (!s)
		return -ENOMEM;
	s->type = type;
	s->misc = misc;
	s->time = time;
	s->pid = s->spid = pid;
	s->tid = s->stid = tid;
	s->cpu = cpu;
	if (type == REC_SWITCH_CPU_WIDE) {
		if (size < 16)
			return ptdata_why(why, len, "a damaged SWITCH_CPU_WIDE record");
		s->np_pid = (int32_t)perfdata_u32(rec + 8);
		s->np_tid = (int32_t)perfdata_u32(rec + 12);
	}
	if (type == REC_COMM || type == REC_MMAP || type == REC_MMAP2 || type == REC_FORK ||
	    type == REC_EXIT || type == REC_ITRACE_START) {
		s->pid = (int32_t)perfdata_u32(rec + 8);
		s->tid = (int32_t)perfdata_u32(rec + (type == REC_FORK || type == REC_EXIT ? 16 : 12));
	}
	if (type == REC_FORK || type == REC_EXIT) {
		if (size < 24)
			return ptdata_why(why, len, "a damaged FORK or EXIT record");
		s->np_pid = (int32_t)perfdata_u32(rec + 12);
		s->np_tid = (int32_t)perfdata_u32(rec + 20);
	}
	if (type == REC_COMM && !(s->str = str_at(rec + 16, rec + size)))
		return ptdata_why(why, len, "a damaged COMM record");
	if (type == REC_MMAP || type == REC_MMAP2) {
		size_t name = type == REC_MMAP ? 40 : 72;

		if (size < name)
			return ptdata_why(why, len, "a damaged MMAP record");
		s->addr = perfdata_u64(rec + 16);
		s->len = perfdata_u64(rec + 24);
		s->pgoff = perfdata_u64(rec + 32);
		s->prot = type == REC_MMAP2 ? perfdata_u32(rec + 64) : (misc & 0x2000 ? 0 : PROT_EXEC_BIT);
		if (!(s->str = str_at(rec + name, rec + size)))
			return ptdata_why(why, len, "a damaged MMAP record");
	}
	return 0;
}

/* One record of the data section. Returns 0, 1 with a reason, or -ENOMEM. */
static int take_record(struct ptdecode *d, const struct attrs *a, const unsigned char *rec,
		       uint64_t off, char *why, size_t len)
{
	uint32_t type = perfdata_u32(rec), misc = rec[4] | (uint32_t)rec[5] << 8;
	uint16_t size;

	memcpy(&size, rec + 6, 2);
	switch (type) {
	case REC_AUXTRACE_INFO:
		if (size < 16 + 8 * PT_WORDS || perfdata_u32(rec + 8) != AUXTRACE_INTEL_PT)
			return ptdata_why(why, len, "AUX data of another kind than Intel PT");
		d->shift = perfdata_u64(rec + 16 + 8 * PT_TIME_SHIFT);
		d->mult = perfdata_u64(rec + 16 + 8 * PT_TIME_MULT);
		d->zero = perfdata_u64(rec + 16 + 8 * PT_TIME_ZERO);
		if (!perfdata_u64(rec + 16 + 8 * PT_CAP_USER_TIME_ZERO) || d->shift >= 32 || !d->mult)
			return ptdata_why(why, len, "no TSC conversion");
		d->pmu_type = perfdata_u64(rec + 16 + 8 * PT_PMU_TYPE);
		if (size >= 16 + 8 * PT_MTC_WORDS) {	/* perf's intel_pt_has(CYC_BIT) */
			d->mtc_freq_bits = perfdata_u64(rec + 16 + 8 * PT_MTC_FREQ_BITS);
			d->ctc.n = (uint32_t)perfdata_u64(rec + 16 + 8 * PT_TSC_CTC_N);
			d->ctc.d = d->ctc.n ? (uint32_t)perfdata_u64(rec + 16 + 8 * PT_TSC_CTC_D) : 0;
			d->ctc.mult = d->ctc.d && !(d->ctc.n % d->ctc.d) ? d->ctc.n / d->ctc.d : 0;
		}
		if (size >= 16 + 8 * (PT_MAX_NONTURBO_RATIO + 1))
			d->ctc.max_nonturbo = (double)(uint32_t)perfdata_u64(rec + 16 + 8 *
									 PT_MAX_NONTURBO_RATIO);
		if (!d->ctc.max_nonturbo) {
			/* perf's intel_pt_process_auxtrace_info(): the TSC's
			 * frequency in 100 MHz (intel_pt_ns_to_ticks(1 s)) */
			uint64_t s = 1000000000, hz = (s / d->mult << d->shift) +
						     ((s % d->mult) << d->shift) / d->mult;

			d->ctc.max_nonturbo = (double)(uint32_t)((hz + 50000000) / 100000000);
		}
		d->per_cpu = perfdata_u64(rec + 16 + 8 * PT_PER_CPU_MMAPS);
		d->sched_switch = perfdata_u64(rec + 16 + 8 * PT_HAVE_SCHED_SWITCH);
		if (d->sched_switch != 0 && d->sched_switch != 2 && d->sched_switch != 3)
			/* 1: the sched_switch tracepoint's samples */
			return ptdata_why(why, len, "thread switches perf tracks its own way "
					  "(have_sched_switch %llu)",
					  (unsigned long long)d->sched_switch);
		return 0;
	case REC_AUXTRACE: {
		struct ptd_queue *q;
		uint32_t idx;

		if (size < 48)
			return ptdata_why(why, len, "a damaged AUXTRACE record");
		idx = perfdata_u32(rec + 32);
		for (size_t i = 0; i < d->nqueues; i++)
			if (d->queues[i].data_len && i == idx)
				return ptdata_why(why, len, "several AUX buffers in one queue");
		while (d->nqueues <= idx) {
			q = array_grow(d->queues, &d->capqueues, d->nqueues, sizeof(*q));
			if (!q)
				return -ENOMEM;
			d->queues = q;
			memset(&q[d->nqueues++], 0, sizeof(*q));
		}
		q = &d->queues[idx];
		q->data_off = off + size;
		q->data_len = perfdata_u64(rec + 8);
		if (q->data_off + q->data_len > d->data_end)
			d->data_end = q->data_off + q->data_len;
		q->tid = (int32_t)perfdata_u32(rec + 36);
		q->cpu = (int32_t)perfdata_u32(rec + 40);
		q->reference = perfdata_u64(rec + 24);
		return 0;
	}
	case REC_COMM: case REC_MMAP: case REC_MMAP2: case REC_FORK: case REC_EXIT:
	case REC_SWITCH: case REC_SWITCH_CPU_WIDE: case REC_ITRACE_START:
		break;
	case REC_AUX: case REC_THROTTLE: case REC_UNTHROTTLE:
	case REC_NAMESPACES: case REC_CGROUP:
	case REC_KSYMBOL: case REC_BPF_EVENT:	/* kernel symbols: no user code */
		if (type == REC_AUX && size >= 32 && (perfdata_u64(rec + 24) & AUX_FLAG_TRUNCATED))
			return ptdata_why(why, len, "truncated AUX data");
		return 0;
	case REC_LOST: case REC_LOST_SAMPLES:
		return ptdata_why(why, len, "lost records");
	case REC_SAMPLE:
		return ptdata_why(why, len, "samples of other events");
	case PERFDATA_REC_COMPRESSED:
		return ptdata_why(why, len, "compressed records");
	default:
		if (type >= REC_USER_FIRST && type != 79 /* TIME_CONV */ && type != 80 &&
		    type != 82 && (type < 67 || type > 78))
			return ptdata_why(why, len, "a perf record of type %u", type);
		if (type < REC_USER_FIRST)
			return ptdata_why(why, len, "a perf record of type %u", type);
		return 0;	/* perf's own: attrs, ids, features, rounds, time conversion */
	}
	return take_sideband(d, a, rec, type, misc, size, why, len);
}

static int by_time(const void *x, const void *y)
{
	const struct ptd_sb *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int ptdata_read(struct ptdecode *d, char *why, size_t len)
{
	struct perfdata_header h;
	struct perfdata_records *r;
	const unsigned char *rec;
	struct attrs a;
	int err = 0, rc;

	if (perfdata_header_read(d->fd, &h))
		return ptdata_why(why, len, "not a perf.data this reads");
	if (h.pipe)
		return ptdata_why(why, len, "perf's pipe format");
	if ((rc = read_attrs(d->fd, &h, &a, why, len)))
		return rc;
	if (a.kernel)
		return ptdata_why(why, len, "kernel code traced");
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	perfdata_records_start(r, d->fd, &h);
	rc = 0;
	while (!rc && (rec = perfdata_record_next(r, &err)))
		rc = take_record(d, &a, rec, r->rec_off, why, len);
	free(r);
	if (!rc && err)
		rc = ptdata_why(why, len, "damaged records");
	if (!rc && !d->mult)
		rc = ptdata_why(why, len, "no Intel PT AUXTRACE_INFO");
	if (!rc && !d->nqueues)
		rc = ptdata_why(why, len, "no AUX data");
	d->sb_cpu = a.id_bits & S_CPU;
	/* perf's intel_pt_mtc_period(): the first intel_pt event's */
	for (size_t i = 0; !rc && d->mtc_freq_bits && i < a.n && i < MAX_ATTRS; i++)
		if (a.ev[i].type == d->pmu_type) {
			d->ctc.shift = (unsigned)((a.ev[i].config & d->mtc_freq_bits) >>
						  __builtin_ctzll(d->mtc_freq_bits));
			break;
		}

	for (size_t i = 0; !rc && i < d->nqueues; i++) {
		struct ptd_queue *q = &d->queues[i];

		/* perf's intel_pt_set_pid_tid_cpu(): a CPU's queue, or any with
		 * have_sched_switch, decodes the thread its CPU runs now */
		q->cpu_thread = q->tid == -1 || d->sched_switch;
		if (q->data_len && q->cpu_thread && (q->cpu < 0 || !d->sb_cpu))
			rc = ptdata_why(why, len, "an AUX queue whose thread perf takes from a CPU "
					"it cannot tell (%s)", q->cpu < 0 ? "a thread's queue" :
					"side-band records without their CPU");
	}
	for (size_t i = 0; !rc && i < d->nsbs; i++)
		if (d->sched_switch == 3 && d->sbs[i].type == REC_SWITCH)
			/* perf: "Expecting CPU-wide context switch event" */
			rc = ptdata_why(why, len, "a thread's switch record where perf expects "
					"CPU-wide ones");
	if (!rc)
		array_sort(d->sbs, d->nsbs, sizeof(*d->sbs), by_time);
	return rc;
}

/* The most a page fault maps of a file at once: a page cache folio (ext4
 * and others hold a file in folios of up to a PMD, 2 MiB on x86-64, and
 * Linux 6.18 maps the whole folio, or its PMD, on a fault in it). A fault
 * maps again pages given back before, as far back as the folio begins: a
 * chunk read where the last one's pages were given back once left most of
 * each folio mapped, and the peak RSS grew with the AUX data (issue 21). */
#define PTD_REMAP_SPAN (2u << 20)
#define FORGET_EVERY PTD_REMAP_SPAN	/* scanned AUX bytes given back at once */

void ptdata_forget(const struct ptd_queue *q, uint64_t from, uint64_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)(q->data + from) + page - 1) & ~(page - 1);
	uintptr_t hi = (uintptr_t)(q->data + to) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void ptdata_forget_before(struct ptd_queue *q, uint64_t to)
{
	if (to <= q->forgot)
		return;
	ptdata_forget(q, q->forgot > PTD_REMAP_SPAN ? q->forgot - PTD_REMAP_SPAN : 0, to);
	q->forgot = to;
}

/* Adds the PSB at OFF (its PSB+ ending at END, with TSC; perf's time
 * before it T) to Q's list. */
static bool add_psb(struct ptd_queue *q, size_t *cap, uint64_t off, uint64_t end, uint64_t tsc,
		    const struct pttime *t)
{
	if (q->npsbs == *cap) {
		size_t n = *cap ? 2 * *cap : 64;
		uint64_t *a = realloc(q->psbs, n * sizeof(*a));
		uint64_t *b = a ? realloc(q->psb_ends, n * sizeof(*b)) : NULL;
		uint64_t *c = b ? realloc(q->psb_tscs, n * sizeof(*c)) : NULL;
		struct pttime *e = c ? realloc(q->psb_times, n * sizeof(*e)) : NULL;

		if (a)
			q->psbs = a;
		if (b)
			q->psb_ends = b;
		if (c)
			q->psb_tscs = c;
		if (!e)
			return false;
		q->psb_times = e;
		*cap = n;
	}
	q->psbs[q->npsbs] = off;
	q->psb_ends[q->npsbs] = end;
	q->psb_times[q->npsbs] = *t;
	q->psb_tscs[q->npsbs++] = tsc;
	return true;
}

/* The Intel PT names of the packets ptdata_scan() leaves to perf. */
static const char *const other_packets[] = {
	[ppt_pip] = "PIP", [ppt_vmcs] = "VMCS", [ppt_stop] = "TraceStop",
	[ppt_ovf] = "OVF", [ppt_mnt] = "MNT", [ppt_exstop] = "EXSTOP", [ppt_mwait] = "MWAIT",
	[ppt_pwre] = "PWRE", [ppt_pwrx] = "PWRX", [ppt_ptw] = "PTW",
};

int ptdata_scan(struct ptd_queue *q, char *why, size_t len)
{
	struct pt_config cfg;
	struct pt_packet_decoder *pd, *ahead = NULL;
	struct pt_packet p;
	struct pttime t = { .ctc = q->ctc, .data = q->data, .len = q->data_len, .ref = q->reference },
		      at_psb = t;
	uint64_t off = 0, psb = 0, tsc = 0;
	size_t cap = 0;
	bool in_psb = false, cyc = false;
	int rc = 0, st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)q->data;
	cfg.end = (uint8_t *)q->data + q->data_len;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return -ENOMEM;
	st = pt_pkt_sync_forward(pd);
	while (st >= 0 && !rc) {
		pt_pkt_get_offset(pd, &off);
		if (off - q->forgot >= FORGET_EVERY)
			ptdata_forget_before(q, off);
		st = pt_pkt_next(pd, &p, sizeof(p));
		if (st < 0)
			break;
		if (p.type == ppt_psb)
			at_psb = t;	/* where a chunk decoded from this PSB starts */
		pttime_packet(&t, &p, pd, &ahead);
		switch (p.type) {
		case ppt_psb:
			in_psb = true;
			psb = off;
			tsc = 0;
			break;
		case ppt_psbend:
			in_psb = false;
			if (!add_psb(q, &cap, psb, off + (uint64_t)st, tsc, &at_psb))
				rc = -ENOMEM;
			break;
		case ppt_tsc:
			if (in_psb)
				tsc = p.payload.tsc.tsc;
			break;
		case ppt_mtc:
			if (q->ctc->d && q->ctc->shift > 15)	/* past the 4 bits of RTIT_CTL's */
				rc = ptdata_why(why, len, "MTC packets of a period past 15 (%u)",
						q->ctc->shift);
			break;
		case ppt_cyc:	/* timed as perf does (pttime.c) */
			cyc = true;
			break;
		case ppt_pad: case ppt_mode: case ppt_tnt_8: case ppt_tnt_64: case ppt_tip:
		case ppt_tip_pge: case ppt_tip_pgd: case ppt_fup: case ppt_tma:
		case ppt_cbr:	/* perf's cbr events: no frequency in its lines here */
			break;
		default:
			rc = ptdata_why(why, len, "Intel PT packets perf reads its own way (%s)",
					(size_t)p.type < sizeof(other_packets) / sizeof(*other_packets) &&
					other_packets[p.type] ? other_packets[p.type] : "unknown");
		}
	}
	if (!rc && st != -pte_eos)
		rc = ptdata_why(why, len, "AUX data libipt cannot read (%s)", pt_errstr(pt_errcode(st)));
	pt_pkt_free_decoder(pd);
	pt_pkt_free_decoder(ahead);
	if (!cyc) {	/* each PSB+ sets the time anew */
		free(q->psb_times);
		q->psb_times = NULL;
	}
	return rc;
}
