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
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif

#define REC_TRIG_PAGES 1   /* data pages per ring (power of two) */

/*
 * The user registers each hit samples (PERF_SAMPLE_REGS_USER), in the
 * kernel's order (ascending bit): the call's first two integer arguments
 * and the instruction pointer. None elsewhere: hits then carry no ip or
 * arguments.
 */
#if defined(__x86_64__)
#define REC_REG_ARG0 PERF_REG_X86_DI
#define REC_REG_ARG1 PERF_REG_X86_SI
#define REC_REG_IP PERF_REG_X86_IP
#elif defined(__aarch64__)
#define REC_REG_ARG0 PERF_REG_ARM64_X0
#define REC_REG_ARG1 PERF_REG_ARM64_X1
#define REC_REG_IP PERF_REG_ARM64_PC
#endif
#ifdef REC_REG_IP
#define REC_REGS_MASK ((1ull << REC_REG_ARG0) | (1ull << REC_REG_ARG1) | (1ull << REC_REG_IP))
#else
#define REC_REGS_MASK 0ull
#endif

static long page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* The attr of one trigger event; PATH must outlive perf_event_open. */
static void fill_attr(struct perf_event_attr *attr, enum rec_mechanism mech, int uprobe_type,
		      const char *path, uint64_t file_offset, uint64_t bp_addr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    (REC_REGS_MASK ? PERF_SAMPLE_REGS_USER : 0);
	attr->sample_regs_user = REC_REGS_MASK;
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
		attr->type = (uint32_t)uprobe_type;
		attr->config = 0;   /* bit 0 "retprobe" off: fire at entry */
		attr->config1 = (uint64_t)(uintptr_t)path;
		attr->config2 = file_offset;
	}
}

int rec_trigger_init(struct rec_trigger *t, enum rec_mechanism mech, int uprobe_type,
		     const char *path, uint64_t file_offset)
{
	memset(t, 0, sizeof(*t));
	if (mech != REC_MECH_BREAKPOINT && mech != REC_MECH_UPROBE)
		return -EINVAL;
	if (mech == REC_MECH_UPROBE && (uprobe_type < 0 || !path))
		return -EINVAL;
	t->mech = mech;
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
	size_t len = (size_t)page_size() * (1 + REC_TRIG_PAGES);
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
	fd = perf_open(&attr, tid);
	if (fd < 0)
		return fd;
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	fill_attr(&attr, t->mech, t->uprobe_type, t->path, t->file_offset, bp_addr);
	attr.inherit = 1;
	efd = perf_open(&attr, tid);
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
 * Uprobes: one event per CPU for every process (pid -1). Inheriting a
 * per-thread uprobe event is no option: the kernel re-reads the path through
 * config1 in the address space of the thread being created, where the
 * pointer means nothing, and the target's clone() then fails with EFAULT.
 * Hits of processes other than the targets are dropped by rec_trigger_read.
 */
static int add_cpus(struct rec_trigger *t)
{
	size_t len = (size_t)page_size() * (1 + REC_TRIG_PAGES);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), cpu;
	int added = 0, first_err = 0;

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;
		struct rec_trig_event *ev;
		void *ring;
		long fd;

		if (reserve(t))
			return -ENOMEM;
		fill_attr(&attr, t->mech, t->uprobe_type, t->path, t->file_offset, 0);
		fd = syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (!first_err && errno != ENODEV)
				first_err = -errno;
			continue;
		}
		ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
		if (ring == MAP_FAILED) {
			if (!first_err)
				first_err = -errno;
			close((int)fd);
			continue;
		}
		ev = &t->ev[t->nev++];
		memset(ev, 0, sizeof(*ev));
		ev->fd = ev->event_fd = (int)fd;
		ev->pid = ev->tid = -1;
		ev->cpu = (int)cpu;
		ev->ring = ring;
		added++;
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

