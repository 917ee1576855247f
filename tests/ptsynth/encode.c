/* SPDX-License-Identifier: MIT */
/* encode: Intel PT packet generation (see encode.h). */
#include "encode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

struct enc {
	struct pt_encoder *pt;
	const struct ps_enc_opts *o;
	uint64_t tnt;          /* pending TNT bits, oldest highest */
	unsigned ntnt;
	uint64_t *stack;       /* the decoder's return stack */
	size_t depth, cap;
	uint64_t since_psb;    /* offset of the last PSB */
	bool damage_tsc;       /* the next TSC packet gets a flipped bit */
	uint64_t mtc_last;     /* --mtc: the CTC >> mtc of the last TMA or MTC */
	bool tsc_damaged;
	int rc;
};

static uint64_t offset(struct enc *e)
{
	uint64_t off = 0;

	pt_enc_get_offset(e->pt, &off);
	return off;
}

static void put(struct enc *e, struct pt_packet *p)
{
	if (e->rc == 0 && pt_enc_next(e->pt, p) < 0)
		e->rc = -ENOMEM;
}

/* With --cyc, the CYC packet before a TNT, IP or MTC packet: the core
 * cycles since the last (a few: the generator keeps no count). Before an
 * MTC, as the hardware writes one, it makes perf time the CYCs after it
 * from the cycles up to the next MTC. */
static void cyc(struct enc *e)
{
	struct pt_packet p = { .type = ppt_cyc };

	if (!e->o->cyc)
		return;
	p.payload.cyc.value = 3;
	put(e, &p);
}

static void flush_tnt(struct enc *e)
{
	struct pt_packet p = { .type = ppt_tnt_8 };

	if (!e->ntnt)
		return;
	cyc(e);
	p.payload.tnt.bit_size = (uint8_t)e->ntnt;
	p.payload.tnt.payload = e->tnt;
	put(e, &p);
	e->tnt = 0;
	e->ntnt = 0;
}

static void tnt_bit(struct enc *e, int taken)
{
	e->tnt = (e->tnt << 1) | (taken ? 1 : 0);
	if (++e->ntnt == 6)
		flush_tnt(e);
}

static void simple(struct enc *e, enum pt_packet_type type)
{
	struct pt_packet p = { .type = type };

	flush_tnt(e);
	put(e, &p);
}

static void ip_packet(struct enc *e, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p = { .type = type };

	flush_tnt(e);
	cyc(e);
	p.payload.ip.ipc = ip ? pt_ipc_sext_48 : pt_ipc_suppressed;
	p.payload.ip.ip = ip;
	put(e, &p);
}

/* The CTC at TSC T (--mtc). */
static uint64_t ctc_at(uint64_t t)
{
	return t * PS_CTC_D / PS_CTC_N;
}

/* A TSC packet of time T; with --mtc, a TMA after it (the CTC's low 16 bits
 * and the TSC ticks since the CTC's last tick), as the hardware writes one. */
static void tsc(struct enc *e, uint64_t t)
{
	struct pt_packet p = { .type = ppt_tsc };
	uint64_t ctc = ctc_at(t);

	flush_tnt(e);
	p.payload.tsc.tsc = t;
	if (e->damage_tsc) {
		p.payload.tsc.tsc ^= 1ull << 40;
		e->damage_tsc = false;
		e->tsc_damaged = true;
	}
	put(e, &p);
	if (e->o->mtc < 0)
		return;
	p = (struct pt_packet){ .type = ppt_tma };
	p.payload.tma.ctc = (uint16_t)ctc;
	p.payload.tma.fc = (uint16_t)(t - ctc * PS_CTC_N / PS_CTC_D);
	put(e, &p);
	e->mtc_last = ctc >> e->o->mtc;
}

/* With --mtc, an MTC where the CTC crossed a multiple of 2^mtc since the
 * last timing packet (one for all the ticks crossed), before time T's step. */
