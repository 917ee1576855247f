/* SPDX-License-Identifier: MIT */
#include "trigger.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "array.h"
#include "catchprobe.h"
#include "perfring.h"
#include "procfs.h"

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif

#define REC_TRIG_PAGES 1       /* data pages per ring (power of two) */
#define REC_TRIG_RET_PAGES 16  /* watching exits: rings read on a timer, not at each sample */
#define REC_TRIG_STACK 8       /* user stack bytes an entry's sample copies (watching
				* exits): the return address, at the stack pointer */

/*
 * The user registers each sample asks for (PERF_SAMPLE_REGS_USER,
 * asm/perf_regs.h): the call's first two integer arguments and the
 * instruction pointer, for every hit; the stack pointer too when exits are
 * watched (slowcall.h), and at an exit the ip, the stack pointer and what
 * tells whether it leaves (callexits.h). The kernel writes them in ascending
 * register number. None elsewhere: hits then carry no ip or arguments, and
 * exits cannot be watched.
 */
#if defined(__x86_64__)
#define REC_REG_ARG0 PERF_REG_X86_DI
#define REC_REG_ARG1 PERF_REG_X86_SI
#define REC_REG_IP PERF_REG_X86_IP
#define REC_SAMPLE_SP_REG PERF_REG_X86_SP
#elif defined(__aarch64__)
#define REC_REG_ARG0 PERF_REG_ARM64_X0
#define REC_REG_ARG1 PERF_REG_ARM64_X1
#define REC_REG_IP PERF_REG_ARM64_PC
#define REC_SAMPLE_SP_REG PERF_REG_ARM64_SP
#endif
#ifdef REC_REG_IP
#define REC_REGS_MASK ((1ull << REC_REG_ARG0) | (1ull << REC_REG_ARG1) | (1ull << REC_REG_IP))
#else
#define REC_REGS_MASK 0ull
#endif

/* The registers a sample asks for: REC_REGS_MASK, and the stack pointer when SP. */
static uint64_t regs_mask(bool sp)
{
#ifdef REC_SAMPLE_SP_REG
	return REC_REGS_MASK | (sp ? 1ull << REC_SAMPLE_SP_REG : 0);
#else
	(void)sp;
	return REC_REGS_MASK;
#endif
}

/* The registers an exit's sample asks for: its ip, the stack pointer and those
 * that tell whether it leaves. */
static uint64_t exit_regs(const struct rec_callexit *e)
{
#ifdef REC_SAMPLE_SP_REG
	return 1ull << REC_REG_IP | 1ull << REC_SAMPLE_SP_REG | e->regs;
#else
	(void)e;
	return 0;
#endif
}

/* The registers the catch entry's sample asks for (catchprobe.h): its ip and
 * the stack pointer. */
static uint64_t catch_regs(void)
{
#ifdef REC_SAMPLE_SP_REG
	return 1ull << REC_REG_IP | 1ull << REC_SAMPLE_SP_REG;
#else
	return 0;
#endif
}

/* The registers an entry's sample asks for: the hit's (regs_mask), and those of
 * the exit at the entry when there is one (its sample stands for both). */
static uint64_t entry_regs(const struct rec_trigger *t)
{
	return regs_mask(t->callexits != NULL) |
	       (t->entry_exit >= 0 ? exit_regs(&t->callexits->exit[t->entry_exit]) : 0);
}

/*
 * The attr of one trigger event; PATH must outlive perf_event_open. REGS:
 * the user registers to sample; ID: samples lead with the event's id
 * (PERF_SAMPLE_IDENTIFIER), as several events share a ring.
 */
static void fill_attr(struct perf_event_attr *attr, enum rec_mechanism mech, int uprobe_type,
		      const char *path, uint64_t file_offset, uint64_t bp_addr, uint64_t regs,
		      bool id)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->sample_regs_user = regs;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    (id ? PERF_SAMPLE_IDENTIFIER : 0) |
			    (attr->sample_regs_user ? PERF_SAMPLE_REGS_USER : 0);
	attr->wakeup_events = 1;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	if (mech == REC_MECH_BREAKPOINT) {
		attr->type = PERF_TYPE_BREAKPOINT;
		attr->bp_type = HW_BREAKPOINT_X;
		attr->bp_addr = bp_addr;
		attr->bp_len = sizeof(long);
	} else {
		attr->type = (uint32_t)uprobe_type;   /* config bit 0 "retprobe" stays 0 */
		attr->config1 = (uint64_t)(uintptr_t)path;
		attr->config2 = file_offset;
	}
}

