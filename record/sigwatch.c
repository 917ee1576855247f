/* SPDX-License-Identifier: MIT */
#include "sigwatch.h"

#include <errno.h>
#include <event-parse.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abortcause.h"
#include "perfring.h"
#include "inpath.h"
#include "procfs.h"
#include "signals.h"
#include "tracefs.h"
#include "uprobedef.h"

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif
#if defined(__x86_64__)
#define SW_REG_IP PERF_REG_X86_IP
#define SW_REG_SP PERF_REG_X86_SP
#elif defined(__aarch64__)
#define SW_REG_IP PERF_REG_ARM64_PC
#define SW_REG_SP PERF_REG_ARM64_SP
#endif

#define SW_RING_PAGES 1        /* signal rings: a sample is ~80 bytes, rare */
#define SW_ABORT_PAGES 8       /* abort probe rings: 32 KiB, 3 samples of
				* REC_ABORT_STACK bytes of stack */
#define SW_FORMAT_MAX 16384    /* a tracepoint's format file */
#define SW_GENERATE_IGNORED 1  /* signal_generate's result TRACE_SIGNAL_IGNORED */

enum sw_kind { SW_DELIVER, SW_FAULT, SW_GENERATE, SW_ABORT };

/* One ring and the tracepoint event writing into it. */
struct rec_sigwatch_event {
	int fd;                 /* the ring's owner: a dummy event on the thread, or
				 * the per-CPU event itself */
	int event_fd;           /* the tracepoint (inherit=1 on a thread) */
	void *ring;             /* 1 + pages pages */
	unsigned pages;
	enum sw_kind kind;
	pid_t tid;              /* -1 for a per-CPU event */
	const struct rec_abort_file *abort; /* SW_ABORT: the file probed (in W) */
	bool hup;               /* its thread ended: poll reports POLLHUP forever */
};

/* Reads the format of tracepoint SYS:NAME from tracefs and parses it into
 * W's tep. Returns the event, or NULL. */
static struct tep_event *read_format(struct rec_sigwatch *w, const char *sys, const char *name)
{
	struct tep_event *ev = NULL;
	char path[128], *buf = malloc(SW_FORMAT_MAX);

	if (buf && snprintf(path, sizeof(path), "events/%s/%s/format", sys, name) < (int)sizeof(path)) {
		int fd = rec_tracefs_open(path);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, SW_FORMAT_MAX);

		if (fd >= 0)
			close(fd);
		if (n > 0 && n < SW_FORMAT_MAX &&
		    tep_parse_format(w->tep, &ev, buf, (unsigned long)n, sys) != 0)
			ev = NULL;
	}
	free(buf);
	return ev;
}

/* Field NAME of sample DATA of tracepoint EV, sign-extended from its size;
 * DEF when the format lacks it. */
static int64_t field(void *ev, const void *data, const char *name, int64_t def)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	unsigned long long v;

	if (!f || tep_read_number_field(f, data, &v))
		return def;
	switch (f->size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (int64_t)v;
	}
}

static int reserve(struct rec_sigwatch *w)
{
	void *p;

	if (w->nev < w->cap)
		return 0;
	p = realloc(w->ev, (size_t)(w->cap ? 2 * w->cap : 16) * sizeof(*w->ev));
	if (!p)
		return -ENOMEM;
	w->ev = p;
	w->cap = w->cap ? 2 * w->cap : 16;
	return 0;
}

static size_t map_size(unsigned pages)
{
	return (size_t)rec_page_size() * (1 + pages);
}

/* The attr of the tracepoint EV for KIND. */
static void tp_attr(struct perf_event_attr *a, const struct tep_event *ev, enum sw_kind kind)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)ev->id;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a->disabled = 1;
	a->wakeup_events = kind == SW_FAULT ? 0 : 1;
	a->write_backward = kind == SW_FAULT;
#ifdef SW_REG_IP
	if (kind == SW_DELIVER) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = 1ull << SW_REG_IP;
	}
#endif
}

