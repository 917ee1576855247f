/* SPDX-License-Identifier: MIT */
/*
 * ptimage: what the in-process decoder knows of the traced processes
 * (ptdecode_int.h): their threads, their executable mappings and the files
 * behind them (perfsym.c's symbols, the bytes for instruction lengths, a
 * section of the libipt image of the process), read under --symfs as perf
 * script reads them; the vdso is this process's own, as perf's is (perf
 * decodes on the machine that recorded: its build-id cache is not read).
 * A mapped file that is missing is a reason to leave the file to perf.
 */
#include "ptdecode_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "hash.h"
#include "inpath.h"

#define REC_MMAP 1
#define REC_COMM 3
#define REC_FORK 7
#define REC_MMAP2 10
#define PROT_EXEC_BIT 4u

struct ptd_thread *ptimage_thread(struct ptdecode *d, int32_t tid)
{
	struct ptd_thread *t;
	uint64_t key = (uint32_t)tid;
	size_t probe = 0;
	uint32_t k = hash_index_next(&d->thread_index, key, &probe);

	if (k != HASH_NONE)
		return &d->threads[k];	/* a tid is its key: one entry */
	t = array_grow(d->threads, &d->capthreads, d->nthreads, sizeof(*t));
	if (!t || hash_index_add(&d->thread_index, key, (uint32_t)d->nthreads))
		return NULL;
	d->threads = t;
	t = &t[d->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid ? -1 : 0;	/* perf's idle task (perf_session__register_idle_thread()) */
	if (!tid)
		ptimage_idle_comm(t);
	return t;
}

void ptimage_idle_comm(struct ptd_thread *t)
{
	t->comm_len = (uint32_t)snprintf(t->comm, sizeof(t->comm), "swapper");
}

static struct ptd_proc *proc_of(struct ptdecode *d, int32_t pid)
{
	struct ptd_proc **p, *n;

	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i]->pid == pid)
			return d->procs[i];
	p = array_grow(d->procs, &d->capprocs, d->nprocs, sizeof(*p));
	if (!p)
		return NULL;
	d->procs = p;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->pid = pid;
	n->image = pt_image_alloc(NULL);
	if (!n->image) {
		free(n);
		return NULL;
	}
	d->procs[d->nprocs++] = n;
	return n;
}

/* The vdso of this process: perf, run on this machine, decodes with its
 * own (tools/perf/util/vdso.c), as this does. */
static bool own_vdso(struct ptdecode *d)
{
	FILE *f;
	char line[512];
	unsigned long lo, hi;

	if (d->vdso)
		return true;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi > lo) {
			d->vdso = malloc(hi - lo);
			if (d->vdso) {
				memcpy(d->vdso, (const void *)lo, hi - lo);
				d->vdso_len = hi - lo;
			}
			break;
		}
	fclose(f);
	return d->vdso != NULL;
}

static void dso_free(struct ptd_dso *s)
{
	if (s->mapped)
		munmap((void *)s->bytes, s->size);
	perfsym_free(s->syms);
	free(s->name);
	free(s->file);
	free(s);
}

/* The dso of NAME: loaded once. Returns it, or NULL with a reason in WHY
 * (1 in *RC) or out of memory (-ENOMEM in *RC). */
static struct ptd_dso *dso_of(struct ptdecode *d, const char *name, int *rc, char *why, size_t len)
{
	struct ptd_dso **v, *s;
	struct stat st;
	int fd;

