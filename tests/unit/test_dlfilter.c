/* SPDX-License-Identifier: MIT */
/*
 * snaptrace-dlfilter.so against a stand-in perf: the test loads the filter
 * the program directory holds (beside this test's, ../../bin), gives it
 * perf's dlfilter functions over a model of processes (images mapped,
 * unmapped and exec'd, tids reused, symbol names freed and allocated anew as
 * perf does), and feeds it the branch samples of random but valid control
 * flow. Every record it writes must say what perf's own resolution of that
 * sample says at that moment (the text path's line), however the filter got
 * there (its per-thread symbols, call sites, the last sample's symbol); a
 * same-symbol jump may be a TICK or nothing, never a BRANCH.
 */
#include <perf/perf_dlfilter.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binrec.h"
#include "unit.h"

#define STEPS 200000
#define MAX_DEPTH 40        /* deeper than the filter keeps call sites */
#define NTHREADS 4

/* A symbol of an image, in dso addresses. */
struct msym {
	const char *name;
	uint64_t start, end;
};

/* A dso as mapped: its symbols (a gap between some has no symbol). */
struct image {
	const char *dso;
	uint64_t base;          /* run-time address of dso address DSO_VADDR */
	const struct msym *syms;
	int nsyms;
	const char *comm;       /* for a main image: the comm an exec gives */
};

#define DSO_VADDR 0x1000

static const struct msym a_syms[] = {
	{ "a_main", 0x1000, 0x1100 }, { "a_f", 0x1100, 0x1180 }, { "a_g", 0x1180, 0x1300 },
	{ "a_h", 0x1300, 0x1400 }, { "a_i", 0x1500, 0x1600 },	/* [0x1400, 0x1500): no symbol */
};
static const struct msym b_syms[] = {	/* the same addresses, other symbols */
	{ "b_main", 0x1000, 0x1040 }, { "b_x", 0x1040, 0x10f0 }, { "b_y", 0x10f0, 0x1200 },
	{ "b_z", 0x1200, 0x1600 },
};
static const struct msym l_syms[] = {
	{ "write", 0x1000, 0x1080 }, { "execve", 0x1080, 0x1100 }, { "mmap", 0x1100, 0x1200 },
	{ "memcpy", 0x1200, 0x1400 },
};
static const struct msym p_syms[] = { { "plugin_run", 0x1000, 0x1200 }, { "plugin_aux", 0x1200, 0x1300 } };
static const struct msym q_syms[] = { { "other_a", 0x1000, 0x1080 }, { "other_b", 0x1080, 0x1300 } };
static const struct msym k_syms[] = { { "entry_SYSCALL_64", 0x1000, 0x1100 }, { "do_syscall_64", 0x1100, 0x1400 } };

#define IMG(d, b, s, c) { d, b, s, (int)(sizeof(s) / sizeof(s[0])), c }
static const struct image images[] = {
	IMG("/usr/bin/a", 0x400000, a_syms, "a"),
	IMG("/usr/bin/b", 0x400000, b_syms, "b"),
	IMG("/usr/bin/b2", 0x400000, b_syms, "a"),  /* another binary, the same comm as a */
	IMG("/usr/lib/libc.so.6", 0x7f0000000000, l_syms, NULL),
	IMG("/usr/lib/plugin1.so", 0x7e0000000000, p_syms, NULL),
	IMG("/usr/lib/plugin2.so", 0x7e0000000000, q_syms, NULL),
	IMG("[kernel.kallsyms]", 0xffffffff81000000, k_syms, NULL),
};
enum { IMG_A, IMG_B, IMG_B2, IMG_LIBC, IMG_P1, IMG_P2, IMG_KERNEL, SLOTS = 4 };

/* A mapping: an image with the strings perf made for it (freed at unmap:
 * a later mapping may get the same pointers for other names). */
struct mapping {
	int image;              /* -1: none */
	char *dso;
	char **names;
};

struct process {
	int pid;
	const char *comm;       /* interned: perf shares one string per name */
	struct mapping slot[SLOTS];  /* main, libc, plugin, kernel */
};

struct mthread {
	int tid;
	struct process *proc;
	uint64_t pc;
	uint64_t stack[MAX_DEPTH];
	int depth;
};

/* The stand-in perf. */
static struct {
	struct process procs[NTHREADS];
	struct mthread threads[NTHREADS];
	int next_pid;
	struct perf_dlfilter_sample sample;
	struct perf_dlfilter_al ip_al, addr_al;
	unsigned long resolve_addr_calls, resolve_ip_calls;
	uint64_t rng;
} perf;