/* Bytes of one ring's data (a power of two). */
static size_t ring_size(const struct rec_trigger *t)
{
	return (size_t)rec_page_size() * t->pages;
}

/* Bytes of one ring's mapping: the control page and the data. */
static size_t map_size(const struct rec_trigger *t)
{
	return (size_t)rec_page_size() + ring_size(t);
}

/*
 * How many of the return sites of EXITS (callsites.h) to watch: all of them
 * unless a uprobe each per CPU, beside the entry's, the exits' and the catch
 * entry's, would take more than half the descriptors this process may open
 * (RLIMIT_NOFILE): a CPU whose events cannot all be opened would be left out
 * whole. The calls from the sites left out end at their tail jump, counted
 * so (slowcall.h tail_at_jump).
 */
static int sites_affordable(const struct rec_callexits *exits)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct rlimit rl;
	long per_cpu, room;

	if (ncpu < 1 || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return exits->sites.n;
	per_cpu = (long)(rl.rlim_cur / 2) / ncpu;
	room = per_cpu - 1 - exits->n - (exits->catch_loc != NULL);
	return room <= 0 ? 0 : room < exits->sites.n ? (int)room : exits->sites.n;
}

int rec_trigger_init(struct rec_trigger *t, enum rec_mechanism mech, int uprobe_type,
		     const char *path, uint64_t file_offset, const struct rec_callexits *exits)
{
	bool returns = exits != NULL;

	memset(t, 0, sizeof(*t));
	if (mech != REC_MECH_BREAKPOINT && mech != REC_MECH_UPROBE)
		return -EINVAL;
	if (mech == REC_MECH_UPROBE && (uprobe_type < 0 || !path))
		return -EINVAL;
#ifndef REC_SAMPLE_SP_REG
	if (returns)
		return -EOPNOTSUPP;
#endif
	if (returns && mech != REC_MECH_UPROBE)
		return -EOPNOTSUPP;
	t->mech = mech;
	t->callexits = exits;
	t->entry_exit = -1;
	for (int k = 0; exits && k < exits->n; k++)
		if (exits->exit[k].vaddr == exits->entry)
			t->entry_exit = k;
	t->nsites = returns ? sites_affordable(exits) : 0;
	t->pages = returns ? REC_TRIG_RET_PAGES : REC_TRIG_PAGES;
	t->uprobe_type = uprobe_type;
	if (path)
		snprintf(t->path, sizeof(t->path), "%s", path);
	t->file_offset = file_offset;
	return 0;
}

/* Grows T's event array for one more event; returns 0 or -ENOMEM. */
static int reserve(struct rec_trigger *t)
{
	int cap;
	void *p;

	if (t->nev < t->cap)
		return 0;
	cap = t->cap ? 2 * t->cap : 8;
	p = realloc(t->ev, (size_t)cap * sizeof(*t->ev));
	if (!p)
		return -ENOMEM;
	t->ev = p;
	t->cap = cap;
	return 0;
}

