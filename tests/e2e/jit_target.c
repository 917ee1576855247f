/* SPDX-License-Identifier: MIT */
/*
 * A small "JIT" for tests/e2e/jit.test.sh: it copies one x86-64 function
 * (a counted loop) into memory of every kind a JIT or a loader leaves
 * behind, and runs each copy for a while:
 *   jit_perfmap_spin  anonymous memory named in /tmp/perf-PID.map (what
 *                     Node's --perf-basic-prof, perf-map-agent, LuaJIT and
 *                     Python's -X perf write);
 *   jit_dump_spin     anonymous memory named in DIR/jit-PID.dump, perf's
 *                     jitdump format (tools/perf/Documentation/
 *                     jitdump-specification.txt), with its source lines
 *                     (jit_spin.js:7), which `perf inject --jit` turns into
 *                     an ELF file per function (with a line table);
 *   (memfd)           a memfd mapped executable: "/memfd:NAME (deleted)";
 *   (deleted)         a file mapped executable, then removed: "PATH (deleted)".
 *   jit_target DIR MS [FLAGS]
 * DIR holds the jitdump and the file later deleted; MS is how long each
 * copy runs. FLAGS: "d" writes the jitdump (perf inject --jit then drops
 * the process's memfd and anonymous mappings: their frames have no dso);
 * "w" then waits for SIGTERM (to be looked at while it runs).
 * "u" removes its perf map as it exits (as LuaJIT and perf-map agents may).
 * "j" runs data_frames() instead (tests/e2e/datamaps.test.sh): a
 * frame-pointer walk that reads data as a return address, as one through
 * code without frame pointers does (Debian's python3: its obmalloc arenas'
 * pointers drawn as [unknown @ 0x7f... (//anon)] frames), and a JIT's code
 * that calls a function of the program.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov rcx, rdi; 1: dec rcx; jnz 1b; ret */
static const unsigned char spin_code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };

/* A function of the program or a copy of code: spins N times (ARG, for
 * the code that takes it, in rsi). */
typedef void spin_fn(long n, void *arg);

/* The jitdump format (perf's jitdump-specification.txt), version 1. */
struct jd_header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

/* JIT_CODE_DEBUG_INFO: the source lines of the code at code_addr, each
 * entry followed by its file's name (NUL-terminated), before its load. */
struct jd_debug_info {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint64_t code_addr, nr_entry;
};

struct jd_debug_entry {
	uint64_t addr;
	int32_t lineno, discrim;
};

/* What the jitdump says of the spin's source: JIT_SOURCE, lines
 * JIT_LINE (its entry) and JIT_LINE + 1 (its loop). */
#define JIT_SOURCE "jit_spin.js"
#define JIT_LINE 7

struct jd_code_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
	/* then the function's name, NUL-terminated, and its code */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Runs FN (the copy at CODE when FN is NULL) with ARG for MS milliseconds. */
static void run(spin_fn *fn, const void *code, void *arg, long ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	if (!fn)
		fn = (spin_fn *)(uintptr_t)code;
	while (now_ns() < end)
		fn(20000, arg);
}

/* A copy of CODE (SIZE bytes) in executable anonymous memory. */
static unsigned char *anon_copy(const unsigned char *code, size_t size)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memcpy(p, code, size);
	return p;
}

/* /tmp/perf-PID.map naming the SIZE bytes at CODE NAME. */
static void perf_map(const void *code, size_t size, const char *name)
{
	char path[64];
	FILE *map;

	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
	map = fopen(path, "w");
	if (!map)
		die(path);
	fprintf(map, "%lx %zx %s\n", (unsigned long)(uintptr_t)code, size, name);
	fclose(map);
}

void dm_leaf(long n, void *arg);
void dm_frameless(long n, void *fp);

/* The leaf, with its frame: the walk starts at its rbp. */
__attribute__((noinline)) void dm_leaf(long n, void *arg)
{
	(void)arg;
	for (volatile long i = 0; i < n; i++)
		;
}

/* No frame: rbp (saved and restored, as any callee-saved register) holds
 * FP, a pointer into data, while it calls the leaf, which saves it where
 * its caller's rbp would be. */
__asm__(".text\n"
	".globl dm_frameless\n"
	".type dm_frameless, @function\n"
	"dm_frameless:\n"
	"\tpush %rbp\n"
	"\tmov %rsi, %rbp\n"
	"\tcall dm_leaf\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size dm_frameless, .-dm_frameless\n");

#define DATA_SIZE 65536

/* Lays a frame record at DATA + 0x1000 for the walk to read: the next
 * frame, FRAME (the caller's: the walk goes on past it to the thread's
 * root), and a return address in DATA, which it returns. */
static uintptr_t lay_frame(unsigned char *data, void *frame)
{
	uintptr_t *rec = (uintptr_t *)(data + 0x1000), junk = (uintptr_t)data + 0x2345;

	rec[0] = (uintptr_t)frame;
	rec[1] = junk;
	return junk;
}

/*
 * Mode "j": dm_frameless calls dm_leaf with rbp at a frame record in
 * memory that is not executable (anonymous, then DIR/data, a file mapped
 * read-write and shared), MS ms each; then a JIT's code that keeps a frame
 * and calls dm_leaf (push rbp; mov rbp, rsp; movabs rax, dm_leaf; call
 * rax; pop rbp; ret), named dm_jit_call by /tmp/perf-PID.map, MS ms. First
 * prints what it made, a line each: "anon LO HI JUNK" (the anonymous
 * mapping [LO, HI), the junk address), "file LO HI JUNK PATH" (the file's
 * mapping, at file offset 0), "jit ADDR".
 */
