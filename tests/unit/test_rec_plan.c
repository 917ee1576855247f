/* SPDX-License-Identifier: MIT */
/* Unit tests of record/plan: perf command lines and snapshot methods. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arming.h"
#include "events.h"
#include "plan.h"
#include "slowring.h"
#include "unit.h"

static struct rec_opts default_opts(void)
{
	struct rec_opts o = {
		.mode = REC_MODE_PT,
		.timer_res = REC_RES_NORMAL,
		.callgraph = REC_CG_FP,
		.sampling_freq = 5000,
		.min_interval_ns = 100000000,
		.arm_after_s = -1,
	};
	return o;
}

static struct rec_host host(const char *version)
{
	struct rec_host h;

	memset(&h, 0, sizeof(h));
	strcpy(h.perf_path, "/usr/bin/perf");
	perf_version_parse(version, &h.perf_version);
	for (int i = 0; i < PERF_FEAT_COUNT; i++)
		h.feat[i] = perf_version_has(&h.perf_version, i) == 1;
	h.pt_psb_cyc = 1;
	h.has_intel_pt = true;
	h.uprobe_type = -1;
	return h;
}

static const char *line(const struct rec_plan *p)
{
	static char buf[4096];

	return rec_plan_format(p, buf, sizeof(buf));
}

static void plan_pages(void)
{
	CHECK_INT_EQ(rec_plan_pages(1), 1);
	CHECK_INT_EQ(rec_plan_pages(4096), 1);
	CHECK_INT_EQ(rec_plan_pages(4097), 2);
	CHECK_INT_EQ(rec_plan_pages(3 * 4096), 4);
	CHECK_INT_EQ(rec_plan_pages(4 << 20), 1024);
	CHECK_INT_EQ(rec_plan_pages((4 << 20) + 1), 2048);
}

static void plan_pt_snapshot_methods(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h;
	struct rec_plan p;

	h = host("perf version 6.1.187");
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "42", "d/perf.data", &p), 0);
	CHECK_INT_EQ(p.mode, REC_MODE_PT);
	CHECK_INT_EQ(p.snap, REC_SNAP_CONTROL);
	CHECK(p.control && p.snapshot_on_exit && !p.switch_output);
	CHECK_INT_EQ(p.clockid, -1);	/* perf's own clock: its TSC conversion's */
	h = host("perf version 5.4.0");
	rec_plan_build(&o, &h, "-t", "42", "d/perf.data", &p);
	CHECK_INT_EQ(p.snap, REC_SNAP_AT_STOP);
	CHECK(!p.control);
	h = host("perf version 4.19.0");
	rec_plan_build(&o, &h, "-t", "42", "d/perf.data", &p);
	CHECK_INT_EQ(p.snap, REC_SNAP_SIGNAL_BLIND);
	CHECK_INT_EQ(p.nnotes, 2);     /* no --snapshot=e: nothing kept on exit; no --buildid-mmap */
	CHECK(strstr(p.notes[0], "--buildid-mmap") && strstr(p.notes[1], "--snapshot=e"));
	o.multi_snapshot = true;
	rec_plan_build(&o, &h, "-t", "42", "d/perf.data", &p);
	CHECK_INT_EQ(p.snap, REC_SNAP_SIGNAL_DUMP);
	CHECK(p.switch_output);
}

static void plan_pt_psb_cyc_fallback(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;

	h.pt_psb_cyc = 0;
	o.timer_res = REC_RES_HIGH;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "1", "perf.data", &p), 0);
	CHECK_STR_EQ(p.event, "intel_pt//u");
	CHECK(p.nnotes >= 1 && strstr(p.notes[0], "psb_cyc"));
}

/* The signals: signal:signal_deliver in perf's normal ring with the
 * recording's filter (the --trigger signal in it), a call chain of its own
 * beside Intel PT and with frame pointers; nothing where the host allows no
 * tracepoint. */