int rec_trigger_add_thread(struct rec_trigger *t, pid_t pid, pid_t tid, uint64_t bp_addr)
{
	struct perf_event_attr attr;
	struct rec_trig_event *ev;
	size_t len = map_size(t);
	void *ring;
	int fd, efd, i;

	if (t->mech != REC_MECH_BREAKPOINT)
		return -EINVAL;
	for (i = 0; i < t->nev; i++)
		if (t->ev[i].tid == tid)
			return -EEXIST;
	if (reserve(t))
		return -ENOMEM;
	/*
	 * The kernel refuses to mmap an inherited per-task event, so the ring
	 * belongs to a dummy event on the same thread and the trigger event
	 * (and the copies inherited by new threads) write into it.
	 */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = rec_perf_open(&attr, tid, -1);
	if (fd < 0)
		return fd;
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	fill_attr(&attr, t->mech, t->uprobe_type, t->path, t->file_offset, bp_addr, regs_mask(false),
		  false);
	attr.inherit = 1;
	efd = rec_perf_open(&attr, tid, -1);
	if (efd >= 0 && ioctl(efd, PERF_EVENT_IOC_SET_OUTPUT, fd)) {
		close(efd);
		efd = -errno;
	}
	if (efd < 0) {
		munmap(ring, len);
		close(fd);
		return efd;
	}
	ev = &t->ev[t->nev];
	memset(ev, 0, sizeof(*ev));
	ev->fd = fd;
	ev->event_fd = efd;
	ev->pid = pid;
	ev->tid = tid;
	ev->cpu = -1;
	ev->ring = ring;
	return t->nev++;
}

/*
 * Opens a uprobe of T on CPU at FILE_OFFSET of PATH sampling REGS: with EXITS, the
 * events wake the recorder only when their ring is half full (it reads them
 * every few milliseconds anyway, session.c: a wake-up per sample would cost
 * the watched thread about as much again as the probe) and their samples
 * lead with the event's id. Returns the fd or a negative errno (-ENODEV: no
 * such CPU).
 */
static int open_cpu_uprobe(const struct rec_trigger *t, int cpu, const char *path,
			   uint64_t file_offset, uint64_t regs)
{
	struct perf_event_attr attr;
	int fd;

	fill_attr(&attr, t->mech, t->uprobe_type, path, file_offset, 0, regs, t->callexits != NULL);
	attr.read_format = PERF_FORMAT_LOST;   /* samples dropped: lost_of() */
	if (t->callexits) {
		attr.watermark = 1;
		attr.wakeup_watermark = (uint32_t)(ring_size(t) / 2);
	}
	/* the entry's: the return address, where the stack pointer points */
	if (t->callexits && regs == entry_regs(t) && path == t->path &&
	    file_offset == t->file_offset) {
		attr.sample_type |= PERF_SAMPLE_STACK_USER;
		attr.sample_stack_user = REC_TRIG_STACK;
	}
	fd = rec_perf_open(&attr, -1, cpu);
	if (fd == -EINVAL) {   /* a kernel before 5.19: no PERF_FORMAT_LOST */
		attr.read_format = 0;
		fd = rec_perf_open(&attr, -1, cpu);
	}
	return fd;
}

/* The samples the kernel dropped of per-CPU uprobe FD (its ring was full),
 * as its count says (PERF_FORMAT_LOST); 0 when the kernel keeps no count.
 * A PERF_RECORD_LOST says so too, but only once a later sample finds room:
 * none comes after the last calls a recorder too busy to read missed. */
static uint64_t lost_of(int fd)
{
	uint64_t v[2];

	return read(fd, v, sizeof(v)) == (ssize_t)sizeof(v) ? v[1] : 0;
}

/* Folds the kernel's counts of the samples dropped into T->lost. */
static void count_lost(struct rec_trigger *t)
{
	uint64_t n = 0;

	for (int i = 0; i < t->nev; i++)
		if (t->ev[i].cpu >= 0)
			n += lost_of(t->ev[i].event_fd);
	for (int i = 0; i < t->nxev; i++)
		n += lost_of(t->xev[i].fd);
	if (n > t->lost)
		t->lost = n;
}

/* The id of event FD (PERF_EVENT_IOC_ID) into *ID; 0 or a negative errno. */
static int event_id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id) ? -errno : 0;
}

/* Closes the exit events from index FROM on. */
static void close_exits_from(struct rec_trigger *t, int from)
{
	while (t->nxev > from)
		close(t->xev[--t->nxev].fd);
}

/*
 * Opens the uprobe of exit K of T (callexits.h; REC_TRIG_CATCH, or
 * REC_TRIG_SITE(I)) on CPU at FILE_OFFSET of PATH sampling REGS, writing into
 * the ring of entry event RING_FD. Returns 0 or a negative errno.
 */
