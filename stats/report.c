// SPDX-License-Identifier: MIT
/* report: the views of snaptrace-stats (see report.h). */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "demangle.h"
#include "diag.h"
#include "escape.h"
#include "funcspec.h"
#include "fxt_writer.h"
#include "signals.h"

/* The columns of a function row; CSV's first nine are fixed by the issue. */
enum { C_FUNCTION, C_CALLS, C_TOTAL, C_SELF, C_MIN, C_P50, C_P90, C_P99, C_MAX, C_DSO,
       C_KIND, C_TID, C_THREAD, ROW_COLS };

static const struct col row_cols[ROW_COLS] = {
	[C_FUNCTION] = { "function", "function", COL_TEXT },
	[C_CALLS] = { "calls", "calls", COL_COUNT },
	[C_TOTAL] = { "total_ns", "total", COL_NS },
	[C_SELF] = { "self_ns", "self", COL_NS },
	[C_MIN] = { "min_ns", "min", COL_NS },
	[C_P50] = { "p50_ns", "p50", COL_NS },
	[C_P90] = { "p90_ns", "p90", COL_NS },
	[C_P99] = { "p99_ns", "p99", COL_NS },
	[C_MAX] = { "max_ns", "max", COL_NS },
	[C_DSO] = { "dso", "dso", COL_TEXT },
	[C_KIND] = { "kind", "kind", COL_TEXT },
	[C_TID] = { "tid", "tid", COL_COUNT },
	[C_THREAD] = { "thread", "thread", COL_TEXT },
};

/* The columns a table of one trace has, chosen from its view's: the kind
 * column only where measured calls are rows of their own, the thread's with
 * --by-thread. COLS is the table's (it must outlive the table's printing). */
#define PICK_MAX 16
struct colpick {
	struct col cols[PICK_MAX];
	int from[PICK_MAX];        /* the view's column of each */
	size_t n;
};

/* Picks the columns of ALL (N, at most PICK_MAX) whose bit is set in KEEP. */
static void colpick(struct colpick *p, const struct col *all, size_t n, uint32_t keep)
{
	p->n = 0;
	for (size_t k = 0; k < n; k++)
		if (keep >> k & 1) {
			p->cols[p->n] = all[k];
			p->from[p->n++] = (int)k;
		}
}

/* Copies the picked cells of FULL (a row of the view's columns) into TO. */
static void colpick_copy(const struct colpick *p, struct cell *to, const struct cell *full)
{
	for (size_t j = 0; j < p->n; j++)
		to[j] = full[p->from[j]];
}

/* Whether A has rows of measured calls (agg_row.measured_row) among its
 * functions: its tables then say each row's kind. */
static bool has_measured_rows(const struct agg *a)
{
	for (size_t i = 0; i < a->nrows; i++)
		if (a->rows[i].measured_row && a->rows[i].hist.total)
			return true;
	return false;
}

/* The kind of a row of A of measured calls (MEASURED) or not: "measured"
 * (calls the recorder timed: exact); "all" (ALL: every slice of a function
 * that has measured calls, those included, so that the calls the recorder
 * timed, the slow ones of --trigger-slower-than, compare with all it
 * made: agg_row.twin); "sampled" (time on the stack between samples:
 * estimates) or "traced". */
static const char *row_kind(const struct agg *a, bool measured, bool all)
{
	return measured ? "measured" : all ? "all" : agg_sampled(a) ? "sampled" : "traced";
}

/* Columns that describe calls: left out of a sampled trace's rows. */
static const bool per_call[ROW_COLS] = {
	[C_CALLS] = true, [C_MIN] = true, [C_P50] = true, [C_P90] = true, [C_P99] = true,
	[C_MAX] = true,
};

/* Whether R's slices in A are calls: A is no sampled trace, or every slice of
 * R is a measured call (--measure: exact). */
static bool calls_of(const struct agg *a, const struct agg_row *r)
{
	return !agg_sampled(a) || (r && r->measured && r->measured == r->hist.total);
}

static uint64_t sort_value(const struct agg_row *r, enum report_sort s)
{
	switch (s) {
	case SORT_TOTAL: return r->total_ns;
	case SORT_SELF: return r->self_ns;
	case SORT_CALLS: return r->hist.total;
	case SORT_P99: return hist_percentile(&r->hist, 99);
	case SORT_MAX: return r->hist.n ? r->hist.max : 0;
	}
	return 0;
}

