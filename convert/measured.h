/* SPDX-License-Identifier: MIT */
/*
 * measured.c: measured calls (--measure): record.json's calls file read into
 * the converter, found per thread and in sampled frames.
 * Its other types are state.h's.
 */
#ifndef SNAPTRACE_CONVERT_MEASURED_H
#define SNAPTRACE_CONVERT_MEASURED_H

#include "state.h"

struct perfsym_dso;

/* A measured call (--measure, measured.c): a thread's call of a measured
 * function with its exact entry and return (record.json's calls file). */
struct conv_mcall {
	int64_t pid, tid;
	uint64_t entry, ret;           /* ns, perf clock; RET: its return, or the catch
					* of a call left by an exception (THROWN) */
	uint64_t caller;               /* its return address, where a sampled frame of its
					* caller is (an address of its function's binary,
					* as VADDR); 0: not known */
	bool thrown;
	uint32_t mfunc;                /* its function: an index into conv.mfuncs */
};

/* The call sites of a measured function kept (its callers' return addresses
 * seen right below a frame of it) */
#define CONV_MSITES 16

/* A measured function: how its calls are named and known in samples. */
struct conv_mfunc {
	const struct conv_func *func;  /* its slices' name and dso */
	const char *file;              /* its binary as the samples name it (the dso),
					* borrowed from the recording */
	uint64_t vaddr;                /* its entry: a sampled frame of it has ip - symoff
					* = VADDR in FILE */
	struct conv_msite {
		const struct conv_func *func;  /* the caller */
		uint64_t ip;           /* where the call returns to in it */
	} sites[CONV_MSITES];          /* seen in samples that show a frame of it */
	unsigned nsites;
	struct perfsym_dso *syms;      /* FILE's symbols, read for the callers no sample
					* shows (owned); NULL: not read (yet) */
	bool syms_read;                /* SYMS tried: NULL after it, none to read */
	struct conv_mnamed {
		uint64_t caller;       /* a return address (0: an empty entry) */
		const struct conv_func *func;  /* the function of FILE holding it; NULL:
						* none known */
		uint64_t start;        /* its start, link-time */
	} named[CONV_MSITES];          /* return addresses named, round robin */
	unsigned nnamed;
};

/* measured.c: adds recording R's measured functions (C->mfuncs; their
 * calls of the whole recording as info records) and the calls of its calls
 * file (C->mcalls, sorted by thread and entry). Returns 0 (out of memory
 * sets c->nomem, state.h "Errors"), or -EINVAL when the calls file is not
 * the recorder's (ERR, SIZE bytes: "FILE:LINE: expected ..."). */
int conv_measured_add(struct conv *c, const struct recording *r, char *err, size_t size);

/* measured.c: finds T's calls in C->mcalls (T->mnext, T->mend). */
void conv_measured_thread(struct conv *c, struct conv_thread *t);

/* measured.c: whether a frame of FUNC whose symbol starts at SYM_START in
 * its binary (a sample's ip - symoff; 0: unknown) is a frame of measured
 * function MFUNC: its function, or its entry under another name. */
bool conv_measured_frame(const struct conv *c, const struct conv_func *func, uint64_t sym_start,
			 uint32_t mfunc);

/* measured.c: learns from a sampled chain (FRAMES, N, innermost first) the
 * call sites of C's measured functions: the frame right below each frame of
 * one (its caller, at the return address of the call). */
void conv_measured_learn(struct conv *c, const struct conv_site *frames, size_t n);

/* measured.c: whether FUNC is a function of measured function MFUNC's
 * binary (the dso its samples name). */
bool conv_measured_in_binary(const struct conv *c, uint32_t mfunc, const struct conv_func *func);

/* measured.c: whether sampled frame F is the caller of a call of measured
 * function MFUNC whose return address is CALLER (conv_mcall.caller, in the
 * function's binary) or, CALLER 0 (not known), a known call site of it: the
 * caller of one of its calls, at that call's return. */
bool conv_measured_callsite(const struct conv *c, const struct conv_site *f, uint32_t mfunc,
			    uint64_t caller);

/* measured.c: names call M's return address (M->caller, known) by the
 * symbols of its function's binary as perf names a sampled frame there
 * (perfsym.h), for conv_measured_caller_may_be() and
 * conv_measured_caller_site(), from the file srcline_symbols() reads for it
 * (the recording's kept copy of a binary rebuilt since): nothing when there
 * is none (gone, changed with no copy kept) or it has no symbol there.
 * Reads the binary once for each measured function, and names each address
 * once (out of memory sets c->nomem). */
void conv_measured_name_caller(struct conv *c, const struct conv_mcall *m);

/* measured.c: the frame of M's caller at its return address, as a sampled
 * frame of it would be (function, ip, symoff), into *SITE, when
 * conv_measured_name_caller() named it; false when not. */
bool conv_measured_caller_site(const struct conv *c, const struct conv_mcall *m,
			       struct conv_site *site);

/* measured.c: whether a frame of FUNC, whose symbol starts at SYM_START in
 * its binary (0: unknown), may be call M's caller, by M's return address
 * (false when not known): the function conv_measured_name_caller() named
 * there; else the function of a call site of M's function learned at that
 * address; none learned, a function of the same binary that starts at or
 * before it (a frame the samples never show right below one of M's
 * function: one that tail-calls, or has no frame pointer). */
bool conv_measured_caller_may_be(const struct conv *c, const struct conv_mcall *m,
				 const struct conv_func *func, uint64_t sym_start);

/* measured.c: frees C's measured functions and calls. */
void conv_measured_free(struct conv *c);

#endif
