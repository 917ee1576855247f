/* SPDX-License-Identifier: MIT */
/*
 * callcount: reports every call of some functions of a program, seen by a
 * uprobe at each function's first instruction (the kernel's uprobe PMU,
 * perf_event_open(2): root or CAP_PERFMON), in every thread and child
 * process of the program. Nothing is left behind (no tracefs probe, as
 * `perf probe` would create), and the program is not changed: the test of
 * tests/workload checks with it that each mode of the workload does what
 * its name says.
 *
 * The probes watch the file on every CPU (pid -1), as the recorder's
 * trigger does, and the calls kept are those of the program's processes:
 * the program and what it forked, from the kernel's fork records. A probe
 * on the program itself, inherited by its threads and children, cannot be
 * had: the kernel re-reads the probe's path (a pointer into callcount's
 * memory) at every fork of the program, where it no longer exists
 * (fork and pthread_create fail with EFAULT).
 *
 *   callcount [-t SECONDS] FUNC[,FUNC...] -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM (a path: its symbol table names the functions) with ARGS;
 * with -t it sends PROGRAM SIGTERM after SECONDS. Once PROGRAM has ended,
 * prints one line per call on stdout:
 *   FUNC PID TID CPU TIME_NS
 * (TIME_NS: the perf clock at the call), grouped by FUNC in the order given,
 * each group in time order, then every name a thread of the program took
 * (at its exec, or pthread_setname_np: the kernel's comm records; a CPU's
 * in time order):
 *   comm PID TID NAME
 * then PROGRAM's resource usage (getrusage(2), its own and that of the
 * children it waited for):
 *   rusage USER_US SYSTEM_US MINOR_FAULTS VOLUNTARY_SWITCHES INVOLUNTARY_SWITCHES
 * Exits with PROGRAM's status (128 + N when a
 * signal N ended it); 1 after an error of its own, 2 on a usage error (a
 * line on stderr). A call the kernel could not report (a ring it found
 * full) is an error: the lines would not be every call.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* data pages of each ring (a power of two): 8 MiB, ~260,000 calls (32 bytes
 * each), holds what a storm or bursts make while a loaded machine (load 20)
 * keeps the drain loop from running for seconds; 256 KiB once lost 24,899
 * calls there, 2 MiB 23,682 under make test-stress beside a CI */
#define RING_PAGES 2048
#define MAX_FUNCS 16

struct call {
	int func;
	uint32_t pid, tid, cpu;
	uint64_t time;
};

/* PERF_RECORD_FORK: a process or thread PID/TID made by PPID/PTID. */
struct fork_rec {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_COMM: thread TID of PID named NAME. */
struct comm_rec {
	uint32_t pid, tid;
	char name[16];
};

struct ring {
	int fd, func;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
};

static struct call *calls;
static size_t ncalls, cap;
static struct fork_rec *forks;
static size_t nforks, fcap;
static struct comm_rec *comms;
static size_t ncomms, ccap;
static uint64_t lost;

/* Appends the N-byte ITEM to *ARR (*LEN items, room for *CAP). */
static void append(void *arr, size_t *len, size_t *cap_, const void *item, size_t n)
{
	void **a = arr;

	if (*len == *cap_) {
		*cap_ = *cap_ ? 2 * *cap_ : 4096;
		*a = realloc(*a, *cap_ * n);
		if (!*a) {
			fprintf(stderr, "callcount: out of memory\n");
			exit(1);
		}
	}
	memcpy((char *)*a + *len * n, item, n);
	(*len)++;
}

static void die(const char *fmt, const char *arg, const char *why)
{
	fprintf(stderr, "callcount: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "%s%s\n", why ? ": " : "", why ? why : "");
	exit(1);
}

/* The file offset of function NAME of the ELF file PATH (its symbol table,
 * else its dynamic one; the executable PT_LOAD segment holding it). */
static uint64_t func_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Phdr ph;
	uint64_t vaddr = 0;
	size_t n;
	int found = 0;

	if (fd < 0)
		die("%s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		die("%s", path, elf_errmsg(-1));
	for (int want = SHT_SYMTAB; !found && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
		while (!found && (scn = elf_nextscn(e, scn))) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (unsigned)want || !d ||
			    !sh.sh_entsize)
				continue;
			for (size_t i = 0; !found && i < sh.sh_size / sh.sh_entsize; i++) {
				const char *s;

				if (!gelf_getsym(d, (int)i, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
					continue;
				s = elf_strptr(e, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, name)) {
					vaddr = sym.st_value;
					found = 1;
				}
			}
		}
	if (!found)
		die("%s", name, "expected a function of that name in the program, found none");
	if (elf_getphdrnum(e, &n))
		die("%s", path, elf_errmsg(-1));
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			elf_end(e);
			close(fd);
			return vaddr - ph.p_vaddr + ph.p_offset;
		}
	die("%s", name, "not in an executable segment");
	return 0;
}

/* The uprobe PMU's type (/sys/bus/event_source/devices/uprobe/type). */
static int uprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -1;

