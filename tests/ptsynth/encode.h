/* SPDX-License-Identifier: MIT */
/*
 * encode: Intel PT packets (libipt's encoder) for one thread's recorded
 * instructions, decodable by perf's software decoder (tools/perf/util/
 * intel-pt-decoder): PSB, TSC, PSBEND, MODE.Exec, TIP.PGE at the start; a
 * TNT bit per conditional branch; TIP for indirect branches and for returns
 * that return compression cannot express; TIP.PGD (IP suppressed) at a
 * syscall and TSC, MODE.Exec, TIP.PGE where the thread resumes; a TSC every
 * N instructions; where a thread is preempted (switches.h), the packets of
 * an interrupt in a user-only trace: FUP and TIP.PGD (IP suppressed) before
 * the step, TSC, MODE.Exec and TIP.PGE where it resumes (perf: "tr end
 * async", "tr strt"). The return stack mirrors perf's decoder: push at every call
 * but a zero-length one, pop at every return, clear at every PSB; packets
 * that change it (PSB, OVF) are placed where the decoder reads them, just
 * before an instruction that needs a packet.
 *
 * perf's decoder walks the instructions between two packets only once it
 * has read the second: the instructions after the last packet of the data,
 * or between the last packet and an OVF, are never decoded (vis_end,
 * lost_from).
 */
#ifndef PTSYNTH_ENCODE_H
#define PTSYNTH_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "switches.h"
#include "trace.h"

/* The TSC:CTC ratio of --mtc (AUXTRACE_INFO's tsc_ctc_ratio_n/d): not a
 * whole number, so perf's decoders take their multdiv() path. */
#define PS_CTC_N 5
#define PS_CTC_D 2

struct ps_enc_opts {
	bool retcomp;          /* compress returns to their call site into TNT bits */
	unsigned tsc_every;    /* a TSC packet every this many instructions (>= 1) */
	size_t psb_every;      /* a PSB+ after this many bytes (0: only at the start) */
	unsigned cbr;          /* a CBR packet of this ratio in each PSB+, 0: none */
	bool cyc;              /* a CYC packet before each TNT and IP packet */
	int mtc;               /* MTC at every 2^MTC CTC ticks and TMA after each TSC
				* (the CTC at PS_CTC_D/PS_CTC_N of the TSC), -1: none */
	size_t ovf_at;         /* step index where an OVF packet goes, SIZE_MAX: none */
	size_t cut_at;         /* step index where the data is cut, SIZE_MAX: none */
	size_t tsc_damage_at;  /* step index from which the first TSC packet has
				* bit 40 flipped (+/- 18 minutes), SIZE_MAX: none */
	const struct ps_clock *clock; /* TSC (= perf time, ns) of each step, and
				       * where the thread is preempted */
};

/* The encoded data of one thread. */
struct ps_aux {
	uint8_t *data;         /* owned */
	size_t len;            /* bytes */
	size_t ovf_step;       /* the step before which the OVF went, SIZE_MAX: none */
	size_t lost_from;      /* steps [lost_from, ovf_step) are never decoded */
	size_t vis_end;        /* steps from vis_end on are never decoded */
	uint64_t first_time;   /* TSC of the first packet */
};

/*
 * Encodes steps [FROM, TO) of TH (TO <= TH->n; step TO, when recorded, tells
 * how the last one ended). A last step whose outcome is unknown is left out.
 * With O->cut_at in [FROM, TO), the data ends at that step, in the middle of
 * its first packet (truncated data). With O->tsc_damage_at in [FROM, TO), the
 * first TSC packet from that step on (a PSB+'s, or a periodic one) carries
 * a wrong time: a damaged timing packet.
 * Returns 0, -ENOMEM, or -EPROTO when an instruction is not in IC (ERR says
 * which).
 */
int ps_encode(const struct ps_thread *th, size_t from, size_t to, const struct ps_icache *ic,
	      const struct ps_enc_opts *o, struct ps_aux *out, char *err, size_t errlen);

void ps_aux_free(struct ps_aux *aux);

#endif
