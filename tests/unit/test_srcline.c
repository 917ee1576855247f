/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of convert/srcline: the line of a function of this very
 * program (built with -g) read back from its DWARF; what gets no line
 * (not a path, a missing binary, an unknown symbol) and how it is counted;
 * functions with Rust-mangled symbols (asm labels), legacy and v0, found by
 * the names perf prints for them; code with no binary (a perf map of JIT
 * code, anonymous memory, a file that is not ELF) never opened as one; a
 * binary truncated while read.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "srcline.h"
#include "unit.h"
#include "unit_tmp.h"

static const int probe_first = __LINE__;
__attribute__((noinline)) int srcline_probe(int x)
{
	return x * 3 + 1;
}
static const int probe_last = __LINE__;

__attribute__((noinline)) int rust_legacy(int x) __asm__("_ZN7mycrate5store4load17h0123456789abcdefE");
__attribute__((noinline)) int rust_legacy(int x)
{
	return x * 5 + 1;
}
__attribute__((noinline)) int rust_v0(int x) __asm__("_RNvNtCs1234_7mycrate5store5flush");
__attribute__((noinline)) int rust_v0(int x)
{
	return x * 7 + 1;
}
static const int rust_last = __LINE__;

static char exe[PATH_MAX];

static bool lookup(struct srcline *s, const char *dso, const char *sym, uint64_t off,
		   const char **file, unsigned *line)
{
	return srcline_lookup(s, dso, strlen(dso), sym, strlen(sym), off, 0, file, line);
}

static void test_own_function(void)
{
	struct srcline *s = srcline_new(NULL);
	const char *file = NULL, *again = NULL;
	unsigned line = 0, line2 = 0;

	CHECK(s);
	CHECK(srcline_probe(1) == 4);
	CHECK(lookup(s, exe, "srcline_probe", 0, &file, &line));
	CHECK(file && strstr(file, "test_srcline.c"));
	CHECK((int)line > probe_first && (int)line < probe_last);
	/* A second lookup is the cached one: the same string. */
	CHECK(lookup(s, exe, "srcline_probe", 0, &again, &line2));
	CHECK(again == file && line2 == line);
	CHECK_U64_EQ(srcline_stats(s).functions, 2);
	CHECK_U64_EQ(srcline_stats(s).found, 2);
	srcline_free(s);
}

/* perf 6.1 prints "mycrate::store::load" and "mycrate::store::flush". */
static void test_rust_names(void)
{
	struct srcline *s = srcline_new(NULL);
	const char *file = NULL;
	unsigned line = 0;

	CHECK(rust_legacy(1) + rust_v0(1) == 14);
	CHECK(lookup(s, exe, "mycrate::store::load", 0, &file, &line));
	CHECK(file && strstr(file, "test_srcline.c"));
	CHECK((int)line > probe_last && (int)line < rust_last);
	CHECK(lookup(s, exe, "mycrate::store::flush", 0, &file, &line));
	CHECK((int)line > probe_last && (int)line < rust_last);
	srcline_free(s);
}

static void test_none(void)
{
	struct srcline *s = srcline_new("");
	const char *file = NULL;
	unsigned line = 0;
	struct srcline_stats st;

	CHECK(!lookup(s, "[kernel.kallsyms]", "schedule", 0, &file, &line));
	CHECK(!lookup(s, "[unknown]", "x", 0, &file, &line));
	CHECK(!lookup(s, "/nonexistent/snaptrace/bin", "main", 0, &file, &line));
	CHECK(!lookup(s, exe, "no_such_function_anywhere", 0, &file, &line));
	CHECK(!lookup(s, exe, "", 0, &file, &line));
	st = srcline_stats(s);
	CHECK_U64_EQ(st.functions, 2);   /* the missing binary and the unknown symbol */
	CHECK_U64_EQ(st.no_binary, 1);
	CHECK_U64_EQ(st.no_debuginfo, 0);
	CHECK_U64_EQ(st.found, 0);
	srcline_free(s);
}

/* The symbol's start in this process agrees with the binary modulo a page;
 * an address that does not (text from another machine's binary) gets none. */