static void plan_signals(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;
	const char *l;

	o.mode = REC_MODE_SAMPLING;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	CHECK(!strstr(line(&p), "signal:"));
	h.sched_switch = true;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	l = line(&p);
	/* with frame pointers, the chain unwound from a stack copy (the C
	 * library that raises SIGABRT has none) */
	CHECK(strstr(l, " -e signal:signal_deliver/call-graph=dwarf,stack-size=8192/ --filter "
		     "'sig == 4 || "));
	CHECK(strstr(l, "sig == 11 || sig == 31 || (sa_handler == 0 && (sig == 1 || "));
	/* SIGUSR1 only when it ends the program */
	CHECK(strstr(l, "sig == 31 || (sa_handler == 0 && (") &&
	      strstr(l, "|| sig == 10 || sig == 12 ||"));
	o.trigger = "signal:usr1";
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	CHECK(strstr(line(&p), "sig == 31 || sig == 10 || (sa_handler == 0"));
	o.trigger = NULL;
	o.mode = REC_MODE_PT;
	h.has_intel_pt = true;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	CHECK(strstr(line(&p), " -e signal:signal_deliver/call-graph=fp/ --filter '"));
}

static void plan_sampling(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;

	o.mode = REC_MODE_SAMPLING;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK_STR_EQ(line(&p), "/usr/bin/perf record -o d/perf.data --timestamp --no-buildid-cache "
		     "--no-bpf-event "
		     "-e dummy:u -e cpu-clock/freq=5000,overwrite/u --call-graph fp --buildid-mmap "
		     "-k mono --per-thread -t 7 --switch-events "
		     "--switch-output=signal --delay=-1 --control=fd:3,4");
	CHECK(!p.sched_switch);
	CHECK_INT_EQ(p.clockid, CLOCK_MONOTONIC);	/* what perf inject --jit needs */
	CHECK(p.nnotes >= 1 && strstr(p.notes[0], "sched:sched_switch"));
	/* a perf with --buildid-mmap is never said to lack it (it was, with
	 * no off-CPU stack twin, trial 11) */
	for (int i = 0; i < p.nnotes; i++)
		CHECK(!strstr(p.notes[i], "--buildid-mmap"));
	CHECK_INT_EQ(p.snap, REC_SNAP_SIGNAL_DUMP);
	CHECK(p.freeze);
	CHECK_STR_EQ(p.unwinder, "fp");
	h.has_hw_pmu = true;
	h.sched_switch = true;
	o.multi_snapshot = true;
	rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p);
	CHECK_STR_EQ(p.event, "cycles/freq=5000,overwrite/u");
	/* the tracepoint has no -F: it samples every switch, with its call
	 * chain, and its twin the same switch with the chain unwound from a
	 * stack copy; the dummy records the data mappings that unwinding reads */
	CHECK(p.sched_switch);
	CHECK_INT_EQ(p.switch_stack, REC_SWITCH_STACK_BYTES);
	CHECK(strstr(line(&p), " -e dummy/call-graph=dwarf/u -e cycles/freq=5000,overwrite/u "
		     "-e sched:sched_switch/overwrite/ -e context-switches/period=1,overwrite,"
		     "call-graph=dwarf,stack-size=512/ "));
	CHECK(!strstr(line(&p), " -F ") && !strstr(line(&p), "--per-thread"));
	o.full_execution = true;
	o.multi_snapshot = false;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	/* the signal's chain unwound from a copy too (the C library raises
	 * SIGABRT without frame pointers), and -d: the read-only mappings of
	 * the binaries mapped before perf started, which that unwinding reads */
	CHECK(strstr(line(&p), " -e cycles/freq=5000/u -e sched:sched_switch "
		     "-e context-switches/period=1,call-graph=dwarf,stack-size=512/ "
		     "-e signal:signal_deliver/call-graph=dwarf,stack-size=8192/ --filter "));
	CHECK(strstr(line(&p), " --call-graph fp --buildid-mmap -d "));
	o.full_execution = false;
	o.multi_snapshot = true;
	CHECK(!p.freeze);     /* multi-snapshot keeps recording through snapshots */
	/* the twin only where the stacks come from frame pointers */
	for (enum rec_callgraph cg = REC_CG_DWARF; cg <= REC_CG_LBR; cg++) {
		o.callgraph = cg;
		rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p);
		CHECK(p.switch_stack == 0 && !strstr(line(&p), "context-switches") &&
		      strstr(line(&p), " -e dummy:u ") && !strstr(line(&p), " -d ") &&
		      strstr(line(&p), " -e signal:signal_deliver --filter "));
	}
	o.callgraph = REC_CG_FP;
	o.mode = REC_MODE_AUTO;
	h.has_intel_pt = false;
	rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p);
	CHECK_INT_EQ(p.mode, REC_MODE_SAMPLING);
	h.has_intel_pt = true;
	rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p);
	CHECK_INT_EQ(p.mode, REC_MODE_PT);
}

