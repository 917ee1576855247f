/* SPDX-License-Identifier: MIT */
/* ipname: the process's mappings from a perf.data's records (see ipname.h). */
#include "ipname.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hash.h"
#include "perfdata.h"
#include "perfsym.h"
#include "srcline.h"

/* A mapping, as its record says. */
struct map_ent {
	int64_t pid;
	uint32_t name;           /* its file's name: an index of conv_maps.names */
	bool exec;
	uint64_t start, len, pgoff;
};

/* Where perf prints a call chain's frames of mappings of one name of one
 * process (executable or not): [LO, HI) of its map-relative addresses,
 * the overlapping mappings' merged. */
struct map_range {
	int64_t pid;
	uint32_t name;
	bool exec;
	uint64_t lo, hi;
};

struct conv_maps {
	struct map_ent *ents;    /* in the records' order */
	size_t n, cap;
	struct map_range *ranges;    /* sorted by pid, name, exec, lo; disjoint within one */
	size_t nranges;
	char **names;            /* each distinct file name once (owned) */
	size_t nnames, capnames;
	struct hash_index index; /* hash_bytes() of a name -> its index in NAMES */
	bool data;               /* some mapping is not executable */
	int err;                 /* the first failure of the read */
};

/* The index of NAME (LEN bytes) in M, or HASH_NONE. */
static uint32_t name_find(const struct conv_maps *m, const char *name, size_t len)
{
	size_t probe = 0;
	uint32_t i;

	while ((i = hash_index_next(&m->index, hash_bytes(name, len), &probe)) != HASH_NONE)
		if (strlen(m->names[i]) == len && !memcmp(m->names[i], name, len))
			return i;
	return HASH_NONE;
}

/* The index of NAME in M, added when new; HASH_NONE when out of memory. */
static uint32_t name_id(struct conv_maps *m, const char *name)
{
	uint32_t i = name_find(m, name, strlen(name));
	char **v;

	if (i != HASH_NONE)
		return i;
	if (!(v = array_grow(m->names, &m->capnames, m->nnames, sizeof(*v))))
		return HASH_NONE;
	m->names = v;
	if (!(v[m->nnames] = strdup(name)) ||
	    hash_index_add(&m->index, hash_bytes(name, strlen(name)), (uint32_t)m->nnames)) {
		free(v[m->nnames]);
		return HASH_NONE;
	}
	return (uint32_t)m->nnames++;
}

/* perfdata_mmaps()'s callback: keeps mapping R. */
static int keep(void *arg, const struct perfdata_mmap *r)
{
	struct conv_maps *m = arg;
	struct map_ent *e;
	uint32_t name;

	if (m->n == CONV_MAPS_MAX)
		return m->err = -EFBIG;
	if ((name = name_id(m, r->file)) == HASH_NONE ||
	    !(e = array_grow(m->ents, &m->cap, m->n, sizeof(*e))))
		return m->err = -ENOMEM;
	m->ents = e;
	m->ents[m->n++] = (struct map_ent){ r->pid, name, r->exec, r->start, r->len, r->pgoff };
	m->data |= !r->exec;
	return 0;
}

/* Whether perf maps the memory named NAME one to one, its addresses
 * printed as they are (tools/perf/util/map.c: is_anon_memory(),
 * is_no_dso_memory(), whose maps' map_ip is the identity). */
static bool identity_map(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "[stack", 6) ||
	       !strncmp(name, "/SYSV", 5) || !strcmp(name, "[heap]");
}

/* Orders ranges by pid, name, exec, lo. */
static int range_cmp(const void *pa, const void *pb)
{
	const struct map_range *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->exec != b->exec)
		return a->exec < b->exec ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Whether ranges A and B are of one pid, name and kind. */
static bool same_group(const struct map_range *a, const struct map_range *b)
{
	return a->pid == b->pid && a->name == b->name && a->exec == b->exec;
}

/* M's ranges: every mapping's, sorted and merged. Returns 0 or -ENOMEM. */
static int make_ranges(struct conv_maps *m)
{
	size_t k = 0;

	if (!m->data || !m->n)
		return 0;	/* no mapping that is not code: nothing to look up */
	if (!(m->ranges = malloc(m->n * sizeof(*m->ranges))))
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const struct map_ent *e = &m->ents[i];
		uint64_t lo = identity_map(m->names[e->name]) ? e->start : e->pgoff;

		m->ranges[i] = (struct map_range){ e->pid, e->name, e->exec, lo,
						   lo + e->len < lo ? UINT64_MAX : lo + e->len };
	}
	array_sort(m->ranges, m->n, sizeof(*m->ranges), range_cmp);
	for (size_t i = 0; i < m->n; i++) {
		if (k && same_group(&m->ranges[k - 1], &m->ranges[i]) &&
		    m->ranges[i].lo <= m->ranges[k - 1].hi) {
			if (m->ranges[i].hi > m->ranges[k - 1].hi)
				m->ranges[k - 1].hi = m->ranges[i].hi;
			continue;
		}
		m->ranges[k++] = m->ranges[i];
	}
	m->nranges = k;
	return 0;
}

