/* SPDX-License-Identifier: MIT */
/*
 * ptsynth: runs a program under ptrace single-step and writes a perf.data
 * whose Intel PT data encodes exactly the executed control flow, plus the
 * ground truth (truth.h). A test tool: no Intel PT hardware is needed, perf
 * decodes Intel PT in software. See tests/ptsynth/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "encode.h"
#include "perfdata.h"
#include "switches.h"
#include "repeat.h"
#include "runcache.h"
#include "symtab.h"
#include "trace.h"
#include "truth.h"
#include "version.h"

#define MAX_SNAPSHOTS 16
#define MAX_PREEMPTS 16
#define MAX_QUEUES 64

struct opts {
	const char *out, *truth, *start;
	bool noretcomp, per_cpu, task_events, bpf_records, cyc, buildid_mmap, quiet;
	unsigned tsc_every;
	int mtc;                     /* --mtc: MTC's period (CTC bit), -1: no MTC */
	unsigned cbr;                /* --cbr: the core:bus ratio of each PSB+, 0: none */
	size_t psb_every, window;
	uint64_t max_steps, time_base, ns_per_step;
	char *snap[MAX_SNAPSHOTS];   /* global step numbers or symbol names */
	size_t nsnap;
	uint64_t ovf_at, trunc_at, tsc_at;   /* global step numbers, UINT64_MAX: none */
	uint64_t block_ns;           /* every syscall blocks this long, 0: none */
	uint64_t preempt_seq[MAX_PREEMPTS], preempt_ns[MAX_PREEMPTS];
	size_t npreempt;
	char *repeat;                /* --repeat: the function */
	const char *cache;           /* --cache: the directory of traced runs */
	uint64_t repeat_times;
	const char *then;            /* --then: a second program, NULL: none */
};

/* --then's second process: run and traced on its own, on CPU 0 after the
 * first's thread there. */