	for (size_t i = 0; i < d->ndsos; i++)
		if (!strcmp(d->dsos[i]->name, name))
			return d->dsos[i];
	*rc = -ENOMEM;
	v = array_grow(d->dsos, &d->capdsos, d->ndsos, sizeof(*v));
	if (!v || !(s = calloc(1, sizeof(*s))))
		return NULL;
	d->dsos = v;
	if (!(s->name = strdup(name)) ||
	    asprintf(&s->file, "%s%s", d->symfs && name[0] == '/' ? d->symfs : "", name) < 0) {
		s->file = NULL;
		dso_free(s);
		return NULL;
	}
	if (!strcmp(name, "[vdso]")) {
		if (!own_vdso(d)) {
			*rc = ptdata_why(why, len, "no vdso image");
			dso_free(s);
			return NULL;
		}
		s->bytes = d->vdso;
		s->size = d->vdso_len;
	} else {
		/* a name in the perf.data: only a regular file is opened (inpath.h),
		 * never a FIFO waited on nor a device */
		char no[160] = "no file";

		fd = name[0] == '/' ? inpath_open(AT_FDCWD, s->file, 0, no, sizeof(no)) : -1;
		if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
			*rc = ptdata_why(why, len, "%s: %s", name[0] == '/' ? s->file : name,
				   fd < 0 ? no : "empty");
			if (fd >= 0)
				close(fd);
			dso_free(s);
			return NULL;
		}
		s->size = (size_t)st.st_size;
		s->bytes = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (s->bytes == MAP_FAILED) {
			s->bytes = NULL;
			*rc = ptdata_why(why, len, "%s cannot be mapped", s->file);
			dso_free(s);
			return NULL;
		}
		s->mapped = true;
	}
	s->syms = perfsym_load(s->file, s->mapped ? NULL : s->bytes, s->size,
			       NULL);	/* never another user's recording: input.c */
	if (!s->syms) {
		dso_free(s);
		return NULL;
	}
	for (size_t i = 0; i < d->nbuildids; i++)
		if (!strcmp(d->buildids[i].path, name) && s->syms->build_id[0] &&
		    strcmp(d->buildids[i].hex, s->syms->build_id)) {
			/* perf would not take it: its symbols are not what ran */
			*rc = ptdata_why(why, len, "%s: build id %s, recorded %s", s->file,
					 s->syms->build_id, d->buildids[i].hex);
			dso_free(s);
			return NULL;
		}
	d->dsos[d->ndsos++] = s;
	*rc = 0;
	return s;
}

/* Reads the vdso's bytes for libipt (a callback image: no file). */
static int read_vdso(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		     void *ctx)
{
	const struct ptd_map *m = ctx;
	uint64_t off = ip - m->start + m->pgoff;

	(void)asid;
	if (ip < m->start || ip >= m->end || off >= m->dso->size)
		return -pte_nomap;
	if (size > m->dso->size - off)
		size = m->dso->size - off;
	memcpy(buf, m->dso->bytes + off, size);
	return (int)size;
}

/* Adds an executable mapping S to its process. Returns 0, 1 with a reason,
 * or -ENOMEM. */
static int add_map(struct ptdecode *d, const struct ptd_sb *s, char *why, size_t len)
{
	struct ptd_proc *p = proc_of(d, s->pid);
	struct ptd_map *m;
	struct ptd_dso *dso;
	int rc = 0;

	if (!p)
		return -ENOMEM;
	if (!(s->prot & PROT_EXEC_BIT) || s->addr >= (1ull << 63))
		return 0;	/* data, or the vsyscall page (never traced in user mode) */
	if (s->str[0] != '/' && strcmp(s->str, "[vdso]"))
		return ptdata_why(why, len, "an executable mapping of %s", s->str);
	for (size_t i = 0; i < p->nmaps; i++)
		if (s->addr < p->maps[i].end && p->maps[i].start < s->addr + s->len)
			/* an exec, or a library unmapped and another mapped there: the
			 * image changes while tracing, which one image cannot say */
			return ptdata_why(why, len, "process %d maps %s over %s while tracing", s->pid,
					  s->str, p->maps[i].dso->name);
	dso = dso_of(d, s->str, &rc, why, len);
	if (!dso)
		return rc;
	m = array_grow(p->maps, &p->capmaps, p->nmaps, sizeof(*m));
	if (!m)
		return -ENOMEM;
	p->maps = m;
	m = &m[p->nmaps];
	*m = (struct ptd_map){ s->addr, s->addr + s->len, s->pgoff, dso };
	if (dso->mapped) {
		int isid = pt_iscache_add_file(d->iscache, dso->file, s->pgoff, s->len, s->addr);

		if (isid < 0 || pt_image_add_cached(p->image, d->iscache, isid, NULL) < 0)
			return ptdata_why(why, len, "libipt cannot map %s", dso->file);
	} else {
		/* one map of the vdso per process: the callback's context */
		if (pt_image_set_callback(p->image, read_vdso, m) < 0)
			return ptdata_why(why, len, "libipt cannot map the vdso");
	}
	p->nmaps++;
	return 0;
}