/* Maps PAGES data pages of FD (read-only for a backward ring). */
static void *map_ring(int fd, unsigned pages, bool backward)
{
	void *p = mmap(NULL, map_size(pages), PROT_READ | (backward ? 0 : PROT_WRITE), MAP_SHARED,
		       fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Opens event A (KIND) on thread TID, inherited by the threads TID
 * creates, with FILTER (NULL: none): a dummy owns its ring of PAGES pages
 * (the kernel maps no inherited event's), the event writes into it.
 * Returns the event added, or NULL with errno set. */
static struct rec_sigwatch_event *add_thread_event(struct rec_sigwatch *w,
						   struct perf_event_attr *a, enum sw_kind kind,
						   pid_t tid, unsigned pages, const char *filter)
{
	struct perf_event_attr d;
	struct rec_sigwatch_event *e;
	int fd, efd, err;
	void *ring;

	if (reserve(w))
		return errno = ENOMEM, NULL;
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.type = PERF_TYPE_SOFTWARE;
	d.config = PERF_COUNT_SW_DUMMY;
	d.exclude_kernel = 1;
	d.write_backward = kind == SW_FAULT;
	fd = rec_perf_open(&d, tid, -1);
	if (fd < 0)
		return errno = -fd, NULL;
	ring = map_ring(fd, pages, kind == SW_FAULT);
	if (!ring) {
		err = errno;
		close(fd);
		return errno = err, NULL;
	}
	a->inherit = 1;
	a->inherit_thread = 1;   /* threads, not the processes it forks (5.13) */
	efd = rec_perf_open(a, tid, -1);
	if (efd == -EINVAL) {
		a->inherit_thread = 0;
		efd = rec_perf_open(a, tid, -1);
	}
	if (efd >= 0 && (ioctl(efd, PERF_EVENT_IOC_SET_OUTPUT, fd) ||
			 (filter && ioctl(efd, PERF_EVENT_IOC_SET_FILTER, filter)))) {
		err = -errno;
		close(efd);
		efd = err;
	}
	if (efd < 0) {
		munmap(ring, map_size(pages));
		close(fd);
		return errno = -efd, NULL;
	}
	e = &w->ev[w->nev++];
	*e = (struct rec_sigwatch_event){ .fd = fd, .event_fd = efd, .ring = ring, .pages = pages,
					  .kind = kind, .tid = tid };
	return e;
}

/* Opens the tracepoint EV for KIND on thread TID (add_thread_event()).
 * Returns 0 or a negative errno. */
static int add_thread_tp(struct rec_sigwatch *w, struct tep_event *ev, enum sw_kind kind,
			 pid_t tid, const char *filter)
{
	struct perf_event_attr a;

	tp_attr(&a, ev, kind);
	return add_thread_event(w, &a, kind, tid,
				kind == SW_FAULT ? REC_SIGWATCH_FAULT_PAGES : SW_RING_PAGES,
				filter) ? 0 : -errno;
}

/* Opens signal_deliver and page_fault_user on every thread of PID, again
 * until a pass over /proc/PID/task finds no new thread. */
static int add_process(struct rec_sigwatch *w, pid_t pid, const char *filter)
{
	pid_t *tids = NULL;
	size_t cap = 0;
	int err = 0;

	for (int pass = 0; pass < 100 && !err; pass++) {
		int n = rec_proc_tasks(pid, &tids, &cap), added = 0;

		if (n < 0) {
			err = n;
			break;
		}
		for (int i = 0; i < n && !err; i++) {
			bool have = false;

			for (int k = 0; k < w->nev && !have; k++)
				have = w->ev[k].tid == tids[i];
			if (have)
				continue;
			err = add_thread_tp(w, w->deliver, SW_DELIVER, tids[i], filter);
			if (!err && w->fault)
				err = add_thread_tp(w, w->fault, SW_FAULT, tids[i], NULL);
			if (err == -ESRCH)   /* the thread ended meanwhile */
				err = 0;
			added++;
		}
		if (!added)
			break;
	}
	free(tids);
	return err;
}

/* Opens signal_generate on every CPU with the filter "pid == PID || ...".
 * Returns 0 or a negative errno (then none is open). */
static int add_generate(struct rec_sigwatch *w)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char filter[REC_MAX_PIDS * 24] = "";
	size_t n = 0;
	int first = w->nev;

	for (int i = 0; i < w->npids; i++)
		n += (size_t)snprintf(filter + n, sizeof(filter) - n, "%spid == %d", i ? " || " : "",
				      (int)w->pids[i]);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		void *ring;
		int fd;

		if (reserve(w))
			return -ENOMEM;
		tp_attr(&a, w->generate, SW_GENERATE);
		fd = rec_perf_open(&a, -1, cpu);
		if (fd == -ENODEV)
			continue;   /* an offline CPU */
		if (fd < 0)
			return fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) || !(ring = map_ring(fd, SW_RING_PAGES,
										      false))) {
			int err = -errno;

			close(fd);
			return err;
		}
		w->ev[w->nev++] = (struct rec_sigwatch_event){
			.fd = fd, .event_fd = fd, .ring = ring, .pages = SW_RING_PAGES,
			.kind = SW_GENERATE, .tid = -1,
		};
	}
	return w->nev > first ? 0 : -ENODEV;
}

