// SPDX-License-Identifier: MIT
/*
 * gen_branch_text: writes a large, realistic `perf script --itrace=b` text
 * (perf 6.1 column layout, docs/design.md "perf script grammar") for the
 * converter's benchmark and stress tests.
 *
 *   gen_branch_text LINES [SEED] > FILE
 *
 * Shape: one process, four threads switching every few hundred lines (as
 * perf interleaves per-CPU buffers by time); ~75% same-function jcc/jmp,
 * the rest calls and returns nesting up to 40 deep (each thread starts
 * mid-stack, so its first returns go past the known bottom); a syscall gap
 * ("tr end  syscall" / "tr strt") now and then, and rare cbr lines. Function
 * names mix short C names and long C++ template names; times advance by
 * 0-3 ns per line, so equal timestamps (bursts) occur. The output depends
 * only on LINES and SEED. Writes exactly LINES lines; exit 0, or 2 on a bad
 * command line, 1 on a write error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_NFUNCS 400
#define GEN_NTHREADS 4
#define GEN_MAX_DEPTH 40
#define GEN_HIDDEN_DEPTH 8
#define GEN_NAME_MAX 400

struct gen_func {
	char name[GEN_NAME_MAX];
	const char *dso;
	uint64_t base;          /* address of offset 0 */
};

struct gen_frame {
	int func;
	uint64_t ret;           /* return address in the caller */
};

struct gen_thread {
	int tid;
	struct gen_frame stack[GEN_MAX_DEPTH + GEN_HIDDEN_DEPTH];
	int depth;              /* frames in stack[] */
	int hidden;             /* bottom frames the trace never showed a call for */
	int in_syscall;
};

static const char *const gen_app = "/opt/bench/bin/benchsrv";
static const char *const gen_libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
static const char *const gen_libstd = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30";

static uint64_t gen_rng = 0x9e3779b97f4a7c15ull;

/* xorshift64*: a deterministic stream for a given seed. */
static uint64_t gen_rand(void)
{
	gen_rng ^= gen_rng >> 12;
	gen_rng ^= gen_rng << 25;
	gen_rng ^= gen_rng >> 27;
	return gen_rng * 0x2545f4914f6cdd1dull;
}

/* A uniform number in [0, N). */
static unsigned gen_below(unsigned n)
{
	return (unsigned)((gen_rand() >> 32) % n);
}

static const char *const gen_c_names[] = {
	"memcpy", "malloc", "free", "pthread_mutex_lock", "pthread_mutex_unlock",
	"__memmove_avx_unaligned_erms", "strlen", "read", "write", "epoll_wait",
	"_int_malloc", "_int_free", "__lll_lock_wait", "clock_gettime", "memchr",
};

static const char *const gen_ns[] = { "snap", "net", "db::storage", "util", "rpc::detail" };
static const char *const gen_cls[] = {
	"Pipeline", "Connection", "BTree", "Arena", "Dispatcher", "Codec", "Scheduler",
};
static const char *const gen_tpl[] = {
	"",
	"<std::pair<int, int> >",
	"<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, 16ul>",
	"<unsigned long, snap::Hash<unsigned long> >",
	"<std::vector<snap::Frame, std::allocator<snap::Frame> > >",
};
static const char *const gen_meth[] = {
	"process", "push_back", "operator()", "handle_event", "lookup", "flush", "encode",
	"decode", "operator<=>", "run_once",
};
static const char *const gen_args[] = {
	"()", "(int)", "(snap::Frame const&)", "(unsigned long, bool) const",
	"(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
};

/* Fills FUNCS with names, DSOs and addresses (4 KiB apart per DSO). */
static void gen_funcs(struct gen_func *funcs)
{
	size_t nc = sizeof(gen_c_names) / sizeof(gen_c_names[0]);
	uint64_t app = 0x401000, lib = 0x7f3a5c000000ull, std = 0x7f3a5d000000ull;

	for (int i = 0; i < GEN_NFUNCS; i++) {
		struct gen_func *f = &funcs[i];

		if ((size_t)i < nc) {
			snprintf(f->name, sizeof(f->name), "%s", gen_c_names[i]);
			f->dso = gen_libc;
			f->base = lib;
			lib += 0x1000;
		} else if (i % 3 == 0 || i % 5 == 1) {
			snprintf(f->name, sizeof(f->name), "handler_%d", i);
			f->dso = gen_app;
			f->base = app;
			app += 0x1000;
		} else {
			/* every third name a long template instance, else a short method */
			bool tpl = i % 3 == 2;

			snprintf(f->name, sizeof(f->name), "%s::%s%s::%s_%d%s",
				 gen_ns[i % 5], gen_cls[i % 7], tpl ? gen_tpl[1 + (i / 7) % 4] : "",
				 gen_meth[i % 10], i, tpl ? gen_args[(i / 3) % 5] : gen_args[i % 3]);
			if (i % 11 == 0) {
				f->dso = gen_libstd;
				f->base = std;
				std += 0x1000;
			} else {
				f->dso = gen_app;
				f->base = app;
				app += 0x1000;
			}
		}
	}
}

static uint64_t gen_time_ns = 73410552000000ull;
static const struct gen_func *gen_f;

