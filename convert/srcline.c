/* SPDX-License-Identifier: MIT */
/*
 * srcline: source lines of function entries (see srcline.h). Binaries are
 * kept open (libelf, libdw) until srcline_free: the symbol names and file
 * names handed out point into their data. Per binary: a hash table of its
 * function symbols (name -> address) and one of the addresses looked up.
 */
#include "srcline.h"
#include "perfmap.h"
#include "zdwarf.h"
#include "dwalt.h"
#include "elfid.h"

#include "array.h"
#include "binaries.h"
#include "demangle.h"
#include "diag.h"
#include "hash.h"
#include "inpath.h"
#include "perfdata.h"
#include "perfsym.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* perf prints C++ and Rust names demangled, the symbol tables hold them
 * mangled: libiberty's demangler, perf's own (C++, Rust legacy and v0;
 * libstdc++'s __cxa_demangle reads no v0 and keeps the legacy hash). */
#include <libiberty/demangle.h>

#define BUILDID_MAX BINARIES_ID_MAX   /* hex digits of the longest build id kept */

/* A function symbol of a binary. */
struct sl_sym {
	const char *name;       /* in the ELF's string table, or demangled */
	char *demangled;        /* NAME when demangled (perf's form, or the whole
				 * signature); owned, or NULL */
	const char *signature;  /* of a name in perf's form: the whole demangled
				 * name, with its parameter list (another entry's
				 * NAME), or a Rust name with its hash; NULL for a
				 * name not demangled */
	bool hashed;            /* SIGNATURE is a Rust name with its hash: one
				 * function's alone, compared whole */
	const char *file;       /* a local symbol's source file (its STT_FILE's
				 * name, in the string table), or NULL */
	char *scoped;           /* "NAME [FILE]" when several symbols of a name
				 * not demangled are named apart (srcline_signature);
				 * owned, or NULL */
	uint64_t addr;          /* st_value */
};

/* A looked-up address: its line, or none (file NULL). */
struct sl_addr {
	uint64_t addr;
	const char *file;       /* owned by the binary's Dwarf, or joined */
	char *joined;           /* the CU's directory + a relative file name; owned */
	unsigned line;
};

/* What a dso path turned out to be: a binary with a line table (OK), one
 * without (NODEBUG), no file to read (MISSING: not found, or its build id
 * changed), or code that has no binary at all (NOFILE: a perf map of JIT
 * code, anonymous or memfd memory, a file that is not ELF). */
enum dso_state { DSO_OK, DSO_MISSING, DSO_NODEBUG, DSO_NOFILE, DSO_NOMEM };

struct sl_dso {
	struct sl_dso *next;
	const struct srcline *owner;  /* its symfs and directory */
	char *path;             /* as perf printed it; owned */
	size_t len;
	enum dso_state state;
	int fd, debug_fd;
	Elf *elf, *debug_elf;
	Elf *dwarf_elf;         /* elf or debug_elf: the one with the line table */
	Dwarf *dw;              /* of dwarf_elf, opened at the first lookup */
	struct dwalt alt;       /* dw's supplementary file (dwz), or none */
	bool dw_failed;         /* libdw could not read it */
	bool stale;             /* a relative name of an earlier directory */
	bool syms_read;         /* dso_syms() read the symbols below */
	struct hash_index sym_index;   /* hash_bytes() of a name -> syms[] */
	struct sl_sym *syms;
	size_t capsyms, nsyms;
	struct hash_index addr_index;  /* an address -> addrs[] */
	struct sl_addr *addrs;
	size_t naddrs, capaddrs;
};

/* A build id a perf.data recorded for a path. */
struct sl_buildid {
	struct sl_buildid *next;
	char hex[BUILDID_MAX + 1];
	char path[];
};

struct srcline {
	char *symfs;            /* "" for none */
	int dirfd;              /* what relative names are of (srcline_set_dir), or -1 */
	struct sl_dso *dsos;
	struct sl_buildid *buildids;
	bool unchecked;         /* a perf.data's build ids could not be read: no lines */
	const char *caches[SRCLINE_CACHES_MAX];  /* the recordings' kept binaries
						  * (srcline_add_cache), borrowed */
	size_t ncaches;
	bool no_lines;          /* srcline_lines_off(): symbols only */
	const struct runas_set *who;  /* whom each file read must be open to
				       * (srcline_set_users()), borrowed; NULL: none */
	struct srcline_stats stats;
};

struct srcline *srcline_new(const char *symfs)
{
	struct srcline *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->symfs = strdup(symfs ? symfs : "");
	if (!s->symfs) {
		free(s);
		return NULL;
	}
	s->dirfd = -1;
	elf_version(EV_CURRENT);
	return s;
}

static bool is_perf_data(const char *path)
{
	char magic[8], why[8];
	int fd = strcmp(path, "-") ? inpath_open(AT_FDCWD, path, 0, why, sizeof(why)) : -1;
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == sizeof(magic) && !memcmp(magic, "PERFILE", 7);
	close(fd);
	return yes;
}

/* perfdata_buildids()'s callback: records HEX for PATH. */
static int add_buildid(void *arg, const char *hex, const char *path)
{
	struct srcline *s = arg;
	struct sl_buildid *b;

	if (path[0] != '/')
		return 0;	/* [kernel.kallsyms], [vdso]: never looked up */
	for (b = s->buildids; b; b = b->next)
		if (!strcmp(b->path, path) && !strncmp(b->hex, hex, BUILDID_MAX))
			return 0;	/* an MMAP2 of each of its segments */
	b = malloc(sizeof(*b) + strlen(path) + 1);
	if (!b)
		return -ENOMEM;
	snprintf(b->hex, sizeof(b->hex), "%s", hex);
	strcpy(b->path, path);
	b->next = s->buildids;
	s->buildids = b;
	return 0;
}

void srcline_set_users(struct srcline *s, const struct runas_set *who)
{
	s->who = who;
}

int srcline_add_buildid(struct srcline *s, const char *path, const char *hex)
{
	return add_buildid(s, hex, path);
}

int srcline_read_buildids(struct srcline *s, const char *path, char *errbuf, size_t errlen)
{
	int err;

	if (!is_perf_data(path))
		return 0;
	err = perfdata_buildids(path, add_buildid, s, errbuf, errlen);
	if (err && err != -ENOMEM) {
		s->unchecked = true;
		return -EIO;
	}
	return err;
}

/* Opens FULL (relative: in DIRFD) when each of S's users may open it
 * (runas_open()): its fd, with *ELF set (read, never mapped: elfid.h;
 * begin_lines() edits its section headers in memory); -1 with *ELF NULL when it cannot be opened;
 * -2 with *ELF NULL when it is a file but not ELF. */
static int open_elf_at(const struct srcline *s, int dirfd, const char *full, Elf **elf)
{
	char why[160];
	int fd;

	*elf = NULL;
	/* a FIFO is no binary */
	fd = runas_open(s->who, dirfd, full, 0, why, sizeof(why));
	if (fd < 0)
		return -1;
	*elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		*elf = NULL;
		close(fd);
		return -2;
	}
	return fd;
}

