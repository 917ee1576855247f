/* SPDX-License-Identifier: MIT */
/* measure: --measure FUNC (see measure.h). */
#include "measure.h"

#include "perfrun.h"
#include "procfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000u

/* Whether A is the shorter call (the heap's order; the earlier on a tie). */
static bool shorter(const struct rec_call *a, const struct rec_call *b)
{
	return a->duration_ns != b->duration_ns ? a->duration_ns < b->duration_ns :
	       a->entry_ns > b->entry_ns;
}

/* Keeps C among the slowest (a min-heap of REC_MEASURE_SLOWEST). */
static void keep_slow(struct rec_call_stats *st, const struct rec_call *c)
{
	struct rec_call *h = st->slowest;
	int i = 0;

	if (st->nslowest < REC_MEASURE_SLOWEST) {
		for (i = st->nslowest++; i && shorter(c, &h[(i - 1) / 2]); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = *c;
		return;
	}
	if (!shorter(&h[0], c))
		return;
	for (;;) {
		int k = 2 * i + 1;

		if (k >= st->nslowest)
			break;
		if (k + 1 < st->nslowest && shorter(&h[k + 1], &h[k]))
			k++;
		if (!shorter(&h[k], c))
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = *c;
}

int rec_call_stats_add(struct rec_call_stats *st, const struct rec_call *c)
{
	uint64_t ret = c->entry_ns + c->duration_ns;
	int err = 0;

	st->calls++;
	st->total_ns += c->duration_ns;
	if (hist_add(&st->hist, c->duration_ns)) {
		st->nomem = true;
		err = -ENOMEM;
	}
	keep_slow(st, c);
	if (!st->since_ns)
		st->since_ns = c->entry_ns;
	if (ret - st->since_ns < NS_PER_S)
		st->first_second++;
	if (!st->recent && !(st->recent = malloc(REC_MEASURE_RECENT * sizeof(*st->recent)))) {
		st->nomem = true;   /* no ring: rec_call_stats_write drops the calls */
		return -ENOMEM;
	}
	st->recent[(st->calls - 1) % REC_MEASURE_RECENT] = *c;
	return err;
}

int rec_call_stats_write(struct rec_call_stats *st, FILE *f, int index)
{
	uint64_t oldest = !st->recent ? st->calls : st->calls > REC_MEASURE_RECENT ?
			  st->calls - REC_MEASURE_RECENT : 0;

	if (st->written < oldest) {
		st->dropped += oldest - st->written;
		st->written = oldest;
	}
	for (; st->written < st->calls; st->written++) {
		const struct rec_call *c = &st->recent[st->written % REC_MEASURE_RECENT];

		char caller[24] = "?";

		if (c->has_caller)
			snprintf(caller, sizeof(caller), "%+" PRId64, c->caller_off);
		if (fprintf(f, "%d %d %d %" PRIu64 " %" PRIu64 " %s%s\n", index, (int)c->pid,
			    (int)c->tid, c->entry_ns, c->entry_ns + c->duration_ns, caller,
			    c->thrown ? " exception" : "") < 0)
			return -EIO;
	}
	return 0;
}

int rec_call_stats_slowest(const struct rec_call_stats *st, struct rec_call *out)
{
	int n = st->nslowest;

	memcpy(out, st->slowest, (size_t)n * sizeof(*out));
	for (int i = 1; i < n; i++)   /* insertion sort, longest first: at most 16 */
		for (int j = i; j > 0 && shorter(&out[j - 1], &out[j]); j--) {
			struct rec_call x = out[j];

			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return n;
}

void rec_call_stats_free(struct rec_call_stats *st)
{
	hist_free(&st->hist);
	free(st->recent);
	st->recent = NULL;
}

void rec_measure_init(struct rec_measure *m, const char *spec, const struct rec_trigger_loc *loc,
		      struct rec_callexits *exits)
{
	memset(m, 0, sizeof(*m));
	m->spec = spec;
	m->loc = *loc;
	m->exits = *exits;
	memset(exits, 0, sizeof(*exits));
	m->st = (struct rec_call_stats)REC_CALL_STATS_INIT;
	/* no call is slow: every call goes to rec_measure_call */
	rec_slowcall_init(&m->match, UINT64_MAX);
	m->match.every = rec_measure_call;
	m->match.every_arg = m;
}

void rec_measure_watch_map(struct rec_measure *m, const pid_t *pids, int npids)
{
	double now;

	m->mapped = m->mapped || m->loc.in_main || m->st.calls;
	if (m->mapped)
		return;
	now = rec_now_ms();
	if (now - m->map_checked_ms < REC_MEASURE_MAP_MS)
		return;
	m->map_checked_ms = now;
	for (int i = 0; i < npids && !m->mapped; i++) {
		struct rec_map map;
		int err = rec_proc_find_map(pids[i], m->loc.file, m->loc.file_offset, 0, &map);

		m->mapped = !err;
		/* a look, when the maps were a live process's: alive after the
		 * read, it was during it (a zombie's are empty) */
		m->map_looks += err == -ENOENT && rec_proc_alive(pids[i]);
	}
}

int rec_measure_open(struct rec_measure *m, int uprobe_type, const char *file,
		     const pid_t *pids, int npids)
{
	int err = rec_trigger_init(&m->trig, REC_MECH_UPROBE, uprobe_type, file,
				   m->loc.file_offset, &m->exits);

	if (err)
		return err;
	m->opened = true;
	for (int i = 0; i < npids; i++) {
		err = rec_trigger_add_process(&m->trig, pids[i], 0);
		if (err < 0)
			return err;
	}
	return 0;
}

int rec_measure_enable(struct rec_measure *m)
{
	return m->opened ? rec_trigger_enable(&m->trig) : 0;
}

void rec_measure_call(const struct rec_hit *hit, void *arg)
{
	struct rec_measure *m = arg;
	struct rec_call c = { .pid = hit->pid, .tid = hit->tid, .entry_ns = hit->entry_ns,
			      .duration_ns = hit->duration_ns, .thrown = hit->thrown,
			      .has_caller = hit->has_caller, .caller_off = hit->caller_off };

	if (!m->st.calls)
		m->first_ms = rec_now_ms();
	rec_call_stats_add(&m->st, &c);
}

double rec_measure_load(const struct rec_measure *m, uint64_t cost_ns, double elapsed_ms)
{
	if (!m->st.calls || !cost_ns)
		return 0;
	if (elapsed_ms > 1000 || elapsed_ms <= 0)
		elapsed_ms = 1000;
	return (double)m->st.first_second * (double)cost_ns / (elapsed_ms * 1e6);
}

void rec_measure_read(struct rec_measure *m)
{
	struct rec_trig_sample smp[256];

	if (!m->opened)
		return;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < m->trig.nev; i++) {
			int n, left = rec_trigger_ring_samples(&m->trig);

			do {
				n = rec_trigger_read(&m->trig, i, smp, 256);
				left -= n;
				for (int k = 0; k < n; k++)
					rec_slowcall_add(&m->match, &smp[k]);
			} while (n == 256 && left > 0);
		}
		if (!rec_slowcall_pass(&m->match, NULL, NULL))
			return;
	}
}

/* The function the cost is measured on: a few instructions and a return.
 * Every recorder running this executable probes it, and another's probe
 * (another recorder timing it at the same time; one that records this
 * recorder with --measure on it) traps here too: so the calls without
 * probes are timed on rec_measure_plain_target(), its twin that nothing
 * probes. Timed on this one, they once cost as much as the probed calls
 * (1.4 ms a round of 100, no sample of ours) and the estimate came out 0
 * or 0.2 us instead of 10 (three --measure recordings side by side).
 * Their sums differ so that no compiler folds the two into one. */
__attribute__((noinline, used)) int rec_measure_probe_target(int x);
__attribute__((noinline, used)) int rec_measure_probe_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline, used)) int rec_measure_plain_target(int x);
__attribute__((noinline, used)) int rec_measure_plain_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

