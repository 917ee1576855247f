/* SPDX-License-Identifier: MIT */
/* debuglink: the binaries' debuglink names checked before perf (see debuglink.h). */
#include "debuglink.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "inpath.h"
#include "pathtrust.h"
#include "perfdata.h"
#include "runas.h"

struct scan {
	const char *symfs;
	const struct runas_set *who;
	struct hash_index seen;  /* hash of a name -> its index in NAMES */
	char **names;            /* the binaries looked at (owned) */
	size_t n, cap;
	char *why;
	size_t size;
	int err;                 /* the first refusal or failure */
};

/* Whether NAME was looked at already; else keeps it. Returns 1, 0, or -ENOMEM. */
static int seen_before(struct scan *sc, const char *name)
{
	uint64_t key = hash_bytes(name, strlen(name));
	size_t probe = 0;
	uint32_t i;

	while ((i = hash_index_next(&sc->seen, key, &probe)) != HASH_NONE)
		if (!strcmp(sc->names[i], name))
			return 1;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? 2 * sc->cap : 64;
		char **v = realloc(sc->names, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sc->names = v;
		sc->cap = cap;
	}
	if (!(sc->names[sc->n] = strdup(name)) || hash_index_add(&sc->seen, key, (uint32_t)sc->n)) {
		free(sc->names[sc->n]);
		return -ENOMEM;
	}
	sc->n++;
	return 0;
}

/* The debuglink name of the ELF file open as FD into OUT (SIZE bytes); false
 * when it has none or is no ELF file. */
static bool debuglink_of(int fd, char *out, size_t size)
{
	Elf *elf;
	const char *name = NULL;
	GElf_Word crc;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);	/* never mapped: elfid.h */
	if (elf && elf_kind(elf) == ELF_K_ELF)
		name = dwelf_elf_gnu_debuglink(elf, &crc);
	if (name)
		snprintf(out, size, "%s", name);
	if (elf)
		elf_end(elf);
	return name != NULL;
}

/* perfdata_mmaps()'s callback: checks mapping M's binary (once). */
static int check_mapping(void *arg, const struct perfdata_mmap *m)
{
	struct scan *sc = arg;
	char path[PATH_MAX], link[PATH_MAX], why[256];
	struct stat st;
	int fd, r;

	if (!m->exec || m->file[0] != '/')	/* [vdso], //anon, [kernel.kallsyms]... */
		return 0;
	r = seen_before(sc, m->file);
	if (r)
		return r < 0 ? (sc->err = r) : 0;
	if ((size_t)snprintf(path, sizeof(path), "%s%s", sc->symfs ? sc->symfs : "", m->file) >=
	    sizeof(path))
		return 0;
	fd = runas_open(sc->who, AT_FDCWD, path, 0, why, sizeof(why));
	if (fd < 0)
		return 0;	/* perf finds no file either, or not this one */
	if (!fstat(fd, &st) && !pathtrust_uid_ours(st.st_uid) &&
	    debuglink_of(fd, link, sizeof(link)) && strchr(link, '/')) {
		snprintf(sc->why, sc->size, "the binary %s (uid %u's) names its debug file \"%s\" "
			 "(.gnu_debuglink), a path perf would open as root: not converted",
			 m->file, (unsigned)st.st_uid, link);	/* escaped where said (diag.h) */
		sc->err = -EPERM;
	}
	close(fd);
	return sc->err;
}

int debuglink_check(const char *perfdata, const char *symfs, const struct runas_set *who,
		    char *why, size_t size)
{
	struct scan sc = { .symfs = symfs, .who = who, .why = why, .size = size };
	int err = perfdata_mmaps(perfdata, check_mapping, &sc);

	if (sc.err)
		err = sc.err;
	else if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	for (size_t i = 0; i < sc.n; i++)
		free(sc.names[i]);
	free(sc.names);
	hash_index_free(&sc.seen);
	/* a perf.data that cannot be read: said where it is read (tmpview.h, perf) */
	return err == -EPERM || err == -ENOMEM ? err : 0;
}
