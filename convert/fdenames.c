/* SPDX-License-Identifier: MIT */
/* fdenames: call chains' frames at their link-time addresses, a stripped
 * binary's named by their function (fdenames.h). */
#include "fdenames.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "fdetab.h"
#include "hash.h"
#include "srcline.h"

/* A PT_LOAD segment: the file's bytes [off, off + filesz) at link-time vaddr;
 * or a section of code: the file's bytes [off, off + filesz) (vaddr unused). */
struct load {
	uint64_t off, filesz, vaddr;
};

#define LOADS_MAX 16
#define CODE_MAX 32

struct fdenames_dso {
	char *path;                  /* as perf names it, owned */
	bool read;                   /* the file was looked at */
	bool named;                  /* T names its frames (no .symtab) */
	struct fdetab t;
	struct load load[LOADS_MAX]; /* its executable segments */
	size_t nload;
	struct load data[LOADS_MAX]; /* its other segments */
	size_t ndata;
	struct load code[CODE_MAX];  /* its sections of code (SHF_EXECINSTR) */
	size_t ncode;                /* 0: none known (no section headers, or
				      * more than CODE_MAX) */
	bool frames_read;            /* FRAMES read (fdenames_frame_at) */
	struct fdetab_frames frames; /* where a function's frame is set up, and not */
};

struct fdenames {
	struct fdenames_dso **dsos;  /* owned, each too */
	size_t n, cap;
	struct hash_index index;     /* hash_bytes() of a path -> dsos[] */
	const struct srcline *sl;    /* which file is each dso's (borrowed) */
};

struct fdenames *fdenames_new(const struct srcline *sl)
{
	struct fdenames *n = calloc(1, sizeof(*n));

	if (n)
		n->sl = sl;
	return n;
}

/* The entry of path DSO (LEN bytes), added when absent. NULL: out of memory. */
static struct fdenames_dso *entry(struct fdenames *n, const char *dso, size_t len)
{
	uint64_t h = hash_bytes(dso, len);
	size_t probe = 0;
	uint32_t k;
	struct fdenames_dso *d, **t;

	while ((k = hash_index_next(&n->index, h, &probe)) != HASH_NONE)
		if (!strncmp(n->dsos[k]->path, dso, len) && !n->dsos[k]->path[len])
			return n->dsos[k];
	t = array_grow(n->dsos, &n->cap, n->n, sizeof(*t));
	if (!t)
		return NULL;
	n->dsos = t;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strndup(dso, len)) || hash_index_add(&n->index, h, (uint32_t)n->n)) {
		if (d)
			free(d->path);
		free(d);
		return NULL;
	}
	n->dsos[n->n++] = d;
	return d;
}

/* Reads ELF's sections of code (allocated, executable, with bytes in the
 * file) into D->code; none when it has no section headers or more than
 * CODE_MAX of them (nothing said then). */
static void read_code(Elf *elf, struct fdenames_dso *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (d->ncode == CODE_MAX) {
			d->ncode = 0;
			return;
		}
		d->code[d->ncode++] = (struct load){ sh.sh_offset, sh.sh_size, sh.sh_addr };
	}
}

/* Opens D's file: the binary that ran, the file at its path or the copy
 * kept of it (srcline_open_binary()). Returns its fd with *ELF, or -1. */
static int open_dso(const struct fdenames *n, const struct fdenames_dso *d, Elf **elf)
{
	return d->path[0] == '/' ? srcline_open_binary(n->sl, d->path, strlen(d->path), elf) : -1;
}

/* Reads D's file: whether its frames are named, its segments, its table. */
static void read_dso(const struct fdenames *n, struct fdenames_dso *d, bool *nomem)
{
	size_t nph;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd, err;

	d->read = true;
	if ((fd = open_dso(n, d, &elf)) < 0)
		return;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph))
		goto out;
	for (size_t i = 0; i < nph && d->nload < LOADS_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_flags & PF_X)
			d->load[d->nload++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		else if (d->ndata < LOADS_MAX)
			d->data[d->ndata++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	read_code(elf, d);
	if (fdetab_has_symtab(elf))
		goto out;	/* perf names its functions: [unknown] is none */
	err = fdetab_read(elf, &d->t);
	if (err == -ENOMEM)
		*nomem = true;
	if (!err && d->t.capped)
		diag_warn("%s: its unwind table lists more functions than the %u read "
			  "(.eh_frame_hdr): frames in the rest stay [unknown]", d->path,
			  (unsigned)FDETAB_MAX);
	d->named = !err && d->nload;
out:
	if (!d->named)
		fdetab_free(&d->t);
	elf_end(elf);
	close(fd);
}

const struct fdenames_dso *fdenames_dso(struct fdenames *n, const char *dso, size_t len,
					bool *nomem)
{
	struct fdenames_dso *d;

	if (!n || !len || memchr(dso, 0, len))
		return NULL;
	if (!(d = entry(n, dso, len))) {
		*nomem = true;
		return NULL;
	}
	if (!d->read)
		read_dso(n, d, nomem);
	return d->nload ? d : NULL;
}

/* The index in L (N) of the one holding file offset OFF (at its end too,
 * when END), or N when none. */
static size_t holding(const struct load *l, size_t n, uint64_t off, bool end)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (off >= l[i].off && (off - l[i].off < l[i].filesz ||
					(end && off - l[i].off == l[i].filesz)))
			break;
	return i;
}

bool fdenames_place(const struct fdenames_dso *d, uint64_t off, uint64_t *vaddr, bool *data)
{
	size_t i = holding(d->load, d->nload, off, false);

	if (i == d->nload) {
		*data = holding(d->data, d->ndata, off, false) < d->ndata;
		return false;
	}
	/* a return address may be the end of a section whose last
	 * instruction is a call (to a function that never returns) */
	*data = d->ncode && holding(d->code, d->ncode, off, true) == d->ncode;
	*vaddr = off - d->load[i].off + d->load[i].vaddr;
	return true;
}

bool fdenames_lookup(const struct fdenames_dso *d, uint64_t vaddr, uint64_t *start)
{
	ptrdiff_t i;

	if (!d->named || (i = fdetab_find(&d->t, vaddr)) < 0)
		return false;
	*start = d->t.start[i];
	return true;
}

enum fdetab_frame fdenames_frame_at(struct fdenames *n, const struct fdenames_dso *cd,
				   uint64_t vaddr, bool *nomem)
{
	struct fdenames_dso *d = (struct fdenames_dso *)cd;	/* N's entry: its cache */
	Elf *elf = NULL;
	int fd;

	if (!d->frames_read) {
		d->frames_read = true;
		if ((fd = open_dso(n, d, &elf)) >= 0) {
			*nomem |= fdetab_read_frames(elf, &d->frames) == -ENOMEM;
			elf_end(elf);
			close(fd);
		}
	}
	return fdetab_frame_at(&d->frames, vaddr);
}

void fdenames_free(struct fdenames *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		fdetab_frames_free(&n->dsos[i]->frames);
		fdetab_free(&n->dsos[i]->t);
		free(n->dsos[i]->path);
		free(n->dsos[i]);
	}
	free(n->dsos);
	hash_index_free(&n->index);
	free(n);
}