static void mtc(struct enc *e, uint64_t t)
{
	struct pt_packet p = { .type = ppt_mtc };
	uint64_t v;

	if (e->o->mtc < 0 || (v = ctc_at(t) >> e->o->mtc) == e->mtc_last)
		return;
	flush_tnt(e);
	cyc(e);
	p.payload.mtc.ctc = (uint8_t)v;
	put(e, &p);
	e->mtc_last = v;
}

static void mode_exec(struct enc *e)
{
	struct pt_packet p = { .type = ppt_mode };

	flush_tnt(e);
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	put(e, &p);
}

/* With --cbr, the CBR packet of a PSB+. */
static void cbr(struct enc *e)
{
	struct pt_packet p = { .type = ppt_cbr };

	if (!e->o->cbr)
		return;
	p.payload.cbr.ratio = (uint8_t)e->o->cbr;
	put(e, &p);
}

/* PSB+ carrying the time and, when tracing is on, the current ip (FUP). */
static void psb(struct enc *e, uint64_t t, uint64_t fup)
{
	simple(e, ppt_psb);
	e->since_psb = offset(e);
	tsc(e, t);
	cbr(e);
	if (fup) {
		mode_exec(e);
		ip_packet(e, ppt_fup, fup);
	}
	simple(e, ppt_psbend);
	e->depth = 0;
}

static void push(struct enc *e, uint64_t ret)
{
	if (e->depth == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		uint64_t *s = realloc(e->stack, cap * sizeof(*s));

		if (!s) {
			e->rc = -ENOMEM;
			return;
		}
		e->stack = s;
		e->cap = cap;
	}
	e->stack[e->depth++] = ret;
}

static uint64_t pop(struct enc *e)
{
	return e->depth ? e->stack[--e->depth] : 0;
}

static uint64_t step_time(const struct ps_enc_opts *o, const struct ps_step *s)
{
	return ps_clock_time(o->clock, s->seq);
}

/* Packets for instruction IN, which was followed by NEXT (0: by nothing). */
static void branch(struct enc *e, const struct ps_insn *in, uint64_t next, uint64_t next_time)
{
	uint64_t ret;

	switch (in->kind) {
	case PS_JCC:
		tnt_bit(e, next != in->ip + in->len);
		break;
	case PS_CALL:
		if (in->target != in->ip + in->len)
			push(e, in->ip + in->len);
		break;
	case PS_CALL_INDIRECT:
		push(e, in->ip + in->len);
		ip_packet(e, ppt_tip, next);
		break;
	case PS_JMP_INDIRECT:
		ip_packet(e, ppt_tip, next);
		break;
	case PS_RET:
		ret = pop(e);
		if (e->o->retcomp && ret && ret == next)
			tnt_bit(e, 1);
		else
			ip_packet(e, ppt_tip, next);
		break;
	case PS_SYSCALL:
		ip_packet(e, ppt_tip_pgd, 0);
		if (next) {
			tsc(e, next_time);
			mode_exec(e);
			ip_packet(e, ppt_tip_pge, next);
		}
		break;
	default:
		break;
	}
}

