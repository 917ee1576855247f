/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of convert/fdenames' places of data (fdenames_place(), the
 * junk-frame rule's reading of a binary, issue 18): in this very program,
 * at the file offsets perf would print for them (its map_ip: the address
 * less its mapping's start, plus the mapping's offset, from
 * /proc/self/maps, not from the ELF headers the rule reads), a function is
 * code, a string constant (.rodata) and the program headers (0x40: in the
 * first segment, in no section) are data, and an offset past every segment
 * (an older perf's address in the process) says nothing; the function's
 * link-time address is its address less the program's load bias (the
 * dynamic loader's, dl_iterate_phdr()); where a checked-in binary's
 * functions have set up their frame, and where not (test_frame_at).
 */
#include <link.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fdenames.h"
#include "unit.h"
#include "unit_self.h"

__attribute__((noinline)) int fdenames_probe(int x)
{
	return x * 3 + 1;
}

static const char probe_text[] = "a constant of .rodata, for fdenames_place()";

/* The file offset of address P of this program, as perf's map_ip gives it,
 * into *OFF. Returns false when no mapping of the program file holds it. */
static bool file_offset(const void *p, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4608], path[4096];
	unsigned long long start, end, pgoff;
	uintptr_t a = (uintptr_t)p;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &pgoff, path) == 4 &&
		    a >= start && a < end && !strcmp(path, unit_self_exe())) {
			*off = a - start + pgoff;
			found = true;
		}
	fclose(f);
	return found;
}

/* dl_iterate_phdr()'s callback: the program's load bias (its first object) into *ARG. */
static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

static void test_own_places(void)
{
	struct srcline *sl = srcline_new(NULL);
	struct fdenames *n = fdenames_new(sl);
	const char *self = unit_self_exe();
	const struct fdenames_dso *d;
	uint64_t code = 0, data = 0, vaddr = 0, base = 0;
	bool nomem = false, place_data;

	CHECK(sl && n);
	if (!sl || !n)
		goto out;
	d = fdenames_dso(n, self, strlen(self), &nomem);
	CHECK(d != NULL);
	CHECK(!nomem);
	CHECK(file_offset((const void *)fdenames_probe, &code));
	CHECK(file_offset(probe_text, &data));
	if (!d)
		goto out;
	CHECK(fdenames_place(d, code, &vaddr, &place_data) && !place_data);
	dl_iterate_phdr(first_bias, &base);
	CHECK(vaddr == (uint64_t)(uintptr_t)fdenames_probe - base);
	CHECK(!fdenames_place(d, data, &vaddr, &place_data) && place_data);
	CHECK(!fdenames_place(d, 0x40, &vaddr, &place_data) && place_data);
	CHECK(!fdenames_place(d, 0x7f0000001234ull, &vaddr, &place_data) && !place_data);
out:
	fdenames_free(n);
	srcline_free(sl);
}

/* A binary that is not there tells nothing: no entry to ask. */
static void test_no_binary(void)
{
	struct srcline *sl = srcline_new(NULL);
	struct fdenames *n = fdenames_new(sl);
	bool nomem = false;

	CHECK(n != NULL);
	CHECK(!fdenames_dso(n, "/nonexistent/bin", 16, &nomem));
	CHECK(!fdenames_dso(n, "[stack]", 7, &nomem));
	CHECK(!nomem);
	fdenames_free(n);
	srcline_free(sl);
}

/*
 * Where a function's frame is set up and where not (fdenames_frame_at(),
 * the frame-pointer skip's rule, issues 18 and 24), in the golden case
 * sampling-prologue-skipped-caller's binary, at the addresses its
 * `objdump -d` shows (app.c there): framed's push %rbp (0x112e) and mov
 * %rsp,%rbp (0x112f), its ret (0x1138) and caller's push %rbp (0x1139) are
 * not; framed's call (0x1132) and pop %rbp (0x1137), caller's call
 * (0x1152) are; the frameless leaf tick (0x1129, its ret 0x112d) is not
 * known (it never sets one up).
 */
static void test_frame_at(void)
{
	static const uint64_t unset[] = { 0x112e, 0x112f, 0x1138, 0x1139 };
	static const uint64_t set[] = { 0x1132, 0x1137, 0x1152 };
	static const uint64_t unknown[] = { 0x1129, 0x112d };
	const char *top = getenv("SNAPTRACE_TOP");
	struct srcline *sl = srcline_new(NULL);
	struct fdenames *n = fdenames_new(sl);
	const struct fdenames_dso *d = NULL;
	char path[4096];
	bool nomem = false;

	CHECK(top && sl && n);
	if (top && sl && n &&
	    (size_t)snprintf(path, sizeof(path), "%s/tests/cases/sampling-prologue-skipped-caller/"
			     "root/opt/fp/app", top) < sizeof(path))
		d = fdenames_dso(n, path, strlen(path), &nomem);
	CHECK(d != NULL);
	for (size_t i = 0; d && i < sizeof(unset) / sizeof(unset[0]); i++)
		CHECK(fdenames_frame_at(n, d, unset[i], &nomem) == FDETAB_FRAME_UNSET);
	for (size_t i = 0; d && i < sizeof(set) / sizeof(set[0]); i++)
		CHECK(fdenames_frame_at(n, d, set[i], &nomem) == FDETAB_FRAME_SET);
	for (size_t i = 0; d && i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK(fdenames_frame_at(n, d, unknown[i], &nomem) == FDETAB_FRAME_UNKNOWN);
	CHECK(!nomem);
	fdenames_free(n);
	srcline_free(sl);
}

int main(void)
{
	UNIT_RUN(test_own_places);
	UNIT_RUN(test_no_binary);
	UNIT_RUN(test_frame_at);
	return unit_exit();
}
