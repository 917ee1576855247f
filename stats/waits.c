// SPDX-License-Identifier: MIT
/*
 * waits: snaptrace-stats --off-cpu, where the threads waited (report.h):
 * the wait rows of agg.h ([off-cpu] slices by system call, kernel function
 * and caller, in each state, of all threads and of each), and their
 * comparison with a baseline.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "funcspec.h"
#include "fxt_writer.h"

enum { W_WAITS, W_TOTAL, W_P50, W_P99, W_MAX, W_TID, W_BY, W_STATE, W_NAME, W_DSO, W_THREAD,
       WAIT_COLS };

static const struct col wait_cols[WAIT_COLS] = {
	[W_WAITS] = { "waits", "waits", COL_COUNT },
	[W_TOTAL] = { "total_ns", "total", COL_NS },
	[W_P50] = { "p50_ns", "p50", COL_NS },
	[W_P99] = { "p99_ns", "p99", COL_NS },
	[W_MAX] = { "max_ns", "max", COL_NS },
	[W_TID] = { "tid", "tid", COL_COUNT },
	[W_BY] = { "by", "by", COL_TEXT },
	[W_STATE] = { "state", "state", COL_TEXT },
	[W_NAME] = { "name", "name", COL_TEXT },
	[W_DSO] = { "dso", "dso", COL_TEXT },
	[W_THREAD] = { "thread", "thread", COL_TEXT },
};

/* The kinds of wait row, in the order shown, with the text view's title. */
static const struct {
	const char *by, *title;
} kinds[] = {
	{ agg_by_syscall, "by system call" },
	{ agg_by_kernel_function, "by kernel function" },
	{ agg_by_caller, "by caller (the innermost function outside the C library and "
			 "language runtimes)" },
};

static int cmp_wait(const void *x, const void *y)
{
	const struct agg_row *p = *(const struct agg_row *const *)x;
	const struct agg_row *q = *(const struct agg_row *const *)y;
	int c;

	if (p->tid != q->tid)           /* all threads (tid 0) first */
		return p->tid < q->tid ? -1 : 1;
	if (p->total_ns != q->total_ns)
		return p->total_ns > q->total_ns ? -1 : 1;
	c = strcmp(p->name, q->name);
	return c ? c : strcmp(p->state, q->state);
}

/* The wait rows of kind BY that O shows (ALL: those of all threads, else of
 * each thread; --thread has only its own), sorted; in *N. */
