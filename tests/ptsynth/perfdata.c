/* SPDX-License-Identifier: MIT */
/* perfdata: perf.data writer for synthesized Intel PT (see perfdata.h). */
#include "perfdata.h"
#include "encode.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf's own record types (tools/perf/util/event.h). */
enum {
	REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71,
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_EVENT_DESC = 12,
	FEAT_AUXTRACE = 18,
};

/* The private words of AUXTRACE_INFO for Intel PT (tools/perf/util/intel-pt.h). */
enum {
	PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO,
	PT_TSC_BIT, PT_NORETCOMP_BIT, PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE,
	PT_PER_CPU_MMAPS, PT_MTC_BIT, PT_MTC_FREQ_BITS, PT_TSC_CTC_N, PT_TSC_CTC_D,
	PT_CYC_BIT, PT_MAX_NONTURBO_RATIO, PT_FILTER_STR_LEN, PT_PRIV_WORDS
};

#define PMU_TYPE 8
#define CFG_PT 0x1ull
#define CFG_CYC 0x2ull
#define CFG_TSC 0x400ull
#define CFG_NORETCOMP 0x800ull
#define CFG_BRANCH 0x2000ull
#define CFG_MTC 0x200ull
#define CFG_MTC_PERIOD_SHIFT 14
#define SAMPLE_ID 0x1000ull
#define AUXTRACE_HDR 48
#define HEADER_SIZE 104
#define NAME_ALIGN 64

struct out {
	FILE *f;
	int rc;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->rc == 0 && n && fwrite(p, 1, n, o->f) != n)
		o->rc = -EIO;
}

static void u32(struct out *o, uint32_t v) { put(o, &v, 4); }
static void u64(struct out *o, uint64_t v) { put(o, &v, 8); }
static void u16(struct out *o, uint16_t v) { put(o, &v, 2); }

static void zeros(struct out *o, size_t n)
{
	static const uint8_t z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(o, z, k);
		n -= k;
	}
}

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static void header(struct out *o, uint32_t type, uint16_t misc, size_t size)
{
	u32(o, type);
	u16(o, misc);
	u16(o, (uint16_t)size);
}

/* sample_id_all trailer for sample_type IP|TID|TIME|CPU|IDENTIFIER. */
#define TRAILER 32
static void trailer(struct out *o, pid_t pid, pid_t tid, uint64_t time, int cpu)
{
	u32(o, (uint32_t)pid);
	u32(o, (uint32_t)tid);
	u64(o, time);
	u32(o, (uint32_t)cpu);
	u32(o, 0);
	u64(o, SAMPLE_ID);
}

static void padded_string(struct out *o, const char *s)
{
	size_t n = strlen(s) + 1;

	put(o, s, n);
	zeros(o, pad8(n) - n);
}

static void attr(struct out *o, const struct ps_pd *pd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PMU_TYPE;
	a.size = sizeof(a);
	a.config = CFG_PT | CFG_TSC | CFG_BRANCH | (pd->noretcomp ? CFG_NORETCOMP : 0) |
		   (pd->cyc ? CFG_CYC : 0) |
		   (pd->mtc >= 0 ? CFG_MTC | (uint64_t)pd->mtc << CFG_MTC_PERIOD_SHIFT : 0);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_id_all = 1;
	a.context_switch = pd->nswitches > 0;
	put(o, &a, sizeof(a));
}