/* The CPU time of this thread, ns. */
/* Rounds of calls rec_measure_cost_ns() times, keeping the least. */
#define COST_ROUNDS 5

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

/* The least CPU time of ROUNDS rounds of N calls of FN; the rings of T
 * (NULL: none) drained after each. */
static uint64_t calls_cpu_ns(int (*fn)(int), struct rec_trigger *t, int rounds, int n)
{
	struct rec_trig_sample smp[256];
	uint64_t best = UINT64_MAX;
	volatile int sink = 0;

	for (int r = 0; r < rounds; r++) {
		uint64_t t0 = thread_cpu_ns(), t1;

		for (int i = 0; i < n; i++)
			sink = fn(sink);
		t1 = thread_cpu_ns();
		best = t1 - t0 < best ? t1 - t0 : best;
		for (int i = 0; t && i < t->nev; i++)
			while (rec_trigger_read(t, i, smp, 256) == 256)
				;
	}
	return best;
}

uint64_t rec_measure_cost_ns(int uprobe_type)
{
	enum { CALLS = 100 };
	struct rec_trigger_loc loc;
	struct rec_callexits exits = { 0 };
	struct rec_trigger t = { 0 };
	uint64_t plain, probed = 0;
	char why[512];

	if (uprobe_type < 0 ||
	    rec_trigspec_resolve("symbol:rec_measure_probe_target", "/proc/self/exe", getpid(),
				 &loc, why, sizeof(why)) ||
	    rec_callexits_find(loc.probe, loc.file, loc.vaddr, &exits, why, sizeof(why))) {
		if (loc.probe_fd >= 0)
			close(loc.probe_fd);
		return 0;
	}
	plain = calls_cpu_ns(rec_measure_plain_target, NULL, COST_ROUNDS, CALLS);
	if (!rec_trigger_init(&t, REC_MECH_UPROBE, uprobe_type, loc.probe, loc.file_offset,
			      &exits) &&
	    rec_trigger_add_process(&t, getpid(), 0) >= 0 && !rec_trigger_enable(&t))
		probed = calls_cpu_ns(rec_measure_probe_target, &t, COST_ROUNDS, CALLS);
	rec_trigger_close(&t);
	rec_callexits_free(&exits);
	close(loc.probe_fd);
	return probed > plain ? (probed - plain) / CALLS : 0;
}