static int add_exit_event(struct rec_trigger *t, int cpu, int ring_fd, int k, const char *path,
			  uint64_t file_offset, uint64_t regs)
{
	struct rec_trig_exit_event *x;
	void *p = array_grow(t->xev, &t->xev_cap, (size_t)t->nxev, sizeof(*t->xev));
	int fd;

	if (!p)
		return -ENOMEM;
	t->xev = p;
	fd = open_cpu_uprobe(t, cpu, path, file_offset, regs);
	if (fd < 0)
		return fd;
	x = &t->xev[t->nxev++];
	memset(x, 0, sizeof(*x));
	x->fd = fd;
	x->exit = k;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd))
		return -errno;
	return event_id(fd, &x->id);
}

/*
 * Opens a uprobe on every exit of T on CPU, on the C++ runtime's catch
 * entry when there is one (exit REC_TRIG_CATCH) and on each return site of
 * the function's direct calls (REC_TRIG_SITE(I), callsites.h), writing into
 * the ring of entry event RING_FD. Returns 0 or a negative errno (none left
 * open then).
 */
static int add_cpu_exits(struct rec_trigger *t, int cpu, int ring_fd)
{
	const struct rec_trigger_loc *c = t->callexits->catch_loc;
	const struct rec_callsites *cs = &t->callexits->sites;
	int from = t->nxev, err = 0;

	for (int k = 0; k < t->callexits->n && !err; k++)
		if (k != t->entry_exit)   /* else the entry's own samples stand for it */
			err = add_exit_event(t, cpu, ring_fd, k, t->path,
					     t->callexits->exit[k].file_offset,
					     exit_regs(&t->callexits->exit[k]));
	if (c && !err)
		err = add_exit_event(t, cpu, ring_fd, REC_TRIG_CATCH, c->probe, c->file_offset,
				     catch_regs());
	for (int i = 0; i < t->nsites && !err; i++)
		err = add_exit_event(t, cpu, ring_fd, REC_TRIG_SITE(i), t->path,
				     cs->site[i].file_offset, catch_regs());
	if (err)
		close_exits_from(t, from);
	return err;
}

/*
 * Opens the entry uprobe of T on CPU, maps its ring and appends it to T;
 * with EXITS also the exit probes, into the same ring. Returns 0 or a
 * negative errno (-ENODEV: no such CPU); nothing is left open on an error.
 */