struct second {
	struct ps_run run;
	struct ps_symtab st;
	struct ps_clock clock;
	uint64_t start;              /* perf time (ns): CPU 0 switches to it */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptsynth [OPTIONS] -- PROG [ARGS...]\n"
"Runs PROG under ptrace single-step (ASLR off) and writes a perf.data with\n"
"Intel PT data encoding its control flow, decodable by perf script.\n"
"  -o, --output FILE        perf.data to write (default perf.data); with several\n"
"                           snapshots FILE must hold %%d (the snapshot number)\n"
"      --truth FILE         write the ground truth (format: truth.h); %%d as -o\n"
"      --noretcomp          no return compression (every return a TIP)\n"
"      --tsc-every N        a TSC packet every N instructions (default 8)\n"
"      --psb-every BYTES    a PSB+ every BYTES of trace (default: only at start)\n"
"      --per-cpu            per-CPU AUX queues (thread k on CPU k) instead of\n"
"                           per-thread queues\n"
"      --task-events        FORK records of the threads after the first, EXIT\n"
"                           records of those traced to their end\n"
"      --mtc N              MTC packets at every 2^N CTC ticks (N <= 15; the\n"
"                           CTC runs at 2/5 of the TSC), TMA after each TSC\n"
"      --cbr N              a CBR packet of ratio N (1-255) in each PSB+, as the\n"
"                           hardware writes one\n"
"      --cyc                a CYC packet (cycle-accurate mode: attr config bit\n"
"                           cyc) before each TNT, IP and MTC packet\n"
"      --buildid-mmap       each file's build id in its MMAP2 record, as perf\n"
"                           record --buildid-mmap writes them\n"
"      --bpf-records        a KSYMBOL and a BPF_EVENT record, as perf record\n"
"                           writes of the BPF programs loaded when it starts\n"
"      --snapshot-window N  keep only the last N instructions of each thread\n"
"      --snapshot-at LIST   comma-separated snapshot points: a global step\n"
"                           number, or a function whose K-th entry (K = its\n"
"                           K-th mention) ends the snapshot; one file each\n"
"      --damage overflow@N  an OVF packet at global step N (in its thread)\n"
"      --damage truncate@N  cut the AUX data of the thread at global step N\n"
"      --damage tsc@N       flip bit 40 of the first TSC packet from global\n"
"                           step N on, in its thread (a damaged timing packet)\n"
"      --block-syscalls NS  every syscall blocks NS ns: the thread switches out\n"
"                           after it and back in before it resumes\n"
"      --preempt-at LIST    comma-separated STEP:NS: the thread running global\n"
"                           step STEP is preempted for NS ns just before it\n"
"      --start SYM          start tracing at function SYM of PROG (default\n"
"                           main; '' from the first instruction)\n"
"      --max-steps N        give up after N steps (default 2000000)\n"
"      --ns-per-step N      time between steps in ns (default 10)\n"
"      --repeat FUNC,K      in each thread, repeat K more times the steps from\n"
"                           FUNC's first entry to its second (a loop's turn):\n"
"                           a long trace from a short run (repeat.h)\n"
"      --cache DIR          keep the traced run in DIR and use it again while\n"
"                           the program and what it maps are unchanged\n"
"                           (runcache.h); the options above never change it\n"
"      --then PROG2         a second process: PROG2 (one thread, no arguments)\n"
"                           runs on CPU 0 once the first process is done, its\n"
"                           AUX data after that of the first's thread there,\n"
"                           with the switch records between them (--per-cpu;\n"
"                           no --truth, snapshot or damage)\n"
"  -q, --quiet              no summary line\n"
"  -h, --help, -V, --version\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	/* in the order of LO (an error names lo[c - O_TRUTH + 1]) */
	enum { O_TRUTH = 256, O_NORET, O_TSC, O_PSB, O_PERCPU, O_WINDOW, O_AT, O_DAMAGE,
	       O_START, O_MAX, O_NS, O_BLOCK, O_PREEMPT, O_REPEAT, O_CACHE, O_TASK, O_MTC, O_CBR, O_BPF, O_CYC,
	       O_BUILDID, O_THEN };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "truth", required_argument, NULL, O_TRUTH },
		{ "noretcomp", no_argument, NULL, O_NORET },
		{ "tsc-every", required_argument, NULL, O_TSC },
		{ "psb-every", required_argument, NULL, O_PSB },
		{ "per-cpu", no_argument, NULL, O_PERCPU },
		{ "snapshot-window", required_argument, NULL, O_WINDOW },
		{ "snapshot-at", required_argument, NULL, O_AT },
		{ "damage", required_argument, NULL, O_DAMAGE },
		{ "start", required_argument, NULL, O_START },
		{ "max-steps", required_argument, NULL, O_MAX },
		{ "ns-per-step", required_argument, NULL, O_NS },
		{ "block-syscalls", required_argument, NULL, O_BLOCK },
		{ "preempt-at", required_argument, NULL, O_PREEMPT },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "task-events", no_argument, NULL, O_TASK },
		{ "mtc", required_argument, NULL, O_MTC },
		{ "cbr", required_argument, NULL, O_CBR },
		{ "bpf-records", no_argument, NULL, O_BPF },
		{ "cyc", no_argument, NULL, O_CYC },
		{ "buildid-mmap", no_argument, NULL, O_BUILDID },
		{ "then", required_argument, NULL, O_THEN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	uint64_t v;
	char *tok, *save;
	int c;

	while ((c = getopt_long(argc, argv, "+o:qhV", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case O_TRUTH: o->truth = optarg; break;
		case O_NORET: o->noretcomp = true; break;
		case O_PERCPU: o->per_cpu = true; break;
		case O_TASK: o->task_events = true; break;
		case O_BPF: o->bpf_records = true; break;
		case O_CYC: o->cyc = true; break;
		case O_BUILDID: o->buildid_mmap = true; break;
		case O_START: o->start = optarg; break;
		case O_CACHE: o->cache = optarg; break;
		case O_THEN: o->then = optarg; break;
		case O_REPEAT: {
			char *comma = strrchr(optarg, ',');

			if (!comma || comma == optarg || parse_u64(comma + 1, &o->repeat_times) < 0) {
				diag_error("--repeat: expected FUNC,K, found '%s'", optarg);
				return -EINVAL;
			}
			*comma = 0;
			o->repeat = optarg;
			break;
		}
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': printf("ptsynth %s\n", SNAPTRACE_VERSION); exit(EXIT_OK);
		case O_TSC: case O_PSB: case O_WINDOW: case O_MAX: case O_NS: case O_BLOCK:
		case O_MTC: case O_CBR:
			if (parse_u64(optarg, &v) < 0 || (c == O_TSC && (v == 0 || v > UINT_MAX)) ||
			    (c == O_NS && v < 2) || (c == O_MTC && v > 15) ||
			    (c == O_CBR && (v == 0 || v > 255))) {
				diag_error("--%s: expected a number, found '%s'",
					   lo[c - O_TRUTH + 1].name, optarg);
				return -EINVAL;
			}
			if (c == O_TSC) o->tsc_every = (unsigned)v;
			if (c == O_PSB) o->psb_every = v;
			if (c == O_WINDOW) o->window = v;
			if (c == O_MAX) o->max_steps = v;
			if (c == O_NS) o->ns_per_step = v;
			if (c == O_BLOCK) o->block_ns = v;
			if (c == O_MTC) o->mtc = (int)v;
			if (c == O_CBR) o->cbr = (unsigned)v;
			break;
		case O_PREEMPT:
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				char *colon = strchr(tok, ':');

				if (colon)
					*colon = '\0';
				if (o->npreempt == MAX_PREEMPTS || !colon ||
				    parse_u64(tok, &o->preempt_seq[o->npreempt]) < 0 ||
				    parse_u64(colon + 1, &o->preempt_ns[o->npreempt]) < 0) {
					diag_error("--preempt-at: expected at most %d STEP:NS, "
						   "found '%s'", MAX_PREEMPTS, tok);
					return -EINVAL;
				}
				o->npreempt++;
			}
			break;
		case O_AT:
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (o->nsnap == MAX_SNAPSHOTS) {
					diag_error("--snapshot-at: at most %d snapshots",
						   MAX_SNAPSHOTS);
					return -EINVAL;
				}
				o->snap[o->nsnap++] = tok;
			}
			break;
		case O_DAMAGE:
			if (!strncmp(optarg, "overflow@", 9) &&
			    parse_u64(optarg + 9, &v) == 0) {
				o->ovf_at = v;
			} else if (!strncmp(optarg, "truncate@", 9) &&
				   parse_u64(optarg + 9, &v) == 0) {
				o->trunc_at = v;
			} else if (!strncmp(optarg, "tsc@", 4) && parse_u64(optarg + 4, &v) == 0) {
				o->tsc_at = v;
			} else {
				diag_error("--damage: expected overflow@N, truncate@N or tsc@N, "
					   "found '%s'", optarg);
				return -EINVAL;
			}
			break;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		diag_error("expected a program to run after the options, found none");
		return -EINVAL;
	}
	if (o->then && (!o->per_cpu || o->truth || o->nsnap || o->window || o->ovf_at != UINT64_MAX ||
			o->trunc_at != UINT64_MAX || o->tsc_at != UINT64_MAX)) {
		diag_error("--then: expected --per-cpu, without --truth, snapshots or damage");
		return -EINVAL;
	}
	if (o->nsnap > 1 && (!strstr(o->out, "%d") || (o->truth && !strstr(o->truth, "%d")))) {
		diag_error("several snapshots: expected %%d in the -o and --truth names");
		return -EINVAL;
	}
	return optind;
}

