/* SPDX-License-Identifier: MIT */
/* slowring: the ring that holds a slow call whole (see slowring.h). */
#include "slowring.h"

#include <stdio.h>

#include "numparse.h"

/* perf's sample with --call-graph: header, ip, tid, time, id, cpu, period */
#define SAMPLE_FIXED 64
/* the user registers perf copies for dwarf (x86-64: abi and 18 registers) */
#define SAMPLE_REGS (8 + 18 * 8)
/* perf's --call-graph dwarf stack copy (its default size) and its two sizes */
#define SAMPLE_STACK (8192 + 16)
/* a call chain of 32 frames and its count (measured: about 115 bytes a
 * sample in all with fp: the README's table of how far back a snapshot
 * reaches) */
#define SAMPLE_CHAIN (8 + 32 * 8)
/* the LBR stack: 32 entries of from, to, flags and its count */
#define SAMPLE_LBR (8 + 32 * 24)

size_t rec_slow_sample_bytes(enum rec_callgraph cg)
{
	switch (cg) {
	case REC_CG_DWARF:
		return SAMPLE_FIXED + SAMPLE_REGS + SAMPLE_STACK + 64;  /* + the kernel's chain */
	case REC_CG_LBR:
		return SAMPLE_FIXED + SAMPLE_CHAIN + SAMPLE_LBR;
	default:
		return SAMPLE_FIXED + SAMPLE_CHAIN;
	}
}

uint64_t rec_slow_ring_bytes(uint64_t slower_than_ns, unsigned freq, enum rec_callgraph cg)
{
	uint64_t span = slower_than_ns + REC_SLOW_RING_AFTER_NS;
	/* samples in SPAN, rounded up */
	uint64_t samples = (span * freq + 999999999ull) / 1000000000ull;
	uint64_t bytes = samples * rec_slow_sample_bytes(cg);

	return bytes + bytes / 4;   /* the switch records of a call that blocks */
}

/* BYTES as perf's -m takes it: pages, a power of two. */
static uint64_t ring_of(uint64_t bytes)
{
	uint64_t r = 4096;

	while (r < bytes)
		r <<= 1;
	return r;
}

uint64_t rec_slow_ring_pick(const struct rec_opts *o, bool root, const char *unwinder, char *why,
			   size_t size)
{
	uint64_t need, have, pick;
	char dur[32];

	why[0] = '\0';
	if (!o->slower_than_ns || !o->sampling_freq)
		return o->snapshot_size;
	need = rec_slow_ring_bytes(o->slower_than_ns, o->sampling_freq, o->callgraph);
	if (o->snapshot_size)
		pick = o->snapshot_size;
	else if (need <= REC_SLOW_RING_DEFAULT || !root)
		pick = 0;
	else
		pick = ring_of(need) < REC_SLOW_RING_MAX ? ring_of(need) : REC_SLOW_RING_MAX;
	have = pick ? ring_of(pick) : REC_SLOW_RING_DEFAULT;
	if (have < need)
		snprintf(why, size, "the ring (%llu KiB%s) holds about %.0f ms of samples at %u Hz "
			 "with --callgraph %s, less than a call of --trigger-slower-than %s: "
			 "its start may be gone at the snapshot; --snapshot-size %lluK would hold "
			 "it%s", (unsigned long long)(have >> 10),
			 o->snapshot_size ? ", --snapshot-size" : !root ? ", perf's default: "
			 "not root, kernel.perf_event_mlock_kb limits it" : ", the most the "
			 "recorder asks for", (double)have * 0.8 / (double)rec_slow_sample_bytes(o->callgraph) /
			 o->sampling_freq * 1e3, o->sampling_freq,
			 unwinder,
			 num_duration_text(o->slower_than_ns, dur, sizeof(dur)),
			 (unsigned long long)(ring_of(need) >> 10),
			 !root && !o->snapshot_size ? " (as root, or with kernel.perf_event_mlock_kb "
			 "raised)" : "");
	return pick;
}
