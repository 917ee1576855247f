/* SPDX-License-Identifier: MIT */
#include "origins.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "perfdata.h"

/* One place inputs came from. */
struct origin {
	const char *name;          /* the recording directory, or the file */
	const char *boot_id;       /* NULL: not told */
	struct perfdata_origin pd;
};

/* Reads the origin of snapshot K of R into *O (named NAME). Returns whether
 * it is a perf.data that could be read. */
static bool read_origin(const struct recording *r, size_t k, const char *name, struct origin *o)
{
	char why[256];
	int fd = recording_open(r, r->snapshots[k].file, 0, why, sizeof(why)), err;

	if (fd < 0)
		return false;
	err = perfdata_origin(fd, &o->pd);
	close(fd);
	o->name = name;
	o->boot_id = r->boot_id;
	return !err;
}

/* Whether A and B name no program in common (both name some). */
static bool other_programs(const struct perfdata_origin *a, const struct perfdata_origin *b)
{
	if (!a->ncomms || !b->ncomms)
		return false;
	for (int i = 0; i < a->ncomms; i++)
		for (int j = 0; j < b->ncomms; j++)
			if (!strcmp(a->comms[i], b->comms[j]))
				return false;
	return true;
}

/* "a, b" of O's programs into BUF. */
static const char *programs(const struct perfdata_origin *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->ncomms && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", o->comms[i]);
	return buf;
}

/* Says how B differs from A, when it does. Returns whether it did. */
static bool differs(const struct origin *a, const struct origin *b)
{
	char pa[80], pb[80];

	if (a->pd.host[0] && b->pd.host[0] && strcmp(a->pd.host, b->pd.host)) {
		diag_warn("%s and %s were recorded on different hosts (%s, %s): their clocks are "
			  "unrelated, and the trace draws them at times that say nothing of when "
			  "one ran against the other", a->name, b->name, a->pd.host, b->pd.host);
		return true;
	}
	if (a->boot_id && b->boot_id && strcmp(a->boot_id, b->boot_id)) {
		diag_warn("%s and %s were recorded in different boots: their clocks (the time "
			  "since the boot) are unrelated, and the trace draws them at times that "
			  "say nothing of when one ran against the other", a->name, b->name);
		return true;
	}
	if (other_programs(&a->pd, &b->pd)) {
		diag_warn("%s and %s record different programs (%s; %s): the trace draws both, "
			  "each as its own processes, at their times on %s", a->name, b->name,
			  programs(&a->pd, pa, sizeof(pa)), programs(&b->pd, pb, sizeof(pb)),
			  a->boot_id && b->boot_id ? "the one clock of their boot" :
			  "their perf clocks (one clock only when recorded in one boot)");
		return true;
	}
	return false;
}

void conv_origins_check(const struct recording *recs, size_t nrecs)
{
	struct origin first, o;
	bool have = false;

	for (size_t i = 0; i < nrecs; i++) {
		const struct recording *r = &recs[i];

		for (size_t k = 0; k < r->nsnapshots; k++) {
			if (!r->snapshots[k].path ||
			    !read_origin(r, k, r->files ? r->snapshots[k].path : r->dir,
					 have ? &o : &first))
				continue;
			if (have && differs(&first, &o))
				return;
			have = true;
			if (!r->files)
				break;   /* a directory's snapshots: one recording */
		}
	}
}
