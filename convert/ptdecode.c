/* SPDX-License-Identifier: MIT */
/*
 * The in-process Intel PT decoder (see ptdecode.h; its parts:
 * ptdecode_int.h). Here: the chunks of each queue's AUX data (split at its
 * PSBs) decoded by ptblock.c on the worker threads and the converter's, a
 * bounded number ahead of the conversion; perf's order of the
 * queues' samples and the side-band (intel_pt_process_queues() with perf's
 * auxtrace_heap, intel_pt_run_decoder(), intel_pt_process_event()); and
 * each sample handed to the converter as the line perf script with
 * snaptrace's dlfilter gives it: a branch as binstream.c makes one of the
 * dlfilter's BRANCH or TICK records, "tr strt", "tr end" and the switch
 * records as perf's text, parsed by conv_parse_line().
 */
#include "ptdecode.h"
#include "ptdecode_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "array.h"
#include "inpath.h"
#include "hash.h"
#include "perfdata.h"
#include "parse.h"
#include "pipeline_types.h"

#define REC_COMM 3
#define REC_EXIT 4
#define REC_FORK 7
#define REC_ITRACE_START 12
#define REC_SWITCH 14
#define REC_SWITCH_CPU_WIDE 15
#define MAX_CPUS 4096           /* perf 6.1's MAX_NR_CPUS: a CPU past it is refused */
#define MISC_COMM_EXEC (1u << 13)          /* PERF_RECORD_MISC_COMM_EXEC */
#define MISC_SWITCH_OUT (1u << 13)         /* PERF_RECORD_MISC_SWITCH_OUT */
#define MISC_SWITCH_OUT_PREEMPT (1u << 14) /* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
#define LINE_MAX_TEXT 1024      /* a perf text line made here */
#define CHUNK_BYTES (16u << 10) /* AUX bytes of a chunk (-j N), at least */
#define AHEAD_PER_JOB 4         /* chunks decoded ahead of the conversion, per job */

static const char unknown[] = "[unknown]";

/* ---- chunks, decoded on worker threads ---- */

/* Splits queue Q (index QI) into chunks at its PSBs, CHUNK_BYTES or more
 * each (whatever -j: the samples of a chunk are held until converted).
 * Returns false when out of memory. */
static bool plan_chunks(struct ptdecode *d, size_t qi)
{
	struct ptd_queue *q = &d->queues[qi];
	size_t k = 0;

	q->chunk0 = d->nchunks;
	do {
		struct ptd_chunk *c, *t = realloc(d->chunks, (d->nchunks + 1) * sizeof(*t));
		size_t next = k + 1;

		if (!t)
			return false;
		d->chunks = t;
		c = &t[d->nchunks++];
		memset(c, 0, sizeof(*c));
		c->q = qi;
		c->first = k == 0;
		c->begin = k ? q->psbs[k] : 0;
		c->psb = k;
		c->tsc = q->npsbs ? q->psb_tscs[k] : 0;
		while (next < q->npsbs && q->psbs[next] - c->begin < CHUNK_BYTES)
			next++;
		if (next >= q->npsbs) {
			c->end = q->data_len;
			c->last = true;
		} else {
			c->end = q->psb_ends[next];	/* the next chunk's PSB+ too */
		}
		k = next;
	} while (!d->chunks[d->nchunks - 1].last);
	q->nchunks = d->nchunks - q->chunk0;
	q->cur_chunk = q->chunk0;
	return true;
}