static int cmp_row(const void *x, const void *y, void *arg)
{
	const struct agg_row *p = x, *q = y;
	enum report_sort s = *(const enum report_sort *)arg;
	uint64_t a = sort_value(p, s), b = sort_value(q, s);
	int c;

	if (a != b)
		return a > b ? -1 : 1;
	c = strcmp(p->name, q->name);
	if (c)
		return c;
	c = strcmp(p->dso, q->dso);
	if (c)
		return c;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

void report_sort_rows(struct agg *a, const struct report_opts *o)
{
	enum report_sort s = o->sort;

	array_sort_r(a->rows, a->nrows, sizeof(*a->rows), cmp_row, &s);
}

/* Rows of O's function or match; a row whose slices never ended has no
 * calls; wait rows are the off-CPU view's (waits.c). */
static bool wanted(const struct agg_row *r, const struct report_opts *o)
{
	if (!r->hist.total || r->by)
		return false;
	if (o->function)	/* AGG_MATCH_NONE: a measured function without a slice */
		return o->function_match != AGG_MATCH_NONE &&
		       agg_function_match(r->name, r->dso, o->function, o->lib) == o->function_match;
	return !o->match || funcspec_pattern_matches(o->match, r->name);
}

bool report_match_any(const struct agg *a, const struct agg *base, const struct report_opts *o)
{
	if (!o->match)
		return true;
	for (const struct agg *x = a; x; x = x == a ? base : NULL)
		for (size_t i = 0; i < x->nrows; i++)
			if (x->rows[i].hist.total &&
			    funcspec_pattern_matches(o->match, x->rows[i].name))
				return true;
	return false;
}

static void fill_row(const struct agg *a, const struct agg_row *r, struct cell *c)
{
	c[C_FUNCTION].s = r->name;
	c[C_CALLS].u = r->hist.total;
	c[C_TOTAL].u = r->total_ns;
	c[C_SELF].u = r->self_ns;
	c[C_MIN].u = r->hist.min;
	c[C_P50].u = hist_percentile(&r->hist, 50);
	c[C_P90].u = hist_percentile(&r->hist, 90);
	c[C_P99].u = hist_percentile(&r->hist, 99);
	c[C_MAX].u = r->hist.max;
	c[C_DSO].s = r->dso;
	c[C_KIND].s = row_kind(a, r->measured_row, r->twin);
	c[C_TID].u = r->tid;
	c[C_THREAD].s = agg_thread_name(a, r->pid, r->tid);
	c[C_THREAD].missing = !c[C_THREAD].s;
	for (size_t j = 0; j < ROW_COLS; j++)
		if (per_call[j] && !calls_of(a, r))
			c[j].missing = true;
}

/* The rows table of A (its columns in PK): rows wanted by O, at most O->limit. */
static int rows_table(const struct agg *a, const struct report_opts *o, struct colpick *pk,
		      struct table *t)
{
	uint32_t keep = (1u << C_KIND) - 1;

	if (has_measured_rows(a))
		keep |= 1u << C_KIND;
	if (a->opts.by_thread)
		keep |= 1u << C_TID | 1u << C_THREAD;
	colpick(pk, row_cols, ROW_COLS, keep);
	*t = (struct table){ .cols = pk->cols, .ncols = pk->n };
	for (size_t i = 0, n = 0; i < a->nrows && (!o->limit || n < o->limit); i++) {
		struct cell *c;

		if (!wanted(&a->rows[i], o))
			continue;
		struct cell full[ROW_COLS] = { 0 };

		c = table_row(t);
		if (!c)
			return -ENOMEM;
		fill_row(a, &a->rows[i], full);
		colpick_copy(pk, c, full);
		n++;
	}
	return 0;
}

/* What a slice means in A, for the text header and JSON. */
static const char *meaning(const struct agg *a)
{
	bool measured = false;

	for (size_t i = 0; i < a->nrows && !measured; i++)
		measured = a->rows[i].measured && !a->rows[i].by;
	if (agg_sampled(a) && measured)
		return "sampled call stacks: rows are time on the stack in consecutive samples, "
		       "not calls; the per-call columns are left out but for measured calls "
		       "(--measure, --trigger-slower-than; a function's row \"all\" holds "
		       "them too)";
	if (agg_sampled(a))
		return "sampled call stacks: rows are time on the stack in consecutive samples, "
		       "not calls; the per-call columns are left out";
	if (a->mode && !strcmp(a->mode, FXT_MODE_PT))
		return "Intel PT: every slice is a call";
	return "the trace does not say how it was made: every slice is taken as a call";
}

/* Functions with at least one finished slice. */
static size_t functions(const struct agg *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nrows; i++)   /* a function with a twin: once */
		n += a->rows[i].hist.total > 0 && !a->rows[i].by &&
		     !(a->rows[i].measured_row && a->rows[i].twin);
	return n;
}

