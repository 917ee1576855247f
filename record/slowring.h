/* SPDX-License-Identifier: MIT */
/*
 * slowring: how big perf's ring must be, in sampling mode, to hold a slow
 * call whole (--trigger-slower-than: the snapshot is taken at the call's
 * return, and the README promises the ring holds it from its entry). perf's
 * default ring (perf_event_mlock_kb, 512 KiB) holds about 12 ms of samples
 * with --callgraph dwarf at 5000 Hz (each sample carries a copy of 8 KiB of
 * the user stack) and about 250 ms with frame pointers. The estimate: the
 * threshold plus REC_SLOW_RING_AFTER_NS (the call is seen within the
 * trigger's read period after its return, and the snapshot holds that
 * too), at the sampling rate, times the bytes one sample of the unwinder
 * takes with a deep call chain (samplebytes.h), plus a quarter for the
 * switch records of a call that blocks.
 * A ring that keeps running after a hit (--multi-snapshot: perf goes on
 * recording while it writes the snapshot) must also hold the time perf
 * takes to answer, REC_SNAPSHOT_ANSWER_NS, for any trigger: with dwarf the
 * default ring holds 12 ms and perf answered 12-160 ms after the hit.
 * Why: docs/design.md "Slow calls: the ring".
 */
#ifndef SNAPTRACE_REC_SLOWRING_H
#define SNAPTRACE_REC_SLOWRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_opts.h"

#define REC_SLOW_RING_AFTER_NS 20000000ull   /* after the return: 20 ms */
#define REC_SNAPSHOT_ANSWER_NS 200000000ull /* from a hit to perf's writing of its
					      * snapshot: measured 12-160 ms (issue 24) */
#define REC_SLOW_RING_DEFAULT (512u << 10)   /* perf's ring without -m (root or not) */
#define REC_SLOW_RING_MAX (256u << 20)       /* what the recorder raises it to at most,
					      * per ring (one a thread or CPU) */

/*
 * The ring, in bytes, that holds SPAN_NS of samples at FREQ Hz with unwinder
 * CG (a sampling recording; 0 for none).
 */
uint64_t rec_slow_ring_bytes(uint64_t span_ns, unsigned freq, enum rec_callgraph cg);

/*
 * The ring to ask perf for (-m, bytes) for O (sampling mode): O's
 * --snapshot-size when given, else the ring that holds a slow call (O's
 * slower_than_ns + REC_SLOW_RING_AFTER_NS) and, when RUNNING (the ring is not
 * frozen at a hit: --multi-snapshot, or perf without --control), the
 * REC_SNAPSHOT_ANSWER_NS perf takes to write a snapshot, when that is
 * more than perf's default, at most REC_SLOW_RING_MAX, and nothing (0,
 * perf's default) when it is not, or when ROOT is false and it is more than
 * the default (perf refuses a non-root ring beyond kernel.perf_event_mlock_kb).
 * UNWINDER names O's --callgraph in the warning: when the ring used holds
 * less than that, a one-line warning
 * with the figures and the --snapshot-size that would hold it goes to WHY
 * (SIZE bytes), else WHY is "".
 */
uint64_t rec_slow_ring_pick(const struct rec_opts *o, bool root, const char *unwinder,
			   bool running, char *why, size_t size);

#endif
