/* SPDX-License-Identifier: MIT */
/*
 * pttime: perf's time of a stream of Intel PT packets (ptdecode_int.h), as
 * perf 6.1's decoder computes decoder->timestamp from the timing packets
 * (tools/perf/util/intel-pt-decoder/intel-pt-decoder.c): TSC
 * (intel_pt_calc_tsc_timestamp()), TMA and MTC (intel_pt_calc_tma(),
 * intel_pt_calc_mtc_timestamp()), CBR (intel_pt_calc_cbr()) and CYC
 * (intel_pt_calc_cyc_timestamp(), with the cycle ratio perf reads ahead
 * for, intel_pt_calc_cyc_to_tsc()). The time depends on the packets alone,
 * in their order: ptblock.c's cursor applies them in step with the
 * branches, ptdata.c's scan over a whole queue keeps the state at each PSB
 * where CYCs need what came before.
 */
#include "ptdecode_int.h"

/* perf's multdiv(): T * N / D without overflow, 0 when D is. */
static uint64_t multdiv(uint64_t t, uint32_t n, uint32_t d)
{
	return d ? t / d * n + t % d * n / d : 0;
}

static uint64_t ctc_to_tsc(const struct ptd_ctc *r, uint64_t ctc)
{
	return r->mult ? ctc * r->mult : multdiv(ctc, r->n, r->d);
}

#define TSC_SLIP 0x10000          /* perf's decoder->tsc_slip */
#define TSC_TOP (0xffull << 56)   /* above the 7 bytes of a TSC packet */

uint64_t pttime_8b(uint64_t t, uint64_t ref)
{
	t |= ref & TSC_TOP;
	if (t < ref && ref - t > (1ull << 55))
		t += 1ull << 56;
	else if (t >= ref && t - ref > (1ull << 55))
		t -= 1ull << 56;
	return t;
}

/* The time of a TSC or MTC packet right after a CYC: what later CYCs count
 * from. */
static void cyc_ref(struct pttime *t)
{
	t->cyc_ref = t->time;
	t->cycles = 0;
	t->have_calc = false;
}

/* A TSC packet: the buffer's first takes its top byte from the buffer's
 * reference (perf's ref_timestamp); a later one (perf's
 * intel_pt_calc_tsc_timestamp()) its top byte from the time; a little
 * before the time read so far (it slipped past an MTC) it changes nothing;
 * further before, it wrapped, unless that passes the buffer's reference
 * time: then it is bad, and the time stays (a damaged TSC holds perf's
 * time there for good). */
static void on_tsc(struct pttime *t, uint64_t payload)
{
	uint64_t v = payload | (t->time & TSC_TOP);

	if (!t->time) {
		t->time = t->tsc = pttime_8b(payload, t->ref);
	} else {
		t->tsc = v;
		if (v < t->time && t->time - v < TSC_SLIP)
			v = t->time;
		if (v < t->time && (!t->ref || v + (1ull << 56) < t->ref))
			t->tsc = v += 1ull << 56;
		else if (v < t->time)
			v = t->time;
		t->time = v;
	}
	t->have_tma = false;
	if (t->prev == ppt_cyc)
		cyc_ref(t);	/* perf computes no ratio from a TSC */
}

/* A TMA packet: the CTC (its low 16 bits) and fast counter at the last TSC. */
static void on_tma(struct pttime *t, uint32_t ctc, uint32_t fc)
{
	uint32_t rem = ctc & ((1u << t->ctc->shift) - 1);

	if (!t->ctc->d)
		return;
	t->last_mtc = (ctc >> t->ctc->shift) & 0xff;
	t->ctc_time = t->tsc - fc - ctc_to_tsc(t->ctc, rem);
	t->ctc_delta = 0;
	t->have_tma = true;
	t->fixup_mtc = true;
}

/* perf's intel_pt_fixup_last_mtc(): with an MTC period above 8, a TMA's 16
 * CTC bits give LAST_MTC only its low 16 - SHIFT bits; the first MTC after
 * it gives the rest, one step back where that would pass MTC. */
static void fixup_last_mtc(unsigned shift, uint32_t *last_mtc, uint32_t mtc)
{
	uint32_t first_missing = 1u << (16 - shift);

	*last_mtc |= mtc & ~(first_missing - 1);
	if (*last_mtc >= mtc)
		*last_mtc = (*last_mtc - first_missing) & 0xff;
}

/* The CTC state an MTC moves on: the time's, or a lookahead's copy. */
struct mtc_state {
	uint32_t last_mtc;
	bool fixup_mtc;
	uint64_t ctc_time, ctc_delta;
};

/* The time of the CTC tick of an MTC of bits MTC, moving S on to it. */
static uint64_t mtc_time(const struct ptd_ctc *ctc, struct mtc_state *s, uint32_t mtc)
{
	if (ctc->shift > 8 && s->fixup_mtc) {
		s->fixup_mtc = false;
		fixup_last_mtc(ctc->shift, &s->last_mtc, mtc);
	}
	s->ctc_delta += (uint64_t)(mtc > s->last_mtc ? mtc - s->last_mtc :
				   mtc + 256 - s->last_mtc) << ctc->shift;
	s->last_mtc = mtc;
	return s->ctc_time + ctc_to_tsc(ctc, s->ctc_delta);
}

/* perf's intel_pt_calc_cyc_to_tsc() at an MTC right after a CYC (PD just
 * past it): the TSC ticks of a cycle from the cycles up to the next such
 * MTC, read ahead in the buffer (perf's intel_pt_calc_cyc_cb()); none
 * where a packet on the way stops timing (TIP.PGD, OVF...), a TSC or TMA
 * comes first, the CBR changes or the ratio is over 1.25 times the CBR's. */