int rec_trigger_enable(struct rec_trigger *t)
{
	int i;

	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].enabled)
			continue;
		if (ioctl(t->ev[i].event_fd, PERF_EVENT_IOC_ENABLE, 0) && errno != ESRCH)
			return -errno;
		t->ev[i].enabled = true;
	}
	return 0;
}

/* Copies LEN bytes at ring offset POS (wrapping) into DST. */
static void ring_copy(const char *data, size_t size, uint64_t pos, void *dst, size_t len)
{
	size_t off = (size_t)(pos % size), first = size - off;

	if (first > len)
		first = len;
	memcpy(dst, data + off, first);
	if (first < len)
		memcpy((char *)dst + first, data, len - first);
}

static bool is_target(const struct rec_trigger *t, pid_t pid)
{
	int i;

	for (i = 0; i < t->npids; i++)
		if (t->pids[i] == pid)
			return true;
	return t->npids == 0;
}

/* Fills HIT's ip and arguments from REGS, the sampled registers in
 * REC_REGS_MASK's order (ascending register number). */
static void hit_regs(struct rec_hit *hit, const uint64_t *regs)
{
#ifdef REC_REG_IP
	static const int order[] = { REC_REG_ARG0, REC_REG_ARG1, REC_REG_IP };
	uint64_t *dst[] = { &hit->args[0], &hit->args[1], &hit->ip };

	for (int i = 0; i < 3; i++) {
		int pos = 0;

		for (int j = 0; j < 3; j++)
			pos += order[j] < order[i];
		*dst[i] = regs[pos];
	}
	hit->has_args = true;
#else
	(void)hit, (void)regs;
#endif
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

int rec_trigger_read(struct rec_trigger *t, int idx, struct rec_hit *hits, int max)
{
	struct rec_trig_event *ev = &t->ev[idx];
	struct perf_event_mmap_page *mp = ev->ring;
	const char *data = (const char *)ev->ring + page_size();
	size_t size = (size_t)page_size() * REC_TRIG_PAGES;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	int n = 0;

	while (tail < head && n < max) {
		struct perf_event_header h;

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 16) {
			/* TID, TIME, then REGS_USER: the ABI (0: none) and the registers */
			struct { uint32_t pid, tid; uint64_t time, abi, regs[3]; } body = { 0 };
			size_t len = h.size - sizeof(h) < sizeof(body) ? h.size - sizeof(h)
								       : sizeof(body);

			ring_copy(data, size, tail + sizeof(h), &body, len);
			if (!is_target(t, (pid_t)body.pid)) {
				t->foreign++;
				tail += h.size;
				continue;
			}
			memset(&hits[n], 0, sizeof(hits[n]));
			hits[n].pid = (pid_t)body.pid;
			hits[n].tid = (pid_t)body.tid;
			hits[n].time_ns = body.time;
			if (REC_REGS_MASK && body.abi && len == sizeof(body))
				hit_regs(&hits[n], body.regs);
			n++;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost[2];

			ring_copy(data, size, tail + sizeof(h), lost, sizeof(lost));
			t->lost += lost[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

void rec_trigger_close(struct rec_trigger *t)
{
	size_t len = (size_t)page_size() * (1 + REC_TRIG_PAGES);
	int i;

	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].event_fd != t->ev[i].fd)
			close(t->ev[i].event_fd);
		munmap(t->ev[i].ring, len);
		close(t->ev[i].fd);
	}
	free(t->ev);
	t->ev = NULL;
	t->nev = t->cap = 0;
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
	int fd = perf_open(attr, 0), fired;
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

	fill_attr(&attr, REC_MECH_BREAKPOINT, -1, NULL, 0, addr);
	*breakpoint = selftest_one(&attr);
	*uprobe = -ENODEV;
	if (uprobe_type < 0)
		return;
	*uprobe = rec_proc_find_map(getpid(), NULL, 0, addr, &m);
	if (*uprobe)
		return;
	fill_attr(&attr, REC_MECH_UPROBE, uprobe_type, m.path, addr - m.start + m.pgoff, 0);
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