void report_head(const struct agg *a, const char *path, const struct report_opts *o, FILE *out)
{
	if (o->format == TABLE_JSON) {
		fputs("{\"trace\":", out);
		esc_json_string(out, path);
		fputs(",\"mode\":", out);
		if (a->mode)
			esc_json_string(out, a->mode);
		else
			fputs("null", out);
		fprintf(out, ",\"calls_are_calls\":%s,\"slices\":%" PRIu64
			",\"unended\":%" PRIu64 ",\"measured_cut\":%" PRIu64
			",\"functions\":%zu,\"ended\":",
			agg_sampled(a) ? "false" : "true", a->slices, a->unended, a->measured_cut,
			functions(a));
		if (a->ended)
			esc_json_string(out, a->ended);
		else
			fputs("null", out);
		fputs(",\n", out);
		return;
	}
	if (o->format == TABLE_CSV)
		return;
	esc_fputs(out, path, ESC_TEXT);
	fprintf(out, ": %zu function%s, %" PRIu64 " slice%s (%s)%s", functions(a),
		diag_s(functions(a)), a->slices, diag_s(a->slices), meaning(a), a->ended ? "; " : "");
	esc_fputs(out, a->ended, ESC_TEXT);	/* the trace's words */
	fputc('\n', out);
	if (a->unended)
		fprintf(out, "%" PRIu64 " slice%s never ended %s left out\n", a->unended,
			diag_s(a->unended), a->unended == 1 ? "is" : "are");
	if (a->measured_cut)
		fprintf(out, "%" PRIu64 " measured call%s cut short by the trace (--window, a "
			"snapshot's edge) count%s whole: total, min and max are of whole calls, "
			"self of the time the trace holds\n", a->measured_cut,
			diag_s(a->measured_cut), a->measured_cut == 1 ? "s" : "");
	fputc('\n', out);
}

int report_rows(const struct agg *a, const char *path, const struct report_opts *o, FILE *out)
{
	struct colpick pk;
	struct table t;
	int err = rows_table(a, o, &pk, &t);

	if (!err) {
		report_head(a, path, o, out);
		if (o->format == TABLE_JSON)
			fputs("\"rows\":", out);
		table_print(&t, o->format, out);
		if (o->format == TABLE_JSON)
			fputs("}\n", out);
	}
	table_free(&t);
	return err;
}

/* Perfetto's timecode of NS since the trace's start: "HH:MM:SS.mmm uuu nnn". */
static const char *timecode(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / 1000000000, sub = ns % 1000000000;

	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64 " %03" PRIu64
		 " %03" PRIu64, s / 3600, s / 60 % 60, s % 60, sub / 1000000, sub / 1000 % 1000,
		 sub % 1000);
	return buf;
}

enum { H_LOW, H_HIGH, H_CALLS, H_KIND, HIST_COLS };
static const struct col hist_cols[HIST_COLS] = {
	[H_LOW] = { "low_ns", "from", COL_NS },
	[H_HIGH] = { "high_ns", "below", COL_NS },
	[H_CALLS] = { "calls", "calls", COL_COUNT },
	[H_KIND] = { "kind", "kind", COL_TEXT },
};

/* Adds to T (T->ncols: HIST_COLS with its kind column, else one less) H's
 * durations a bucket per power of two: [2^k, 2^(k+1)), and [0, 1); KIND
 * in each of its rows when T has the column. */
static int hist_rows(const struct hist *h, const char *kind, struct table *t)
{
	size_t first = t->nrows;

	for (uint32_t i = 0; i < h->n; i++) {
		struct cell *c = t->nrows > first ? &t->cells[(t->nrows - 1) * t->ncols] : NULL;
		uint64_t from, below;

		if (!h->counts[i])
			continue;
		hist_bucket_pow2(h->lo + i, &from, &below);
		if (!c || c[H_LOW].u != from) {
			c = table_row(t);
			if (!c)
				return -ENOMEM;
			c[H_LOW].u = from;
			c[H_HIGH].u = below;
			if (t->ncols > H_KIND)
				c[H_KIND].s = kind;
		}
		c[H_CALLS].u += h->counts[i];
	}
	return 0;
}

/* Whether row I of histogram table T is of KIND (NULL, or T has no kind
 * column: every row is). */
static bool hist_kind(const struct table *t, size_t i, const char *kind)
{
	return !kind || t->ncols <= H_KIND || !strcmp(t->cells[i * t->ncols + H_KIND].s, kind);
}

/* The bars of histogram table T's rows of KIND (NULL: all). */
static void print_bars(const struct table *t, const char *kind, FILE *out)
{
	enum { BAR = 50 };
	uint64_t most = 0;
	char a[32], b[32];

	for (size_t i = 0; i < t->nrows; i++)
		if (hist_kind(t, i, kind) && t->cells[i * t->ncols + H_CALLS].u > most)
			most = t->cells[i * t->ncols + H_CALLS].u;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cell *c = &t->cells[i * t->ncols];

		if (!hist_kind(t, i, kind))
			continue;
		int n = (int)((c[H_CALLS].u * BAR + most - 1) / most);

		/* widths in characters: "µ" takes two bytes */
		human_ns(c[H_LOW].u, a, sizeof(a));
		human_ns(c[H_HIGH].u, b, sizeof(b));
		fprintf(out, "  %*s - %-*s |%.*s%*s %" PRIu64 "\n",
			9 + (strstr(a, "µ") ? 1 : 0), a, 9 + (strstr(b, "µ") ? 1 : 0), b, n,
			"##################################################", BAR - n, "",
			c[H_CALLS].u);
	}
}

