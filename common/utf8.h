/* SPDX-License-Identifier: MIT */
/*
 * utf8: well-formed UTF-8 without NUL: what FXT allows in a string (the
 * spec: "UTF-8 ... must not contain embedded NUL characters"), shared by the
 * FXT writer, which replaces what is not allowed, the reader, which reports
 * it, and escape.h, which shows it escaped.
 */
#ifndef SNAPTRACE_UTF8_H
#define SNAPTRACE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER, which replaces what a string may not hold. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * Returns the length (1 to 4 bytes) of the well-formed UTF-8 character that
 * starts S (N bytes available), or 0 when S starts with a NUL byte or an
 * ill-formed sequence (a stray continuation byte, an overlong form, a
 * surrogate, a code point past U+10FFFF, a sequence cut short).
 */
size_t utf8_char(const uint8_t *s, size_t n);

/* Returns the offset of the first byte of S[0..N) that starts no allowed
 * character (see utf8_char), or N when the whole string is allowed. */
size_t utf8_check(const char *s, size_t n);

#endif