	if (!f || fscanf(f, "%d", &t) != 1)
		die("%s", "/sys/bus/event_source/devices/uprobe/type", "expected the uprobe PMU");
	fclose(f);
	return t;
}

/* Copies LEN bytes at offset AT of R's ring (wrapping) into OUT. */
static void ring_copy(const struct ring *r, uint64_t at, void *out, size_t len)
{
	size_t size = (size_t)RING_PAGES * (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < len; i++)
		((unsigned char *)out)[i] = r->data[(at + i) & (size - 1)];
}

/* Takes every record out of ring R: the samples into calls[], the forks
 * into forks[], the names into comms[], losses into lost. */
static void drain(struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	struct perf_event_header h;
	/* PERF_SAMPLE_TID | TIME | CPU, in that order; PERF_RECORD_LOST: id, lost */
	struct { uint32_t pid, tid; uint64_t time; uint32_t cpu, res; } s;
	struct { uint64_t id, lost; } l;
	struct fork_rec f;
	struct comm_rec cm;
	struct call c;

	while (tail + sizeof(h) <= head) {
		ring_copy(r, tail, &h, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(s)) {
			ring_copy(r, tail + sizeof(h), &s, sizeof(s));
			c = (struct call){ r->func, s.pid, s.tid, s.cpu, s.time };
			append(&calls, &ncalls, &cap, &c, sizeof(c));
		} else if (h.type == PERF_RECORD_FORK && h.size >= sizeof(h) + sizeof(f)) {
			ring_copy(r, tail + sizeof(h), &f, sizeof(f));
			append(&forks, &nforks, &fcap, &f, sizeof(f));
		} else if (h.type == PERF_RECORD_COMM && h.size > sizeof(h) + 8) {
			/* pid, tid, the name (NUL-padded to 8 bytes; 16 at most) */
			size_t len = h.size - sizeof(h) - 8;

			memset(&cm, 0, sizeof(cm));
			ring_copy(r, tail + sizeof(h), &cm,
				  8 + (len < sizeof(cm.name) ? len : sizeof(cm.name)));
			cm.name[sizeof(cm.name) - 1] = '\0';
			append(&comms, &ncomms, &ccap, &cm, sizeof(cm));
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + sizeof(l)) {
			ring_copy(r, tail + sizeof(h), &l, sizeof(l));
			lost += l.lost;
		}
		if (!h.size)
			break;
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_time(const void *a, const void *b)
{
	const struct fork_rec *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/* Whether PID is in the N processes of PIDS. */
static int among(uint32_t pid, const uint32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

static int by_func_time(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->func != y->func)
		return x->func - y->func;
	return (x->time > y->time) - (x->time < y->time);
}

int main(int argc, char **argv)
{
	char *names[MAX_FUNCS], *list, *save = NULL;
	struct ring rings[MAX_FUNCS * 256];
	size_t nrings = 0, page = (size_t)sysconf(_SC_PAGESIZE);
	int nfuncs = 0, ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), go[2], st, type;
	double secs = -1;
	char **prog;
	pid_t child;
	struct timespec tick = { 0, 20000000 }, t0, t;
	struct rusage ru;
	uint32_t *procs = NULL;
	size_t nprocs = 0, pcap = 0, kept = 0;
	int killed = 0;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		secs = atof(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || strcmp(argv[2], "--") || !strchr(argv[3], '/') || ncpus > 256) {
		fprintf(stderr, "usage: callcount [-t SECONDS] FUNC[,FUNC...] -- PROGRAM [ARGS...]"
			" (PROGRAM a path)\n");
		return 2;
	}
	prog = argv + 3;
	list = argv[1];
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (nfuncs == MAX_FUNCS) {
			fprintf(stderr, "callcount: at most %d functions\n", MAX_FUNCS);
			return 2;
		}
		names[nfuncs++] = f;
	}
	type = uprobe_type();

	/* the program waits for the probes, which its exec enables */
	if (pipe2(go, O_CLOEXEC))
		die("%s", "pipe", strerror(errno));
	child = fork();
	if (child < 0)
		die("%s", "fork", strerror(errno));
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execv(prog[0], prog);
		fprintf(stderr, "callcount: %s: %s\n", prog[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	for (int f = 0; f < nfuncs; f++) {
		uint64_t off = func_offset(prog[0], names[f]);

		/* every CPU; the first function's also reports forks */
		for (int cpu = 0; cpu < ncpus; cpu++) {
			struct perf_event_attr a = {
				.size = sizeof(a), .type = (uint32_t)type,
				.config1 = (uint64_t)(uintptr_t)prog[0], .config2 = off,
				.sample_period = 1,
				.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
				.task = f == 0, .comm = f == 0,
			};
			struct ring *r = &rings[nrings];
			void *m;

			r->fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
					     PERF_FLAG_FD_CLOEXEC);
			if (r->fd < 0 && errno == ENODEV)
				continue;   /* a CPU that is not online */
			if (r->fd < 0) {
				kill(child, SIGKILL);
				die("a uprobe on %s", names[f], strerror(errno));
			}
			m = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
				 r->fd, 0);
			if (m == MAP_FAILED) {
				kill(child, SIGKILL);
				die("the ring of %s", names[f], strerror(errno));
			}
			r->meta = m;
			r->data = (unsigned char *)m + page;
			r->func = f;
			nrings++;
		}
	}
	if (write(go[1], "g", 1) != 1)
		die("%s", "pipe", strerror(errno));
	close(go[1]);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t w = wait4(child, &st, WNOHANG, &ru);

		for (size_t i = 0; i < nrings; i++)
			drain(&rings[i]);
		if (w == child)
			break;
		if (w < 0)
			die("%s", "wait4", strerror(errno));
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (secs >= 0 && !killed &&
		    (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs) {
			kill(child, SIGTERM);
			killed = 1;
		}
		nanosleep(&tick, NULL);
	}
	if (lost) {
		fprintf(stderr, "callcount: the kernel lost %llu calls (a full ring)\n",
			(unsigned long long)lost);
		return 1;
	}
	/* the program's processes: it, and every process forked by one of them */
	if (nforks)	/* qsort(NULL, 0): undefined, which the sanitizer build stops at */
		qsort(forks, nforks, sizeof(*forks), by_time);
	append(&procs, &nprocs, &pcap, &(uint32_t){ (uint32_t)child }, sizeof(uint32_t));
	for (size_t i = 0; i < nforks; i++)
		if (among(forks[i].ppid, procs, nprocs) && !among(forks[i].pid, procs, nprocs))
			append(&procs, &nprocs, &pcap, &forks[i].pid, sizeof(uint32_t));
	for (size_t i = 0; i < ncalls; i++)
		if (among(calls[i].pid, procs, nprocs))
			calls[kept++] = calls[i];
	if (kept)
		qsort(calls, kept, sizeof(*calls), by_func_time);
	for (size_t i = 0; i < kept; i++)
		printf("%s %u %u %u %llu\n", names[calls[i].func], calls[i].pid, calls[i].tid,
		       calls[i].cpu, (unsigned long long)calls[i].time);
	for (size_t i = 0; i < ncomms; i++)
		if (among(comms[i].pid, procs, nprocs))
			printf("comm %u %u %s\n", comms[i].pid, comms[i].tid, comms[i].name);
	printf("rusage %lld %lld %ld %ld %ld\n",
	       (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec, ru.ru_minflt,
	       ru.ru_nvcsw, ru.ru_nivcsw);
	if (fflush(stdout))
		die("%s", "stdout", strerror(errno));
	free(procs);	/* the one local array: LeakSanitizer (make asan) counts it */
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