/* --event EVENT[/PERIOD]: what is read, and the -e argument for each kind
 * of event in each ring. */
static void plan_events(void)
{
	static const struct {
		const char *spec;
		bool overwrite, kernel;
		const char *arg;       /* NULL: refused */
	} cases[] = {
		/* the sampling always given: freq=REC_EVENT_FREQ, a tracepoint's
		 * period=1 (issue 24, trial 14: perf's default, unsaid) */
		{ "page-faults", true, false, "page-faults/freq=4000,overwrite/u" },
		{ "page-faults", false, false, "page-faults/freq=4000/u" },
		{ "page-faults", false, true, "page-faults/freq=4000/" },
		{ "branch-misses/50", false, false, "branch-misses/period=50/u" },
		{ "branch-misses/50", true, true, "branch-misses/period=50,overwrite/" },
		{ "sched:sched_wakeup", true, false, "sched:sched_wakeup/period=1,overwrite/" },
		{ "sched:sched_wakeup/3", false, false, "sched:sched_wakeup/period=3/" },
		{ "cpu/event=0x3c/", true, false, "cpu/event=0x3c,freq=4000,overwrite/u" },
		{ "cpu/event=0x3c/", false, false, "cpu/event=0x3c,freq=4000/u" },
		{ "cpu/event=0x3c//9", false, true, "cpu/event=0x3c,period=9/" },
		/* its own terms' sampling, left alone */
		{ "cpu/event=0x3c,period=99/", false, false, "cpu/event=0x3c,period=99/u" },
		{ "cpu/freq=10,event=0x3c/", true, false, "cpu/freq=10,event=0x3c,overwrite/u" },
		{ "branch-misses:u", false, false, NULL },      /* modifiers are the recorder's */
		{ "cpu/event=0x3c/u", false, false, NULL },
		{ "branch-misses/0", false, false, NULL },
		{ "branch-misses/4611686018427387905", false, false, NULL },  /* 2^62 + 1 */
		{ "/5", false, false, NULL },
		{ "", false, false, NULL },
		{ "cache misses", false, false, NULL },
		{ "page-faults/", false, false, NULL },
		{ "page-faults,cycles", false, false, NULL },
		{ "{cycles,instructions}", false, false, NULL },
		{ "cpu//", true, false, "cpu/freq=4000,overwrite/u" },
	};
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rec_event ev;
		char buf[256];
		int r = rec_event_parse(cases[i].spec, &ev);

		if (!cases[i].arg) {
			CHECK_INT_EQ(r, -EINVAL);
			continue;
		}
		CHECK_INT_EQ(r, 0);
		if (r)
			continue;
		CHECK(rec_event_arg(&ev, cases[i].overwrite, cases[i].kernel, buf, sizeof(buf)) > 0);
		CHECK_STR_EQ(buf, cases[i].arg);
		CHECK_INT_EQ(rec_event_arg(&ev, cases[i].overwrite, cases[i].kernel, buf, 4), -E2BIG);
	}
	/* a /PERIOD and a period= or freq= term: two samplings, refused, the
	 * term named (issue 24: the term won and /N was silently ignored) */
	{
		static const struct { const char *spec, *term; } both[] = {
			{ "cpu/event=0x3c,period=99//5", "period=99" },
			{ "cpu/freq=10,event=0x3c//5", "freq=10" },
			{ "cpu/event=0x3c,freq=7//1", "freq=7" },
		};
		struct rec_event ev;
		const char *term;

		for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
			CHECK_INT_EQ(rec_event_parse(both[i].spec, &ev), -EEXIST);
			CHECK_INT_EQ(rec_event_own_term(&ev, &term), (int)strlen(both[i].term));
			CHECK(!strncmp(term, both[i].term, strlen(both[i].term)));
		}
		CHECK_INT_EQ(rec_event_parse("cpu/event=0x3c,period=99/", &ev), 0);
		CHECK_INT_EQ(rec_event_own_term(&ev, &term), 9);
		CHECK_INT_EQ(rec_event_parse("cpu/event=0x3c//5", &ev), 0);
		CHECK_INT_EQ(rec_event_own_term(&ev, &term), 0);
		CHECK_INT_EQ(rec_event_parse("cpu/myperiod=3//5", &ev), 0);
		CHECK_INT_EQ(rec_event_own_term(&ev, &term), 0);
	}
	/* in the command line: beside the samples (their ring), beside intel_pt */
	CHECK_INT_EQ(rec_event_parse("page-faults", &o.events[0]), 0);
	CHECK_INT_EQ(rec_event_parse("branch-misses/50", &o.events[1]), 0);
	o.nevents = 2;
	o.mode = REC_MODE_SAMPLING;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(strstr(line(&p), " -e cpu-clock/freq=5000,overwrite/u -e page-faults/freq=4000,overwrite/u "
		     "-e branch-misses/period=50,overwrite/u --call-graph "));
	o.mode = REC_MODE_PT;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(strstr(line(&p), "/u -e page-faults/freq=4000/u -e branch-misses/period=50/u --buildid-mmap "
		     "--per-thread "));
}

