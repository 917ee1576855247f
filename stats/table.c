// SPDX-License-Identifier: MIT
/* table: text, CSV and JSON renderings of a table of cells (see table.h). */
#include "table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"

enum { TEXT_MAX = 80 };   /* longest text cell in the text table (C++ names) */
enum { CELL_BYTES = 4 * TEXT_MAX + 64 };   /* a text cell's bytes escaped (escape.h), past its cut */

struct cell *table_row(struct table *t)
{
	size_t rows_cap = t->cap / (t->ncols ? t->ncols : 1);
	struct cell *c = array_grow(t->cells, &rows_cap, t->nrows, t->ncols * sizeof(*c));

	if (!c)
		return NULL;
	t->cells = c;
	t->cap = rows_cap * t->ncols;
	c += t->nrows++ * t->ncols;
	memset(c, 0, t->ncols * sizeof(*c));
	return c;
}

const char *human_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct { double div; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "µs" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = (double)ns / units[i].div;

		if (v >= 1.0) {
			snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v,
				 units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/* The text of cell C of column COL for the text table, in BUF (text escaped). */
static const char *text_cell(const struct col *col, const struct cell *c, char *buf, size_t len)
{
	if (c->missing)
		return "-";
	switch (col->kind) {
	case COL_TEXT:
		return esc_str(buf, len, c->s, ESC_TEXT);
	case COL_COUNT:
		snprintf(buf, len, "%" PRIu64, c->u);
		return buf;
	case COL_NS:
		return human_ns(c->u, buf, len);
	case COL_RATIO:
		snprintf(buf, len, "%.2fx", c->r);
		return buf;
	}
	return "";
}

/* Display width of UTF-8 S (characters, not bytes). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void print_padded(FILE *out, const char *s, size_t w, bool left, bool last)
{
	size_t sw = width(s), pad = sw < w ? w - sw : 0;

	if (sw > TEXT_MAX) {   /* cut after TEXT_MAX - 3 characters, not inside one */
		size_t at = 0;

		for (size_t chars = 0; s[at] && chars <= TEXT_MAX - 3; at++)
			chars += ((unsigned char)s[at] & 0xc0) != 0x80;
		fprintf(out, "%.*s...", (int)at - 1, s);
		return;
	}
	if (!left)
		fprintf(out, "%*s", (int)pad, "");
	fputs(s, out);
	if (left && !last)
		fprintf(out, "%*s", (int)pad, "");
}

static void print_text(const struct table *t, FILE *out)
{
	size_t order[64], n = 0, w[64];
	char buf[CELL_BYTES];

	/* numbers first, then text (names are long) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < t->ncols && n < 64; j++)
			if ((t->cols[j].kind == COL_TEXT) == (pass == 1))
				order[n++] = j;
	for (size_t k = 0; k < n; k++) {
		const struct col *col = &t->cols[order[k]];

		w[k] = width(col->title);
		for (size_t i = 0; i < t->nrows; i++) {
			size_t cw = width(text_cell(col, &t->cells[i * t->ncols + order[k]], buf,
						    sizeof(buf)));

			if (cw > w[k])
				w[k] = cw > TEXT_MAX ? TEXT_MAX : cw;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct col *col = &t->cols[order[k]];

		if (k)
			fputs("  ", out);
		print_padded(out, col->title, w[k], col->kind == COL_TEXT, k + 1 == n);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t k = 0; k < n; k++) {
			const struct col *col = &t->cols[order[k]];

			if (k)
				fputs("  ", out);
			print_padded(out, text_cell(col, &t->cells[i * t->ncols + order[k]], buf,
						    sizeof(buf)), w[k], col->kind == COL_TEXT,
				     k + 1 == n);
		}
		fputc('\n', out);
	}
}

/* A number or string cell as CSV or JSON (which differ only in text and missing). */
static void value(FILE *out, const struct col *col, const struct cell *c, bool json)
{
	if (c->missing) {
		if (json)
			fputs("null", out);
		return;
	}
	switch (col->kind) {
	case COL_TEXT:
		if (json)
			esc_json_string(out, c->s);
		else
			esc_csv_field(out, c->s);
		return;
	case COL_COUNT:
	case COL_NS:
		fprintf(out, "%" PRIu64, c->u);
		return;
	case COL_RATIO:
		fprintf(out, "%.3f", c->r);
		return;
	}
}

void table_print(const struct table *t, enum table_format format, FILE *out)
{
	bool json = format == TABLE_JSON;

	if (format == TABLE_TEXT) {
		print_text(t, out);
		return;
	}
	if (json)
		fputc('[', out);
	else
		for (size_t j = 0; j < t->ncols; j++)
			fprintf(out, "%s%s", j ? "," : "", t->cols[j].key);
	for (size_t i = 0; i < t->nrows; i++) {
		fputs(json ? (i ? ",\n  {" : "\n  {") : "\n", out);
		for (size_t j = 0; j < t->ncols; j++) {
			if (j)
				fputc(',', out);
			if (json) {
				esc_json_string(out, t->cols[j].key);
				fputc(':', out);
			}
			value(out, &t->cols[j], &t->cells[i * t->ncols + j], json);
		}
		if (json)
			fputc('}', out);
	}
	fputs(json ? (t->nrows ? "\n]" : "]") : "\n", out);
}

void table_free(struct table *t)
{
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}
