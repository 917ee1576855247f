/* SPDX-License-Identifier: MIT */
/*
 * The check of each sampled call chain (called by chain.c), counted for the
 * coverage report (coverage.c) in the thread (conv_thread.chains...) and
 * the converter (the binaries blamed): a chain with user-space frames that
 * reaches no thread root is broken, one that reaches a root but is mostly
 * unknown frames is unsymbolized, one cut at a uretprobe's trampoline is
 * neither, and a sample without a chain is flat.
 */
#include "chaincheck.h"

#include <stdlib.h>
#include <string.h>

#include "binaries.h"
#include "funcs.h"

/*
 * Whether IP is the kernel's uretprobe trampoline: the [uprobes] page that
 * the kernel maps just below the top of user space (TASK_SIZE - PAGE_SIZE:
 * 0x7fffffffe000 with 4-level page tables, 0xffffffffffe000 with 5), whose
 * address a uretprobe writes over the return address of the call it
 * watches; perf prints a return address less one (0x7fffffffdfff). No
 * unwinder passes it: the stack's callers are lost there.
 */
static bool uretprobe_trampoline(uint64_t ip)
{
	return (ip >= 0x7fffffffdfffull && ip < 0x7ffffffff000ull) ||
	       (ip >= 0xffffffffffdfffull && ip < 0xfffffffffff000ull);
}

/* Whether F names a binary: not perf's "[unknown]" nor its "(inlined)" frames. */
static bool real_dso(const struct conv_func *f)
{
	const char *dso = f->key + f->symlen;

	return f->dsolen && !(f->dsolen == 9 && !memcmp(dso, "[unknown]", 9)) &&
	       !(f->dsolen == 7 && !memcmp(dso, "inlined", 7));
}

/* Whether F is in a page the kernel maps into every process ([vdso],
 * [vsyscall], [uprobes]): no binary to install symbols for. */
static bool kernel_page(const struct conv_func *f)
{
	return real_dso(f) && f->key[f->symlen] == '[';
}

/* Whether F's binary is a system library, one the distribution installs
 * (under /usr/lib, /lib, /lib64, /usr/lib64; not /usr/local): code the user
 * does not build, whose missing frame pointers no change to the program
 * fixes (docs/design.md "A chain cut at a loop"). */
