/* SPDX-License-Identifier: MIT */
/*
 * escape: the one way text that others control (thread and function names
 * from a trace, /proc or a binary; command lines; paths; what perf prints)
 * reaches a terminal, a text or CSV file, or JSON: never a control
 * character, never invalid UTF-8 (docs/design.md "Threat model").
 *
 * What is escaped: the control characters (C0 with NUL and newline, DEL,
 * C1 U+0080..U+009F: a terminal acts on them), Unicode's format characters
 * and the characters it says to show as nothing (General_Category Cf,
 * Default_Ignorable_Code_Point: the bidirectional controls that reorder
 * what is shown, zero-width and tag characters, variation selectors,
 * Hangul fillers...), the line and paragraph separators, the braille
 * blank, and every byte of an ill-formed UTF-8 sequence (utf8_char()).
 * Kept, for the scripts and emoji that need them: ZERO WIDTH NON-JOINER
 * and JOINER (U+200C, U+200D), and the emoji and text presentation
 * selectors (VS16 U+FE0F, VS15 U+FE0E) right after a character beyond
 * ASCII that is itself kept (an emoji base; ASCII's keycap bases # * 0-9
 * are not told from letters, so there they are escaped).
 *
 *   ESC_TEXT  each byte of those is shown as "\xHH" (lowercase hex, the
 *             form a C programmer reads); everything else is kept, a
 *             backslash too (text is for reading: "\x1b" in a name and an
 *             escaped ESC look alike, neither acts).
 *   ESC_JSON  the inside of a JSON string (RFC 8259, no quotes): '"' and
 *             '\\' escaped, the characters above as \uXXXX (a surrogate
 *             pair past U+FFFF; \n, \t, \r, \b, \f short), each byte of
 *             ill-formed UTF-8 as the text "\xHH" (JSON holds no bytes: a reader gets those four
 *             characters). A well-formed UTF-8 string reads back unchanged.
 *   ESC_CSV   ESC_TEXT with '"' doubled: the inside of a quoted CSV field
 *             (RFC 4180); esc_csv_field() writes a whole field.
 */
#ifndef SNAPTRACE_ESCAPE_H
#define SNAPTRACE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum esc_form { ESC_TEXT, ESC_JSON, ESC_CSV };

/*
 * Escapes the LEN bytes at S as FORM into BUF (SIZE > 0 bytes, always
 * NUL-terminated; an escape or character that does not fit is left out
 * whole, with what follows). A NUL byte within LEN counts as a control
 * character. Returns BUF.
 */
char *esc_mem(char *buf, size_t size, const char *s, size_t len, enum esc_form form);

/*
 * The one bounded excerpt of an input that a message shows (a line that is
 * not what was expected, a record.json value): the LEN bytes at S escaped
 * as ESC_TEXT, whole when that takes at most ESC_EXCERPT_CHARS characters;
 * else its first ESC_EXCERPT_HEAD characters, "...", and its last
 * ESC_EXCERPT_TAIL at most (what is wrong is often at a line's end: text
 * after the last column), never a byte twice, from a character's start.
 * BUF holds ESC_EXCERPT_SIZE bytes. Returns BUF.
 */
#define ESC_EXCERPT_HEAD 100
#define ESC_EXCERPT_TAIL 60
#define ESC_EXCERPT_CHARS (ESC_EXCERPT_HEAD + 3 + ESC_EXCERPT_TAIL)
#define ESC_EXCERPT_SIZE (ESC_EXCERPT_CHARS + 1)
char *esc_excerpt(char buf[ESC_EXCERPT_SIZE], const char *s, size_t len);

/* esc_mem() of the NUL-terminated S (NULL: ""). */
char *esc_str(char *buf, size_t size, const char *s, enum esc_form form);

/* Writes the NUL-terminated S (NULL: nothing) escaped as FORM to F, whole. */
void esc_fputs(FILE *f, const char *s, enum esc_form form);

/*
 * Writes S (NULL: "") as one CSV field (RFC 4180) to F, escaped as ESC_TEXT,
 * the one way every CSV the tools write holds a text: quoted when it holds
 * a ',', ';' (the separator of some locales' spreadsheets) or '"';
 * and one that starts with what makes a spreadsheet run a formula ('=',
 * '+', '-', '@', TAB, CR) is quoted with a "'" before it, as OWASP's "CSV
 * Injection" says: "-[Obj foo]" is written "'-[Obj foo]"; a spreadsheet
 * shows it as text, a CSV reader sees the "'". Numbers are not texts.
 */
void esc_csv_field(FILE *f, const char *s);

/* Writes S as a quoted JSON string to F. */
void esc_json_string(FILE *f, const char *s);

#endif