/* Opens PATH under the symfs, or a relative PATH in S->dirfd, as
 * open_elf_at(). */
static int open_elf(const struct srcline *s, const char *path, Elf **elf)
{
	char full[4096];
	bool relative = path[0] != '/';

	*elf = NULL;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", relative ? "" : s->symfs, path) >=
	    sizeof(full))
		return -1;
	return open_elf_at(s, relative ? s->dirfd : AT_FDCWD, full, elf);
}

/* Opens the copy of the binary PATH a recording kept (S->caches: perf's
 * build-id cache layout) under a build id recorded for PATH; one whose own
 * build id is not that one is not taken. Returns its fd with *ELF set and
 * its id in HEX, or -1 with *ELF NULL when there is none. */
static int open_kept(const struct srcline *s, const char *path, Elf **elf, char *hex)
{
	*elf = NULL;
	for (const struct sl_buildid *b = s->buildids; b; b = b->next) {
		if (strcmp(b->path, path))
			continue;
		for (size_t i = 0; i < s->ncaches; i++) {
			char p[4096];
			int fd;

			if (!binaries_cache_path(s->caches[i], b->hex, "elf", p, sizeof(p)) ||
			    (fd = open_elf_at(s, AT_FDCWD, p, elf)) < 0)
				continue;
			elfid_hex(*elf, hex, BUILDID_MAX + 1);
			if (hex[0] && perfdata_same_buildid(b->hex, hex))
				return fd;
			elf_end(*elf);
			*elf = NULL;
			close(fd);
		}
	}
	return -1;
}

bool srcline_no_binary(const char *path, size_t len)
{
	static const char *const prefixes[] = { "//anon", "/dev/zero", "/anon_hugepage", "/memfd:" };

	if (memchr(path, '\0', len))	/* a name cut by a NUL: open() would take its start */
		return true;
	if (path[0] != '/')
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return true;
	return perfmap_pid(path, len) > 0;
}

/* srcline_no_binary(), but a relative name (the ELF files perf inject --jit
 * wrote, "./jitted-PID-N.so") is one when S has a directory for it
 * (srcline_set_dir()). */
static bool no_binary_name(const struct srcline *s, const char *path, size_t len)
{
	if (path[0] != '/' && !memchr(path, '\0', len))
		return s->dirfd < 0;
	return srcline_no_binary(path, len);
}

/* Does the binary's build id HEX match what the perf.data recorded for
 * PATH (perf pads short ids with zeros)? True when nothing was recorded. */