enum { T_RANK, T_DUR, T_START, T_START_NS, T_TID, T_THREAD, T_DSO, T_KIND, TOP_COLS };
static const struct col top_cols[TOP_COLS] = {
	[T_RANK] = { "rank", "#", COL_COUNT },
	[T_DUR] = { "duration_ns", "duration", COL_NS },
	[T_START] = { "start", "start (Perfetto)", COL_TEXT },
	[T_START_NS] = { "start_ns", "start_ns", COL_COUNT },
	[T_TID] = { "tid", "tid", COL_COUNT },
	[T_THREAD] = { "thread", "thread", COL_TEXT },
	[T_DSO] = { "dso", "dso", COL_TEXT },
	[T_KIND] = { "kind", "kind", COL_TEXT },
};

enum { M_CALLS, M_TOTAL, M_MIN, M_P50, M_P90, M_P99, M_MAX, RUN_COLS };
static const struct col run_cols[RUN_COLS] = {
	[M_CALLS] = { "calls", "calls", COL_COUNT }, [M_TOTAL] = { "total_ns", "total", COL_NS },
	[M_MIN] = { "min_ns", "min", COL_NS }, [M_P50] = { "p50_ns", "p50", COL_NS },
	[M_P90] = { "p90_ns", "p90", COL_NS }, [M_P99] = { "p99_ns", "p99", COL_NS },
	[M_MAX] = { "max_ns", "max", COL_NS },
};

/* M's whole recording (--measure): its numbers into RUN, its buckets into HIST. */
static int measured_tables(const struct agg_measured *m, struct table *run, struct table *hist)
{
	const uint64_t v[RUN_COLS] = { m->calls, m->total_ns, m->min_ns, m->p50_ns, m->p90_ns,
				       m->p99_ns, m->max_ns };
	struct cell *c;

	*run = (struct table){ .cols = run_cols, .ncols = RUN_COLS };
	*hist = (struct table){ .cols = hist_cols, .ncols = H_KIND };
	if (!(c = table_row(run)))
		return -ENOMEM;
	for (int j = 0; j < RUN_COLS; j++) {
		c[j].u = v[j];
		c[j].missing = j >= M_MIN && !m->calls;
	}
	for (size_t i = 0; i < m->nbuckets; i++) {
		if (!(c = table_row(hist)))
			return -ENOMEM;
		c[H_LOW].u = m->buckets[i].from;
		c[H_HIGH].u = m->buckets[i].below;
		c[H_CALLS].u = m->buckets[i].calls;
	}
	return 0;
}

/* Prints the whole recording of measured function M (--function). */
static void print_measured(const struct agg_measured *m, const struct table *run,
			   const struct table *hist, enum table_format format, FILE *out)
{
	if (format == TABLE_TEXT) {
		fprintf(out, "\n%s in the whole recording (every call, measured by the recorder: "
			"record.json):\n", m->function);
		table_print(run, format, out);
		fputc('\n', out);
		print_bars(hist, NULL, out);
		return;
	}
	fputs(format == TABLE_JSON ? ",\n\"measured\":" : "\n", out);
	table_print(run, format, out);
	fputs(format == TABLE_JSON ? ",\n\"measured_histogram\":" : "\n", out);
	table_print(hist, format, out);
}

/* Appends ", \"NAME\"" (no comma first when LEN is 0) to the list of LEN
 * bytes in BUF (SIZE bytes) when it fits whole; a list names a function
 * whole or not at all (new-user check 16: names cut mid-string). Returns the
 * list's new length. */
static size_t list_name(char *buf, size_t size, size_t len, const char *name)
{
	int k = snprintf(NULL, 0, "%s\"%s\"", len ? ", " : "", name);

	if (k < 0 || len + (size_t)k >= size)
		return len;
	return len + (size_t)snprintf(buf + len, size - len, "%s\"%s\"", len ? ", " : "", name);
}

/*
 * Finds the rows of function NAME in A: the level of the best match into
 * *LEVEL (AGG_MATCH_NONE: none). Returns 0; 1 after a one-line error naming
 * PATH when NAME matches several functions (each named); FUNCTION_NONE when
 * it matches none (nothing said: no_function()).
 */
#define FUNCTION_NONE 2
static int find_function(const struct agg *a, const char *path, const char *name,
			 const char *lib, enum agg_match *level)
{
	const char *first = NULL, *second = NULL;
	char have[512];
	size_t len = 0;

	*level = AGG_MATCH_NONE;
	for (size_t i = 0; i < a->nrows; i++) {
		enum agg_match m = agg_function_match(a->rows[i].name, a->rows[i].dso, name, lib);

		if (a->rows[i].hist.total && !a->rows[i].by && m > *level)
			*level = m;
	}
	for (size_t i = 0; i < a->nrows; i++) {
		const struct agg_row *r = &a->rows[i];

		if (!r->hist.total || r->by || *level == AGG_MATCH_NONE)
			continue;
		if (agg_function_match(r->name, r->dso, name, lib) == *level && !first)
			first = r->name;
		else if (agg_function_match(r->name, r->dso, name, lib) == *level &&
			 strcmp(r->name, first))
			second = r->name;
	}
	if (second) {
		have[0] = '\0';
		for (size_t i = 0; i < a->nrows; i++) {
			const struct agg_row *r = &a->rows[i];
			char quoted[DEMANGLED_SUGGEST_LEN + 2];

			/* each name once (a name has a row per dso, and per thread) */
			snprintf(quoted, sizeof(quoted), "\"%s\"", r->name);
			if (r->hist.total && !r->by &&
			    agg_function_match(r->name, r->dso, name, lib) == *level &&
			    !strstr(have, quoted))
				len = list_name(have, sizeof(have), len, r->name);
		}
		diag_error("%s: \"%s\" names several functions (%s): give one as it is shown",
			   path, name, have);
		return 1;
	}
	return first ? 0 : FUNCTION_NONE;
}

