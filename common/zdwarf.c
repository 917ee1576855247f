/* SPDX-License-Identifier: MIT */
/* zdwarf: compressed DWARF sections bounded (see zdwarf.h). */
#include "zdwarf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The size section SCN (header SH, named NAME) inflates to, or 0 when it
 * is not compressed (or too short to say). */
static uint64_t inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	GElf_Chdr ch;
	Elf_Data *raw;
	const unsigned char *p;
	uint64_t n = 0;

	if (sh->sh_flags & SHF_COMPRESSED)
		return gelf_getchdr(scn, &ch) ? ch.ch_size : 0;
	if (strncmp(name, ".zdebug", 7) || !(raw = elf_rawdata(scn, NULL)) || raw->d_size < 12 ||
	    memcmp(raw->d_buf, "ZLIB", 4))
		return 0;
	p = (const unsigned char *)raw->d_buf + 4;
	for (int i = 0; i < 8; i++)
		n = n << 8 | p[i];
	return n;
}

int zdwarf_check(Elf *elf, char *why, size_t size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(why, size, "cannot read its section headers: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		uint64_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		n = inflated_size(scn, &sh, name);
		if (n > ZDWARF_FLOOR && n / ZDWARF_RATIO > sh.sh_size) {
			snprintf(why, size, "section %s inflates to %llu bytes from %llu "
				 "(more than %d times)", name, (unsigned long long)n,
				 (unsigned long long)sh.sh_size, ZDWARF_RATIO);
			return -E2BIG;
		}
	}
	return 0;
}