static void cyc_ratio(struct pttime *t, const struct pt_packet_decoder *pd,
		      struct pt_packet_decoder **ahead)
{
	struct mtc_state s = { t->last_mtc, t->fixup_mtc, t->ctc_time, t->ctc_delta };
	enum pt_packet_type last = t->prev;	/* perf starts from the MTC's own last */
	uint64_t off, cycles = 0, now = t->time, v = 0;
	unsigned cbr = 0;
	double cbr_cyc = 0, ratio;
	struct pt_packet p;

	if (!*ahead) {
		struct pt_config cfg;

		pt_config_init(&cfg);
		cfg.begin = (uint8_t *)t->data;
		cfg.end = (uint8_t *)t->data + t->len;
		*ahead = pt_pkt_alloc_decoder(&cfg);
	}
	if (!*ahead || pt_pkt_get_offset(pd, &off) < 0 || pt_pkt_sync_set(*ahead, off) < 0)
		return;
	for (;;) {
		if (pt_pkt_next(*ahead, &p, sizeof(p)) < 0)
			return;	/* the buffer's end */
		switch (p.type) {
		case ppt_pad:
			continue;
		case ppt_tnt_8: case ppt_tnt_64: case ppt_tip_pge: case ppt_tip: case ppt_fup:
		case ppt_psb: case ppt_pip: case ppt_mode: case ppt_psbend: case ppt_vmcs:
		case ppt_mnt: case ppt_ptw:
			break;
		case ppt_mtc:
			if (!t->have_tma)
				break;
			v = mtc_time(t->ctc, &s, p.payload.mtc.ctc);
			if (v < now)
				return;
			if (last != ppt_cyc) {
				now = v;
				break;
			}
			goto found;
		case ppt_cyc:
			cycles += p.payload.cyc.value;
			break;
		case ppt_cbr:
			if (cbr && cbr != p.payload.cbr.ratio)
				return;
			cbr = p.payload.cbr.ratio;
			cbr_cyc = t->ctc->max_nonturbo / cbr;
			break;
		default:	/* TSC, TMA (perf takes no ratio from them), TIP.PGD, OVF... */
			return;
		}
		last = p.type;
	}
found:
	if (!cbr && t->cbr) {
		cbr = t->cbr;
		cbr_cyc = t->cbr_cyc;
	}
	if (!cycles)
		return;
	ratio = (double)(v - t->time) / cycles;
	if (cbr && ratio > cbr_cyc && ratio / cbr_cyc > 1.25)
		return;
	t->calc = ratio;
	t->have_calc = true;
}

/* An MTC packet: the time of its CTC tick, where it is not before the
 * time read so far. */
static void on_mtc(struct pttime *t, uint32_t mtc, const struct pt_packet_decoder *pd,
		   struct pt_packet_decoder **ahead)
{
	struct mtc_state s = { t->last_mtc, t->fixup_mtc, t->ctc_time, t->ctc_delta };
	uint64_t v;

	if (!t->have_tma)
		return;
	v = mtc_time(t->ctc, &s, mtc);
	t->last_mtc = s.last_mtc;
	t->fixup_mtc = s.fixup_mtc;
	t->ctc_delta = s.ctc_delta;
	if (v >= t->time)
		t->time = v;
	if (t->prev == ppt_cyc) {
		cyc_ref(t);
		cyc_ratio(t, pd, ahead);
	}
}

/* A CBR packet of another ratio: the TSC ticks of a cycle, from the maximum
 * non-turbo ratio; CYCs count from its time (perf's "Fix CYC timestamps
 * after standalone CBR", in 6.1's stable releases). */
static void on_cbr(struct pttime *t, unsigned cbr)
{
	if (cbr == t->cbr)
		return;
	t->cbr = cbr;
	t->cbr_cyc = t->ctc->max_nonturbo / cbr;
	t->cyc_ref = t->time;
	t->cycles = 0;
}

/* A CYC packet: the time of the TSC or MTC before it (right before a CYC)
 * and the cycles since at the ratio known, where not before the time so
 * far. */
static void on_cyc(struct pttime *t, uint64_t cycles)
{
	uint64_t v = t->cyc_ref;

	t->cycles += cycles;
	if (!t->cyc_ref)
		return;
	if (t->have_calc)
		v += t->cycles * t->calc;
	else if (t->cbr)
		v += t->cycles * t->cbr_cyc;
	else
		return;
	if (v >= t->time)
		t->time = v;
}

bool pttime_packet(struct pttime *t, const struct pt_packet *p, const struct pt_packet_decoder *pd,
		   struct pt_packet_decoder **ahead)
{
	if (p->type != ppt_pad) {	/* perf's last_packet_type */
		t->prev = t->last;
		t->last = p->type;
	}
	switch (p->type) {
	case ppt_tsc:
		on_tsc(t, p->payload.tsc.tsc);
		return true;
	case ppt_tma:
		on_tma(t, p->payload.tma.ctc, p->payload.tma.fc);
		return true;
	case ppt_mtc:
		on_mtc(t, p->payload.mtc.ctc, pd, ahead);
		return true;
	case ppt_cbr:
		on_cbr(t, p->payload.cbr.ratio);
		return true;
	case ppt_cyc:
		on_cyc(t, p->payload.cyc.value);
		return true;
	default:
		return false;
	}
}
