/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/elfsym, record/trigspec and record/procfs, checked
 * against this test program itself: the file offset libelf computes for a
 * function must be where /proc/self/maps says the running code is.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"
#include "elfsym.h"
#include "procfs.h"
#include "trigspec.h"
#include "unit.h"
#include "unit_self.h"
#include "unit_tmp.h"

/* Two functions with known names, kept out of line. */
__attribute__((noinline)) int elfsym_probe_fn(int x);
__attribute__((noinline)) int elfsym_probe_fn(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3;
}

__attribute__((noinline)) void snaptrace_trigger(void);
__attribute__((noinline)) void snaptrace_trigger(void)
{
	__asm__ volatile("" ::: "memory");
}

static void elf_lookup_matches_maps(void)
{
	struct rec_sym s;
	struct rec_map m;
	uintptr_t addr = (uintptr_t)&elfsym_probe_fn;

	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "elfsym_probe_fn", &s), 0);
	CHECK_INT_EQ(rec_proc_find_map(getpid(), NULL, 0, addr, &m), 0);
	CHECK(m.exec);
	CHECK_STR_EQ(m.path, unit_self_exe());
	CHECK_U64_EQ(s.file_offset, addr - m.start + m.pgoff);
	/* and back: the mapping that holds the offset gives the address */
	CHECK_INT_EQ(rec_proc_find_map(getpid(), unit_self_exe(), s.file_offset, 0, &m), 0);
	CHECK_U64_EQ(m.start + (s.file_offset - m.pgoff), addr);
	CHECK(s.size > 0);
	CHECK_INT_EQ(elfsym_probe_fn(2), 6);
}

static void elf_errors(void)
{
	struct rec_sym s;
	char path[] = "/tmp/snaptrace-unit-XXXXXX";
	int fd = mkstemp(path);

	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "no_such_function_here", &s), REC_ELF_ENOSYM);
	CHECK_INT_EQ(rec_elf_lookup("/nonexistent/file", "main", &s), -ENOENT);
	CHECK(fd >= 0);
	CHECK_INT_EQ(write(fd, "not an elf file\n", 16), 16);
	close(fd);
	CHECK_INT_EQ(rec_elf_lookup(path, "main", &s), REC_ELF_ENOTELF);
	unlink(path);
	CHECK_STR_EQ(rec_elf_strerror(REC_ELF_ENOSYMS), "no symbol table (stripped?)");
}

static void elf_suggest(void)
{
	char names[5][128];
	int n = rec_elf_suggest(unit_self_exe(), "elfsym_probe_fm", names, 5);

	CHECK(n >= 1);
	if (n >= 1)
		CHECK_STR_EQ(names[0], "elfsym_probe_fn");
	n = rec_elf_suggest(unit_self_exe(), "probe_fn", names, 5);
	CHECK(n >= 1);
	if (n >= 1)
		CHECK_STR_EQ(names[0], "elfsym_probe_fn");   /* contains the name */
	CHECK_INT_EQ(edit_distance("kitten", "sitting"), 3);
	CHECK_INT_EQ(edit_distance("", "abc"), 3);
	CHECK_INT_EQ(edit_distance("same", "same"), 0);
}