/* Closes events FROM.. of W. */
static void close_from(struct rec_sigwatch *w, int from)
{
	for (int i = from; i < w->nev; i++) {
		if (w->ev[i].event_fd != w->ev[i].fd)
			close(w->ev[i].event_fd);
		munmap(w->ev[i].ring, map_size(w->ev[i].pages));
		close(w->ev[i].fd);
	}
	w->nev = from < w->nev ? from : w->nev;
}

int rec_sigwatch_open(struct rec_sigwatch *w, const pid_t *pids, int npids, int trigger,
		      char *why, size_t size)
{
	char filter[512];
	int err = 0, first;

	memset(w, 0, sizeof(*w));
	if (npids > REC_MAX_PIDS)
		return -EINVAL;
	w->trigger = trigger;
	memcpy(w->pids, pids, (size_t)npids * sizeof(*pids));
	w->npids = npids;
	w->tep = tep_alloc();
	if (!w->tep)
		return -ENOMEM;
	w->deliver = read_format(w, "signal", "signal_deliver");
	if (!w->deliver) {
		snprintf(why, size, "signal:signal_deliver: cannot read its format in tracefs "
			 "(/sys/kernel/tracing)");
		rec_sigwatch_close(w);
		return -ENOENT;
	}
	w->fault = read_format(w, "exceptions", "page_fault_user");   /* x86 only */
	w->generate = read_format(w, "signal", "signal_generate");
	sig_deliver_filter(trigger, filter, sizeof(filter));
	for (int i = 0; i < npids && !err; i++)
		err = add_process(w, pids[i], filter);
	if (err) {
		snprintf(why, size, "signal:signal_deliver: cannot watch process %d: %s",
			 (int)pids[0], strerror(-err));
		rec_sigwatch_close(w);
		return err;
	}
	/* the sender is a bonus: without it, signals are still seen */
	first = w->nev;
	if (w->generate && add_generate(w)) {
		close_from(w, first);
		w->generate = NULL;
	}
	return 0;
}

/* The attr of an abort probe: tracepoint ID of its tracefs definition
 * (TP_ID >= 0), else the uprobe PMU UPROBE_TYPE at F's probe in the file
 * named PATH. Its hits carry the user ip, sp and stack. */
static void abort_attr(struct perf_event_attr *a, int64_t tp_id, int uprobe_type,
		       const char *path, const struct rec_abort_file *f)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (tp_id >= 0) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = (uint64_t)tp_id;
	} else {
		a->type = (uint32_t)uprobe_type;
		a->config1 = (uint64_t)(uintptr_t)path;
		a->config2 = f->probe_offset;
	}
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->disabled = 1;
	a->exclude_kernel = 1;
#ifdef SW_REG_IP
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = (1ull << SW_REG_IP) | (1ull << SW_REG_SP);
	a->sample_stack_user = REC_ABORT_STACK;
#endif
}

/*
 * Opens the probe of abort file F (tracepoint TP_ID of its tracefs
 * definition, -1: none could be made) on each thread of the targets (the
 * threads signal_deliver watches), inherited by the threads they create
 * later, whose hits go to their creator's ring; on every CPU for all
 * processes (hits of other processes dropped) when the threads outnumber
 * the CPUs, or without a definition (the uprobe PMU's events cannot be
 * inherited: uprobedef.h). Each uprobe event's close costs the kernel RCU
 * grace periods: their number is the smaller. Returns how many.
 */
