/* SPDX-License-Identifier: MIT */
/*
 * table: rows of typed cells printed as an aligned text table (human units),
 * CSV (RFC 4180, integer nanoseconds) or a JSON array of objects: one
 * definition of each view's columns, three renderings that always agree.
 * Text cells are escaped in each (escape.h): names come from the trace.
 */
#ifndef SNAPTRACE_STATS_TABLE_H
#define SNAPTRACE_STATS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_JSON };

enum col_kind {
	COL_TEXT,    /* a string (the table puts text columns after the numbers) */
	COL_COUNT,   /* an integer */
	COL_NS,      /* nanoseconds: µs/ms/s in the text table */
	COL_RATIO,   /* new / old, 3 decimals; "1.50x" in the text table */
};

struct col {
	const char *key;     /* CSV header and JSON member name */
	const char *title;   /* text table header */
	enum col_kind kind;
};

/* One cell; MISSING prints "-" (text), nothing (CSV), null (JSON). */
struct cell {
	bool missing;
	union {
		const char *s;   /* borrowed: must outlive the table's printing */
		uint64_t u;
		double r;
	};
};

struct table {
	const struct col *cols;
	size_t ncols;
	struct cell *cells;     /* nrows * ncols, row by row; owned */
	size_t nrows, cap;
};

/* Returns the NCOLS cells of a new last row (zeroed), or NULL (out of memory). */
struct cell *table_row(struct table *t);

/* Prints T as FORMAT; JSON is the bare array (callers wrap it). */
void table_print(const struct table *t, enum table_format format, FILE *out);

/* Formats NS with a unit (ns, µs, ms, s; 3 significant digits) into BUF. */
const char *human_ns(uint64_t ns, char *buf, size_t len);

/* Frees T's cells. */
void table_free(struct table *t);

#endif
