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
 * The stream starts with a VERSION record; strings (symbols, dsos, comms)
 * are sent once each as STRING records and then named by id.
 */
#include <perf/perf_dlfilter.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "binrec.h"
#include "hash.h"

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
 * stream's bit for the name (binrec.h). */
static const struct {
	uint32_t perf, binrec;
} flag_names[] = {
	{ B | CALL, BINREC_F_CALL },
	{ B | RET, BINREC_F_RETURN },
	{ B | COND, BINREC_F_JCC },
	{ B, BINREC_F_JMP },
	{ B | CALL | INTR, BINREC_F_INT },
	{ B | RET | INTR, BINREC_F_IRET },
	{ B | CALL | SYS, BINREC_F_SYSCALL },
	{ B | RET | SYS, BINREC_F_SYSRET },
	{ B | ASYNC, BINREC_F_ASYNC },
	{ B | CALL | ASYNC | INTR, BINREC_F_HW_INT },
	{ B | PERF_DLFILTER_FLAG_TX_ABORT, BINREC_F_TX_ABORT },
	{ B | CALL | PERF_DLFILTER_FLAG_VMENTRY, BINREC_F_VMENTRY },
	{ B | CALL | PERF_DLFILTER_FLAG_VMEXIT, BINREC_F_VMEXIT },
};

/* The branches that enter a function (a call site is kept) and that leave one. */
#define BINREC_F_PUSH (BINREC_F_CALL | BINREC_F_INT | BINREC_F_SYSCALL | BINREC_F_HW_INT | \
		       BINREC_F_VMENTRY)
#define BINREC_F_POP (BINREC_F_RETURN | BINREC_F_IRET | BINREC_F_SYSRET | BINREC_F_VMEXIT)

#define OUT_BUFFER (1u << 20)     /* perf's stdout buffer: fewer writes into the pipe */
#define CALL_SITES 16             /* call sites kept per thread (the newest) */
#define SYMS 16                   /* symbols kept per thread (power of two) */

/* A string already sent: perf's pointer, a copy to notice reuse, its id. */
struct sent_string {
	const char *ptr;
	char *copy;
	uint32_t id;
};

/* A symbol's bytes at their run-time addresses, as perf resolved an
 * address in them: [lo, hi), named by string ids SYM and DSO. */
struct extent {
	uint64_t lo, hi;
	uint32_t sym, dso;
};

/* A symbol a thread's samples were resolved to, with perf's strings. */
struct known_sym {
	struct extent e;           /* hi = lo: a free slot */
	const char *sym, *dso;     /* perf's strings */
};

/* A thread: the time of its last record (for TICK), the symbol its last
 * resolved sample was in, the symbols its last calls came from (where its
 * returns go back to; newest last) and those its calls went to. */
struct thread_state {
	bool used;                 /* TIME is the time of the thread's last record */
	int32_t tid, pid;
	uint64_t time;
	const char *comm;          /* perf's comm string of the thread's last record */
	uint32_t comm_id;          /* its string id */
	struct extent here;        /* hi = lo: none; ids valid */
	uint32_t nsites;           /* calls in SITES, the newest at nsites - 1 */
	struct extent sites[CALL_SITES];
	struct known_sym syms[SYMS];  /* by the hash of the symbol's start */
};

/* Filled in by perf when it loads the filter. */
struct perf_dlfilter_fns perf_dlfilter_fns;

struct state {
	struct hash_index string_index;  /* perf's pointer -> strings[] */
	struct sent_string *strings;
	size_t nstrings, capstrings;
	uint32_t next_id;
	struct hash_index thread_index;  /* tid -> threads[] */
	struct thread_state *threads;
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
	FILE *f = stdout;

