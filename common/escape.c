// SPDX-License-Identifier: MIT
/* escape (see escape.h): one pass, one piece at a time. */
#include "escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "utf8.h"

/* Longest output of one piece: a 4-byte character (kept), or 4 escaped bytes of 4 chars. */
#define PIECE_MAX 24

/* The code point of the well-formed UTF-8 character S of LEN bytes. */
static uint32_t code_point(const uint8_t *s, size_t len)
{
	static const uint8_t lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[len];

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/*
 * The characters shown escaped though well-formed, as ranges of code points:
 * what a terminal acts on (General_Category Cc: C0, DEL, C1), what
 * reorders or hides what is shown (Cf, and Default_Ignorable_Code_Point:
 * bidirectional controls, zero-width and tag characters, variation
 * selectors, Hangul fillers, unassigned ranges kept for more), what starts
 * a line without being one to a reader (Zl, Zp), so that a name never
 * hides or forges what is printed beside it. Generated once from Unicode
 * 14.0.0 (perl 5.36's \p{Default_Ignorable_Code_Point}, \p{Cf}, \p{Cc},
 * \p{Zl}, \p{Zp}: its DerivedCoreProperties.txt and UnicodeData.txt),
 * less ZWNJ and ZWJ (U+200C, U+200D: scripts and emoji need them), plus
 * U+13439..U+1343F (Cf since Unicode 15.0) and U+2800 BRAILLE PATTERN
 * BLANK (So, but shows as nothing). VS15 and VS16 are in, and kept after
 * an emoji base (piece()). Checked against the Unicode data, not this
 * table, by tests/unit/test_escape.c.
 */
static const struct { uint32_t first, last; } escaped[] = {
	{ 0x0000, 0x001f }, { 0x007f, 0x009f }, { 0x00ad, 0x00ad }, { 0x034f, 0x034f },
	{ 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
	{ 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x115f, 0x1160 }, { 0x17b4, 0x17b5 },
	{ 0x180b, 0x180f }, { 0x200b, 0x200b }, { 0x200e, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x206f }, { 0x2800, 0x2800 }, { 0x3164, 0x3164 }, { 0xfe00, 0xfe0f },
	{ 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff0, 0xfffb }, { 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
	{ 0xe0000, 0xe0fff },
};

/* Whether CP is in escaped[]: ASCII by its two ranges, the rest by a
 * binary search of the sorted ranges (every character of every name an
 * excerpt or a trace shows comes here: the walk of all 29 was a tenth of
 * a fuzzed conversion's CPU). */
static bool is_escaped(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(escaped) / sizeof(escaped[0]);

	if (cp < 0x80)
		return cp < 0x20 || cp == 0x7f;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < escaped[mid].first)
			hi = mid;
		else if (cp > escaped[mid].last)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Whether CP is VS15 or VS16, the text and emoji presentation selectors. */
static bool is_presentation(uint32_t cp)
{
	return cp == 0xfe0e || cp == 0xfe0f;
}

/* "\xHH" for each of the N bytes at S into OUT; returns the length. */
static size_t hex_bytes(char *out, const uint8_t *s, size_t n, bool json)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		out[k++] = '\\';
		if (json)
			out[k++] = '\\';   /* the text "\x..": JSON has no raw bytes */
		out[k++] = 'x';
		out[k++] = hex[s[i] >> 4];
		out[k++] = hex[s[i] & 15];
	}
	return k;
}

/*
 * The output of the piece starting S (N > 0 bytes left) as FORM into OUT
 * (PIECE_MAX bytes); its input length in *USED. *BASE: whether the piece
 * before was an emoji base (false at the start), set for the next one.
 * Returns the output length.
 */
static size_t piece(char *out, const uint8_t *s, size_t n, enum esc_form form, size_t *used,
		    bool *base)
{
	bool json = form == ESC_JSON, after_base = *base;
	size_t len = s[0] ? utf8_char(s, n) : 1;   /* NUL: a control character */
	uint32_t cp;

	*base = false;
	if (!len) {   /* an ill-formed byte: escaped alone, the next byte starts afresh */
		*used = 1;
		return hex_bytes(out, s, 1, json);
	}
	*used = len;
	cp = code_point(s, len);
	/* an emoji base: a kept character beyond ASCII, no joiner */
	*base = cp >= 0x80 && !is_escaped(cp) && cp != 0x200c && cp != 0x200d;
	if (json && (cp == '"' || cp == '\\')) {
		out[0] = '\\';
		out[1] = (char)cp;
		return 2;
	}
	if (form == ESC_CSV && cp == '"') {
		memcpy(out, "\"\"", 2);
		return 2;
	}
	if (!is_escaped(cp) || (after_base && is_presentation(cp))) {
		memcpy(out, s, len);
		return len;
	}
	if (!json)
		return hex_bytes(out, s, len, false);
	switch (cp) {
	case '\n': memcpy(out, "\\n", 2); return 2;
	case '\t': memcpy(out, "\\t", 2); return 2;
	case '\r': memcpy(out, "\\r", 2); return 2;
	case '\b': memcpy(out, "\\b", 2); return 2;
	case '\f': memcpy(out, "\\f", 2); return 2;
	}
	if (cp > 0xffff)   /* UTF-16's surrogate pair: JSON's \\u holds 16 bits */
		return (size_t)snprintf(out, PIECE_MAX, "\\u%04x\\u%04x",
					(unsigned)(0xd800 + ((cp - 0x10000) >> 10)),
					(unsigned)(0xdc00 + (cp & 0x3ff)));
	return (size_t)snprintf(out, PIECE_MAX, "\\u%04x", (unsigned)cp);
}

char *esc_mem(char *buf, size_t size, const char *s, size_t len, enum esc_form form)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t at = 0;
	bool base = false;

	for (size_t i = 0, used; i < len; i += used) {
		char out[PIECE_MAX];
		size_t k = piece(out, u + i, len - i, form, &used, &base);

		if (at + k >= size)
			break;
		memcpy(buf + at, out, k);
		at += k;
	}
	buf[at] = 0;
	return buf;
}

