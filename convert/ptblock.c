/* SPDX-License-Identifier: MIT */
/*
 * ptblock: one chunk of a queue's AUX data decoded by libipt's block decoder
 * into perf's samples (ptdecode_int.h), as perf 6.1's decoder makes them
 * (tools/perf/util/intel-pt-decoder/intel-pt-decoder.c, intel-pt.c):
 *
 * - the block decoder ends a block at every call and jump (end_on_call,
 *   end_on_jump) and at every branch that needs trace; the branch that ends
 *   a block goes to where the next block (or a tracing event) starts; a
 *   conditional jump to the next instruction is not taken;
 * - the time: a second reader of the packets, in step with the block
 *   decoder, takes the packet each branch needs as perf's decoder does
 *   (cursor_bit()); a branch (and a tracing event) has perf's time when it
 *   took its last packet: that of the timing packets before it (TSC, TMA,
 *   MTC, CBR, CYC: pttime.c). libipt's own time differs where a TNT's
 *   last bit is taken and a tracing event follows: libipt reads on to the
 *   event and its time, perf only when a branch needs the event's packet;
 * - TIP.PGE is "tr strt", TIP.PGD "tr end" (after a syscall: "tr end
 *   syscall"), FUP and TIP.PGD "tr end async";
 * - the end: perf walks no further than the branch that took the last
 *   packet (the queue's last chunk); a chunk that ends at the next chunk's
 *   PSB+ walks up to the instruction whose packet follows it, which the
 *   next chunk, started at that PSB, takes;
 * - the code walked: that of the process the queue runs (Q->tasks) at the
 *   chunk's first PSB and from each TIP.PGE on, at the time of the samples
 *   so far (a task changes while tracing is off: in the kernel); each
 *   sample says whose code was walked to it, which ptdecode.c holds to
 *   the task perf walks in there.
 *
 * It runs on worker threads: it reads only its chunk, the queue's data and
 * the process's maps, and writes only the chunk.
 */
#include "ptdecode_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* What perf's decoder sees of a branch instruction. */
struct insn {
	enum pt_insn_class cls;    /* ptic_other: no branch; ptic_error: unknown */
	bool direct;               /* a call or jump whose target is in it */
	bool syscall;              /* syscall, sysenter (a far call) */
	unsigned len;              /* bytes (direct branches and returns) */
};

/* A packet reader in step with the block decoder (cursor_bit()). */
struct cursor {
	struct pt_packet_decoder *pd;
	struct pt_packet p;            /* the next packet a branch needs, when HAVE */
	bool have, in_psb;
	unsigned bits;                 /* TNT bits left in the last TNT taken */
	struct pttime t;               /* the time of the packets read (perf's
	                                * decoder->timestamp) */
	struct pt_packet_decoder *ahead;  /* pttime's lookahead */
	uint64_t now;                  /* the TSC perf's decoder has */
};

/* Decoding one chunk. */
struct blk {
	struct ptd_chunk *c;
	const struct ptd_queue *q;
	struct pt_block_decoder *dec;
	struct cursor cur;
	const struct ptd_map *code_map;  /* the map of the last block's end */
	struct pt_image *const *images;  /* each process's */
	uint16_t proc;                 /* whose code is walked (PTD_NO_WALK: none) */
	int32_t pid;                   /* the process the queue runs then */
	const struct ptd_proc *p;      /* its maps (NULL: none) */
	uint64_t ts;                   /* the latest time of a sample so far */
	bool have_prev;                /* PREV's branch is not emitted yet */
	bool final;                    /* the last packet was taken */
	struct pt_block prev;
	struct insn prev_insn;
	uint64_t prev_tsc;
	bool failed;
};

/*
 * perf's time (see the top of this file): a second reader of Q's packets,
 * in step with the block decoder, takes the packet each branch needs as
 * perf's decoder does; perf's time is that of the last timing packet
 * before the last packet it took. libipt's own time differs where a TNT's
 * last bit is taken and a tracing event follows: libipt reads on to the
 * event and its time, perf only when a branch needs the event's packet.
 */
static int cursor_peek(struct cursor *c)
{
	while (!c->have) {
		if (pt_pkt_next(c->pd, &c->p, sizeof(c->p)) < 0)
			return -1;
		if (pttime_packet(&c->t, &c->p, c->pd, &c->ahead))
			continue;
		switch (c->p.type) {
		case ppt_psb:
			c->in_psb = true;
			continue;
		case ppt_psbend:
			c->in_psb = false;
			continue;
		case ppt_pad: case ppt_mode:
			continue;
		case ppt_fup:
			if (c->in_psb)
				continue;
			break;
		default:
			break;
		}
		c->have = true;
	}
	return (int)c->p.type;
}