static int add_cpu_event(struct rec_trigger *t, int cpu)
{
	struct rec_trig_event *ev;
	uint64_t id = 0;
	void *ring;
	int fd, err;

	if (reserve(t))
		return -ENOMEM;
	if (t->callexits) {
		void *p = realloc(t->entry_ids, (size_t)t->cap * sizeof(*t->entry_ids));

		if (!p)
			return -ENOMEM;
		t->entry_ids = p;
	}
	fd = open_cpu_uprobe(t, cpu, t->path, t->file_offset, entry_regs(t));
	if (fd < 0)
		return fd;
	ring = mmap(NULL, map_size(t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = ring == MAP_FAILED ? -errno : 0;
	if (!err && t->callexits && !(err = event_id(fd, &id)))
		err = add_cpu_exits(t, cpu, fd);
	if (err) {
		if (ring != MAP_FAILED)
			munmap(ring, map_size(t));
		close(fd);
		return err;
	}
	if (t->callexits)
		t->entry_ids[t->nev] = id;
	ev = &t->ev[t->nev++];
	memset(ev, 0, sizeof(*ev));
	ev->fd = ev->event_fd = fd;
	ev->pid = ev->tid = -1;
	ev->cpu = cpu;
	ev->ring = ring;
	return 0;
}

/*
 * Uprobes: one event per CPU for every process (pid -1), and with EXITS one
 * per exit and CPU. Inheriting a
 * per-thread uprobe event is no option: the kernel re-reads the path through
 * config1 in the address space of the thread being created, where the
 * pointer means nothing, and the target's clone() then fails with EFAULT.
 * Hits of processes other than the targets are dropped by rec_trigger_read.
 * A CPU whose exit events cannot be opened is left out whole: its
 * entries would never be matched.
 */
static int add_cpus(struct rec_trigger *t)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int added = 0, first_err = 0;

	for (int cpu = 0; cpu < ncpu; cpu++) {
		int err = add_cpu_event(t, cpu);

		if (err) {
			if (err == -ENOMEM)
				return err;
			if (!first_err && err != -ENODEV)
				first_err = err;
			continue;
		}
		added += 1 + (t->callexits ? t->callexits->n - (t->entry_exit >= 0) +
			      (t->callexits->catch_loc != NULL) + t->nsites : 0);
	}
	if (!added)
		return first_err ? first_err : -ENODEV;
	t->cpu_wide = true;
	return added;
}

int rec_trigger_add_process(struct rec_trigger *t, pid_t pid, uint64_t bp_addr)
{
	pid_t *tids = NULL;
	size_t cap = 0;
	int added = 0, first_err = 0, pass;

	if (t->npids >= REC_MAX_PIDS)
		return -E2BIG;
	t->pids[t->npids++] = pid;
	if (t->mech == REC_MECH_UPROBE)
		return t->cpu_wide ? 0 : add_cpus(t);

	for (pass = 0; pass < 100; pass++) {
		int n = rec_proc_tasks(pid, &tids, &cap), i, new = 0;

		if (n < 0) {
			first_err = added ? 0 : n;
			break;
		}
		for (i = 0; i < n; i++) {
			int err = rec_trigger_add_thread(t, pid, tids[i], bp_addr);

			if (err >= 0) {
				added++;
				new++;
			} else if (err != -EEXIST && err != -ESRCH && !first_err) {
				first_err = err;
			}
		}
		if (!new)
			break;
	}
	free(tids);
	if (!added && first_err)
		return first_err;
	return added;
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct rec_trig_exit_event *)a)->id;
	uint64_t y = ((const struct rec_trig_exit_event *)b)->id;

	return x < y ? -1 : x > y;
}

/* The exit event whose samples carry ID, or NULL. */
static const struct rec_trig_exit_event *exit_event(const struct rec_trigger *t, uint64_t id)
{
	struct rec_trig_exit_event key = { .id = id };

	return array_search(&key, t->xev, (size_t)t->nxev, sizeof(*t->xev), by_id);
}

/* The exits are enabled before the entries: a call entered is never missed
 * at its exit (an exit without its entry is only counted unmatched). */
int rec_trigger_enable(struct rec_trigger *t)
{
	int i;

	if (t->nxev)
		array_sort(t->xev, (size_t)t->nxev, sizeof(*t->xev), by_id);
	for (i = 0; i < t->nxev; i++) {
		if (t->xev[i].enabled)
			continue;
		if (ioctl(t->xev[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
		t->xev[i].enabled = true;
	}
	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].enabled)
			continue;
		if (ioctl(t->ev[i].event_fd, PERF_EVENT_IOC_ENABLE, 0) && errno != ESRCH)
			return -errno;
		t->ev[i].enabled = true;
	}
	return 0;
}

static bool is_target(const struct rec_trigger *t, pid_t pid)
{
	int i;

	for (i = 0; i < t->npids; i++)
		if (t->pids[i] == pid)
			return true;
	return t->npids == 0;
}

/* The value of register REG in REGS, sampled with MASK (ascending order). */
static uint64_t sampled_reg(const uint64_t *regs, uint64_t mask, int reg)
{
	return regs[__builtin_popcountll(mask & ((1ull << reg) - 1))];
}

/* Fills OUT's ip, arguments and (MASK has it) stack pointer from REGS,
 * sampled with MASK. */
static void sample_regs(struct rec_trig_sample *out, const uint64_t *regs, uint64_t mask)
{
#ifdef REC_REG_IP
	out->args[0] = mask & (1ull << REC_REG_ARG0) ? sampled_reg(regs, mask, REC_REG_ARG0) : 0;
	out->args[1] = mask & (1ull << REC_REG_ARG1) ? sampled_reg(regs, mask, REC_REG_ARG1) : 0;
	out->ip = sampled_reg(regs, mask, REC_REG_IP);
	out->has_args = true;
	if (mask & (1ull << REC_SAMPLE_SP_REG))
		out->sp = sampled_reg(regs, mask, REC_SAMPLE_SP_REG);
#else
	(void)out, (void)regs, (void)mask;
#endif
}