	/* Into the buffer's room directly, as glibc's putc_unlocked does (its
	 * room for writing ends at _IO_write_end, which is where the pointer
	 * is outside of put mode; fwrite's own overhead was most of a record's
	 * cost), else through fwrite (perf prints on this thread only). */
	if (f->_IO_write_ptr < f->_IO_write_end &&
	    (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= len) {
		memcpy(f->_IO_write_ptr, rec, len);
		f->_IO_write_ptr += len;
	} else if (fwrite_unlocked(rec, 1, len, f) != len) {
		s->failed = true;
	}
	s->pending = __fpending(f);
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
	uint32_t k;
	struct sent_string *e;
	size_t len;

	if (!str)
		return 0;
	k = hash_index_get(&s->string_index, (uintptr_t)str);
	if (k != HASH_NONE && !strcmp(s->strings[k].copy, str))
		return s->strings[k].id;
	/* new, or perf freed it and reused the memory: send anew */
	if (k == HASH_NONE) {
		e = array_grow(s->strings, &s->capstrings, s->nstrings, sizeof(*e));
		if (e)
			s->strings = e;
		if (!e || hash_index_add(&s->string_index, (uintptr_t)str, (uint32_t)s->nstrings)) {
			s->failed = true;
			return 0;
		}
		k = (uint32_t)s->nstrings++;
		s->strings[k] = (struct sent_string){ NULL, NULL, 0 };
	}
	e = &s->strings[k];
	len = strlen(str);
	if (len > BINREC_STRING_MAX)
		len = BINREC_STRING_MAX;
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

/* Returns TID's entry (a new one has used = false; valid until the next
 * call), or NULL on failure. */
static struct thread_state *thread_of(struct state *s, int32_t tid)
{
	uint32_t k = hash_index_get(&s->thread_index, (uint32_t)tid);
	struct thread_state *t;

	if (k != HASH_NONE)
		return &s->threads[k];
	t = array_grow(s->threads, &s->capthreads, s->nthreads, sizeof(*t));
	if (!t)
		return NULL;
	s->threads = t;
	if (hash_index_add(&s->thread_index, (uint32_t)tid, (uint32_t)s->nthreads))
		return NULL;
	t = &s->threads[s->nthreads++];
	*t = (struct thread_state){ .tid = tid };
	return t;
}

/* The stream's flag bits (enum binrec_flag) for perf's FLAGS, or 0 when
 * perf's wording of them is left to its text. */
static uint32_t binrec_flags(uint32_t flags)
{
	uint32_t f = flags & ~(PERF_DLFILTER_FLAG_IN_TX | PERF_FLAG_INTR_DISABLE |
			       PERF_FLAG_INTR_TOGGLE);

	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flag_names[i].perf == f)
			return flag_names[i].binrec |
			       (flags & PERF_DLFILTER_FLAG_IN_TX ? BINREC_F_IN_TX : 0);
	return 0;
}

/* The extent of AL's symbol, AL being perf's resolution of IP, into *E
 * (without ids). Returns false when AL has no symbol or IP is past its
 * end (perf then prints an offset from the map). */
static bool extent_of(const struct perf_dlfilter_al *al, uint64_t ip, struct extent *e)
{
	if (!al->sym || al->addr < al->sym_start || al->addr >= al->sym_end)
		return false;
	e->lo = ip - (al->addr - al->sym_start);
	e->hi = e->lo + (al->sym_end - al->sym_start);
	return true;
}

/* Fills LOC from perf's resolved location AL of IP. Returns false when
 * perf's text would show an offset the filter cannot compute. */
static bool loc_of(struct state *s, const struct perf_dlfilter_al *al, uint64_t ip,
		   struct binrec_loc *loc)
{
	struct extent e;

