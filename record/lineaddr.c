/* SPDX-License-Identifier: MIT */
#include "lineaddr.h"
#include "dwalt.h"
#include "inpath.h"
#include "zdwarf.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether the line table's file NAME is FILE: equal, or ending in "/FILE". */
static bool same_file(const char *name, const char *file)
{
	size_t n = strlen(name), f = strlen(file);

	if (n < f || strcmp(name + n - f, file))
		return false;
	return n == f || name[n - f - 1] == '/';
}

int rec_srcline_find(const char *path, const char *file, unsigned line, unsigned col,
		     uint64_t *vaddr, char *why, size_t size)
{
	Dwarf *dw;
	struct dwalt alt;
	char altwhy[PATH_MAX + 200];	/* names the supplementary file */
	Elf *elf;
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool any_table = false, any_file = false, found = false;
	unsigned next_line = 0;
	uint64_t next_addr = 0;
	int fd, err;

	*vaddr = 0;
	fd = inpath_open(AT_FDCWD, path, 0, why, size);
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);	/* never mapped (elfid.h); dwalt_begin() edits it */
	err = elf ? zdwarf_check(elf, why, size) : -ENODATA;
	dw = err ? NULL : dwalt_begin(elf, AT_FDCWD, path, NULL, &alt, altwhy, sizeof(altwhy));
	if (!dw) {
		elf_end(elf);
		close(fd);
		if (!err && altwhy[0]) {
			snprintf(why, size, "%s", altwhy);
			err = -EPERM;
		}
		return err == -E2BIG || err == -EPERM ? err : -ENODATA;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nlines;

		if (!dwarf_offdie(dw, off + hsize, &cu) ||
		    dwarf_getsrclines(&cu, &lines, &nlines)) {
			off = next;
			continue;
		}
		any_table = true;
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const char *name;
			Dwarf_Addr a;
			int ln, lc;
			bool stmt = false, end = false;

			if (!l || !(name = dwarf_linesrc(l, NULL, NULL)) || !same_file(name, file) ||
			    dwarf_lineno(l, &ln) || dwarf_lineaddr(l, &a) ||
			    dwarf_linebeginstatement(l, &stmt) || dwarf_lineendsequence(l, &end) ||
			    !stmt || end)
				continue;
			any_file = true;
			if (dwarf_linecol(l, &lc))
				lc = 0;
			if ((unsigned)ln == line && (!col || (unsigned)lc == col)) {
				if (!found || a < *vaddr)
					*vaddr = a;
				found = true;
			} else if ((unsigned)ln > line && (!next_line || (unsigned)ln < next_line ||
							   ((unsigned)ln == next_line && a < next_addr))) {
				next_line = (unsigned)ln;
				next_addr = a;
			}
		}
		off = next;
	}
	dwalt_end(dw, &alt);
	elf_end(elf);
	close(fd);
	if (found)
		return 0;
	if (!any_table)
		return -ENODATA;
	if (!any_file)
		return -ENOENT;
	*vaddr = next_line;
	return -ERANGE;
}