char *esc_excerpt(char buf[ESC_EXCERPT_SIZE], const char *s, size_t len)
{
	char part[4 * ESC_EXCERPT_CHARS + 1];   /* the escapes of that many bytes */
	size_t k = len > ESC_EXCERPT_HEAD ? len - ESC_EXCERPT_HEAD : 0;   /* none of the head */

	if (len <= ESC_EXCERPT_CHARS &&
	    strlen(esc_mem(part, sizeof(part), s, len, ESC_TEXT)) <= ESC_EXCERPT_CHARS)
		return strcpy(buf, part);
	esc_mem(buf, ESC_EXCERPT_HEAD + 1, s, len, ESC_TEXT);
	strcat(buf, "...");
	/* the longest end whose escapes fit, from a character's first byte */
	for (k = k < ESC_EXCERPT_TAIL ? k : ESC_EXCERPT_TAIL; k > 0; k--)
		if (((uint8_t)s[len - k] & 0xc0) != 0x80 &&
		    strlen(esc_mem(part, sizeof(part), s + len - k, k, ESC_TEXT)) <= ESC_EXCERPT_TAIL)
			return strcat(buf, part);
	return buf;
}

char *esc_str(char *buf, size_t size, const char *s, enum esc_form form)
{
	return esc_mem(buf, size, s ? s : "", s ? strlen(s) : 0, form);
}

void esc_fputs(FILE *f, const char *s, enum esc_form form)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t n = s ? strlen(s) : 0;
	bool base = false;

	for (size_t i = 0, used; i < n; i += used) {
		char out[PIECE_MAX];

		fwrite(out, 1, piece(out, u + i, n - i, form, &used, &base), f);
	}
}

/* What makes a spreadsheet read a CSV cell as a formula when it starts it
 * (OWASP, "CSV Injection"). */
static const char csv_formula[] = "=+-@\t\r";

void esc_csv_field(FILE *f, const char *s)
{
	bool formula = s && *s && strchr(csv_formula, *s);

	if (!formula && (!s || !strpbrk(s, ",;\""))) {
		esc_fputs(f, s, ESC_TEXT);
		return;
	}
	fputs(formula ? "\"'" : "\"", f);
	esc_fputs(f, s, ESC_CSV);
	fputc('"', f);
}

void esc_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	esc_fputs(f, s, ESC_JSON);
	fputc('"', f);
}