static const struct agg_row **pick(const struct agg *a, const struct report_opts *o,
				   const char *by, bool all, size_t *n)
{
	const struct agg_row **v = malloc((a->nrows + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < a->nrows; i++) {
		const struct agg_row *r = &a->rows[i];

		if (r->by == by && r->hist.total && (r->tid == 0) == all &&
		    (!o->match || funcspec_pattern_matches(o->match, r->name)))
			v[(*n)++] = r;
	}
	array_sort(v, *n, sizeof(*v), cmp_wait);
	return v;
}

static void fill(const struct agg *a, const struct agg_row *r, struct cell *c)
{
	c[W_WAITS].u = r->hist.total;
	c[W_TOTAL].u = r->total_ns;
	c[W_P50].u = hist_percentile(&r->hist, 50);
	c[W_P99].u = hist_percentile(&r->hist, 99);
	c[W_MAX].u = r->hist.max;
	c[W_TID].u = r->tid;
	c[W_TID].missing = !r->tid;
	c[W_BY].s = r->by;
	c[W_STATE].s = r->state;
	c[W_NAME].s = r->name;
	c[W_DSO].s = r->dso;
	c[W_THREAD].s = r->tid ? agg_thread_name(a, r->pid, r->tid) : "all";
	c[W_THREAD].missing = !c[W_THREAD].s;
}

/* Adds the rows of V (N) to T, at most O->limit per thread. */
static int add_rows(const struct agg *a, const struct report_opts *o, const struct agg_row **v,
		    size_t n, struct table *t, const int *cols, size_t ncols)
{
	size_t shown = 0;

	for (size_t i = 0; i < n; i++) {
		struct cell full[WAIT_COLS] = { 0 }, *c;

		if (i && v[i]->tid != v[i - 1]->tid)
			shown = 0;
		if (o->limit && shown++ >= o->limit)
			continue;
		c = table_row(t);
		if (!c)
			return -ENOMEM;
		fill(a, v[i], full);
		for (size_t j = 0; j < ncols; j++)
			c[j] = full[cols[j]];
	}
	return 0;
}

/* The waits of all threads in STATE: their number, in *N, and time. */
static uint64_t state_total(const struct agg *a, const char *state, uint64_t *n)
{
	uint64_t ns = 0;

	*n = 0;
	for (size_t i = 0; i < a->nrows; i++)
		if (a->rows[i].by == agg_by_syscall && a->rows[i].state == state &&
		    a->rows[i].tid == 0) {
			ns += a->rows[i].total_ns;
			*n += a->rows[i].hist.total;
		}
	return ns;
}

int report_waits(const struct agg *a, const char *path, const struct report_opts *o, FILE *out)
{
	/* CSV and JSON: every column; text (numbers first): no "by", which the
	 * kind's title says, and a dso for callers only */
	static const int all_cols[] = { W_BY, W_STATE, W_NAME, W_WAITS, W_TOTAL, W_P50, W_P99,
					W_MAX, W_DSO, W_TID, W_THREAD };
	static const int text_cols[] = { W_WAITS, W_TOTAL, W_P50, W_P99, W_MAX, W_TID, W_STATE,
					 W_NAME, W_THREAD, W_DSO };
	struct col cols[WAIT_COLS];
	bool text = o->format == TABLE_TEXT;
	const int *pickcols = text ? text_cols : all_cols;
	size_t ncols = text ? sizeof(text_cols) / sizeof(*text_cols) : WAIT_COLS;
	struct table t = { .cols = cols };
	char b1[32], b2[32];
	uint64_t nb, np;
	int err = 0;

	for (size_t j = 0; j < ncols; j++)
		cols[j] = wait_cols[pickcols[j]];
	if (text) {
		uint64_t blocked = state_total(a, agg_state_blocked, &nb);
		uint64_t preempted = state_total(a, agg_state_preempted, &np);

		fprintf(out, "%s: off the CPU, %s blocked in %" PRIu64 " waits and %s preempted "
			"in %" PRIu64 " (every [off-cpu] slice is one wait)%s%s\n", path,
			human_ns(blocked, b1, sizeof(b1)), nb, human_ns(preempted, b2, sizeof(b2)),
			np, a->ended ? "; " : "", a->ended ? a->ended : "");
	} else if (o->format == TABLE_JSON) {
		report_head(a, path, o, out);
		fputs("\"rows\":", out);
	}
	for (size_t k = 0; !err && k < sizeof(kinds) / sizeof(*kinds); k++) {
		t.ncols = text && kinds[k].by != agg_by_caller ? ncols - 1 : ncols;
		for (int all = 1; !err && all >= 0; all--) {
			size_t n;
			const struct agg_row **v = pick(a, o, kinds[k].by, all, &n);

			if (!v)
				return -ENOMEM;
			/* --thread: its rows only (all threads are that one) */
			if (!(all && a->opts.one_thread))
				err = add_rows(a, o, v, n, &t, pickcols, t.ncols);
			free(v);
		}
		/* the text view: a table per kind; CSV and JSON: one table */
		if (!err && text) {
			fprintf(out, "\n%s:\n", kinds[k].title);
			table_print(&t, o->format, out);
			table_free(&t);
		}
	}
	if (!err && !text)
		table_print(&t, o->format, out);
	if (!err && o->format == TABLE_JSON)
		fputs("}\n", out);
	table_free(&t);
	return err;
}

/* The comparison: old and new of waits, p50, p99 and total, with ratios. */
enum { X_WAITS, X_P50, X_P99, X_TOTAL, METRICS };
enum { B_BY = METRICS * 3, B_STATE, B_NAME, B_DSO, BASE_COLS };

static const struct col base_cols[BASE_COLS] = {
	{ "waits_old", "waits old", COL_COUNT }, { "waits_new", "new", COL_COUNT },
	{ "waits_ratio", "ratio", COL_RATIO },
	{ "p50_old_ns", "p50 old", COL_NS }, { "p50_new_ns", "new", COL_NS },
	{ "p50_ratio", "ratio", COL_RATIO },
	{ "p99_old_ns", "p99 old", COL_NS }, { "p99_new_ns", "new", COL_NS },
	{ "p99_ratio", "ratio", COL_RATIO },
	{ "total_old_ns", "total old", COL_NS }, { "total_new_ns", "new", COL_NS },
	{ "total_ratio", "ratio", COL_RATIO },
	[B_BY] = { "by", "by", COL_TEXT }, [B_STATE] = { "state", "state", COL_TEXT },
	[B_NAME] = { "name", "name", COL_TEXT }, [B_DSO] = { "dso", "dso", COL_TEXT },
};

/* The part of DSO that pairs it: its file name (two builds at other paths
 * pair), or with --baseline-paths the whole path. */
static const char *dso_key(const char *dso, const struct report_opts *o)
{
	const char *s = strrchr(dso, '/');

	return o->baseline_paths || !s ? dso : s + 1;
}

/* Whether wait rows P and Q (of all threads) pair. */
static bool same_wait(const struct agg_row *p, const struct agg_row *q,
		      const struct report_opts *o)
{
	return p->by == q->by && p->state == q->state && !strcmp(p->name, q->name) &&
	       !strcmp(dso_key(p->dso, o), dso_key(q->dso, o));
}

/* Fills side SIDE (0 old, 1 new) of row C from R (NULL: not in that trace). */
static void fill_side(const struct agg_row *r, struct cell *c, int side)
{
	c[X_WAITS * 3 + side].u = r ? r->hist.total : 0;
	c[X_P50 * 3 + side].u = r ? hist_percentile(&r->hist, 50) : 0;
	c[X_P99 * 3 + side].u = r ? hist_percentile(&r->hist, 99) : 0;
	c[X_TOTAL * 3 + side].u = r ? r->total_ns : 0;
	c[X_P50 * 3 + side].missing = c[X_P99 * 3 + side].missing = !r;
	if (r) {
		c[B_BY].s = r->by;
		c[B_STATE].s = r->state;
		c[B_NAME].s = r->name;
		c[B_DSO].s = r->dso;
	}
}

static int cmp_change(const void *x, const void *y)
{
	const struct cell *p = x, *q = y;
	int c = report_cmp_change(p[X_TOTAL * 3].u, p[X_TOTAL * 3 + 1].u, q[X_TOTAL * 3].u,
				  q[X_TOTAL * 3 + 1].u);

	return c ? c : strcmp(p[B_NAME].s, q[B_NAME].s);
}

int report_waits_baseline(const struct agg *old, const struct agg *new, const char *old_path,
			  const char *new_path, const struct report_opts *o, FILE *out)
{
	struct table t = { .cols = base_cols, .ncols = BASE_COLS };
	bool *paired = calloc(old->nrows + 1, sizeof(*paired));
	int err = paired ? 0 : -ENOMEM;

	/* new rows with their old pair, then the old rows left */
	for (size_t i = 0; !err && i < new->nrows + old->nrows; i++) {
		const struct agg_row *r = i < new->nrows ? &new->rows[i] : &old->rows[i - new->nrows];
		const struct agg_row *m = NULL;
		struct cell *c;

		if (!r->by || r->tid || !r->hist.total || (o->match && !funcspec_pattern_matches(o->match, r->name)))
			continue;
		if (i >= new->nrows && paired[i - new->nrows])
			continue;
		for (size_t j = 0; i < new->nrows && j < old->nrows && !m; j++)
			if (old->rows[j].by && !old->rows[j].tid && same_wait(r, &old->rows[j], o)) {
				m = &old->rows[j];
				paired[j] = true;
			}
		c = table_row(&t);
		if (!c) {
			err = -ENOMEM;
			break;
		}
		fill_side(i < new->nrows ? m : r, c, 0);
		fill_side(i < new->nrows ? r : NULL, c, 1);
		for (int x = 0; x < METRICS; x++) {
			struct cell *ol = &c[x * 3], *nw = &c[x * 3 + 1], *ratio = &c[x * 3 + 2];

			ratio->missing = ol->missing || nw->missing || !ol->u;
			if (!ratio->missing)
				ratio->r = (double)nw->u / (double)ol->u;
		}
	}
	if (!err)
		report_compared(&t, cmp_change, old_path, new_path, "kinds of wait of all threads",
				"", o, out);
	table_free(&t);
	free(paired);
	return err;
}
