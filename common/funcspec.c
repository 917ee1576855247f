/* SPDX-License-Identifier: MIT */
#include "funcspec.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *funcspec_single_colon(const char *s)
{
	for (const char *p = s; (p = strchr(p, ':')); p++) {
		if (p[1] == ':') {
			p++;
			continue;
		}
		return p;
	}
	return NULL;
}

const char *funcspec_lib_colon(const char *s)
{
	const char *last = NULL;

	for (const char *p = s; (p = strchr(p, ':')); p++)
		if (p > s && (!strncmp(p + 1, "addr:", 5) || !strncmp(p + 1, "[unnamed @ ", 11)))
			last = p;
	return last ? last : funcspec_single_colon(s);
}

int funcspec_parse_line(const char *s, char *file, size_t size, unsigned *line, unsigned *col)
{
	const char *p = strrchr(s, ':'), *q;
	unsigned long a, b = 0;
	char *end;

	if (!p || !p[1])
		return -EINVAL;
	a = strtoul(p + 1, &end, 10);
	if (*end || a == 0 || a > 100000000)
		return -EINVAL;
	for (q = p; q > s && q[-1] != ':'; q--)
		;
	if (q > s + 1) {   /* maybe FILE:LINE:COL */
		char *end2;
		unsigned long l = strtoul(q, &end2, 10);

		if (end2 == p && l > 0 && l <= 100000000) {
			b = a;
			a = l;
			p = q - 1;
		}
	}
	if (p == s || (size_t)(p - s) >= size || strchr(s, ':') != p)
		return -EINVAL;
	memcpy(file, s, (size_t)(p - s));
	file[p - s] = '\0';
	*line = (unsigned)a;
	*col = (unsigned)b;
	return 0;
}

bool funcspec_lib_matches(const char *name, const char *lib)
{
	char want[256];
	size_t n;

	if (!strcmp(name, lib))
		return true;
	if (strncmp(lib, "lib", 3))
		snprintf(want, sizeof(want), "lib%s", lib);
	else
		snprintf(want, sizeof(want), "%s", lib);
	n = strlen(want);
	if (strncmp(name, want, n))
		return false;
	/* after the prefix: ".so", "-2.36.so", or the rest of a given ".so.N" */
	return !strncmp(name + n, ".so", 3) || (name[n] == '-' && strstr(name + n, ".so"));
}

bool funcspec_dso_matches(const char *dso, const char *lib)
{
	const char *base = strrchr(dso, '/');

	if (strchr(lib, '/'))
		return !strcmp(dso, lib);
	return funcspec_lib_matches(base ? base + 1 : dso, lib);
}

bool funcspec_pattern_is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

bool funcspec_pattern_matches(const char *pattern, const char *name)
{
	if (funcspec_pattern_is_glob(pattern))
		return !fnmatch(pattern, name, FNM_CASEFOLD);
	return strcasestr(name, pattern) != NULL;
}

int funcspec_parse_addr(const char *hex, uint64_t *addr)
{
	char *end;

	errno = 0;
	*addr = strtoull(hex, &end, 16);
	if (errno || *end || end == hex || strspn(hex, "0123456789abcdefABCDEFxX") != strlen(hex))
		return -EINVAL;
	return 0;
}

const char *funcspec_unnamed(uint64_t start, char *buf, size_t size)
{
	snprintf(buf, size, "[unnamed @ 0x%" PRIx64 "]", start);
	return buf;
}

bool funcspec_is_unnamed(const char *s, size_t len)
{
	static const char pre[] = "[unnamed @ 0x";
	size_t n = sizeof(pre) - 1, hex;
	char buf[FUNCSPEC_UNNAMED_MAX];
	uint64_t start;

	if (len <= n + 1 || len >= sizeof(buf) || memcmp(s, pre, n) || s[len - 1] != ']')
		return false;
	hex = len - n - 1;
	memcpy(buf, s + n, hex);
	buf[hex] = 0;
	/* the spelling funcspec_unnamed() writes, and no other */
	if (funcspec_parse_addr(buf, &start))
		return false;
	funcspec_unnamed(start, buf, sizeof(buf));
	return strlen(buf) == len && !memcmp(buf, s, len);
}

int funcspec_parse_fn_addr(const char *s, uint64_t *addr)
{
	static const char pre[] = "addr:", unnamed[] = "[unnamed @ ";
	size_t len = strlen(s), n = sizeof(unnamed) - 1;
	char hex[FUNCSPEC_UNNAMED_MAX];

	if (!strncmp(s, pre, sizeof(pre) - 1))
		return funcspec_parse_addr(s + sizeof(pre) - 1, addr) ? -EINVAL : 0;
	if (!funcspec_is_unnamed(s, len))
		return -ENOENT;
	/* the "0xHEX" between "[unnamed @ " and "]", checked whole above */
	memcpy(hex, s + n, len - n - 1);
	hex[len - n - 1] = '\0';
	return funcspec_parse_addr(hex, addr) ? -EINVAL : 0;
}