	loc->ip = ip;
	loc->symoff = 0;
	loc->sym = 0;
	if (al->sym) {
		if (!extent_of(al, ip, &e))
			return false;	/* perf's map-relative fallback offset */
		loc->symoff = ip - e.lo;
		loc->sym = string_id(s, al->sym);
	}
	loc->dso = string_id(s, al->dso);
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
	put(s, &(struct binrec_version){ { BINREC_MARK, BINREC_VERSION,
					  sizeof(struct binrec_version) }, BINREC_FORMAT },
	    sizeof(struct binrec_version));
	*data = s;
	return 0;
}

int stop(void *data, void *ctx)
{
	struct state *s = data;
	int rc = s->failed ? -1 : 0;

	(void)ctx;
	for (size_t i = 0; i < s->nstrings; i++)
		free(s->strings[i].copy);
	free(s->strings);
	hash_index_free(&s->string_index);
	free(s->threads);
	hash_index_free(&s->thread_index);
	free(s);
	return rc;
}

static bool in_extent(const struct extent *e, uint64_t addr)
{
	return addr - e->lo < e->hi - e->lo;
}

/* LOC for ADDR inside extent E: what perf's resolution of ADDR is. Within
 * one resolved symbol an address is in the same map, symbol and dso, which
 * perf would resolve it to; so no resolve_addr() (a symbol lookup, a fifth
 * of perf's time) is needed. */
static void loc_in(const struct extent *e, uint64_t addr, struct binrec_loc *loc)
{
	*loc = (struct binrec_loc){ .ip = addr, .symoff = addr - e->lo, .sym = e->sym, .dso = e->dso };
}

/* A return of thread T to ADDR: drops the call sites above the newest one
 * ADDR is in, and that one (a longjmp or an exception returns past some);
 * all of them when ADDR is in none. */
static void return_to(struct thread_state *t, uint64_t addr)
{
	uint32_t n = t->nsites;

	while (n && !in_extent(&t->sites[n - 1], addr))
		n--;
	t->nsites = n ? n - 1 : 0;
}

/* A call of thread T from extent E: keeps it for the return (the oldest
 * site goes when the table is full). */
static void call_from(struct thread_state *t, const struct extent *e)
{
	if (t->nsites == CALL_SITES) {
		memmove(t->sites, t->sites + 1, (CALL_SITES - 1) * sizeof(t->sites[0]));
		t->nsites--;
	}
	t->sites[t->nsites++] = *e;
}

/* The slot of thread T's symbols for a symbol starting at LO. */
static struct known_sym *sym_slot(struct thread_state *t, uint64_t lo)
{
	return &t->syms[hash64(lo) & (SYMS - 1)];
}

/* Forgets what thread T's records let the next ones take over. */
static void forget_thread(struct thread_state *t)
{
	t->used = false;
	t->comm = NULL;
	t->here.lo = t->here.hi = 0;
	t->nsites = 0;
	memset(t->syms, 0, sizeof(t->syms));
}

/* The symbol of AL, perf's resolution of ADDR, with its ids in *E, and
 * ADDR's location in LOC: thread T's symbol when it has it (perf's strings
 * of a mapped dso stay while it is mapped), else looked up and kept.
 * Returns false as loc_of() does; *E is without a symbol (hi = lo) when AL
 * has none. */
static bool symbol_of(struct state *s, struct thread_state *t, const struct perf_dlfilter_al *al,
		      uint64_t addr, struct extent *e, struct binrec_loc *loc)
{
	struct known_sym *k = NULL;

	e->lo = e->hi = 0;
	if (extent_of(al, addr, e)) {
		k = sym_slot(t, e->lo);
		if (k->e.lo == e->lo && k->e.hi == e->hi && k->sym == al->sym && k->dso == al->dso) {
			*e = k->e;
			loc_in(e, addr, loc);
			return true;
		}
	}
	if (!loc_of(s, al, addr, loc))
		return false;
	if (k && !s->failed) {
		e->sym = loc->sym;
		e->dso = loc->dso;
		*k = (struct known_sym){ *e, al->sym, al->dso };
	}
	return true;
}

/* Forgets what every thread's records let the next ones leave out or take
 * over. */
static void forget_threads(struct state *s)
{
	for (size_t i = 0; i < s->nthreads; i++)
		forget_thread(&s->threads[i]);
}

/* Writes a TICK of thread T at the sample's time unless its last record
 * was at that time. Returns 1 (perf drops the sample). */
static int tick(struct state *s, struct thread_state *t, const struct perf_dlfilter_sample *sample)
{
	struct binrec_tick rec = { { BINREC_MARK, BINREC_TICK, sizeof(rec) },
				   sample->pid, sample->tid, 0, sample->time };

	if (!t->used || t->time != sample->time)
		put(s, &rec, sizeof(rec));
	t->used = true;
	t->time = sample->time;
	return 1;
}

/* perf calls it before its own resolution of the sample (machine__resolve(),
 * which the early return of a jump within the thread's symbol then never
 * pays for; resolve_ip() hands perf the resolution it would have made) and
 * before its own filters: a sample outside perf script's --time range comes
 * here too. It may still be turned into a record: the converter drops every
 * timed line outside the range it asked for (input_part_range()), and what
 * the filter keeps of a sample is perf's resolution of it, which its time
 * does not change. */
int filter_event_early(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	struct state *s = data;
	const struct perf_dlfilter_al *from, *to = NULL;
	struct binrec_branch rec;
	struct thread_state *tt;
	struct extent *here;
	uint32_t flags;
	bool jump, within;

	if (s->failed || !sample->addr_correlates_sym)
		return 0;
	if (sample->event != s->event) {	/* one string per event: compared once */
		s->event = sample->event;
		s->event_is_branches = is_branches(sample->event);
	}
	if (!s->event_is_branches)
		return 0;
	flags = binrec_flags(sample->flags);
	if (!flags || !(tt = thread_of(s, sample->tid)))
		return 0;
	/* perf printed something since our last record (a decode error, a
	 * switch record, a trace start or end), or a syscall, through which
	 * any thread of a process maps, unmaps or execs */
	if (__fpending(stdout) != s->pending || (flags & (BINREC_F_SYSCALL | BINREC_F_SYSRET)))
		forget_threads(s);
	if (tt->pid != sample->pid) {	/* another process with this tid now */
		forget_thread(tt);
		tt->pid = sample->pid;
	}
	here = &tt->here;
	jump = !(flags & ~(BINREC_F_JCC | BINREC_F_JMP | BINREC_F_IN_TX));
	/* A jump inside the symbol of the thread's last resolved sample: it
	 * ran from there to here without any other branch (a call, a return,
	 * a syscall would have been resolved), so no exec or map change came
	 * in between and perf would resolve both ends to that symbol. */
	if (jump && in_extent(here, sample->ip) && in_extent(here, sample->addr))
		return tick(s, tt, sample);
	from = perf_dlfilter_fns.resolve_ip(ctx);
	if (!from)
		return 0;
	if (tt->comm != from->comm) {	/* an exec (or the first sample): other maps */
		forget_thread(tt);
		tt->comm = from->comm;
		tt->comm_id = string_id(s, from->comm);
	}
	if (!symbol_of(s, tt, from, sample->ip, here, &rec.from))
		return 0;
	within = in_extent(here, sample->addr);
	if (jump && !within)
		to = perf_dlfilter_fns.resolve_addr(ctx);
	if (jump && (within || !to || (from->sym == to->sym && from->dso == to->dso)))
		return tick(s, tt, sample);	/* a jump within one function */
	rec.h = (struct binrec_header){ BINREC_MARK, BINREC_BRANCH, sizeof(rec) };
	rec.flags = flags;
	rec.time = sample->time;
	rec.pid = sample->pid;
	rec.tid = sample->tid;
	rec.pad = 0;
	if (within) {
		loc_in(here, sample->addr, &rec.to);
	} else if ((flags & BINREC_F_POP) && tt->nsites &&
		   in_extent(&tt->sites[tt->nsites - 1], sample->addr)) {
		loc_in(&tt->sites[tt->nsites - 1], sample->addr, &rec.to);
	} else if ((flags & BINREC_F_CALL) && in_extent(&sym_slot(tt, sample->addr)->e, sample->addr)) {
		/* a call to a function's start: a symbol the thread was in */
		loc_in(&sym_slot(tt, sample->addr)->e, sample->addr, &rec.to);
	} else {
		struct extent e;

		if (!to)
			to = perf_dlfilter_fns.resolve_addr(ctx);
		if (!to || !symbol_of(s, tt, to, sample->addr, &e, &rec.to))
			return 0;
	}
	rec.comm = tt->comm_id;
	if (s->failed)
		return 0;
	put(s, &rec, sizeof(rec));
	tt->used = true;
	tt->time = sample->time;
	if (flags & BINREC_F_POP)
		return_to(tt, sample->addr);
	if ((flags & BINREC_F_PUSH & ~BINREC_F_SYSCALL) && here->hi != here->lo)
		call_from(tt, here);	/* a syscall's return is resolved: it may exec */
	return 1;
}

const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description = "Writes Intel PT branches as binary records for "
				    "snaptrace-convert, in perf's output between its text lines";
	return "snaptrace: decoded branches in binary";
}
