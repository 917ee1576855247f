/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/fdetab: a file's functions from its .eh_frame_hdr,
 * on this test program itself, against binutils' reading of its .eh_frame
 * (`readelf --debug-dump=frames`: each FDE's pc range, but those in its
 * PLT sections as `readelf -S` lists them: a table of stubs, no function),
 * never this reader; and a table whose fde_count is hostile, which is not
 * believed past what its segment holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdetab.h"
#include "unit.h"
#include "unit_tmp.h"

#define FDES_MAX 65536

/* readelf's FDEs of a file's .eh_frame: pc begins and ends, in its order. */
static uint64_t ref_begin[FDES_MAX], ref_end[FDES_MAX];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Reads PATH's FDEs into ref_begin and ref_end. Returns how many. */
static size_t readelf_fdes(const char *path)
{
	char cmd[4200], line[512];
	size_t n = 0;
	bool eh = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " FDE ");

		if (!strncmp(line, "Contents of the ", 16))
			eh = strstr(line, ".eh_frame section") != NULL;
		if (eh && pc && (pc = strstr(pc, "pc=")) && n < FDES_MAX &&
		    sscanf(pc, "pc=%" SCNx64 "..%" SCNx64, &ref_begin[n], &ref_end[n]) == 2)
			n++;
	}
	pclose(p);
	return n;
}

/* Opens PATH read with libelf (ELF_C_READ) into *ELF; its fd, or -1. */
static int open_elf(const char *path, Elf **elf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	return fd;
}

/* Leaves out of ref_begin/ref_end (N entries) those that begin in a PLT
 * section of PATH (.plt, .plt.got, .plt.sec: `readelf -SW`). Returns how
 * many are left. */
static size_t without_plt(const char *path, size_t n)
{
	char cmd[4200], line[512], name[64];
	uint64_t lo[16], hi[16], addr, off, size;
	size_t nplt = 0, k = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return n;
	while (fgets(line, sizeof(line), p)) {
		const char *b = strchr(line, ']');

		if (b && nplt < 16 && sscanf(b + 1, " %63s %*s %" SCNx64 " %" SCNx64 " %" SCNx64,
					     name, &addr, &off, &size) == 4 &&
		    (!strcmp(name, ".plt") || !strncmp(name, ".plt.", 5))) {
			lo[nplt] = addr;
			hi[nplt++] = addr + size;
		}
	}
	pclose(p);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < nplt && (ref_begin[i] < lo[j] || ref_begin[i] >= hi[j]))
			j++;
		if (j < nplt)
			continue;
		ref_begin[k] = ref_begin[i];
		ref_end[k++] = ref_end[i];
	}
	return k;
}

/* This program's table: readelf's FDE starts but the PLT's (it has one:
 * gcc's .plt gets an FDE), in order, the last one's end, and each address
 * found in the function holding it. */
static void table_is_readelfs(void)
{
	char self[4000];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t all = len > 0 ? (self[len] = 0, readelf_fdes(self)) : 0;	/* not readelf's own */
	size_t n = without_plt(self, all);
	uint64_t begins[FDES_MAX], last_end = 0, last_begin = 0, start, size;
	struct fdetab t;
	Elf *elf;
	int fd = open_elf("/proc/self/exe", &elf);

	CHECK(n > 10);
	CHECK(n < all);	/* the PLT's FDEs, left out */
	CHECK(fd >= 0 && elf);
	if (n <= 10 || !elf)
		return;
	memcpy(begins, ref_begin, n * sizeof(*begins));
	for (size_t i = 0; i < n; i++)
		if (ref_begin[i] >= last_begin) {
			last_begin = ref_begin[i];
			last_end = ref_end[i];
		}
	qsort(begins, n, sizeof(*begins), cmp_u64);
	CHECK_INT_EQ(fdetab_read(elf, &t), 0);
	CHECK_U64_EQ(t.n, n);
	CHECK(!t.capped);
	for (size_t i = 0; i < t.n && i < n; i++) {
		CHECK_U64_EQ(t.start[i], begins[i]);
		if (fdetab_func(&t, i, &start, &size) && size > 1)
			CHECK_INT_EQ(fdetab_find(&t, start + size - 1), (int)i);
	}
	/* each function ends where its FDE does (readelf's pc range): an address
	 * past it, in code no FDE covers before the next start, is in none */
	for (size_t i = 0; i < n; i++) {
		ptrdiff_t k = fdetab_find(&t, ref_begin[i]);

		CHECK(k >= 0);
		if (k >= 0 && ref_end[i] > ref_begin[i])
			CHECK_INT_EQ(fdetab_find(&t, ref_end[i] - 1), (int)k);
		if (k >= 0 && ref_end[i] < last_begin && (size_t)k + 1 < t.n &&
		    t.start[k + 1] > ref_end[i])
			CHECK_INT_EQ(fdetab_find(&t, ref_end[i]), -1);
	}
	CHECK_U64_EQ(t.last_end, last_end);
	CHECK_INT_EQ(fdetab_find(&t, begins[0] - 1), -1);
	CHECK_INT_EQ(fdetab_find(&t, last_end), -1);
	fdetab_free(&t);
	CHECK(t.n == 0 && !t.start);
	elf_end(elf);
	close(fd);
}

/* A copy of this program whose fde_count says 0xffffffff: only the entries
 * its segment holds are read, the same as the true count's. */
static void hostile_count(void)
{
	const char *copy = unit_tmp("hostile");
	char cmd[600];
	size_t nph, want = 0;
	GElf_Phdr ph;
	struct fdetab t;
	uint32_t count = UINT32_MAX;
	Elf *elf;
	int fd;

	snprintf(cmd, sizeof(cmd), "cp /proc/self/exe '%s'", copy);
	CHECK_INT_EQ(system(cmd), 0);
	fd = open(copy, O_RDWR | O_CLOEXEC);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf && !elf_getphdrnum(elf, &nph));
	if (!elf)
		return;
	CHECK_INT_EQ(fdetab_read(elf, &t), 0);
	want = t.n;
	fdetab_free(&t);
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			CHECK(pwrite(fd, &count, 4, (off_t)ph.p_offset + 8) == 4);
	elf_end(elf);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK_INT_EQ(fdetab_read(elf, &t), 0);
	CHECK_U64_EQ(t.n, want);
	CHECK(!t.capped);
	fdetab_free(&t);
	elf_end(elf);
	close(fd);
	unlink(copy);
}

int main(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE || unit_tmp_init("fdetab"))
		return 1;
	UNIT_RUN(table_is_readelfs);
	UNIT_RUN(hostile_count);
	unit_tmp_fini();
	return unit_exit();
}
