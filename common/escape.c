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
 * what a terminal acts on (C0, DEL, C1), what reorders what it shows (the
 * bidirectional formatting characters), what starts a line without being one
 * to a reader (LINE and PARAGRAPH SEPARATOR) and what shows as nothing (soft
 * hyphen, Mongolian vowel separator, zero-width space, word joiner and the
 * invisible operators, byte order mark, interlinear annotation), so that a
 * name never hides or forges what is printed beside it.
 */
static const struct { uint32_t first, last; } escaped[] = {
	{ 0x0000, 0x001f }, { 0x007f, 0x009f }, { 0x00ad, 0x00ad }, { 0x061c, 0x061c },
	{ 0x180e, 0x180e }, { 0x200b, 0x200b }, { 0x200e, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0x2066, 0x2069 }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb },
};

static bool is_escaped(uint32_t cp)
{
	for (size_t i = 0; i < sizeof(escaped) / sizeof(escaped[0]); i++)
		if (cp >= escaped[i].first && cp <= escaped[i].last)
			return true;
	return false;
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
 * (PIECE_MAX bytes); its input length in *USED. Returns the output length.
 */
static size_t piece(char *out, const uint8_t *s, size_t n, enum esc_form form, size_t *used)
{
	bool json = form == ESC_JSON;
	size_t len = s[0] ? utf8_char(s, n) : 1;   /* NUL: a control character */
	uint32_t cp;

	if (!len) {   /* an ill-formed byte: escaped alone, the next byte starts afresh */
		*used = 1;
		return hex_bytes(out, s, 1, json);
	}
	*used = len;
	cp = code_point(s, len);
	if (json && (cp == '"' || cp == '\\')) {
		out[0] = '\\';
		out[1] = (char)cp;
		return 2;
	}
	if (form == ESC_CSV && cp == '"') {
		memcpy(out, "\"\"", 2);
		return 2;
	}
	if (!is_escaped(cp)) {
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
	return (size_t)snprintf(out, PIECE_MAX, "\\u%04x", (unsigned)cp);
}

char *esc_mem(char *buf, size_t size, const char *s, size_t len, enum esc_form form)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t at = 0;

	for (size_t i = 0, used; i < len; i += used) {
		char out[PIECE_MAX];
		size_t k = piece(out, u + i, len - i, form, &used);

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

	for (size_t i = 0, used; i < n; i += used) {
		char out[PIECE_MAX];

		fwrite(out, 1, piece(out, u + i, n - i, form, &used), f);
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