/* The global step after which snapshot K ends (exclusive), or 0 on error. */
static uint64_t snapshot_end(const struct opts *o, const struct ps_run *run,
			     const struct ps_symtab *st, size_t k)
{
	uint64_t v, start, best = UINT64_MAX;
	const char *name = o->snap[k];
	size_t i, j, nth = 0, seen;
	const char *sym;

	if (parse_u64(name, &v) == 0)
		return v;
	for (i = 0; i <= k; i++)
		nth += !strcmp(o->snap[i], name);
	/* the nth entry of the function over all threads, in global order */
	for (seen = 0; seen < nth; seen++) {
		uint64_t after = best == UINT64_MAX ? 0 : best + 1, next = UINT64_MAX;

		for (i = 0; i < run->nthreads; i++) {
			const struct ps_thread *th = &run->threads[i];

			for (j = 0; j < th->n; j++) {
				if (th->steps[j].seq < after || th->steps[j].seq >= next)
					continue;
				sym = ps_symtab_lookup(st, th->steps[j].ip, &start, NULL);
				if (start == th->steps[j].ip && !strcmp(sym, name)) {
					next = th->steps[j].seq;
					break;
				}
			}
		}
		if (next == UINT64_MAX)
			return 0;
		best = next;
	}
	return best + 1;
}

