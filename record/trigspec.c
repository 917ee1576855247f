/* SPDX-License-Identifier: MIT */
#include "trigspec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "procfs.h"

static const char *const default_symbols[] = { "magic_trace_stop_indicator", "snaptrace_trigger" };

/* Real path of FILE (resolving /proc/PID/exe) into OUT. */
static void real_file(const char *file, char *out, size_t size)
{
	char buf[PATH_MAX];

	if (realpath(file, buf))
		snprintf(out, size, "%s", buf);
	else
		snprintf(out, size, "%s", file);
}

/* Explains a failed lookup of SYMBOL in FILE into WHY; returns the error to give. */
static int explain_missing(int err, const char *file, const char *symbol, char *why, size_t size)
{
	char names[5][128];
	size_t len;
	int n, i;

	if (err == REC_ELF_ENOSYMS) {
		snprintf(why, size, "%s: expected a symbol table to find '%s', found none "
			 "(stripped?); use --trigger addr:0xHEX", file, symbol);
		return -ENODATA;
	}
	if (err != REC_ELF_ENOSYM) {
		snprintf(why, size, "%s: cannot read symbols: %s", file, rec_elf_strerror(err));
		return err == REC_ELF_ENOTELF ? -ENOEXEC : err < -2000 ? -EINVAL : err;
	}
	len = (size_t)snprintf(why, size, "%s: expected a function named '%s', found none",
			       file, symbol);
	n = rec_elf_suggest(file, symbol, names, 5);
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(why + len, size - len, "%s%s", i ? ", " : "; closest: ",
					names[i]);
	return -ENOENT;
}

static int lookup(const char *file, const char *symbol, struct rec_trigger_loc *loc,
		  char *why, size_t size)
{
	struct rec_sym s;
	int err = rec_elf_lookup(file, symbol, &s);

	if (err)
		return explain_missing(err, file, symbol, why, size);
	snprintf(loc->symbol, sizeof(loc->symbol), "%s", symbol);
	loc->vaddr = s.value;
	loc->file_offset = s.file_offset;
	loc->pie = s.pie;
	return 0;
}

int rec_trigspec_resolve(const char *spec, const char *exe, pid_t pid,
			 struct rec_trigger_loc *loc, char *why, size_t size)
{
	const char *colon;
	int err;

	memset(loc, 0, sizeof(*loc));
	why[0] = '\0';
	if (spec && !strcmp(spec, "none"))
		return REC_TRIGSPEC_NONE;
	if (!spec) {
		unsigned n = sizeof(default_symbols) / sizeof(default_symbols[0]);

		for (unsigned i = 0; i < n; i++) {
			struct rec_sym s;

			if (rec_elf_lookup(exe, default_symbols[i], &s))
				continue;
			snprintf(loc->spec, sizeof(loc->spec), "%s", default_symbols[i]);
			real_file(exe, loc->file, sizeof(loc->file));
			loc->in_main = true;
			return lookup(exe, default_symbols[i], loc, why, size);
		}
		return REC_TRIGSPEC_NONE;
	}
	if (!*spec) {
		snprintf(why, size, "expected SYMBOL, LIB:SYMBOL, addr:0xHEX or none, "
			 "found an empty string");
		return -EINVAL;
	}
	snprintf(loc->spec, sizeof(loc->spec), "%s", spec);
	if (!strncmp(spec, "addr:", 5)) {
		struct rec_sym s;
		char *end;
		uint64_t a;

		errno = 0;
		a = strtoull(spec + 5, &end, 16);
		if (errno || *end || end == spec + 5) {
			snprintf(why, size, "expected addr:0xHEX, found '%s'", spec + 5);
			return -EINVAL;
		}
		err = rec_elf_addr(exe, a, &s);
		if (err) {
			snprintf(why, size, "expected an address of %s's code "
				 "(as nm/objdump print it), found one %s", exe,
				 err == REC_ELF_ENOTEXEC ? "outside its executable segments"
				 : err == REC_ELF_ENOLOAD ? "outside its loaded segments"
				 : rec_elf_strerror(err));
			return err < -2000 ? -EINVAL : err;
		}
		real_file(exe, loc->file, sizeof(loc->file));
		loc->in_main = true;
		snprintf(loc->symbol, sizeof(loc->symbol), "%s", s.name);
		loc->vaddr = a;
		loc->file_offset = s.file_offset;
		loc->pie = s.pie;
		return 0;
	}
	colon = strchr(spec, ':');
	if (colon) {
		char lib[256], path[PATH_MAX];

		if (colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(lib)) {
			snprintf(why, size, "expected LIB:SYMBOL");
			return -EINVAL;
		}
		memcpy(lib, spec, (size_t)(colon - spec));
		lib[colon - spec] = '\0';
		if (rec_proc_find_lib(pid, lib, path, sizeof(path))) {
			snprintf(why, size, "expected a shared library '%s', found "
				 "none mapped in the target nor in the library directories",
				 lib);
			return -ENOENT;
		}
		real_file(path, loc->file, sizeof(loc->file));
		return lookup(loc->file, colon + 1, loc, why, size);
	}
	real_file(exe, loc->file, sizeof(loc->file));
	loc->in_main = true;
	return lookup(exe, spec, loc, why, size);
}

int rec_trigspec_runtime_addr(const struct rec_trigger_loc *loc, pid_t pid, uint64_t *addr)
{
	struct rec_map m;
	int err;

	err = rec_proc_find_map(pid, loc->file, loc->file_offset, 0, &m);
	if (err) {
		if (!loc->pie && loc->in_main) {
			*addr = loc->vaddr;
			return 0;
		}
		return err;
	}
	*addr = m.start + (loc->file_offset - m.pgoff);
	return 0;
}
