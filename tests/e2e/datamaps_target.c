/* SPDX-License-Identifier: MIT */
/*
 * For tests/e2e/datamaps.test.sh: a frame-pointer walk that reads data as
 * a return address, as one through code without frame pointers does
 * (Debian's python3: its obmalloc arenas' pointers drawn as
 * [unknown @ 0x7f... (//anon)] frames). dm_frameless sets up no frame and
 * holds in rbp, while it calls the leaf dm_leaf (which has a frame), a
 * pointer into memory that is not executable: the leaf saves it where its
 * caller's rbp would be, and the walk reads the words there as the next
 * frame: a return address in that memory (the junk), then the frame of
 * main's caller, so the walk goes on to the thread's root past it. And a
 * JIT's code that keeps a frame and calls the leaf, in executable
 * anonymous memory named by /tmp/perf-PID.map (dm_jit_call): a frame of
 * code that no binary holds, which stays.
 *   datamaps_target DIR MS
 * runs MS ms of each: the junk in anonymous memory, then in a file (DIR/
 * data, mapped read-write, shared), then the JIT's code; it first prints
 * what it made, one line each:
 *   anon LO HI JUNK       the anonymous mapping [LO, HI), the junk address
 *   file LO HI JUNK PATH  the file's mapping (at file offset 0), the junk
 *   jit ADDR              dm_jit_call's code (the perf map names it)
 * Built with frame pointers (-fno-omit-frame-pointer), x86-64.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGION 65536

void dm_leaf(long n);
void dm_frameless(long n, void *fp);

/* The leaf, with its frame: the walk starts at its rbp. */
__attribute__((noinline)) void dm_leaf(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

/* No frame: rbp (saved and restored, as any callee-saved register) holds
 * FP, a pointer into data, while it calls the leaf. */
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

/* Lays a frame record at REGION + 0x1000: the next frame, FRAME (the
 * caller's), and a return address in REGION, which it returns. */
static uintptr_t lay_frame(unsigned char *region, void *frame)
{
	uintptr_t *rec = (uintptr_t *)(region + 0x1000), junk = (uintptr_t)region + 0x2345;

	rec[0] = (uintptr_t)frame;
	rec[1] = junk;
	return junk;
}

/* Runs the leaf under dm_frameless with rbp at REGION's frame record for MS ms. */
static void run_frameless(unsigned char *region, long ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	while (now_ns() < end)
		dm_frameless(20000, region + 0x1000);
}

/* The JIT's code: push rbp; mov rbp, rsp; movabs rax, dm_leaf; call rax;
 * pop rbp; ret (the argument passes through in rdi). */
static unsigned char *jit_code(void)
{
	unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
				 0xff, 0xd0, 0x5d, 0xc3 };
	uintptr_t leaf = (uintptr_t)dm_leaf;
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;

	if (p == MAP_FAILED)
		die("mmap");
	memcpy(code + 6, &leaf, sizeof(leaf));
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
	map = fopen(path, "w");
	if (!map)
		die(path);
	fprintf(map, "%lx %zx dm_jit_call\n", (unsigned long)(uintptr_t)p, sizeof(code));
	fclose(map);
	return p;
}

int main(int argc, char **argv)
{
	char path[4096];
	unsigned char *anon, *file, *jit;
	void (*jit_fn)(long);
	uintptr_t junk;
	uint64_t end;
	long ms;
	int fd;

	if (argc != 3)
		return 2;
	ms = atol(argv[2]);
	anon = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		die("mmap");
	junk = lay_frame(anon, __builtin_frame_address(0));
	printf("anon %lx %lx %lx\n", (unsigned long)(uintptr_t)anon,
	       (unsigned long)(uintptr_t)anon + REGION, (unsigned long)junk);
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, REGION))
		die(path);
	file = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		die("mmap");
	junk = lay_frame(file, __builtin_frame_address(0));
	printf("file %lx %lx %lx %s\n", (unsigned long)(uintptr_t)file,
	       (unsigned long)(uintptr_t)file + REGION, (unsigned long)junk, path);
	jit = jit_code();
	printf("jit %lx\n", (unsigned long)(uintptr_t)jit);
	fflush(stdout);
	run_frameless(anon, ms);
	run_frameless(file, ms);
	jit_fn = (void (*)(long))(uintptr_t)jit;
	end = now_ns() + (uint64_t)ms * 1000000u;
	while (now_ns() < end)
		jit_fn(20000);
	return 0;
}