static char *numbered(const char *pattern, size_t k)
{
	char *s = NULL;
	const char *p = strstr(pattern, "%d");

	if (!p)
		return strdup(pattern);
	if (asprintf(&s, "%.*s%zu%s", (int)(p - pattern), pattern, k + 1, p + 2) < 0)
		return NULL;
	return s;
}

/* True when global step SEQ was executed by TH. */
static bool owns(const struct ps_thread *th, uint64_t seq)
{
	size_t i = ps_thread_step(th, seq);

	return i < th->n && th->steps[i].seq == seq;
}

/* The switch records of the steps (FROM, END) of queue Q's thread, added to
 * SW (room for CLOCK's switches twice). */
static size_t switch_records(const struct ps_clock *clock, const struct ps_thread *th,
			     size_t from, size_t end, int cpu, struct ps_pd_switch *sw, size_t n)
{
	for (size_t i = 0; i < clock->n; i++) {
		const struct ps_switch *s = &clock->sw[i];

		if (s->th != th || s->step <= from || s->step >= end)
			continue;
		sw[n++] = (struct ps_pd_switch){ .tid = th->tid, .cpu = cpu, .time = s->out,
						 .out = true, .preempt = s->preempt };
		sw[n++] = (struct ps_pd_switch){ .tid = th->tid, .cpu = cpu, .time = s->in };
	}
	return n;
}

/* The build ids of RUN's maps for their MMAP2 records (ST's symbols:
 * st->maps are run->maps, in order; the kernel names none for a mapping
 * without a file, [vdso]), or NULL when out of memory. */
static const char **build_ids(const struct ps_run *run, const struct ps_symtab *st)
{
	const char **ids = calloc(run->nmaps + 1, sizeof(*ids));

	for (size_t i = 0; ids && i < run->nmaps; i++)
		ids[i] = run->maps[i].path[0] == '[' ? "" : st->maps[i].dso->syms->build_id;
	return ids;
}

/* --then: SEC's thread encoded after queue Q's (the first process's thread
 * PREV, of process PID, on CPU 0), with the switch records between them
 * and its own added to SW (*N of them; room for SEC's clock's twice and
 * two more), and its process described in *T (but its build ids).
 * Returns 0, -ENOMEM or -EPROTO (ERR). */