/* Says that A (read from PATH) has no function NAME of library LIB (NULL:
 * any): the binary that has it, else the nearest names it has, else its
 * functions. Returns 1. */
static int no_function(const struct agg *a, const char *path, const char *name, const char *lib)
{
	char near[DEMANGLED_SUGGEST_MAX][DEMANGLED_SUGGEST_LEN], have[512];
	unsigned score[DEMANGLED_SUGGEST_MAX];
	struct demangled_suggest sg = { .wanted = name, .out = near, .score = score, .max = 5 };
	size_t len = 0;
	int n;

	have[0] = '\0';
	for (size_t i = 0; lib && *lib && i < a->nrows; i++)
		if (a->rows[i].hist.total && !a->rows[i].by &&
		    agg_function_match(a->rows[i].name, a->rows[i].dso, name, NULL)) {
			diag_error("%s: no function named \"%s\" in a library \"%s\"; the trace has "
				   "it in %s", path, name, lib, a->rows[i].dso);
			return 1;
		}

	for (size_t i = 0; i < a->nrows; i++)
		if (a->rows[i].hist.total && !a->rows[i].by)
			demangled_suggest(&sg, a->rows[i].name);
	n = demangled_suggest_end(&sg, false);   /* else the names the trace has */
	for (int i = 0; i < n; i++)
		len = list_name(have, sizeof(have), len, near[i]);
	if (n)
		diag_error("%s: no function named \"%s\"; the nearest: %s", path, name, have);
	else
		diag_error("%s: no function named \"%s\" (the trace has: %s)", path, name,
			   agg_list_functions(a, have, sizeof(have)));
	return 1;
}

/*
 * The text histograms of FUNCTION in A: one of its durations (EST, the
 * rows of histogram table HIST), or, when it has measured calls (EXACT),
 * one of each kind, never one of both: a measured call is exact, a sampled
 * slice an estimate.
 */
static void text_bars(const struct agg *a, const char *function, const struct hist *est,
		      const struct hist *exact, const struct table *hist, FILE *out)
{
	const struct {
		const struct hist *h;
		bool measured;
	} parts[] = { { exact, true }, { est, false } };

	for (size_t i = 0; i < 2; i++) {
		const struct hist *h = parts[i].h;
		bool calls = parts[i].measured || !agg_sampled(a);

		if (!h->total && (exact->total || i == 0))
			continue;   /* an empty kind beside the other; never both unsaid */
		fputc('\n', out);
		esc_fputs(out, function, ESC_TEXT);
		if (!exact->total)
			fprintf(out, " durations (%" PRIu64 " %s%s, a bar per power of two):\n",
				h->total, calls ? "call" : "slice", h->total == 1 ? "" : "s");
		else
			fprintf(out, " durations, %s (%" PRIu64 " %s%s: %s%s), a bar per power of "
				"two:\n", row_kind(a, parts[i].measured, true), h->total,
				calls ? "call" : "slice", h->total == 1 ? "" : "s",
				parts[i].measured ? "exact, the recorder timed each" :
				calls ? "traced" : "time on the stack in consecutive samples, "
				"estimates", parts[i].measured ? "" : ", the measured ones included");
		print_bars(hist, row_kind(a, parts[i].measured, true), out);
	}
}

/*
 * Says in one line what the trace at PATH (read into A) knows of FUNCTION,
 * measured (M: its whole recording) without a whole call, or without a
 * slice in the trace: the calls the recorder saw end, and the time the
 * trace shows inside it (its rows wanted by O, but the measured calls'). A
 * function the recording caught mid-call (an attach inside main, a call
 * still running at the end) made no whole call, yet ran all along.
 */
static void say_measured_unseen(const struct agg *a, const char *path, const char *function,
				const struct agg_measured *m, const struct report_opts *o)
{
	uint64_t seen = 0;
	char t[32];

	for (size_t i = 0; i < a->nrows; i++)
		if (wanted(&a->rows[i], o) && !a->rows[i].measured_row)
			seen += a->rows[i].total_ns;
	if (!m->calls && seen)
		diag_info("%s: \"%s\": 0 complete calls measured in the whole recording; seen "
			  "inside for %s in the trace: the calls it shows were entered before "
			  "the recording began or still ran at its end, their durations not "
			  "known", path, function, human_ns(seen, t, sizeof(t)));
	else if (!m->calls)
		diag_info("%s: \"%s\": 0 complete calls measured in the whole recording, and "
			  "the trace holds no slice of it", path, function);
	else if (!seen)
		diag_info("%s: \"%s\": the trace holds no slice of it; its %" PRIu64 " measured "
			  "call%s of the whole recording (record.json) are below", path, function,
			  m->calls, diag_s(m->calls));
}

