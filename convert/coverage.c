/* SPDX-License-Identifier: MIT */
/*
 * What the trace covers: per thread its time span, samples and sampling
 * period, and how much of it is [off-cpu] and [no samples]; and broken call
 * chains, each with the cause the recording's unwinder points to (frame
 * pointers: code built without them; dwarf: a stack deeper than its copy,
 * code without unwind information; lbr: calls deeper than the branch
 * records; any: a uretprobe's trampoline in place of a return address),
 * the binaries to blame and the fix.
 */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "diag.h"

/* A chain is called broken when more than this share of a thread's chains
 * are (in percent), over at least MIN_CHAINS chains. */
#define BROKEN_PERCENT 20
#define MIN_CHAINS 10

/*
 * Whether IP is the kernel's uretprobe trampoline: the [uprobes] page that
 * the kernel maps just below the top of user space (TASK_SIZE - PAGE_SIZE:
 * 0x7fffffffe000 with 4-level page tables, 0xffffffffffe000 with 5), whose
 * address a uretprobe writes over the return address of the call it
 * watches; perf prints a return address less one (0x7fffffffdfff). No
 * unwinder passes it: the stack's callers are lost there.
 */
static bool uretprobe_trampoline(uint64_t ip)
{
	return (ip >= 0x7fffffffdfffull && ip < 0x7ffffffff000ull) ||
	       (ip >= 0xffffffffffdfffull && ip < 0xfffffffffff000ull);
}

/* Whether F names a binary: not perf's "[unknown]" nor its "(inlined)" frames. */
static bool real_dso(const struct conv_func *f)
{
	const char *dso = f->key + f->symlen;

	return f->dsolen && !(f->dsolen == 9 && !memcmp(dso, "[unknown]", 9)) &&
	       !(f->dsolen == 7 && !memcmp(dso, "inlined", 7));
}

/* Whether F is in a page the kernel maps into every process ([vdso],
 * [vsyscall], [uprobes]): no binary to install symbols for. */
static bool kernel_page(const struct conv_func *f)
{
	return real_dso(f) && f->key[f->symlen] == '[';
}

/* Counts one chain against F's dso in B (one of C's); sets c->nomem when
 * out of memory. */
static void blame(struct conv *c, struct conv_blame *b, const struct conv_func *f)
{
	const char *dso = f->key + f->symlen;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (strlen(b->dso[i].dso) == f->dsolen && !memcmp(b->dso[i].dso, dso, f->dsolen))
			break;
	if (i == b->n) {
		if (i == CONV_MAX_BLAMED)
			return;
		if (!(b->dso[i].dso = strndup(dso, f->dsolen))) {
			c->nomem = true;
			return;
		}
		b->n++;
	}
	b->dso[i].n++;
}

void conv_coverage_chain(struct conv *c, struct conv_thread *t,
			 const struct conv_site *frames, size_t n, bool callchain)
{
	size_t user = 0, unknown = 0;
	const struct conv_func *innermost = NULL, *outermost = NULL, *unknown_dso = NULL, *last = NULL;
	uint64_t last_ip = 0;
	bool rooted = false;

	if (!callchain) {
		t->flat_samples++;
		return;
	}

	for (size_t i = 0; i < n; i++) {
		const struct conv_func *f = frames[i].func;

		if (frames[i].ip >= CONV_KERNEL_START)
			continue;
		user++;
		/* the kernel's own pages ([vdso], [uprobes]) have no symbols to install */
		unknown += f->unknown && !kernel_page(f);
		rooted |= f->root;
		last_ip = frames[i].ip;
		last = f;
		if (!unknown_dso && f->unknown && real_dso(f) && !kernel_page(f))
			unknown_dso = f;
		if (real_dso(f)) {
			innermost = innermost ? innermost : f;
			outermost = f;
		}
	}
	if (!user || (innermost && innermost->dsolen > 7 &&
		      memmem(innermost->key + innermost->symlen, innermost->dsolen, "/ld-linux", 9)))
		return;	/* a kernel thread; the dynamic loader's start-up before main */
	/* cut where a uprobe single-steps the probed instruction: no unwinder
	 * passes that page, and chain.c puts it on the open stack (uprobe_cut) */
	if (conv_func_is_uprobes(last))
		return;
	t->chains++;
	if (rooted && unknown * 2 <= user)
		return;
	/* complete, but a binary that changed since the recording (its own
	 * warning) or one with no symbols */
	if (rooted && unknown_dso &&
	    binaries_changed(c->binaries, unknown_dso->key + unknown_dso->symlen, unknown_dso->dsolen))
		return;
	if (rooted) {
		t->unsymbolized_chains++;
		if (unknown_dso)
			blame(c, &c->unsymbolized, unknown_dso);
		return;
	}
	if (uretprobe_trampoline(last_ip)) {
		c->trampoline_chains++;
		return;
	}
	t->broken_chains++;
	/* dwarf unwinds until it can go no further: the outermost frame's
	 * binary; frame pointers fail in the code that has none: the innermost */
	if (c->unwinders == CONV_UNWIND_DWARF ? outermost != NULL : innermost != NULL)
		blame(c, &c->broken, c->unwinders == CONV_UNWIND_DWARF ? outermost : innermost);
	else
		c->unnamed_chains++;	/* no binary known: perf found no mapping */
}

