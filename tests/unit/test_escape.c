/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/escape: what a terminal would act on never comes
 * out raw, well-formed text comes out unchanged, JSON stays JSON (read back
 * with json-c, whose reading shares nothing with the writer).
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "unit.h"
#include "utf8.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct want {
	const char *in;
	const char *text;   /* ESC_TEXT */
	const char *json;   /* ESC_JSON, inside the quotes */
};

static const struct want table[] = {
	{ "plain main()", "plain main()", "plain main()" },
	{ "C++ ns::f<int>", "C++ ns::f<int>", "C++ ns::f<int>" },
	{ "\x1b[31mred", "\\x1b[31mred", "\\u001b[31mred" },           /* CSI */
	{ "a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd", "a\\nb\\tc\\rd" },
	{ "del\x7f", "del\\x7f", "del\\u007f" },
	{ "c1 \xc2\x9b", "c1 \\xc2\\x9b", "c1 \\u009b" },                /* C1 CSI in UTF-8 */
	{ "raw \x9b", "raw \\x9b", "raw \\\\x9b" },                     /* a stray byte */
	{ "bad \xff\xfe", "bad \\xff\\xfe", "bad \\\\xff\\\\xfe" },
	{ "overlong \xc0\xaf", "overlong \\xc0\\xaf", "overlong \\\\xc0\\\\xaf" },
	{ "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80", "surrogate \\\\xed\\\\xa0\\\\x80" },
	{ "cut \xe2\x82", "cut \\xe2\\x82", "cut \\\\xe2\\\\x82" },
	{ "bidi \xe2\x80\xae", "bidi \\xe2\\x80\\xae", "bidi \\u202e" },  /* RIGHT-TO-LEFT OVERRIDE */
	{ "ls\xe2\x80\xa8x", "ls\\xe2\\x80\\xa8x", "ls\\u2028x" },        /* LINE SEPARATOR */
	{ "zw\xe2\x80\x8bsp", "zw\\xe2\\x80\\x8bsp", "zw\\u200bsp" },     /* ZERO WIDTH SPACE */
	{ "\xef\xbb\xbf" "bom", "\\xef\\xbb\\xbf" "bom", "\\ufeffbom" },         /* BYTE ORDER MARK */
	{ "wj\xe2\x81\xa0", "wj\\xe2\\x81\\xa0", "wj\\u2060" },            /* WORD JOINER */
	{ "soft\xc2\xadhy", "soft\\xc2\\xadhy", "soft\\u00adhy" },          /* SOFT HYPHEN */
	{ "zwj \xe2\x80\x8d kept", "zwj \xe2\x80\x8d kept", "zwj \xe2\x80\x8d kept" },  /* joins scripts' letters */
	{ "µs é 中 \xf0\x9f\x98\x80", "µs é 中 \xf0\x9f\x98\x80", "µs é 中 \xf0\x9f\x98\x80" },
	{ "quote \" back \\", "quote \" back \\", "quote \\\" back \\\\" },
	/* U+E0001 LANGUAGE TAG: past U+FFFF, JSON's surrogate pair */
	{ "sshd\xf3\xa0\x80\x81", "sshd\\xf3\\xa0\\x80\\x81", "sshd\\udb40\\udc01" },
	{ "braille\xe2\xa0\x80", "braille\\xe2\\xa0\\x80", "braille\\u2800" },  /* shows nothing */
	{ "eg\xf0\x93\x90\xbf", "eg\\xf0\\x93\\x90\\xbf", "eg\\ud80d\\udc3f" },  /* U+1343F: Cf in 15.0 */
	/* VS16: kept after an emoji base, escaped after ASCII */
	{ "\xe2\x9d\xa4\xef\xb8\x8f", "\xe2\x9d\xa4\xef\xb8\x8f", "\xe2\x9d\xa4\xef\xb8\x8f" },
	{ "sshd\xef\xb8\x8f", "sshd\\xef\\xb8\\x8f", "sshd\\ufe0f" },
	{ "\xe2\x9d\xa4\xef\xb8\x8f\xef\xb8\x8f", "\xe2\x9d\xa4\xef\xb8\x8f\\xef\\xb8\\x8f",
	  "\xe2\x9d\xa4\xef\xb8\x8f\\ufe0f" },
};