static uint64_t rnd(uint64_t n)
{
	perf.rng ^= perf.rng << 13;
	perf.rng ^= perf.rng >> 7;
	perf.rng ^= perf.rng << 17;
	return perf.rng % n;
}

static void map_image(struct mapping *m, int image)
{
	const struct image *im = &images[image];

	if (m->image >= 0) {
		for (int i = 0; i < images[m->image].nsyms; i++)
			free(m->names[i]);
		free(m->names);
		free(m->dso);
	}
	m->image = image;
	m->dso = strdup(im->dso);
	m->names = calloc((size_t)im->nsyms, sizeof(*m->names));
	for (int i = 0; i < im->nsyms; i++)
		m->names[i] = strdup(im->syms[i].name);
}

/* perf's resolution of ADDR in process P into AL; false outside every map. */
static bool resolve(const struct process *p, uint64_t addr, struct perf_dlfilter_al *al)
{
	memset(al, 0, sizeof(*al));
	al->size = sizeof(*al);
	for (int s = 0; s < SLOTS; s++) {
		const struct mapping *m = &p->slot[s];
		const struct image *im;
		uint64_t d;

		if (m->image < 0)
			continue;
		im = &images[m->image];
		if (addr < im->base || addr - im->base >= 0x1000)
			continue;
		d = addr - im->base + DSO_VADDR;
		al->addr = d;
		al->dso = m->dso;
		al->comm = p->comm;
		for (int i = 0; i < im->nsyms; i++)
			if (d >= im->syms[i].start && d < im->syms[i].end) {
				al->sym = m->names[i];
				al->sym_start = im->syms[i].start;
				al->sym_end = im->syms[i].end;
				al->symoff = (uint32_t)(d - al->sym_start);
			}
		return true;
	}
	al->comm = p->comm;
	return false;
}

/* The process of the sample's thread. */
static const struct process *sample_process(void)
{
	for (int i = 0; i < NTHREADS; i++)
		if (perf.threads[i].tid == perf.sample.tid)
			return perf.threads[i].proc;
	return NULL;
}

static const struct perf_dlfilter_al *fake_resolve_ip(void *ctx)
{
	(void)ctx;
	perf.resolve_ip_calls++;
	resolve(sample_process(), perf.sample.ip, &perf.ip_al);
	return &perf.ip_al;
}

static const struct perf_dlfilter_al *fake_resolve_addr(void *ctx)
{
	(void)ctx;
	perf.resolve_addr_calls++;
	resolve(sample_process(), perf.sample.addr, &perf.addr_al);
	return &perf.addr_al;
}

/* What perf's line of a sample shows: its locations as perf resolved them. */
struct expect {
	bool text;              /* the filter left it to perf's text */
	bool jump_within;       /* a jump within one symbol: TICK or nothing */
	int pid, tid;
	uint64_t time;
	uint32_t flags;         /* converter bits */
	struct { uint64_t ip, symoff; char sym[32], dso[32]; } from, to;
	char comm[16];
};

static struct expect *expects;
static size_t nexpects;

static void note_loc(const struct process *p, uint64_t addr, uint64_t *ip, uint64_t *symoff,
		     char *sym, char *dso)
{
	struct perf_dlfilter_al al;

	resolve(p, addr, &al);
	*ip = addr;
	*symoff = al.sym ? al.addr - al.sym_start : 0;
	snprintf(sym, 32, "%s", al.sym ? al.sym : "");
	snprintf(dso, 32, "%s", al.dso ? al.dso : "");
}

static int (*filter)(void *, const struct perf_dlfilter_sample *, void *);
static void *filter_data;
static uint64_t now = 1000;

/* Feeds one sample of thread T (a branch from IP to ADDR, perf's FLAGS,
 * converter bits CONV) to the filter; perf prints it when the filter
 * leaves it. */
static void sample(struct mthread *t, uint64_t ip, uint64_t addr, uint32_t flags, uint32_t bits)
{
	struct expect *e = &expects[nexpects++];
	struct perf_dlfilter_al a, b;

	now += rnd(3);	/* equal times happen */
	perf.sample = (struct perf_dlfilter_sample){ .size = sizeof(perf.sample), .ip = ip,
		.pid = t->proc->pid, .tid = t->tid, .time = now, .addr = addr, .flags = flags,
		.addr_correlates_sym = 1, .event = "branches" };
	memset(e, 0, sizeof(*e));
	e->pid = t->proc->pid;
	e->tid = t->tid;
	e->time = now;
	e->flags = bits;
	snprintf(e->comm, sizeof(e->comm), "%s", t->proc->comm);
	note_loc(t->proc, ip, &e->from.ip, &e->from.symoff, e->from.sym, e->from.dso);
	note_loc(t->proc, addr, &e->to.ip, &e->to.symoff, e->to.sym, e->to.dso);
	resolve(t->proc, ip, &a);
	resolve(t->proc, addr, &b);
	e->jump_within = (bits & ~(BINREC_F_JCC | BINREC_F_JMP)) == 0 && a.sym == b.sym && a.dso == b.dso;
	if (!filter(filter_data, &perf.sample, NULL)) {
		e->text = true;
		printf("text %zu\n", nexpects - 1);	/* perf prints the line */
	}
}

