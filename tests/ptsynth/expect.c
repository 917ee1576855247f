/* SPDX-License-Identifier: MIT */
/*
 * ptsynth-expect: turns ptsynth truth files (truth.h) into what the
 * converter must show, for the suite tests/ptsynth/pt.test.sh.
 *
 *   ptsynth-expect TRUTH...          the slice listing "TID DEPTH NAME", per
 *                                    thread in start order (the format of
 *                                    `snaptrace-convert --dump=slices`)
 *   ptsynth-expect --events TRUTH... "TID KIND SRC DST" per event (call, ret,
 *                                    jump to another function, syscall,
 *                                    error, async; "TID switch-out|switch-in
 *                                    STATE TIME" per switch), to compare
 *                                    with perf script
 *
 * The listing applies the stack rules of docs/design.md ("Stack
 * reconstruction", "Ordering in the file") to the events that really happened, so it holds what the
 * trace can know: a window that starts mid-stack shows the callers that are
 * returned into as inferred frames from the start of the window (or of the
 * last decode error); each file given is a snapshot of its own. Decode
 * errors are instants at depth 0, listed after the thread's slices (the
 * order of the --dump=slices view). A switch out is an [off-cpu] slice in the
 * gap the trace has there: under [syscall] when it blocked in one, under an
 * [untraced] interrupt (tr end async) when preempted; a fault ends the
 * trace in an [untraced] exit from the faulting instruction.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "version.h"

#define MAX_FIELDS 12

struct frame {
	char *name, *dso;
	uint64_t callsite;     /* ip of the call instruction, 0: unknown */
	size_t slice;          /* index in the thread's slices */
};

struct slice {
	char *name;
	uint64_t begin;        /* event ordinal */
	int segment;
	int base;              /* depth at creation minus the segment's inferences then */
};

struct thread {
	int tid;
	char **instants;       /* decode errors, printed after the slices */
	size_t ninstants;
	struct frame *stack;
	size_t depth, cap;
	struct slice *slices;
	size_t n, scap;
	int segment;
	int inferred;          /* inferred bottom frames in the current segment */
	uint64_t seg_start;    /* ordinal where the segment began */
};

static struct thread *threads;
static size_t nthreads;
static uint64_t ordinal;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		diag_error("out of memory");
		exit(EXIT_RUNTIME);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

static struct thread *thread_get(int tid)
{
	size_t i;

	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	threads = xrealloc(threads, (nthreads + 1) * sizeof(*threads));
	memset(&threads[nthreads], 0, sizeof(*threads));
	threads[nthreads].tid = tid;
	return &threads[nthreads++];
}

static size_t slice_new(struct thread *t, const char *name, uint64_t begin, int depth)
{
	if (t->n == t->scap) {
		t->scap = t->scap ? t->scap * 2 : 256;
		t->slices = xrealloc(t->slices, t->scap * sizeof(*t->slices));
	}
	t->slices[t->n] = (struct slice){ .name = xstrdup(name), .begin = begin,
					  .segment = t->segment, .base = depth - t->inferred };
	return t->n++;
}

/* Frames of one function: the same name in the same DSO (code without a
 * symbol: one function per DSO). */
static bool same_fn(const char *n1, const char *d1, const char *n2, const char *d2)
{
	return !strcmp(n1, n2) && !strcmp(d1, d2);
}

/* The converter's name of a frame: the symbol, or for code without one
 * "[unknown @ 0xIP (DSO)]" with the address where the frame was seen. */
static const char *frame_name(const char *name, const char *dso, uint64_t ip)
{
	static char buf[600];

	if (strcmp(name, "[unknown]"))
		return name;
	if (strcmp(dso, "-"))
		snprintf(buf, sizeof(buf), "[unknown @ 0x%" PRIx64 " (%.400s)]", ip, dso);
	else
		snprintf(buf, sizeof(buf), "[unknown @ 0x%" PRIx64 "]", ip);
	return buf;
}

static void push(struct thread *t, const char *name, const char *dso, uint64_t callsite,
		 uint64_t ip)
{
	if (t->depth == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->stack = xrealloc(t->stack, t->cap * sizeof(*t->stack));
	}
	t->stack[t->depth] = (struct frame){ .name = xstrdup(name), .dso = xstrdup(dso),
					     .callsite = callsite };
	t->stack[t->depth].slice = slice_new(t, frame_name(name, dso, ip), ordinal,
					     (int)t->depth);
	t->depth++;
}

/* A frame below every open one, begun at the segment's start. */
static void push_bottom(struct thread *t, const char *name, const char *dso, uint64_t ip)
{
	if (t->depth == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->stack = xrealloc(t->stack, t->cap * sizeof(*t->stack));
	}
	memmove(t->stack + 1, t->stack, t->depth * sizeof(*t->stack));
	t->inferred++;
	t->stack[0] = (struct frame){ .name = xstrdup(name), .dso = xstrdup(dso) };
	/* begins before everything of the segment: its depth is 0 for good */
	t->stack[0].slice = slice_new(t, frame_name(name, dso, ip), t->seg_start, 0);
	t->slices[t->stack[0].slice].base = -t->inferred;
	t->depth++;
}