static int then_encode(const struct opts *o, const struct second *sec, pid_t pid, pid_t prev,
		       struct ps_aux *q, struct ps_pd_switch *sw, size_t *n, struct ps_pd_then *t,
		       char *err, size_t errlen)
{
	const struct ps_thread *th = &sec->run.threads[0];
	struct ps_enc_opts eo = { .retcomp = !o->noretcomp, .tsc_every = o->tsc_every,
				  .psb_every = o->psb_every, .mtc = o->mtc, .cbr = o->cbr,
				  .cyc = o->cyc, .ovf_at = SIZE_MAX, .cut_at = SIZE_MAX,
				  .tsc_damage_at = SIZE_MAX, .clock = &sec->clock };
	struct ps_aux aux;
	uint8_t *data;
	size_t from = *n;
	int rc = ps_encode(th, 0, th->n, &sec->run.icache, &eo, &aux, err, errlen);
	size_t aux_end = aux.vis_end;

	if (rc < 0)
		return rc;
	data = realloc(q->data, q->len + aux.len);
	if (!data) {
		ps_aux_free(&aux);
		return -ENOMEM;
	}
	memcpy(data + q->len, aux.data, aux.len);
	q->data = data;
	q->len += aux.len;
	ps_aux_free(&aux);
	/* CPU 0 goes from the first's thread to it (its ITRACE_START between) */
	sw[(*n)++] = (struct ps_pd_switch){ .tid = prev, .cpu = 0, .time = sec->start - 1,
					    .out = true, .np_pid = sec->run.pid, .np_tid = th->tid };
	sw[(*n)++] = (struct ps_pd_switch){ .pid = sec->run.pid, .tid = th->tid, .cpu = 0,
					    .time = sec->start + 1, .np_pid = pid, .np_tid = prev };
	*n = switch_records(&sec->clock, th, 0, aux_end, 0, sw, *n);
	for (size_t i = from + 1; i < *n; i++)
		sw[i].pid = sec->run.pid;
	t->pid = sec->run.pid;
	t->comm = th->comm;
	t->maps = sec->run.maps;
	t->nmaps = sec->run.nmaps;
	t->time = sec->start;
	return 0;
}

static int write_snapshot(const struct opts *o, const struct ps_run *run,
			  const struct ps_symtab *st, const struct ps_clock *clock, size_t k,
			  uint64_t end_seq, const struct second *sec, struct ps_truth_stats *stats)
{
	struct ps_enc_opts eo = { .retcomp = !o->noretcomp, .tsc_every = o->tsc_every,
				  .psb_every = o->psb_every, .mtc = o->mtc, .cbr = o->cbr,
				  .cyc = o->cyc,
				  .clock = clock };
	struct ps_aux aux[MAX_QUEUES];
	struct ps_pd_queue q[MAX_QUEUES];
	struct ps_truth_thread tt[MAX_QUEUES];
	struct ps_pd_switch *sw = malloc((2 * clock->n + (sec ? 2 * sec->clock.n + 2 : 0) + 1) *
					 sizeof(*sw));
	struct ps_pd_then then;
	struct ps_pd pd = { .pid = run->pid, .ppid = getpid(), .mtc = o->mtc,
			    .bpf_records = o->bpf_records, .cyc = o->cyc,
			    .noretcomp = o->noretcomp, .per_cpu = o->per_cpu,
			    .snapshot = o->window || o->nsnap, .maps = run->maps,
			    .nmaps = run->nmaps, .queues = q, .meta_time = o->time_base - 1000,
			    .switches = sw };
	char err[256] = "", *out = numbered(o->out, k), *truth = NULL;
	const char **ids = o->buildid_mmap ? build_ids(run, st) : NULL;
	const char **ids2 = o->buildid_mmap && sec ? build_ids(&sec->run, &sec->st) : NULL;
	size_t i, nq = 0;
	int rc = 0;

	if (!out || !sw || (o->buildid_mmap && (!ids || (sec && !ids2))) ||
	    (o->truth && !(truth = numbered(o->truth, k)))) {
		free(out);
		free(sw);
		free(ids);
		free(ids2);
		return -ENOMEM;
	}
	pd.build_ids = ids;
	for (i = 0; i < run->nthreads && i < MAX_QUEUES && rc == 0; i++) {
		const struct ps_thread *th = &run->threads[i];
		size_t to = ps_thread_step(th, end_seq);
		size_t from = o->window && to > o->window ? to - o->window : 0;

		if (from >= to)
			continue;
		eo.ovf_at = o->ovf_at != UINT64_MAX && owns(th, o->ovf_at) ?
			ps_thread_step(th, o->ovf_at) : SIZE_MAX;
		eo.cut_at = o->trunc_at != UINT64_MAX && owns(th, o->trunc_at) ?
			ps_thread_step(th, o->trunc_at) : SIZE_MAX;
		eo.tsc_damage_at = o->tsc_at != UINT64_MAX && owns(th, o->tsc_at) ?
			ps_thread_step(th, o->tsc_at) : SIZE_MAX;
		rc = ps_encode(th, from, to, &run->icache, &eo, &aux[nq], err, sizeof(err));
		tt[nq] = (struct ps_truth_thread){ .th = th, .from = from,
						   .end = aux[nq].vis_end,
						   .ovf_step = aux[nq].ovf_step,
						   .lost_from = aux[nq].lost_from };
		q[nq] = (struct ps_pd_queue){ .tid = th->tid, .comm = th->comm,
					      .data = aux[nq].data, .len = aux[nq].len };
		if (o->task_events) {
			/* cloned half a step before its first step; exited half a
			 * step after its last */
			if (i > 0 && from == 0)
				q[nq].fork_time = ps_clock_time(clock, th->steps[0].seq) -
						  o->ns_per_step / 2;
			if (to == th->n)
				q[nq].exit_time = ps_clock_time(clock, th->steps[to - 1].seq) +
						  o->ns_per_step / 2;
		}
		pd.nswitches = switch_records(clock, th, from, aux[nq].vis_end,
					      o->per_cpu ? (int)nq : 0, sw, pd.nswitches);
		nq++;
	}
	pd.nqueues = nq;
	if (rc == 0 && sec && nq) {
		rc = then_encode(o, sec, run->pid, q[0].tid, &aux[0], sw, &pd.nswitches, &then, err,
				 sizeof(err));
		q[0].data = aux[0].data;
		q[0].len = aux[0].len;
		then.build_ids = ids2;
		pd.then = &then;
	}
	if (rc < 0)
		diag_error("encoding: %s", err[0] ? err : strerror(-rc));
	else if ((rc = ps_perf_write(out, &pd)) < 0)
		diag_error("%s: cannot write: %s", out, strerror(-rc));
	if (rc == 0 && truth) {
		FILE *f = fopen(truth, "w");

		rc = f ? ps_truth_write(f, run, st, tt, nq, clock, stats) : -errno;
		if (f && fclose(f) && rc == 0)
			rc = -EIO;
		if (rc < 0)
			diag_error("%s: cannot write: %s", truth, strerror(-rc));
	}
	for (i = 0; i < nq; i++)
		ps_aux_free(&aux[i]);
	free(out);
	free(truth);
	free(sw);
	free(ids);
	free(ids2);
	return rc;
}