/* Prints one branch line; a function index < 0 prints "0 [unknown] ([unknown])". */
static void gen_line(const struct gen_thread *t, const char *flags, int from, uint64_t from_ip,
		     int to, uint64_t to_ip)
{
	printf("%16s %5d/%-5d %5" PRIu64 ".%09" PRIu64 ": %10d  branches:u:   %-19s ",
	       "benchsrv", 31337, t->tid, gen_time_ns / 1000000000u, gen_time_ns % 1000000000u, 1,
	       flags);
	if (from < 0)
		printf("%16x [unknown] ([unknown]) => ", 0);
	else
		printf("%16" PRIx64 " %s+0x%" PRIx64 " (%s) => ", from_ip, gen_f[from].name,
		       from_ip - gen_f[from].base, gen_f[from].dso);
	if (to < 0)
		printf("%16x [unknown] ([unknown])\n", 0);
	else
		printf("%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", to_ip, gen_f[to].name,
		       to_ip - gen_f[to].base, gen_f[to].dso);
}

/* An instruction address inside function F (offsets 0x10..0xff0, 16-aligned). */
static uint64_t gen_ip(int f)
{
	return gen_f[f].base + 0x10 * (1 + gen_below(0xfe));
}

/* Emits one step of thread T; returns the number of lines written. */
static int gen_step(struct gen_thread *t)
{
	struct gen_frame *top = &t->stack[t->depth - 1];
	unsigned r = gen_below(1000);

	if (t->in_syscall) {
		gen_line(t, "tr strt", -1, 0, top->func, gen_ip(top->func));
		t->in_syscall = 0;
		return 1;
	}
	if (r < 700) {
		gen_line(t, "jcc", top->func, gen_ip(top->func), top->func, gen_ip(top->func));
		return 1;
	}
	if (r < 750) {
		gen_line(t, "jmp", top->func, gen_ip(top->func), top->func, gen_ip(top->func));
		return 1;
	}
	if (r == 750 && gen_below(4) == 0) {
		gen_line(t, "tr end  syscall", top->func, gen_ip(top->func), -1, 0);
		t->in_syscall = 1;
		return 1;
	}
	int depth_seen = t->depth - t->hidden;
	bool want_call = t->depth < GEN_MAX_DEPTH + t->hidden &&
			 (depth_seen <= 1 ? r < 900 : r < 862);

	if (want_call || t->depth <= 1) {
		int callee = (int)gen_below(GEN_NFUNCS);
		uint64_t site = gen_ip(top->func);

		gen_line(t, "call", top->func, site, callee, gen_f[callee].base);
		t->stack[t->depth].func = callee;
		t->stack[t->depth].ret = site + 5;
		t->depth++;
		return 1;
	}
	gen_line(t, "return", top->func, gen_ip(top->func), t->stack[t->depth - 2].func, top->ret);
	t->depth--;
	if (t->hidden > t->depth - 1)
		t->hidden = t->depth - 1;
	return 1;
}

int main(int argc, char **argv)
{
	static struct gen_func funcs[GEN_NFUNCS];
	struct gen_thread threads[GEN_NTHREADS];
	char *end;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen_branch_text LINES [SEED] > FILE\n");
		return 2;
	}
	errno = 0;
	unsigned long long lines = strtoull(argv[1], &end, 10);
	if (errno || *end || lines == 0) {
		fprintf(stderr, "gen_branch_text: LINES: expected a positive number, found '%s'\n",
			argv[1]);
		return 2;
	}
	if (argc == 3)
		gen_rng ^= strtoull(argv[2], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;

	static char buf[1 << 20];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	gen_funcs(funcs);
	gen_f = funcs;
	for (int i = 0; i < GEN_NTHREADS; i++) {
		struct gen_thread *t = &threads[i];

		memset(t, 0, sizeof(*t));
		t->tid = 31337 + i;
		for (int d = 0; d < GEN_HIDDEN_DEPTH; d++) {
			int f = GEN_NFUNCS - 1 - i * GEN_HIDDEN_DEPTH - d;

			t->stack[d].func = f;
			t->stack[d].ret = d ? gen_ip(t->stack[d - 1].func) + 5 : 0x7f3a5c0a9d90ull;
		}
		t->depth = GEN_HIDDEN_DEPTH;
		t->hidden = GEN_HIDDEN_DEPTH;
	}

	unsigned long long written = 0;
	struct gen_thread *cur = &threads[0];
	unsigned long long next_switch = 200 + gen_below(1800);

	while (written < lines) {
		gen_time_ns += gen_below(4);
		if (written == next_switch) {
			cur = &threads[gen_below(GEN_NTHREADS)];
			next_switch = written + 200 + gen_below(1800);
		}
		if (gen_below(50000) == 0 && !cur->in_syscall) {
			printf("%16s %5d/%-5d %5" PRIu64 ".%09" PRIu64 ": %10d         cbr:  cbr: %2u "
			       "freq: %4u MHz (%3u%%)                   0 [unknown] ([unknown])\n",
			       "benchsrv", 31337, cur->tid, gen_time_ns / 1000000000u,
			       gen_time_ns % 1000000000u, 1, 30u, 3000u, 300u);
			written++;
			continue;
		}
		written += (unsigned long long)gen_step(cur);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gen_branch_text: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