static void pop(struct thread *t)
{
	t->depth--;
	free(t->stack[t->depth].name);
	free(t->stack[t->depth].dso);
}

/* Index of the topmost frame of function NAME/DSO, or -1. */
static long find(const struct thread *t, const char *name, const char *dso)
{
	size_t i;

	for (i = t->depth; i-- > 0;)
		if (same_fn(t->stack[i].name, t->stack[i].dso, name, dso))
			return (long)i;
	return -1;
}

/* Makes the branch's source the top frame (docs/design.md "Stack
 * reconstruction": missed calls/returns). */
static void ensure_source(struct thread *t, const char *name, const char *dso, uint64_t ip)
{
	long at;

	if (!t->depth) {
		push_bottom(t, name, dso, ip);
		return;
	}
	if (same_fn(t->stack[t->depth - 1].name, t->stack[t->depth - 1].dso, name, dso))
		return;
	at = find(t, name, dso);
	if (at >= 0) {
		while ((long)t->depth > at + 1)
			pop(t);
	} else {
		push(t, name, dso, 0, ip);
	}
}

static uint64_t hex(const char *s)
{
	return strtoull(s, NULL, 16);
}

static void on_call(struct thread *t, char **f)
{
	if (!strcmp(f[9], f[10]) && strcmp(f[6], "0"))
		return;  /* a call within the function (PC thunk): not a call */
	if (t->depth)  /* at the start of a segment a call pushes only its target */
		ensure_source(t, f[9], f[7], hex(f[4]));
	push(t, f[10], f[8], hex(f[4]), hex(f[5]));
}

static void on_ret(struct thread *t, char **f)
{
	uint64_t dst = hex(f[5]);
	size_t i;
	long at = -1;

	for (i = t->depth; i-- > 0;) {
		uint64_t cs = t->stack[i].callsite;

		if (cs && dst >= cs && dst - cs <= 15) {
			at = (long)i;
			break;
		}
	}
	if (at >= 0) {
		while ((long)t->depth > at)
			pop(t);
	} else {
		ensure_source(t, f[9], f[7], hex(f[4]));
		if (same_fn(t->stack[t->depth - 1].name, t->stack[t->depth - 1].dso, f[9], f[7]))
			pop(t);
		at = find(t, f[10], f[8]);
		if (at >= 0) {
			while ((long)t->depth > at + 1)
				pop(t);
			return;
		}
	}
	if (!t->depth)
		push_bottom(t, f[10], f[8], dst);
	else if (!same_fn(t->stack[t->depth - 1].name, t->stack[t->depth - 1].dso, f[10], f[8]))
		push(t, f[10], f[8], 0, dst);
}

static void on_jump(struct thread *t, char **f)
{
	uint64_t callsite;
	long at;

	if (same_fn(f[9], f[7], f[10], f[8]))
		return;
	ensure_source(t, f[9], f[7], hex(f[4]));
	/* into the middle of a function (code without a symbol has no offset) */
	if (strcmp(f[6], "0") || !strcmp(f[10], "[unknown]")) {
		at = find(t, f[10], f[8]);
		if (at >= 0) {
			while ((long)t->depth > at + 1)
				pop(t);
			return;
		}
	}
	callsite = t->stack[t->depth - 1].callsite;
	pop(t);
	push(t, f[10], f[8], callsite, hex(f[5]));
}

/* Closes every frame; a new segment begins (a decode error, a new file). */
static void new_segment(struct thread *t)
{
	while (t->depth)
		pop(t);
	t->segment++;
	t->inferred = 0;
	t->seg_start = ordinal;
}

/* The trace (re)starts at IP in NAME (perf's "tr strt"): the converter
 * shows the function as an inferred frame from the segment's start. */
static void trace_start(struct thread *t, const char *name, const char *dso, uint64_t ip)
{
	if (!t->depth)
		push_bottom(t, name, dso, ip);
}

/* Splits LINE at tabs into F; returns the count. */
static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\n")] = 0;
	f[n++] = line;
	while (n < MAX_FIELDS && (line = strchr(line, '\t'))) {
		*line++ = 0;
		f[n++] = line;
	}
	return n;
}

