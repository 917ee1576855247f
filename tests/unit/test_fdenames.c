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
 * dynamic loader's, dl_iterate_phdr()).
 */
#include <link.h>
#include <stdio.h>
#include <stdint.h>
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

int main(void)
{
	UNIT_RUN(test_own_places);
	UNIT_RUN(test_no_binary);
	return unit_exit();
}