static int by_tsc(const void *x, const void *y, void *arg)
{
	const struct ptd_chunk *ch = arg;
	const struct ptd_chunk *a = &ch[*(const size_t *)x], *b = &ch[*(const size_t *)y];

	if (a->tsc != b->tsc)
		return a->tsc < b->tsc ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* Decodes chunk C on the calling thread with IMAGES (each process's), and
 * gives back its pages but those the next chunk reads (its PSB+): a page
 * given back and read again maps again the whole folio around it. */
static void decode_chunk(struct ptdecode *d, struct ptd_chunk *c, struct pt_image *const *images)
{
	const struct ptd_queue *q = &d->queues[c->q];

	ptblock_decode(c, q, images);
	ptdata_forget(q, c->begin, c->last ? q->data_len : c[1].begin);
}

/* Gives chunk C a buffer for its samples from the pool, when it has one
 * (D->lock held): a chunk's samples are megabytes, allocated and freed
 * again and again otherwise (page faults were a tenth of the time). */
static void take_buffer(struct ptdecode *d, struct ptd_chunk *c)
{
	if (!d->npool)
		return;
	d->npool--;
	c->s = d->pool[d->npool].s;
	c->cap = d->pool[d->npool].cap;
}

/* Takes chunk C to decode (D->lock held). */
static void take(struct ptdecode *d, struct ptd_chunk *c)
{
	c->state = PTD_BUSY;
	d->ahead++;
	take_buffer(d, c);
}

/* The next chunk to decode, in time order, taken (D->lock held); NULL when
 * none is left or the most are decoded ahead of the conversion. */
static struct ptd_chunk *take_next(struct ptdecode *d)
{
	while (d->next_todo < d->nchunks && d->ahead < d->ahead_max) {
		struct ptd_chunk *c = &d->chunks[d->order[d->next_todo++]];

		if (c->state == PTD_TODO) {	/* else the converter took it */
			take(d, c);
			return c;
		}
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct ptd_worker *w = arg;
	struct ptdecode *d = w->d;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct ptd_chunk *c = NULL;

		while (!d->stop && !(c = take_next(d)))
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->stop)
			break;
		pthread_mutex_unlock(&d->lock);
		decode_chunk(d, c, w->images);
		pthread_mutex_lock(&d->lock);
		c->state = PTD_DONE;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Frees worker W's images. */
static void worker_free(struct ptdecode *d, struct ptd_worker *w)
{
	for (size_t i = 0; w->images && i < d->nprocs; i++)
		pt_image_free(w->images[i]);
	free(w->images);
	w->images = NULL;
}

/* Gives worker W a copy of each process's image, here, before any thread
 * decodes: a libipt image is read-only to no thread (pt_image_read() moves
 * the section it found to the front of its list), so copying the one the
 * converter's thread decodes with while it decodes once made -j 2 decode
 * with a damaged list ("no memory mapped at this address", 1 run in 20).
 * Returns false when out of memory. */
static bool worker_images(struct ptdecode *d, struct ptd_worker *w)
{
	w->d = d;
	w->images = calloc(d->nprocs + 1, sizeof(*w->images));
	for (size_t i = 0; w->images && i < d->nprocs; i++) {
		w->images[i] = pt_image_alloc(NULL);
		if (!w->images[i] || pt_image_copy(w->images[i], d->procs[i]->image) < 0) {
			worker_free(d, w);
			return false;
		}
	}
	return w->images != NULL;
}

/* Starts JOBS - 1 workers (the converter's thread decodes too). Returns
 * false when out of memory (then none runs). */
static bool start_workers(struct ptdecode *d, unsigned jobs)
{
	d->order = malloc(d->nchunks * sizeof(*d->order));
	d->images = calloc(d->nprocs + 1, sizeof(*d->images));
	if (!d->order || !d->images) {
		free(d->order);
		free(d->images);
		d->order = NULL;
		d->images = NULL;
		return false;
	}
	for (size_t i = 0; i < d->nprocs; i++)
		d->images[i] = d->procs[i]->image;
	for (size_t i = 0; i < d->nchunks; i++)
		d->order[i] = i;
	array_sort_r(d->order, d->nchunks, sizeof(*d->order), by_tsc, d->chunks);
	d->ahead_max = (size_t)jobs * AHEAD_PER_JOB;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->workers = calloc(jobs, sizeof(*d->workers));
	if (!d->workers)
		return false;
	for (unsigned i = 0; i + 1 < jobs && d->nchunks > d->nqueues; i++) {
		struct ptd_worker *w = &d->workers[d->nworkers];

		if (!worker_images(d, w))
			return false;
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			worker_free(d, w);
			break;
		}
		d->nworkers++;
	}
	return true;
}

static void stop_workers(struct ptdecode *d)
{
	if (!d->order)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	for (size_t i = 0; i < d->nworkers; i++) {
		pthread_join(d->workers[i].thread, NULL);
		worker_free(d, &d->workers[i]);
	}
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d->workers);
	free(d->order);
	free(d->images);
	d->workers = NULL;
	d->order = NULL;
	d->images = NULL;
	d->nworkers = 0;
}

/* Chunk C, decoded: here when no worker has taken it, else by the worker
 * (waited for); while a worker decodes it, this thread decodes the next
 * chunks it can take (the converter's thread is one of the -j N: it once
 * waited for the worker most of the time, and -j 2 gained no wall time). */
static struct ptd_chunk *chunk_ready(struct ptdecode *d, struct ptd_chunk *c)
{
	pthread_mutex_lock(&d->lock);
	while (c->state != PTD_DONE) {
		struct ptd_chunk *o = c;

		if (c->state == PTD_TODO) {
			take(d, c);
		} else if (!(o = take_next(d))) {
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		pthread_mutex_unlock(&d->lock);
		decode_chunk(d, o, d->images);
		pthread_mutex_lock(&d->lock);
		o->state = PTD_DONE;
	}
	pthread_mutex_unlock(&d->lock);
	return c;
}

/* Frees chunk C's samples once converted (their buffer kept for another
 * chunk); a worker may decode another. */
static void chunk_done(struct ptdecode *d, struct ptd_chunk *c)
{
	pthread_mutex_lock(&d->lock);
	if (d->npool < PTD_POOL) {
		d->pool[d->npool++] = (struct ptd_buffer){ c->s, c->cap };
	} else {
		free(c->s);
	}
	c->s = NULL;
	c->n = c->cap = 0;
	d->ahead--;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* perf's intel_pt_decode(): the next sample of Q into q->cur. Returns
 * false at the queue's end or on a failure (D->status). */
static bool next_sample(struct ptdecode *d, struct ptd_queue *q)
{
	for (;;) {
		struct ptd_chunk *c;

		if (q->cur_chunk == q->chunk0 + q->nchunks)
			return false;
		c = &d->chunks[q->cur_chunk];
		if (!q->ready)
			chunk_ready(d, c);
		q->ready = true;
		if (c->failed) {
			if (!d->status) {
				snprintf(d->errbuf, d->errlen, "%s", c->why ? c->why : "out of memory");
				d->status = c->why ? PIPELINE_FALLBACK : PIPELINE_NOMEM;
			}
			return false;
		}
		if (q->cur_pos < c->n) {
			q->cur = c->s[q->cur_pos++];
			return true;
		}
		chunk_done(d, c);
		q->cur_chunk++;
		q->cur_pos = 0;
		q->ready = false;
		/* no chunk left reads the bytes before the next one's PSB */
		ptdata_forget_before(q, q->cur_chunk == q->chunk0 + q->nchunks ? q->data_len :
					d->chunks[q->cur_chunk].begin);
	}
}

/* ---- lines to the converter ---- */

/* The interned function of SYM in DSO (either may be NULL), with the
 * spans of their names, or NULL when out of memory. */
static const struct ptd_func *func_of(struct ptdecode *d, const struct perfsym *sym,
				      const struct ptd_dso *dso)
{
	uint64_t key = hash64((uintptr_t)sym) ^ (uintptr_t)dso;
	struct ptd_func *e;
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&d->func_index, key, &probe)) != HASH_NONE)
		if (d->funcs[k].sym == sym && d->funcs[k].dso == dso)
			return &d->funcs[k];
	e = array_grow(d->funcs, &d->capfuncs, d->nfuncs, sizeof(*e));
	if (!e)
		return NULL;
	d->funcs = e;
	e = &d->funcs[d->nfuncs];
	e->name = sym ? (struct conv_span){ sym->name, (uint32_t)strlen(sym->name) } :
			(struct conv_span){ NULL, 0 };
	e->dso_name = dso ? (struct conv_span){ dso->name, (uint32_t)strlen(dso->name) } :
			    (struct conv_span){ unknown, sizeof(unknown) - 1 };
	e->f = conv_driver_func(d->cv, e->name, e->dso_name);
	if (!e->f || hash_index_add(&d->func_index, key, (uint32_t)d->nfuncs))
		return NULL;
	e->sym = sym;
	e->dso = dso;
	d->nfuncs++;
	return e;
}