static int add_abort_probe(struct rec_sigwatch *w, int64_t tp_id, int uprobe_type,
			   const struct rec_abort_file *f)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int threads = 0, added = 0, nev = w->nev;
	char path[32];
	bool per_cpu;

	for (int i = 0; i < nev; i++)
		threads += w->ev[i].kind == SW_DELIVER;
	per_cpu = tp_id < 0 || threads == 0 || threads > ncpu;
	inpath_proc(f->fd, path, sizeof(path));
	for (int k = 0; k < (per_cpu ? ncpu : nev); k++) {
		struct rec_sigwatch_event *e;
		struct perf_event_attr a;
		void *ring;
		int fd;

		abort_attr(&a, tp_id, uprobe_type, path, f);
		if (!per_cpu) {
			if (w->ev[k].kind != SW_DELIVER ||
			    !(e = add_thread_event(w, &a, SW_ABORT, w->ev[k].tid, SW_ABORT_PAGES,
						   NULL)))
				continue;
			e->abort = f;
			added++;
			continue;
		}
		if (reserve(w))
			break;
		fd = rec_perf_open(&a, -1, k);
		if (fd < 0)
			continue;
		ring = map_ring(fd, SW_ABORT_PAGES, false);
		if (!ring) {
			close(fd);
			continue;
		}
		w->ev[w->nev++] = (struct rec_sigwatch_event){
			.fd = fd, .event_fd = fd, .ring = ring, .pages = SW_ABORT_PAGES,
			.kind = SW_ABORT, .tid = -1, .abort = f,
		};
		added++;
	}
	return added;
}

/* The name of abort file I's uprobe definition (uprobedef.h) into NAME. */
static const char *def_name(int i, char *name, size_t size)
{
	snprintf(name, size, "abort_%d", i);
	return name;
}

int rec_sigwatch_probe_aborts(struct rec_sigwatch *w, const char *exe, pid_t pid,
			      int uprobe_type)
{
	w->nabort_files = rec_abort_files_find(exe, pid, w->abort_files, REC_ABORT_FILES);
	for (int i = 0; i < w->nabort_files; i++) {
		const struct rec_abort_file *f = &w->abort_files[i];
		char path[32], name[24];
		int64_t id = rec_uprobedef_add(def_name(i, name, sizeof(name)),
					       inpath_proc(f->fd, path, sizeof(path)),
					       f->probe_offset);

		w->abort_defined[i] = id >= 0;
		if (id >= 0 || uprobe_type >= 0)
			w->abort_events += add_abort_probe(w, id, uprobe_type, f);
	}
	/* each uprobe holds its file: the descriptors are no longer needed */
	rec_abort_files_close(w->abort_files, w->nabort_files);
	return w->abort_events;
}

int rec_sigwatch_enable(struct rec_sigwatch *w)
{
	for (int i = 0; i < w->nev; i++)
		if (ioctl(w->ev[i].event_fd, PERF_EVENT_IOC_ENABLE, 0) && errno != ESRCH)
			return -errno;
	return 0;
}

/* Whether E's ring wakes the recorder: the signals (faults and abort
 * probes are read at a signal). */
static bool polled(const struct rec_sigwatch_event *e)
{
	return e->kind == SW_DELIVER || e->kind == SW_GENERATE;
}

int rec_sigwatch_fds(struct rec_sigwatch *w, struct pollfd *pf, int max)
{
	int n = 0;

	for (int i = 0; i < w->nev && n < max; i++)
		if (polled(&w->ev[i]))
			pf[n++] = (struct pollfd){ w->ev[i].hup ? -1 : w->ev[i].fd, POLLIN, 0 };
	return n;
}

bool rec_sigwatch_hup(struct rec_sigwatch *w, const struct pollfd *pf, int n)
{
	bool any = false;

	for (int i = 0, k = 0; i < w->nev; i++) {
		if (!polled(&w->ev[i]))
			continue;
		if (k < n && (pf[k++].revents & POLLHUP))
			w->ev[i].hup = true;
		any |= w->ev[i].hup;
	}
	return any;
}

/* The parts of a sample record, as tp_attr asks for them. */
struct sw_sample {
	uint32_t pid, tid;
	uint64_t time;
	const void *raw;        /* the tracepoint's record (common fields first) */
	bool has_ip;
	uint64_t ip;
	const void *stack;      /* SW_ABORT: the user stack from the sp, STACK_SIZE bytes */
	size_t stack_size;
};

/* Splits the user regs and stack of abort probe sample REC (LEN bytes from
 * AT) into S: abi, the regs in the order of their bits (sp, ip), the
 * stack's size, its bytes, the bytes dumped. Returns false when it is
 * shorter than its fields. */
