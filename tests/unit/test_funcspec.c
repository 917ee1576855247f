/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/funcspec's address of a function: the spellings
 * --trigger, --measure and stats --function take after LIB: or alone
 * (funcspec_parse_fn_addr()), the two forms one rule, a name neither.
 */
#include <errno.h>
#include <stdint.h>

#include "funcspec.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* addr:0xHEX and the name funcspec_unnamed() writes give the same address. */
static void fn_addr_forms(void)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{ "addr:0x15cf0", 0x15cf0 }, { "addr:15cf0", 0x15cf0 },
		{ "[unnamed @ 0x15cf0]", 0x15cf0 }, { "addr:0xffffffffffffffff", UINT64_MAX },
	};
	char buf[FUNCSPEC_UNNAMED_MAX];

	for (size_t i = 0; i < N(ok); i++) {
		uint64_t v = 0;

		if (funcspec_parse_fn_addr(ok[i].s, &v) || v != ok[i].v)
			UNIT_FAIL("'%s': 0x%llx, expected 0x%llx", ok[i].s, (unsigned long long)v,
				  (unsigned long long)ok[i].v);
	}
	/* what funcspec_unnamed() names is read back as its start */
	for (uint64_t a = 1; a; a <<= 7) {
		uint64_t v = 0;

		CHECK_INT_EQ(funcspec_parse_fn_addr(funcspec_unnamed(a, buf, sizeof(buf)), &v), 0);
		CHECK_U64_EQ(v, a);
	}
}

/* addr: with no address is malformed (-EINVAL); a function's name, or
 * another spelling of the unnamed name, is no address (-ENOENT). */
static void fn_addr_refused(void)
{
	static const char *const bad[] = { "addr:", "addr:0xzz", "addr:0x1 ", "addr:-1",
					   "addr:0x10000000000000000" };
	static const char *const names[] = {
		"lzma_code", "", "addr", "[unnamed @ 0x]", "[unnamed @ 0x15CF0]",
		"[unnamed @ 15cf0]", "[unnamed @ 0x015cf0]", "[unnamed @ 0x15cf0", "0x15cf0",
		"[unknown @ 0x15cf0]",
	};
	uint64_t v;

	for (size_t i = 0; i < N(bad); i++)
		if (funcspec_parse_fn_addr(bad[i], &v) != -EINVAL)
			UNIT_FAIL("'%s': expected -EINVAL", bad[i]);
	for (size_t i = 0; i < N(names); i++)
		if (funcspec_parse_fn_addr(names[i], &v) != -ENOENT)
			UNIT_FAIL("'%s': expected -ENOENT (a name)", names[i]);
}

/* LIB of LIB:addr:0xHEX is whole, a path with ':' too; LIB:NAME's is the
 * first single ':' as before. */
static void lib_colon(void)
{
	static const struct {
		const char *s;
		int at;	/* the index of the ':' ending LIB, -1: none */
	} cases[] = {
		{ "liblzma:addr:0x15cf0", 7 }, { "/opt/a:b/lib.so:addr:0x10", 15 },
		{ "/opt/a:b/lib.so:[unnamed @ 0x10]", 15 }, { "libc:write", 4 },
		{ "app::Store::load", -1 }, { "libstdc++:std::terminate", 9 },
		{ "[unnamed @ 0x10]", -1 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		const char *c = funcspec_lib_colon(cases[i].s);
		int at = c ? (int)(c - cases[i].s) : -1;

		if (at != cases[i].at)
			UNIT_FAIL("'%s': %d, expected %d", cases[i].s, at, cases[i].at);
	}
}

int main(void)
{
	UNIT_RUN(fn_addr_forms);
	UNIT_RUN(fn_addr_refused);
	UNIT_RUN(lib_colon);
	return unit_exit();
}
