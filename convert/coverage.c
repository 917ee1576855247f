/* SPDX-License-Identifier: MIT */
/*
 * What the trace covers, printed in the summary: per thread its time span,
 * samples and sampling period, and how much of it is [off-cpu] and [no
 * samples]; and the call chains chaincheck.c counted broken, each with the
 * cause the recording's unwinder points to (frame
 * pointers: code built without them; dwarf: a stack deeper than its copy,
 * code without unwind information; lbr: calls deeper than the branch
 * records; any: a uretprobe's trampoline in place of a return address),
 * the binaries to blame and the fix; and the switches and signals a
 * recording at a lower rate than every event did not sample.
 */
#include "coverage.h"

#include "markers.h"
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "diag.h"
#include "perfmap.h"

/* A chain is called broken when more than this share of a thread's chains
 * are (in percent), over at least MIN_CHAINS chains. */
#define BROKEN_PERCENT 20
#define MIN_CHAINS 10

/* The tracepoints of enum conv_every_event: their names, what one event
 * is, and what the trace lacks for one that was not sampled. */
static const struct every_event {
	const char *name;
	uint8_t len;
	const char *one, *events, *lost;
} every_events[CONV_EVERY_N] = {
	[CONV_EVERY_SCHED_SWITCH] = { "sched:sched_switch", 18, "switch", "switches",
				      "their [off-cpu] slices show no call stack" },
	[CONV_EVERY_SIGNAL] = { "signal:signal_deliver", 21, "signal", "signals",
				"they have no mark" },
};

enum conv_every_event conv_every_event(const char *name, size_t len)
{
	unsigned k = 0;

	while (k < CONV_EVERY_N &&
	       !(len == every_events[k].len && !memcmp(name, every_events[k].name, len)))
		k++;
	return (enum conv_every_event)k;
}

/* Warns of each tracepoint of enum conv_every_event recorded in frequency
 * mode (perf record's -F sets every event's rate; the kernel raises the
 * period when events come faster) or whose samples' periods say events
 * were skipped, with how many: about, as in frequency mode the period a
 * sample gives is the one the kernel had set, not the events counted. */