static void text_and_json(void)
{
	char buf[256];

	for (size_t i = 0; i < N(table); i++) {
		esc_str(buf, sizeof(buf), table[i].in, ESC_TEXT);
		if (strcmp(buf, table[i].text))
			UNIT_FAIL("text of case %zu: \"%s\", expected \"%s\"", i, buf, table[i].text);
		esc_str(buf, sizeof(buf), table[i].in, ESC_JSON);
		if (strcmp(buf, table[i].json))
			UNIT_FAIL("json of case %zu: \"%s\", expected \"%s\"", i, buf, table[i].json);
	}
}

/* Every output is well-formed UTF-8 holding no control character (C0, DEL, C1). */
static void never_active(void)
{
	char in[512], buf[4 * sizeof(in) + 1];

	srand(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand() % 64);

		for (size_t i = 0; i < n; i++)
			in[i] = (char)(rand() % 255 + 1);
		for (int form = ESC_TEXT; form <= ESC_CSV; form++) {
			const uint8_t *u = (const uint8_t *)esc_mem(buf, sizeof(buf), in, n,
								    (enum esc_form)form);
			size_t len = strlen(buf), k;

			for (size_t i = 0; i < len; i += k) {
				k = utf8_char(u + i, len - i);
				if (!k || u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xc2 && u[i + 1] <= 0x9f)) {
					UNIT_FAIL("round %d form %d: byte 0x%02x at %zu", round, form,
						  u[i], i);
					return;
				}
			}
		}
	}
}

/* ESC_JSON of anything is a JSON string; of well-formed UTF-8 it reads back unchanged. */
static void json_reads_back(void)
{
	static const char *const samples[] = {
		"x\x1b]0;title\x07y", "a\"b\\c\n", "µ \xe2\x80\xae z", "\xff\xfe", "\x01\x02\x1f",
		"tag \xf3\xa0\x80\x81 x",
	};
	char buf[256], doc[300];

	for (size_t i = 0; i < N(samples); i++) {
		struct json_object *o;

		snprintf(doc, sizeof(doc), "\"%s\"", esc_str(buf, sizeof(buf), samples[i], ESC_JSON));
		o = json_tokener_parse(doc);
		if (!o || !json_object_is_type(o, json_type_string)) {
			UNIT_FAIL("sample %zu: not a JSON string: %s", i, doc);
			json_object_put(o);
			continue;
		}
		if (i != 3 && strcmp(json_object_get_string(o), samples[i]))
			UNIT_FAIL("sample %zu does not read back: %s", i, doc);
		if (i == 3)
			CHECK_STR_EQ(json_object_get_string(o), "\\xff\\xfe");
		json_object_put(o);
	}
}

/* "a" then code point CP in UTF-8 (RFC 3629) into OUT (8 bytes); returns the length. */
static int utf8_of(char *out, unsigned cp)
{
	int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	out[0] = 'a';
	for (int i = n; i > 1; i--, cp >>= 6)
		out[i] = (char)(0x80 | (cp & 0x3f));
	out[1] = (char)(cp | (n == 1 ? 0 : (0xf00 >> n) & 0xff));
	out[n + 1] = 0;
	return n + 1;
}

/*
 * Every code point Unicode says shows as nothing or formats (the reference:
 * perl's Unicode data, \p{Default_Ignorable_Code_Point} and \p{Cf}, never
 * escape.c's table) comes out escaped after an ASCII letter, but the keeps
 * escape.h documents: ZWNJ and ZWJ, kept.
 */
static void unicode_property(void)
{
	static const char perl[] =
		"perl -e 'for (0 .. 0x10ffff) { next if $_ >= 0xd800 && $_ <= 0xdfff;"
		" printf \"%x\\n\", $_ if chr($_) =~ /[\\p{Default_Ignorable_Code_Point}\\p{Cf}]/ }'";
	FILE *p = popen(perl, "r");
	unsigned cp, n = 0;
	char in[8], want[32], buf[64];

	if (!p) {
		UNIT_FAIL("popen: cannot run perl");
		return;
	}
	while (fscanf(p, "%x", &cp) == 1) {
		int len = utf8_of(in, cp), k = 1;

		n++;
		want[0] = 'a';
		for (int i = 1; i < len; i++)
			k += snprintf(want + k, sizeof(want) - (size_t)k, "\\x%02x", (uint8_t)in[i]);
		if (cp == 0x200c || cp == 0x200d)
			strcpy(want, in);
		if (strcmp(esc_str(buf, sizeof(buf), in, ESC_TEXT), want))
			UNIT_FAIL("U+%04X: \"%s\", expected \"%s\"", cp, buf, want);
	}
	if (pclose(p) || n < 4000)   /* 4,174 in Unicode 14.0 */
		UNIT_FAIL("perl's Unicode data gave %u code points", n);
}