static bool split_abort(const char *rec, size_t len, size_t at, struct sw_sample *s)
{
#ifdef SW_REG_IP
	uint64_t abi, regs[2], size, dyn;

	if (len < at + 8)
		return false;
	memcpy(&abi, rec + at, 8);
	at += 8;
	if (abi) {
		if (len < at + 16)
			return false;
		memcpy(regs, rec + at, 16);
		at += 16;
		s->ip = regs[SW_REG_IP < SW_REG_SP ? 0 : 1];
		s->has_ip = true;
	}
	if (len < at + 8)
		return false;
	memcpy(&size, rec + at, 8);
	at += 8;
	if (size > len - at || (size && len - at - size < 8))
		return false;
	s->stack = rec + at;
	dyn = size;
	if (size)
		memcpy(&dyn, rec + at + size, 8);
	s->stack_size = dyn < size ? dyn : size;
#else
	(void)rec, (void)len, (void)at, (void)s;
#endif
	return true;
}

/* Splits the sample record REC (LEN bytes after its header) of KIND into S.
 * Returns false when it is shorter than its fields. */
static bool split_sample(const char *rec, size_t len, enum sw_kind kind, struct sw_sample *s)
{
	uint32_t raw_size;
	size_t at = 16 + 4;

	if (len < 16)
		return false;
	memcpy(&s->pid, rec, 4);
	memcpy(&s->tid, rec + 4, 4);
	memcpy(&s->time, rec + 8, 8);
	s->raw = NULL;
	s->has_ip = false;
	s->ip = 0;
	s->stack = NULL;
	s->stack_size = 0;
	if (kind == SW_ABORT)
		return split_abort(rec, len, 16, s);
	if (len < at)
		return false;
	memcpy(&raw_size, rec + 16, 4);
	if (raw_size > len - at)
		return false;
	s->raw = rec + at;
	at += raw_size;
	s->has_ip = false;
	s->ip = 0;
	if (kind == SW_DELIVER && len >= at + 16) {
		uint64_t abi;

		memcpy(&abi, rec + at, 8);
		if (abi) {
			memcpy(&s->ip, rec + at + 8, 8);
			s->has_ip = true;
		}
	}
	return true;
}

static bool is_target(const struct rec_sigwatch *w, pid_t pid)
{
	for (int i = 0; i < w->npids; i++)
		if (w->pids[i] == pid)
			return true;
	return false;
}

/* A signal_generate of a target: kept in W->sent (the newest 16). */
static void generated(struct rec_sigwatch *w, const struct sw_sample *s)
{
	struct rec_signal *g;

	if (w->nsent == (int)(sizeof(w->sent) / sizeof(w->sent[0])))
		memmove(w->sent, w->sent + 1, (size_t)--w->nsent * sizeof(*w->sent));
	g = &w->sent[w->nsent++];
	memset(g, 0, sizeof(*g));
	g->pid = (pid_t)field(w->generate, s->raw, "pid", 0);    /* the receiver */
	g->sig = (int)field(w->generate, s->raw, "sig", 0);
	g->code = (int)field(w->generate, s->raw, "code", 0);
	g->err = (int)field(w->generate, s->raw, "errno", 0);
	/* TRACE_SIGNAL_IGNORED (include/trace/events/signal.h): never delivered */
	g->handled = field(w->generate, s->raw, "result", 0) == SW_GENERATE_IGNORED;
	g->time_ns = s->time;
	g->sender_pid = (pid_t)s->pid;
	g->sender_tid = (pid_t)s->tid;
	if (rec_proc_comm((pid_t)s->pid, (pid_t)s->tid, g->sender_comm, sizeof(g->sender_comm)))
		g->sender_comm[0] = '\0';
}

/* A hit of abort probe F in a target: kept in W->aborts (the newest 16),
 * with the cause its stack names. */
static void aborted(struct rec_sigwatch *w, const struct sw_sample *s,
		    const struct rec_abort_file *f)
{
	struct rec_signal *a;

	if (w->naborts == (int)(sizeof(w->aborts) / sizeof(w->aborts[0])))
		memmove(w->aborts, w->aborts + 1, (size_t)--w->naborts * sizeof(*w->aborts));
	a = &w->aborts[w->naborts++];
	memset(a, 0, sizeof(*a));
	a->pid = (pid_t)s->pid;
	a->tid = (pid_t)s->tid;
	a->time_ns = s->time;
	a->cause = s->has_ip ? rec_abort_cause(f, s->ip, s->stack, s->stack_size) : f->cause;
}

