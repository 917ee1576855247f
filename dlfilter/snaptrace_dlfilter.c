/* SPDX-License-Identifier: MIT */
/*
 * snaptrace-dlfilter.so: perf script's dlfilter (perf's API,
 * perf/perf_dlfilter.h, perf >= 5.14) that hands snaptrace-convert the
 * decoded Intel PT branches as binary records (dlfilter/binrec.h) instead of
 * text. It writes them into perf's own standard output stream, so they stay
 * in place among the lines perf still prints itself (decode errors, switch
 * records, power events), and tells perf to drop the sample.
 *
 * What it hands over, and what it leaves to perf's text (returns 0: perf
 * prints the sample as without the filter, the converter parses the line):
 *   - "branches" samples whose flags have one of perf's plain names (call,
 *     return, jcc, jmp, int, iret, syscall, sysret, async, hw int, tx abrt,
 *     vmentry, vmexit, optionally in a transaction): a BRANCH record, or a
 *     TICK record (its thread and time only) for a jump within one function
 *     (same symbol and dso: a jcc or jmp the converter would drop too; the
 *     tick keeps the thread's times exactly as the line did) when the
 *     thread's last record was not at the same time;
 *   - everything else as text: "tr strt"/"tr end" (their wording changed
 *     across perf versions), "br miss", unnamed flag sets, a symbol offset
 *     perf computes from the map (an address past the symbol's end), and
 *     every other event (cbr, psb, samples, tracepoints).
 * Strings (symbols, dsos, comms) are sent once each as STRING records and
 * then named by id.
 */
#include <perf/perf_dlfilter.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "binrec.h"
#include "hash.h"
#include "parse.h"

/* perf's PERF_IP_FLAG_* bits beyond those perf_dlfilter.h names. */
#define PERF_FLAG_INTR_DISABLE (1u << 13)
#define PERF_FLAG_INTR_TOGGLE (1u << 14)

enum {
	B = PERF_DLFILTER_FLAG_BRANCH,
	CALL = PERF_DLFILTER_FLAG_CALL,
	RET = PERF_DLFILTER_FLAG_RETURN,
	COND = PERF_DLFILTER_FLAG_CONDITIONAL,
	SYS = PERF_DLFILTER_FLAG_SYSCALLRET,
	ASYNC = PERF_DLFILTER_FLAG_ASYNC,
	INTR = PERF_DLFILTER_FLAG_INTERRUPT,
};

/* perf's named flag sets (tools/perf/util/trace-event-scripting.c,
 * sample_flags[]) that keep one wording across perf versions, and the
 * converter's bits for the name. */
static const struct {
	uint32_t perf, conv;
} flag_names[] = {
	{ B | CALL, CONV_F_CALL },
	{ B | RET, CONV_F_RETURN },
	{ B | COND, CONV_F_JCC },
	{ B, CONV_F_JMP },
	{ B | CALL | INTR, CONV_F_INT },
	{ B | RET | INTR, CONV_F_IRET },
	{ B | CALL | SYS, CONV_F_SYSCALL },
	{ B | RET | SYS, CONV_F_SYSRET },
	{ B | ASYNC, CONV_F_ASYNC },
	{ B | CALL | ASYNC | INTR, CONV_F_HW_INT },
	{ B | PERF_DLFILTER_FLAG_TX_ABORT, CONV_F_TX_ABORT },
	{ B | CALL | PERF_DLFILTER_FLAG_VMENTRY, CONV_F_VMENTRY },
	{ B | CALL | PERF_DLFILTER_FLAG_VMEXIT, CONV_F_VMEXIT },
};

#define OUT_BUFFER (1u << 20)     /* perf's stdout buffer: fewer writes into the pipe */
#define STRINGS_MIN 1024          /* initial string table slots (power of two) */
#define THREADS_MIN 64            /* initial thread table slots (power of two) */

/* A string already sent: perf's pointer, a copy to notice reuse, its id. */
struct sent_string {
	const char *ptr;
	char *copy;
	uint32_t id;
};

/* A thread's time of its last record (for TICK). */
struct thread_time {
	bool taken;                /* the slot holds TID */
	bool used;                 /* TIME is the time of the thread's last record */
	int32_t tid;
	uint64_t time;
};

/* Filled in by perf when it loads the filter. */
struct perf_dlfilter_fns perf_dlfilter_fns;

struct state {
	struct sent_string *strings;    /* open addressing by pointer */
	size_t nstrings, capstrings;
	uint32_t next_id;
	struct thread_time *threads;    /* open addressing by tid */
	size_t nthreads, capthreads;
	size_t pending;                 /* __fpending(stdout) after our last record */
	const char *event;              /* the last sample's event name (perf's string) */
	bool event_is_branches;         /* is_branches(event) */
	bool failed;
};

