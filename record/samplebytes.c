// SPDX-License-Identifier: MIT
/* samplebytes: perf's sample layout, summed (see samplebytes.h). */
#include "samplebytes.h"

#define SAMPLE_FIXED (8 + 5 * 8)        /* header; IDENTIFIER, IP, TID, TIME, PERIOD */
#define SAMPLE_REGS (8 + 20 * 8)        /* REGS_USER: abi, sample_regs_user 0xff0fff */
#define SAMPLE_STACK (8 + 8192 + 8)     /* STACK_USER: size, perf's default copy, dyn_size */
#define SAMPLE_LBR (8 + 8 + 32 * 24)    /* BRANCH_STACK: nr, hw_idx, 32 entries */

size_t rec_sample_bytes(enum rec_callgraph cg, unsigned frames, bool data)
{
	size_t chain = 8 + 8 * (size_t)(cg == REC_CG_DWARF ? 0 : frames);
	size_t b = SAMPLE_FIXED + chain + (data || cg == REC_CG_DWARF ? REC_SAMPLE_DATA_BYTES : 0);

	if (cg == REC_CG_DWARF)
		return b + SAMPLE_REGS + SAMPLE_STACK;
	return cg == REC_CG_LBR ? b + SAMPLE_LBR : b;
}
