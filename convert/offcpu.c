/* SPDX-License-Identifier: MIT */
/*
 * Why a thread left the CPU, from a sched:sched_switch sample: its
 * prev_state (R: preempted, still runnable; X, Z: exiting, gone for good;
 * S, D, ...: blocked) and the
 * kernel half of its call chain (the system call and the kernel function it
 * blocked in, below the scheduler's own frames).
 */
#include "offcpu.h"

#include <string.h>

/* The scheduler's own functions, on top of every sched_switch chain. */
static const char *const scheduler[] = {
	"__schedule", "schedule", "preempt_schedule", "io_schedule", "__cond_resched",
	"_cond_resched",
};

/* Entry points of system call NAME: PREFIX NAME (ksys_read when
 * __x64_sys_read is a tail call). */
static const char *const syscall_entry[] = {
	"__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__do_sys_", "__se_sys_", "ksys_",
};

/* The kernel's entry of every system call (its name unknown when the chain
 * lacks the call's own entry: a tail call). */
static const char *const syscall_common[] = {
	"do_syscall_64", "entry_SYSCALL_64", "x64_sys_call", "do_int80_syscall_32",
	"do_fast_syscall_32", "el0_svc", "invoke_syscall",
};

/* Returns the length of the entry in TABLE that S (LEN bytes) starts with, or 0. */
static size_t starts_with(const char *const *table, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(table[i]);

		if (len >= l && !memcmp(s, table[i], l))
			return l;
	}
	return 0;
}

/* Kernel functions that run the tracer's own work in the traced thread,
 * and what that work is: a block below one of them is the recording's
 * cost, not the program's (a clone3 blocked 28 to 75 ms in
 * perf_event_init_task > ... > perf_trace_init, waiting for the kernel's
 * event_mutex, which every tracer's tracepoint and probe set-up takes). */
static const struct {
	const char *func, *what;
} tracer_work[] = {
	{ "perf_event_init_task", "perf copying its events into the new thread (perf's kernel "
				  "locks: a tracepoint's event_mutex is shared with every tracer)" },
	{ "perf_event_exit_task", "perf removing its events from the exiting thread" },
	{ "uprobe_notify_resume", "a uprobe's handler (a trigger's probe)" },
};

void conv_offcpu_of_switch(struct conv *c, const struct conv_site *kernel, size_t n,
			   struct conv_span prev_state, struct conv_offcpu *off)
{
	memset(off, 0, sizeof(*off));
	off->state_known = prev_state.len != 0;
	off->preempted = prev_state.len && prev_state.s[0] == 'R';
	/* EXIT_DEAD, EXIT_ZOMBIE: the task's last switch, from do_task_dead() */
	off->dead = prev_state.len && (prev_state.s[0] == 'X' || prev_state.s[0] == 'Z');
	if (prev_state.len && prev_state.len < sizeof(off->prev_state))	/* s: NULL when none */
		memcpy(off->prev_state, prev_state.s, prev_state.len);
	for (size_t i = 0; i < n; i++) {
		const struct conv_func *f = kernel[i].func;
		size_t p;

		if (f->unknown)
			continue;
		for (size_t w = 0; !off->tracer && w < sizeof(tracer_work) / sizeof(tracer_work[0]); w++)
			if (f->symlen == strlen(tracer_work[w].func) &&
			    !memcmp(f->key, tracer_work[w].func, f->symlen))
				off->tracer = fxt_writer_cstring(c->w, tracer_work[w].what);
		if (!off->kernel_function &&
		    !starts_with(scheduler, sizeof(scheduler) / sizeof(scheduler[0]), f->key,
				 f->symlen))
			off->kernel_function = f->name;
		if (starts_with(syscall_common, sizeof(syscall_common) / sizeof(syscall_common[0]),
				f->key, f->symlen))
			off->in_syscall = true;
		p = starts_with(syscall_entry, sizeof(syscall_entry) / sizeof(syscall_entry[0]),
				f->key, f->symlen);
		if (p && !off->syscall) {
			off->in_syscall = true;
			off->syscall = fxt_writer_string(c->w, f->key + p, f->symlen - p);
			break;
		}
	}
}
