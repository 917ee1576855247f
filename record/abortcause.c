/* SPDX-License-Identifier: MIT */
#include "abortcause.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "inpath.h"
#include "procfs.h"

/* Functions a program calls only on its way to abort(), and what that says,
 * grouped by file: LIB the library they are in when not in the executable
 * (which is looked in first: a static libc), NULL: the executable only. The
 * file's probe goes on the first PROBE entry found in it; the others name
 * the cause from the probe's stack. CXX: the library is looked for only in a
 * launched program that uses C++ exceptions (an attached one: where it maps
 * it). */
static const struct abort_func {
	const char *lib;
	const char *symbol;     /* as rec_elf_find() takes it */
	const char *cause;
	bool probe, cxx;
} abort_funcs[] = {
	{ "libc.so.6", "abort", "abort()", true, false },
	{ "libc.so.6", "__assert_fail", "assert() failed", false, false },
	{ "libc.so.6", "__assert_perror_fail", "assert() failed", false, false },
	{ "libc.so.6", "__stack_chk_fail", "stack smashing detected", false, false },
	{ "libc.so.6", "__fortify_fail", "buffer overflow detected", false, false },
	{ "libc.so.6", "__chk_fail", "buffer overflow detected", false, false },
	{ "libc.so.6", "malloc_printerr", "glibc malloc check failed", false, false },
	{ "libstdc++.so.6", "_ZN10__cxxabiv111__terminateEPFvvE", "uncaught C++ exception", true,
	  true },
	{ "libstdc++.so.6", "_ZSt9terminatev", "uncaught C++ exception", true, true },
	{ NULL, "std::panicking::rust_panic_with_hook", "Rust panic", true, false },
};

#define NFUNCS (sizeof(abort_funcs) / sizeof(abort_funcs[0]))

static bool same_lib(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Looks for the group of abort_funcs[] FIRST..END-1 in the file open as FD:
 * a probe function makes it *F (the others found its frames). Returns
 * whether one was found. */
static bool find_in(int fd, size_t first, size_t end, struct rec_abort_file *f)
{
	char path[32];
	struct rec_sym sym;
	size_t probe = end;

	inpath_proc(fd, path, sizeof(path));
	for (size_t i = first; i < end && probe == end; i++)
		if (abort_funcs[i].probe && rec_elf_find(path, abort_funcs[i].symbol, &sym, 1) >= 1)
			probe = i;
	if (probe == end)
		return false;
	*f = (struct rec_abort_file){ .fd = fd, .probe_value = sym.value,
				      .probe_offset = sym.file_offset, .pie = sym.pie,
				      .cause = abort_funcs[probe].cause };
	for (size_t i = first; i < end && f->nframes < REC_ABORT_FRAMES; i++)
		if (i != probe && rec_elf_find(path, abort_funcs[i].symbol, &sym, 1) >= 1)
			f->frames[f->nframes++] = (struct rec_abort_frame){
				sym.value, sym.value + (sym.size ? sym.size : 1),
				abort_funcs[i].cause };
	return true;
}

/* The library of group entry P that the target loads or will, opened: an
 * attached one's as it maps it (rec_proc_mapped_lib(): its name may lead
 * elsewhere now), else found by name. Returns the descriptor, or -1 when
 * there is none (see rec_abort_files_find()). */
static int target_lib(const struct abort_func *p, const char *exe, pid_t pid)
{
	char path[PATH_MAX], why[160];
	int fd = -1;

	if (!p->lib)
		return -1;
	if (pid > 0)
		return rec_proc_mapped_lib(pid, p->lib, path, sizeof(path), &fd) ? -1 : fd;
	if ((!p->cxx || (exe && rec_elf_cxx_exceptions(exe))) &&
	    !rec_proc_find_lib(0, p->lib, path, sizeof(path), &fd))
		fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	return fd < 0 ? -1 : fd;
}

int rec_abort_files_find(const char *exe, pid_t pid, struct rec_abort_file *out, int max)
{
	int n = 0;

	for (size_t first = 0, end; first < NFUNCS && n < max; first = end) {
		char why[160];
		int fds[2] = { exe ? inpath_open(AT_FDCWD, exe, 0, why, sizeof(why)) : -1, -1 };

		for (end = first + 1; end < NFUNCS && same_lib(abort_funcs[end].lib,
							       abort_funcs[first].lib); end++)
			;
		fds[1] = target_lib(&abort_funcs[first], exe, pid);
		/* the executable first: a static libc, Rust's runtime; each file
		 * opened once, its functions found and its uprobe opened in what
		 * was opened (the target's owner may swap its names meanwhile) */
		for (int k = 0; k < 2; k++) {
			if (fds[k] >= 0 && find_in(fds[k], first, end, &out[n])) {
				n++;
				fds[k] = -1;	/* out[n]'s */
				break;
			}
		}
		for (int k = 0; k < 2; k++)
			if (fds[k] >= 0)
				close(fds[k]);
	}
	return n;
}

void rec_abort_files_close(struct rec_abort_file *files, int n)
{
	for (int i = 0; i < n; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		files[i].fd = -1;
	}
}

const char *rec_abort_cause(const struct rec_abort_file *f, uint64_t ip, const void *stack,
			    size_t size)
{
	/* a load bias is a multiple of the page size; the ip may be one past
	 * the breakpoint (x86's int3) */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t bias = f->pie ? (ip - f->probe_value) & ~(page - 1) : 0;
	const char *cause = f->cause;

	for (size_t at = 0; at + sizeof(uint64_t) <= size; at += sizeof(uint64_t)) {
		uint64_t ra, in;

		memcpy(&ra, (const char *)stack + at, sizeof(ra));
		in = ra - 1 - bias;   /* the call: a noreturn call may end its function */
		for (int i = 0; i < f->nframes; i++)
			if (in >= f->frames[i].start && in < f->frames[i].end)
				cause = f->frames[i].cause;
	}
	return cause;
}
