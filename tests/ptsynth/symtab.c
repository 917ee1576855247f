/* SPDX-License-Identifier: MIT */
/* symtab: perf-compatible function naming of a traced run (see symtab.h). */
#include "symtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ps_symtab_load(struct ps_symtab *st, const struct ps_run *run)
{
	size_t i, j;
	struct ps_dso *dso;

	memset(st, 0, sizeof(*st));
	st->maps = calloc(run->nmaps ? run->nmaps : 1, sizeof(*st->maps));
	st->dsos = calloc(run->nmaps ? run->nmaps : 1, sizeof(*st->dsos));
	if (!st->maps || !st->dsos)
		return -ENOMEM;
	for (i = 0; i < run->nmaps; i++) {
		const struct ps_map *m = &run->maps[i];

		for (j = 0, dso = NULL; j < st->ndsos && !dso; j++)
			if (!strcmp(st->dsos[j]->path, m->path))
				dso = st->dsos[j];
		if (!dso) {
			bool vdso = !strcmp(m->path, "[vdso]");

			dso = calloc(1, sizeof(*dso));
			if (!dso || !(dso->path = strdup(m->path)) ||
			    !(dso->syms = perfsym_load(m->path, vdso ? run->vdso : NULL,
							vdso ? run->vdso_len : 0, NULL))) {
				if (dso)
					free(dso->path);
				free(dso);
				return -ENOMEM;
			}
			st->dsos[st->ndsos++] = dso;
		}
		st->maps[st->nmaps].start = m->start;
		st->maps[st->nmaps].end = m->end;
		st->maps[st->nmaps].pgoff = m->pgoff;
		st->maps[st->nmaps].dso = dso;
		st->nmaps++;
	}
	return 0;
}

const char *ps_symtab_lookup(const struct ps_symtab *st, uint64_t ip, uint64_t *start,
			     const char **dso_path)
{
	const struct ps_symmap *m = NULL;
	const struct perfsym *s;
	uint64_t off;

	*start = ip;
	for (size_t i = 0; i < st->nmaps && !m; i++)
		if (ip >= st->maps[i].start && ip < st->maps[i].end)
			m = &st->maps[i];
	if (dso_path)
		*dso_path = m ? m->dso->path : NULL;
	if (!m)
		return "[unknown]";
	off = ip - m->start + m->pgoff;
	s = perfsym_lookup(m->dso->syms, off);
	if (!s)
		return "[unknown]";
	*start = ip - (off - s->start);
	return s->name;
}

void ps_symtab_free(struct ps_symtab *st)
{
	for (size_t i = 0; i < st->ndsos; i++) {
		perfsym_free(st->dsos[i]->syms);
		free(st->dsos[i]->path);
		free(st->dsos[i]);
	}
	free(st->dsos);
	free(st->maps);
	memset(st, 0, sizeof(*st));
}
