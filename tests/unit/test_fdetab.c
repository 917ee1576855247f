/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/fdetab: a file's functions from its .eh_frame_hdr,
 * on this test program itself, against binutils' reading of its .eh_frame
 * (`readelf --debug-dump=frames`: each FDE's pc range, but those in its
 * PLT sections as `readelf -S` lists them: a table of stubs, no function),
 * never this reader; and a table whose fde_count is hostile, which is not
 * believed past what its segment holds; which starts are a function's
 * entry, against readelf's CFA there (--debug-dump=frames-interp).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cold_split.h"
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

/* `readelf --debug-dump=DUMP PATH`'s output, to pclose(); NULL: none. */
static FILE *readelf_dump(const char *dump, const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=%s '%s' 2>/dev/null", dump, path);
	return popen(cmd, "r");
}

/* Whether readelf's LINE is in .eh_frame's contents (EH: the line before). */
static bool in_eh_frame(const char *line, bool eh)
{
	return strncmp(line, "Contents of the ", 16) ? eh : strstr(line, ".eh_frame section") != NULL;
}

/* Reads PATH's FDEs into ref_begin and ref_end. Returns how many. */
static size_t readelf_fdes(const char *path)
{
	char line[512];
	size_t n = 0;
	bool eh = false;
	FILE *p = readelf_dump("frames", path);

	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " FDE ");

		eh = in_eh_frame(line, eh);
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

/* readelf's CIEs: each one's offset and its initial CFA ("rsp+8"). */
struct cies {
	uint64_t off[64];
	char cfa[64][64];
	size_t n;
};

/* Sets ENTRY[i] of the ref_begin (N) equal to BEGIN to whether CFA is rsp+8
 * (CFA NULL: the initial one of CIE C at offset CIE). Returns 1. */
static size_t set_entry(bool *entry, size_t n, uint64_t begin, const char *cfa,
			const struct cies *c, uint64_t cie)
{
	for (size_t i = 0; !cfa && i < c->n; i++)
		if (c->off[i] == cie)
			cfa = c->cfa[i];
	for (size_t i = 0; i < n; i++)
		if (ref_begin[i] == begin)
			entry[i] = cfa && !strcmp(cfa, "rsp+8");
	return 1;
}

/* Reads readelf's CFA of each FDE of PATH at its start (--debug-dump=
 * frames-interp: "pc=BEGIN..END", then the row at BEGIN, or none when the
 * FDE has no instructions: its CIE's initial row, "0 CFA") as whether it is
 * "rsp+8" into ENTRY, by ref_begin's order (readelf_fdes()). Returns how
 * many FDEs it read. */
static size_t readelf_entries(const char *path, bool *entry, size_t n)
{
	static struct cies c;
	char line[512], cfa[64];
	uint64_t begin = 0, loc, off, cie = 0;
	size_t k = 0;
	bool eh = false, in_cie = false, pending = false;
	FILE *p = readelf_dump("frames-interp", path);

	c.n = 0;
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " FDE ");

		eh = in_eh_frame(line, eh);
		if ((pc || strstr(line, " CIE ")) && pending) {	/* the last FDE had no row */
			k += set_entry(entry, n, begin, NULL, &c, cie);
			pending = false;
		}
		if (!eh)
			continue;
		if (strstr(line, " CIE ") && c.n < 64 && sscanf(line, "%" SCNx64, &off) == 1) {
			c.off[c.n] = off;
			c.cfa[c.n++][0] = '\0';
			in_cie = true;
		} else if (pc && (pc = strstr(pc, "pc=")) && sscanf(pc, "pc=%" SCNx64, &begin) == 1 &&
			   sscanf(strstr(line, "cie="), "cie=%" SCNx64, &cie) == 1) {
			pending = true;
			in_cie = false;
		} else if (sscanf(line, "%" SCNx64 " %63s", &loc, cfa) == 2 && strchr(cfa, '+')) {
			if (in_cie && loc == 0)
				snprintf(c.cfa[c.n - 1], sizeof(c.cfa[0]), "%s", cfa);
			else if (pending && loc == begin)
				k += set_entry(entry, n, begin, cfa, &c, cie);
			pending = in_cie = false;
		}
	}
	pclose(p);
	if (pending)
		k += set_entry(entry, n, begin, NULL, &c, cie);
	return k;
}

/* Which of this program's FDE starts are an entry (fdetab_is_entry()) is
 * readelf's: its CFA there rsp+8; cold_split's .cold part is none. */
static void entries_are_readelfs(void)
{
	static bool entry[FDES_MAX];
	char self[4000];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t all = len > 0 ? (self[len] = 0, readelf_fdes(self)) : 0, jumped = 0, checked = 0;
	struct fdetab t;
	Elf *elf;
	int fd = open_elf("/proc/self/exe", &elf);

	CHECK_INT_EQ(cold_split(3), 9);
	CHECK_U64_EQ(readelf_entries(self, entry, all), all);
	CHECK(fd >= 0 && elf);
	if (!elf || !all)
		return;
	CHECK_INT_EQ(fdetab_read(elf, &t), 0);
	CHECK_INT_EQ(fdetab_read_entries(elf, &t), 0);
	CHECK(t.cfa != NULL);
	for (size_t i = 0; i < t.n; i++)
		for (size_t k = 0; k < all; k++) {
			if (ref_begin[k] != t.start[i])
				continue;
			checked++;
			jumped += !entry[k];
			if (fdetab_is_entry(&t, i) != entry[k])
				UNIT_FAIL("FDE at 0x%" PRIx64 ": entry %d, readelf %d", t.start[i],
					  fdetab_is_entry(&t, i), entry[k]);
			break;
		}
	CHECK_U64_EQ(checked, t.n);
	CHECK(jumped >= 1);	/* cold_split.cold */
	fdetab_free(&t);
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
	UNIT_RUN(entries_are_readelfs);
	unit_tmp_fini();
	return unit_exit();
}