/* Writes LEN bytes of record REC to perf's output; remembers what is
 * pending after it (to notice perf's own writes in between). */
static void put(struct state *s, const void *rec, size_t len)
{
	if (fwrite_unlocked(rec, 1, len, stdout) != len)	/* perf prints on this thread only */
		s->failed = true;
	s->pending = __fpending(stdout);
}

static bool grow_strings(struct state *s)
{
	size_t cap = s->capstrings ? s->capstrings * 2 : STRINGS_MIN;
	struct sent_string *t = calloc(cap, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i < s->capstrings; i++) {
		struct sent_string *e = &s->strings[i];
		size_t j;

		if (!e->ptr)
			continue;
		for (j = hash64((uintptr_t)e->ptr) & (cap - 1); t[j].ptr; j = (j + 1) & (cap - 1))
			;
		t[j] = *e;
	}
	free(s->strings);
	s->strings = t;
	s->capstrings = cap;
	return true;
}

/* Returns the id of STR (sending it first when new), 0 for NULL or on
 * failure (s->failed is then set). */
static uint32_t string_id(struct state *s, const char *str)
{
	struct {
		struct binrec_header h;
		uint32_t id;
		char text[BINREC_STRING_MAX];
	} rec;
	struct sent_string *e;
	size_t i, len;

	if (!str)
		return 0;
	if (2 * (s->nstrings + 1) > s->capstrings && !grow_strings(s)) {
		s->failed = true;
		return 0;
	}
	for (i = hash64((uintptr_t)str) & (s->capstrings - 1); s->strings[i].ptr;
	     i = (i + 1) & (s->capstrings - 1)) {
		e = &s->strings[i];
		if (e->ptr == str) {
			if (!strcmp(e->copy, str))
				return e->id;
			break;	/* perf freed it and reused the memory: send anew */
		}
	}
	e = &s->strings[i];
	len = strlen(str);
	if (len > BINREC_STRING_MAX)
		len = BINREC_STRING_MAX;
	if (!e->ptr)
		s->nstrings++;
	free(e->copy);
	e->ptr = str;
	e->copy = strdup(str);
	e->id = ++s->next_id;
	if (!e->copy) {
		s->failed = true;
		return 0;
	}
	rec.h = (struct binrec_header){ BINREC_MARK, BINREC_STRING, (uint16_t)(8 + len) };
	rec.id = e->id;
	memcpy(rec.text, str, len);
	put(s, &rec, 8 + len);
	return e->id;
}

/* Returns TID's entry (a new one has used = false), or NULL on failure. */
static struct thread_time *thread_of(struct state *s, int32_t tid)
{
	size_t i;

	if (2 * (s->nthreads + 1) > s->capthreads) {
		size_t cap = s->capthreads ? s->capthreads * 2 : THREADS_MIN;
		struct thread_time *t = malloc(cap * sizeof(*t));

		if (!t)
			return NULL;
		memset(t, 0, cap * sizeof(*t));
		for (size_t k = 0; k < s->capthreads; k++) {
			if (!s->threads[k].taken)
				continue;
			for (i = hash64((uint32_t)s->threads[k].tid) & (cap - 1); t[i].taken;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = s->threads[k];
		}
		free(s->threads);
		s->threads = t;
		s->capthreads = cap;
	}
	for (i = hash64((uint32_t)tid) & (s->capthreads - 1); s->threads[i].taken;
	     i = (i + 1) & (s->capthreads - 1))
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	s->nthreads++;
	s->threads[i] = (struct thread_time){ .taken = true, .tid = tid };
	return &s->threads[i];
}

/* The converter's flag bits for perf's FLAGS, or 0 when perf's wording of
 * them is left to its text. */
static uint32_t conv_flags(uint32_t flags)
{
	uint32_t f = flags & ~(PERF_DLFILTER_FLAG_IN_TX | PERF_FLAG_INTR_DISABLE |
			       PERF_FLAG_INTR_TOGGLE);

	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flag_names[i].perf == f)
			return flag_names[i].conv |
			       (flags & PERF_DLFILTER_FLAG_IN_TX ? CONV_F_IN_TX : 0);
	return 0;
}

/* Fills LOC from perf's resolved location AL of IP; BEFORE (or NULL) is a
 * location filled before, its dso's id BEFORE_DSO. Returns false when
 * perf's text would show an offset the filter cannot compute. */
