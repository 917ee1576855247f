/* SPDX-License-Identifier: MIT */
/* Unit tests of common/numparse: what is accepted, and every kind of nonsense refused. */
#include <errno.h>
#include <stdint.h>

#include "numparse.h"
#include "unit.h"

#define GIB (UINT64_C(1) << 30)
#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef int (*parser)(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Each parser refuses these forms whatever the range. */
static const char *const not_numbers[] = {
	"", " 1", "1 ", "+1", "-1", "inf", "nan", "NaN", "1e30", "1e3", "0x10", "0x1p4",
	"1,", ",1", "1,2", "0.5.1", "abc", "1\n", "--1",
};

/* A string and the value it must give. */
struct accepted {
	const char *s;
	uint64_t v;
};

/* Each of the N strings of OK must give its value. */
static void accepts(parser parse, const struct accepted *ok, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;

		if (parse(ok[i].s, 0, UINT64_MAX, &v) || v != ok[i].v)
			UNIT_FAIL("'%s': %llu, expected %llu", ok[i].s, (unsigned long long)v,
				  (unsigned long long)ok[i].v);
	}
}

/* Each of the N strings of BAD (except SKIP, if any) must give -EINVAL. */
static void refused(parser parse, const char *const *bad, size_t n, const char *skip)
{
	uint64_t v = 7;

	for (size_t i = 0; i < n; i++)
		if ((!skip || strcmp(bad[i], skip)) && parse(bad[i], 0, UINT64_MAX, &v) != -EINVAL)
			UNIT_FAIL("'%s' not refused with -EINVAL", bad[i]);
	CHECK_U64_EQ(v, 7);
}