uint16_t ptimage_proc_index(const struct ptdecode *d, int32_t pid)
{
	for (size_t i = 0; i < d->nprocs && i < PTD_NO_WALK; i++)
		if (d->procs[i]->pid == pid && d->procs[i]->nmaps)
			return (uint16_t)i;
	return PTD_NO_WALK;
}

/* Sets up the processes, threads and maps as they are at the AUX data's
 * start: every MMAP and COMM before it; any executable mapping made later
 * is refused (the images would change under the decoder). */
int ptimage_setup(struct ptdecode *d, char *why, size_t len)
{
	int rc = 0;

	for (size_t i = 0; i < d->nsbs && !rc; i++) {
		struct ptd_sb *s = &d->sbs[i];
		struct ptd_thread *t;

		switch (s->type) {
		case REC_MMAP: case REC_MMAP2:
			rc = add_map(d, s, why, len);
			break;
		case REC_COMM: case REC_FORK:
			t = ptimage_thread(d, s->tid);
			if (!t || !proc_of(d, s->pid))
				return -ENOMEM;
			if (t->pid == -1)
				t->pid = s->pid;
			break;
		}
	}
	/* processes forked from another share its maps (a thread); a forked
	 * process with its own maps would need them copied: refused */
	for (size_t i = 0; i < d->nqueues && !rc; i++) {
		struct ptd_queue *q = &d->queues[i];
		struct ptd_thread *t;

		if (q->cpu_thread)
			continue;	/* a CPU's: the process of the task it runs */
		t = ptimage_thread(d, q->tid);
		if (!t)
			return -ENOMEM;
		if (t->pid == -1)
			return ptdata_why(why, len, "a thread (%d) of unknown process", q->tid);
		q->proc = proc_of(d, t->pid);
		if (!q->proc)
			return -ENOMEM;
		if (!q->proc->nmaps)
			return ptdata_why(why, len, "a process (%d) without executable mappings", t->pid);
	}
	return rc;
}

/* The map of process P holding IP, or NULL. */
static const struct ptd_map *map_at(const struct ptd_proc *p, uint64_t ip)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (ip >= p->maps[i].start && ip < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* The instruction bytes at IP (up to 16), or NULL. */
const uint8_t *ptimage_code(const struct ptd_proc *p, uint64_t ip, size_t *n,
			    const struct ptd_map **map)
{
	const struct ptd_map *m = *map;
	uint64_t off;

	if (!m || ip < m->start || ip >= m->end)
		m = *map = map_at(p, ip);
	if (!m)
		return NULL;
	off = ip - m->start + m->pgoff;
	if (off >= m->dso->size)
		return NULL;
	*n = m->dso->size - off < 16 ? (size_t)(m->dso->size - off) : 16;
	return m->dso->bytes + off;
}

/* perf's resolution of IP in process P: its symbol (NULL: none) and map
 * (NULL: in none). */
struct ptd_sym_hit *ptimage_resolve(struct ptd_proc *p, uint64_t ip)
{
	struct ptd_sym_hit *h = &p->cache[hash64(ip) & (PTD_SYM_CACHE - 1)];

	if (h->ip != ip || !ip) {
		h->ip = ip;
		h->map = map_at(p, ip);
		h->sym = h->map ? perfsym_lookup(h->map->dso->syms,
						 ip - h->map->start + h->map->pgoff) : NULL;
		h->func = 0;
	}
	return h;
}

void ptimage_free(struct ptdecode *d)
{
	for (size_t i = 0; i < d->nprocs; i++) {
		pt_image_free(d->procs[i]->image);
		free(d->procs[i]->maps);
		free(d->procs[i]);
	}
	for (size_t i = 0; i < d->ndsos; i++)
		dso_free(d->dsos[i]);
	free(d->procs);
	free(d->dsos);
	free(d->threads);
	hash_index_free(&d->thread_index);
	free(d->vdso);
	d->procs = NULL;
	d->dsos = NULL;
	d->threads = NULL;
	d->vdso = NULL;
	d->nprocs = d->ndsos = d->nthreads = 0;
}