static bool buildid_matches(const struct srcline *s, const char *path, const char *hex)
{
	for (const struct sl_buildid *b = s->buildids; b; b = b->next) {
		size_t n = strlen(hex);

		if (strcmp(b->path, path))
			continue;
		/* a binary changed since: binaries.c says so, once */
		if (strncmp(b->hex, hex, n) || strspn(b->hex + n, "0") != strlen(b->hex + n))
			return false;
	}
	return true;
}

/* Where demangled name D's parameter list starts: the '(' of its last
 * top-level "(...)"; NULL when it has none. */
static const char *param_list(const char *d)
{
	const char *close = strrchr(d, ')'), *p;
	int depth = 0;

	if (!close)
		return NULL;
	for (p = close; p >= d; p--) {
		depth += (*p == ')') - (*p == '(');
		if (depth == 0)
			break;
	}
	return p > d ? p : NULL;
}

/*
 * Cuts demangled name D down to perf's form (libiberty without
 * DMGL_PARAMS, as `c++filt -p` prints; a Rust name has no parameters and
 * no hash already): without its parameter list (the
 * last top-level "(...)" and what follows, " const"...) and, for a template
 * function, without its return type ("void foo<int>(int)" -> "foo<int>").
 */
static void perf_demangled_form(char *d)
{
	char *p = (char *)param_list(d), *space = NULL;
	int depth = 0;

	if (!p)
		return;
	*p = 0;
	for (p = d; *p; p++) {
		depth += (*p == '<' || *p == '(') - (*p == '>' || *p == ')');
		if (*p == ' ' && depth == 0 && !(p - d >= 8 && !strncmp(p - 8, "operator", 8)))
			space = p;
	}
	if (space && depth == 0)
		memmove(d, space + 1, strlen(space + 1) + 1);
}

/* Adds symbol Y (its NAME at ADDR; DEMANGLED, owned or NULL, is NAME when
 * it was demangled; SIGNATURE, HASHED, FILE: sl_sym) to D's symbols.
 * Returns the entry's name (an earlier entry's when .symtab and .dynsym
 * both have it), or NULL on out-of-memory (DEMANGLED then freed). */
static const char *add_sym(struct sl_dso *d, struct sl_sym y0)
{
	const char *name = y0.name;
	char *demangled = y0.demangled;
	uint64_t addr = y0.addr, key = hash_bytes(name, strlen(name));
	struct sl_sym *y;
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&d->sym_index, key, &probe)) != HASH_NONE)
		if (d->syms[k].addr == addr && !strcmp(d->syms[k].name, name)) {
			free(demangled);
			return d->syms[k].name;	/* .symtab and .dynsym both have it */
		}
	y = array_grow(d->syms, &d->capsyms, d->nsyms, sizeof(*y));
	if (y)
		d->syms = y;
	if (!y || hash_index_add(&d->sym_index, key, (uint32_t)d->nsyms)) {
		free(demangled);
		return NULL;
	}
	d->syms[d->nsyms++] = y0;
	return name;
}

/* Adds the Rust symbol MANGLED at ADDR to D's symbols under its demangled
 * names: perf's (PLAIN, owned: "main::crunch"), and with its hash, which
 * tells the instances of a generic function apart ("main::crunch::h0123...",
 * legacy; "main[5f3a]::f" v0: demangle_hashed()). Returns 0, or -1 on
 * out-of-memory. */
static int add_rust(struct sl_dso *d, const char *mangled, char *plain, uint64_t addr)
{
	char buf[1024], *hashed;
	const char *sig;

	if (!demangle_hashed(mangled, buf, sizeof(buf)))
		return add_sym(d, (struct sl_sym){ .name = plain, .demangled = plain,
						   .addr = addr }) ? 0 : -1;
	if (!(hashed = strdup(buf)) ||
	    !(sig = add_sym(d, (struct sl_sym){ .name = hashed, .demangled = hashed, .addr = addr }))) {
		free(plain);
		return -1;
	}
	return add_sym(d, (struct sl_sym){ .name = plain, .demangled = plain, .signature = sig,
					   .hashed = true, .addr = addr }) ? 0 : -1;
}

/* Is MANGLED a Rust legacy symbol: an Itanium nested name whose last
 * part is its hash, "17h" and 16 hex digits ("_ZN4main6crunch17h...E")? */
static bool rust_legacy(const char *mangled)
{
	size_t n = strlen(mangled);

	return n > 24 && !strncmp(mangled, "_ZN", 3) && mangled[n - 1] == 'E' &&
	       !strncmp(mangled + n - 20, "17h", 3) &&
	       strspn(mangled + n - 17, "0123456789abcdef") == 16;
}

/* Adds the C++ or Rust symbol MANGLED at ADDR to D's symbols under its
 * demangled names: perf's form, and the whole signature when it differs
 * (an overload's: "app::load(int)"; a Rust function's: add_rust()).
 * Returns 0, or -1 on out-of-memory. */