int report_function(const struct agg *a, const char *path, const struct report_opts *opts,
		    FILE *out)
{
	bool kinds = has_measured_rows(a);
	struct table rows = { 0 }, top = { .cols = top_cols, .ncols = kinds ? TOP_COLS : T_KIND };
	struct table hist = { .cols = hist_cols, .ncols = kinds ? HIST_COLS : H_KIND };
	struct table mrun = { 0 }, mhist = { 0 };
	const struct agg_measured *m = agg_measured_of(a, opts->function, opts->lib);
	struct hist est = HIST_INIT, exact = HIST_INIT;   /* the other slices, measured calls */
	struct report_opts ro = *opts, *o = &ro;
	char (*starts)[40] = calloc(a->ntop + 1, sizeof(*starts));
	int err = starts ? find_function(a, path, o->function, o->lib, &ro.function_match) : -ENOMEM;
	struct colpick pk;
	bool calls = true;

	if (err == FUNCTION_NONE && m && m->calls_unrecorded) {
		diag_error("%s: no call of \"%s\" in the trace: its %" PRIu64 " measured call%s "
			   "%s in threads the recording left out (%s); " SIG_UNRECORDED_HINT, path,
			   o->function, m->calls, diag_s(m->calls), m->calls_unrecorded == m->calls ?
			   "were all" : "were", m->threads_unrecorded ? m->threads_unrecorded : "?");
		err = 1;
	} else if (err == FUNCTION_NONE && m) {
		err = 0;   /* measured, no slice in the trace: what the recording knows */
	} else if (err == FUNCTION_NONE) {
		err = no_function(a, path, o->function, o->lib);
	}
	if (!err)
		err = rows_table(a, o, &pk, &rows);

	for (size_t i = 0; !err && i < a->nrows; i++)
		if (wanted(&a->rows[i], o)) {
			const struct agg_row *r = &a->rows[i];

			err = hist_merge(r->measured_row ? &exact : &est, &r->hist);
			calls &= r->measured_row || calls_of(a, r);
		}
	if (!err && m)
		err = measured_tables(m, &mrun, &mhist);
	if (!err)
		err = hist_rows(&est, row_kind(a, false, exact.total != 0), &hist);
	if (!err)
		err = hist_rows(&exact, row_kind(a, true, false), &hist);
	for (size_t i = 0; !err && i < a->ntop; i++) {
		const struct agg_call *call = &a->top[i];
		struct cell *c = table_row(&top);

		if (!c) {
			err = -ENOMEM;
			break;
		}
		c[T_RANK].u = i + 1;
		c[T_DUR].u = call->dur;
		c[T_START].s = timecode(call->begin - a->first_ts, starts[i], sizeof(starts[i]));
		c[T_START_NS].u = call->begin;
		c[T_TID].u = call->tid;
		c[T_THREAD].s = agg_thread_name(a, call->pid, call->tid);
		c[T_THREAD].missing = !c[T_THREAD].s;
		c[T_DSO].s = call->dso;
		if (kinds)
			c[T_KIND].s = row_kind(a, call->measured, false);
	}
	if (!err && m)
		say_measured_unseen(a, path, o->function, m, o);
	if (!err && m && m->calls_unrecorded)
		diag_warn("%s: %" PRIu64 " of the %" PRIu64 " measured calls of \"%s\" were in "
			  "threads the recording left out (%s): the rows and the longest calls "
			  "hold the other threads' only; " SIG_UNRECORDED_HINT, path,
			  m->calls_unrecorded, m->calls, o->function,
			  m->threads_unrecorded ? m->threads_unrecorded : "?");
	if (!err && o->format == TABLE_TEXT && !rows.nrows) {
		report_head(a, path, o, out);   /* no slice: the whole recording alone */
		print_measured(m, &mrun, &mhist, o->format, out);
	} else if (!err) {
		report_head(a, path, o, out);
		if (o->format == TABLE_JSON)
			fputs("\"rows\":", out);
		table_print(&rows, o->format, out);
		if (o->format == TABLE_TEXT) {
			text_bars(a, o->function, &est, &exact, &hist, out);
		} else {
			fputs(o->format == TABLE_JSON ? ",\n\"histogram\":" : "\n", out);
			table_print(&hist, o->format, out);
		}
		if (o->format == TABLE_TEXT)
			fprintf(out, "\nlongest %zu %s (start: since the trace's start, as Perfetto "
				"shows it):\n", a->ntop, !calls ? (a->ntop == 1 ? "slice" : "slices") :
				kinds && est.total ? "calls and slices, each of its kind" :
				a->ntop == 1 ? "call" : "calls");
		else
			fputs(o->format == TABLE_JSON ? ",\n\"longest\":" : "\n", out);
		table_print(&top, o->format, out);
		if (m)
			print_measured(m, &mrun, &mhist, o->format, out);
		if (o->format == TABLE_JSON)
			fputs("}\n", out);
	}
	hist_free(&est);
	hist_free(&exact);
	table_free(&hist);
	table_free(&top);
	table_free(&mrun);
	table_free(&mhist);
	table_free(&rows);
	free(starts);
	return err;
}

