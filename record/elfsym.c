/* SPDX-License-Identifier: MIT */
#include "elfsym.h"
#include "inpath.h"

#include "array.h"
#include "demangle.h"
#include "diag.h"
#include "fdetab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct elf_file {
	const char *path;      /* as given (borrowed) */
	int fd;
	Elf *elf;
	bool pie;
	uint16_t machine;      /* e_machine */
};

static int elf_file_open(const char *path, struct elf_file *f)
{
	char why[160];
	GElf_Ehdr eh;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return REC_ELF_ENOTELF;
	f->path = path;
	/* never a FIFO to hang on: what is no regular file is no ELF file */
	f->fd = inpath_open(AT_FDCWD, path, 0, why, sizeof(why));
	if (f->fd < 0)
		return f->fd == -EINVAL ? REC_ELF_ENOTELF : f->fd;
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh)) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		return REC_ELF_ENOTELF;
	}
	f->pie = eh.e_type == ET_DYN;
	f->machine = eh.e_machine;
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	elf_end(f->elf);
	close(f->fd);
}

/* Maps link-time VADDR to a file offset through the PT_LOAD segments. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, bool exec, uint64_t *off)
{
	bool in_load = false;
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return REC_ELF_ENOTELF;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		in_load = true;
		if (exec && !(ph.p_flags & PF_X))
			continue;
		*off = vaddr - ph.p_vaddr + ph.p_offset;
		return 0;
	}
	return in_load ? REC_ELF_ENOTEXEC : REC_ELF_ENOLOAD;
}

/*
 * Calls FN(name, sym, arg) for every named symbol of .symtab and .dynsym
 * (FUNCS: only the defined function symbols); stops when FN returns
 * non-zero and returns that value. Returns 0 after all, or REC_ELF_ENOSYMS
 * when there were none.
 */
static int for_each_sym(Elf *elf, bool funcs, int (*fn)(const char *, const GElf_Sym *, void *),
			void *arg)
{
	Elf_Scn *scn = NULL;
	bool any = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						 sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			int t, ret;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if (funcs && ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
				      sym.st_shndx == SHN_UNDEF || !sym.st_value))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			any = true;
			ret = fn(name, &sym, arg);
			if (ret)
				return ret;
		}
	}
	return any ? 0 : REC_ELF_ENOSYMS;
}

/* for_each_sym() of the defined function symbols. */
static int for_each_func(Elf *elf, int (*fn)(const char *, const GElf_Sym *, void *), void *arg)
{
	return for_each_sym(elf, true, fn, arg);
}

/* The symbols a binary names when C++ exceptions are thrown or caught in
 * it: the Itanium C++ ABI's (and its unwinder's) entry points. */
static const char *const cxx_exception_syms[] = {
	"__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch", "__gxx_personality_v0",
	"_Unwind_RaiseException", "_Unwind_Resume",
};

static int cxx_exception_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	(void)sym, (void)arg;
	for (size_t i = 0; i < sizeof(cxx_exception_syms) / sizeof(cxx_exception_syms[0]); i++)
		if (!strcmp(name, cxx_exception_syms[i]))
			return 1;
	return 0;
}

bool rec_elf_cxx_exceptions(const char *path)
{
	struct elf_file f;
	bool found;

	if (elf_file_open(path, &f))
		return false;
	found = for_each_sym(f.elf, false, cxx_exception_cb, NULL) == 1;
	elf_file_close(&f);
	return found;
}

struct functions {
	struct elf_file *f;
	int (*fn)(const struct rec_sym *, void *);
	void *arg;
	struct rec_sym s;
};

static int functions_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct functions *fs = arg;
	struct rec_sym *s = &fs->s;

	snprintf(s->name, sizeof(s->name), "%s", name);
	demangle_name(name, s->demangled, sizeof(s->demangled));
	s->value = sym->st_value;
	s->size = sym->st_size;
	s->pie = fs->f->pie;
	s->entry = true;
	s->func_value = s->value;
	s->unnamed = !*name;   /* from the unwind table */
	s->machine = fs->f->machine;
	if (vaddr_to_offset(fs->f->elf, s->value, true, &s->file_offset))
		return 0;   /* not code: no trigger can be there */
	return fs->fn(s, fs->arg);
}

int rec_elf_functions(const char *path, int (*fn)(const struct rec_sym *s, void *arg), void *arg)
{
	struct elf_file f;
	struct functions fs = { .f = &f, .fn = fn, .arg = arg };
	int err;

	err = elf_file_open(path, &f);
	if (err)
		return err;
	err = for_each_func(f.elf, functions_cb, &fs);
	elf_file_close(&f);
	return err;
}