static int add_demangled(struct sl_dso *d, const char *mangled, uint64_t addr)
{
	char *full = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI), *base;
	const char *sig = NULL;

	if (!full)
		return 0;
	if (mangled[1] == 'R' || rust_legacy(mangled))
		return add_rust(d, mangled, full, addr);	/* no parameter list */
	base = strdup(full);
	if (!base) {
		free(full);
		return -1;
	}
	perf_demangled_form(base);
	if (!strncmp(full, "transaction clone for ", 22) ||
	    !strncmp(full, "non-transaction clone for ", 26)) {
		free(full);	/* a copy of a function (-fgnu-tm), no overload of it */
		return add_sym(d, (struct sl_sym){ .name = base, .demangled = base,
						   .addr = addr }) ? 0 : -1;
	}
	if (strcmp(full, base) &&
	    !(sig = add_sym(d, (struct sl_sym){ .name = full, .demangled = full, .addr = addr }))) {
		free(base);
		return -1;
	}
	if (!sig)
		free(full);
	return add_sym(d, (struct sl_sym){ .name = base, .demangled = base, .signature = sig,
					   .addr = addr }) ? 0 : -1;
}

/* Calls FN(NAME, ADDRESS, FILE, ARG) for each defined, named function
 * symbol of ELF's symbol tables (.symtab and .dynsym) until FN returns
 * nonzero; FILE is a local symbol's source file (the STT_FILE symbol
 * before it, in the string table), else NULL. Returns that, or 0. */
static int each_func_sym(Elf *elf, int (*fn)(const char *, uint64_t, const char *, void *),
			 void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		const char *file = NULL;

		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int r;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (GELF_ST_TYPE(sym.st_info) == STT_FILE)
				file = name && *name ? name : NULL;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
			    !name || !*name)
				continue;
			if ((r = fn(name, sym.st_value,
				    GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL, arg)))
				return r;
		}
	}
	return 0;
}

/* each_func_sym()'s callback: adds NAME at ADDR of FILE to dso ARG's table. */
static int add_func_sym(const char *name, uint64_t addr, const char *file, void *arg)
{
	struct sl_dso *d = arg;

	if (!add_sym(d, (struct sl_sym){ .name = name, .file = file, .addr = addr }) ||
	    ((!strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2)) && add_demangled(d, name, addr)))
		return -1;
	return 0;
}

/* Adds the defined function symbols of ELF's symbol tables to D's table.
 * Returns 0, or -1 on out-of-memory. */
static int read_syms(struct sl_dso *d, Elf *elf)
{
	return each_func_sym(elf, add_func_sym, d);
}

/* each_func_sym()'s callback: 1 for a C++ or Rust function, or a local
 * one of a source file. */
static int named_alike_sym(const char *name, uint64_t addr, const char *file, void *arg)
{
	(void)addr, (void)arg;
	return file || !strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2);
}

/* May ELF define functions perf names alike: C++ or Rust functions ("_Z"
 * or "_R" symbols: overloads, generic instances), or local functions (C
 * static functions of one name in two files)? Read without allocating: a
 * stripped binary's symbols are read only for its lines. */
static bool has_named_alike(Elf *elf)
{
	return each_func_sym(elf, named_alike_sym, NULL) == 1;
}

/* Does ELF hold a DWARF line table (not an empty NOBITS stub)? */
static bool has_lines(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line")))
			return true;
	}
	return false;
}

/* The binary PATH as recorded, open: the file at PATH (under the symfs;
 * relative: in S->dirfd) when its build id is the recorded one (or none was
 * recorded), else the copy the recording kept (open_kept()). Returns its fd
 * with *ELF set and its build id in HEX (BUILDID_MAX + 1 bytes); -1 when
 * there is none (gone, changed with no copy); -2 when the file is not ELF
 * (and no copy was kept). */
static int open_binary(const struct srcline *s, const char *path, Elf **elf, char *hex)
{
	int fd = open_elf(s, path, elf), kept;

	hex[0] = 0;
	if (fd >= 0) {
		elfid_hex(*elf, hex, BUILDID_MAX + 1);
		if (buildid_matches(s, path, hex))
			return fd;
		elf_end(*elf);
		*elf = NULL;
		close(fd);
		fd = -1;
	}
	/* changed or gone since the recording: the copy it kept, if any */
	kept = open_kept(s, path, elf, hex);
	return kept >= 0 ? kept : fd;
}

int srcline_open_binary(const struct srcline *s, const char *dso, size_t len, Elf **elf)
{
	char hex[BUILDID_MAX + 1], *path;
	int fd;

	*elf = NULL;
	if (!s || s->unchecked || no_binary_name(s, dso, len) || !(path = strndup(dso, len)))
		return -1;
	fd = open_binary(s, path, elf, hex);
	free(path);
	return fd;
}

