/* SPDX-License-Identifier: MIT */
#include "repeat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Index of the Nth (0-based) entry of FUNC in TH, or TH->n. */
static size_t entry(const struct ps_thread *th, const struct ps_symtab *st, const char *func,
		    size_t from)
{
	for (size_t i = from; i < th->n; i++) {
		uint64_t start;
		const char *sym = ps_symtab_lookup(st, th->steps[i].ip, &start, NULL);

		if (start == th->steps[i].ip && sym && !strcmp(sym, func))
			return i;
	}
	return th->n;
}

/* Moves every step of every thread at or after global step SEQ up by BY. */
static void shift(struct ps_run *run, uint64_t seq, uint64_t by)
{
	for (size_t t = 0; t < run->nthreads; t++)
		for (size_t i = 0; i < run->threads[t].n; i++)
			if (run->threads[t].steps[i].seq >= seq)
				run->threads[t].steps[i].seq += by;
}

int ps_repeat(struct ps_run *run, const struct ps_symtab *st, const char *func, uint64_t times)
{
	int done = 0;

	for (size_t t = 0; t < run->nthreads; t++) {
		struct ps_thread *th = &run->threads[t];
		size_t a = entry(th, st, func, 0), b = a < th->n ? entry(th, st, func, a + 1) : th->n;
		size_t len = b - a, add;
		struct ps_step *steps;
		uint64_t seq;

		if (b >= th->n)
			continue;
		if (times > (SIZE_MAX / sizeof(*steps) - th->n) / len)
			return -ENOMEM;
		add = (size_t)times * len;
		steps = realloc(th->steps, (th->n + add) * sizeof(*steps));
		if (!steps)
			return -ENOMEM;
		th->steps = steps;
		th->cap = th->n + add;
		seq = steps[b].seq;
		shift(run, seq, add);
		memmove(&steps[b + add], &steps[b], (th->n - b) * sizeof(*steps));
		for (size_t k = 0; k < add; k++)
			steps[b + k] = (struct ps_step){ steps[a + k % len].ip, seq + k };
		th->n += add;
		run->nsteps += add;
		done++;
	}
	return done;
}