static void every_warnings(const struct conv *c)
{
	for (unsigned k = 0; k < CONV_EVERY_N; k++) {
		const struct conv_every *e = &c->every[k];
		const struct every_event *ev = &every_events[k];
		char how[64], lost[96];

		if (!e->freq && !e->skipped)
			continue;
		if (e->freq)
			snprintf(how, sizeof(how), "was recorded with sample_freq=%llu",
				 (unsigned long long)e->freq);
		else
			snprintf(how, sizeof(how), "was sampled with periods over 1");
		if (e->samples)
			snprintf(lost, sizeof(lost), "about %llu of %llu %s were not sampled",
				 (unsigned long long)e->skipped,
				 (unsigned long long)(e->samples + e->skipped), ev->events);
		else
			snprintf(lost, sizeof(lost), "no %s was sampled", ev->one);
		diag_warn("%s %s, not at every event (perf record's -F sets every event's "
			  "frequency, and the kernel skips events that come faster): %s, %s; "
			  "record again with the sampling event's frequency as its term "
			  "(-e cpu-clock/freq=4000/), not -F", ev->name, how, lost, ev->lost);
	}
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
	char sampled[96] = "", trigger[96], unsampled[200] = "";

	if (t->nsamples)
		snprintf(sampled, sizeof(sampled), ", %llu sample%s every %.0f us",
			 (unsigned long long)t->nsamples, diag_s(t->nsamples),
			 (double)conv_thread_period(c, t) / 1e3);
	if (t->unsampled_ns)
		snprintf(unsampled, sizeof(unsampled), "; before the oldest sample %.3f ms "
			 "(%.0f%%: on the CPU before its first sample in a snapshot, whose ring of "
			 "samples reaches back less far than its switch records)", ms(t->unsampled_ns),
			 sp ? 100.0 * (double)t->unsampled_ns / (double)sp : 0.0);
	diag_info("  %s [%lld]: %.3f ms from %.6f s%s; off-cpu %.3f ms (%.0f%%), no samples "
		  "%.3f ms (%.0f%%)%s%s", t->comm ? t->comm : "", (long long)t->tid, ms(sp),
		  (double)t->first_ts / 1e9, sampled, ms(t->offcpu_ns),
		  sp ? 100.0 * (double)t->offcpu_ns / (double)sp : 0.0, ms(t->nosamples_ns),
		  sp ? 100.0 * (double)t->nosamples_ns / (double)sp : 0.0, unsampled,
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

/* Whether most of B's blamed chains stop in JIT code: a perf map's
 * (/tmp/perf-PID.map) or anonymous memory (//anon), which has no unwind
 * information and, unless the JIT is asked, no frame pointers, so no stack
 * copy however large unwinds it. */
static bool blamed_jit(const struct conv_blame *b)
{
	uint64_t jit = 0, all = 0;

	for (size_t i = 0; i < b->n; i++) {
		const char *d = b->dso[i].dso;

		all += b->dso[i].n;
		if (perfmap_pid(d, strlen(d)) > 0 || !strncmp(d, "//anon", 6))
			jit += b->dso[i].n;
	}
	return jit * 2 > all;
}

/* The coverage fact of the chains cut at a loop past a system library's
 * frame (C->loop_system): a known cause in code the user does not build,
 * so no warning (docs/design.md "A chain cut at a loop"). */
static void loop_fact(const struct conv *c)
{
	const struct conv_func *f = c->loop_past_system;
	const char *dso, *base;

	if (!c->loop_system)
		return;
	/* the library by its file name: the line stays one short line */
	dso = f->key + f->symlen;
	base = memrchr(dso, '/', f->dsolen);
	base = base ? base + 1 : dso;
	/* the why at length: docs/design.md */
	diag_info("  %llu sampled call stack%s cut at a loop past %.*s (%.*s), a system "
		  "library without frame pointers (nothing to fix; --callgraph dwarf finds its "
		  "callers: docs/design.md \"A chain cut at a loop\")",
		  (unsigned long long)c->loop_system, diag_s(c->loop_system), (int)f->symlen, f->key,
		  (int)(f->dsolen - (size_t)(base - dso)), base);
}

/* A trace without slices (not cut by --filter or --window, which say so
 * themselves): one warning saying so and why, as far as the input tells
 * (issue 24: `run --trigger none --duration 1ms` gave "0 threads, 0
 * slices" without a word once in 6). */
static void empty_warning(const struct conv *c)
{
	const struct conv_stats *s = &c->stats;
	const char *from = c->nrecs ? "the snapshot" : "the input";
	char why[320], rec[160] = "";
	size_t n;

	if (s->slices || c->cut.on)
		return;
	/* how long perf recorded, and what ended it, when a recording says */
	for (size_t k = 0; k < c->nrecs; k++) {
		const struct recording *r = c->recs[k];

		if (r->start_ns && r->end_ns > r->start_ns) {
			snprintf(rec, sizeof(rec), "; perf recorded for %.3f ms, until the "
				 "recording's end (%s)", (double)(r->end_ns - r->start_ns) / 1e6,
				 record_end_name(r->end));
			break;
		}
	}
	if (s->samples || s->branches || s->decode_errors)
		n = (size_t)snprintf(why, sizeof(why), "its %llu sample%s and %llu branch%s give no "
				     "location to draw", (unsigned long long)s->samples,
				     diag_s(s->samples), (unsigned long long)s->branches,
				     s->branches == 1 ? "" : "es");
	else if (s->threads)
		n = (size_t)snprintf(why, sizeof(why), "%s holds no sample of its %llu thread%s, "
				     "only %s context switches or exit", from,
				     (unsigned long long)s->threads, diag_s(s->threads),
				     s->threads == 1 ? "its" : "their");
	else
		n = (size_t)snprintf(why, sizeof(why), "%s holds no sample, branch, decode error or "
				     "context switch of any thread", from);
	if (n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, "%s", rec);
	diag_warn("the trace has no slices: %s", why);
}

/* The coverage fact of the chains cut at an address in no mapping or in
 * one that holds no code (conv_chain_clean): no function is drawn for it. */
static void unmapped_fact(const struct conv *c)
{
	if (!c->unmapped_chains)
		return;
	/* the why at length: docs/design.md (a 600-character line on most runs) */
	diag_info("  %llu sampled call stack%s cut at an address of no code (first 0x%llx: %s; "
		  "docs/design.md \"A chain cut at an address in no mapping\")",
		  (unsigned long long)c->unmapped_chains, diag_s(c->unmapped_chains),
		  (unsigned long long)c->unmapped_ip, c->unmapped_ip == 0 ||
		  c->unmapped_ip == UINT64_MAX ? "the stack's end" : "a misread return address");
}

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
	/* the loops past a system library's frame: a coverage fact (loop_fact) */
	if (c->loop_own)
		diag_warn("%llu sampled call stack%s a frame with no symbol over and over: "
			  "perf's frame-pointer walk lost its way past %.*s (%.*s)%s no "
			  "frame pointer, and looped until its limit of frames; each loop is one "
			  "\"[call chain cut: ADDR repeats]\" frame over it, as no samples of its "
			  "thread around it agreed on its callers; rebuild that code with "
			  "-fno-omit-frame-pointer, or record with --callgraph dwarf",
			  (unsigned long long)c->loop_own, c->loop_own == 1 ? " repeats" : "s repeat",
			  (int)c->loop_past->symlen,
			  c->loop_past->key, (int)c->loop_past->dsolen,
			  c->loop_past->key + c->loop_past->symlen,
			  c->loop_past_more ? " and other functions, which keep" : ", which keeps");
	if (c->loop_chains > c->loop_system + c->loop_own)
		diag_warn("%llu sampled call stack%s a frame with no symbol over and over: "
			  "perf's unwinder looped (a frame pointer that points at itself, often in "
			  "code without frame pointers or at a crash) until its limit of frames; "
			  "each loop is one \"[call chain cut: ADDR repeats]\" frame, and what called it is "
			  "not known",
			  (unsigned long long)(c->loop_chains - c->loop_system - c->loop_own),
			  c->loop_chains - c->loop_system - c->loop_own == 1 ? " repeats" : "s repeat");
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
	if (blamed_jit(&c->broken)) {
		diag_warn("%llu of %llu sampled call stacks are broken (they reach no thread root "
			  "such as _start or start_thread): they stop in JIT code, in %s: a JIT "
			  "emits no unwind information for its code, and no frame pointers unless "
			  "asked, so no larger stack copy helps; run the JIT with frame pointers "
			  "(node --perf-basic-prof --interpreted-frames-native-stack, java "
			  "-XX:+PreserveFramePointer, python3.12 -X perf) and record with "
			  "--callgraph fp", (unsigned long long)broken, (unsigned long long)chains,
			  blamed_list(&c->broken, dsos, sizeof(dsos)));
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
	uint64_t total = 0, before = 0, tracer = 0;
	char unsampled[64] = "";

	for (size_t i = 0; i < c->nthreads; i++) {
		struct conv_thread *t = c->threads[i];

		if (!t->has_ts)
			continue;
		if (all)
			all[n] = t;
		n++;
		offcpu += t->offcpu_ns;
		tracer += t->tracer_ns;
		nosamples += t->nosamples_ns;
		before += t->unsampled_ns;
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
	if (before)
		snprintf(unsampled, sizeof(unsampled), ", before the oldest sample %.3f ms",
			 ms(before));
	if (n > 1 || n > top)
		diag_info("  all %llu threads%s: off-cpu %.3f ms, no samples %.3f ms%s of %.3f ms",
			  (unsigned long long)n, n > top ? " (the longest shown)" : "", ms(offcpu),
			  ms(nosamples), unsampled, ms(total));
	if (tracer)
		diag_info("  %.3f ms of the off-cpu time were the tracer's own work, not the "
			  "program's: [off-cpu] slices with a \"%s\" argument (docs/design.md \"A "
			  "block in the tracer's own work\")", ms(tracer), FXT_OFFCPU_TRACER);
	empty_warning(c);
	loop_fact(c);
	unmapped_fact(c);
	chain_warnings(c, flat, chains, broken, unsym);
	every_warnings(c);
}
