/* SPDX-License-Identifier: MIT */
/* switches: off-CPU points and the clock around them (see switches.h). */
#include "switches.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct ps_clock *c, size_t *cap, const struct ps_thread *th, size_t step,
	       uint64_t ns, bool preempt)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ps_switch *s = realloc(c->sw, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->sw = s;
		*cap = ncap;
	}
	c->sw[c->n++] = (struct ps_switch){ .th = th, .step = step, .seq = th->steps[step].seq,
					    .ns = ns, .preempt = preempt };
	return 0;
}

static int by_seq(const void *x, const void *y)
{
	const struct ps_switch *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The thread and step index of global step SEQ, or NULL. */
static const struct ps_thread *owner(const struct ps_run *run, uint64_t seq, size_t *step)
{
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct ps_thread *th = &run->threads[i];
		size_t lo = ps_thread_step(th, seq);

		if (lo < th->n && th->steps[lo].seq == seq) {
			*step = lo;
			return th;
		}
	}
	return NULL;
}

int ps_clock_init(struct ps_clock *c, const struct ps_run *run, uint64_t base,
		  uint64_t ns_per_step, uint64_t block_ns, const uint64_t *preempt_seq,
		  const uint64_t *preempt_ns, size_t npreempt, char *err, size_t errlen)
{
	size_t cap = 0, i, j;
	uint64_t total = 0;

	memset(c, 0, sizeof(*c));
	c->base = base;
	c->ns_per_step = ns_per_step;
	for (i = 0; block_ns && i < run->nthreads; i++) {
		const struct ps_thread *th = &run->threads[i];

		for (j = 0; j + 1 < th->n; j++) {
			const struct ps_insn *in = ps_icache_get(&run->icache, th->steps[j].ip);

			if (in && in->kind == PS_SYSCALL && add(c, &cap, th, j + 1, block_ns, false))
				goto nomem;
		}
	}
	for (i = 0; i < npreempt; i++) {
		const struct ps_thread *th = owner(run, preempt_seq[i], &j);

		if (!th || j == 0) {
			snprintf(err, errlen, "--preempt-at: expected a global step after a "
				 "thread's first one, found %" PRIu64, preempt_seq[i]);
			ps_clock_free(c);
			return -EINVAL;
		}
		if (add(c, &cap, th, j, preempt_ns[i], true))
			goto nomem;
	}
	if (c->n)
		qsort(c->sw, c->n, sizeof(*c->sw), by_seq);
	c->after = malloc((c->n + 1) * sizeof(*c->after));
	if (!c->after)
		goto nomem;
	for (i = 0; i < c->n; i++) {
		struct ps_switch *s = &c->sw[i];

		if (i && s->seq == s[-1].seq) {
			snprintf(err, errlen, "two switches before global step %" PRIu64, s->seq);
			ps_clock_free(c);
			return -EINVAL;
		}
		s->out = base + (s->seq - 1) * ns_per_step + total + ns_per_step / 2;
		s->in = s->out + s->ns;
		total += s->ns;
		c->after[i] = total;
	}
	return 0;
nomem:
	ps_clock_free(c);
	return -ENOMEM;
}

uint64_t ps_clock_time(const struct ps_clock *c, uint64_t seq)
{
	size_t lo = 0, hi = c->n;

	/* the switches at or before seq: sw[0..lo) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->sw[mid].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->base + seq * c->ns_per_step + (lo ? c->after[lo - 1] : 0);
}

void ps_clock_free(struct ps_clock *c)
{
	free(c->sw);
	free(c->after);
	memset(c, 0, sizeof(*c));
}