static void auxtrace_info(struct out *o, const struct ps_pd *pd)
{
	uint64_t priv[PT_PRIV_WORDS] = {
		[PT_PMU_TYPE] = PMU_TYPE, [PT_TIME_SHIFT] = 0, [PT_TIME_MULT] = 1,
		[PT_TIME_ZERO] = 0, [PT_CAP_USER_TIME_ZERO] = 1, [PT_TSC_BIT] = CFG_TSC,
		[PT_NORETCOMP_BIT] = CFG_NORETCOMP, [PT_HAVE_SCHED_SWITCH] = 0,
		[PT_SNAPSHOT_MODE] = pd->snapshot, [PT_PER_CPU_MMAPS] = pd->per_cpu,
		[PT_MTC_BIT] = CFG_MTC, [PT_MTC_FREQ_BITS] = 0xfull << CFG_MTC_PERIOD_SHIFT,
		[PT_TSC_CTC_N] = pd->mtc >= 0 ? PS_CTC_N : 0,
		[PT_TSC_CTC_D] = pd->mtc >= 0 ? PS_CTC_D : 0, [PT_CYC_BIT] = CFG_CYC,
		[PT_MAX_NONTURBO_RATIO] = 0,
		[PT_FILTER_STR_LEN] = 0,
	};

	header(o, REC_AUXTRACE_INFO, 0, 8 + 8 + sizeof(priv));
	u32(o, 1);  /* PERF_AUXTRACE_INTEL_PT */
	u32(o, 0);
	put(o, priv, sizeof(priv));
}

static void comm(struct out *o, const struct ps_pd *pd, pid_t pid, pid_t tid, const char *name,
		 int cpu)
{
	header(o, PERF_RECORD_COMM, 0, 8 + 8 + pad8(strlen(name) + 1) + TRAILER);
	u32(o, (uint32_t)pid);
	u32(o, (uint32_t)tid);
	padded_string(o, name);
	trailer(o, pid, tid, pd->meta_time, cpu);
}

/* Map M of process PID: with its build id HEX (NULL: none) in place of
 * maj, min, ino and ino_generation (PERF_RECORD_MISC_MMAP_BUILD_ID: u8
 * size, 3 reserved, 20 bytes), as the kernel writes it. */