static void trigspec_forms(void)
{
	struct rec_trigger_loc loc;
	char why[1024];
	uint64_t addr;

	/* default: snaptrace_trigger is defined above */
	CHECK_INT_EQ(rec_trigspec_resolve(NULL, unit_self_exe(), getpid(), &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.spec, "snaptrace_trigger");
	CHECK(loc.in_main);
	CHECK_INT_EQ(rec_trigspec_runtime_addr(&loc, getpid(), &addr), 0);
	CHECK_U64_EQ(addr, (uintptr_t)&snaptrace_trigger);
	snaptrace_trigger();

	CHECK_INT_EQ(rec_trigspec_resolve("none", unit_self_exe(), getpid(), &loc, why, sizeof(why)),
		     REC_TRIGSPEC_NONE);
	CHECK_INT_EQ(rec_trigspec_resolve("addr:0xzz", unit_self_exe(), getpid(), &loc, why,
					  sizeof(why)), -EINVAL);
	CHECK(strstr(why, "expected addr:0xHEX"));

	/* addr: the link-time address of a function names that function */
	CHECK_INT_EQ(rec_trigspec_resolve("elfsym_probe_fn", unit_self_exe(), getpid(), &loc, why,
					  sizeof(why)), 0);
	{
		char spec[64], why2[256];
		uint64_t off = loc.file_offset;

		snprintf(spec, sizeof(spec), "addr:0x%llx", (unsigned long long)loc.vaddr);
		CHECK_INT_EQ(rec_trigspec_resolve(spec, unit_self_exe(), getpid(), &loc, why2,
						  sizeof(why2)), 0);
		CHECK_STR_EQ(loc.symbol, "elfsym_probe_fn");
		CHECK_U64_EQ(loc.file_offset, off);
	}

	CHECK_INT_EQ(rec_trigspec_resolve("elfsym_probe_fx", unit_self_exe(), getpid(), &loc, why,
					  sizeof(why)), -ENOENT);
	CHECK(strstr(why, "closest: elfsym_probe_fn"));

	CHECK_INT_EQ(rec_trigspec_resolve("libc:malloc", unit_self_exe(), getpid(), &loc, why,
					  sizeof(why)), 0);
	CHECK(strstr(loc.file, "libc"));
	CHECK(!loc.in_main);
	CHECK_INT_EQ(rec_trigspec_runtime_addr(&loc, getpid(), &addr), 0);
	CHECK_INT_EQ(rec_trigspec_resolve("libsnaptrace_nonexistent:f", unit_self_exe(), getpid(),
					  &loc, why, sizeof(why)), -ENOENT);
	CHECK_INT_EQ(rec_trigspec_resolve(":f", unit_self_exe(), getpid(), &loc, why, sizeof(why)),
		     -EINVAL);
}

/* The names gcc gives the parts it splits off a function. */
static void elf_parts(void)
{
	CHECK(rec_elf_is_part("foo.cold"));
	CHECK(rec_elf_is_part("foo.cold.3"));
	CHECK(rec_elf_is_part("foo.part.0"));
	CHECK(rec_elf_is_part("foo.constprop.0.cold"));
	CHECK(rec_elf_is_part("_ZN3app5Store4loadEi.cold"));
	CHECK(!rec_elf_is_part("foo"));
	CHECK(!rec_elf_is_part("foo.constprop.0"));
	CHECK(!rec_elf_is_part("foo.isra.0"));
	CHECK(!rec_elf_is_part("foo.coldx"));
	CHECK(!rec_elf_is_part("foo.part."));
	CHECK(rec_elf_part_suffix(".part.1.cold"));
	CHECK(!rec_elf_part_suffix(".1"));
}

/* A kernel thread (pid 2, kthreadd) and this process. */
static void procfs_kernel_thread(void)
{
	CHECK(rec_proc_kernel_thread(2));
	CHECK(!rec_proc_kernel_thread(getpid()));
	CHECK(!rec_proc_kernel_thread(999999999));
}

static void procfs_self(void)
{
	pid_t *tids = NULL, child;
	size_t cap = 0;
	char comm[32];
	int n, status;

	CHECK(rec_proc_alive(getpid()));
	CHECK_INT_EQ(rec_proc_tgid(getpid()), getpid());
	n = rec_proc_tasks(getpid(), &tids, &cap);
	CHECK(n >= 1 && cap >= (size_t)n);
	CHECK(tids[0] > 0);
	CHECK_INT_EQ(rec_proc_comm(getpid(), getpid(), comm, sizeof(comm)), 0);
	CHECK(strlen(comm) > 0 && !strchr(comm, '\n'));
	child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, &status, 0);
	CHECK(!rec_proc_alive(child));
	CHECK(rec_proc_tasks(child, &tids, &cap) < 0);
	free(tids);
}

/* A mapped file whose directory name holds a newline (maps shows it as \012). */
static void procfs_map_newline(void)
{
	const char *path = unit_tmp("new\nline");
	struct rec_map m;
	void *p;
	int fd;

	CHECK_INT_EQ(mkdir(path, 0700), 0);
	path = unit_tmp("new\nline/f");
	fd = open(path, O_RDWR | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 8192) == 0);
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	CHECK_INT_EQ(rec_proc_find_map(getpid(), path, 4096, 0, &m), 0);
	CHECK_STR_EQ(m.path, path);
	CHECK(m.start == (uintptr_t)p);
	munmap(p, 8192);
	close(fd);
}

/* A library mapped, then removed and a FIFO left at its name: it is found
 * by its short name and by its path, as mapped ("PATH (deleted)"), and
 * what is opened is the mapped file, never the FIFO. */
static void procfs_mapped_lib(void)
{
	const char *path = unit_tmp("libunitmapped.so");
	char out[4096], want[4200];
	struct stat mapped, got;
	void *p;
	int fd, lib;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0 && fstat(fd, &mapped) == 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	close(fd);
	CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0);
	snprintf(want, sizeof(want), "%s (deleted)", path);

	CHECK_INT_EQ(rec_proc_mapped_lib(getpid(), "libunitmapped", out, sizeof(out), &lib), 0);
	CHECK_STR_EQ(out, want);
	CHECK(lib >= 0 && fstat(lib, &got) == 0 && got.st_ino == mapped.st_ino &&
	      S_ISREG(got.st_mode));
	close(lib);
	CHECK_INT_EQ(rec_proc_find_lib(getpid(), path, out, sizeof(out), &lib), 0);
	CHECK_STR_EQ(out, want);
	CHECK(lib >= 0 && fstat(lib, &got) == 0 && got.st_ino == mapped.st_ino);
	close(lib);
	munmap(p, 4096);
	/* no longer mapped: a path is the caller's name (LIB itself), not opened */
	CHECK_INT_EQ(rec_proc_find_lib(getpid(), path, out, sizeof(out), &lib), 0);
	CHECK_STR_EQ(out, path);
	CHECK_INT_EQ(lib, -1);
	CHECK_INT_EQ(rec_proc_mapped_lib(getpid(), "libunitmapped", out, sizeof(out), &lib),
		     -ENOENT);
	unlink(path);
}

int main(void)
{
	if (unit_tmp_init("test_rec_symbols"))
		return 1;
	UNIT_RUN(elf_lookup_matches_maps);
	UNIT_RUN(elf_errors);
	UNIT_RUN(elf_suggest);
	UNIT_RUN(trigspec_forms);
	UNIT_RUN(elf_parts);
	UNIT_RUN(procfs_kernel_thread);
	UNIT_RUN(procfs_self);
	UNIT_RUN(procfs_map_newline);
	UNIT_RUN(procfs_mapped_lib);
	unit_tmp_fini();
	return unit_exit();
}