static int data_frames(const char *dir, long ms)
{
	unsigned char jit[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
				0xff, 0xd0, 0x5d, 0xc3 };
	uintptr_t leaf = (uintptr_t)dm_leaf, junk;
	unsigned char *anon, *file, *code;
	char path[4096];
	int fd;

	anon = mmap(NULL, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		die("mmap");
	junk = lay_frame(anon, __builtin_frame_address(0));
	printf("anon %lx %lx %lx\n", (unsigned long)(uintptr_t)anon,
	       (unsigned long)(uintptr_t)anon + DATA_SIZE, (unsigned long)junk);
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, DATA_SIZE))
		die(path);
	file = mmap(NULL, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		die("mmap");
	junk = lay_frame(file, __builtin_frame_address(0));
	printf("file %lx %lx %lx %s\n", (unsigned long)(uintptr_t)file,
	       (unsigned long)(uintptr_t)file + DATA_SIZE, (unsigned long)junk, path);
	memcpy(jit + 6, &leaf, sizeof(leaf));
	code = anon_copy(jit, sizeof(jit));
	perf_map(code, sizeof(jit), "dm_jit_call");
	printf("jit %lx\n", (unsigned long)(uintptr_t)code);
	fflush(stdout);
	run(dm_frameless, NULL, anon + 0x1000, ms);
	run(dm_frameless, NULL, file + 0x1000, ms);
	run(NULL, code, NULL, ms);
	return 0;
}

/* FD's file holds the code: mapped executable. */
static void *file_copy(int fd)
{
	void *p;

	if (write(fd, spin_code, sizeof(spin_code)) != (ssize_t)sizeof(spin_code) ||
	    ftruncate(fd, 4096))
		die("write");
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

/* DIR/jit-PID.dump naming CODE jit_dump_spin, mapped executable as perf
 * requires (its MMAP record is how perf inject finds it). */
static void write_jitdump(const char *dir, const unsigned char *code)
{
	static const char name[] = "jit_dump_spin";
	struct jd_header h = { .magic = 0x4A695444, .version = 1, .total_size = sizeof(h),
			       .elf_mach = 62 /* EM_X86_64 */, .pid = (uint32_t)getpid(),
			       .timestamp = now_ns() };
	struct jd_code_load r = { .id = 0, .timestamp = now_ns(), .pid = (uint32_t)getpid(),
				  .tid = (uint32_t)gettid(), .vma = (uintptr_t)code,
				  .code_addr = (uintptr_t)code, .code_size = sizeof(spin_code) };
	char path[4096];
	int fd;

	struct jd_debug_info di = { .id = 2, .timestamp = now_ns(), .code_addr = (uintptr_t)code,
				    .nr_entry = 2 };
	struct jd_debug_entry e[2] = { { .addr = (uintptr_t)code, .lineno = JIT_LINE },
				       { .addr = (uintptr_t)code + 3, .lineno = JIT_LINE + 1 } };
	static const char source[] = JIT_SOURCE;

	di.total_size = (uint32_t)(sizeof(di) + 2 * (sizeof(e[0]) + sizeof(source)));
	r.total_size = (uint32_t)(sizeof(r) + sizeof(name) + sizeof(spin_code));
	snprintf(path, sizeof(path), "%s/jit-%ld.dump", dir, (long)getpid());
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		die(path);
	if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		die("mmap jitdump");
	for (int i = 0; i < 2; i++)
		if ((i == 0 && write(fd, &di, sizeof(di)) != (ssize_t)sizeof(di)) ||
		    write(fd, &e[i], sizeof(e[i])) != (ssize_t)sizeof(e[i]) ||
		    write(fd, source, sizeof(source)) != (ssize_t)sizeof(source))
			die(path);
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r) ||
	    write(fd, name, sizeof(name)) != (ssize_t)sizeof(name) ||
	    write(fd, code, sizeof(spin_code)) != (ssize_t)sizeof(spin_code))
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	char path[4096];
	unsigned char *perfmap_code, *dump_code;
	void *memfd_code, *deleted_code;
	long ms;
	int fd;

	if (argc < 3)
		return 2;
	ms = atol(argv[2]);
	if (argc > 3 && strchr(argv[3], 'j'))
		return data_frames(argv[1], ms);
	perfmap_code = anon_copy(spin_code, sizeof(spin_code));
	dump_code = anon_copy(spin_code, sizeof(spin_code));
	perf_map(perfmap_code, sizeof(spin_code), "jit_perfmap_spin");
	if (argc > 3 && strchr(argv[3], 'd'))
		write_jitdump(argv[1], dump_code);
	fd = memfd_create("snaptrace-jit", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create");
	memfd_code = file_copy(fd);
	snprintf(path, sizeof(path), "%s/deleted-code", argv[1]);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0755);
	if (fd < 0)
		die(path);
	deleted_code = file_copy(fd);
	unlink(path);
	run(NULL, perfmap_code, NULL, ms);
	run(NULL, dump_code, NULL, ms);
	run(NULL, memfd_code, NULL, ms);
	run(NULL, deleted_code, NULL, ms);
	if (argc > 3 && strchr(argv[3], 'w')) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, NULL);
		puts("ready");
		fflush(stdout);
		sigwait(&set, &sig);
	}
	if (argc > 3 && strchr(argv[3], 'u')) {
		snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
		unlink(path);
	}
	return 0;
}