static void mmap2(struct out *o, const struct ps_pd *pd, pid_t pid, const struct ps_map *m,
		  const char *hex)
{
	unsigned char id[24] = { 0 };
	size_t n = 0;

	for (; hex && n < 20 && isxdigit((unsigned char)hex[2 * n]) &&
	       isxdigit((unsigned char)hex[2 * n + 1]); n++) {
		char byte[3] = { hex[2 * n], hex[2 * n + 1], 0 };

		id[4 + n] = (unsigned char)strtoul(byte, NULL, 16);
	}
	id[0] = (unsigned char)n;
	header(o, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (n ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
	       8 + 8 + 24 + 8 + 16 + 8 + pad8(strlen(m->path) + 1) + TRAILER);
	u32(o, (uint32_t)pid);
	u32(o, (uint32_t)pid);
	u64(o, m->start);
	u64(o, m->end - m->start);
	u64(o, m->pgoff);
	if (n) {
		put(o, id, sizeof(id));
	} else {
		u32(o, m->maj);
		u32(o, m->min);
		u64(o, m->ino);
		u64(o, 0);
	}
	u32(o, m->prot);
	u32(o, m->flags);
	padded_string(o, m->path);
	trailer(o, pid, pid, pd->meta_time, 0);
}

static void itrace_start(struct out *o, pid_t pid, pid_t tid, int cpu, uint64_t time)
{
	header(o, PERF_RECORD_ITRACE_START, 0, 8 + 8 + TRAILER);
	u32(o, (uint32_t)pid);
	u32(o, (uint32_t)tid);
	trailer(o, pid, tid, time, cpu);
}

static void context_switch(struct out *o, const struct ps_pd *pd, const struct ps_pd_switch *sw)
{
	uint16_t misc = (sw->out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
			(sw->preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);

	if (pd->per_cpu) {
		header(o, PERF_RECORD_SWITCH_CPU_WIDE, misc, 8 + 8 + TRAILER);
		u32(o, (uint32_t)sw->np_pid);  /* next (out) or previous (in) task */
		u32(o, (uint32_t)sw->np_tid);
	} else {
		header(o, PERF_RECORD_SWITCH, misc, 8 + TRAILER);
	}
	trailer(o, sw->pid ? sw->pid : pd->pid, sw->tid, sw->time, sw->cpu);
}

/* A BPF program loaded in the kernel, as perf record describes each when it
 * starts (perf_event__synthesize_bpf_events()): its KSYMBOL and BPF_EVENT
 * records. */
static void bpf_program(struct out *o)
{
	static const char name[] = "bpf_prog_6deef7357e7b4530_sd_fw_ingress";
	static const uint8_t tag[8] = { 0x6d, 0xee, 0xf7, 0x35, 0x7e, 0x7b, 0x45, 0x30 };

	header(o, PERF_RECORD_KSYMBOL, 0, 8 + 16 + pad8(sizeof(name)) + TRAILER);
	u64(o, 0xffffffffc0a01000ull);
	u32(o, 0x1a0);
	u16(o, PERF_RECORD_KSYMBOL_TYPE_BPF);
	u16(o, 0);
	padded_string(o, name);
	trailer(o, -1, -1, 0, 0);
	header(o, PERF_RECORD_BPF_EVENT, 0, 8 + 16 + TRAILER);
	u16(o, PERF_BPF_EVENT_PROG_LOAD);
	u16(o, 0);
	u32(o, 42);
	put(o, tag, sizeof(tag));
	trailer(o, -1, -1, 0, 0);
}

/* A FORK or EXIT record (TYPE) of queue Q's thread at TIME. */
static void task(struct out *o, const struct ps_pd *pd, size_t q, uint32_t type, uint64_t time)
{
	pid_t tid = pd->queues[q].tid, ptid = q ? pd->queues[0].tid : pd->ppid;

	header(o, type, 0, 8 + 24 + TRAILER);
	u32(o, (uint32_t)pd->pid);
	u32(o, (uint32_t)(q ? pd->pid : pd->ppid));
	u32(o, (uint32_t)tid);
	u32(o, (uint32_t)ptid);
	u64(o, time);
	trailer(o, pd->pid, tid, time, pd->per_cpu ? (int)q : 0);
}

static void auxtrace(struct out *o, const struct ps_pd *pd, size_t q)
{
	const struct ps_pd_queue *qu = &pd->queues[q];
	size_t size = pad8(qu->len);

	header(o, REC_AUXTRACE, 0, AUXTRACE_HDR);
	u64(o, size);
	u64(o, 0);                      /* offset in the AUX buffer */
	u64(o, 0x5eed0000 + q + 1);     /* reference: never 0 (perf 6.1 crashes) */
	u32(o, (uint32_t)q);            /* idx */
	u32(o, pd->per_cpu ? (uint32_t)-1 : (uint32_t)qu->tid);
	u32(o, pd->per_cpu ? (uint32_t)q : (uint32_t)-1);
	u32(o, 0);
	put(o, qu->data, qu->len);
	zeros(o, size - qu->len);
}

static void event_desc(struct out *o, const struct ps_pd *pd)
{
	const char *name = pd->noretcomp ? "intel_pt/noretcomp=1/u" : "intel_pt//u";
	size_t n = strlen(name) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	u32(o, 1);
	u32(o, sizeof(struct perf_event_attr));
	attr(o, pd);
	u32(o, 1);
	u32(o, (uint32_t)len);
	put(o, name, n);
	zeros(o, len - n);
	u64(o, SAMPLE_ID);
}

int ps_perf_write(const char *path, const struct ps_pd *pd)
{
	struct out o = { .f = fopen(path, "wb") };
	uint64_t *index = calloc(pd->nqueues + 1, sizeof(*index));
	long data_start, data_end, feat_start, desc_start, aux_start, end;
	size_t i;
	const uint64_t attrs_off = HEADER_SIZE;
	const uint64_t attr_size = sizeof(struct perf_event_attr) + 16;
	const uint64_t ids_off = attrs_off + attr_size;

	if (!o.f || !index) {
		if (o.f)
			fclose(o.f);
		free(index);
		return o.f ? -ENOMEM : -errno;
	}
	zeros(&o, HEADER_SIZE);  /* written last */
	attr(&o, pd);
	u64(&o, ids_off);
	u64(&o, 8);
	u64(&o, SAMPLE_ID);

	data_start = ftell(o.f);
	auxtrace_info(&o, pd);
	for (i = 0; i < pd->nqueues; i++)
		comm(&o, pd, pd->pid, pd->queues[i].tid, pd->queues[i].comm, pd->per_cpu ? (int)i : 0);
	if (pd->then)
		comm(&o, pd, pd->then->pid, pd->then->pid, pd->then->comm, 0);
	if (pd->bpf_records)
		bpf_program(&o);
	for (i = 0; i < pd->nmaps; i++)
		mmap2(&o, pd, pd->pid, &pd->maps[i], pd->build_ids ? pd->build_ids[i] : NULL);
	for (i = 0; pd->then && i < pd->then->nmaps; i++)
		mmap2(&o, pd, pd->then->pid, &pd->then->maps[i],
		      pd->then->build_ids ? pd->then->build_ids[i] : NULL);
	for (i = 0; pd->per_cpu && i < pd->nqueues; i++)
		itrace_start(&o, pd->pid, pd->queues[i].tid, (int)i, pd->meta_time);
	if (pd->then)	/* its event starts when it first runs */
		itrace_start(&o, pd->then->pid, pd->then->pid, 0, pd->then->time);
	for (i = 0; i < pd->nswitches; i++)
		context_switch(&o, pd, &pd->switches[i]);
	for (i = 0; i < pd->nqueues; i++) {
		if (pd->queues[i].fork_time)
			task(&o, pd, i, PERF_RECORD_FORK, pd->queues[i].fork_time);
		if (pd->queues[i].exit_time)
			task(&o, pd, i, PERF_RECORD_EXIT, pd->queues[i].exit_time);
	}
	for (i = 0; i < pd->nqueues; i++) {
		index[i] = (uint64_t)ftell(o.f);
		auxtrace(&o, pd, i);
	}
	data_end = ftell(o.f);

	/* feature sections: EVENT_DESC then AUXTRACE, in bit order */
	feat_start = data_end;
	zeros(&o, 2 * 16);
	desc_start = ftell(o.f);
	event_desc(&o, pd);
	aux_start = ftell(o.f);
	u64(&o, pd->nqueues);
	for (i = 0; i < pd->nqueues; i++) {
		u64(&o, index[i]);
		u64(&o, AUXTRACE_HDR);
	}
	end = ftell(o.f);

	if (o.rc == 0 && fseek(o.f, feat_start, SEEK_SET) == 0) {
		u64(&o, (uint64_t)desc_start);
		u64(&o, (uint64_t)(aux_start - desc_start));
		u64(&o, (uint64_t)aux_start);
		u64(&o, (uint64_t)(end - aux_start));
	}
	if (o.rc == 0 && fseek(o.f, 0, SEEK_SET) == 0) {
		u64(&o, 0x32454c4946524550ull);  /* "PERFILE2" */
		u64(&o, HEADER_SIZE);
		u64(&o, attr_size);
		u64(&o, attrs_off);
		u64(&o, attr_size);
		u64(&o, (uint64_t)data_start);
		u64(&o, (uint64_t)(data_end - data_start));
		u64(&o, 0);
		u64(&o, 0);
		u64(&o, (1ull << FEAT_EVENT_DESC) | (1ull << FEAT_AUXTRACE));
		u64(&o, 0);
		u64(&o, 0);
		u64(&o, 0);
	}
	if (fclose(o.f) && o.rc == 0)
		o.rc = -EIO;
	free(index);
	return o.rc;
}