/* A random address inside the symbol holding PC in process P (PC itself
 * when it is in no symbol), at least ROOM bytes before its end. */
static uint64_t inside(const struct process *p, uint64_t pc, uint64_t room)
{
	struct perf_dlfilter_al al;
	uint64_t lo, len;

	if (!resolve(p, pc, &al) || !al.sym)
		return pc;
	lo = pc - (al.addr - al.sym_start);
	len = al.sym_end - al.sym_start;
	return len > room ? lo + rnd(len - room) : lo;
}

/* The start of a random symbol mapped in P's user slots (main, libc, plugin). */
static uint64_t some_function(const struct process *p)
{
	for (;;) {
		const struct mapping *m = &p->slot[rnd(3)];
		const struct image *im;

		if (m->image < 0)
			continue;
		im = &images[m->image];
		if (rnd(8) == 0)	/* the gap without a symbol */
			return im->base + 0x400 + rnd(0x100);
		return im->base + im->syms[rnd((uint64_t)im->nsyms)].start - DSO_VADDR;
	}
}

static const char *comm_of(int image)
{
	return images[image].comm;	/* interned: one pointer per name */
}

static void new_process(struct mthread *t, struct process *p)
{
	p->pid = perf.next_pid++;
	map_image(&p->slot[0], (int)rnd(3));
	map_image(&p->slot[1], IMG_LIBC);
	map_image(&p->slot[2], rnd(2) ? IMG_P1 : IMG_P2);
	map_image(&p->slot[3], IMG_KERNEL);
	p->comm = comm_of(p->slot[0].image);
	t->proc = p;
	t->depth = 0;
	t->pc = images[p->slot[0].image].base;
}

/* A syscall of thread T that runs CHANGE inside the kernel: traced with the
 * kernel (branches into and out of it) or user-only (perf prints a trace
 * end and start around it). */
static void in_syscall(struct mthread *t, bool kernel, void (*change)(struct mthread *))
{
	uint64_t ip = inside(t->proc, t->pc, 2), k = images[IMG_KERNEL].base;
	uint32_t sys = PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_SYSCALLRET;

	if (kernel) {
		sample(t, ip, k, sys | PERF_DLFILTER_FLAG_CALL, BINREC_F_SYSCALL);
		sample(t, k + 0x10, k + 0x100, PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_CALL,
		       BINREC_F_CALL);
		change(t);
		sample(t, k + 0x120, k + 0x20, PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_RETURN,
		       BINREC_F_RETURN);
		t->pc = t->pc ? t->pc : ip + 2;
		sample(t, k + 0x30, t->pc, sys | PERF_DLFILTER_FLAG_RETURN, BINREC_F_SYSRET);
	} else {
		sample(t, ip, 0, PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_CALL |
		       PERF_DLFILTER_FLAG_TRACE_END, 0);
		change(t);
		t->pc = t->pc ? t->pc : ip + 2;
		sample(t, 0, t->pc, PERF_DLFILTER_FLAG_BRANCH | PERF_DLFILTER_FLAG_TRACE_BEGIN, 0);
	}
}

static void swap_plugin(struct mthread *t)
{
	struct mapping *m = &t->proc->slot[2];

	map_image(m, m->image == IMG_P1 ? IMG_P2 : IMG_P1);
	t->pc = 0;	/* back where it was */
}

static void exec_image(struct mthread *t)
{
	int image = (int)rnd(3);

	map_image(&t->proc->slot[0], image);
	map_image(&t->proc->slot[2], rnd(2) ? IMG_P1 : IMG_P2);
	t->proc->comm = comm_of(image);
	t->depth = 0;
	t->pc = images[image].base + rnd(0x40);
}

