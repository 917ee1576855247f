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

uint64_t rec_slow_ring_bytes(uint64_t span_ns, unsigned freq, enum rec_callgraph cg)
{
	/* samples in SPAN_NS, rounded up */
	uint64_t samples = (span_ns * freq + 999999999ull) / 1000000000ull;
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

/* What the ring must hold, for the warning: "a call of --trigger-slower-than
 * 5 ms", "the 200 ms perf may take to write a snapshot while it records on"
 * or both. */
static void span_text(const struct rec_opts *o, bool running, char *out, size_t size)
{
	char slow[32], answer[32];

	num_duration_text(o->slower_than_ns, slow, sizeof(slow));
	num_duration_text(REC_SNAPSHOT_ANSWER_NS, answer, sizeof(answer));
	snprintf(out, size, "%s%s%s%s%s%s",
		 o->slower_than_ns ? "a call of --trigger-slower-than " : "",
		 o->slower_than_ns ? slow : "",
		 o->slower_than_ns && running ? " and " : "",
		 running ? "the " : "", running ? answer : "",
		 running ? " perf may take to write a snapshot while it records on" : "");
}

uint64_t rec_slow_ring_pick(const struct rec_opts *o, bool root, const char *unwinder,
			   bool running, char *why, size_t size)
{
	uint64_t need, have, pick, span = 0;
	char what[160];

	why[0] = '\0';
	if (o->slower_than_ns)
		span += o->slower_than_ns + REC_SLOW_RING_AFTER_NS;
	if (running)
		span += REC_SNAPSHOT_ANSWER_NS;
	if (!span || !o->sampling_freq)
		return o->snapshot_size;
	need = rec_slow_ring_bytes(span, o->sampling_freq, o->callgraph);
	if (o->snapshot_size)
		pick = o->snapshot_size;
	else if (need <= REC_SLOW_RING_DEFAULT || !root)
		pick = 0;
	else
		pick = ring_of(need) < REC_SLOW_RING_MAX ? ring_of(need) : REC_SLOW_RING_MAX;
	have = pick ? ring_of(pick) : REC_SLOW_RING_DEFAULT;
	span_text(o, running, what, sizeof(what));
	if (have < need)
		snprintf(why, size, "the ring (%llu KiB%s) holds about %.0f ms of samples at %u Hz "
			 "with --callgraph %s, less than %s: %s; --snapshot-size %lluK would hold "
			 "it%s", (unsigned long long)(have >> 10),
			 o->snapshot_size ? ", --snapshot-size" : !root ? ", perf's default: "
			 "not root, kernel.perf_event_mlock_kb limits it" : ", the most the "
			 "recorder asks for", (double)have * 0.8 / (double)rec_slow_sample_bytes(o->callgraph) /
			 o->sampling_freq * 1e3, o->sampling_freq,
			 unwinder, what,
			 o->slower_than_ns ? "its start may be gone at the snapshot" :
			 "a hit's moments may be overwritten before perf writes them",
			 (unsigned long long)(ring_of(need) >> 10),
			 !root && !o->snapshot_size ? " (as root, or with kernel.perf_event_mlock_kb "
			 "raised)" : "");
	return pick;
}
