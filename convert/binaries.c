/* SPDX-License-Identifier: MIT */
/* binaries: the recorded binaries checked against the files now (see binaries.h). */
#include "binaries.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "perfdata.h"

void binaries_elf_id(Elf *elf, char *hex)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

	hex[0] = 0;
	for (ssize_t i = 0; i < n && i * 2 < BINARIES_ID_MAX; i++)
		sprintf(hex + 2 * i, "%02x", ((const unsigned char *)id)[i]);
}

/* The build id of the regular file PATH into HEX; false when it cannot be
 * read as an ELF file (gone, not a regular file). */
static bool file_id(const char *path, char *hex)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf *elf;
	bool ok;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok)
		binaries_elf_id(elf, hex);
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

/* Whether HEX matches the recorded ID (perf pads short ids with zeros). */
static bool same_id(const char *id, const char *hex)
{
	size_t n = strlen(hex);

	return n && !strncmp(id, hex, n) && strspn(id + n, "0") == strlen(id + n);
}

/* Whether the build-id cache CACHE holds the binary of ID (perf's layout:
 * .build-id/XX/REST). */
static bool cached(const char *cache, const char *id)
{
	char p[4096];
	size_t n = strlen(id);

	while (n > 2 && id[n - 1] == '0' && id[n - 2] == '0')
		n -= 2;   /* perf names a padded id by its own length */
	if (!cache || n < 3 ||
	    (size_t)snprintf(p, sizeof(p), "%s/.build-id/%.2s/%.*s", cache, id, (int)(n - 2),
			     id + 2) >= sizeof(p))
		return false;
	return !access(p, F_OK);
}

struct walk {
	struct binaries *b;
	const char *cache;
};

static int on_id(void *arg, const char *hex, const char *path)
{
	struct walk *w = arg;
	struct binaries *b = w->b;
	struct binary *e;
	char now[BINARIES_ID_MAX + 1], full[4096];
	bool there;

	if (path[0] != '/' || !hex[0])
		return 0;   /* [kernel.kallsyms], [vdso], //anon */
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->b[i].path, path))
			return 0;
	e = array_grow(b->b, &b->cap, b->n, sizeof(*b->b));
	if (!e)
		return -ENOMEM;
	b->b = e;
	e = &b->b[b->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path)))
		return -ENOMEM;
	snprintf(e->id, sizeof(e->id), "%s", hex);
	b->n++;
	snprintf(full, sizeof(full), "%s%s", b->symfs ? b->symfs : "", path);
	there = file_id(full, now);
	if ((there && same_id(hex, now)) || cached(w->cache, hex))
		return 0;
	e->changed = true;
	if (there)
		diag_warn("%s: changed since the recording (its build id is %s, the recording's "
			  "%s): perf names none of its frames; record with --keep-binaries to keep "
			  "the binaries in the recording, or give perf the binary as it was: "
			  "--perf-arg=--symfs=DIR", full, now[0] ? now : "none", hex);
	else
		diag_warn("%s: gone since the recording (build id %s): perf names none of its "
			  "frames; record with --keep-binaries to keep the binaries in the "
			  "recording, or give perf the binary as it was: --perf-arg=--symfs=DIR",
			  full, hex);
	return 0;
}

int binaries_check(struct binaries *b, const char *perfdata, const char *cache)
{
	struct walk w = { b, cache };
	char why[256];
	int err = perfdata_buildids(perfdata, on_id, &w, why, sizeof(why));

	return err == -ENOMEM ? err : err ? -EIO : 0;
}

bool binaries_changed(const struct binaries *b, const char *dso, size_t len)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (b->b[i].changed && strlen(b->b[i].path) == len && !memcmp(b->b[i].path, dso, len))
			return true;
	return false;
}

void binaries_free(struct binaries *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->b[i].path);
	free(b->b);
	b->b = NULL;
	b->n = b->cap = 0;
}
