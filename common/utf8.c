// SPDX-License-Identifier: MIT
/* utf8: well-formed UTF-8 (Unicode 15, table 3-7) without NUL. */
#include "utf8.h"

size_t utf8_char(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0x01 && c <= 0x7f)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;	/* NUL, a continuation byte, 0xc0/0xc1 (overlong), 0xf5.. */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t utf8_check(const char *s, size_t n)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t i = 0, k;

	while (i < n && (k = utf8_char(u + i, n - i)))
		i += k;
	return i;
}