enum { B_FUNCTION, B_CALLS_OLD, B_CALLS_NEW, B_CALLS_RATIO, B_P50_OLD, B_P50_NEW, B_P50_RATIO,
       B_P99_OLD, B_P99_NEW, B_P99_RATIO, B_TOTAL_OLD, B_TOTAL_NEW, B_TOTAL_RATIO, B_DSO,
       B_KIND, B_TID, BASE_COLS };
static const struct col base_cols[BASE_COLS] = {
	[B_FUNCTION] = { "function", "function", COL_TEXT },
	[B_CALLS_OLD] = { "calls_old", "calls old", COL_COUNT },
	[B_CALLS_NEW] = { "calls_new", "new", COL_COUNT },
	[B_CALLS_RATIO] = { "calls_ratio", "ratio", COL_RATIO },
	[B_P50_OLD] = { "p50_old_ns", "p50 old", COL_NS },
	[B_P50_NEW] = { "p50_new_ns", "new", COL_NS },
	[B_P50_RATIO] = { "p50_ratio", "ratio", COL_RATIO },
	[B_P99_OLD] = { "p99_old_ns", "p99 old", COL_NS },
	[B_P99_NEW] = { "p99_new_ns", "new", COL_NS },
	[B_P99_RATIO] = { "p99_ratio", "ratio", COL_RATIO },
	[B_TOTAL_OLD] = { "total_old_ns", "total old", COL_NS },
	[B_TOTAL_NEW] = { "total_new_ns", "new", COL_NS },
	[B_TOTAL_RATIO] = { "total_ratio", "ratio", COL_RATIO },
	[B_DSO] = { "dso", "dso", COL_TEXT },
	[B_KIND] = { "kind", "kind", COL_TEXT },
	[B_TID] = { "tid", "tid", COL_COUNT },
};

/* How report_baseline() pairs rows: by the binary's full path (true) or its
 * file name (qsort and bsearch take no context). */
static bool key_paths;

/* The part of DSO that pairs it: the whole path, or its file name. */
static const char *dso_key(const char *dso)
{
	const char *slash = strrchr(dso, '/');

	return key_paths || !slash ? dso : slash + 1;
}