/* --then: traces O->then into SEC, to start on CPU 0 once RUN (timed by
 * CLOCK) is done. Returns 0, or -1 after saying why. */
static int second_trace(const struct opts *o, const struct ps_run *run,
			const struct ps_clock *clock, struct second *sec)
{
	char *argv[] = { (char *)o->then, NULL }, err[512] = "";
	uint64_t end = 0;
	int rc, cached;

	memset(sec, 0, sizeof(*sec));
	rc = o->cache ? ps_runcache_trace(o->cache, &sec->run, argv, o->start, o->max_steps,
					  &cached, err, sizeof(err)) :
			ps_run_trace(&sec->run, argv, o->start, o->max_steps, err, sizeof(err));
	if (rc < 0) {
		diag_error("%s: %s", o->then, err[0] ? err : strerror(-rc));
		return -1;
	}
	if (sec->run.nthreads != 1 || !sec->run.threads[0].n) {
		diag_error("--then %s: expected a program of one thread, found %zu", o->then,
			   sec->run.nthreads);
		return -1;
	}
	if (ps_symtab_load(&sec->st, &sec->run) < 0) {
		diag_error("out of memory");
		return -1;
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct ps_thread *th = &run->threads[i];
		uint64_t t = th->n ? ps_clock_time(clock, th->steps[th->n - 1].seq) : 0;

		if (t > end)
			end = t;
	}
	/* the first's last step, a switch out, ITRACE_START and a switch in,
	 * then its first step */
	sec->start = end + o->ns_per_step;
	rc = ps_clock_init(&sec->clock, &sec->run, sec->start + o->ns_per_step, o->ns_per_step,
			   o->block_ns, NULL, NULL, 0, err, sizeof(err));
	if (rc < 0) {
		diag_error("--then %s: %s", o->then, rc == -EINVAL ? err : "out of memory");
		return -1;
	}
	return 0;
}

