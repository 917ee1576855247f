/* SPDX-License-Identifier: MIT */
/* dwalt: dwz's supplementary DWARF file found by the tools (see dwalt.h). */
#include "dwalt.h"
#include "perfdata.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "inpath.h"
#include "runas.h"
#include "zdwarf.h"

#define ALT_ID_MAX 64	/* bytes of a build id (GNU's are 20; at most a SHA-512) */

/* What a .gnu_debugaltlink says: a NUL-terminated name, then the build id. */
struct altlink {
	char name[PATH_MAX];
	unsigned char id[ALT_ID_MAX];
	size_t idlen;
};

/* Reads ELF's .gnu_debugaltlink into *L and hides the section from libdw
 * (SHT_NOBITS). Returns true when ELF has one that says a name and an id. */
static bool take_altlink(Elf *elf, struct altlink *l)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		const char *nul;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gnu_debugaltlink"))
			continue;
		data = elf_getdata(scn, NULL);
		nul = data && data->d_buf ? memchr(data->d_buf, '\0', data->d_size) : NULL;
		if (nul && !found) {
			size_t n = (size_t)(nul - (const char *)data->d_buf);

			l->idlen = data->d_size - n - 1;
			found = n > 0 && n < sizeof(l->name) && l->idlen > 0 && l->idlen <= ALT_ID_MAX;
			if (found) {
				memcpy(l->name, data->d_buf, n + 1);
				memcpy(l->id, nul + 1, l->idlen);
			}
		}
		sh.sh_type = SHT_NOBITS;
		(void)gelf_update_shdr(scn, &sh);	/* libdw reads the headers as edited */
	}
	return found;
}

/* Opens the supplementary file PATH (relative to DIRFD) into *ALT when it
 * is L's. Returns 0; -ENOENT when there is nothing at PATH, or nothing a
 * user of WHO may open (as for them: what is there is none of theirs to
 * know of); or another negative errno with WHY saying why it is not taken. */
static int open_alt(const struct runas_set *who, int dirfd, const char *path,
		    const struct altlink *l, struct dwalt *alt, char *why, size_t size)
{
	char err[200] = "";
	const void *id;
	int fd = runas_open(who, dirfd, path, 0, err, sizeof(err));
	ssize_t n;

	if (fd == -ENOENT || fd == -EPERM)
		return -ENOENT;
	if (fd >= 0) {
		alt->fd = fd;
		alt->elf = elf_begin(fd, ELF_C_READ, NULL);	/* never mapped: elfid.h */
		if (!alt->elf || elf_kind(alt->elf) != ELF_K_ELF)
			snprintf(err, sizeof(err), "not an ELF file");
		else if ((n = dwelf_elf_gnu_build_id(alt->elf, &id)) != (ssize_t)l->idlen ||
			 memcmp(id, l->id, l->idlen))
			snprintf(err, sizeof(err), "another build id than the binary names");
		else if (zdwarf_check(alt->elf, err, sizeof(err)))
			;	/* ERR says which section */
		else if (!(alt->dw = dwarf_begin_elf(alt->elf, DWARF_C_READ, NULL)))
			snprintf(err, sizeof(err), "libdw cannot read it: %s", dwarf_errmsg(-1));
		else
			return 0;
	}
	snprintf(why, size, "its supplementary DWARF file (.gnu_debugaltlink) %s: %s", path, err);
	return fd < 0 ? fd : -EPERM;
}

/* Finds L's file (dwalt.h: the build-id directory, then its name, relative
 * to the directory of PATH in DIRFD) into *ALT. Returns 0 (found, or at
 * neither place) or a negative errno with WHY. */
static int find_alt(const struct runas_set *who, int dirfd, const char *path,
		    const struct altlink *l, struct dwalt *alt, char *why, size_t size)
{
	char p[PATH_MAX + sizeof(DWALT_DEBUG_DIR) + 2 * ALT_ID_MAX + 8], hex[2 * ALT_ID_MAX + 1];
	const char *slash = strrchr(path, '/');
	int err;

	perfdata_hex(l->id, l->idlen, hex);
	err = dwalt_debug_file(hex, p, sizeof(p)) ? open_alt(who, AT_FDCWD, p, l, alt, why, size)
						  : -ENOENT;	/* a build id of one byte */
	if (err != -ENOENT)
		return err;
	if (l->name[0] == '/')
		slash = NULL;	/* the name as it is */
	else if (slash && (size_t)snprintf(p, sizeof(p), "%.*s/%s", (int)(slash - path), path,
					   l->name) >= sizeof(p))
		return 0;	/* no such name */
	err = open_alt(who, dirfd, slash ? p : l->name, l, alt, why, size);
	return err == -ENOENT ? 0 : err;
}

bool dwalt_debug_file(const char *hex, char *path, size_t size)
{
	if (strlen(hex) < 4)
		return false;
	snprintf(path, size, DWALT_DEBUG_DIR "%.2s/%s.debug", hex, hex + 2);
	return true;
}

Dwarf *dwalt_begin(Elf *elf, int dirfd, const char *path, const struct runas_set *who,
		   struct dwalt *alt, char *why, size_t size)
{
	struct altlink l;
	bool linked = take_altlink(elf, &l);
	Dwarf *dw;

	*alt = (struct dwalt){ .fd = -1 };
	why[0] = '\0';
	if (linked && find_alt(who, dirfd, path, &l, alt, why, size)) {
		dwalt_end(NULL, alt);
		return NULL;
	}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (dw && alt->dw)
		dwarf_setalt(dw, alt->dw);
	if (!dw)
		dwalt_end(NULL, alt);
	return dw;
}

void dwalt_end(Dwarf *dw, struct dwalt *alt)
{
	dwarf_end(dw);	/* first: it refers to ALT's (dwarf_setalt()) */
	dwarf_end(alt->dw);
	if (alt->elf)
		elf_end(alt->elf);
	if (alt->fd >= 0)
		close(alt->fd);
	*alt = (struct dwalt){ .fd = -1 };
}