struct perfsym_dso *srcline_symbols(const struct srcline *s, const char *dso, size_t len)
{
	Elf *elf;
	int fd = srcline_open_binary(s, dso, len, &elf);
	struct perfsym_dso *d = perfsym_load_elf(fd >= 0 ? elf : NULL, s ? s->who : NULL);

	if (fd >= 0) {
		elf_end(elf);
		close(fd);
	}
	return d;
}

/* Opens D's separate debug file by its build id HEX, if there is one. */
static void open_debug_file(const struct srcline *s, struct sl_dso *d, const char *hex)
{
	char path[sizeof(DWALT_DEBUG_DIR) + BUILDID_MAX + 16];

	if (!dwalt_debug_file(hex, path, sizeof(path)))
		return;
	d->debug_fd = open_elf(s, path, &d->debug_elf);
	if (d->debug_fd < 0)
		d->debug_fd = -1;
}

/* Opens D's binary, checks its build id and finds its line table (in it or in its debug file). The DWARF itself
 * is read at the first line looked up (a large one takes a while: libc's,
 * 70 ms). */
static void open_dso(struct srcline *s, struct sl_dso *d)
{
	char hex[BUILDID_MAX + 1];

	d->state = DSO_MISSING;
	d->debug_fd = -1;
	if (no_binary_name(s, d->path, d->len)) {
		d->fd = -1;
		d->state = DSO_NOFILE;
		return;
	}
	d->fd = -1;
	if (s->unchecked)
		return;
	d->fd = open_binary(s, d->path, &d->elf, hex);
	if (d->fd == -2)
		d->state = DSO_NOFILE;
	if (d->fd < 0)
		return;
	if (has_lines(d->elf)) {
		d->dwarf_elf = d->elf;
	} else {
		open_debug_file(s, d, hex);
		if (d->debug_elf && has_lines(d->debug_elf))
			d->dwarf_elf = d->debug_elf;
	}
	d->state = d->dwarf_elf ? DSO_OK : DSO_NODEBUG;
}

/* Reads D's symbols (opened: DSO_OK or DSO_NODEBUG) the first time: for
 * its lines (LINES), or to name overloads and generic instances, which
 * only a binary with C++ or Rust functions has. Returns false when D has none to read, or out of memory
 * (D's state then DSO_NOMEM). */
static bool dso_syms(struct sl_dso *d, bool lines)
{
	if (d->syms_read)
		return true;
	if (!lines && !has_named_alike(d->elf) &&
	    !(d->debug_elf && has_named_alike(d->debug_elf)))
		return false;
	d->syms_read = true;
	if (read_syms(d, d->elf) || (d->debug_elf && read_syms(d, d->debug_elf))) {
		d->state = DSO_NOMEM;
		return false;
	}
	return true;
}

static struct sl_dso *get_dso(struct srcline *s, const char *path, size_t len)
{
	struct sl_dso *d;

	for (d = s->dsos; d; d = d->next)
		if (d->len == len && !memcmp(d->path, path, len) && !d->stale)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = malloc(len + 1))) {
		free(d);
		return NULL;
	}
	/* all LEN bytes, a NUL among them too (a binary stream's name): the
	 * name is compared by them (no_binary_name: it names no file) */
	memcpy(d->path, path, len);
	d->path[len] = '\0';
	d->len = len;
	d->owner = s;
	d->alt.fd = -1;
	d->next = s->dsos;
	s->dsos = d;
	open_dso(s, d);
	return d;
}

void srcline_lines_off(struct srcline *s)
{
	s->no_lines = true;
}

void srcline_add_cache(struct srcline *s, const char *cache)
{
	if (!cache || s->ncaches == SRCLINE_CACHES_MAX)
		return;
	for (size_t i = 0; i < s->ncaches; i++)
		if (!strcmp(s->caches[i], cache))
			return;
	s->caches[s->ncaches++] = cache;
}

void srcline_set_dir(struct srcline *s, int dirfd)
{
	for (struct sl_dso *d = s->dsos; d; d = d->next)
		if (d->path[0] != '/')
			d->stale = true;
	s->dirfd = dirfd;
}

/* What find_sym() found. */
enum sym_found { SYM_NONE, SYM_ONE, SYM_MISPLACED, SYM_AMBIGUOUS };

/* The symbol NAME (LEN bytes) of D that agrees with START (see
 * srcline_lookup) in *ADDR. */
static enum sym_found find_sym(const struct sl_dso *d, const char *name, size_t len,
			       uint64_t start, uint64_t *addr)
{
	enum sym_found found = SYM_NONE;
	uint64_t key = hash_bytes(name, len);
	size_t probe = 0;
	uint32_t k;

	while ((k = hash_index_next(&d->sym_index, key, &probe)) != HASH_NONE) {
		const struct sl_sym *y = &d->syms[k];

		if (strncmp(y->name, name, len) || y->name[len])
			continue;
		if (start && (start - y->addr) % SRCLINE_PAGE) {
			if (found == SYM_NONE)
				found = SYM_MISPLACED;
			continue;
		}
		if (found == SYM_ONE)
			return SYM_AMBIGUOUS;
		found = SYM_ONE;
		*addr = y->addr;
	}
	return found;
}