/*
 * Whether the sample OUT (its registers REGS, sampled with MASK) of exit K
 * leaves the call (callexits.h).
 */
static bool exit_leaves(const struct rec_trigger *t, int k, const struct rec_trig_sample *out,
			const uint64_t *regs, uint64_t mask)
{
	uint64_t all[REC_CALLEXIT_NREGS] = { 0 };

	for (int r = 0; r < REC_CALLEXIT_NREGS; r++)
		if (mask & (1ull << r))
			all[r] = sampled_reg(regs, mask, r);
	return rec_callexit_leaves(t->callexits, &t->callexits->exit[k], out->pid, out->ip, all);
}

void rec_trigger_tsc(const struct rec_trigger *t, struct rec_tsc_conv *tsc)
{
	const struct perf_event_mmap_page *mp = t->nev ? t->ev[0].ring : NULL;

	memset(tsc, 0, sizeof(*tsc));
	if (!mp || !mp->cap_user_time_zero)
		return;
	tsc->known = true;
	tsc->time_shift = mp->time_shift;
	tsc->time_mult = mp->time_mult;
	tsc->time_zero = mp->time_zero;
}

/* Whether entry sample S returns to a watched return site of T (callsites.h):
 * its return address, made link-time by its ip less the function's entry. */
static bool site_of(const struct rec_trigger *t, const struct rec_trig_sample *s)
{
	return s->ret_addr && s->has_args &&
	       rec_callsite_is(&t->callexits->sites, t->nsites,
			       s->ret_addr - (s->ip - t->callexits->entry));
}

/* The most bytes of a sample body fill_attr asks for: id, pid/tid, time, abi
 * and every register perf has, and an entry's stack (size, bytes, dyn_size). */
#define SAMPLE_MAX (4 * 8 + 64 * 8 + 2 * 8 + REC_TRIG_STACK)

