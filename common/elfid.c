/* SPDX-License-Identifier: MIT */
/* elfid: a binary's build id, read without a mapping (see elfid.h). */
#include "elfid.h"

#include <elfutils/libdwelf.h>
#include <errno.h>

#include "perfdata.h"

void elfid_hex(Elf *elf, char *hex, size_t size)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

	hex[0] = 0;
	if (n > 0 && 2 * (size_t)n < size)
		perfdata_hex(id, (size_t)n, hex);
}

int elfid_fd(int fd, char *hex, size_t size)
{
	Elf *elf;

	hex[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	elfid_hex(elf, hex, size);
	elf_end(elf);
	return 0;
}
