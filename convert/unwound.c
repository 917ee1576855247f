/* SPDX-License-Identifier: MIT */
/*
 * The caller a library hides (docs/design.md "The caller a library hides"):
 * a switch's frame-pointer chain (its sched_switch sample) spliced with the
 * chain perf unwound from a copy of the user stack at the same moment (its
 * twin, a context-switches sample with call-graph=dwarf). The twin knows the
 * frames of code without frame pointers (the C library) and of the function
 * that called into it, but a small stack copy may end before the root; the
 * frame-pointer chain knows the outer frames.
 */
#include "unwound.h"

/* Does chain F of N frames (innermost first) end in a thread's root? A new
 * thread's entry (clone3) as the only frame does not: the thread may be in
 * the call that makes another (pthread_create's clone3, where no unwinder
 * finds its callers: glibc gives the parent's return from the system call
 * no CFI), which the frame-pointer chain tells (chain.c to_root()). */
static bool rooted(const struct conv_site *f, size_t n)
{
	return n && f[n - 1].func && f[n - 1].func->root && (n > 1 || !f[0].func->thread_entry);
}

size_t conv_unwound_splice(const struct conv_site *fp, size_t nfp, const struct conv_site *dw,
			   size_t ndw, struct conv_site *out)
{
	size_t n = 0, i, j = 0;

	/* perf gives a caller's frame one byte before its return address (the
	 * call's last byte, for its source line); a frame-pointer chain has
	 * the return address itself: the twin's callers are moved back */
	for (i = 0; i < ndw; i++) {
		out[n] = dw[i];
		if (i) {
			out[n].ip++;
			out[n].symoff += out[n].has_symoff;
		}
		n++;
	}
	if (rooted(out, n) || !nfp)
		return n;
	/* the first return address both chains hold: the rest is the
	 * frame-pointer chain's */
	for (i = 1; i < n; i++) {
		for (j = 1; j < nfp; j++)
			if (fp[j].ip == out[i].ip && fp[j].func == out[i].func)
				break;
		if (j < nfp)
			break;
	}
	if (i < n)
		n = i + 1;
	else
		j = 0;	/* none: the twin's frames are all inside the frame-pointer
			 * chain's first caller (the copy ended before it) */
	for (j++; j < nfp; j++)
		out[n++] = fp[j];
	return n;
}
