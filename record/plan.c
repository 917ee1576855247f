/* SPDX-License-Identifier: MIT */
#include "plan.h"
#include "slowring.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "events.h"
#include "numparse.h"
#include "signals.h"
#include "trigspec.h"

/* Appends one formatted argument; returns 0 or -E2BIG. */
static int __attribute__((format(printf, 2, 3))) arg(struct rec_plan *p, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(p->storage) - p->used;
	int n;

	if (p->argc + 1 >= REC_PLAN_MAX_ARGS)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(p->storage + p->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return -E2BIG;
	p->argv[p->argc++] = p->storage + p->used;
	p->argv[p->argc] = NULL;
	p->used += (size_t)n + 1;
	return 0;
}

static void __attribute__((format(printf, 2, 3))) note(struct rec_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes >= REC_PLAN_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}

/* An option the plan ignores (checked against its default: rec_opts cannot
 * tell an option given from one left alone). */
static void ignored(struct rec_plan *p, const char *option, const char *why)
{
	if (p->nwarnings < REC_PLAN_MAX_NOTES)
		snprintf(p->warnings[p->nwarnings++], sizeof(p->warnings[0]),
			 "%s is ignored: %s", option, why);
}

void rec_plan_print_notes(const struct rec_plan *p)
{
	for (int i = 0; i < p->nnotes; i++)
		diag_info("note: %s", p->notes[i]);
	for (int i = 0; i < p->nwarnings; i++)
		diag_warn("%s", p->warnings[i]);
}

unsigned long rec_plan_pages(unsigned long long bytes)
{
	unsigned long long pages = (bytes + 4095) / 4096;
	unsigned long p = 1;

	while (p < pages && p < (1UL << 30))
		p <<= 1;
	return p;
}

static const char *pt_config(const struct rec_opts *o, const struct rec_host *h,
			     struct rec_plan *p)
{
	enum rec_timer_res res = o->timer_res;

	if (res != REC_RES_LOW && h->pt_psb_cyc == 0) {
		note(p, "this CPU's Intel PT lacks caps/psb_cyc: using --timer-resolution low");
		res = REC_RES_LOW;
	}
	switch (res) {
	case REC_RES_LOW:
		return "";
	case REC_RES_NORMAL:
		return "cyc=1,cyc_thresh=1,mtc_period=0";
	case REC_RES_HIGH:
		return "cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1";
	}
	return "";
}

/* perf's --call-graph name (AUTO is resolved before the plan: fp). */
static const char *callgraph_name(enum rec_callgraph cg)
{
	static const char *const name[] = {
		[REC_CG_FP] = "fp", [REC_CG_DWARF] = "dwarf", [REC_CG_LBR] = "lbr",
	};

	return cg < sizeof(name) / sizeof(name[0]) && name[cg] ? name[cg] : "fp";
}

/*
 * The recorded tasks. One thread (-t) gets --per-thread: one ring for the
 * thread rather than one per CPU, so a snapshot is the thread's newest
 * contiguous stretch (a CPU ring it left early would keep a stale fragment
 * of its past). Processes (-p) keep perf's per-CPU rings: perf 6.1's
 * --per-thread -p records no thread created after it started (seen with the
 * demo's worker).
 */
static int target_args(const char *flag, const char *targets, struct rec_plan *p)
{
	int err = 0;

	if (!strcmp(flag, "-t"))
		err |= arg(p, "--per-thread");
	err |= arg(p, "%s", flag);
	err |= arg(p, "%s", targets);
	return err;
}

/* The --event events, each "-e ARG" (record/events.h): in PT mode beside
 * intel_pt in perf's normal ring (as magic-trace records branch-misses), in
 * sampling mode in the samples' overwritable ring (OVERWRITE), so a
 * snapshot holds the same stretch of both. */
static int event_args(const struct rec_opts *o, bool overwrite, struct rec_plan *p)
{
	int err = 0;

	for (int i = 0; i < o->nevents; i++) {
		char e[256];

		if (rec_event_arg(&o->events[i], overwrite, o->kernel, e, sizeof(e)) < 0)
			return -1;
		err |= arg(p, "-e");
		err |= arg(p, "%s", e);
	}
	return err;
}

/*
 * The signals the program receives (docs/design.md "Signals and the exit"):
 * signal:signal_deliver in perf's normal ring (never displacing the
 * samples of the overwritable ring, and kept from the start), filtered in
 * the kernel to the signals a recording watches, with the call chain where
 * the thread was: the sampling mode's --call-graph, fp beside Intel PT
 * (where the trace itself ends at the fault), and in place of frame
 * pointers a stack copy unwound with .eh_frame (REC_SIGNAL_STACK_BYTES:
 * an abort is raised in the C library, which has none; the dummy records
 * the data mappings that unwinding reads, as for the switches' twins).
 * Where the host allows tracepoints (as for sched:sched_switch).
 */
static int signal_args(const struct rec_opts *o, const struct rec_host *h, struct rec_plan *p)
{
	char filter[512];
	int trigger = rec_trigspec_signal(o->trigger), err = 0;

	if (!h->sched_switch)
		return 0;
	err |= arg(p, "-e");
	if (p->mode == REC_MODE_PT)
		err |= arg(p, "signal:signal_deliver/call-graph=fp/");
	else if (p->switch_stack)
		err |= arg(p, "signal:signal_deliver/call-graph=dwarf,stack-size=%u/",
			   REC_SIGNAL_STACK_BYTES);
	else
		err |= arg(p, "signal:signal_deliver");
	err |= arg(p, "--filter");
	err |= arg(p, "%s", sig_deliver_filter(trigger > 0 ? trigger : 0, filter, sizeof(filter)));
	return err;
}

/*
 * --buildid-mmap (perf >= 5.12), in both modes: the kernel puts each file's
 * build id in the mmap events of what is mapped while perf records, so perf
 * record reads no such file itself (without it perf opens every binary the
 * recording maps, as root, through the traced process's mount namespace:
 * nsinfo__mountns_enter(), to collect the build-id table when it writes a
 * snapshot, and skips the build-id cache only then: docs/design.md "Threat
 * model"), a binary rebuilt before the conversion is told apart, and a
 * snapshot stays quick (no reading the whole file back for the table). The
 * files mapped when perf starts it still opens by the name /proc/PID/maps
 * gives, to read their build ids: so where another user names what a
 * target maps (o->others_mapped: their process, or a file where they may
 * change a name), who may leave a FIFO or a symbolic link at such a name,
 * perf gets --no-buildid instead and no --buildid-mmap: it opens none of
 * the mapped files (the recorder reads their build ids from the mapped
 * files themselves: record/mapids.h). Returns 0 or -E2BIG.
 */
static int buildid_args(const struct rec_opts *o, const struct rec_host *h, struct rec_plan *p)
{
	if (o->others_mapped)
		return arg(p, "--no-buildid");
	if (h->feat[PERF_FEAT_BUILDID_MMAP])
		return arg(p, "--buildid-mmap");
	note(p, "perf < 5.12 has no --buildid-mmap: perf collects the build ids "
	     "when it writes each snapshot, which makes snapshots slower");
	return 0;
}

/* The PT-specific part of the command line. */
static int pt_args(const struct rec_opts *o, const struct rec_host *h, const char *flag,
		   const char *targets, struct rec_plan *p)
{
	int err = 0;

	snprintf(p->event, sizeof(p->event), "intel_pt/%s/%s", pt_config(o, h, p),
		 o->kernel ? "uk" : "u");
	err |= arg(p, "-e");
	err |= arg(p, "%s", p->event);
	err |= event_args(o, false, p);
	err |= signal_args(o, h, p);
	err |= buildid_args(o, h, p);
	err |= target_args(flag, targets, p);
	if (!o->full_execution) {
		p->snapshot_on_exit = h->feat[PERF_FEAT_SNAPSHOT_ON_EXIT];
		err |= arg(p, "%s", p->snapshot_on_exit ? "--snapshot=e" : "--snapshot");
		if (!p->snapshot_on_exit)
			note(p, "perf < 5.4 has no --snapshot=e: if the target exits before "
			     "the trigger, nothing is kept");
	}
	if (o->snapshot_size)
		err |= arg(p, "-m,%lu", rec_plan_pages(o->snapshot_size));
	if (o->callgraph != REC_CG_FP)
		ignored(p, "--callgraph", "Intel PT records every call and return; call "
			"graphs are for sampling mode");
	if (o->kernel) {
		if (h->feat[PERF_FEAT_KCORE])
			err |= arg(p, "--kcore");
		else
			note(p, "perf < 5.5 has no --kcore: kernel code is decoded from the "
			     "running kernel's image at conversion time");
	}
	if (o->full_execution)
		p->snap = REC_SNAP_AT_STOP;
	else if (o->multi_snapshot)
		p->snap = REC_SNAP_SIGNAL_DUMP;
	else if (p->control)
		p->snap = REC_SNAP_CONTROL;
	else if (p->snapshot_on_exit)
		p->snap = REC_SNAP_AT_STOP;
	else
		p->snap = REC_SNAP_SIGNAL_BLIND;
	p->switch_output = p->snap == REC_SNAP_SIGNAL_DUMP;
	return err ? -E2BIG : 0;
}

/* The events of a sampling recording (sampling_args(): the sampled one,
 * the dummy, the switches and their stacks, --event's); its p->event,
 * p->sched_switch and p->switch_stack. Returns 0 or -E2BIG. */
static int sampling_events(const struct rec_opts *o, const struct rec_host *h,
			   struct rec_plan *p)
{
	const char *sel = o->kernel ? "" : "u";
	const char *ow = o->full_execution ? "" : ",overwrite";
	int err = 0;

	snprintf(p->event, sizeof(p->event), "%s/freq=%u%s/%s",
		 h->has_hw_pmu ? "cycles" : "cpu-clock", o->sampling_freq, ow, sel);
	p->sched_switch = h->sched_switch;
	p->switch_stack = p->sched_switch && o->callgraph == REC_CG_FP ? REC_SWITCH_STACK_BYTES : 0;
	err |= arg(p, "-e");
	/* the dummy's call-graph=dwarf term makes perf record the data
	 * mappings on it (mmap_data): its unwinder reads a library's
	 * .eh_frame_hdr through the process's read-only mapping */
	if (p->switch_stack)
		err |= arg(p, "dummy/call-graph=dwarf/%s", sel);
	else
		err |= arg(p, "dummy%s%s", *sel ? ":" : "", sel);
	/* REC_PLAN_SAMPLED_EVENT: second, after the dummy */
	err |= arg(p, "-e");
	err |= arg(p, "%s", p->event);
	err |= event_args(o, *ow, p);
	if (p->sched_switch) {
		err |= arg(p, "-e");
		err |= arg(p, "sched:sched_switch%s", *ow ? "/overwrite/" : "");
	}
	if (p->switch_stack) {
		/* every switch out again, its user stack unwound from a copy
		 * (docs/design.md "The caller a library hides"): fired by the
		 * scheduler in the thread leaving, so never :u */
		err |= arg(p, "-e");
		err |= arg(p, "context-switches/period=1%s,call-graph=dwarf,stack-size=%u/", ow,
			   p->switch_stack);
	}
	if (!p->sched_switch) {
		note(p, "sched:sched_switch needs root (CAP_PERFMON) or "
		     "kernel.perf_event_paranoid -1 and a readable tracefs: off-CPU time "
		     "comes from switch events alone, without the stack it blocked in");
	}
	return err;
}

/*
 * Sampling: the samples go to an overwritable ring (event term "overwrite")
 * while a dummy event, listed first so that perf puts the mmap/comm tracking
 * (and the --switch-events records) on it, writes to a normal ring. A global
 * --overwrite would make perf synthesize the target's existing mappings only
 * when a snapshot is written (tail synthesis), which finds nothing once the
 * target has exited; this way every snapshot file starts with them.
 * --buildid-mmap: buildid_args(). The frequency is an event term, not -F: -F would
 * also put sched:sched_switch in frequency mode (the kernel then raises its
 * period and drops switches); a tracepoint left alone samples every hit. Its
 * samples carry the call chain the thread blocked or was preempted in.
 */
static int sampling_args(const struct rec_opts *o, const struct rec_host *h, const char *flag,
			 const char *targets, struct rec_plan *p)
{
	char why[sizeof(p->warnings[0])], dur[32];
	uint64_t ring;
	int err = sampling_events(o, h, p);

	err |= signal_args(o, h, p);
	p->unwinder = callgraph_name(o->callgraph);
	err |= arg(p, "--call-graph");
	err |= arg(p, "%s", p->unwinder);
	err |= buildid_args(o, h, p);
	/* stacks unwound from copies (the switches' twins, the signals) read
	 * each binary's .eh_frame_hdr through its read-only mapping: -d has
	 * perf list those of the mappings it finds at the start too (a
	 * launched program's executable and loader, every library of an
	 * attached process), as perf does itself for --call-graph dwarf */
	if (p->switch_stack)
		err |= arg(p, "-d");
	if (o->timer_res != REC_RES_NORMAL)
		ignored(p, "--timer-resolution", "it sets Intel PT timing, and this "
			"recording samples");
	if (o->full_execution) {
		p->snap = REC_SNAP_AT_STOP;
	} else {
		p->snap = REC_SNAP_SIGNAL_DUMP;
		p->switch_output = true;
		/* multi-snapshot keeps recording: no gap after each snapshot */
		p->freeze = p->control && !o->multi_snapshot;
	}
	/* a slow call's ring holds the call from its entry, a running ring
	 * the time perf takes to write a snapshot (slowring.h) */
	ring = rec_slow_ring_pick(o, h->root, p->unwinder,
				  p->snap == REC_SNAP_SIGNAL_DUMP && !p->freeze, why, sizeof(why));
	p->ring_bytes = ring;
	if (ring) {
		err |= arg(p, "-m");
		err |= arg(p, "%lu", rec_plan_pages(ring));
	}
	if (why[0] && p->nwarnings < REC_PLAN_MAX_NOTES)
		snprintf(p->warnings[p->nwarnings++], sizeof(p->warnings[0]), "%s", why);
	/* CLOCK_MONOTONIC: what `perf inject --jit` needs to place a JIT's
	 * jitdump (it refuses any other clock), and the programs' own clock */
	p->clockid = CLOCK_MONOTONIC;
	err |= arg(p, "-k");
	err |= arg(p, "mono");
	err |= target_args(flag, targets, p);
	/* a slow call of a few periods holds a sample or two: nothing of its inside */
	if (o->slower_than_ns && o->sampling_freq &&
	    o->slower_than_ns < REC_SLOW_PERIODS * (1000000000ull / o->sampling_freq))
		note(p, "--trigger-slower-than %s is under %d sampling periods: the trace "
		     "shows a sample or two of such a call, not its inside; --measure draws "
		     "each call, or --sampling-freq above %llu",
		     num_duration_text(o->slower_than_ns, dur, sizeof(dur)),
		     REC_SLOW_PERIODS,
		     (unsigned long long)(REC_SLOW_PERIODS * 1000000000ull / o->slower_than_ns));
	if (o->callgraph == REC_CG_FP)
		note(p, "call stacks come from frame pointers (--callgraph fp): a leaf "
		     "function without a frame shows directly under its grandparent; "
		     "--callgraph dwarf has no such gap");
	return err ? -E2BIG : 0;
}

int rec_plan_build(const struct rec_opts *o, const struct rec_host *h, const char *target_flag,
		   const char *targets, const char *out, struct rec_plan *p)
{
	int err = 0, i;

	memset(p, 0, sizeof(*p));
	p->clockid = -1;
	if (o->full_execution && o->multi_snapshot)
		return -EINVAL;
	p->mode = o->mode == REC_MODE_AUTO ? rec_host_auto_mode(h) : o->mode;
	p->multi_snapshot = o->multi_snapshot;
	p->full_execution = o->full_execution;
	p->min_interval_ns = o->min_interval_ns;
	p->duration_s = o->duration_s;
	p->slower_than_ns = o->slower_than_ns;
	p->control = h->feat[PERF_FEAT_CONTROL];
	err |= arg(p, "%s", h->perf_path[0] ? h->perf_path : "perf");
	err |= arg(p, "record");
	err |= arg(p, "-o");
	err |= arg(p, "%s", out);
	p->output = p->argv[p->argc - 1];
	err |= arg(p, "--timestamp");
	/* nothing into root's build-id cache (~/.debug), which perf script
	 * would take for any binary of the same build id: another user's
	 * program could name the frames of root's later traces (docs/design.md
	 * "Threat model"); --keep-binaries keeps them in the recording */
	err |= arg(p, "--no-buildid-cache");
	/* perf's BPF side-band thread polls with a 1 s timeout: stopping waits for it */
	if (h->feat[PERF_FEAT_NO_BPF_EVENT])
		err |= arg(p, "--no-bpf-event");
	if (err)
		return -E2BIG;
	if (p->mode == REC_MODE_PT)
		err = pt_args(o, h, target_flag, targets, p);
	else
		err = sampling_args(o, h, target_flag, targets, p);
	if (err)
		return err;
	/* PERF_RECORD_SWITCH on the tracking event: when the thread left and
	 * came back to a CPU, the off-CPU time in every mode */
	err |= arg(p, "--switch-events");
	if (p->switch_output)
		err |= arg(p, "--switch-output=signal");
	if (p->control) {
		err |= arg(p, "--delay=-1");
		err |= arg(p, "--control=fd:%d,%d", REC_PERF_CTL_FD, REC_PERF_ACK_FD);
	}
	for (i = 0; i < o->nperf_args; i++)
		err |= arg(p, "%s", o->perf_args[i]);
	return err ? -E2BIG : 0;
}

char *rec_plan_describe(const struct rec_plan *p, bool trigger, char *buf, size_t size)
{
	const char *mode = p->mode == REC_MODE_PT ? "Intel PT" : "sampling";
	char hit[80] = "the trigger", each[80] = "each trigger hit", stop[64] = "";

	char dur[32];

	if (p->slower_than_ns) {
		num_duration_text(p->slower_than_ns, dur, sizeof(dur));
		snprintf(hit, sizeof(hit), "a call slower than %s", dur);
		snprintf(each, sizeof(each), "each call slower than %s", dur);
	}
	if (p->duration_s > 0)
		snprintf(stop, sizeof(stop), "; stops after %s",
			 num_duration_text((uint64_t)(p->duration_s * 1e9 + 0.5), dur, sizeof(dur)));
	if (p->full_execution)
		snprintf(buf, size, "%s, everything from the start (no ring buffer), until %s%s",
			 mode, trigger ? hit : "the end", stop);
	else if (!trigger)
		snprintf(buf, size, "%s, no trigger: a snapshot of the ring buffer at the end%s",
			 mode, stop);
	else if (p->multi_snapshot)
		snprintf(buf, size, "%s, a snapshot at %s%s%s, until the end%s", mode, each,
			 p->min_interval_ns ? ", at most one per " : "",
			 p->min_interval_ns ? num_duration_text(p->min_interval_ns, dur, sizeof(dur)) : "",
			 stop);
	else
		snprintf(buf, size, "%s, a ring buffer until %s%s", mode, hit, stop);
	return buf;
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_=/.,:+@%", *s))
			return true;
	return false;
}

char *rec_plan_format(const struct rec_plan *p, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < p->argc && len + 1 < size; i++) {
		const char *s = p->argv[i];

		if (i)
			buf[len++] = ' ';
		if (!needs_quotes(s)) {
			len += (size_t)snprintf(buf + len, size - len, "%s", s);
			continue;
		}
		buf[len++] = '\'';
		for (; *s && len + 5 < size; s++) {
			if (*s == '\'') {
				memcpy(buf + len, "'\\''", 4);
				len += 4;
			} else {
				buf[len++] = *s;
			}
		}
		if (len + 1 < size)
			buf[len++] = '\'';
		buf[len < size ? len : size - 1] = '\0';
	}
	if (len >= size)
		len = size - 1;
	buf[len] = '\0';
	return buf;
}
