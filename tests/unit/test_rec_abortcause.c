/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rec_abort_cause() (record/abortcause.h): the cause of an
 * abort probe's hit from the stack its sample carries, on a file whose
 * functions are written out by hand (link-time addresses), placed by the
 * load bias the hit's ip gives. Every expected answer is written by hand.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "abortcause.h"
#include "unit.h"

/* A C library by hand: abort probed at 0x26000, __assert_fail at
 * [0x35000, 0x35080), __stack_chk_fail [0x36000, 0x36020) which calls
 * __fortify_fail [0x36100, 0x36140). */
static const struct rec_abort_file libc = {
	.fd = -1, .probe_value = 0x26000, .probe_offset = 0x26000, .pie = true,
	.cause = "abort()",
	.frames = {
		{ 0x35000, 0x35080, "assert() failed" },
		{ 0x36000, 0x36020, "stack smashing detected" },
		{ 0x36100, 0x36140, "buffer overflow detected" },
	},
	.nframes = 3,
};

#define BIAS 0x7f0000000000ull

static void abortcause_frames(void)
{
	/* from the sp up: abort's return address into __libc_message (not a
	 * cause), one into __fortify_fail, data, one into __stack_chk_fail */
	uint64_t st[] = { BIAS + 0x40010, BIAS + 0x36120, 42, BIAS + 0x36010, 0 };

	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, st, sizeof(st)),
		     "stack smashing detected");   /* the outermost */
	/* the stack cut before the outer frame: the inner one */
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, st, 3 * sizeof(st[0])),
		     "buffer overflow detected");
	/* x86's ip one past the breakpoint: the same bias */
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26001, st, sizeof(st)),
		     "stack smashing detected");
}

static void abortcause_call_at_end(void)
{
	/* a noreturn call as __assert_fail's last instruction: its return
	 * address is the function's end, the call inside it */
	uint64_t end[] = { BIAS + 0x35080 };
	/* the address after the function's end is not in it */
	uint64_t past[] = { BIAS + 0x35081 };
	/* the function's first byte is no call's return address */
	uint64_t first[] = { BIAS + 0x35000 };

	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, end, sizeof(end)), "assert() failed");
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, past, sizeof(past)), "abort()");
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, first, sizeof(first)), "abort()");
}

static void abortcause_none(void)
{
	/* link-time addresses unbiased, another file's, nothing at all */
	uint64_t unbiased[] = { 0x35010, BIAS + 0x1000000 + 0x35010 };
	uint64_t odd[3] = { 0 };
	struct rec_abort_file exe = libc;

	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, unbiased, sizeof(unbiased)), "abort()");
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, NULL, 0), "abort()");
	/* a stack of fewer bytes than a word */
	memcpy(odd, (uint64_t[]){ BIAS + 0x35010 }, 8);
	CHECK_STR_EQ(rec_abort_cause(&libc, BIAS + 0x26000, odd, 7), "abort()");
	/* not PIE: no bias, whatever the ip */
	exe.pie = false;
	CHECK_STR_EQ(rec_abort_cause(&exe, 0x26000, unbiased, sizeof(unbiased)),
		     "assert() failed");
}

int main(void)
{
	UNIT_RUN(abortcause_frames);
	UNIT_RUN(abortcause_call_at_end);
	UNIT_RUN(abortcause_none);
	return unit_exit();
}