struct find {
	const char *name;
	bool exact;            /* pass: by symbol name, else by demangled name */
	bool clones;           /* pass: by the demangled name of a clone's origin */
	struct rec_sym *out;
	uint64_t seen[64];     /* the values found (distinct functions) */
	int max, n;
};

/* Whether symbol NAME is a cold part gcc split off a function (F.cold,
 * F.part.0.cold): only jumps from F enter it, no call does, so a demangled
 * name ("f(int) [clone .cold]" matches "f") never means it. */
static bool cold_part(const char *name)
{
	for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
		if (rec_elf_part_suffix(p))
			return strstr(p, ".cold") != NULL;
	return false;
}

/* Whether the N bytes at W are a word gcc ends a clone's name with: an
 * interprocedural copy of the function, entered by calls as it is. */
static bool clone_word(const char *w, size_t n)
{
	static const char *const words[] = { "isra", "constprop", "part", "lto_priv" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (n == strlen(words[i]) && !strncmp(w, words[i], n))
			return true;
	return false;
}

/* Whether S (from a '.') is a chain of clone words and numbers with one
 * word at least (".isra.0", ".constprop.0.isra.0"), no ".cold". */
static bool clone_suffix(const char *s)
{
	bool named = false;

	while (*s == '.') {
		size_t n = strcspn(++s, ".");

		if (clone_word(s, n))
			named = true;
		else if (!n || strspn(s, "0123456789") != n)
			return false;
		s += n;
	}
	return named && !*s;
}

bool rec_elf_clone_base(const char *demangled, char *out, size_t size)
{
	const char *cut = strstr(demangled, " [clone .");
	size_t len;

	if (cut) {
		/* C++: every group from the first is " [clone .SUFFIX]" */
		for (const char *p = cut; *p; ) {
			const char *end;
			char suffix[128];

			if (strncmp(p, " [clone ", 8) || !(end = strchr(p + 8, ']')) ||
			    (size_t)(end - p - 8) >= sizeof(suffix))
				return false;
			snprintf(suffix, sizeof(suffix), "%.*s", (int)(end - p - 8), p + 8);
			if (!clone_suffix(suffix))
				return false;
			p = end + 1;
		}
		len = (size_t)(cut - demangled);
	} else {
		/* C: the symbol itself, "load.isra.0" */
		const char *p;

		for (p = strchr(demangled, '.'); p && !clone_suffix(p); p = strchr(p + 1, '.'))
			;
		if (!p || p == demangled)
			return false;
		len = (size_t)(p - demangled);
	}
	snprintf(out, size, "%.*s", (int)len, demangled);
	return true;
}

static int find_cb(const struct rec_sym *s, void *arg)
{
	struct find *fd = arg;
	char base[1024];
	int i;

	/* by name with or without perf's symbol version ("clock_nanosleep@GLIBC_2.2.5");
	 * last, by the name of the function a clone was made of */
	if (fd->clones ? !rec_elf_clone_base(s->demangled, base, sizeof(base)) ||
			 !demangled_matches(s->name, base, fd->name) :
	    fd->exact ? !symbol_version_matches(s->name, strlen(s->name), fd->name, strlen(fd->name)) :
			!demangled_matches(s->name, s->demangled, fd->name))
		return 0;
	if (!fd->exact && cold_part(s->name) && strcmp(s->demangled, fd->name))
		return 0;   /* unless the name is the clone's own, in full */
	for (i = 0; i < fd->n && i < 64; i++)
		if (fd->seen[i] == s->value)
			return 0;
	if (fd->n < 64)
		fd->seen[fd->n] = s->value;
	if (fd->n < fd->max)
		fd->out[fd->n] = *s;
	fd->n++;
	return 0;
}

int rec_elf_find(const char *path, const char *name, struct rec_sym *out, int max)
{
	struct find fd = { .name = name, .exact = true, .out = out, .max = max };
	int err = rec_elf_functions(path, find_cb, &fd);

	if (!err && !fd.n) {
		fd.exact = false;
		err = rec_elf_functions(path, find_cb, &fd);
	}
	if (!err && !fd.n) {
		fd.clones = true;
		err = rec_elf_functions(path, find_cb, &fd);
	}
	return err ? err : fd.n;
}

int rec_elf_lookup(const char *path, const char *name, struct rec_sym *s)
{
	struct find fd = { .name = name, .exact = true, .out = s, .max = 1 };
	int err;

	memset(s, 0, sizeof(*s));
	err = rec_elf_functions(path, find_cb, &fd);
	if (err)
		return err;
	return fd.n ? 0 : REC_ELF_ENOSYM;
}

struct containing {
	uint64_t vaddr;
	struct rec_sym *s;
};

static int containing_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct containing *c = arg;

	uint64_t size = sym->st_size ? sym->st_size : 1;

	if (c->vaddr >= sym->st_value && c->vaddr < sym->st_value + size) {
		snprintf(c->s->name, sizeof(c->s->name), "%s", name);
		c->s->size = sym->st_size;
		c->s->entry = c->vaddr == sym->st_value;
		c->s->func_value = sym->st_value;
		return 1;
	}
	return 0;
}

