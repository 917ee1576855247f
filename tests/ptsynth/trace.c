/* SPDX-License-Identifier: MIT */
/* trace: single-step recording under ptrace (see trace.h). */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "symtab.h"

/* Longest x86 instruction. */
#define INSN_MAX 15

struct tracer {
	struct ps_run *run;
	int mem;          /* /proc/PID/mem */
	int *files;       /* run->maps[i]'s file opened (-1: not yet, -2: not readable) */
	char *err;
	size_t errlen;
	uint64_t max_steps;
};

static int fail(struct tracer *t, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct tracer *t, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static struct ps_thread *thread_find(struct ps_run *run, pid_t tid)
{
	size_t i;

	for (i = 0; i < run->nthreads; i++)
		if (run->threads[i].tid == tid)
			return &run->threads[i];
	return NULL;
}

static struct ps_thread *thread_add(struct ps_run *run, pid_t tid)
{
	struct ps_thread *th = realloc(run->threads, (run->nthreads + 1) * sizeof(*th));
	char path[64];
	FILE *f;

	if (!th)
		return NULL;
	run->threads = th;
	th = &run->threads[run->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", run->pid, tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(th->comm, sizeof(th->comm), f))
			th->comm[strcspn(th->comm, "\n")] = 0;
		fclose(f);
	}
	return th;
}

static int step_push(struct ps_thread *th, uint64_t ip, uint64_t seq)
{
	if (th->n == th->cap) {
		size_t cap = th->cap ? th->cap * 2 : 4096;
		struct ps_step *s = realloc(th->steps, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		th->steps = s;
		th->cap = cap;
	}
	th->steps[th->n].ip = ip;
	th->steps[th->n].seq = seq;
	th->n++;
	return 0;
}

/*
 * Reads up to LEN bytes of code at IP: from the file of the mapping that
 * holds it, where the instruction lies within, as perf decodes it; else
 * from the process. Not from the process where the file has them: a
 * uprobe anyone sets on that file (another user's probe, on any traced
 * library) puts an int3 in every process's copy, where perf still reads
 * the file's instruction and the program runs it. Returns the bytes read,
 * <= 0 when none.
 */
static ssize_t read_code(struct tracer *t, uint64_t ip, uint8_t *buf, size_t len)
{
	const struct ps_run *run = t->run;
	size_t i;

	for (i = 0; i < run->nmaps && t->files; i++) {
		const struct ps_map *m = &run->maps[i];
		ssize_t got;

		if (ip < m->start || ip >= m->end || m->path[0] != '/')
			continue;
		if (t->files[i] == -1) {
			t->files[i] = open(m->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (t->files[i] < 0)
				t->files[i] = -2;
		}
		if (t->files[i] < 0)
			break;
		if (len > m->end - ip)
			len = (size_t)(m->end - ip);
		got = pread(t->files[i], buf, len, (off_t)(m->pgoff + (ip - m->start)));
		if (got > 0)
			return got;
		break;
	}
	return pread(t->mem, buf, len, (off_t)ip);
}

/* Decodes the instruction at IP into the cache (if new). Returns 0 or <0. */
static int learn(struct tracer *t, uint64_t ip, struct ps_insn *out)
{
	const struct ps_insn *c = ps_icache_get(&t->run->icache, ip);
	uint8_t buf[INSN_MAX];
	ssize_t got;

	if (c) {
		*out = *c;
		return 0;
	}
	got = read_code(t, ip, buf, sizeof(buf));
	if (got <= 0)
		return fail(t, -EIO, "cannot read code at %#" PRIx64 ": %s", ip, strerror(errno));
	if (ps_insn_decode(ip, buf, (size_t)got, out) < 0)
		return fail(t, -EINVAL, "no valid instruction at %#" PRIx64, ip);
	return ps_icache_put(&t->run->icache, out);
}

static int valid_successor(const struct ps_insn *in, uint64_t next)
{
	switch (in->kind) {
	case PS_JCC:
		return next == in->target || next == in->ip + in->len;
	case PS_JMP:
	case PS_CALL:
		return next == in->target;
	case PS_JMP_INDIRECT:
	case PS_CALL_INDIRECT:
	case PS_RET:
		return 1;
	default:
		return next == in->ip + in->len;
	}
}

/*
 * Records that TH is about to execute IP. Collapses the repeated stops of
 * rep-prefixed string instructions, fills the step lost after cpuid (it
 * happens in this VM) along the fall-through path, and checks that IP can
 * follow the previous instruction.
 */
static int record(struct tracer *t, struct ps_thread *th, uint64_t ip)
{
	struct ps_insn prev, cur, fill;
	uint64_t at;
	int rc, n;

	if ((rc = learn(t, ip, &cur)) < 0)
		return rc;
	if (th->n) {
		if ((rc = learn(t, th->steps[th->n - 1].ip, &prev)) < 0)
			return rc;
		if (ip == prev.ip && !ps_kind_needs_packet(prev.kind) && prev.kind != PS_JMP &&
		    prev.kind != PS_CALL)
			return 0;  /* another iteration of a rep instruction */
		if (!valid_successor(&prev, ip)) {
			if (prev.kind != PS_CPUID)
				return fail(t, -EPROTO, "thread %d: %s at %#" PRIx64
					    " cannot be followed by %#" PRIx64, th->tid,
					    ps_kind_name(prev.kind), prev.ip, ip);
			for (at = prev.ip + prev.len, n = 0; at != ip; at += fill.len, n++) {
				if (n == 4)
					return fail(t, -EPROTO, "thread %d: cannot fill the "
						    "step lost after cpuid at %#" PRIx64, th->tid,
						    prev.ip);
				if ((rc = learn(t, at, &fill)) < 0)
					return rc;
				if (fill.kind != PS_OTHER)
					return fail(t, -EPROTO, "thread %d: the step lost after "
						    "cpuid at %#" PRIx64 " was a branch", th->tid,
						    prev.ip);
				if ((rc = step_push(th, at, t->run->nsteps)) < 0)
					return rc;
				t->run->filled++;
			}
		}
	}
	if (cur.kind == PS_UNSUPPORTED)
		return fail(t, -ENOTSUP, "thread %d: unsupported control transfer at %#" PRIx64,
			    th->tid, ip);
	if ((rc = step_push(th, ip, t->run->nsteps++)) < 0)
		return rc;
	if (t->run->nsteps > t->max_steps)
		return fail(t, -E2BIG, "more than %" PRIu64 " steps", t->max_steps);
	return 0;
}

static int read_maps(struct tracer *t)
{
	struct ps_run *run = t->run;
	char path[64], line[4096], perms[8], file[4096];
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	struct ps_map *m;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/maps", run->pid);
	f = fopen(path, "r");
	if (!f)
		return fail(t, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &pgoff, &maj, &min, &ino, file);
		if (n < 7 || perms[2] != 'x')
			continue;
		m = realloc(run->maps, (run->nmaps + 1) * sizeof(*m));
		if (!m) {
			fclose(f);
			return -ENOMEM;
		}
		run->maps = m;
		m = &run->maps[run->nmaps++];
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->end = end;
		m->pgoff = pgoff;
		m->maj = maj;
		m->min = min;
		m->ino = ino;
		m->prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | 4;
		m->flags = perms[3] == 'p' ? 2 /* MAP_PRIVATE */ : 1 /* MAP_SHARED */;
		m->path = strdup(file[0] ? file : "//anon");
		if (!m->path) {
			fclose(f);
			return -ENOMEM;
		}
		if (!strcmp(file, "[vdso]")) {
			run->vdso_len = end - start;
			run->vdso = malloc(run->vdso_len);
			if (!run->vdso || pread(t->mem, run->vdso, run->vdso_len, (off_t)start) !=
			    (ssize_t)run->vdso_len) {
				fclose(f);
				return fail(t, -EIO, "cannot read the vdso");
			}
		}
	}
	fclose(f);
	return 0;
}

/* Address of START_SYM in the executable, from the mappings at exec. */
static int find_start(struct tracer *t, const char *start_sym, uint64_t *addr)
{
	char exe[64], path[4096];
	uint64_t off;
	ssize_t len;
	size_t i;
	int rc;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", t->run->pid);
	len = readlink(exe, path, sizeof(path) - 1);
	if (len < 0)
		return fail(t, -errno, "%s: %s", exe, strerror(errno));
	path[len] = 0;
	rc = perfsym_func_offset(path, start_sym, &off);
	if (rc < 0)
		return fail(t, rc, "%s: no function %s", path, start_sym);
	if ((rc = read_maps(t)) < 0)
		return rc;
	for (i = 0; i < t->run->nmaps; i++) {
		const struct ps_map *m = &t->run->maps[i];

		if (!strcmp(m->path, path) && off >= m->pgoff &&
		    off < m->pgoff + m->end - m->start) {
			*addr = m->start + off - m->pgoff;
			return 0;
		}
	}
	return fail(t, -ENOENT, "%s: %s is not in an executable mapping", path, start_sym);
}

static void maps_free(struct ps_run *run)
{
	size_t i;

	for (i = 0; i < run->nmaps; i++)
		free(run->maps[i].path);
	free(run->maps);
	run->maps = NULL;
	run->nmaps = 0;
	free(run->vdso);
	run->vdso = NULL;
	run->vdso_len = 0;
}

/* Runs to the breakpoint at ADDR; leaves the process stopped there. */
static int run_to(struct tracer *t, uint64_t addr)
{
	pid_t pid = t->run->pid;
	long word, patched;
	int st;
	struct user_regs_struct regs;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return fail(t, -errno, "cannot read %#" PRIx64, addr);
	patched = (word & ~0xffL) | 0xcc;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)patched) < 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return fail(t, -errno, "cannot set the start breakpoint: %s", strerror(errno));
	if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return fail(t, -EPROTO, "the program did not reach its start point "
			    "(wait status %#x)", st);
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0 || regs.rip != addr + 1)
		return fail(t, -EPROTO, "stopped at %#llx, not at the start breakpoint",
			    (unsigned long long)regs.rip);
	regs.rip = addr;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)word) < 0 ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0)
		return fail(t, -errno, "cannot remove the start breakpoint: %s", strerror(errno));
	return 0;
}