/* What tells SIG's overload from the others of its name: its parameter
 * list and qualifiers ("(int) const"), without a clone's suffix (" [clone
 * .cold]": a part of the same function); a prefix ("transaction clone
 * for ") names a copy of the same function. *LEN gets its length. */
static const char *overload_key(const char *sig, size_t *len)
{
	const char *p = param_list(sig), *clone;

	p = p ? p : sig;
	clone = strstr(p, " [clone ");
	*len = clone ? (size_t)(clone - p) : strlen(p);
	return p;
}

/* Are symbols A and B of one name (sl_sym) one function? A name not
 * demangled (C's) is one symbol's, as is a Rust name with its hash; C++
 * ones are one function's when their signatures are but for a clone's
 * suffix. */
static bool same_function(const struct sl_sym *a, const struct sl_sym *b)
{
	size_t n, m;
	const char *ka, *kb;

	if (!a->signature || !b->signature)
		return a->addr == b->addr;
	if (a->hashed || b->hashed)
		return !strcmp(a->signature, b->signature);
	ka = overload_key(a->signature, &n);
	kb = overload_key(b->signature, &m);
	return n == m && !strncmp(ka, kb, n);
}

/* The last K components of PATH ("a/util.c" for K 2 of "/src/a/util.c"),
 * or PATH whole when it has fewer. */
static const char *path_suffix(const char *path, unsigned k)
{
	const char *p = path + strlen(path);

	while (p > path && k) {
		p--;
		if (*p == '/' && !--k)
			return p + 1;
	}
	return path;
}

static const struct sl_addr *lookup_addr(struct sl_dso *d, uint64_t addr);

/* The source file of symbol Y of D as its line table says (the path of
 * its first line: directories and all), or NULL without one. */
static const char *source_path(struct sl_dso *d, const struct sl_sym *y)
{
	const struct sl_addr *a = d->state == DSO_OK ? lookup_addr(d, y->addr) : NULL;

	return a ? a->file : NULL;
}

/* The name of C symbol Y of D among others of its name (a static function
 * of a source file): "NAME [FILE]", FILE its source file's name (STT_FILE),
 * or the shortest suffix of its path in the line table that tells it from
 * the other symbols of its name in files of that name ("helper [a/util.c]",
 * "helper [b/util.c]"), or the name and its address when nothing does
 * ("helper [util.c 0x1148]"); "NAME [global]" for the one not local. Owned
 * by Y; NULL when out of memory. */
static const char *scoped_name(struct sl_dso *d, struct sl_sym *y)
{
	const char *file = y->file ? strrchr(y->file, '/') : NULL, *path = NULL, *label;
	uint64_t key = hash_bytes(y->name, strlen(y->name));
	unsigned parts = 1;
	bool alike = false;
	size_t probe = 0, n;
	uint32_t k;

	if (y->scoped)
		return y->scoped;
	file = file ? file + 1 : y->file ? y->file : "global";
	label = file;
	/* the other local symbols of this name in a file of this name */
	while (y->file && (k = hash_index_next(&d->sym_index, key, &probe)) != HASH_NONE) {
		const struct sl_sym *z = &d->syms[k];
		const char *zf = z->file ? strrchr(z->file, '/') : NULL, *zpath;

		zf = zf ? zf + 1 : z->file;
		if (z == y || z->signature || !zf || strcmp(z->name, y->name) || strcmp(zf, file) ||
		    z->addr == y->addr)
			continue;
		alike = true;
		if (!path && !(path = source_path(d, y)))
			break;
		zpath = source_path(d, z);
		/* the fewest components of PATH that ZPATH's do not end with */
		while (zpath && parts <= 64 && !strcmp(path_suffix(path, parts), path_suffix(zpath, parts)) &&
		       path_suffix(path, parts) != path)
			parts++;
		if (!zpath || !strcmp(path_suffix(path, parts), path_suffix(zpath, parts)))
			path = NULL;	/* not told apart by their paths */
		if (!path)
			break;
	}
	if (alike && path)
		label = path_suffix(path, parts);
	n = strlen(y->name) + strlen(label) + 24;
	if (!(y->scoped = malloc(n)))
		return NULL;
	if (alike && !path)
		snprintf(y->scoped, n, "%s [%s 0x%" PRIx64 "]", y->name, label, y->addr);
	else
		snprintf(y->scoped, n, "%s [%s]", y->name, label);
	return y->scoped;
}