static bool system_dso(const struct conv_func *f)
{
	static const char *const dirs[] = { "/usr/lib/", "/usr/lib64/", "/lib/", "/lib64/" };
	const char *dso = f->key + f->symlen;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (f->dsolen > strlen(dirs[i]) && !memcmp(dso, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* Counts one chain against F's dso in B (one of C's); sets c->nomem when
 * out of memory. */
static void blame(struct conv *c, struct conv_blame *b, const struct conv_func *f)
{
	const char *dso = f->key + f->symlen;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (strlen(b->dso[i].dso) == f->dsolen && !memcmp(b->dso[i].dso, dso, f->dsolen))
			break;
	if (i == b->n) {
		if (i == CONV_MAX_BLAMED)
			return;
		if (!(b->dso[i].dso = strndup(dso, f->dsolen))) {
			c->nomem = true;
			return;
		}
		b->n++;
	}
	b->dso[i].n++;
}

void conv_chaincheck_count(struct conv *c, struct conv_thread *t,
			   const struct conv_site *frames, size_t n, bool callchain)
{
	size_t user = 0, unknown = 0;
	const struct conv_func *innermost = NULL, *outermost = NULL, *unknown_dso = NULL, *last = NULL;
	const struct conv_func *past = NULL;	/* the named frame inside its loop */
	uint64_t last_ip = 0;
	bool rooted = false, loop = false;

	if (!callchain) {
		t->flat_samples++;
		return;
	}

	for (size_t i = 0; i < n; i++) {
		const struct conv_func *f = frames[i].func;

		if (frames[i].ip >= CONV_KERNEL_START)
			continue;
		user++;
		/* the kernel's own pages ([vdso], [uprobes]) have no symbols to install */
		unknown += f->unknown && !kernel_page(f);
		rooted |= f->root;
		loop |= conv_func_is_loop(f);
		if (!past && conv_func_is_loop(f) && i && frames[i - 1].func &&
		    !frames[i - 1].func->unknown && frames[i - 1].ip < CONV_KERNEL_START)
			past = frames[i - 1].func;
		last_ip = frames[i].ip;
		last = f;
		if (!unknown_dso && f->unknown && real_dso(f) && !kernel_page(f))
			unknown_dso = f;
		/* the binaries to blame: files, never the kernel's pages (the
		 * frame below [uprobes] is in the code the probe stepped out of) */
		if (real_dso(f) && !kernel_page(f)) {
			innermost = innermost ? innermost : f;
			outermost = f;
		}
	}
	/* a loop cut out of a chain that is drawn (chain.c keeps it to its
	 * root): the warning names a frame the trace has */
	c->loop_chains += loop;
	if (loop && past) {	/* where the walk lost its way: a system library's, or not */
		bool sys = system_dso(past);

		*(sys ? &c->loop_system : &c->loop_own) += 1;
		if (sys && !c->loop_past_system)
			c->loop_past_system = past;
		else if (!sys && !c->loop_past)
			c->loop_past = past;
		else if (!sys && past != c->loop_past)
			c->loop_past_more = true;
	}
	if (!user || (innermost && innermost->dsolen > 7 &&
		      memmem(innermost->key + innermost->symlen, innermost->dsolen, "/ld-linux", 9)))
		return;	/* a kernel thread; the dynamic loader's start-up before main */
	/* cut where a uprobe single-steps the probed instruction (no unwinder
	 * passes that page) or at its breakpoint before its handler ran:
	 * chain.c puts it on the open stack (uprobe_cut) */
	if (conv_func_is_uprobes(last) || conv_chain_trap_frame(frames, n) < n)
		return;
	t->chains++;
	if (rooted && unknown * 2 <= user)
		return;
	/* complete, but a binary that changed since the recording (its own
	 * warning) or one with no symbols */
	if (rooted && unknown_dso &&
	    binaries_changed(c->binaries, unknown_dso->key + unknown_dso->symlen, unknown_dso->dsolen))
		return;
	if (rooted) {
		t->unsymbolized_chains++;
		if (unknown_dso)
			blame(c, &c->unsymbolized, unknown_dso);
		return;
	}
	if (uretprobe_trampoline(last_ip)) {
		c->trampoline_chains++;
		return;
	}
	t->broken_chains++;
	/* dwarf unwinds until it can go no further: the outermost frame's
	 * binary; frame pointers fail in the code that has none: the innermost */
	if (c->unwinders == CONV_UNWIND_DWARF ? outermost != NULL : innermost != NULL)
		blame(c, &c->broken, c->unwinders == CONV_UNWIND_DWARF ? outermost : innermost);
	else
		c->unnamed_chains++;	/* no binary known: perf found no mapping */
}

/* Whether the P frames at A and at B are the same: function and address. */
static bool same_frames(const struct conv_site *a, const struct conv_site *b, size_t p)
{
	for (size_t i = 0; i < p; i++)
		if (a[i].ip != b[i].ip || a[i].func != b[i].func)
			return false;
	return true;
}

/* Whether the P frames at A are all of functions with no symbol. */
static bool all_unknown(const struct conv_site *a, size_t p)
{
	for (size_t i = 0; i < p; i++)
		if (!a[i].func->unknown)
			return false;
	return true;
}

/* Cuts each loop of FRAMES (N, innermost first) to one marker frame:
 * conv_chain_clean()'s first rule. Returns the frames left. */
static size_t cut_loops(struct conv *c, struct conv_site *frames, size_t n)
{
	static const char dso[] = CONV_LOOP_DSO;
	for (size_t i = 0; i < n; i++) {
		for (size_t p = 1; p <= CONV_LOOP_PERIOD && i + p * CONV_LOOP_REPEATS <= n; p++) {
			const struct conv_func *m;
			size_t r = 1;

			if (!all_unknown(&frames[i], p))
				continue;
			while (i + (r + 1) * p <= n && same_frames(&frames[i], &frames[i + r * p], p))
				r++;
			if (r < CONV_LOOP_REPEATS)
				continue;
			/* one frame, at the address that repeats, for all of them */
			m = conv_func_get(c, (struct conv_span){ "", 0 },
					  (struct conv_span){ dso, sizeof(dso) - 1 });
			if (!m)
				return n;	/* out of memory: c->nomem set */
			frames[i] = (struct conv_site){ .ip = frames[i].ip, .func = m };
			memmove(&frames[i + 1], &frames[i + r * p], (n - i - r * p) * sizeof(*frames));
			n -= r * p - 1;
			break;
		}
	}
	return n;
}

/* Whether F's binary is perf's "[unknown]": perf found no mapping for it. */
static bool no_binary(const struct conv_site *f)
{
	return f->func && f->func->unknown && f->func->dsolen == 9 &&
	       !memcmp(f->func->key + f->func->symlen, "[unknown]", 9);
}

/* Whether F is a user-space frame in no mapping: perf named no binary for
 * its address (the uretprobe trampoline's return address aside: counted
 * apart, conv_chaincheck_count). */
static bool unmapped(const struct conv_site *f)
{
	return f->ip < CONV_KERNEL_START && no_binary(f) && !uretprobe_trampoline(f->ip);
}

/* Whether F, a frame past the chain's kernel part, is at no user-space
 * address and perf named no binary for it: the kernel's chain gives its
 * own frames first (PERF_CONTEXT_KERNEL's entries, before
 * PERF_CONTEXT_USER's: perf script prints no marker, only the frames),
 * so a frame outside a user frame cannot be the kernel's, nor one at a
 * non-canonical address anyone's; perf names the kernel's frames'
 * binaries ([kernel.kallsyms], a module), the kernel's pages' in user
 * space too ([vsyscall]). */
static bool not_user(const struct conv_site *f)
{
	return f->ip >= CONV_USER_END && no_binary(f);
}

/* Whether F is in a mapping the kernel names that holds no code ([stack],
 * [stack:TID] of kernels before 3.11, [heap], [vvar], [vvar_vclock]):
 * perf names them once it records the data mappings too (-d, which the
 * recorder passes with a stack copy: docs/design.md "Signals and the
 * exit"), so an unwinder's misread return address into the thread's own
 * stack is no longer "[unknown]": crash's abort_assert drew a root
 * [unknown @ 0x7ffd5c57ebff ([stack])] over check_invariant, main lost,
 * once under load. No code runs there (not executable): junk. */
static bool data_page(const struct conv_site *f)
{
	static const char *const pages[] = { "[stack]", "[heap]", "[vvar]", "[vvar_vclock]" };
	const char *dso;

	if (!f->func || !real_dso(f->func))
		return false;
	dso = f->func->key + f->func->symlen;
	if (f->func->dsolen > 7 && !memcmp(dso, "[stack:", 7))
		return true;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (f->func->dsolen == strlen(pages[i]) && !memcmp(dso, pages[i], f->func->dsolen))
			return true;
	return false;
}

/* Cuts FRAMES (N, innermost first) at its first junk frame:
 * conv_chain_clean()'s second rule (a frame at no place of code of a
 * binary the converter read, conv_site.nocode, is one: perf's map of a
 * binary covers its data too, the ELF header and .interp of a PIE's first
 * segment, .rodata, .data; so is one in a mapping of the process that is
 * not executable, conv_maps_data(): perf's -d names data mappings, //anon
 * arenas a walk through code without frame pointers reads). Returns the
 * frames left. */
static size_t cut_unmapped(struct conv *c, const struct conv_site *frames, size_t n)
{
	bool mapped = false;
	size_t kernel = 0;	/* the kernel part: the leading frames at its addresses */

	/* perf knows the process's mappings when it named a binary of it */
	for (size_t i = 0; i < n && !mapped; i++)
		mapped = frames[i].ip < CONV_KERNEL_START && frames[i].func &&
			 real_dso(frames[i].func);
	while (kernel < n && frames[kernel].ip >= CONV_KERNEL_SPACE)
		kernel++;
	for (size_t i = 1; i < n; i++)
		if (frames[i].ip == 0 || frames[i].ip == UINT64_MAX ||
		    (mapped && unmapped(&frames[i])) || (i >= kernel && not_user(&frames[i])) ||
		    data_page(&frames[i]) || frames[i].nocode) {
			if (!c->unmapped_chains++)
				c->unmapped_ip = frames[i].ip;
			return i;
		}
	return n;
}

size_t conv_chain_clean(struct conv *c, struct conv_site *frames, size_t n)
{
	return cut_unmapped(c, frames, cut_loops(c, frames, n));
}

void conv_chaincheck_free(struct conv *c)
{
	struct conv_blame *b[] = { &c->broken, &c->unsymbolized };

	for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
		for (size_t i = 0; i < b[k]->n; i++)
			free(b[k]->dso[i].dso);
		b[k]->n = 0;
	}
}