/* Time in ms. */
static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static uint64_t span(const struct conv_thread *t)
{
	uint64_t end = t->last_ts > t->last_end ? t->last_ts : t->last_end;

	return end > t->first_ts ? end - t->first_ts : 0;
}

static int by_span(const void *a, const void *b)
{
	uint64_t x = span(*(struct conv_thread *const *)a), y = span(*(struct conv_thread *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

static int by_count(const void *a, const void *b)
{
	uint64_t x = ((const struct conv_dso_count *)a)->n, y = ((const struct conv_dso_count *)b)->n;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Where the (last) trigger hit of T's process lies against the end of T's
 * span, "; trigger at -3.200 ms from its end (the last of 4)", into BUF;
 * "" without a recording's hit. */
static const char *trigger_at(const struct conv *c, const struct conv_thread *t, char *buf,
			      size_t size)
{
	uint64_t hit, end = t->first_ts + span(t);
	size_t n;
	char last[40] = "";

	buf[0] = 0;
	if (!conv_markers_last_hit(c, t->pid, &hit, &n))
		return buf;
	if (n > 1)
		snprintf(last, sizeof(last), " (the last of %zu)", n);
	snprintf(buf, size, "; trigger at %+.3f ms from its end%s",
		 hit >= end ? ms(hit - end) : -ms(end - hit), last);
	return buf;
}

static void thread_line(const struct conv *c, const struct conv_thread *t)
{
	uint64_t sp = span(t);
	char sampled[96] = "", trigger[96];

	if (t->nsamples)
		snprintf(sampled, sizeof(sampled), ", %llu samples every %.0f us",
			 (unsigned long long)t->nsamples, (double)conv_thread_period(c, t) / 1e3);
	diag_info("  %s [%lld]: %.3f ms from %.6f s%s; off-cpu %.3f ms (%.0f%%), no samples "
		  "%.3f ms (%.0f%%)%s", t->comm ? t->comm : "", (long long)t->tid, ms(sp),
		  (double)t->first_ts / 1e9, sampled, ms(t->offcpu_ns),
		  sp ? 100.0 * (double)t->offcpu_ns / (double)sp : 0.0, ms(t->nosamples_ns),
		  sp ? 100.0 * (double)t->nosamples_ns / (double)sp : 0.0,
		  trigger_at(c, t, trigger, sizeof(trigger)));
}

/* The most blamed binaries of B, "DSO (N), ..." into BUF (SIZE bytes); the
 * text when none is known. */
static const char *blamed_list(struct conv_blame *b, char *buf, size_t size)
{
	size_t len = 0;

	array_sort(b->dso, b->n, sizeof(b->dso[0]), by_count);
	buf[0] = 0;
	for (size_t i = 0; i < b->n && i < 4 && len < size - 1; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s (%llu)", i ? ", " : "",
					b->dso[i].dso, (unsigned long long)b->dso[i].n);
	return len ? buf : "binaries perf could not name";
}

/* Is PART more than BROKEN_PERCENT of ALL, over at least MIN_CHAINS? */
static bool too_many(uint64_t part, uint64_t all)
{
	return all >= MIN_CHAINS && part * 100 > all * BROKEN_PERCENT;
}

/* Why chains reach no thread root, by the unwinder that made them (C's
 * unwinders: one known, else several or none): the cause before the binaries
 * blamed, the fix after. */
static const struct {
	unsigned unwinders;
	const char *cause, *fix;
} broken_causes[] = {
	{ CONV_UNWIND_FP, "unwound through frame pointers (--callgraph fp, perf record -g): "
	  "code without them, in", "rebuild it with -fno-omit-frame-pointer, or record with "
	  "--callgraph dwarf (or lbr on Intel)" },
	{ CONV_UNWIND_DWARF, "unwound from a copy of each sample's stack (--callgraph dwarf): "
	  "a stack deeper than the copy (perf's default 8 KiB) ends there, and so does code "
	  "without unwind information (.eh_frame); they stop in", "record a larger copy "
	  "(--perf-arg=--call-graph=dwarf,65528, the kernel's most) or, for code built with "
	  "frame pointers, --callgraph fp" },
	{ CONV_UNWIND_LBR, "unwound from the last branch records (--callgraph lbr): they hold "
	  "the last 8 to 32 calls, so a deeper stack is cut, in", "record with --callgraph "
	  "dwarf" },
	{ 0, "code without frame pointers cuts a chain unwound through them (perf record -g), "
	  "in", "rebuild it with -fno-omit-frame-pointer or record with --call-graph dwarf; a "
	  "chain unwound with --call-graph dwarf is cut where the stack is deeper than its copy "
	  "(perf record --call-graph dwarf,65528 copies the most)" },
};

/* The warnings on call chains that cannot show the stack, each with its own
 * fix: none recorded (FLAT samples of FLAT + CHAINS), chains cut at a
 * uretprobe's trampoline, chains that reach no thread root (BROKEN: the
 * cause by unwinder), rooted chains mostly [unknown] (UNSYM: no symbols). */
static void chain_warnings(struct conv *c, uint64_t flat, uint64_t chains, uint64_t broken,
			   uint64_t unsym)
{
	char dsos[400];
	size_t k = 0;

	if (flat && too_many(flat, flat + chains))
		diag_warn("%llu of %llu samples have no call chain: none was recorded, so each "
			  "slice is only the sampled function; record with --call-graph fp (perf "
			  "record -g), dwarf, or lbr on Intel (snaptrace: --callgraph)",
			  (unsigned long long)flat, (unsigned long long)(flat + chains));
	if (c->trampoline_chains)
		diag_warn("%llu of %llu sampled call stacks end at the kernel's uretprobe "
			  "trampoline (0x7fffffffdfff): a return probe on a function of the stack "
			  "(another tool's uretprobe, or the slow-call trigger of an earlier "
			  "snaptrace-record) replaced its return address, and no unwinder passes "
			  "it: their callers are lost; record again without it",
			  (unsigned long long)c->trampoline_chains, (unsigned long long)chains);
	if (too_many(unsym, chains))
		diag_warn("%llu of %llu sampled call stacks reach the thread's root but are mostly "
			  "[unknown]: no symbols for %s (stripped binaries); install their debug "
			  "symbols (Debian: the -dbgsym packages) or give perf a copy that has "
			  "them: --perf-arg=--symfs=DIR", (unsigned long long)unsym,
			  (unsigned long long)chains, blamed_list(&c->unsymbolized, dsos, sizeof(dsos)));
	if (!too_many(broken, chains))
		return;
	if (c->unnamed_chains * 2 > broken) {
		diag_warn("%llu of %llu sampled call stacks name no binary: perf found no mapping "
			  "for their addresses (the perf.data lacks the process's mmap records, or "
			  "the binaries are not here: --perf-arg=--symfs=DIR)",
			  (unsigned long long)c->unnamed_chains, (unsigned long long)chains);
		broken -= c->unnamed_chains;
		if (!too_many(broken, chains))
			return;
	}
	while (broken_causes[k].unwinders && broken_causes[k].unwinders != c->unwinders)
		k++;
	diag_warn("%llu of %llu sampled call stacks are broken (they reach no thread root such "
		  "as _start or start_thread): %s %s; %s", (unsigned long long)broken,
		  (unsigned long long)chains, broken_causes[k].cause,
		  blamed_list(&c->broken, dsos, sizeof(dsos)), broken_causes[k].fix);
}

void conv_coverage_report(struct conv *c, unsigned top)
{
	struct conv_thread **all = calloc(c->stats.threads ? c->stats.threads : 1, sizeof(*all));
	uint64_t n = 0, offcpu = 0, nosamples = 0, chains = 0, broken = 0, unsym = 0, flat = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < c->nthreads; i++) {
		struct conv_thread *t = c->threads[i];

		if (!t->has_ts)
			continue;
		if (all)
			all[n] = t;
		n++;
		offcpu += t->offcpu_ns;
		nosamples += t->nosamples_ns;
		chains += t->chains;
		broken += t->broken_chains;
		unsym += t->unsymbolized_chains;
		flat += t->flat_samples;
		total += span(t);
	}
	if (all) {
		array_sort(all, n, sizeof(*all), by_span);
		for (uint64_t i = 0; i < n && i < top; i++)
			thread_line(c, all[i]);
		free(all);
	} else {
		diag_warn("out of memory: the threads are not listed");
	}
	if (n > 1 || n > top)
		diag_info("  all %llu threads%s: off-cpu %.3f ms, no samples %.3f ms of %.3f ms",
			  (unsigned long long)n, n > top ? " (the longest shown)" : "", ms(offcpu),
			  ms(nosamples), ms(total));
	chain_warnings(c, flat, chains, broken, unsym);
}

void conv_coverage_free(struct conv *c)
{
	struct conv_blame *b[] = { &c->broken, &c->unsymbolized };

	for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
		for (size_t i = 0; i < b[k]->n; i++)
			free(b[k]->dso[i].dso);
		b[k]->n = 0;
	}
}