static void test_sym_start(void)
{
	struct srcline *s = srcline_new(NULL);
	uint64_t start = (uint64_t)(uintptr_t)&srcline_probe;
	const char *file = NULL;
	unsigned line = 0;

	CHECK(srcline_lookup(s, exe, strlen(exe), "srcline_probe", 13, 0, start, &file, &line));
	srcline_free(s);
	s = srcline_new(NULL);
	CHECK(!srcline_lookup(s, exe, strlen(exe), "srcline_probe", 13, 0, start + 16, &file, &line));
	CHECK_U64_EQ(srcline_stats(s).no_binary, 1);
	srcline_free(s);
}

/* Under a symfs DIR, a binary is DIR + its path: the root as symfs finds it, a
 * directory without it does not. */
static void test_symfs(void)
{
	struct srcline *root = srcline_new("/"), *empty = srcline_new("/nonexistent-symfs");
	const char *file = NULL;
	unsigned line = 0;

	CHECK(lookup(root, exe, "srcline_probe", 0, &file, &line));
	CHECK(!lookup(empty, exe, "srcline_probe", 0, &file, &line));
	CHECK_U64_EQ(srcline_stats(empty).no_binary, 1);
	srcline_free(root);
	srcline_free(empty);
	srcline_free(NULL);
}

/* A perf map (JIT code's symbols, as perf names the frames: dso
 * /tmp/perf-PID.map), anonymous memory, and a text file under a binary's
 * name: no line, counted as code without a binary, and srcline_free ends
 * nothing twice (a non-ELF file once left a freed libelf handle behind:
 * exit 139 after a good trace). */
static void test_not_elf(void)
{
	char map[64];
	struct srcline *s = srcline_new(NULL);
	const char *file = NULL;
	unsigned line = 0;
	FILE *f;

	CHECK(s);
	snprintf(map, sizeof(map), "/tmp/perf-%ld.map", (long)getpid());
	f = fopen(map, "w");
	CHECK(f && fprintf(f, "7f0000001000 9 jitted_spin\n") > 0 && !fclose(f));
	f = fopen(unit_tmp("notelf"), "w");
	CHECK(f && fprintf(f, "not an ELF file\n") > 0 && !fclose(f));
	CHECK(!lookup(s, map, "jitted_spin", 0, &file, &line));
	CHECK(!lookup(s, "//anon", "x", 0, &file, &line));
	CHECK(!lookup(s, "/memfd:jit (deleted)", "y", 0, &file, &line));
	CHECK(!lookup(s, unit_tmp("notelf"), "main", 0, &file, &line));
	CHECK(!lookup(s, unit_tmp("notelf"), "main", 4, &file, &line));
	CHECK_U64_EQ(srcline_stats(s).functions, 4);
	CHECK_U64_EQ(srcline_stats(s).no_file, 4);
	CHECK_U64_EQ(srcline_stats(s).no_binary, 0);
	srcline_free(s);
	unlink(map);
}

/* A binary its owner truncates while the converter reads it (another
 * user's, in a recording of theirs): what was read stays readable and the
 * next lookup finds what it can. A mapped file (ELF_C_READ_MMAP*) killed
 * the reader with SIGBUS at its next touch of the lost pages: the file name
 * of the first line, the string table of the second lookup (elfid.h). */
static void test_truncated(void)
{
	const char *copy = unit_tmp("truncated"), *file = NULL, *file2 = NULL;
	struct srcline *s = srcline_new(NULL);
	char buf[65536];
	unsigned line = 0, line2 = 0;
	int in = open(exe, O_RDONLY | O_CLOEXEC), out = open(copy, O_WRONLY | O_CREAT | O_EXCL |
							     O_CLOEXEC, 0600);
	ssize_t n;

	CHECK(s && in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(out, buf, (size_t)n) == n);
	close(in);
	close(out);
	CHECK(lookup(s, copy, "srcline_probe", 0, &file, &line));
	CHECK(!truncate(copy, 0));
	CHECK(file && strstr(file, "test_srcline.c"));
	(void)lookup(s, copy, "mycrate::store::load", 0, &file2, &line2);
	CHECK(!lookup(s, copy, "no_such_function_anywhere", 0, &file2, &line2));
	srcline_free(s);
	unlink(copy);
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || unit_tmp_init("test_srcline"))
		return 1;
	exe[n] = 0;
	UNIT_RUN(test_own_function);
	UNIT_RUN(test_rust_names);
	UNIT_RUN(test_none);
	UNIT_RUN(test_symfs);
	UNIT_RUN(test_sym_start);
	UNIT_RUN(test_not_elf);
	UNIT_RUN(test_truncated);
	unit_tmp_fini();
	return unit_exit();
}