static int for_each_fde(struct elf_file *f, int (*fn)(const char *, const GElf_Sym *, void *),
			void *arg, bool jumped);

/* Sets S as the function of F's unwind table holding S->value, or the part
 * a jump enters that holds it (S->jumped_start, S->jumped_cfa) when that is
 * where it is: fdetab_is_entry(). */
static void fde_containing(struct elf_file *f, struct rec_sym *s)
{
	struct fdetab t;
	ptrdiff_t i = -1;
	uint64_t start, size;

	if (!fdetab_read(f->elf, &t) && !fdetab_read_entries(f->elf, &t))
		i = fdetab_find(&t, s->value);
	if (i >= 0 && fdetab_func(&t, (size_t)i, &start, &size)) {
		if (fdetab_is_entry(&t, (size_t)i)) {
			s->func_value = start;
			s->size = size;
			s->entry = s->value == start;
			s->unnamed = true;
		} else {
			s->jumped_start = start;
			fdetab_cfa_words(&t, (size_t)i, s->jumped_cfa, sizeof(s->jumped_cfa));
		}
	}
	fdetab_free(&t);
}

int rec_elf_addr(const char *path, uint64_t vaddr, struct rec_sym *s)
{
	struct elf_file f;
	struct containing c = { .vaddr = vaddr, .s = s };
	int err;

	memset(s, 0, sizeof(*s));
	err = elf_file_open(path, &f);
	if (err)
		return err;
	s->value = vaddr;
	s->pie = f.pie;
	s->machine = f.machine;
	err = vaddr_to_offset(f.elf, vaddr, true, &s->file_offset);
	/* in no function symbol of a file without .symtab: in a function of its
	 * unwind table (fdetab_has_symtab(), the one rule) */
	if (!err && for_each_func(f.elf, containing_cb, &c) != 1 && !fdetab_has_symtab(f.elf))
		fde_containing(&f, s);
	elf_file_close(&f);
	return err;
}

/* The address ranges of a file's function symbols [start, end) (a symbol
 * of size 0 holds its start), sorted by start, each end raised to the
 * highest end up to it: covered() answers by one binary search. */
struct covers {
	uint64_t (*r)[2];
	size_t n, cap;
	int (*fn)(const char *, const GElf_Sym *, void *);   /* uncovered_cb() hands */
	void *arg;                                           /* the others to it */
};

static int covers_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct covers *c = arg;
	uint64_t (*r)[2] = array_grow(c->r, &c->cap, c->n, sizeof(*c->r));

	(void)name;
	if (!r)
		return -ENOMEM;
	c->r = r;
	r[c->n][0] = sym->st_value;
	r[c->n][1] = sym->st_value + (sym->st_size ? sym->st_size : 1);
	c->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Whether a function symbol of C holds VADDR. */