/* One step of a random thread's control flow. */
static void step(void)
{
	struct mthread *t = &perf.threads[rnd(NTHREADS)];
	struct process *p = t->proc;
	uint64_t r = rnd(100), ip, to;
	const uint32_t B = PERF_DLFILTER_FLAG_BRANCH;

	if (r < 45) {           /* a jump within the function */
		bool cond = rnd(2);

		ip = inside(p, t->pc, 0);
		to = inside(p, t->pc, 0);
		sample(t, ip, to, B | (cond ? PERF_DLFILTER_FLAG_CONDITIONAL : 0),
		       cond ? BINREC_F_JCC : BINREC_F_JMP);
		t->pc = to;
	} else if (r < 50) {    /* a tail jump */
		ip = inside(p, t->pc, 0);
		to = some_function(p);
		sample(t, ip, to, B, BINREC_F_JMP);
		t->pc = to;
	} else if (r < 72) {    /* a call */
		ip = inside(p, t->pc, 5);
		to = some_function(p);
		sample(t, ip, to, B | PERF_DLFILTER_FLAG_CALL, BINREC_F_CALL);
		if (t->depth < MAX_DEPTH)
			t->stack[t->depth++] = ip + 5;
		t->pc = to;
	} else if (r < 94) {    /* a return */
		if (!t->depth)
			return;
		ip = inside(p, t->pc, 0);
		to = t->stack[--t->depth];
		sample(t, ip, to, B | PERF_DLFILTER_FLAG_RETURN, BINREC_F_RETURN);
		t->pc = to;
	} else if (r < 96) {    /* a plugin unloaded, another loaded at its addresses */
		in_syscall(t, rnd(2), swap_plugin);
	} else if (r < 97 && p != &perf.procs[0]) {
		in_syscall(t, rnd(2), exec_image);
	} else if (r < 98 && p != &perf.procs[0]) {
		/* the thread exits; its tid comes back in a new process */
		new_process(t, p);
	} else {                /* a decode error, a switch record */
		printf("perf says something about %d\n", t->tid);
	}
}

/* The strings the stream defined, by id. */
static char **strings;
static size_t nstrings;

/* String ID of the stream ("" for 0 or one never defined). */
#define STR(id) ((id) < nstrings && strings[id] ? strings[id] : "")

/* Reads what the filter and "perf" wrote (FILE) against the expectations. */
static void check_output(FILE *f)
{
	struct binrec_header h;
	size_t next = 0, branches = 0, ticks = 0, versions = 0;
	char buf[70000];

	rewind(f);
	for (;;) {
		int c = fgetc(f);

		if (c == EOF)
			break;
		if (c != BINREC_MARK) {
			size_t idx;

			ungetc(c, f);
			if (!fgets(buf, sizeof(buf), f))
				break;
			if (sscanf(buf, "text %zu", &idx) == 1) {
				for (; next < idx; next++)	/* same-symbol jumps left out */
					if (!expects[next].jump_within || expects[next].text) {
						UNIT_FAIL("sample %zu: no record before text %zu", next, idx);
						return;
					}
				next = idx + 1;
			}
			continue;
		}
		ungetc(c, f);
		if (fread(&h, sizeof(h), 1, f) != 1 || h.size < sizeof(h) ||
		    fread(buf + sizeof(h), h.size - sizeof(h), 1, f) != 1) {
			UNIT_FAIL("a record cut short");
			return;
		}
		memcpy(buf, &h, sizeof(h));
		if (h.type == BINREC_VERSION) {
			uint32_t format;

			memcpy(&format, buf + 4, 4);
			if (versions++ || next || branches || ticks || h.size != 8 ||
			    format != BINREC_FORMAT) {
				UNIT_FAIL("a version record (format %u, %u bytes) not first or not "
					  "format %u", format, h.size, BINREC_FORMAT);
				return;
			}
			continue;
		}
		if (!versions) {
			UNIT_FAIL("a record of type %u before the version record", h.type);
			return;
		}
		if (h.type == BINREC_STRING) {
			uint32_t id;

			memcpy(&id, buf + 4, 4);
			if (id >= nstrings) {	/* ids come in order: one more */
				strings = realloc(strings, (id + 1) * sizeof(*strings));
				for (; nstrings <= id; nstrings++)
					strings[nstrings] = NULL;
			}
			free(strings[id]);
			strings[id] = strndup(buf + 8, h.size - 8);
			continue;
		}
		if (h.type == BINREC_TICK) {
			struct binrec_tick k;

			memcpy(&k, buf, sizeof(k));
			while (next < nexpects && expects[next].jump_within && !expects[next].text &&
			       (expects[next].tid != k.tid || expects[next].time != k.time))
				next++;
			if (next >= nexpects || !expects[next].jump_within || expects[next].text) {
				UNIT_FAIL("a TICK of %d at %" PRIu64 " for no same-symbol jump (sample %zu)",
					  k.tid, k.time, next);
				return;
			}
			next++;
			ticks++;
			continue;
		}
		{
			struct binrec_branch r;
			const struct expect *e;

			memcpy(&r, buf, sizeof(r));
			while (next < nexpects && expects[next].jump_within && !expects[next].text)
				next++;	/* left out: the thread's last record was at that time */
			if (next >= nexpects) {
				UNIT_FAIL("a BRANCH for no sample");
				return;
			}
			e = &expects[next++];
			branches++;
			if (e->text || e->jump_within || r.tid != e->tid || r.pid != e->pid ||
			    r.time != e->time || r.flags != e->flags || r.from.ip != e->from.ip ||
			    r.to.ip != e->to.ip || r.from.symoff != e->from.symoff ||
			    r.to.symoff != e->to.symoff || strcmp(STR(r.from.sym), e->from.sym) ||
			    strcmp(STR(r.to.sym), e->to.sym) || strcmp(STR(r.from.dso), e->from.dso) ||
			    strcmp(STR(r.to.dso), e->to.dso) || strcmp(STR(r.comm), e->comm)) {
				UNIT_FAIL("sample %zu: BRANCH %s+%#" PRIx64 " (%s) -> %s+%#" PRIx64 " (%s) "
					  "comm %s, perf says %s+%#" PRIx64 " (%s) -> %s+%#" PRIx64 " (%s) "
					  "comm %s%s", next - 1, STR(r.from.sym), r.from.symoff,
					  STR(r.from.dso), STR(r.to.sym), r.to.symoff,
					  STR(r.to.dso), STR(r.comm), e->from.sym, e->from.symoff,
					  e->from.dso, e->to.sym, e->to.symoff, e->to.dso, e->comm,
					  e->text ? " as text" : e->jump_within ? " (a jump within)" : "");
				return;
			}
		}
	}
	for (; next < nexpects; next++)
		if (!expects[next].jump_within || expects[next].text) {
			UNIT_FAIL("sample %zu: no record", next);
			return;
		}
	/* the run went through the filter's shortcuts, not only perf's lookups */
	CHECK(branches > 10000 && ticks > 10000);
	CHECK(perf.resolve_addr_calls < branches * 9 / 10);
	CHECK(perf.resolve_ip_calls < nexpects * 9 / 10);
}

