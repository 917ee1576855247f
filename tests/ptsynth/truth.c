/* SPDX-License-Identifier: MIT */
/* truth: ground-truth listing of a synthesized trace (see truth.h). */
#include "truth.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

struct where {
	uint64_t ip, start;
	const char *sym, *dso;
};

static void resolve(const struct ps_symtab *st, uint64_t ip, struct where *w)
{
	w->ip = ip;
	w->sym = ps_symtab_lookup(st, ip, &w->start, &w->dso);
	if (!w->dso)
		w->dso = "-";
}

static void event(FILE *f, const char *kind, pid_t tid, size_t step, uint64_t time,
		  const struct where *src, const struct where *dst)
{
	fprintf(f, "%s\t%d\t%zu\t%" PRIu64 "\t%" PRIx64 "\t%" PRIx64 "\t%" PRIu64
		"\t%s\t%s\t%s\t%s\n", kind, tid, step, time, src->ip, dst ? dst->ip : 0,
		dst ? dst->ip - dst->start : 0, src->dso, dst ? dst->dso : "-", src->sym,
		dst ? dst->sym : "-");
}

/* The event of step I of TH (followed by NEXT), if it is one. */
static void step_event(FILE *f, const struct ps_symtab *st, const struct ps_thread *th,
		       size_t i, const struct ps_insn *in, uint64_t next, uint64_t time,
		       struct ps_truth_stats *stats)
{
	struct where src, dst;
	const char *kind = NULL;
	bool taken = false;

	switch (in->kind) {
	case PS_JCC:
		taken = next != in->ip + in->len;
		kind = taken ? "jump" : NULL;
		break;
	case PS_JMP:
	case PS_JMP_INDIRECT:
		taken = true;
		kind = "jump";
		break;
	case PS_CALL:
	case PS_CALL_INDIRECT:
		taken = true;
		stats->calls++;
		kind = next == in->ip + in->len ? NULL : "call";
		break;
	case PS_RET:
		taken = true;
		stats->rets++;
		kind = "ret";
		break;
	case PS_SYSCALL:
		stats->syscalls++;
		resolve(st, in->ip, &src);
		event(f, "syscall", th->tid, i, time, &src, NULL);
		return;
	default:
		return;
	}
	stats->taken += taken;
	if (!kind)
		return;
	resolve(st, in->ip, &src);
	resolve(st, next, &dst);
	if (!strcmp(kind, "jump") && !strcmp(src.sym, dst.sym) && !strcmp(src.dso, dst.dso))
		return;  /* a jump within one function */
	event(f, kind, th->tid, i, time, &src, &dst);
}

static uint64_t successor(const struct ps_thread *th, size_t i, const struct ps_insn *in)
{
	if (i + 1 < th->n)
		return th->steps[i + 1].ip;
	if (in->kind == PS_CALL || in->kind == PS_JMP)
		return in->target;
	return in->kind == PS_OTHER || in->kind == PS_CPUID ? in->ip + in->len : 0;
}

/* The switch out and back in of S, where the thread resumes at step I. */
static void switch_truth(FILE *f, const struct ps_symtab *st, const struct ps_switch *s, size_t i)
{
	struct where at;

	resolve(st, s->th->steps[i].ip, &at);
	fprintf(f, "switch-out\t%d\t%zu\t%" PRIu64 "\t%" PRIx64 "\t0\t0\t%s\t-\t%s\t%s\n",
		s->th->tid, i, s->out, at.ip, at.dso, at.sym, s->preempt ? "preempt" : "blocked");
	fprintf(f, "switch-in\t%d\t%zu\t%" PRIu64 "\t%" PRIx64 "\t0\t0\t%s\t-\t%s\t-\n",
		s->th->tid, i, s->in, at.ip, at.dso, at.sym);
}

static void thread_truth(FILE *f, const struct ps_run *run, const struct ps_symtab *st,
			 const struct ps_truth_thread *t, const struct ps_clock *clock,
			 struct ps_truth_stats *stats)
{
	const struct ps_thread *th = t->th;
	const struct ps_insn *in;
	struct where start;
	size_t i, sw = 0;

	resolve(st, th->steps[t->from].ip, &start);
	fprintf(f, "thread\t%d\t%d\t%s\t%zu\t%zu\t%" PRIx64 "\t%s\t%s\n", run->pid, th->tid,
		th->comm, t->from, t->end, start.ip, start.dso, start.sym);
	for (i = t->from; i < t->end; i++) {
		in = ps_icache_get(&run->icache, th->steps[i].ip);
		while (sw < clock->n && clock->sw[sw].seq < th->steps[i].seq)
			sw++;
		if (i > t->from && sw < clock->n && clock->sw[sw].seq == th->steps[i].seq)
			switch_truth(f, st, &clock->sw[sw], i);
		if (i == t->ovf_step) {
			struct where msg = { .sym = "Overflow packet", .dso = "-" }, resume;

			resolve(st, th->steps[i].ip, &resume);
			event(f, "error", th->tid, i, ps_clock_time(clock, th->steps[i].seq), &msg,
			      &resume);
		}
		stats->steps++;
		if (i >= t->lost_from && i < t->ovf_step)
			continue;
		step_event(f, st, th, i, in, successor(th, i, in),
			   ps_clock_time(clock, th->steps[i].seq), stats);
	}
	/* the CPU faulted on the last step: the trace ends there, as at an
	 * interrupt (an async exit from the traced code) */
	if (th->fault_sig && t->end == th->n && t->end > t->from) {
		struct where at;

		resolve(st, th->steps[t->end - 1].ip, &at);
		fprintf(f, "fault\t%d\t%zu\t%" PRIu64 "\t%" PRIx64 "\t0\t0\t%s\t-\t%s\tSIG%s\n",
			th->tid, t->end - 1, ps_clock_time(clock, th->steps[t->end - 1].seq), at.ip,
			at.dso, at.sym, sigabbrev_np(th->fault_sig));
	}
	fprintf(f, "end\t%d\t%zu\n", th->tid, t->end);
}

int ps_truth_write(FILE *f, const struct ps_run *run, const struct ps_symtab *st,
		   const struct ps_truth_thread *tt, size_t nt, const struct ps_clock *clock,
		   struct ps_truth_stats *stats)
{
	size_t i;

	fprintf(f, "# ptsynth truth 1: thread PID TID COMM FIRST END START_IP START_SYM;\n"
		"# KIND TID STEP TIME SRC_IP DST_IP DST_OFF SRC_DSO DST_DSO SRC_SYM DST_SYM"
		" (fault: the signal for DST_SYM);"
		" end TID STEP\n");
	for (i = 0; i < nt; i++)
		if (tt[i].from < tt[i].end)
			thread_truth(f, run, st, &tt[i], clock, stats);
	return ferror(f) ? -EIO : 0;
}