/* An option the mode does not use is a warning; perf < 5.12 keeps build ids its own way. */
static void plan_ignored_options(void)
{
	static const struct {
		enum rec_mode mode;
		enum rec_timer_res res;
		enum rec_callgraph cg;
		const char *warning;   /* NULL: none */
	} cases[] = {
		{ REC_MODE_SAMPLING, REC_RES_NORMAL, REC_CG_DWARF, NULL },
		{ REC_MODE_SAMPLING, REC_RES_HIGH, REC_CG_FP, "--timer-resolution is ignored" },
		{ REC_MODE_PT, REC_RES_HIGH, REC_CG_FP, NULL },
		{ REC_MODE_PT, REC_RES_NORMAL, REC_CG_DWARF, "--callgraph is ignored" },
	};
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o.mode = cases[i].mode;
		o.timer_res = cases[i].res;
		o.callgraph = cases[i].cg;
		rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
		CHECK_INT_EQ(p.nwarnings, cases[i].warning != NULL);
		CHECK(!cases[i].warning || strstr(p.warnings[0], cases[i].warning));
	}
	o = default_opts();
	o.mode = REC_MODE_SAMPLING;
	h = host("perf version 5.11.0");
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	CHECK(!strstr(line(&p), "--buildid-mmap"));
	CHECK(strstr(line(&p), " --no-buildid-cache "));	/* never into ~/.debug */
	bool noted = false;
	for (int i = 0; i < p.nnotes; i++)
		noted |= strstr(p.notes[i], "--buildid-mmap") != NULL;
	CHECK(noted);
}

/* A target of another user's: perf record opens none of its mapped files
 * by name (docs/design.md "Threat model"): --no-buildid, no --buildid-mmap
 * (whose synthesis opens them), in both modes, whatever perf's version. */
static void plan_others_mapped(void)
{
	static const char *const versions[] = { "perf version 6.1.187", "perf version 5.11.0" };
	static const enum rec_mode modes[] = { REC_MODE_SAMPLING, REC_MODE_PT };

	for (unsigned v = 0; v < 2; v++)
		for (unsigned m = 0; m < 2; m++) {
			struct rec_opts o = default_opts();
			struct rec_host h = host(versions[v]);
			struct rec_plan p;

			o.mode = modes[m];
			o.others_mapped = true;
			CHECK_INT_EQ(rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p), 0);
			CHECK(strstr(line(&p), " --no-buildid "));
			CHECK(!strstr(line(&p), "--buildid-mmap"));
			for (int i = 0; i < p.nnotes; i++)
				CHECK(!strstr(p.notes[i], "--buildid-mmap"));
			o.others_mapped = false;
			CHECK_INT_EQ(rec_plan_build(&o, &h, "-p", "7", "d/perf.data", &p), 0);
			CHECK(!strstr(line(&p), " --no-buildid "));
			CHECK(!v == (strstr(line(&p), " --buildid-mmap ") != NULL));
		}
}

