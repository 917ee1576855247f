/* SPDX-License-Identifier: MIT */
#include "hitpolicy.h"

#include <string.h>

#define NS_PER_MS 1000000ULL

void rec_hitpolicy_init(struct rec_hitpolicy *p, bool multi_snapshot, uint64_t min_interval_ns,
			enum rec_arm_by arm_by)
{
	memset(p, 0, sizeof(*p));
	p->multi_snapshot = multi_snapshot;
	p->min_interval_ns = min_interval_ns;
	p->arm_by = arm_by;
}

void rec_hitpolicy_arm(struct rec_hitpolicy *p, uint64_t ready_ns, double after_ms)
{
	p->armed_ns = ready_ns + (uint64_t)(after_ms * NS_PER_MS);
}

bool rec_hitpolicy_armed(const struct rec_hitpolicy *p, uint64_t mono_ns)
{
	return p->armed_ns > 0 && mono_ns >= p->armed_ns;
}

int rec_hitpolicy_arm_wait_ms(const struct rec_hitpolicy *p, uint64_t mono_ns)
{
	if (!p->armed_ns)
		return -1;
	if (rec_hitpolicy_armed(p, mono_ns))
		return 0;
	return (int)((p->armed_ns - mono_ns) / NS_PER_MS) + 1;
}

/* A hit before the arming (rec_hitpolicy_hit). */
static enum rec_hit_verdict early(struct rec_hitpolicy *p, uint64_t hit_ns,
				  const struct rec_hit_now *now)
{
	p->early++;
	if (p->arm_by == REC_ARM_OPTION) {
		p->before_armed++;
		return REC_HIT_IGNORED;
	}
	if (now->waiting) {
		p->coalesced++;   /* the hit replaced: in this one's snapshot */
		p->last_hit_ns = hit_ns;
		return REC_HIT_REPLACES;
	}
	if (!now->room) {
		p->coalesced++;
		return REC_HIT_COALESCED;
	}
	p->last_hit_ns = hit_ns;
	return REC_HIT_DEFERRED;
}

enum rec_hit_verdict rec_hitpolicy_hit(struct rec_hitpolicy *p, uint64_t hit_ns,
				       const struct rec_hit_now *now)
{
	p->seen++;
	if (!now->recorded) {
		p->unrecorded++;
		return REC_HIT_UNRECORDED;
	}
	if (!now->ended && !rec_hitpolicy_armed(p, now->mono_ns))
		return early(p, hit_ns, now);
	/* a hit read after a later one (another CPU's ring) is within the interval too */
	if (now->ended || now->waiting || (!p->multi_snapshot && now->fatal) ||
	    (now->logged && (!p->multi_snapshot || hit_ns < p->last_hit_ns + p->min_interval_ns)) ||
	    !now->room) {
		p->coalesced++;
		return REC_HIT_COALESCED;
	}
	p->last_hit_ns = hit_ns;
	return REC_HIT_SNAPSHOT;
}

bool rec_hitpolicy_recorded(pid_t tid, pid_t only_tid, bool multi_thread, const pid_t *pids,
			    int npids)
{
	if (only_tid)
		return tid == only_tid;
	if (multi_thread)
		return true;
	for (int i = 0; i < npids; i++)
		if (tid == pids[i])
			return true;
	return false;
}