static void second_free(struct second *sec)
{
	ps_clock_free(&sec->clock);
	ps_symtab_free(&sec->st);
	ps_run_free(&sec->run);
}

int main(int argc, char **argv)
{
	struct opts o = { .out = "perf.data", .start = "main", .tsc_every = 8, .mtc = -1,
			  .max_steps = 2000000, .time_base = 1000000000, .ns_per_step = 10,
			  .ovf_at = UINT64_MAX, .trunc_at = UINT64_MAX, .tsc_at = UINT64_MAX };
	struct ps_truth_stats stats = { 0 };
	struct ps_clock clock;
	struct ps_run run;
	struct ps_symtab st;
	struct second sec;
	char err[512];
	size_t k, nsnap;
	int first, rc, cached = 0;

	diag_init(argv[0]);
	first = parse_args(argc, argv, &o);
	if (first < 0)
		return EXIT_USAGE;
	rc = o.cache ? ps_runcache_trace(o.cache, &run, argv + first, o.start, o.max_steps,
					 &cached, err, sizeof(err)) :
		       ps_run_trace(&run, argv + first, o.start, o.max_steps, err, sizeof(err));
	if (rc < 0) {
		diag_error("%s: %s", argv[first], err[0] ? err : strerror(-rc));
		ps_run_free(&run);
		return EXIT_RUNTIME;
	}
	if (ps_symtab_load(&st, &run) < 0) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (o.repeat && (rc = ps_repeat(&run, &st, o.repeat, o.repeat_times)) <= 0) {
		diag_error("--repeat: %s", rc < 0 ? "out of memory" :
			   "no thread enters the function twice");
		ps_symtab_free(&st);
		ps_run_free(&run);
		return EXIT_RUNTIME;
	}
	rc = 0;
	rc = ps_clock_init(&clock, &run, o.time_base, o.ns_per_step, o.block_ns, o.preempt_seq,
			   o.preempt_ns, o.npreempt, err, sizeof(err));
	if (rc < 0) {
		diag_error("%s", rc == -EINVAL ? err : "out of memory");
		ps_symtab_free(&st);
		ps_run_free(&run);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (o.then && second_trace(&o, &run, &clock, &sec) < 0)
		rc = -1;
	nsnap = o.nsnap ? o.nsnap : 1;
	for (k = 0; k < nsnap && rc == 0; k++) {
		uint64_t end = o.nsnap ? snapshot_end(&o, &run, &st, k) : UINT64_MAX;

		if (!end) {
			diag_error("--snapshot-at: expected a step number or a function that runs, "
				   "found '%s'", o.snap[k]);
			rc = -EINVAL;
			break;
		}
		rc = write_snapshot(&o, &run, &st, &clock, k, end, o.then ? &sec : NULL, &stats);
	}
	if (rc == 0 && !o.quiet)
		fprintf(stderr, "ptsynth: %s: %" PRIu64 " steps%s (%" PRIu64 " filled after cpuid), "
			"%zu threads; traced %" PRIu64 " instructions, %" PRIu64 " taken branches, "
			"%" PRIu64 " calls, %" PRIu64 " returns, %" PRIu64 " syscalls\n",
			argv[first], run.nsteps, cached ? " (traced before)" : "", run.filled, run.nthreads, stats.steps, stats.taken,
			stats.calls, stats.rets, stats.syscalls);
	if (o.then)
		second_free(&sec);
	ps_clock_free(&clock);
	ps_symtab_free(&st);
	ps_run_free(&run);
	return rc == 0 ? EXIT_OK : EXIT_RUNTIME;
}
