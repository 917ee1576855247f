/* SPDX-License-Identifier: MIT */
/* insnstart: the instruction start check of probe addresses (see insnstart.h). */
#include "insnstart.h"
#include "inpath.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "elfsym.h"

/* The longest x86 instruction, bytes. */
#define INSN_MAX 15

int rec_insn_read(const char *path, uint64_t offset, size_t n, uint8_t **buf)
{
	char why[160];
	int fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	ssize_t got;

	if (fd < 0)
		return fd;
	*buf = malloc(n);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	got = pread(fd, *buf, n, (off_t)offset);
	close(fd);
	if (got < 0) {
		free(*buf);
		return -EIO;
	}
	/* a function running to the end of the file: the rest reads as zeros */
	for (size_t i = (size_t)got; i < n; i++)
		(*buf)[i] = 0;
	return 0;
}

int rec_insn_start_check(const char *path, const char *file, uint64_t vaddr, char *why,
			 size_t size)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	struct rec_sym s;
	char label[300];
	uint64_t skip, at = 0;
	uint8_t *code = NULL;
	bool decoded = true;
	int err = rec_elf_addr(path, vaddr, &s);

	if (err) {
		snprintf(why, size, "%s: 0x%" PRIx64 ": %s", file, vaddr, rec_elf_strerror(err));
		return rec_elf_errno(err);
	}
	if (s.machine != EM_X86_64)
		return 0;
	if (!s.func_value) {
		snprintf(why, size, "%s: expected 0x%" PRIx64 " inside a function symbol (or, "
			 "in a file without .symtab, a function of its unwind table), found none "
			 "holding it: its instruction boundaries cannot be known, and a probe inside an "
			 "instruction would corrupt it", file, vaddr);
		return -EINVAL;
	}
	rec_sym_label(&s, label, sizeof(label));
	skip = vaddr - s.func_value;
	if (!skip)
		return 0;
	err = rec_insn_read(path, s.file_offset - skip, (size_t)skip + INSN_MAX, &code);
	if (err) {
		snprintf(why, size, "%s: cannot read the code of %s: %s", file, label,
			 strerror(-err));
		return err;
	}
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	while (at < skip) {
		decoded = ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
			&dec, NULL, code + at, (size_t)(skip + INSN_MAX - at), &in));
		if (!decoded || at + in.length > skip)
			break;
		at += in.length;
	}
	free(code);
	if (at == skip)
		return 0;
	if (decoded)
		snprintf(why, size, "0x%" PRIx64 " is inside the instruction at 0x%" PRIx64
			 " (%s+0x%" PRIx64 ", %u bytes): a probe there would corrupt it; "
			 "instruction starts nearby: 0x%" PRIx64 ", 0x%" PRIx64, vaddr,
			 s.func_value + at, label, at, (unsigned)in.length, s.func_value + at,
			 s.func_value + at + in.length);
	else
		snprintf(why, size, "%s: expected x86-64 instructions from %s (0x%" PRIx64 ") "
			 "to 0x%" PRIx64 ", found bytes that do not decode at %s+0x%" PRIx64
			 ": cannot tell whether 0x%" PRIx64 " starts one", file, label,
			 s.func_value, vaddr, label, at, vaddr);
	return -EINVAL;
}
