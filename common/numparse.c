/* SPDX-License-Identifier: MIT */
#include "numparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * Reads the digits at *S into *V (at least one unless EMPTY_OK), advancing
 * *S past them. Returns 0, or -ERANGE when the value overflows 64 bits (the
 * digits are still consumed), or -EINVAL when there are none.
 */
static int digits(const char **s, int empty_ok, uint64_t *v)
{
	const char *p = *s;
	int err = 0;

	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*v > (UINT64_MAX - d) / 10)
			err = -ERANGE;
		else
			*v = *v * 10 + d;
	}
	if (p == *s && !empty_ok)
		return -EINVAL;
	*s = p;
	return err;
}

/* The result of a parse: ERR if any, else the range check of V. */
static int finish(int err, uint64_t v, uint64_t min, uint64_t max, uint64_t *out)
{
	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int err = digits(&s, 0, &v);

	if (err != -EINVAL && *s)
		err = -EINVAL;
	return finish(err, v, min, max, out);
}

int num_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct { char unit; unsigned shift; } units[] = {
		{ 'k', 10 }, { 'm', 20 }, { 'g', 30 }, { 't', 40 },
	};
	unsigned shift = 0;
	uint64_t v;
	int err = digits(&s, 0, &v);

	if (err == -EINVAL)
		return err;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((*s | 0x20) == units[i].unit) {
			shift = units[i].shift;
			s++;
			if ((*s | 0x20) == 'i')
				s++;
			break;
		}
	if ((*s | 0x20) == 'b' && (shift || s[-1] != 'i'))
		s++;
	if (*s)
		return -EINVAL;
	if (!err && v > (UINT64_MAX >> shift))
		err = -ERANGE;
	return finish(err, v << (err ? 0 : shift), min, max, out);
}

int num_parse_time(const char *s, uint64_t bare_ns, uint64_t min, uint64_t max, uint64_t *out)
{
	const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "", bare_ns },
	};
	const char *start = s;
	uint64_t whole, frac = 0, unit = 0;
	int err = digits(&s, 1, &whole), nfrac = 0;

	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9' && nfrac < 9; s++, nfrac++)
			frac = frac * 10 + (uint64_t)(*s - '0');
		if (nfrac == 0)
			return -EINVAL;
	}
	if (s == start || (*s >= '0' && *s <= '9'))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !unit; i++)
		if (!strcmp(s, units[i].unit))
			unit = units[i].ns;
	if (!unit)
		return -EINVAL;
	for (; nfrac < 9; nfrac++)
		frac *= 10;
	/* FRAC is in billionths of UNIT: a fraction finer than a nanosecond is refused */
	if (frac * unit % 1000000000u)
		return -EINVAL;
	frac = frac * unit / 1000000000u;
	if (!err && whole > (UINT64_MAX - frac) / unit)
		err = -ERANGE;
	return finish(err, err ? 0 : whole * unit + frac, min, max, out);
}

int num_parse_seconds(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return num_parse_time(s, 1000000000, min, max, out);
}

int num_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return num_parse_time(s, 0, min, max, out);
}

const char *num_duration_text(uint64_t ns, char *buf, size_t size)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
	};
	char frac[8];
	size_t k = 0, n;

	while (k + 1 < sizeof(units) / sizeof(units[0]) && ns < units[k].ns)
		k++;
	/* three decimals of the unit, their trailing zeros dropped */
	n = (size_t)snprintf(frac, sizeof(frac), ".%03" PRIu64,
			     (ns % units[k].ns) * 1000 / units[k].ns);
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	snprintf(buf, size, "%" PRIu64 "%s %s", ns / units[k].ns, n > 1 ? frac : "",
		 units[k].unit);
	return buf;
}