/* A buffer too small cuts before a whole escape or character, never inside. */
static void cut_whole(void)
{
	char buf[8];

	CHECK_STR_EQ(esc_str(buf, sizeof(buf), "ab\x1b" "cd", ESC_TEXT), "ab\\x1bc");
	CHECK_STR_EQ(esc_str(buf, 6, "ab\x1b" "cd", ESC_TEXT), "ab");
	CHECK_STR_EQ(esc_str(buf, 5, "abc中", ESC_TEXT), "abc");
	CHECK_STR_EQ(esc_str(buf, sizeof(buf), NULL, ESC_TEXT), "");
	CHECK_STR_EQ(esc_mem(buf, sizeof(buf), "a\0b", 3, ESC_TEXT), "a\\x00b");
}

/* An excerpt: whole up to 163 characters, else 100, "..." and the end's last
 * 60 at most, whole escapes and characters, no byte twice (the one bounded
 * excerpt every message shows of an input). */
static void excerpt(void)
{
	char buf[ESC_EXCERPT_SIZE], in[400], want[ESC_EXCERPT_SIZE];

	memset(in, 'a', sizeof(in));
	CHECK_STR_EQ(esc_excerpt(buf, "ab\x01", 3), "ab\\x01");
	CHECK(strlen(esc_excerpt(buf, in, 163)) == 163 && !strstr(buf, "..."));
	memset(want, 'a', sizeof(want));
	memcpy(want + 100, "...", 3);
	want[163] = '\0';
	in[399] = 'Z';
	want[162] = 'Z';
	CHECK_STR_EQ(esc_excerpt(buf, in, 400), want);
	memset(in, 0, sizeof(in));
	CHECK(strlen(esc_excerpt(buf, in, 40)) == 160);	/* 40 of 4 characters each */
	CHECK_STR_EQ(esc_excerpt(buf, in, 41) + 100, "...");	/* no byte of the head again */
	CHECK(strlen(esc_excerpt(buf, in, 400)) == 163);
	/* the end starts at a character: 3-byte characters, 20 of them fit */
	for (int i = 0; i < 399; i += 3)
		memcpy(in + i, "\xe4\xb8\xad", 3);
	esc_excerpt(buf, in, 399);
	CHECK(!strncmp(strstr(buf, "...") + 3, "\xe4\xb8\xad", 3));
	CHECK_STR_EQ(esc_excerpt(buf, NULL, 0), "");
}

/* A CSV field: never a cell a spreadsheet runs as a formula (OWASP's
 * "CSV Injection": '=', '+', '-', '@', TAB, CR first), never a separator
 * or quote loose, control characters escaped as in text. */
static void csv_fields(void)
{
	static const struct { const char *in, *csv; } cases[] = {
		{ "main", "main" },
		{ "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"" },
		{ "+1+1", "\"'+1+1\"" },
		{ "-2+3", "\"'-2+3\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\t=1", "\"'\\x09=1\"" },
		{ "\r=1", "\"'\\x0d=1\"" },
		{ "a,=1", "\"a,=1\"" },
		{ "a;=1", "\"a;=1\"" },
		{ "say \"=1\"", "\"say \"\"=1\"\"\"" },
		{ "=\"x\"", "\"'=\"\"x\"\"\"" },
		{ "f\x1b[2J=", "f\\x1b[2J=" },
		{ "", "" },
		{ NULL, "" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!f) {
			UNIT_FAIL("open_memstream");
			return;
		}
		esc_csv_field(f, cases[i].in);
		fclose(f);
		if (strcmp(out, cases[i].csv))
			UNIT_FAIL("csv of case %zu: [%s], expected [%s]", i, out, cases[i].csv);
		free(out);
	}
}

int main(void)
{
	UNIT_RUN(text_and_json);
	UNIT_RUN(never_active);
	UNIT_RUN(json_reads_back);
	UNIT_RUN(cut_whole);
	UNIT_RUN(excerpt);
	UNIT_RUN(csv_fields);
	UNIT_RUN(unicode_property);
	return unit_exit();
}