int ps_encode(const struct ps_thread *th, size_t from, size_t to, const struct ps_icache *ic,
	      const struct ps_enc_opts *o, struct ps_aux *out, char *err, size_t errlen)
{
	struct pt_config cfg;
	struct enc e = { .o = o };
	const struct ps_insn *in;
	size_t i, cap, cut = SIZE_MAX;
	uint64_t next, next_time;
	unsigned count = 0;
	size_t sw = 0;         /* the next switch of o->clock, by seq */

	memset(out, 0, sizeof(*out));
	out->ovf_step = SIZE_MAX;
	out->lost_from = SIZE_MAX;
	out->vis_end = from;
	if (from >= to)
		return 0;
	cap = (to - from) * 24 + 4096;
	out->data = malloc(cap);
	if (!out->data)
		return -ENOMEM;
	pt_config_init(&cfg);
	cfg.begin = out->data;
	cfg.end = out->data + cap;
	e.pt = pt_alloc_encoder(&cfg);
	if (!e.pt)
		return -ENOMEM;

	out->first_time = step_time(o, &th->steps[from]);
	simple(&e, ppt_psb);
	tsc(&e, out->first_time);
	cbr(&e);
	simple(&e, ppt_psbend);
	mode_exec(&e);
	ip_packet(&e, ppt_tip_pge, th->steps[from].ip);
	for (i = from; i < to && e.rc == 0; i++) {
		in = ps_icache_get(ic, th->steps[i].ip);
		if (!in) {
			snprintf(err, errlen, "no instruction at %#" PRIx64, th->steps[i].ip);
			e.rc = -EPROTO;
			break;
		}
		next = i + 1 < th->n ? th->steps[i + 1].ip : 0;
		next_time = i + 1 < th->n ? step_time(o, &th->steps[i + 1]) : 0;
		if (!next && in->kind != PS_SYSCALL && ps_kind_needs_packet(in->kind))
			break;  /* how it ended is unknown */
		if (i >= o->cut_at && ps_kind_needs_packet(in->kind)) {
			size_t at;

			flush_tnt(&e);
			at = offset(&e);
			branch(&e, in, next, next_time);
			flush_tnt(&e);
			/* one byte into the packets of the cut step (a TNT is one) */
			cut = offset(&e) > at + 1 ? at + 1 : at;
			break;
		}
		if (i >= o->tsc_damage_at && !e.tsc_damaged)
			e.damage_tsc = true;
		if (i > from)
			mtc(&e, step_time(o, &th->steps[i]));
		while (sw < o->clock->n && o->clock->sw[sw].seq < th->steps[i].seq)
			sw++;
		if (i > from && sw < o->clock->n && o->clock->sw[sw].seq == th->steps[i].seq &&
		    o->clock->sw[sw].preempt) {
			/* interrupted before step i: out of the traced (user) code */
			ip_packet(&e, ppt_fup, th->steps[i].ip);
			ip_packet(&e, ppt_tip_pgd, 0);
			tsc(&e, step_time(o, &th->steps[i]));
			mode_exec(&e);
			ip_packet(&e, ppt_tip_pge, th->steps[i].ip);
			count = 0;
		} else if (i > from && ++count >= o->tsc_every) {
			tsc(&e, step_time(o, &th->steps[i]));
			count = 0;
		}
		if (ps_kind_needs_packet(in->kind)) {
			if (i >= o->ovf_at && out->ovf_step == SIZE_MAX) {
				simple(&e, ppt_ovf);
				ip_packet(&e, ppt_fup, in->ip);
				e.depth = 0;  /* perf's decoder forgets its returns */
				out->ovf_step = i;
				out->lost_from = out->vis_end;
			} else if (o->psb_every && offset(&e) - e.since_psb >= o->psb_every) {
				psb(&e, step_time(o, &th->steps[i]), in->ip);
			}
		}
		branch(&e, in, next, next_time);
		if (ps_kind_needs_packet(in->kind))
			out->vis_end = i + 1;
	}
	flush_tnt(&e);
	/* a fault on the last step: the exception leaves the traced (user) code
	 * there, as an interrupt does (FUP at the faulting instruction, TIP.PGD),
	 * and the decoder walks up to it */
	if (e.rc == 0 && cut == SIZE_MAX && i == to && to == th->n && th->fault_sig) {
		ip_packet(&e, ppt_fup, th->steps[to - 1].ip);
		ip_packet(&e, ppt_tip_pgd, 0);
		out->vis_end = to;
	}
	out->len = cut != SIZE_MAX ? cut : offset(&e);
	pt_free_encoder(e.pt);
	free(e.stack);
	return e.rc;
}

void ps_aux_free(struct ps_aux *aux)
{
	free(aux->data);
	memset(aux, 0, sizeof(*aux));
}