static int current_ip(pid_t tid, uint64_t *ip)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, (void *)offsetof(struct user_regs_struct, rip), NULL);
	if (errno)
		return -errno;
	*ip = (uint64_t)v;
	return 0;
}

/* Steps every thread until none is left. */
static int step_all(struct tracer *t)
{
	struct ps_run *run = t->run;
	struct ps_thread *th;
	unsigned long msg;
	uint64_t ip = 0;
	int st, rc, sig, event;
	pid_t tid;

	for (;;) {
		tid = waitpid(-1, &st, __WALL);
		if (tid < 0)
			return errno == ECHILD ? 0 : fail(t, -errno, "waitpid: %s",
							  strerror(errno));
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (tid == run->pid)
				run->status = st;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		event = st >> 16;
		th = thread_find(run, tid);
		if (!th && !(th = thread_add(run, tid)))
			return -ENOMEM;
		if (event == PTRACE_EVENT_CLONE) {
			if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 &&
			    !thread_find(run, (pid_t)msg) && !thread_add(run, (pid_t)msg))
				return -ENOMEM;
			sig = 0;
		} else if (event) {
			sig = 0;
		} else if (sig == SIGTRAP || (sig == SIGSTOP && !th->started)) {
			if ((rc = current_ip(tid, &ip)) < 0)
				return fail(t, rc, "thread %d: cannot read rip", tid);
			if ((rc = record(t, th, ip)) < 0)
				return rc;
			th->started = 1;
			sig = 0;
		} else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) {
			th->fault_sig = sig;   /* at its last step; passed on: it ends the program */
		}
		if (ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
			return fail(t, -errno, "thread %d: cannot step: %s", tid, strerror(errno));
	}
}

