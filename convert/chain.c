/* SPDX-License-Identifier: MIT */
/*
 * Sampled call chains (perf record --call-graph): docs/design.md "Sampled
 * call chains". Consecutive samples of a thread are compared from the root; a
 * frame continues while its function and its caller's return address stay
 * the same, and ends at the first sample that lacks it. The thread's stack
 * holds the previous sample's frames, root first.
 */
#include "conv.h"

void conv_chain_sample(struct conv *c, struct conv_thread *t, uint64_t ts,
		       const struct conv_site *frames, size_t n, uint64_t period_ns)
{
	size_t k = 0;

	/* frames[] is innermost first: root-first index i is frames[n - 1 - i]. */
	while (k < t->depth && k < n && t->stack[k].func == frames[n - 1 - k].func &&
	       (k == 0 || t->stack[k - 1].ip == frames[n - k].ip))
		k++;
	while (t->depth > k)
		conv_stack_pop(c, t, ts);
	for (size_t i = k; i < n; i++)
		conv_stack_push(c, t, &frames[n - 1 - i], NULL, ts);
	/* Continuing frames take this sample's addresses (leaf ip may move). */
	for (size_t i = 0; i < t->depth && i < n; i++)
		t->stack[i].ip = frames[n - 1 - i].ip;
	t->chain_period = period_ns;
	c->stats.samples++;
}

void conv_chain_close(struct conv *c, struct conv_thread *t, uint64_t ts)
{
	ts += t->chain_period;
	t->chain_period = 0;
	while (t->depth)
		conv_stack_pop(c, t, ts);
}