static bool covered(const struct covers *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {	/* the first start above VADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (c->r[mid][0] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && c->r[lo - 1][1] > vaddr;
}

/* A function of the unwind table: handed on when no symbol holds its start. */
static int uncovered_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct covers *c = arg;

	return covered(c, sym->st_value) ? 0 : c->fn(name, sym, c->arg);
}

/*
 * Calls FN(NAME "", SYM, ARG) like for_each_func for every function of F's
 * unwind table whose start no function symbol holds, when F has no .symtab
 * (fdetab_has_symtab(): the one rule). Returns 0 after all (none called with
 * a .symtab, or function symbols and no unwind table), REC_ELF_ENOSYMS when
 * F has neither function symbol nor unwind table, else FN's non-zero or a
 * negative errno.
 */
static int for_each_unnamed(struct elf_file *f, int (*fn)(const char *, const GElf_Sym *, void *),
			    void *arg, bool jumped)
{
	struct covers c = { .fn = fn, .arg = arg };
	int err = for_each_func(f->elf, covers_cb, &c);

	if ((!err || err == REC_ELF_ENOSYMS) && !fdetab_has_symtab(f->elf)) {
		array_sort(c.r, c.n, sizeof(*c.r), by_start);
		for (size_t i = 1; i < c.n; i++)
			if (c.r[i][1] < c.r[i - 1][1])
				c.r[i][1] = c.r[i - 1][1];
		err = for_each_fde(f, uncovered_cb, &c, jumped);
	}
	if (err == REC_ELF_ENOSYMS && c.n)
		err = 0;   /* symbols, no unwind table */
	free(c.r);
	return err;
}

int rec_elf_unnamed_functions(const char *path, int (*fn)(const struct rec_sym *s, void *arg),
			      void *arg)
{
	struct elf_file f;
	struct functions fs = { .f = &f, .fn = fn, .arg = arg };
	int err = elf_file_open(path, &f);

	if (err)
		return err;
	err = for_each_unnamed(&f, functions_cb, &fs, false);
	elf_file_close(&f);
	return err;
}

const char *rec_sym_label(const struct rec_sym *s, char *buf, size_t size)
{
	if (s->name[0])
		snprintf(buf, size, "%s", s->name);
	else
		snprintf(buf, size, "the function at 0x%" PRIx64, s->func_value);
	return buf;
}

bool rec_elf_part_suffix(const char *s)
{
	bool named = false;

	while (*s == '.') {
		size_t n = strcspn(++s, ".");

		if (n == 4 && (!strncmp(s, "cold", 4) || !strncmp(s, "part", 4)))
			named = true;
		else if (!n || strspn(s, "0123456789") != n)
			return false;
		s += n;
	}
	return named && !*s;
}

bool rec_elf_is_part(const char *name)
{
	for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
		if (rec_elf_part_suffix(p))
			return true;
	return false;
}

static int suggest_cb(const struct rec_sym *s, void *arg)
{
	demangled_suggest(arg, s->demangled);
	return 0;
}

int rec_elf_suggest(const char *path, const char *name, char (*out)[128], int max)
{
	unsigned score[DEMANGLED_SUGGEST_MAX];
	struct demangled_suggest sg = { .wanted = name, .out = out, .score = score, .max = max };
	int err;

	if (sg.max > DEMANGLED_SUGGEST_MAX)
		sg.max = DEMANGLED_SUGGEST_MAX;
	if (sg.max <= 0)
		return 0;
	err = rec_elf_functions(path, suggest_cb, &sg);
	return err < 0 ? err : demangled_suggest_end(&sg, true);
}

struct prologues {
	struct elf_file *f;
	uint64_t with, total;
};

/* Adds the function SYM to the counts: with a frame pointer when its first
 * 32 bytes hold mov %rsp,%rbp (48 89 e5; compilers schedule other
 * instructions around the push %rbp before it). */
static int prologue_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	static const uint8_t mov_rsp_rbp[3] = { 0x48, 0x89, 0xe5 };
	struct prologues *p = arg;
	uint8_t code[32];
	uint64_t off;
	size_t n = sizeof(code);

	(void)name;
	if (sym->st_size < 16 || vaddr_to_offset(p->f->elf, sym->st_value, true, &off))
		return 0;
	if (sym->st_size < n)
		n = sym->st_size;
	if (pread(p->f->fd, code, n, (off_t)off) != (ssize_t)n)
		return 0;
	p->total += sym->st_size;
	for (size_t i = 0; i + 3 <= n; i++)
		if (!memcmp(code + i, mov_rsp_rbp, 3)) {
			p->with += sym->st_size;
			break;
		}
	return 0;
}

/*
 * The functions of a stripped file, from its unwind table (common/fdetab.h:
 * each from its start to the next, the last to the end of its own FDE).
 * Calls FN like for_each_func; with JUMPED also for the parts of functions
 * a jump enters (!fdetab_is_entry(): no function, no entry, but code that
 * calls). A table past FDETAB_MAX entries is read that far, said in one
 * warning naming the file.
 */
