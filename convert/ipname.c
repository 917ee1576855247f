/* SPDX-License-Identifier: MIT */
/* ipname: an unsampled address named from a perf.data's mappings (see ipname.h). */
#include "ipname.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perfdata.h"
#include "perfsym.h"
#include "srcline.h"

struct find {
	int64_t pid;
	uint64_t ip;
	struct conv_ipname *out;
	bool found;
	char hex[41];              /* the file's recorded build id, "" when none */
};

/* perfdata_mmaps()'s callback: the last executable mapping of the process
 * that holds the address (a later mapping over it replaced the earlier). */
static int mapping(void *arg, const struct perfdata_mmap *m)
{
	struct find *f = arg;

	if ((int64_t)m->pid != f->pid || !m->exec || f->ip < m->start ||
	    f->ip - m->start >= m->len || strlen(m->file) >= sizeof(f->out->dso))
		return 0;
	snprintf(f->out->dso, sizeof(f->out->dso), "%s", m->file);
	f->out->offset = f->ip - m->start + m->pgoff;
	f->found = true;
	return 0;
}

/* perfdata_buildids()'s callback: the build id perf recorded for the file. */
static int buildid(void *arg, const char *hex, const char *path)
{
	struct find *f = arg;

	if (!strcmp(path, f->out->dso))
		snprintf(f->hex, sizeof(f->hex), "%s", hex);
	return 0;
}

int conv_ipname(const char *perfdata, int64_t pid, uint64_t ip, const struct srcline *sl,
		struct conv_ipname *out)
{
	struct find f = { .pid = pid, .ip = ip, .out = out };
	struct perfsym_dso *syms;
	const struct perfsym *s;
	char err[160];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = perfdata_mmaps(perfdata, mapping, &f);
	if (rc < 0)
		return rc;
	if (!f.found)
		return 0;
	if (out->dso[0] != '/')
		return 1;   /* [vdso], //anon, a perf map: no file of symbols here */
	perfdata_buildids(perfdata, buildid, &f, err, sizeof(err));
	syms = srcline_symbols(sl, out->dso, strlen(out->dso));
	if (!syms)
		return -ENOMEM;
	s = f.hex[0] && syms->build_id[0] && strcmp(f.hex, syms->build_id) ? NULL :
	    perfsym_lookup(syms, out->offset);
	if (s && strlen(s->name) < sizeof(out->sym)) {
		snprintf(out->sym, sizeof(out->sym), "%s", s->name);
		out->symoff = out->offset - s->start;
	}
	perfsym_free(syms);
	return 1;
}