static int cmp_key(const void *x, const void *y)
{
	const struct agg_row *p = *(const struct agg_row *const *)x;
	const struct agg_row *q = *(const struct agg_row *const *)y;
	int c = strcmp(p->name, q->name);

	if (c)
		return c;
	c = strcmp(dso_key(p->dso), dso_key(q->dso));
	if (c)
		return c;
	if (p->measured_row != q->measured_row)   /* measured calls pair with measured calls */
		return p->measured_row ? 1 : -1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

/*
 * Fills the old (OLD_SIDE) or new columns of C from R (NULL: the function is
 * not in A's trace). One notation: a count or time is a number, 0 included
 * (an absent function made 0 calls in 0 ns); a value that does not exist is
 * missing ("-"): the percentiles of no call, the per-call columns of a
 * sampled trace.
 */
static void fill_side(const struct agg *a, const struct agg_row *r, struct cell *c, bool old_side)
{
	static const int cols[2][4] = {
		{ B_CALLS_NEW, B_P50_NEW, B_P99_NEW, B_TOTAL_NEW },
		{ B_CALLS_OLD, B_P50_OLD, B_P99_OLD, B_TOTAL_OLD },
	};
	const int *k = cols[old_side];

	if (r) {
		c[B_FUNCTION].s = r->name;
		if (!c[B_DSO].s)   /* the new trace's binary, when both have the function */
			c[B_DSO].s = r->dso;
		c[B_TID].u = r->tid;
		c[B_KIND].s = row_kind(a, r->measured_row, r->twin);
		c[k[0]].u = r->hist.total;
		c[k[1]].u = hist_percentile(&r->hist, 50);
		c[k[2]].u = hist_percentile(&r->hist, 99);
		c[k[3]].u = r->total_ns;
	}
	c[k[0]].missing = !calls_of(a, r) && (r || agg_sampled(a));
	c[k[1]].missing = c[k[2]].missing = !calls_of(a, r) || !r;
}

int report_cmp_change(uint64_t old_a, uint64_t new_a, uint64_t old_b, uint64_t new_b)
{
	uint64_t da = old_a > new_a ? old_a - new_a : new_a - old_a;
	uint64_t db = old_b > new_b ? old_b - new_b : new_b - old_b;

	if (da != db)
		return da > db ? -1 : 1;
	if (old_a + new_a != old_b + new_b)
		return old_a + new_a > old_b + new_b ? -1 : 1;
	return 0;
}

static int cmp_change(const void *x, const void *y)
{
	const struct cell *p = x, *q = y;
	int c = report_cmp_change(p[B_TOTAL_OLD].u, p[B_TOTAL_NEW].u, q[B_TOTAL_OLD].u,
				  q[B_TOTAL_NEW].u);

	return c ? c : strcmp(p[B_FUNCTION].s, q[B_FUNCTION].s);
}

/* Whether A's recording measured function NAME of binary DSO (paired as
 * rows are: dso_key()): its calls are counted, 0 when it has no slice. */
static bool measured_in(const struct agg *a, const char *name, const char *dso)
{
	for (size_t i = 0; name && dso && i < a->nmeasured; i++)
		if (!strcmp(a->measured[i].function, name) &&
		    !strcmp(dso_key(a->measured[i].dso), dso_key(dso)))
			return true;
	return false;
}

static void ratios(struct cell *c)
{
	static const int r[][3] = {
		{ B_CALLS_RATIO, B_CALLS_OLD, B_CALLS_NEW },
		{ B_P50_RATIO, B_P50_OLD, B_P50_NEW },
		{ B_P99_RATIO, B_P99_OLD, B_P99_NEW },
		{ B_TOTAL_RATIO, B_TOTAL_OLD, B_TOTAL_NEW },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		struct cell *o = &c[r[i][1]], *n = &c[r[i][2]];

		c[r[i][0]].missing = o->missing || n->missing || !o->u;
		if (!c[r[i][0]].missing)
			c[r[i][0]].r = (double)n->u / (double)o->u;
	}
}

int report_baseline(const struct agg *old, const struct agg *new, const char *old_path,
		    const char *new_path, const struct report_opts *o, FILE *out)
{
	const struct agg_row **idx = malloc((old->nrows + 1) * sizeof(*idx));
	bool *matched = calloc(old->nrows + 1, sizeof(*matched));
	uint32_t keep = (1u << B_KIND) - 1;
	struct colpick pk;
	struct table t;
	int err = idx && matched ? 0 : -ENOMEM;

	if (has_measured_rows(old) || has_measured_rows(new))
		keep |= 1u << B_KIND;
	if (new->opts.by_thread)
		keep |= 1u << B_TID;
	colpick(&pk, base_cols, BASE_COLS, keep);
	t = (struct table){ .cols = pk.cols, .ncols = pk.n };

	key_paths = o->baseline_paths;
	for (size_t i = 0; !err && i < old->nrows; i++)
		idx[i] = &old->rows[i];
	if (!err)
		array_sort(idx, old->nrows, sizeof(*idx), cmp_key);
	for (size_t i = 0; !err && i < new->nrows + old->nrows; i++) {
		const struct agg_row *r = i < new->nrows ? &new->rows[i] : idx[i - new->nrows];
		const struct agg_row **m = NULL;
		struct cell c[BASE_COLS] = { 0 }, *row;

		if (!wanted(r, o))
			continue;
		if (i < new->nrows)
			m = array_search(&r, idx, old->nrows, sizeof(*idx), cmp_key);
		else if (matched[i - new->nrows])
			continue;
		row = table_row(&t);
		if (!row) {
			err = -ENOMEM;
			break;
		}
		if (m)
			matched[m - idx] = true;
		fill_side(new, i < new->nrows ? r : NULL, c, false);
		fill_side(old, i < new->nrows ? (m ? *m : NULL) : r, c, true);
		/* a function's measured calls of one side only were 0 in the other
		 * where that trace counts them: it measured the function (--measure) */
		if (i >= new->nrows && r->measured_row &&
		    measured_in(new, c[B_FUNCTION].s, c[B_DSO].s))
			c[B_CALLS_NEW].missing = false;
		if (i < new->nrows && !m && r->measured_row &&
		    measured_in(old, c[B_FUNCTION].s, c[B_DSO].s))
			c[B_CALLS_OLD].missing = false;
		ratios(c);
		colpick_copy(&pk, row, c);
	}
	if (!err)
		report_compared(&t, cmp_change, old_path, new_path, "functions",
				agg_sampled(old) || agg_sampled(new) ? " (sampled: calls and "
				"percentiles left out but a measured function's calls)" : "", o, out);
	table_free(&t);
	free(idx);
	free(matched);
	return err;
}

void report_compared(struct table *t, int (*cmp)(const void *, const void *),
		     const char *old_path, const char *new_path, const char *what,
		     const char *note, const struct report_opts *o, FILE *out)
{
	if (t->nrows)   /* no array before the first row: qsort takes no NULL */
		array_sort(t->cells, t->nrows, t->ncols * sizeof(*t->cells), cmp);
	if (o->limit && t->nrows > o->limit)
		t->nrows = o->limit;
	if (o->format == TABLE_TEXT) {
		esc_fputs(out, old_path, ESC_TEXT);
		fputs(" (old) -> ", out);
		esc_fputs(out, new_path, ESC_TEXT);
		fprintf(out, " (new): %zu %s, largest change of total time first%s\n\n", t->nrows,
			what, note);
	}
	if (o->format == TABLE_JSON) {
		fputs("{\"old\":", out);
		esc_json_string(out, old_path);
		fputs(",\"new\":", out);
		esc_json_string(out, new_path);
		fputs(",\"rows\":", out);
	}
	table_print(t, o->format, out);
	if (o->format == TABLE_JSON)
		fputs("}\n", out);
}