/* LOC as binstream.c makes it of a dlfilter's record: IP's symbol and dso
 * (interned once per entry of P's symbol cache: the hash lookup was a
 * twentieth of the CPU). Returns false when out of memory. */
static bool loc_of(struct ptdecode *d, struct ptd_proc *p, uint64_t ip, struct conv_loc *loc)
{
	struct ptd_sym_hit *h = ptimage_resolve(p, ip);
	const struct ptd_map *m = h->map;
	const struct perfsym *s = h->sym;
	const struct ptd_func *f;

	if (!h->func) {
		f = func_of(d, s, m ? m->dso : NULL);
		if (!f)
			return false;
		h->func = (uint32_t)(f - d->funcs) + 1;
	}
	f = &d->funcs[h->func - 1];
	memset(loc, 0, sizeof(*loc));
	loc->ip = ip;
	loc->has_symtext = true;
	loc->dso = f->dso_name;
	loc->sym = f->name;
	if (s) {
		loc->symoff = ip - m->start + m->pgoff - s->start;
		loc->has_symoff = true;
	}
	loc->func = f->f;
	return true;
}

/* Writes LOC as perf script prints it: "IP SYM+0xOFF (DSO)". */
static int loc_text(char *buf, size_t size, struct ptd_proc *p, uint64_t ip)
{
	const struct ptd_map *m = NULL;
	const struct perfsym *s = NULL;

	if (ip) {
		const struct ptd_sym_hit *h = ptimage_resolve(p, ip);

		m = h->map;
		s = h->sym;
	}
	if (s)
		return snprintf(buf, size, "%16" PRIx64 " %s+0x%" PRIx64 " (%s)", ip, s->name,
				ip - m->start + m->pgoff - s->start, m->dso->name);
	return snprintf(buf, size, "%16" PRIx64 " [unknown] (%s)", ip, m ? m->dso->name : unknown);
}