/* The cause of SIG (a SIGABRT): its thread's abort probe hits before it, the
 * earliest that is not abort() itself (std::terminate's, then abort's), else
 * abort(). */
static void find_cause(const struct rec_sigwatch *w, struct rec_signal *sig)
{
	for (int i = 0; i < w->naborts; i++) {
		const struct rec_signal *a = &w->aborts[i];

		if (a->tid != sig->tid || a->time_ns > sig->time_ns)
			continue;
		if (!sig->cause || !strcmp(sig->cause, "abort()"))
			sig->cause = a->cause;
	}
}

/*
 * The sender of SIG delivered to S's process: the newest signal_generate of
 * it to the process (or the thread) before it, from another process. A
 * SIGKILL without siginfo (SI_USER) that no SIGKILL sent came after may be
 * the kernel's for a signal sent before it that ends the process unhandled
 * (sig_delivered_as_kill(): SIGINT of a Ctrl-C, SIGTERM, SIGHUP...), never
 * delivered itself: SIG becomes that signal, with its code and sender.
 * Returns whether a signal_generate of it was found.
 */
static bool find_sender(const struct rec_sigwatch *w, struct rec_signal *sig)
{
	bool as_kill = sig->sig == SIGKILL && sig->code == SI_USER;

	for (int i = w->nsent - 1; i >= 0; i--) {
		const struct rec_signal *g = &w->sent[i];

		if (g->time_ns > sig->time_ns || (g->pid != sig->pid && g->pid != sig->tid) ||
		    (g->sig != sig->sig && !(as_kill && !g->handled &&
					     sig_delivered_as_kill(g->sig))))
			continue;
		if (g->sig != sig->sig) {
			sig->sig = g->sig;
			sig->code = g->code;
			sig->err = g->err;
		}
		if (g->sender_pid != sig->pid) {
			sig->sender_pid = g->sender_pid;
			sig->sender_tid = g->sender_tid;
			memcpy(sig->sender_comm, g->sender_comm, sizeof(sig->sender_comm));
		}
		return true;
	}
	return false;
}

/*
 * Whether SIG is a SIGKILL the kernel gave a thread without sending it:
 * no siginfo (SI_USER), and no signal_generate of it (or of a signal it
 * stands for) while signal_generate is watched. The kernel ends the other
 * threads of a process so when one calls exit_group (a return from main
 * with threads running), execve, or dumps core (zap_other_threads(),
 * zap_threads(): the SIGKILL is set pending, never generated); any SIGKILL a
 * process sends, or the kernel's OOM killer, is generated. Not a signal of
 * the program's: dropped.
 */
static bool kernel_kill(const struct rec_sigwatch *w, const struct rec_signal *sig, bool sent)
{
	return w->generate && !sent && sig->sig == SIGKILL && sig->code == SI_USER;
}

/* The fault address of SIG: its thread's newest page fault at its ip, at or
 * before it, in the fault rings (overwritable: read from the newest). */