int rec_trigger_read(struct rec_trigger *t, int idx, struct rec_trig_sample *out, int max)
{
	struct rec_trig_event *ev = &t->ev[idx];
	struct perf_event_mmap_page *mp = ev->ring;
	const char *data = (const char *)ev->ring + rec_page_size();
	size_t size = ring_size(t);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	int n = 0;

	/* room for two: an entry that is also an exit (a function that is a ret) */
	while (tail < head && n + 2 <= max) {
		struct perf_event_header h;
		uint64_t body[SAMPLE_MAX / 8] = { 0 }, mask = entry_regs(t);
		const struct rec_trig_exit_event *x = NULL;
		const uint64_t *f = body;
		size_t len, words;
		int k = -1;   /* the exit sampled */

		rec_ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		len = h.size - sizeof(h) < sizeof(body) ? h.size - sizeof(h) : sizeof(body);
		rec_ring_copy(data, size, tail + sizeof(h), body, len);
		words = len / 8;
		tail += h.size;
		if (h.type == PERF_RECORD_LOST && len >= 16) {
			t->lost += body[1];
			continue;
		}
		/* id (EXITS), pid/tid, time */
		if (h.type != PERF_RECORD_SAMPLE || words < 2u + (t->callexits != NULL))
			continue;
		if (t->callexits) {
			if (*f != t->entry_ids[idx] && !(x = exit_event(t, *f)))
				continue;   /* no event of ours */
			if (x)
				mask = x->exit < 0 ? catch_regs() :
				       exit_regs(&t->callexits->exit[k = x->exit]);
			f++;
			words--;
		}
		if (!is_target(t, (pid_t)(uint32_t)f[0])) {
			t->foreign++;
			continue;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].pid = (pid_t)(uint32_t)f[0];
		out[n].tid = (pid_t)(uint32_t)(f[0] >> 32);
		out[n].time_ns = f[1];
		/* abi (PERF_SAMPLE_REGS_ABI_NONE, 0: no registers), then the registers */
		if (mask && words >= 3 && f[2] &&
		    words - 3 >= (size_t)__builtin_popcountll(mask)) {
			size_t s = 3 + (size_t)__builtin_popcountll(mask);

			sample_regs(&out[n], f + 3, mask);
			/* an entry's stack: size, the bytes, the size copied */
			if (t->callexits && !x && words >= s + 3 && f[s] == REC_TRIG_STACK &&
			    f[s + 2] == REC_TRIG_STACK)
				out[n].ret_addr = f[s + 1];
		}
		if (x && x->exit == REC_TRIG_CATCH) {
			out[n].caught = true;
			n += out[n].sp != 0;
			continue;
		}
		if (x && x->exit < 0) {   /* a return site: its caller resumes; the
					   * call's entry had the word below */
			out[n].back = true;
			out[n].sp = out[n].sp ? out[n].sp - sizeof(uint64_t) : 0;
			n += out[n].sp != 0;
			continue;
		}
		if (!x)
			out[n].site = site_of(t, &out[n]);
		if (k < 0) {   /* an entry, maybe at an exit too */
			if ((k = t->entry_exit) < 0) {
				n++;
				continue;
			}
			out[n + 1] = out[n];
			n++;
		}
		if (!out[n].sp || !exit_leaves(t, k, &out[n], f + 3, mask)) {
			t->inside++;
			continue;
		}
		out[n].ret = true;
		out[n].part = t->callexits->exit[k].part;
		out[n].tail = t->callexits->exit[k].kind != REC_CALLEXIT_RET;
		n++;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int rec_trigger_ring_samples(const struct rec_trigger *t)
{
	/* the smallest sample: a header and pid/tid and time */
	return (int)(ring_size(t) / (sizeof(struct perf_event_header) + 16));
}

void rec_trigger_close(struct rec_trigger *t)
{
	size_t len = map_size(t);
	int i;

	count_lost(t);
	close_exits_from(t, 0);
	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].event_fd != t->ev[i].fd)
			close(t->ev[i].event_fd);
		munmap(t->ev[i].ring, len);
		close(t->ev[i].fd);
	}
	free(t->ev);
	free(t->xev);
	free(t->entry_ids);
	t->ev = NULL;
	t->xev = NULL;
	t->entry_ids = NULL;
	t->nev = t->cap = 0;
	t->xev_cap = 0;
}

/* The function the self-test watches; the asm keeps it out-of-line and real. */
__attribute__((noinline)) int rec_selftest_target(int x);
__attribute__((noinline)) int rec_selftest_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Opens ATTR on this thread, calls the target, returns 1/0 fired or -errno. */
static int selftest_one(struct perf_event_attr *attr)
{
	uint64_t count = 0;
	int fd = rec_perf_open(attr, 0, -1), fired;
	volatile int sink;

	if (fd < 0)
		return fd;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sink = rec_selftest_target(1);
	sink = rec_selftest_target(sink);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	fired = read(fd, &count, sizeof(count)) == sizeof(count) && count > 0;
	close(fd);
	return fired;
}

void rec_trigger_selftest(int uprobe_type, int *breakpoint, int *uprobe)
{
	struct perf_event_attr attr;
	uintptr_t addr = (uintptr_t)&rec_selftest_target;
	struct rec_map m;

	fill_attr(&attr, REC_MECH_BREAKPOINT, -1, NULL, 0, addr, regs_mask(false), false);
	*breakpoint = selftest_one(&attr);
	*uprobe = -ENODEV;
	if (uprobe_type < 0)
		return;
	*uprobe = rec_proc_find_map(getpid(), NULL, 0, addr, &m);
	if (*uprobe)
		return;
	fill_attr(&attr, REC_MECH_UPROBE, uprobe_type, m.path, addr - m.start + m.pgoff, 0,
		  regs_mask(false), false);
	*uprobe = selftest_one(&attr);
}

const char *rec_mechanism_name(enum rec_mechanism m)
{
	switch (m) {
	case REC_MECH_AUTO:
		return "auto";
	case REC_MECH_BREAKPOINT:
		return "breakpoint";
	case REC_MECH_UPROBE:
		return "uprobe";
	}
	return "?";
}