const char *rec_measure_cost_words(uint64_t cost_ns, char *buf, size_t size)
{
	if (cost_ns)
		snprintf(buf, size, "at least %.1f us of CPU (the least of %d rounds of a "
			 "function of the recorder's own; more under load)", cost_ns / 1e3,
			 COST_ROUNDS);
	else
		snprintf(buf, size, "an unknown CPU time (the probes could not be timed here)");
	return buf;
}

const char *rec_measure_none_words(uint64_t start_ns, uint64_t end_ns, bool stopped_at_start,
				   bool attached, uint64_t unmatched, uint64_t open, char *buf,
				   size_t size)
{
	static const char early[] = "the recording was stopped while it was starting";
	char span[64] = "";
	char parts[160] = "";

	if (start_ns && end_ns >= start_ns)
		snprintf(span, sizeof(span), " in the %.3f ms recorded", (end_ns - start_ns) / 1e6);
	if (unmatched || open) {
		/* in a call, not never called: what the recording cut */
		if (unmatched)
			snprintf(parts, sizeof(parts), "%" PRIu64 " call%s entered before it returned "
				 "in it", unmatched, unmatched == 1 ? "" : "s");
		if (open)
			snprintf(parts + strlen(parts), sizeof(parts) - strlen(parts),
				 "%s%" PRIu64 " call%s still running at its end", unmatched ? ", " : "",
				 open, open == 1 ? "" : "s");
		snprintf(buf, size, "no whole call%s (%s: %s not known)", span[0] ? span : " recorded",
			 parts, unmatched + open == 1 ? "its duration is" : "their durations are");
	} else if (span[0] && attached && !stopped_at_start) {
		/* the probes see entries and returns: not a call all along */
		snprintf(buf, size, "no call entered or returned%s (one running since before "
			 "the attach, as main, and still at the end is seen by neither)", span);
	} else if (span[0])
		snprintf(buf, size, "no call%s%s%s%s", span, stopped_at_start ? " (" : "",
			 stopped_at_start ? early : "",
			 stopped_at_start ? ": not measured long enough to tell)" : "");
	else if (stopped_at_start)
		snprintf(buf, size, "not measured: %s", early);
	else
		snprintf(buf, size, "no call");
	return buf;
}

void rec_measure_close(struct rec_measure *m)
{
	if (m->opened)
		rec_trigger_close(&m->trig);
	m->opened = false;
	rec_callexits_free(&m->exits);
	rec_slowcall_free(&m->match);
}

void rec_measure_free(struct rec_measure *m)
{
	rec_measure_close(m);
	rec_call_stats_free(&m->st);
}