int srcline_signature(struct srcline *s, const char *dso, size_t dsolen, const char *sym,
		      size_t symlen, uint64_t start, bool linked, const char **signature)
{
	struct sl_sym *first = NULL, *agree = NULL;
	bool overloaded = false, ambiguous = false;
	struct sl_dso *d;
	uint64_t key = hash_bytes(sym, symlen);
	size_t probe = 0;
	uint32_t k;

	*signature = NULL;
	if (!dsolen || !symlen || (dso[0] != '/' && s->dirfd < 0))
		return 0;
	d = get_dso(s, dso, dsolen);
	if (!d || d->state == DSO_NOMEM)
		return -ENOMEM;
	if (d->state != DSO_OK && d->state != DSO_NODEBUG)
		return 0;
	if (!dso_syms(d, false))
		return d->state == DSO_NOMEM ? -ENOMEM : 0;
	while ((k = hash_index_next(&d->sym_index, key, &probe)) != HASH_NONE) {
		struct sl_sym *y = &d->syms[k];

		/* perf's names: C++ and Rust ones with their signatures, and
		 * names not demangled (C's) */
		if ((!y->signature && y->demangled) || strncmp(y->name, sym, symlen) ||
		    y->name[symlen])
			continue;
		if (!first)
			first = y;
		overloaded |= !same_function(first, y);
		if (linked ? y->addr != start : !start || (start - y->addr) % SRCLINE_PAGE)
			continue;
		ambiguous |= agree && !same_function(agree, y);
		if (!agree || (y->signature && strlen(y->signature) < strlen(agree->signature)))
			agree = y;	/* the function itself before a clone */
	}
	if (!overloaded)
		return 0;
	*signature = ambiguous || !agree ? NULL : agree->signature ? agree->signature :
		     scoped_name(d, agree);
	return *signature || ambiguous || !agree ? 1 : -ENOMEM;
}

/* The line-table row of ADDR in DW: its CU from .debug_aranges, else by
 * walking the CUs' address ranges (clang emits no aranges). */
static Dwarf_Line *addr_line(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return dwarf_getsrc_die(cu, addr);
	/* a CU without addresses (perf inject's jitted ELF files: genelf's CU
	 * has only DW_AT_stmt_list) holds what its line table covers */
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) &&
		    (dwarf_haspc(cu, addr) > 0 ||
		     (!dwarf_hasattr(cu, DW_AT_low_pc) && !dwarf_hasattr(cu, DW_AT_ranges)))) {
			Dwarf_Line *l = dwarf_getsrc_die(cu, addr);

			if (l)
				return l;
		}
		off = next;
	}
	return NULL;
}

/* Sets A's file to NAME, a line table's file name: a relative one is
 * joined to CU's compilation directory (as addr2line shows it). Returns
 * false when out of memory (A's file then stays unset). */
static bool set_file(struct sl_addr *a, Dwarf_Die *cu, const char *name)
{
	Dwarf_Attribute attr;
	const char *dir = name[0] == '/' ? NULL :
		dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));

	a->joined = NULL;
	if (!dir) {
		a->file = name;
		return true;
	}
	if (asprintf(&a->joined, "%s/%s", dir, name) < 0) {
		a->joined = NULL;
		return false;
	}
	a->file = a->joined;
	return true;
}

/*
 * The DWARF sections a line lookup reads (addr_line, set_file): libdw's
 * dwarf_begin_elf() reads, and decompresses when compressed, every DWARF
 * section it knows; the others (location lists, call frames, macros,
 * pubnames, types) are hidden from it as SHT_NOBITS (what a stripped
 * section is, which libdw skips) in our private view of the file. The
 * lines found are the same: only the time differs (libc6-dbg's, 118 ->
 * 81 ms of CPU for a conversion that looks up two of its functions).
 */
static const char *const line_sections[] = {
	"info", "abbrev", "aranges", "line", "line_str", "str", "str_offsets", "addr",
	"ranges", "rnglists", "sup",
};

static bool is_line_section(const char *name)
{
	if (!strncmp(name, ".zdebug_", 8))
		name += 8;
	else if (!strncmp(name, ".debug_", 7))
		name += 7;
	else
		return true;	/* not DWARF: left as it is */
	for (size_t i = 0; i < sizeof(line_sections) / sizeof(line_sections[0]); i++)
		if (!strcmp(name, line_sections[i]))
			return true;
	return false;
}

/* Opens D's DWARF (of D->dwarf_elf) for line lookups: NULL when libdw
 * cannot read it, or (said once) when a section it would inflate is a
 * memory bomb (zdwarf.h), or its supplementary file is not taken (dwalt.h). */