int ps_run_trace(struct ps_run *run, char *const argv[], const char *start_sym,
		 uint64_t max_steps, char *err, size_t errlen)
{
	struct tracer t = { .run = run, .mem = -1, .err = err, .errlen = errlen,
			    .max_steps = max_steps };
	char path[64];
	uint64_t start, ip = 0;
	int st, rc;
	pid_t pid;

	memset(run, 0, sizeof(*run));
	err[0] = 0;
	pid = spawn_start(&(struct spawn){
		.path = argv[0], .argv = argv, .search_path = true, .trace_me = true,
		.no_aslr = true,
	});
	if (pid < 0)
		return fail(&t, (int)pid, "cannot run %s: %s", argv[0], strerror((int)-pid));
	run->pid = pid;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		rc = fail(&t, -ENOEXEC, "%s did not start", argv[0]);
		goto out;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL));
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	t.mem = open(path, O_RDONLY);
	if (t.mem < 0) {
		rc = fail(&t, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (start_sym && *start_sym) {
		if ((rc = find_start(&t, start_sym, &start)) < 0 || (rc = run_to(&t, start)) < 0)
			goto out;
	}
	maps_free(run);
	if ((rc = read_maps(&t)) < 0)
		goto out;
	t.files = malloc(run->nmaps * sizeof(*t.files) + 1);
	if (!t.files) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < run->nmaps; i++)
		t.files[i] = -1;
	if (!thread_add(run, pid)) {
		rc = -ENOMEM;
		goto out;
	}
	run->threads[0].started = 1;
	if ((rc = current_ip(pid, &ip)) < 0 || (rc = record(&t, &run->threads[0], ip)) < 0)
		goto out;
	if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0) {
		rc = fail(&t, -errno, "cannot step: %s", strerror(errno));
		goto out;
	}
	rc = step_all(&t);
out:
	if (rc < 0) {
		kill(pid, SIGKILL);
		while (waitpid(-1, &st, __WALL) > 0)
			;
	}
	if (t.mem >= 0)
		close(t.mem);
	for (size_t i = 0; t.files && i < run->nmaps; i++)
		if (t.files[i] >= 0)
			close(t.files[i]);
	free(t.files);
	return rc;
}

void ps_run_free(struct ps_run *run)
{
	size_t i;

	for (i = 0; i < run->nthreads; i++)
		free(run->threads[i].steps);
	free(run->threads);
	maps_free(run);
	ps_icache_free(&run->icache);
	memset(run, 0, sizeof(*run));
}

size_t ps_thread_step(const struct ps_thread *th, uint64_t seq)
{
	size_t lo = 0, hi = th->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (th->steps[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