static void u64_accepts_digits(void)
{
	uint64_t v = 7;

	CHECK_INT_EQ(num_parse_u64("0", 0, 10, &v), 0);
	CHECK_U64_EQ(v, 0);
	CHECK_INT_EQ(num_parse_u64("4194304", 1, 4194304, &v), 0);
	CHECK_U64_EQ(v, 4194304);
	CHECK_INT_EQ(num_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CHECK_U64_EQ(v, UINT64_MAX);
}

static void u64_refuses_range_and_overflow(void)
{
	uint64_t v = 7;

	/* 2^32 + 1 once truncated to pid 1 */
	CHECK_INT_EQ(num_parse_u64("4294967297", 1, 4194304, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_u64("0", 1, 10, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_u64("11", 1, 10, &v), -ERANGE);
	CHECK_U64_EQ(v, 7);
	refused(num_parse_u64, not_numbers, N(not_numbers), NULL);
	CHECK_INT_EQ(num_parse_u64("0.5", 0, UINT64_MAX, &v), -EINVAL);
	CHECK_INT_EQ(num_parse_u64("4K", 0, UINT64_MAX, &v), -EINVAL);
	CHECK_U64_EQ(v, 7);
}

static void size_units(void)
{
	static const struct accepted ok[] = {
		{ "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 }, { "4KB", 4096 },
		{ "4KiB", 4096 }, { "1M", 1 << 20 }, { "16m", 16 << 20 }, { "2G", 2 * GIB },
		{ "1T", GIB << 10 }, { "100b", 100 }, { "16777215T", UINT64_C(16777215) << 40 },
	};

	accepts(num_parse_size, ok, N(ok));
}

static void size_refuses_nonsense(void)
{
	static const char *const bad[] = { "0.5", "1.5M", "4X", "4KK", "4Bi", "M", "4 M", "4i" };
	uint64_t v = 7;

	refused(num_parse_size, not_numbers, N(not_numbers), NULL);
	refused(num_parse_size, bad, N(bad), NULL);
	CHECK_INT_EQ(num_parse_size("64G", 4096, 4 * GIB, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_size("0", 4096, 4 * GIB, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_size("16777216T", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_size("99999999999999999999K", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_U64_EQ(v, 7);
}

static void seconds_fractions(void)
{
	static const struct accepted ok[] = {	/* nanoseconds */
		{ "2", 2000000000 }, { "0.5", 500000000 }, { ".25", 250000000 },
		{ "1.000000001", 1000000001 }, { "0010", 10000000000 }, { "3.10", 3100000000 },
		{ "1s", 1000000000 }, { "10ms", 10000000 }, { "2.5ms", 2500000 },
		{ ".5us", 500 }, { "250us", 250000 }, { "7ns", 7 }, { "0.000000001s", 1 },
		{ "1.000001ms", 1000001 },
	};

	accepts(num_parse_seconds, ok, N(ok));
}

/* num_parse_time's bare unit: milliseconds for --min-interval, the units as
 * for every duration */
static void time_bare_unit(void)
{
	uint64_t v = 7;

	CHECK_INT_EQ(num_parse_time("40", 1000000, 0, UINT64_MAX, &v), 0);
	CHECK_U64_EQ(v, 40000000);
	CHECK_INT_EQ(num_parse_time("0.5", 1000000, 0, UINT64_MAX, &v), 0);
	CHECK_U64_EQ(v, 500000);
	CHECK_INT_EQ(num_parse_time("1.5s", 1000000, 0, UINT64_MAX, &v), 0);
	CHECK_U64_EQ(v, 1500000000);
	CHECK_INT_EQ(num_parse_time("250us", 1000000, 0, UINT64_MAX, &v), 0);
	CHECK_U64_EQ(v, 250000);
	CHECK_INT_EQ(num_parse_time("0.0000001", 1000000, 0, UINT64_MAX, &v), -EINVAL);
	CHECK_INT_EQ(num_parse_time("40", 0, 0, UINT64_MAX, &v), -EINVAL);
	CHECK_U64_EQ(v, 250000);
}

static void seconds_refuse_nonsense(void)
{
	static const char *const bad[] = { ".", "1.", "1.0000000001", "1:00", "0x10", "ms",
		"1.5ns", "1.0001us", "10 ms", "10m", "10MS", "10mss", "1s0", "-1ms", "1e3ms" };
	uint64_t v = 7;

	refused(num_parse_seconds, not_numbers, N(not_numbers), "0.5");
	refused(num_parse_seconds, bad, N(bad), NULL);
	CHECK_INT_EQ(num_parse_seconds("0", 1, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_seconds("0.0000000001", 1, UINT64_MAX, &v), -EINVAL);
	CHECK_INT_EQ(num_parse_seconds("18446744074", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_seconds("99999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_seconds("18446744073709551616ns", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_seconds("18446744073710ms", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_seconds("0ms", 1, UINT64_MAX, &v), -ERANGE);
	CHECK_U64_EQ(v, 7);
}

static void duration_units(void)
{
	static const struct accepted ok[] = {	/* nanoseconds */
		{ "10ms", 10000000 }, { "1ms", 1000000 }, { "1.5ms", 1500000 }, { "250us", 250000 },
		{ "7ns", 7 }, { "2s", 2000000000 }, { "0.000000001s", 1 }, { "0ms", 0 },
		{ ".5us", 500 },
	};

	accepts(num_parse_duration, ok, N(ok));
}

static void duration_refuses_nonsense(void)
{
	static const char *const bad[] = {
		"10", "ms", "10 ms", "10m", "10MS", "1.5ns", "1.ms", "10msx", "-1ms", "1e3ms", "10sec",
		"0x10ms",
	};
	uint64_t v = 7;

	refused(num_parse_duration, bad, N(bad), NULL);
	CHECK_INT_EQ(num_parse_duration("0ms", 1, UINT64_MAX, &v), -ERANGE);
	CHECK_INT_EQ(num_parse_duration("18446744074s", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_U64_EQ(v, 7);
}

/* Durations as people read them: the largest unit, no exponent, no
 * trailing zeros (the 1e+04 ms the recorder once printed). */
static void duration_text(void)
{
	static const struct { uint64_t ns; const char *text; } want[] = {
		{ 0, "0 ns" }, { 7, "7 ns" }, { 999, "999 ns" }, { 1000, "1 us" },
		{ 250000, "250 us" }, { 999999, "999.999 us" }, { 5000000, "5 ms" },
		{ 12500000, "12.5 ms" }, { 1500000000, "1.5 s" }, { 10000000000ull, "10 s" },
		{ 10000000000000ull, "10000 s" }, { 1000000001, "1 s" },
	};
	char buf[32];

	for (size_t i = 0; i < N(want); i++)
		CHECK_STR_EQ(num_duration_text(want[i].ns, buf, sizeof(buf)), want[i].text);
	CHECK_STR_EQ(num_duration_text(10000000000000ull, buf, 6), "10000");
}

int main(void)
{
	UNIT_RUN(u64_accepts_digits);
	UNIT_RUN(u64_refuses_range_and_overflow);
	UNIT_RUN(size_units);
	UNIT_RUN(size_refuses_nonsense);
	UNIT_RUN(seconds_fractions);
	UNIT_RUN(time_bare_unit);
	UNIT_RUN(seconds_refuse_nonsense);
	UNIT_RUN(duration_units);
	UNIT_RUN(duration_refuses_nonsense);
	UNIT_RUN(duration_text);
	return unit_exit();
}