static void plan_invalid(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;
	const char *many[REC_PLAN_MAX_ARGS];

	o.full_execution = o.multi_snapshot = true;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "1", "perf.data", &p), -EINVAL);
	o = default_opts();
	for (int i = 0; i < REC_PLAN_MAX_ARGS; i++)
		many[i] = "--x";
	o.perf_args = many;
	o.nperf_args = REC_PLAN_MAX_ARGS;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "1", "perf.data", &p), -E2BIG);
}

/* A slow-call threshold under 3 sampling periods gets a note naming
 * --measure and the frequency that would do; 3 periods or more, none. */
static void plan_slow_call_note(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;
	bool found = false;

	o.mode = REC_MODE_SAMPLING;
	o.sampling_freq = 5000;          /* 200 us periods */
	o.slower_than_ns = 599999;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	for (int i = 0; i < p.nnotes; i++)
		found |= strstr(p.notes[i], "--trigger-slower-than 599.999 us is under 3 sampling "
			       "periods") && strstr(p.notes[i], "--measure") &&
			 strstr(p.notes[i], "--sampling-freq above 5000");
	CHECK(found);
	o.slower_than_ns = 600000;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	for (int i = 0; i < p.nnotes; i++)
		CHECK(!strstr(p.notes[i], "sampling periods"));
	o.mode = REC_MODE_PT;
	h.has_intel_pt = true;
	o.slower_than_ns = 1000;
	rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p);
	for (int i = 0; i < p.nnotes; i++)
		CHECK(!strstr(p.notes[i], "sampling periods"));
}

/* The -m pages of plan P's perf command line, 0 without -m. */
static unsigned long ring_pages(const struct rec_plan *p)
{
	for (int i = 0; i + 1 < p->argc; i++)
		if (!strcmp(p->argv[i], "-m"))
			return strtoul(p->argv[i + 1], NULL, 10);
	return 0;
}

/* Whether one of P's warnings holds WORDS. */
static bool warned(const struct rec_plan *p, const char *words)
{
	for (int i = 0; i < p->nwarnings; i++)
		if (strstr(p->warnings[i], words))
			return true;
	return false;
}

/*
 * A slow-call threshold sizes the ring to hold the call: with dwarf each
 * sample copies 8 KiB of stack, so 20 ms at 5000 Hz is at least 100 samples
 * of 8 KiB (the reference: the stack copies alone, not the recorder's
 * estimate); frame pointers fit perf's default; not root, or past the cap,
 * or a smaller --snapshot-size: a warning naming the --snapshot-size that
 * would hold it.
 */
static void plan_slow_call_ring(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;

	h.root = true;
	o.mode = REC_MODE_SAMPLING;
	o.callgraph = REC_CG_DWARF;
	o.slower_than_ns = 20000000;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(ring_pages(&p) * 4096 >= 100ul * 8192);
	CHECK_INT_EQ(p.nwarnings, 0);
	o.callgraph = REC_CG_FP;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(ring_pages(&p) == 0);
	CHECK_INT_EQ(p.nwarnings, 0);
	/* not root: perf's default ring, and why the call may not fit */
	o.callgraph = REC_CG_DWARF;
	h.root = false;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(ring_pages(&p) == 0);
	CHECK(warned(&p, "--callgraph dwarf") && warned(&p, "--snapshot-size") &&
	      warned(&p, "perf_event_mlock_kb"));
	/* the user's --snapshot-size is kept, and said to be too small */
	h.root = true;
	o.snapshot_size = 512 << 10;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(ring_pages(&p) == 128);
	CHECK(warned(&p, "--trigger-slower-than 20 ms"));
	/* 10 s of dwarf samples: capped, and said */
	o.snapshot_size = 0;
	o.slower_than_ns = 10000000000ull;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	CHECK(ring_pages(&p) * 4096 <= (256ul << 20));
	CHECK(warned(&p, "the most the recorder asks for"));
}

static void plan_format_quotes(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_plan p;
	const char *args[] = { "--symfs=/a b", "it's" };
	char small[16];

	o.perf_args = args;
	o.nperf_args = 2;
	rec_plan_build(&o, &h, "-t", "1", "perf.data", &p);
	CHECK(strstr(line(&p), " '--symfs=/a b' 'it'\\''s'"));
	/* a short buffer is cut, never overrun, and stays terminated */
	rec_plan_format(&p, small, sizeof(small));
	CHECK_INT_EQ(strlen(small), sizeof(small) - 1);
}