static void filter_matches_perf(void)
{
	char self[PATH_MAX], so[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct perf_dlfilter_fns *fns;
	int (*start_fn)(void **, void *), (*stop_fn)(void *, void *);
	void *h;
	FILE *out;
	int saved;

	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(so, sizeof(so), "%s/../../bin/snaptrace-dlfilter.so", self);
	h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		UNIT_FAIL("dlopen %s: %s", so, dlerror());
		return;
	}
	fns = dlsym(h, "perf_dlfilter_fns");
	start_fn = (int (*)(void **, void *))dlsym(h, "start");
	stop_fn = (int (*)(void *, void *))dlsym(h, "stop");
	filter = (int (*)(void *, const struct perf_dlfilter_sample *, void *))
		dlsym(h, "filter_event_early");
	CHECK(fns && start_fn && stop_fn && filter);
	if (!fns || !start_fn || !stop_fn || !filter)
		return;
	fns->resolve_ip = fake_resolve_ip;
	fns->resolve_addr = fake_resolve_addr;

	expects = calloc(STEPS * 4 + 16, sizeof(*expects));
	out = tmpfile();
	CHECK(expects && out);
	if (!expects || !out)
		return;
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(out), 1);	/* the filter writes into perf's stdout */
	perf.rng = 0x9e3779b97f4a7c15u;
	perf.next_pid = 100;
	/* threads 0 and 1 in one process, 2 and 3 in one each */
	for (int i = 0; i < NTHREADS; i++) {
		for (int s = 0; s < SLOTS; s++)
			perf.procs[i].slot[s].image = -1;
		perf.threads[i].tid = 100 + i;
		if (i == 1) {
			perf.threads[i].proc = &perf.procs[0];
			perf.threads[i].pc = perf.threads[0].pc;
		} else {
			new_process(&perf.threads[i], &perf.procs[i]);
		}
	}
	CHECK_INT_EQ(start_fn(&filter_data, NULL), 0);
	for (int i = 0; i < STEPS; i++)
		step();
	CHECK_INT_EQ(stop_fn(filter_data, NULL), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	check_output(out);
	for (size_t i = 0; i < nstrings; i++)
		free(strings[i]);
	free(strings);
	fclose(out);
	free(expects);
	dlclose(h);
}

int main(void)
{
	UNIT_RUN(filter_matches_perf);
	return unit_exit();
}