int conv_maps_read(const char *perfdata, struct conv_maps **maps)
{
	struct conv_maps *m = calloc(1, sizeof(*m));
	int err;

	*maps = NULL;
	if (!m)
		return -ENOMEM;
	err = perfdata_mmaps(perfdata, keep, m);
	if (m->err)
		err = m->err;
	if (!err)
		err = make_ranges(m);
	if (err) {
		conv_maps_free(m);
		return err;
	}
	*maps = m;
	return 0;
}

void conv_maps_free(struct conv_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	hash_index_free(&m->index);
	free(m->ents);
	free(m->ranges);
	free(m);
}

/* Orders KEY (a range of one address, its LO) before, within (0) or after
 * range R: the ranges of one group are disjoint. */
static int holds_cmp(const void *pkey, const void *pr)
{
	const struct map_range *key = pkey, *r = pr;

	if (same_group(key, r) && key->lo >= r->lo && key->lo < r->hi)
		return 0;
	return range_cmp(key, r);
}

/* Whether one of M's ranges of (PID, NAME, EXEC) holds ADDR. */
static bool in_range(const struct conv_maps *m, int64_t pid, uint32_t name, bool exec,
		     uint64_t addr)
{
	const struct map_range key = { pid, name, exec, addr, addr };

	return array_search(&key, m->ranges, m->nranges, sizeof(key), holds_cmp) != NULL;
}

bool conv_maps_data(const struct conv_maps *m, int64_t pid, const char *dso, size_t len,
		    uint64_t addr)
{
	uint32_t name;

	if (!m || !m->nranges || (name = name_find(m, dso, len)) == HASH_NONE)
		return false;
	return in_range(m, pid, name, false, addr) && !in_range(m, pid, name, true, addr) &&
	       !(addr && in_range(m, pid, name, true, addr - 1));
}

/* perfdata_buildids()'s callback: the build id perf recorded for the file. */
struct buildid_of {
	const char *file;
	char hex[41];              /* the file's recorded build id, "" when none */
};

static int buildid(void *arg, const char *hex, const char *path)
{
	struct buildid_of *b = arg;

	if (!strcmp(path, b->file))
		snprintf(b->hex, sizeof(b->hex), "%s", hex);
	return 0;
}

int conv_ipname(const char *perfdata, int64_t pid, uint64_t ip, const struct srcline *sl,
		struct conv_ipname *out)
{
	struct buildid_of b = { out->dso, "" };
	const struct map_ent *found = NULL;
	struct conv_maps *m;
	struct perfsym_dso *syms;
	const struct perfsym *s;
	char err[160];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = conv_maps_read(perfdata, &m);
	if (rc < 0)
		return rc;
	/* the last executable mapping of the process that holds the address (a
	 * later mapping over it replaced the earlier) */
	for (size_t i = 0; i < m->n; i++) {
		const struct map_ent *e = &m->ents[i];

		if (e->pid == pid && e->exec && ip >= e->start && ip - e->start < e->len &&
		    strlen(m->names[e->name]) < sizeof(out->dso))
			found = e;
	}
	if (found) {
		snprintf(out->dso, sizeof(out->dso), "%s", m->names[found->name]);
		out->offset = ip - found->start + found->pgoff;
	}
	conv_maps_free(m);
	if (!found)
		return 0;
	if (out->dso[0] != '/')
		return 1;   /* [vdso], //anon, a perf map: no file of symbols here */
	perfdata_buildids(perfdata, buildid, &b, err, sizeof(err));
	syms = srcline_symbols(sl, out->dso, strlen(out->dso));
	if (!syms)
		return -ENOMEM;
	s = b.hex[0] && syms->build_id[0] && strcmp(b.hex, syms->build_id) ? NULL :
	    perfsym_lookup(syms, out->offset);
	if (s && strlen(s->name) < sizeof(out->sym)) {
		snprintf(out->sym, sizeof(out->sym), "%s", s->name);
		out->symoff = out->offset - s->start;
	}
	perfsym_free(syms);
	return 1;
}