/* When the trigger arms: the ring's fill time by mode, unwinder, ring size
 * and privileges (capped), --arm-after, or at once without a ring. One
 * estimate of a sample's bytes (issue 24: arming.c said 8,300 for dwarf,
 * slowring.c 8,488): both use perf's sample as perf 6.1 writes it, the
 * reference being what perf report -D showed of a recording here (the
 * recorder's own events): a dwarf sample 0x2100 bytes whatever the stack;
 * so a dwarf ring fills at 8,448 bytes a sample, and a ring that holds
 * one second of 1000 dwarf samples holds 1000 x 8,448 bytes and a quarter
 * for the switch records. */
static void plan_arming(void)
{
	struct rec_opts o = default_opts();
	struct rec_host h = host("perf version 6.1.187");
	struct rec_arming a;
	struct rec_plan p;
	char buf[400];

	o.mode = REC_MODE_SAMPLING;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	rec_arming_decide(&o, &h, &p, &a);
	CHECK_INT_EQ(a.by, REC_ARM_RING);
	CHECK_INT_EQ((int)a.fill_ms, 873);   /* 512 KiB / (120 B x 5000/s) */
	CHECK(a.after_ms == a.fill_ms);
	CHECK(strstr(rec_arming_describe(&a, buf, sizeof(buf)), "trigger armed after 874 ms: "
		     "the ring fills in about 874 ms (512 KiB at about 120 bytes a sample (fp), "
		     "5000 samples a second)"));
	o.callgraph = REC_CG_DWARF;
	o.snapshot_size = 3 << 20;           /* perf rounds it up to 4 MiB */
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	rec_arming_decide(&o, &h, &p, &a);
	CHECK_INT_EQ((int)a.fill_ms, 99);    /* 4 MiB / (8448 B x 5000/s) */
	CHECK(strstr(rec_arming_describe(&a, buf, sizeof(buf)), "at about 8448 bytes a sample "
		     "(dwarf)") != NULL);
	CHECK(rec_slow_ring_bytes(1000000000ull, 1000, REC_CG_DWARF) == 1000ull * 8448 * 5 / 4);
	o.callgraph = REC_CG_FP;
	o.snapshot_size = 0;
	o.sampling_freq = 100;               /* 43.7 s to fill: capped */
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	rec_arming_decide(&o, &h, &p, &a);
	CHECK(a.fill_ms > 43000 && a.after_ms == REC_ARM_MAX_MS);
	CHECK(strstr(rec_arming_describe(&a, buf, sizeof(buf)), "(the longest it waits)"));
	o = default_opts();                  /* Intel PT: the AUX ring at 100 MB/s */
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	h.root = true;
	rec_arming_decide(&o, &h, &p, &a);
	CHECK_INT_EQ((int)a.fill_ms, 41);    /* 4 MiB */
	h.root = false;
	rec_arming_decide(&o, &h, &p, &a);
	CHECK_INT_EQ((int)a.fill_ms, 1);     /* 128 KiB */
	o.arm_after_s = 0.25;
	rec_arming_decide(&o, &h, &p, &a);
	CHECK(a.by == REC_ARM_OPTION && a.after_ms == 250);
	o.arm_after_s = -1;
	o.full_execution = true;
	CHECK_INT_EQ(rec_plan_build(&o, &h, "-t", "7", "d/perf.data", &p), 0);
	rec_arming_decide(&o, &h, &p, &a);
	CHECK(a.by == REC_ARM_AT_ONCE && a.after_ms == 0);
}

int main(void)
{
	UNIT_RUN(plan_pages);
	UNIT_RUN(plan_pt_snapshot_methods);
	UNIT_RUN(plan_pt_psb_cyc_fallback);
	UNIT_RUN(plan_sampling);
	UNIT_RUN(plan_signals);
	UNIT_RUN(plan_events);
	UNIT_RUN(plan_ignored_options);
	UNIT_RUN(plan_others_mapped);
	UNIT_RUN(plan_invalid);
	UNIT_RUN(plan_format_quotes);
	UNIT_RUN(plan_slow_call_note);
	UNIT_RUN(plan_slow_call_ring);
	UNIT_RUN(plan_arming);
	return unit_exit();
}