/* Takes the next packet a branch needs: perf applies the timing packets
 * before it. */
static void cursor_take(struct cursor *c)
{
	if (cursor_peek(c) < 0)
		return;
	c->now = c->t.time;
	c->have = false;
}

/* A branch that needs a TNT bit (a conditional jump, a compressed return:
 * RET_OR_TIP takes a TIP when no bit is left and no TNT comes next). */
static void cursor_bit(struct cursor *c, bool ret_or_tip)
{
	int t;

	if (c->bits) {
		c->bits--;
		return;
	}
	t = cursor_peek(c);
	if (t == ppt_tnt_8 || t == ppt_tnt_64) {
		c->bits = c->p.payload.tnt.bit_size - 1u;
		cursor_take(c);
	} else if (ret_or_tip || t >= 0) {
		cursor_take(c);
	}
}

/* Decodes the branch instruction at P (N bytes): the x86-64 forms of
 * perf's intel-pt-insn-decoder.c branches (libipt's block cache may give a
 * block's last instruction without its class). */
static struct insn decode_insn(const uint8_t *p, size_t n)
{
	struct insn in = { ptic_other, false, false, 0 };
	size_t i = 0;
	unsigned modrm;

	while (i < n && i < 14 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0x2e || p[i] == 0x3e ||
				   p[i] == 0x26 || p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65 ||
				   p[i] == 0xf0 || p[i] == 0xf2 || p[i] == 0xf3))
		i++;	/* legacy prefixes: hints, bnd, sizes, segments */
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;	/* REX */
	if (i >= n)
		return in;
	switch (p[i]) {
	case 0xe8: in = (struct insn){ ptic_call, true, false, (unsigned)i + 5 }; break;
	case 0xe9: in = (struct insn){ ptic_jump, true, false, (unsigned)i + 5 }; break;
	case 0xeb: in = (struct insn){ ptic_jump, true, false, (unsigned)i + 2 }; break;
	case 0xc3: in = (struct insn){ ptic_return, false, false, (unsigned)i + 1 }; break;
	case 0xc2: in = (struct insn){ ptic_return, false, false, (unsigned)i + 3 }; break;
	case 0xcb: case 0xca: case 0xcf:
		in = (struct insn){ ptic_far_return, false, false, (unsigned)i + 1 };
		break;
	case 0xcc: case 0xcd: case 0xce:
		in = (struct insn){ ptic_far_call, false, false, (unsigned)i + (p[i] == 0xcd ? 2 : 1) };
		break;
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		in = (struct insn){ ptic_cond_jump, true, false, (unsigned)i + 2 };
		break;
	case 0x0f:
		if (i + 1 >= n)
			break;
		if (p[i + 1] >= 0x80 && p[i + 1] <= 0x8f)
			in = (struct insn){ ptic_cond_jump, true, false, (unsigned)i + 6 };
		else if (p[i + 1] == 0x05 || p[i + 1] == 0x34)
			in = (struct insn){ ptic_far_call, false, true, (unsigned)i + 2 };
		else if (p[i + 1] == 0x07 || p[i + 1] == 0x35)
			in = (struct insn){ ptic_far_return, false, false, (unsigned)i + 2 };
		break;
	case 0xff:
		if (i + 1 >= n)
			break;
		modrm = (p[i + 1] >> 3) & 7;
		if (modrm == 2 || modrm == 4)
			in = (struct insn){ modrm == 2 ? ptic_call : ptic_jump, false, false, 0 };
		else if (modrm == 3 || modrm == 5)
			in = (struct insn){ modrm == 3 ? ptic_far_call : ptic_far_jump, false, false, 0 };
		break;
	default:
		if (p[i] >= 0x70 && p[i] <= 0x7f)
			in = (struct insn){ ptic_cond_jump, true, false, (unsigned)i + 2 };
		break;
	}
	return in;
}

/* The instruction ending block B in process P; *MAP: the map of the last
 * one (ptimage_code()). */
static struct insn last_insn(const struct ptd_proc *p, const struct pt_block *b,
			     const struct ptd_map **map)
{
	size_t n;
	const uint8_t *c = p ? ptimage_code(p, b->end_ip, &n, map) : NULL;
	struct insn in = c ? decode_insn(c, n) : (struct insn){ ptic_error, false, false, 0 };

	if (b->iclass != ptic_error && b->iclass != in.cls)
		in.cls = ptic_error;	/* the image is not what libipt decoded */
	return in;
}

/* perf's flags for a branch of class IN. */
static uint32_t branch_flags(const struct insn *in)
{
	switch (in->cls) {
	case ptic_call: return CONV_F_CALL;
	case ptic_return: return CONV_F_RETURN;
	case ptic_jump: return CONV_F_JMP;
	case ptic_cond_jump: return CONV_F_JCC;
	case ptic_far_call: return in->syscall ? CONV_F_SYSCALL : 0;
	default: return 0;
	}
}