/* Hands the text line TEXT (perf's words) to the converter. */
static int text_line(struct ptdecode *d, const char *text, size_t len)
{
	struct conv_line l;
	int e;

	d->gen++;	/* the dlfilter forgets what it kept at any text of perf's */
	conv_parse_line(text, len, &l);
	e = conv_driver_parsed(d->cv, &l);
	if (e) {
		d->conv_err = e;
		d->status = PIPELINE_CONVERT;
	}
	return e;
}

/* The comm column of thread T: its comm, or perf's ":TID". */
static const char *comm_of(const struct ptd_thread *t, char *buf, size_t size)
{
	if (t->comm[0])
		return t->comm;
	snprintf(buf, size, ":%d", t->tid);
	return buf;
}

/* Emits sample S of queue Q as perf script shows it. */
static void emit(struct ptdecode *d, struct ptd_queue *q, const struct ptd_sample *s)
{
	struct ptd_thread *t;
	uint64_t ns = ptdata_perf_time(d, s->tsc);
	struct conv_line *l = &d->line;
	char cbuf[24];
	int e;

	if (s->kind == PTD_HIDDEN)
		return;
	if (!q->proc) {
		/* perf would resolve it in maps that hold no code */
		snprintf(d->errbuf, d->errlen, "a sample of the AUX data of CPU %d while it runs "
			 "thread %d, of a process that maps no code", q->cpu, q->tid);
		d->status = PIPELINE_FALLBACK;
		return;
	}
	t = ptimage_thread(d, q->tid);
	if (!t) {
		d->status = PIPELINE_NOMEM;
		return;
	}
	if (s->kind != PTD_BRANCH) {
		char line[LINE_MAX_TEXT], from[512], to[512];
		const char *what = s->kind == PTD_BEGIN ? "tr strt" :
				   s->flags & CONV_F_SYSCALL ? "tr end  syscall" :
				   s->flags & CONV_F_ASYNC ? "tr end  async" :
				   s->flags & CONV_F_CALL ? "tr end  call" :
				   s->flags & CONV_F_RETURN ? "tr end  return" :
				   s->flags & CONV_F_JCC ? "tr end  jcc" :
				   s->flags & CONV_F_JMP ? "tr end  jmp" : "tr end";
		int n;

		loc_text(from, sizeof(from), q->proc, s->ip);
		loc_text(to, sizeof(to), q->proc, s->addr);
		n = snprintf(line, sizeof(line), "%16s %5d/%-5d %" PRIu64 ".%09" PRIu64 ": "
			     "         1  branches:u:   %-20s %s => %s", comm_of(t, cbuf, sizeof(cbuf)),
			     t->pid, t->tid, ns / 1000000000u, ns % 1000000000u, what, from, to);
		text_line(d, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		return;
	}
	l->kind = CONV_LINE_BRANCH;
	l->text = (struct conv_span){ "(binary record)", 15 };
	l->pid = t->pid;
	l->tid = t->tid;
	l->has_time = true;
	l->ts = ns;
	l->flags = s->flags;
	l->comm = t->comm[0] ? (struct conv_span){ t->comm, t->comm_len } :
			       (struct conv_span){ cbuf, (uint32_t)snprintf(cbuf, sizeof(cbuf), ":%d",
									     t->tid) };
	if (!(s->flags & ~(CONV_F_JCC | CONV_F_JMP))) {
		const struct ptd_sym_hit *h = ptimage_resolve(q->proc, s->ip);
		const struct ptd_map *m1 = h->map, *m2;
		const struct perfsym *s1 = h->sym, *s2;

		h = ptimage_resolve(q->proc, s->addr);
		m2 = h->map;
		s2 = h->sym;
		if (s1 == s2 && (m1 ? m1->dso : NULL) == (m2 ? m2->dso : NULL)) {
			/* a jump within one function: the dlfilter's TICK */
			if (t->used && t->gen == d->gen && t->last_time == ns)
				return;
			l->flags = CONV_F_JMP;
			l->from = l->to = (struct conv_loc){ .has_symtext = true };
			goto out;
		}
	}
	if (!loc_of(d, q->proc, s->ip, &l->from) || !loc_of(d, q->proc, s->addr, &l->to)) {
		d->status = PIPELINE_NOMEM;
		return;
	}
	if (s->flags & (CONV_F_SYSCALL | CONV_F_SYSRET))
		d->gen++;
out:
	t->used = true;
	t->gen = d->gen;
	t->last_time = ns;
	e = conv_driver_parsed(d->cv, l);
	if (e) {
		d->conv_err = e;
		d->status = PIPELINE_CONVERT;
	}
}

static void heap_add(struct ptdecode *d, size_t q, uint64_t ord)
{
	size_t pos = d->nheap++;

	while (pos) {
		size_t parent = (pos - 1) / 2;

		if (d->heap[parent].ord <= ord)
			break;
		d->heap[pos] = d->heap[parent];
		pos = parent;
	}
	d->heap[pos] = (struct ptd_heap_item){ q, ord };
}

static void heap_pop(struct ptdecode *d)
{
	size_t pos = 0, cnt = d->nheap, last;

	if (!cnt)
		return;
	d->nheap--;
	for (;;) {
		size_t left = 2 * pos + 1, right = left + 1;

		if (left >= cnt)
			break;
		if (right >= cnt) {
			d->heap[pos] = d->heap[left];
			return;
		}
		if (d->heap[left].ord < d->heap[right].ord) {
			d->heap[pos] = d->heap[left];
			pos = left;
		} else {
			d->heap[pos] = d->heap[right];
			pos = right;
		}
	}
	last = cnt - 1;
	/* perf's heapify of the last item at POS */
	{
		struct ptd_heap_item it = d->heap[last];

		while (pos) {
			size_t parent = (pos - 1) / 2;

			if (d->heap[parent].ord <= it.ord)
				break;
			d->heap[pos] = d->heap[parent];
			pos = parent;
		}
		d->heap[pos] = it;
	}
}

/* Q's next sample (perf's decoder walks to it now), when the decoder walked
 * the code of the process perf walks in: that of Q's task now (a CPU's
 * queue: the task the side-band put on the CPU so far). Returns false at
 * the queue's end or on a failure (D->status). */
static bool walk_sample(struct ptdecode *d, struct ptd_queue *q)
{
	const struct ptd_proc *p;

	if (d->status || !next_sample(d, q))
		return false;
	if (q->cur.walk == PTD_NO_WALK || d->procs[q->cur.walk] == q->proc)
		return true;
	p = d->procs[q->cur.walk];
	snprintf(d->errbuf, d->errlen, "the AUX data of CPU %d decoded in the code of process %d "
		 "where perf walks %s %d's", q->cpu, p->pid, q->proc ? "process" : "thread",
		 q->proc ? q->proc->pid : q->tid);
	d->status = PIPELINE_FALLBACK;
	return false;
}

/* perf's intel_pt_run_decoder(): emits Q's samples until its time reaches
 * *LIMIT. Returns 1 at its end, else 0 with its time in *LIMIT. */
static int run_queue(struct ptdecode *d, struct ptd_queue *q, uint64_t *limit)
{
	for (;;) {
		if (q->have_cur)
			emit(d, q, &q->cur);
		q->have_cur = false;
		if (!walk_sample(d, q))
			return 1;
		q->have_cur = true;
		if (q->cur.tsc > q->ts)
			q->ts = q->cur.tsc;
		if (q->ts >= *limit) {
			*limit = q->ts;
			return 0;
		}
	}
}

/* perf's intel_pt_set_pid_tid_cpu(): queue Q decodes the thread its CPU
 * runs now (perf's machine__get_current_tid()), in the code of its process
 * (Q->proc; NULL: one that maps none): perf walks the code in the thread's
 * maps. Returns false when out of memory. */
static bool cpu_thread(struct ptdecode *d, struct ptd_queue *q)
{
	const struct ptd_thread *t;
	uint16_t p;

	q->tid = (size_t)q->cpu < d->ncpus ? d->cpus[q->cpu].tid : -1;
	q->proc = NULL;
	if (q->tid == -1)
		return true;
	t = ptimage_thread(d, q->tid);
	if (!t) {
		d->status = PIPELINE_NOMEM;
		return false;
	}
	p = ptimage_proc_index(d, t->pid);
	q->proc = p == PTD_NO_WALK ? NULL : d->procs[p];
	return true;
}

static void process_queues(struct ptdecode *d, uint64_t limit)
{
	while (d->nheap && !d->status && d->heap[0].ord < limit) {
		size_t qi = d->heap[0].q;
		uint64_t ts;

		heap_pop(d);
		ts = d->nheap && d->heap[0].ord + 1 < limit ? d->heap[0].ord + 1 : limit;
		if (d->queues[qi].cpu_thread && !cpu_thread(d, &d->queues[qi]))
			break;
		if (!run_queue(d, &d->queues[qi], &ts))
			heap_add(d, qi, ts);
	}
}

/* perf's intel_pt_setup_queue(): the first sample of each queue. */
static void setup_queues(struct ptdecode *d)
{
	for (size_t i = 0; i < d->nqueues && !d->status; i++) {
		struct ptd_queue *q = &d->queues[i];

		if (!q->data_len || !walk_sample(d, q))
			continue;
		q->have_cur = true;
		q->ts = q->cur.tsc;
		heap_add(d, i, q->ts);
	}
}

/* perf's machine__set_current_tid(): CPU runs task PID/TID now (the
 * thread made known, its process too). */
static void set_cpu_task(struct ptdecode *d, int32_t cpu, int32_t pid, int32_t tid)
{
	struct ptd_thread *t;

	if (cpu < 0 || cpu >= MAX_CPUS) {
		snprintf(d->errbuf, d->errlen, "a switch record of CPU %d", cpu);
		d->status = PIPELINE_FALLBACK;
		return;
	}
	if ((size_t)cpu >= d->ncpus) {
		struct ptd_cpu *c = realloc(d->cpus, ((size_t)cpu + 1) * sizeof(*c));

		if (!c) {
			d->status = PIPELINE_NOMEM;
			return;
		}
		d->cpus = c;
		for (size_t i = d->ncpus; i <= (size_t)cpu; i++)
			d->cpus[i] = (struct ptd_cpu){ -1, -1 };
		d->ncpus = (size_t)cpu + 1;
	}
	d->cpus[cpu] = (struct ptd_cpu){ pid, tid };
	t = ptimage_thread(d, tid);
	if (!t)
		d->status = PIPELINE_NOMEM;
	else if (t->pid == -1)
		t->pid = pid;
}

/* What perf's intel_pt_process_event() learns of the CPUs' tasks from
 * side-band record S: ITRACE_START (per-CPU AUX buffers); a switch in
 * (intel_pt_context_switch(); with have_sched_switch 3 only where the CPU's
 * task is another: intel_pt_context_switch_in()); with have_sched_switch 3
 * a switch out, whose CPU-wide record names the next task. */
static void track_cpus(struct ptdecode *d, const struct ptd_sb *s)
{
	bool out = s->misc & MISC_SWITCH_OUT;

	if (s->type == REC_ITRACE_START && d->per_cpu) {
		set_cpu_task(d, s->cpu, s->pid, s->tid);
	} else if (s->type == REC_SWITCH || s->type == REC_SWITCH_CPU_WIDE) {
		if (out && d->sched_switch == 3)
			set_cpu_task(d, s->cpu, s->np_pid, s->np_tid);
		else if (!out && (d->sched_switch != 3 || s->cpu < 0 || (size_t)s->cpu >= d->ncpus ||
				  d->cpus[s->cpu].tid != s->tid))
			set_cpu_task(d, s->cpu, s->pid, s->tid);
	}
}

/* Hands the converter the line perf script prints of side-band record S
 * (perf_sample__fprintf_start() with thread T's comm and S's sample_id
 * task, then perf_event__fprintf()'s TEXT). */
static void sb_line(struct ptdecode *d, const struct ptd_sb *s, const struct ptd_thread *t,
		    const char *text)
{
	char line[LINE_MAX_TEXT], cbuf[24];
	int n = snprintf(line, sizeof(line), "%16s %5d/%-5d %" PRIu64 ".%09" PRIu64 ": %s",
			 comm_of(t, cbuf, sizeof(cbuf)), s->spid, s->stid, s->time / 1000000000u,
			 s->time % 1000000000u, text);

	text_line(d, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* A side-band record at its time: what it changes, and the line perf
 * script prints of it (--show-task-events, --show-switch-events): a COMM
 * or FORK after perf took it, an EXIT or switch before. */
static void side_band(struct ptdecode *d, const struct ptd_sb *s)
{
	struct ptd_thread *t, *parent;
	char text[LINE_MAX_TEXT / 2];
	const char *inout;

	track_cpus(d, s);
	t = d->status ? NULL : ptimage_thread(d, s->tid);
	if (!t) {
		if (!d->status)
			d->status = PIPELINE_NOMEM;
		return;
	}
	switch (s->type) {
	case REC_COMM:
		t->pid = s->pid;
		snprintf(t->comm, sizeof(t->comm), "%s", s->str);
		t->comm_len = (uint32_t)strlen(t->comm);
		snprintf(text, sizeof(text), "PERF_RECORD_COMM%s: %s:%d/%d",
			 s->misc & MISC_COMM_EXEC ? " exec" : "", s->str, s->pid, s->tid);
		sb_line(d, s, t, text);
		break;
	case REC_FORK:
		/* machine__process_fork_event(): the thread made anew, with its
		 * parent's comm when the parent has one */
		parent = ptimage_thread(d, s->np_tid);
		t = ptimage_thread(d, s->tid);	/* the table may have moved */
		if (!t || !parent) {
			d->status = PIPELINE_NOMEM;
			return;
		}
		t->pid = s->pid;
		memcpy(t->comm, parent->comm, sizeof(t->comm));
		t->comm_len = parent->comm_len;
		/* fall through */
	case REC_EXIT:
		if (t->pid == -1)
			t->pid = s->pid;
		snprintf(text, sizeof(text), "PERF_RECORD_%s(%d:%d):(%d:%d)",
			 s->type == REC_FORK ? "FORK" : "EXIT", s->pid, s->tid, s->np_pid, s->np_tid);
		sb_line(d, s, t, text);
		break;
	case REC_SWITCH: case REC_SWITCH_CPU_WIDE:
		/* perf_event__fprintf_switch() */
		if (t->pid == -1)
			t->pid = s->pid;
		inout = !(s->misc & MISC_SWITCH_OUT) ? "IN         " :
			s->misc & MISC_SWITCH_OUT_PREEMPT ? "OUT preempt" : "OUT        ";
		if (s->type == REC_SWITCH)
			snprintf(text, sizeof(text), "PERF_RECORD_SWITCH %s", inout);
		else
			snprintf(text, sizeof(text), "PERF_RECORD_SWITCH_CPU_WIDE %s  %s pid/tid: %5d/%-5d",
				 inout, s->misc & MISC_SWITCH_OUT ? "next" : "prev", s->np_pid,
				 s->np_tid);
		sb_line(d, s, t, text);
		break;
	}
}

int ptdecode_convert(struct ptdecode *d, struct conv_driver *cv, int *conv_err, char *errbuf,
		     size_t errlen)
{
	bool set_up = false;

	d->cv = cv;
	d->errbuf = errbuf;
	d->errlen = errlen;
	d->status = PIPELINE_OK;
	/* the replay names the threads as it goes */
	for (size_t i = 0; i < d->nthreads; i++) {
		d->threads[i].comm[0] = 0;
		if (!d->threads[i].tid)
			ptimage_idle_comm(&d->threads[i]);
	}
	for (size_t i = 0; i < d->nsbs && !d->status; i++) {
		const struct ptd_sb *s = &d->sbs[i];

		if (s->time && !set_up) {
			setup_queues(d);
			set_up = true;
		}
		if (s->time)
			process_queues(d, ptdata_tsc(d, s->time));
		if (!d->status)
			side_band(d, s);
	}
	if (!set_up)
		setup_queues(d);
	process_queues(d, UINT64_MAX);
	*conv_err = d->conv_err;
	if (d->status == PIPELINE_NOMEM)
		snprintf(errbuf, errlen, "out of memory");
	return d->status;
}

/* Adds to Q's processes: from TSC on, process PID (it maps code or not). */
static bool add_task(struct ptdecode *d, struct ptd_queue *q, uint64_t tsc, int32_t pid)
{
	uint16_t p = ptimage_proc_index(d, pid);
	struct ptd_task *t;

	if (q->ntasks && q->tasks[q->ntasks - 1].pid == pid)
		return true;
	t = realloc(q->tasks, (q->ntasks + 1) * sizeof(*t));
	if (!t)
		return false;
	q->tasks = t;
	t[q->ntasks++] = (struct ptd_task){ tsc, pid, p, p == PTD_NO_WALK ? NULL : d->procs[p] };
	return true;
}

/* Each queue's processes by time (ptd_task): a thread's queue, its own; a
 * CPU's, those of the tasks the side-band puts on the CPU (track_cpus(), as
 * the replay does), each from the TSC of its record on: perf walks on from
 * a sample once every record up to the sample's time is processed, and
 * none later (process_queues()); a record of time 0 comes first. Returns
 * 0, 1 with a reason, or -ENOMEM. */
static int cpu_tasks(struct ptdecode *d, char *why, size_t len)
{
	int rc = 0;

	for (size_t i = 0; i < d->nqueues; i++)
		if (d->queues[i].data_len && !d->queues[i].cpu_thread &&
		    !add_task(d, &d->queues[i], 0, d->queues[i].proc->pid))
			return -ENOMEM;
	for (size_t i = 0; i < d->nsbs && !rc; i++) {
		const struct ptd_sb *s = &d->sbs[i];
		uint64_t tsc = s->time ? ptdata_tsc(d, s->time) : 0;

		track_cpus(d, s);
		if (d->status) {
			rc = d->status == PIPELINE_NOMEM ? -ENOMEM :
			     ptdata_why(why, len, "a switch record of CPU %d", s->cpu);
			break;
		}
		for (size_t k = 0; k < d->nqueues; k++) {
			struct ptd_queue *q = &d->queues[k];
			const struct ptd_thread *t;

			if (!q->data_len || !q->cpu_thread || q->cpu != s->cpu ||
			    (size_t)s->cpu >= d->ncpus || d->cpus[s->cpu].tid == -1)
				continue;
			t = ptimage_thread(d, d->cpus[s->cpu].tid);
			if (!t || !add_task(d, q, tsc, t->pid))
				rc = -ENOMEM;
		}
	}
	/* the replay follows the CPUs anew */
	free(d->cpus);
	d->cpus = NULL;
	d->ncpus = 0;
	d->status = PIPELINE_OK;
	return rc;
}

/* Keeps a build id the perf.data names (perfdata_buildids()). */
static int keep_buildid(void *arg, const char *hex, const char *path)
{
	struct ptdecode *d = arg;
	struct ptd_buildid *b = array_grow(d->buildids, &d->capbuildids, d->nbuildids, sizeof(*b));

	if (!b)
		return -ENOMEM;
	d->buildids = b;
	b = &b[d->nbuildids];
	b->path = strdup(path);
	b->hex = strdup(hex);
	if (!b->path || !b->hex) {
		free(b->path);
		free(b->hex);
		return -ENOMEM;
	}
	d->nbuildids++;
	return 0;
}

int ptdecode_open(const char *path, const char *symfs, unsigned jobs, struct ptdecode **out,
		  char *why, size_t whylen)
{
	struct ptdecode *d = calloc(1, sizeof(*d));
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	*out = NULL;
	if (!d || !(d->iscache = pt_iscache_alloc(NULL))) {
		free(d);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	d->symfs = symfs;
	d->fd = inpath_open(AT_FDCWD, path, 0, why, whylen);	/* a regular file only */
	if (d->fd < 0) {
		rc = d->fd;
		ptdecode_close(d);
		return rc;
	}
	rc = ptdata_read(d, why, whylen);
	if (!rc) {
		char bwhy[160];
		int e = perfdata_buildids(path, keep_buildid, d, bwhy, sizeof(bwhy));

		if (e == -ENOMEM)
			rc = -ENOMEM;
		else if (e)
			rc = ptdata_why(why, whylen, "its build ids cannot be read: %s", bwhy);
	}
	if (!rc && (uint64_t)lseek(d->fd, 0, SEEK_END) < d->data_end) {
		rc = 1;
		snprintf(why, whylen, "its AUX data is cut short");
	}
	for (size_t i = 0; !rc && i < d->nqueues; i++) {
		struct ptd_queue *q = &d->queues[i];

		if (!q->data_len)
			continue;
		/* mapped, not read: the pages decoded are given back (ptdata_forget()) */
		q->map_off = q->data_off & ~(uint64_t)(page - 1);
		q->map_len = q->data_len + (q->data_off - q->map_off);
		q->map = mmap(NULL, q->map_len, PROT_READ, MAP_PRIVATE, d->fd, (off_t)q->map_off);
		if (q->map == MAP_FAILED) {
			q->map = NULL;
			rc = 1;
			snprintf(why, whylen, "its AUX data cannot be mapped: %s", strerror(errno));
			break;
		}
		q->data = (uint8_t *)q->map + (q->data_off - q->map_off);
		q->ctc = &d->ctc;
		rc = ptdata_scan(q, why, whylen);
		ptdata_forget(q, 0, q->data_len);
		q->forgot = 0;
	}
	if (!rc)
		rc = ptimage_setup(d, why, whylen);
	if (!rc)
		rc = cpu_tasks(d, why, whylen);
	for (size_t i = 0; !rc && i < d->nqueues; i++)
		if (d->queues[i].data_len && !plan_chunks(d, i))
			rc = -ENOMEM;
	if (!rc && (!start_workers(d, jobs ? jobs : 1) ||
		    !(d->heap = calloc(d->nqueues + 1, sizeof(*d->heap)))))
		rc = -ENOMEM;
	if (rc == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	if (rc) {
		ptdecode_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

void ptdecode_close(struct ptdecode *d)
{
	if (!d)
		return;
	stop_workers(d);
	for (size_t i = 0; i < d->nchunks; i++) {
		free(d->chunks[i].s);
		free(d->chunks[i].why);
	}
	for (size_t i = 0; i < d->npool; i++)
		free(d->pool[i].s);
	for (size_t i = 0; i < d->nqueues; i++) {
		if (d->queues[i].map)
			munmap(d->queues[i].map, d->queues[i].map_len);
		free(d->queues[i].psbs);
		free(d->queues[i].psb_ends);
		free(d->queues[i].psb_tscs);
		free(d->queues[i].psb_times);
		free(d->queues[i].tasks);
	}
	ptimage_free(d);
	for (size_t i = 0; i < d->nbuildids; i++) {
		free(d->buildids[i].path);
		free(d->buildids[i].hex);
	}
	free(d->buildids);
	for (size_t i = 0; i < d->nsbs; i++)
		free(d->sbs[i].str);
	pt_iscache_free(d->iscache);
	if (d->fd >= 0)
		close(d->fd);
	free(d->chunks);
	free(d->queues);
	free(d->sbs);
	free(d->heap);
	free(d->cpus);
	free(d->funcs);
	hash_index_free(&d->func_index);
	free(d);
}