static void find_fault(struct rec_sigwatch *w, struct rec_signal *sig)
{
	for (int i = 0; i < w->nev; i++) {
		struct rec_sigwatch_event *e = &w->ev[i];
		struct perf_event_mmap_page *mp = e->ring;
		const char *data = (const char *)e->ring + rec_page_size();
		size_t size = (size_t)rec_page_size() * e->pages;
		uint64_t head, pos;
		char rec[256];

		if (e->kind != SW_FAULT)
			continue;
		ioctl(e->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		for (pos = head; pos - head + sizeof(struct perf_event_header) <= size;) {
			struct perf_event_header h;
			struct sw_sample s;

			rec_ring_copy(data, size, pos, &h, sizeof(h));
			if (!h.size || pos - head + h.size > size)
				break;   /* never written, or overwritten in part */
			if (h.type == PERF_RECORD_SAMPLE && h.size - sizeof(h) <= sizeof(rec)) {
				rec_ring_copy(data, size, pos + sizeof(h), rec, h.size - sizeof(h));
				if (split_sample(rec, h.size - sizeof(h), SW_FAULT, &s) &&
				    (pid_t)s.tid == sig->tid && s.time <= sig->time_ns &&
				    (!sig->has_ip || (uint64_t)field(w->fault, s.raw, "ip", 0) == sig->ip)) {
					sig->addr = (uint64_t)field(w->fault, s.raw, "address", 0);
					sig->has_addr = true;
					break;
				}
			}
			pos += h.size;
		}
		ioctl(e->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
		if (sig->has_addr)
			return;
	}
}

/* Reads the samples of forward ring E: a signal_generate is kept for its
 * sender, a signal_deliver of a target becomes OUT[n]. Returns how many
 * went into OUT (at most MAX). */
static int read_ring(struct rec_sigwatch *w, struct rec_sigwatch_event *e, struct rec_signal *out,
		     int max)
{
	struct perf_event_mmap_page *mp = e->ring;
	const char *data = (const char *)e->ring + rec_page_size();
	size_t size = (size_t)rec_page_size() * e->pages;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
	char rec[REC_ABORT_STACK + 512];   /* an abort probe's sample holds its stack */
	int n = 0;

	while (tail < head && n < max) {
		struct perf_event_header h;
		struct sw_sample s;

		rec_ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost[2];

			rec_ring_copy(data, size, tail + sizeof(h), lost, sizeof(lost));
			w->lost += lost[1];
		} else if (h.type == PERF_RECORD_SAMPLE && h.size - sizeof(h) <= sizeof(rec)) {
			rec_ring_copy(data, size, tail + sizeof(h), rec, h.size - sizeof(h));
			if (!split_sample(rec, h.size - sizeof(h), e->kind, &s)) {
				/* not ours to read */
			} else if (e->kind == SW_GENERATE) {
				generated(w, &s);
			} else if (e->kind == SW_ABORT) {
				if (is_target(w, (pid_t)s.pid))
					aborted(w, &s, e->abort);
			} else if (is_target(w, (pid_t)s.pid)) {
				struct rec_signal *sig = &out[n];
				unsigned long handler = (unsigned long)field(w->deliver, s.raw,
									     "sa_handler", 0);

				memset(sig, 0, sizeof(*sig));
				sig->pid = (pid_t)s.pid;
				sig->tid = (pid_t)s.tid;
				sig->time_ns = s.time;
				sig->sig = (int)field(w->deliver, s.raw, "sig", 0);
				sig->code = (int)field(w->deliver, s.raw, "code", 0);
				sig->err = (int)field(w->deliver, s.raw, "errno", 0);
				sig->handled = handler != 0;
				sig->has_ip = s.has_ip;
				sig->ip = s.ip;
				/* an inherited event may run without the kernel filter */
				n += sig_watched(sig->sig, handler, w->trigger);
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int rec_sigwatch_read(struct rec_sigwatch *w, struct rec_signal *out, int max)
{
	int n = 0, kept = 0;

	/* the senders and abort probes first: they come before the delivery */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < w->nev; i++)
			if ((w->ev[i].kind != SW_DELIVER) == (pass == 0) && w->ev[i].kind != SW_FAULT)
				n += read_ring(w, &w->ev[i], out + n, max - n);
	for (int i = 0; i < n; i++) {
		struct rec_signal *sig = &out[kept];

		*sig = out[i];
		if (kernel_kill(w, sig, find_sender(w, sig)))
			continue;
		if (sig->sig == SIGABRT)
			find_cause(w, sig);
		if (sig_has_fault_addr(sig->sig, sig->code))
			find_fault(w, sig);
		kept++;
	}
	return kept;
}

bool rec_sigwatch_sent(const struct rec_sigwatch *w, pid_t pid, int sig)
{
	for (int i = 0; i < w->nsent; i++)
		if (w->sent[i].pid == pid && w->sent[i].sig == sig && !w->sent[i].handled)
			return true;
	return false;
}

void rec_sigwatch_close(struct rec_sigwatch *w)
{
	close_from(w, 0);
	for (int i = 0; i < w->nabort_files; i++) {
		char name[24];

		if (w->abort_defined[i])
			rec_uprobedef_remove(def_name(i, name, sizeof(name)));
	}
	free(w->ev);
	if (w->tep)
		tep_free(w->tep);
	memset(w, 0, sizeof(*w));
}