/* Adds a sample to the chunk. */
static void put(struct blk *b, enum ptd_sample_kind kind, uint64_t tsc, uint32_t flags,
		uint64_t ip, uint64_t addr)
{
	struct ptd_chunk *c = b->c;

	if (b->failed)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		struct ptd_sample *s = realloc(c->s, cap * sizeof(*s));

		if (!s) {
			b->failed = true;	/* no why: out of memory */
			return;
		}
		c->s = s;
		c->cap = cap;
	}
	c->s[c->n++] = (struct ptd_sample){ (uint16_t)kind, kind == PTD_HIDDEN || kind == PTD_BEGIN ?
					    PTD_NO_WALK : b->proc, flags, tsc, ip, addr };
	if (tsc > b->ts)
		b->ts = tsc;
}

/* Walks on in the code of the process Q runs at time TS (from then on). */
static void walk_in(struct blk *b, uint64_t ts)
{
	const struct ptd_queue *q = b->q;
	size_t lo = 0, hi = q->ntasks;

	while (lo < hi) {	/* the tasks up to TS: [0, lo) */
		size_t mid = (lo + hi) / 2;

		if (q->tasks[mid].tsc <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	b->proc = lo ? q->tasks[lo - 1].proc : PTD_NO_WALK;
	b->pid = lo ? q->tasks[lo - 1].pid : -1;
	b->p = lo ? q->tasks[lo - 1].p : NULL;
	b->code_map = NULL;
	pt_blk_set_image(b->dec, b->proc == PTD_NO_WALK ? NULL : b->images[b->proc]);
}

/* Chunk C failed for the reason FMT says (C->why: NULL when out of memory). */
static void fail_why(struct ptd_chunk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_why(struct ptd_chunk *c, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	c->why = strdup(why);
}

/* The decoder met ERR: the chunk is left to perf. */
static void fail_at(struct blk *b, int err)
{
	uint64_t off = 0;

	if (b->failed)
		return;
	b->failed = true;
	pt_blk_get_offset(b->dec, &off);
	if (b->proc == PTD_NO_WALK && b->q->cpu >= 0)
		/* walking code while its CPU runs a task that maps none: perf
		 * prints decode errors */
		fail_why(b->c, "the AUX data of CPU %d decoded while it runs a thread of process "
			 "%d, which maps no code", b->q->cpu, b->pid);
	else
		fail_why(b->c, "the in-process decoder met %s at byte %llu of the AUX data of "
			 "thread %d", pt_errstr(pt_errcode(err)), (unsigned long long)off, b->q->tid);
}

/* The branch of the pending block, now that execution went on at NEXT. */
static void prev_branch(struct blk *b, uint64_t next)
{
	uint32_t f = branch_flags(&b->prev_insn);

	if (!b->have_prev)
		return;
	b->have_prev = false;
	if (f == CONV_F_JCC && next == b->prev.end_ip + b->prev_insn.len)
		return;	/* not taken */
	if (f && f != CONV_F_SYSCALL)
		put(b, PTD_BRANCH, b->prev_tsc, f, b->prev.end_ip, next);
}

/* Handles the events pending on the decoder (status ST). Returns the
 * status, < 0 on a failure. (Synchronised at a PSB+ with a FUP, libipt
 * reports no enabling event: a chunk does not begin with "tr strt".) */
static int take_events(struct blk *b, int st)
{
	while (st >= 0 && (st & pts_event_pending)) {
		struct pt_event ev;

		st = pt_blk_event(b->dec, &ev, sizeof(ev));
		if (st < 0)
			break;
		/* an event's time is perf's when it took the event's packets */
		switch (ev.type) {
		case ptev_enabled:
			if (ev.status_update)
				break;
			cursor_take(&b->cur);	/* TIP.PGE */
			prev_branch(b, ev.variant.enabled.ip);
			put(b, PTD_BEGIN, b->cur.now, CONV_F_TRACE_BEGIN, 0, ev.variant.enabled.ip);
			walk_in(b, b->ts);
			break;
		case ptev_disabled:
			cursor_take(&b->cur);	/* TIP.PGD */
			if (b->have_prev) {
				b->have_prev = false;
				put(b, PTD_END, b->cur.now, CONV_F_TRACE_END |
				    branch_flags(&b->prev_insn), b->prev.end_ip, 0);
			}
			break;
		case ptev_async_disabled:
			cursor_take(&b->cur);	/* FUP */
			cursor_take(&b->cur);	/* TIP.PGD */
			prev_branch(b, ev.variant.async_disabled.at);
			put(b, PTD_END, b->cur.now, CONV_F_TRACE_END | CONV_F_ASYNC,
			    ev.variant.async_disabled.at, 0);
			break;
		case ptev_exec_mode:
		case ptev_cbr:	/* perf's cbr lines carry no frequency here */
			break;
		default:
			if (!b->failed)
				fail_why(b->c, "the in-process decoder met an Intel PT event it "
					 "does not reproduce (libipt's %d) in thread %d", (int)ev.type,
					 b->q->tid);
			b->failed = true;
			return -pte_bad_context;
		}
	}
	return st;
}

/* A block of the chunk. Returns false at the chunk's end. */
static bool take_block(struct blk *b, const struct pt_block *blk, int st)
{
	bool took = true;

	if (blk->ninsn && b->final) {
		/* perf read no packet after the one the last branch took:
		 * it walks no further than that branch */
		prev_branch(b, blk->ip);
		return false;
	}
	if (st == -pte_eos) {
		/* the block ends at a branch whose packet is missing (the queue's
		 * end) or in the next chunk */
		if (blk->ninsn)
			prev_branch(b, blk->ip);
		return false;
	}
	if (!blk->ninsn)
		return true;
	prev_branch(b, blk->ip);
	b->prev = *blk;
	b->prev_insn = last_insn(b->p, blk, &b->code_map);
	b->have_prev = true;
	if (b->prev_insn.cls == ptic_error) {
		fail_at(b, -pte_bad_insn);
		return false;
	}
	switch (b->prev_insn.cls) {
	case ptic_cond_jump:
		cursor_bit(&b->cur, false);
		break;
	case ptic_return:
		cursor_bit(&b->cur, true);
		break;
	case ptic_call: case ptic_jump:
		if (!b->prev_insn.direct)
			cursor_take(&b->cur);
		else
			took = false;
		break;
	default:
		took = false;
		break;
	}
	if (took && b->c->last && !b->cur.bits && cursor_peek(&b->cur) < 0)
		b->final = true;
	b->prev_tsc = b->cur.now;
	return true;
}

void ptblock_decode(struct ptd_chunk *c, const struct ptd_queue *q, struct pt_image *const *images)
{
	struct blk b = { .c = c, .q = q, .images = images };
	struct pt_config cfg;
	uint64_t tsc = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)q->data;
	cfg.end = (uint8_t *)q->data + c->end;
	cfg.flags.variant.block.end_on_call = 1;
	cfg.flags.variant.block.end_on_jump = 1;
	b.dec = pt_blk_alloc_decoder(&cfg);
	b.cur.pd = pt_pkt_alloc_decoder(&cfg);
	if (!b.dec || !b.cur.pd) {
		b.failed = true;	/* no why: out of memory */
		goto out;
	}
	walk_in(&b, c->tsc);	/* the time of its first PSB */
	st = c->first ? pt_blk_sync_forward(b.dec) : pt_blk_sync_set(b.dec, c->begin);
	if (st >= 0 && (c->first ? pt_pkt_sync_forward(b.cur.pd) :
			pt_pkt_sync_set(b.cur.pd, c->begin)) < 0)
		st = -pte_internal;
	if (st < 0) {
		if (st != -pte_eos)
			fail_at(&b, st);
		goto out;
	}
	pt_blk_time(b.dec, &tsc, NULL, NULL);
	/* perf's first TSC of a buffer takes its top byte from the buffer's
	 * reference; later ones from the time before them */
	b.cur.now = pttime_8b(tsc, q->reference);
	if (!c->first && q->psb_times) {
		b.cur.t = q->psb_times[c->psb];	/* CYCs time on from before it */
	} else {
		b.cur.t = (struct pttime){ .ctc = q->ctc, .data = q->data, .len = q->data_len,
					   .ref = q->reference };
		if (!c->first)	/* its PSB+ sets the time */
			b.cur.t.time = b.cur.t.tsc = b.cur.now;
	}
	if (c->first)
		put(&b, PTD_HIDDEN, tsc, 0, 0, 0);	/* perf's first state: its PSB */
	st = take_events(&b, st);
	while (st >= 0 && !b.failed) {
		struct pt_block blk;

		memset(&blk, 0, sizeof(blk));
		st = pt_blk_next(b.dec, &blk, sizeof(blk));
		if (st < 0 && st != -pte_eos) {
			fail_at(&b, st);
			break;
		}
		if (!take_block(&b, &blk, st))
			break;
		st = take_events(&b, st);
		if (st < 0 && st != -pte_eos)
			fail_at(&b, st);
	}
out:
	c->failed = b.failed;
	pt_blk_free_decoder(b.dec);
	pt_pkt_free_decoder(b.cur.pd);
	pt_pkt_free_decoder(b.cur.ahead);
}