static Dwarf *begin_lines(struct sl_dso *d)
{
	const struct srcline *s = d->owner;
	char why[PATH_MAX + 200], hex[BUILDID_MAX + 1], file[PATH_MAX];
	const char *path = d->path;
	int dirfd = path[0] == '/' ? AT_FDCWD : s->dirfd;
	Elf *elf = d->dwarf_elf;
	Dwarf *dw;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    is_line_section(name))
			continue;
		sh.sh_type = SHT_NOBITS;
		(void)gelf_update_shdr(scn, &sh);	/* not hidden: only read */
	}
	if (zdwarf_check(elf, why, sizeof(why)) == -E2BIG) {
		diag_warn("%s: %s: its source lines are not read", path, why);
		return NULL;
	}
	if (elf == d->debug_elf) {	/* where its relative altlink name starts */
		elfid_hex(d->elf, hex, BUILDID_MAX + 1);
		dwalt_debug_file(hex, file, sizeof(file));
	} else {
		snprintf(file, sizeof(file), "%s%s", dirfd == AT_FDCWD ? s->symfs : "", path);
	}
	dw = dwalt_begin(elf, dirfd, file, s->who, &d->alt, why, sizeof(why));
	if (!dw && why[0])
		diag_warn("%s: %s: its source lines are not read", path, why);
	return dw;
}

/* The cached line of ADDR in D, looked up the first time. NULL on out-of-memory. */
static const struct sl_addr *lookup_addr(struct sl_dso *d, uint64_t addr)
{
	struct sl_addr *a;
	Dwarf_Die cu;
	const char *name;
	uint32_t k = hash_index_get(&d->addr_index, addr);
	int line;

	if (k != HASH_NONE)
		return &d->addrs[k];
	a = array_grow(d->addrs, &d->capaddrs, d->naddrs, sizeof(*a));
	if (a)
		d->addrs = a;
	if (!a || hash_index_add(&d->addr_index, addr, (uint32_t)d->naddrs))
		return NULL;
	a = &d->addrs[d->naddrs++];
	*a = (struct sl_addr){ .addr = addr };
	if (!d->dw && !d->dw_failed)
		d->dw_failed = !(d->dw = begin_lines(d));
	if (!d->dw)
		return a;
	Dwarf_Line *l = addr_line(d->dw, addr, &cu);
	if (l && dwarf_lineno(l, &line) == 0 && line > 0 && (name = dwarf_linesrc(l, NULL, NULL))) {
		if (!set_file(a, &cu, name))
			return NULL;
		a->line = (unsigned)line;
	}
	return a;
}

int srcline_lookup(struct srcline *s, const char *dso, size_t dsolen, const char *sym,
		   size_t symlen, uint64_t off, uint64_t sym_start, const char **file,
		   unsigned *line)
{
	struct sl_dso *d;
	const struct sl_addr *a = NULL;
	enum sym_found found;
	uint64_t addr = 0;

	if (s->no_lines || !dsolen || !symlen || (dso[0] != '/' && s->dirfd < 0))
		return 0;
	d = get_dso(s, dso, dsolen);
	if (!d || d->state == DSO_NOMEM)
		return -ENOMEM;
	if (off == 0) {
		s->stats.functions++;
		s->stats.no_binary += d->state == DSO_MISSING;
		s->stats.no_debuginfo += d->state == DSO_NODEBUG;
		s->stats.no_file += d->state == DSO_NOFILE;
	}
	if (d->state != DSO_OK)
		return 0;
	if (!dso_syms(d, true))
		return d->state == DSO_NOMEM ? -ENOMEM : 0;
	found = find_sym(d, sym, symlen, sym_start, &addr);
	s->stats.no_binary += off == 0 && found == SYM_MISPLACED;
	if (found != SYM_ONE)
		return 0;
	a = lookup_addr(d, addr + off);
	if (!a)
		return -ENOMEM;
	if (!a->file)
		return 0;
	s->stats.found += off == 0;
	*file = a->file;
	*line = a->line;
	return 1;
}

struct srcline_stats srcline_stats(const struct srcline *s)
{
	return s->stats;
}

void srcline_free(struct srcline *s)
{
	if (!s)
		return;
	for (struct sl_dso *d = s->dsos, *dn; d; d = dn) {
		dn = d->next;
		for (size_t i = 0; i < d->nsyms; i++) {
			free(d->syms[i].demangled);
			free(d->syms[i].scoped);
		}
		free(d->syms);
		hash_index_free(&d->sym_index);
		for (size_t i = 0; i < d->naddrs; i++)
			free(d->addrs[i].joined);
		free(d->addrs);
		hash_index_free(&d->addr_index);
		dwalt_end(d->dw, &d->alt);
		elf_end(d->debug_elf);
		elf_end(d->elf);
		if (d->debug_fd >= 0)
			close(d->debug_fd);
		if (d->fd >= 0)
			close(d->fd);
		free(d->path);
		free(d);
	}
	for (struct sl_buildid *b = s->buildids, *bn; b; b = bn) {
		bn = b->next;
		free(b);
	}
	free(s->symfs);
	free(s);
}
