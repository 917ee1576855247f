/* SPDX-License-Identifier: MIT */
/*
 * trace: runs a program under ptrace single-step (ASLR off) and records,
 * per thread, every executed instruction's address with a global step number
 * (the order in which the steps were observed across threads). Instructions
 * are decoded (insn.h) while the process is alive; the executable mappings
 * of /proc/PID/maps and the vdso image are kept for the perf.data writer and
 * the symbol tables.
 */
#ifndef PTSYNTH_TRACE_H
#define PTSYNTH_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "insn.h"

/* One executed instruction: its address and its global step number. */
struct ps_step {
	uint64_t ip;
	uint64_t seq;
};

struct ps_thread {
	pid_t tid;
	char comm[16];
	struct ps_step *steps;   /* owned; in execution order */
	size_t n, cap;
	int started;             /* its first stop was seen */
	int fault_sig;           /* the CPU faulted on its last step: SIGSEGV, SIGBUS,
				  * SIGFPE or SIGILL (delivered: it ends there); 0: none */
};

/* An executable mapping, as in /proc/PID/maps. */
struct ps_map {
	uint64_t start, end, pgoff;
	uint32_t maj, min, prot, flags;
	uint64_t ino;
	char *path;              /* owned; "[vdso]" for the vdso */
};

struct ps_run {
	pid_t pid;
	struct ps_thread *threads;  /* owned; in order of first appearance */
	size_t nthreads;
	struct ps_map *maps;        /* owned; executable mappings only */
	size_t nmaps;
	uint8_t *vdso;              /* owned copy of the vdso image, or NULL */
	size_t vdso_len;
	struct ps_icache icache;    /* every executed instruction, decoded */
	uint64_t nsteps;            /* global steps recorded */
	uint64_t filled;            /* instructions filled in after cpuid */
	int status;                 /* the program's wait status */
};

/*
 * Runs ARGV[0] (searched in PATH) with ARGV, stopped by a breakpoint at the
 * function START_SYM of the executable (NULL: at the first instruction
 * after exec), then single-steps every thread until the process is gone or
 * MAX_STEPS steps were taken (then it is killed and -E2BIG returned).
 * Fills RUN (free with ps_run_free). Returns 0 or a negative errno; ERR
 * (ERRLEN bytes) then says what went wrong.
 */
int ps_run_trace(struct ps_run *run, char *const argv[], const char *start_sym,
		 uint64_t max_steps, char *err, size_t errlen);

void ps_run_free(struct ps_run *run);

/* The index in TH->steps of its first step at or after global step SEQ
 * (TH->n when there is none). */
size_t ps_thread_step(const struct ps_thread *th, uint64_t seq);

#endif
