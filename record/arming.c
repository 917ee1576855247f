/* SPDX-License-Identifier: MIT */
#include "arming.h"

#include "samplebytes.h"
#include "slowring.h"

#include <stdio.h>
#include <string.h>

/* perf's default Intel PT AUX ring in snapshot mode: 4 MiB for a privileged
 * user, else 128 KiB (tools/perf/arch/x86/util/intel-pt.c) */
#define PERF_AUX_PRIVILEGED (4.0 * 1024 * 1024)
#define PERF_AUX_USER (128.0 * 1024)
/* Intel PT writes "hundreds of megabytes per second per core" (perf's
 * intel-pt.txt): the low end, so the ring has surely filled */
#define PT_BYTES_PER_S 100e6

/* The ring's size in bytes: --snapshot-size or, sampling, the ring the plan
 * asked for (as perf rounds them), or perf's default. */
static double ring_bytes(const struct rec_opts *o, const struct rec_host *h,
			 const struct rec_plan *p, bool pt)
{
	if (!pt && p->ring_bytes)
		return (double)rec_plan_pages(p->ring_bytes) * 4096;
	if (o->snapshot_size)
		return (double)rec_plan_pages(o->snapshot_size) * 4096;
	if (!pt)
		return REC_SLOW_RING_DEFAULT;
	return h->root || h->cap_perfmon ? PERF_AUX_PRIVILEGED : PERF_AUX_USER;
}

void rec_arming_decide(const struct rec_opts *o, const struct rec_host *h,
		       const struct rec_plan *p, struct rec_arming *a)
{
	bool pt = p->mode == REC_MODE_PT;
	double ring = ring_bytes(o, h, p, pt), rate;

	memset(a, 0, sizeof(*a));
	if (o->arm_after_s >= 0) {
		a->by = REC_ARM_OPTION;
		a->after_ms = o->arm_after_s * 1e3;
		return;
	}
	/* no ring to fill; or a slow-call trigger, whose hits are rare by nature
	 * and whose first slow call is the one asked for (a deferred hit would
	 * give way to a later one) */
	if (o->full_execution || o->slower_than_ns) {
		a->by = REC_ARM_AT_ONCE;
		snprintf(a->why, sizeof(a->why), "%s", o->full_execution ?
			 "no ring buffer: --full-execution keeps everything from the start" :
			 "a call slower than --trigger-slower-than is a hit whenever it comes");
		return;
	}
	a->by = REC_ARM_RING;
	if (pt) {
		rate = PT_BYTES_PER_S;
		snprintf(a->why, sizeof(a->why), "%.0f KiB of Intel PT at about %.0f MB/s",
			 ring / 1024, rate / 1e6);
	} else {
		/* a typical chain: the time the ring takes to fill, not the least */
		size_t b = rec_sample_bytes(o->callgraph, REC_SAMPLE_FRAMES_TYPICAL,
					    p->switch_stack);

		rate = (double)b * o->sampling_freq;
		snprintf(a->why, sizeof(a->why), "%.0f KiB at about %zu bytes a sample (%s), "
			 "%u samples a second", ring / 1024, b, p->unwinder ? p->unwinder : "fp",
			 o->sampling_freq);
	}
	a->fill_ms = ring / rate * 1e3;
	a->after_ms = a->fill_ms < REC_ARM_MAX_MS ? a->fill_ms : REC_ARM_MAX_MS;
}

char *rec_arming_describe(const struct rec_arming *a, char *buf, size_t size)
{
	switch (a->by) {
	case REC_ARM_AT_ONCE:
		snprintf(buf, size, "trigger armed at once (%s)", a->why);
		break;
	case REC_ARM_OPTION:
		snprintf(buf, size, "trigger armed after %.0f ms (--arm-after): hits before "
			 "are ignored", a->after_ms);
		break;
	case REC_ARM_RING:
		snprintf(buf, size, "trigger armed after %.0f ms%s: the ring fills in about "
			 "%.0f ms (%s); a hit before waits for it (--arm-after 0 arms at once)",
			 a->after_ms, a->fill_ms > a->after_ms ? " (the longest it waits)" : "",
			 a->fill_ms, a->why);
		break;
	}
	return buf;
}