static int read_truth(const char *path, bool events)
{
	FILE *in = fopen(path, "r");
	char line[8192], *f[MAX_FIELDS];
	struct thread *t;
	int n, lineno = 0;

	if (!in) {
		diag_error("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (line[0] == '#')
			continue;
		n = split(line, f);
		if (!strcmp(f[0], "thread") && n >= 9) {
			t = thread_get(atoi(f[2]));
			ordinal++;
			new_segment(t);  /* each file: a segment of its own */
			if (!events)
				trace_start(t, f[8], f[7], hex(f[6]));
			continue;
		}
		if (!strcmp(f[0], "end"))
			continue;
		if (n != 11) {
			diag_error("%s:%d: expected 11 fields, found %d", path, lineno, n);
			fclose(in);
			return -1;
		}
		t = thread_get(atoi(f[1]));
		ordinal++;
		if (events) {
			if (!strcmp(f[0], "jump") && same_fn(f[9], f[7], f[10], f[8]))
				continue;
			if ((!strcmp(f[0], "switch-out") && !strcmp(f[10], "preempt")) ||
			    !strcmp(f[0], "fault")) {
				printf("%s async %s -\n", f[1], f[9]);  /* the interrupt, the fault */
				if (f[0][0] == 'f')
					continue;
			}
			if (!strncmp(f[0], "switch-", 7)) {
				printf("%s %s %s %s\n", f[1], f[0], f[10], f[3]);
				continue;
			}
			printf("%s %s %s %s\n", f[1], f[0], f[9],
			       !strcmp(f[0], "syscall") || !strcmp(f[0], "error") ? "-" : f[10]);
			continue;
		}
		if (!strcmp(f[0], "call")) {
			on_call(t, f);
		} else if (!strcmp(f[0], "ret")) {
			on_ret(t, f);
		} else if (!strcmp(f[0], "jump")) {
			on_jump(t, f);
		} else if (!strcmp(f[0], "syscall")) {
			ensure_source(t, f[9], f[7], hex(f[4]));
			slice_new(t, "[syscall]", ordinal, (int)t->depth);
		} else if (!strcmp(f[0], "switch-out")) {
			/* in the gap the trace has there: the [syscall] it blocked
			 * in, or the [untraced] interrupt that preempted it */
			ensure_source(t, f[9], f[7], hex(f[4]));
			if (!strcmp(f[10], "preempt"))
				slice_new(t, "[untraced]", ordinal, (int)t->depth);
			slice_new(t, "[off-cpu]", ordinal, (int)t->depth + 1);
		} else if (!strcmp(f[0], "fault")) {
			/* the trace ends in an [untraced] exit from the faulting
			 * instruction (tr end async) */
			ensure_source(t, f[9], f[7], hex(f[4]));
			slice_new(t, "[untraced]", ordinal, (int)t->depth);
		} else if (!strcmp(f[0], "error")) {
			char name[300];

			new_segment(t);
			snprintf(name, sizeof(name), "[decode error: %.256s]", f[9]);
			/* an instant at depth 0 after the closed frames */
			t->instants = xrealloc(t->instants,
					       (t->ninstants + 1) * sizeof(*t->instants));
			t->instants[t->ninstants++] = xstrdup(name);
			trace_start(t, f[10], f[8], hex(f[5]));
		}
	}
	fclose(in);
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct slice *a = x, *b = y;

	if (a->segment != b->segment)
		return a->segment - b->segment;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return a->base - b->base;
}

static void print_thread(struct thread *t)
{
	int *inferred = xrealloc(NULL, (size_t)(t->segment + 1) * sizeof(int));
	size_t i;

	/* the final count of inferred frames of each segment */
	memset(inferred, 0, (size_t)(t->segment + 1) * sizeof(int));
	for (i = 0; i < t->n; i++)
		if (-t->slices[i].base > inferred[t->slices[i].segment])
			inferred[t->slices[i].segment] = -t->slices[i].base;
	qsort(t->slices, t->n, sizeof(*t->slices), by_start);
	for (i = 0; i < t->n; i++) {
		const struct slice *s = &t->slices[i];
		int depth = s->base + inferred[s->segment];

		printf("%d %d %s\n", t->tid, depth, s->name);
	}
	for (i = 0; i < t->ninstants; i++)
		printf("%d 0 %s\n", t->tid, t->instants[i]);
	free(inferred);
}

int main(int argc, char **argv)
{
	bool events = false;
	int i = 1;
	size_t k;

	diag_init(argv[0]);
	if (i < argc && !strcmp(argv[i], "--events")) {
		events = true;
		i++;
	}
	if (i < argc && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
		printf("usage: ptsynth-expect [--events] TRUTH...\n"
		       "Prints the slices the converter must show for ptsynth truth files\n"
		       "(TID DEPTH NAME), or with --events the events perf script must show.\n");
		return EXIT_OK;
	}
	if (i < argc && (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))) {
		printf("ptsynth-expect %s\n", SNAPTRACE_VERSION);
		return EXIT_OK;
	}
	if (i >= argc) {
		diag_error("expected truth files, found none");
		return EXIT_USAGE;
	}
	for (; i < argc; i++)
		if (read_truth(argv[i], events) < 0)
			return EXIT_RUNTIME;
	for (k = 0; !events && k < nthreads; k++)
		print_thread(&threads[k]);
	return EXIT_OK;
}