static int for_each_fde(struct elf_file *f, int (*fn)(const char *, const GElf_Sym *, void *),
			void *arg, bool jumped)
{
	struct fdetab t;
	GElf_Sym sym = { 0 };
	int err = fdetab_read(f->elf, &t);
	size_t i;

	if (!err && !jumped)
		err = fdetab_read_entries(f->elf, &t);
	if (err) {
		fdetab_free(&t);
		return err == -ENOENT ? REC_ELF_ENOSYMS : err;
	}
	if (t.capped)
		diag_warn("%s: its unwind table lists more functions than the %" PRIu32
			  " read (.eh_frame_hdr): the rest are left out", f->path, FDETAB_MAX);
	for (i = 0, err = 0; !err && i < t.n; i++)
		if (!jumped && !fdetab_is_entry(&t, i))
			continue;
		else if (fdetab_func(&t, i, &sym.st_value, &sym.st_size))
			err = fn("", &sym, arg);
		else if (t.n == 1)
			err = REC_ELF_ENOSYMS;
	fdetab_free(&t);
	return err;
}

int rec_elf_frame_pointers(const char *path, uint64_t *with, uint64_t *total)
{
	struct elf_file f;
	struct prologues p = { .f = &f };
	int err;

	*with = *total = 0;
	err = elf_file_open(path, &f);
	if (err)
		return err;
	if (f.machine != EM_X86_64)
		err = REC_ELF_ENOTELF;
	else
		err = for_each_func(f.elf, prologue_cb, &p);
	/* and the functions of a file without .symtab that no symbol names */
	if (err == REC_ELF_ENOSYMS || err == 0)
		err = for_each_unnamed(&f, prologue_cb, &p, false);
	elf_file_close(&f);
	if (err == 0 && !p.total)
		err = REC_ELF_ENOSYMS;
	*with = p.with;
	*total = p.total;
	return err;
}

struct code_walk {
	struct elf_file *f;
	int (*fn)(const struct rec_func_code *, void *);
	void *arg;
	uint8_t *buf;          /* owned: the code of the function at hand */
	size_t cap;
};

/* Reads the code of function SYM and hands it to the walk's FN. */
static int code_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct code_walk *w = arg;
	struct rec_func_code c = { .vaddr = sym->st_value, .size = sym->st_size };
	ssize_t got;

	(void)name;
	if (!c.size || c.size > REC_ELF_CODE_MAX ||
	    vaddr_to_offset(w->f->elf, c.vaddr, true, &c.file_offset))
		return 0;
	if (c.size > w->cap) {
		void *p = realloc(w->buf, c.size);

		if (!p)
			return -ENOMEM;
		w->buf = p;
		w->cap = c.size;
	}
	got = pread(w->f->fd, w->buf, c.size, (off_t)c.file_offset);
	if (got < 0)
		return -EIO;
	memset(w->buf + got, 0, c.size - (size_t)got);
	c.code = w->buf;
	return w->fn(&c, w->arg);
}

int rec_elf_code(const char *path, int (*fn)(const struct rec_func_code *c, void *arg),
		 void *arg)
{
	struct elf_file f;
	struct code_walk w = { .f = &f, .fn = fn, .arg = arg };
	int err = elf_file_open(path, &f);

	if (!err) {
		/* the function symbols; those of a file without .symtab that no
		 * symbol names, from its unwind table */
		err = for_each_func(f.elf, code_cb, &w);
		if (err == REC_ELF_ENOSYMS || err == 0)
			err = for_each_unnamed(&f, code_cb, &w, true);
		elf_file_close(&f);
	}
	free(w.buf);
	return err;
}

/* Each REC_ELF_* error: its message and the errno it stands for. */
static const struct {
	int err;
	int errno_like;
	const char *msg;
} elf_errors[] = {
	{ REC_ELF_ENOTELF, -ENOEXEC, "not an ELF file" },
	{ REC_ELF_ENOSYMS, -EINVAL, "no symbol table (stripped?)" },
	{ REC_ELF_ENOSYM, -EINVAL, "no such function" },
	{ REC_ELF_ENOLOAD, -EINVAL, "address outside the loaded segments" },
	{ REC_ELF_ENOTEXEC, -EINVAL, "address outside the executable segments (not code)" },
};

const char *rec_elf_strerror(int err)
{
	for (size_t i = 0; i < sizeof(elf_errors) / sizeof(elf_errors[0]); i++)
		if (elf_errors[i].err == err)
			return elf_errors[i].msg;
	return strerror(-err);
}

int rec_elf_errno(int err)
{
	for (size_t i = 0; i < sizeof(elf_errors) / sizeof(elf_errors[0]); i++)
		if (elf_errors[i].err == err)
			return elf_errors[i].errno_like;
	return err;
}
