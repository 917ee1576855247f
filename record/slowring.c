/* SPDX-License-Identifier: MIT */
/* slowring: the ring that holds a slow call whole (see slowring.h). */
#include "slowring.h"

#include <stdio.h>

#include "numparse.h"
#include "samplebytes.h"

/* A sample of CG as a ring that must hold a call counts it: a deep chain,
 * -d's fields, whatever the call's stack. */
static size_t deep_sample(enum rec_callgraph cg)
{
	return rec_sample_bytes(cg, REC_SAMPLE_FRAMES_DEEP, true);
}

uint64_t rec_slow_ring_bytes(uint64_t span_ns, unsigned freq, enum rec_callgraph cg)
{
	/* samples in SPAN_NS, rounded up */
	uint64_t samples = (span_ns * freq + 999999999ull) / 1000000000ull;
	uint64_t bytes = samples * deep_sample(cg);

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
			 "recorder asks for", (double)have * 0.8 / (double)deep_sample(o->callgraph) /
			 o->sampling_freq * 1e3, o->sampling_freq,
			 unwinder, what,
			 o->slower_than_ns ? "its start may be gone at the snapshot" :
			 "a hit's moments may be overwritten before perf writes them",
			 (unsigned long long)(ring_of(need) >> 10),
			 !root && !o->snapshot_size ? " (as root, or with kernel.perf_event_mlock_kb "
			 "raised)" : "");
	return pick;
}