static bool loc_of(struct state *s, const struct perf_dlfilter_al *al, uint64_t ip,
		   struct binrec_loc *loc, const struct perf_dlfilter_al *before,
		   uint32_t before_dso)
{
	loc->ip = ip;
	loc->symoff = 0;
	loc->sym = 0;
	if (al && al->sym) {
		if (al->addr < al->sym_start || al->addr >= al->sym_end)
			return false;	/* perf's map-relative fallback offset */
		loc->symoff = al->addr - al->sym_start;
		loc->sym = string_id(s, al->sym);
	}
	/* a branch within one dso looks its name up once */
	loc->dso = !al ? 0 : before && al->dso == before->dso ? before_dso : string_id(s, al->dso);
	return true;
}

/* Is EVENT perf's "branches" event (with or without modifiers)? */
static bool is_branches(const char *event)
{
	return event && !strncmp(event, "branches", 8) && (event[8] == 0 || event[8] == ':');
}

int start(void **data, void *ctx)
{
	struct state *s = calloc(1, sizeof(*s));

	char *buf = malloc(OUT_BUFFER);

	(void)ctx;
	if (!s)
		return -1;
	/* Before any output. Never freed: stdout uses it until perf exits,
	 * after the filter is unloaded. */
	if (buf && setvbuf(stdout, buf, _IOFBF, OUT_BUFFER))
		free(buf);
	*data = s;
	return 0;
}

int stop(void *data, void *ctx)
{
	struct state *s = data;
	int rc = s->failed ? -1 : 0;

	(void)ctx;
	for (size_t i = 0; i < s->capstrings; i++)
		free(s->strings[i].copy);
	free(s->strings);
	free(s->threads);
	free(s);
	return rc;
}

/* Does a jump from FROM (perf's resolution of the sample's ip) to the
 * sample's addr stay inside FROM's symbol? The target's address in FROM's
 * dso is FROM's plus the jump's distance; inside the symbol's bounds it is
 * in the same map, symbol and dso, which perf would resolve it to: no
 * resolve_addr() (a symbol lookup, a fifth of perf's time) is needed. */
static bool jump_within(const struct perf_dlfilter_sample *sample,
			const struct perf_dlfilter_al *from)
{
	uint64_t to = from->addr + (sample->addr - sample->ip);

	return from->sym && to >= from->sym_start && to < from->sym_end;
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	struct state *s = data;
	const struct perf_dlfilter_al *from, *to = NULL;
	struct binrec_branch rec;
	struct thread_time *tt;
	uint32_t flags;
	bool jump;

	if (s->failed || !sample->addr_correlates_sym)
		return 0;
	if (sample->event != s->event) {	/* one string per event: compared once */
		s->event = sample->event;
		s->event_is_branches = is_branches(sample->event);
	}
	if (!s->event_is_branches)
		return 0;
	flags = conv_flags(sample->flags);
	if (!flags)
		return 0;
	jump = !(flags & ~(CONV_F_JCC | CONV_F_JMP | CONV_F_IN_TX));
	from = perf_dlfilter_fns.resolve_ip(ctx);
	if (!from || !(jump && jump_within(sample, from)))
		to = perf_dlfilter_fns.resolve_addr(ctx);
	if (!from || !(tt = thread_of(s, sample->tid)))
		return 0;
	/* perf printed something since our last record (a decode error, a
	 * switch record): the thread's next record may not be skipped. */
	if (__fpending(stdout) != s->pending)
		for (size_t i = 0; i < s->capthreads; i++)
			s->threads[i].used = false;
	if (jump && (!to || (from->sym == to->sym && from->dso == to->dso))) {
		struct binrec_tick tick = { { BINREC_MARK, BINREC_TICK, sizeof(tick) },
					    sample->pid, sample->tid, sample->time };

		if (!tt->used || tt->time != sample->time)
			put(s, &tick, sizeof(tick));
		tt->used = true;
		tt->time = sample->time;
		return 1;
	}
	memset(&rec, 0, sizeof(rec));
	rec.h = (struct binrec_header){ BINREC_MARK, BINREC_BRANCH, sizeof(rec) };
	rec.flags = flags;
	rec.time = sample->time;
	rec.pid = sample->pid;
	rec.tid = sample->tid;
	if (!to || !loc_of(s, from, sample->ip, &rec.from, NULL, 0) ||
	    !loc_of(s, to, sample->addr, &rec.to, from, rec.from.dso))
		return 0;
	rec.comm = string_id(s, from->comm);
	if (s->failed)
		return 0;
	put(s, &rec, sizeof(rec));
	tt->used = true;
	tt->time = sample->time;
	return 1;
}

const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description = "Writes Intel PT branches as binary records for "
				    "snaptrace-convert, in perf's output between its text lines";
	return "snaptrace: decoded branches in binary";
}
