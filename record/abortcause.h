/* SPDX-License-Identifier: MIT */
/*
 * abortcause: what made a program abort on purpose (assert()'s
 * __assert_fail, __stack_chk_fail, the fortify checks, glibc's
 * malloc_printerr, libstdc++'s std::terminate, Rust's panic hook), told by
 * one uprobe per file that holds such functions, whatever their number.
 *
 * Each file (the C library, or the executable for a static one; libstdc++;
 * a Rust executable) gets its one probe on the function every cause of it
 * ends in (abort; __cxxabiv1::__terminate; rust_panic_with_hook), and the
 * probe's sample carries the user stack (PERF_SAMPLE_STACK_USER, from the
 * sp of PERF_SAMPLE_REGS_USER). The other functions of the file are found
 * on that stack as return addresses into them: the sample's ip is the
 * probed function's runtime address, so ip less its link-time value is the
 * file's load bias (page-aligned), which places them. They never return
 * (noreturn), so a return address into one on the live stack is never
 * stale: the outermost names the cause (__stack_chk_fail over the
 * __fortify_fail it calls), else the probed function's own.
 *
 * The converter's table of the same causes, by the frames of a call chain,
 * is convert/sigmarks.c's abort_paths[]. Why: docs/design.md "Signals and
 * the exit".
 */
#ifndef SNAPTRACE_REC_ABORTCAUSE_H
#define SNAPTRACE_REC_ABORTCAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_ABORT_FILES 3      /* the C library, libstdc++, a Rust executable */
#define REC_ABORT_FRAMES 8     /* cause functions of one file */
#define REC_ABORT_STACK 8192   /* bytes of user stack a probe's sample carries: from
				* abort up past __assert_fail, __libc_message (~1 KiB) */

/* A function of a file that names a cause when on the stack, link-time
 * addresses [START, END). */
struct rec_abort_frame {
	uint64_t start, end;
	const char *cause;     /* static */
};

/* One file holding abort causes, and its probe. */
struct rec_abort_file {
	int fd;                /* the file, open (inpath_open()): the uprobe names
				* inpath_proc(fd); -1 once closed */
	uint64_t probe_value;  /* the probed function's st_value (link-time) */
	uint64_t probe_offset; /* its first instruction's file offset: the uprobe's */
	bool pie;              /* ET_DYN: loaded at a bias */
	const char *cause;     /* the probed function's own cause ("abort()"), static */
	struct rec_abort_frame frames[REC_ABORT_FRAMES];
	int nframes;
};

/*
 * Finds the files of the target that hold abort causes: EXE (its
 * executable: a static libc, Rust), and the libraries process PID maps
 * (an attached target; its mappings only) or, PID 0 (a launched target,
 * stopped before its libraries are loaded), the C library it would load and
 * libstdc++ when EXE uses C++ exceptions (rec_elf_cxx_exceptions()). Fills
 * OUT (at most MAX), each file open: close them with rec_abort_files_close().
 * Returns how many (0: none found).
 */
int rec_abort_files_find(const char *exe, pid_t pid, struct rec_abort_file *out, int max);

/* Closes the files of FILES (N of them). */
void rec_abort_files_close(struct rec_abort_file *files, int n);

/*
 * The cause of a hit of F's probe: IP its user ip (the probed function's
 * runtime address), STACK the user stack from its sp (SIZE bytes). The
 * outermost return address into one of F's frames names it, else F's own.
 * Returns a static string.
 */
const char *rec_abort_cause(const struct rec_abort_file *f, uint64_t ip, const void *stack,
			    size_t size);

#endif
