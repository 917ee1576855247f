/* SPDX-License-Identifier: MIT */
#include "trigspec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "elfsym.h"
#include "funcspec.h"
#include "inpath.h"
#include "insnstart.h"
#include "procfs.h"
#include "signals.h"
#include "lineaddr.h"
#include "symbols.h"

static const char *const default_symbols[] = { "magic_trace_stop_indicator", "snaptrace_trigger" };

/* What one resolution works on. */
struct ctx {
	const char *spec;       /* as given */
	const char *exe;
	pid_t pid;
	struct rec_trigger_loc *loc;
	char *why;
	size_t size;
};

/* Appends to C->why. */
static void say(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct ctx *c, const char *fmt, ...)
{
	size_t len = strlen(c->why);
	va_list ap;

	if (len + 1 >= c->size)
		return;
	va_start(ap, fmt);
	vsnprintf(c->why + len, c->size - len, fmt, ap);
	va_end(ap);
}

/* Real path of FILE into OUT; /proc/PID/exe's, the kernel's name
 * (rec_proc_exe_name()). */
static void real_file(const char *file, char *out, size_t size)
{
	char buf[PATH_MAX];

	if (rec_proc_exe_name(file, out, size))
		return;
	if (realpath(file, buf))
		snprintf(out, size, "%s", buf);
	else
		snprintf(out, size, "%s", file);
}

/* Sets C->loc to the address S of FILE, named SHOWN (NULL: FILE's real path). */
static void set_loc(struct ctx *c, const char *file, const char *shown, const struct rec_sym *s,
		    bool in_main)
{
	if (shown)
		snprintf(c->loc->file, sizeof(c->loc->file), "%s", shown);
	else
		real_file(file, c->loc->file, sizeof(c->loc->file));
	snprintf(c->loc->symbol, sizeof(c->loc->symbol), "%s", s->name);
	c->loc->vaddr = s->value;
	c->loc->file_offset = s->file_offset;
	c->loc->pie = s->pie;
	c->loc->in_main = in_main;
	c->loc->entry = s->entry && s->func_value;   /* a symbol, or unnamed (stripped) */
	c->loc->func_vaddr = s->func_value;
}

/* Says why function NAME of FILE (read as PATH) was not found (ERR from
 * rec_elf_find, or 0), with the closest names. Returns the error to give. */
static int explain_missing(struct ctx *c, int err, const char *path, const char *file,
			   const char *name)
{
	char names[5][128];
	int n;

	if (err == REC_ELF_ENOSYMS) {
		say(c, "%s: expected a symbol table to find '%s', found none (stripped): "
		    "trigger on a function of a library it uses (LIB:NAME, e.g. libc:write), or "
		    "on one of its own by the address where it starts (addr:0xHEX, as `snaptrace "
		    "symbols %s` lists them from its unwind table)", file, name, file);
		return -ENODATA;
	}
	if (err) {
		say(c, "%s: cannot read symbols: %s", file, rec_elf_strerror(err));
		return rec_elf_errno(err);
	}
	say(c, "%s: expected a function named '%s', found none", file, name);
	n = rec_elf_suggest(path, name, names, 5);
	for (int i = 0; i < n; i++)
		say(c, "%s%s", i ? ", " : "; closest: ", names[i]);
	return -ENOENT;
}

/* Resolves function NAME (symbol or demangled name) of PATH, named FILE
 * (NULL: PATH, by its real path). */
static int find_function(struct ctx *c, const char *path, const char *file, const char *name,
			 bool in_main)
{
	struct rec_sym m[8];
	char hashed[8][256];
	int n = rec_elf_find(path, name, m, 8), rust = 0;

	if (n == 1) {
		char base[1024];

		set_loc(c, path, file, &m[0], in_main);
		c->loc->clone = strcmp(m[0].name, name) && strcmp(m[0].demangled, name) &&
				rec_elf_clone_base(m[0].demangled, base, sizeof(base));
		return 0;
	}
	if (!file)
		file = path;
	if (n <= 0)
		return explain_missing(c, n, path, file, name);
	say(c, "%s: expected one function named '%s', found %d:", file, name, n);
	/* Rust functions of one name differ by their hash: show it, and name it */
	for (int i = 0; i < n && i < 8; i++)
		rust += demangle_hashed(m[i].name, hashed[i], sizeof(hashed[i]));
	for (int i = 0; i < n && i < 8; i++)
		say(c, "%s %s (%s, 0x%" PRIx64 ")", i ? "," : "",
		    rust == n ? hashed[i] : m[i].demangled, m[i].name, m[i].value);
	if (rust == n)
		say(c, "; give one with its hash (%s, as rustfilt -v shows it) or symbol:MANGLED",
		    hashed[0]);
	else
		say(c, "; give the parameter list or symbol:MANGLED");
	return -EINVAL;
}

static int form_symbol(struct ctx *c, const char *name)
{
	if (!*name) {
		say(c, "expected symbol:NAME");
		return -EINVAL;
	}
	return find_function(c, c->exe, NULL, name, true);
}

/* Resolves FILE:LINE[:COL] in PATH, named NAME (NULL: PATH, by its real
 * path); returns 0, or a negative error after saying why. */
static int line_in(struct ctx *c, const char *path, const char *name, const char *file,
		   unsigned line, unsigned col, bool in_main)
{
	struct rec_sym s;
	uint64_t a;
	char why[160] = "";
	const char *shown = name ? name : path;
	int err = rec_srcline_find(path, file, line, col, &a, why, sizeof(why));

	if (err == -ERANGE) {
		say(c, "%s: expected code at %s:%u%s, found none", shown, file, line,
		    col ? " at that column" : "");
		if (a)
			say(c, " (the next line with code: %" PRIu64 ")", a);
		return -ENOENT;
	}
	if (err == -ENODATA) {
		say(c, "%s: expected DWARF line tables (build with -g), found none", shown);
		return -ENOENT;
	}
	if (err == -ENOENT) {
		say(c, "%s: expected a source file '%s' in its line tables, found none", shown,
		    file);
		return -ENOENT;
	}
	if (err) {
		say(c, "%s: cannot read: %s", shown, why[0] ? why : strerror(-err));
		return err;
	}
	err = rec_elf_addr(path, a, &s);
	if (err) {
		say(c, "%s: line %s:%u at 0x%" PRIx64 ": %s", shown, file, line, a,
		    rec_elf_strerror(err));
		return -ENOENT;
	}
	set_loc(c, path, name, &s, in_main);
	c->loc->vaddr = a;
	return 0;
}

static int form_line(struct ctx *c, const char *arg)
{
	char file[PATH_MAX], libs[32][4096], probe[32];
	int err, n, fds[32], found = 0;
	unsigned line, col;
	size_t keep;

	if (funcspec_parse_line(arg, file, sizeof(file), &line, &col)) {
		say(c, "expected line:FILE:LINE[:COL], found '%s'", arg);
		return -EINVAL;
	}
	err = line_in(c, c->exe, NULL, file, line, col, true);
	if (err != -ENOENT || c->pid <= 0)
		return err;
	/* the program's libraries, as mapped in the target; the reason given is
	 * the program's */
	keep = strlen(c->why);
	n = rec_proc_exec_files(c->pid, libs, fds, 32);
	if (n == -EXDEV) {
		say(c, " (its libraries are not looked in: process %d is in another mount "
		    "namespace, where the paths it maps them by name other files than here)",
		    (int)c->pid);
		return -ENOENT;
	}
	/* each read as the file mapped (its name may lead elsewhere now), which
	 * the probe then names */
	for (int i = 1; i < n && i < 32 && !found; i++) {
		if (!line_in(c, inpath_proc(fds[i], probe, sizeof(probe)), libs[i], file, line,
			     col, false)) {
			c->loc->probe_fd = fds[i];
			fds[i] = -1;
			found = 1;
		} else {
			c->why[keep] = '\0';
		}
	}
	for (int i = 0; i < n && i < 32; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (found)
		return 0;
	say(c, " (nor in its %d libraries)", n > 1 ? n - 1 : 0);
	return -ENOENT;
}

/* Resolves link-time address A of PATH, named FILE (NULL: PATH, by its
 * real path). */
static int addr_in(struct ctx *c, const char *path, const char *file, uint64_t a, bool in_main)
{
	struct rec_sym s;
	int err = rec_elf_addr(path, a, &s);

	if (err) {
		say(c, "expected an address of %s's code (as nm/objdump print it), "
		    "found one %s", file ? file : path,
		    err == REC_ELF_ENOTEXEC ? "outside its executable segments" :
		    err == REC_ELF_ENOLOAD ? "outside its loaded segments" : rec_elf_strerror(err));
		if (in_main && err == REC_ELF_ENOLOAD)	/* maybe a library's, as symbols lists it */
			say(c, " (a library's: LIB:addr:0x%" PRIx64 ", as `snaptrace symbols LIB` "
			    "prints it)", a);
		return rec_elf_errno(err);
	}
	if (s.jumped_start) {	/* fdetab_is_entry(): no call enters it */
		say(c, "expected an address in a function of %s, found 0x%" PRIx64 " in code a "
		    "jump enters at 0x%" PRIx64 " (its unwind table's CFA there is %s as right "
		    "after a call: a part split off a function, as gcc's .cold); give the "
		    "function that jumps to it", file ? file : path, a, s.jumped_start,
		    s.jumped_cfa);
		return -EINVAL;
	}
	set_loc(c, path, file, &s, in_main);
	return 0;
}

static int form_addr(struct ctx *c, const char *arg)
{
	uint64_t a;

	if (funcspec_parse_addr(arg, &a)) {
		say(c, "expected addr:0xHEX, found '%s'", arg);
		return -EINVAL;
	}
	return addr_in(c, c->exe, NULL, a, true);
}

/* "." (and no --trigger at all): the stop indicators of the program. */
static int form_default(struct ctx *c, const char *arg)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(default_symbols) / sizeof(default_symbols[0]); i++) {
		struct rec_sym s;

		if (rec_elf_lookup(c->exe, default_symbols[i], &s))
			continue;
		snprintf(c->loc->spec, sizeof(c->loc->spec), "%s", default_symbols[i]);
		set_loc(c, c->exe, NULL, &s, true);
		return 0;
	}
	say(c, "%s: expected a function magic_trace_stop_indicator or snaptrace_trigger "
	    "(the default stop indicator '.'), found neither", c->exe);
	return -ENOENT;
}

/* "?": the user picks on the terminal; not on one is a usage error. */
static int form_pick(struct ctx *c, const char *arg)
{
	static struct rec_sym s;   /* big; one pick per process */
	char file[PATH_MAX], real[PATH_MAX];
	int err, fd;

	(void)arg;
	err = rec_symbols_pick(c->exe, c->pid, &s, file, sizeof(file), &fd, c->why, c->size);
	if (err)
		return err == -ENOTTY ? -EINVAL : err;
	real_file(c->exe, real, sizeof(real));
	if (fd >= 0) {		/* a library as mapped: the probe names that file */
		c->loc->probe_fd = fd;
		set_loc(c, inpath_proc(fd, c->loc->probe, sizeof(c->loc->probe)), file, &s,
			false);
	} else if (!strcmp(file, real)) {
		set_loc(c, c->exe, NULL, &s, true);	/* its name is no way to it (real_file()) */
	} else {
		set_loc(c, file, NULL, &s, false);
	}
	snprintf(c->loc->spec, sizeof(c->loc->spec), "%.*s", (int)sizeof(c->loc->spec) - 1,
		 s.demangled);
	return 0;
}

/* Resolves WHAT, the part of LIB:WHAT after the ':' (a function's name, or
 * its address: funcspec_parse_fn_addr()), in library PATH named FILE. */
static int in_lib(struct ctx *c, const char *path, const char *file, const char *what)
{
	uint64_t a;
	int err = funcspec_parse_fn_addr(what, &a);

	if (err == -EINVAL) {
		say(c, "expected LIB:addr:0xHEX, found '%s'", c->spec);
		return err;
	}
	if (err)
		return find_function(c, path, file, what, false);
	return addr_in(c, path, file, a, false);
}

static int form_lib(struct ctx *c, const char *colon)
{
	char lib[256], path[PATH_MAX];
	const char *spec = c->spec;
	int err, fd;

	if (colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(lib)) {
		say(c, "expected LIB:SYMBOL");
		return -EINVAL;
	}
	memcpy(lib, spec, (size_t)(colon - spec));
	lib[colon - spec] = '\0';
	err = rec_proc_find_lib(c->pid, lib, path, sizeof(path), &fd);
	if (err == -EXDEV) {
		say(c, "process %d is in another mount namespace: its library '%s' is not looked "
		    "for (the paths it maps it by name other files here)", (int)c->pid, lib);
		return -ENOENT;
	}
	if (err) {
		say(c, "expected a shared library '%s' (LIB:SYMBOL), found none "
		    "mapped in the target nor in the library directories; the other forms are "
		    "symbol:NAME, line:FILE:LINE[:COL], addr:0xHEX, NS::NAME", lib);
		return -ENOENT;
	}
	if (fd >= 0) {	/* the library mapped, named as the maps do: the probe names it */
		c->loc->probe_fd = fd;
		inpath_proc(fd, c->loc->probe, sizeof(c->loc->probe));
		return in_lib(c, c->loc->probe, path, colon + 1);
	}
	real_file(path, c->loc->file, sizeof(c->loc->file));
	return in_lib(c, c->loc->file, NULL, colon + 1);
}

/* A bare word, as magic-trace: a symbol, then FILE:LINE[:COL], then an
 * address; LIB:SYMBOL when it has a single ':' and is no FILE:LINE, and
 * LIB:addr:0xHEX (funcspec_lib_colon()). */
static int form_bare(struct ctx *c)
{
	const char *colon = funcspec_lib_colon(c->spec);
	char file[PATH_MAX];
	unsigned line, col;
	int err;

	uint64_t a;

	if (!funcspec_parse_line(c->spec, file, sizeof(file), &line, &col))
		return form_line(c, c->spec);
	if (!funcspec_parse_fn_addr(c->spec, &a))	/* [unnamed @ 0xHEX], as symbols lists it */
		return addr_in(c, c->exe, NULL, a, true);
	if (colon)
		return form_lib(c, colon);
	say(c, "tried '%s' as a symbol: ", c->spec);
	err = find_function(c, c->exe, NULL, c->spec, true);
	if (err != -ENOENT)
		return err;
	if (c->spec[strspn(c->spec, "0123456789abcdefABCDEFx")] == '\0') {
		say(c, "; as an address: ");
		if (!form_addr(c, c->spec))
			return 0;
	} else {
		say(c, "; not a FILE:LINE nor an address (addr:0xHEX)");
	}
	return -ENOENT;
}

/* The forms with a prefix. */
static const struct {
	const char *prefix;
	int (*resolve)(struct ctx *c, const char *arg);
} forms[] = {
	{ "symbol:", form_symbol },
	{ "line:", form_line },
	{ "addr:", form_addr },
	{ "?", form_pick },
	{ ".", form_default },
};

/* Resolves C->spec by its form (SPEC given and not "none"). */
static int resolve_form(struct ctx *c)
{
	const char *spec = c->spec;

	snprintf(c->loc->spec, sizeof(c->loc->spec), "%s", spec);
	if (!*spec) {
		say(c, "expected a SPEC (NAME, symbol:NAME, line:FILE:LINE[:COL], addr:0xHEX, "
		    "LIB:NAME, '.', '?' or none), found ''");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t n = strlen(forms[i].prefix);

		if (strncmp(spec, forms[i].prefix, n))
			continue;
		/* "?" and "." are whole words; the others prefixes */
		if (forms[i].prefix[n - 1] != ':' && spec[n])
			continue;
		return forms[i].resolve(c, spec + n);
	}
	return form_bare(c);
}

/*
 * Opens FILE, where LOC was found by name, once into LOC->probe_fd; checks
 * that what was opened has LOC's function at LOC's address and file offset,
 * and an instruction start there (every probe address passes here). Returns
 * 0, or a negative errno with WHY (LOC->probe_fd closed).
 */
static int probe_open(struct rec_trigger_loc *loc, const char *file, char *why, size_t size)
{
	struct rec_sym s;
	char no[160];
	int err;

	if (loc->probe_fd < 0) {	/* else opened as mapped by the target */
		loc->probe_fd = inpath_open(AT_FDCWD, file, 0, no, sizeof(no));
		if (loc->probe_fd < 0) {
			snprintf(why, size, "%s: %s", file, no);
			err = loc->probe_fd;
			loc->probe_fd = -1;
			return err;
		}
	}
	inpath_proc(loc->probe_fd, loc->probe, sizeof(loc->probe));
	err = rec_elf_addr(loc->probe, loc->vaddr, &s) || s.file_offset != loc->file_offset;
	if (!err && loc->symbol[0])	/* the function, by its symbol (an alias: the same) */
		err = rec_elf_lookup(loc->probe, loc->symbol, &s) ||
		      s.value != (loc->func_vaddr ? loc->func_vaddr : loc->vaddr);
	if (err) {
		snprintf(why, size, "%s: changed while it was read (0x%" PRIx64 " is no longer "
			 "in %s): try again", file, loc->vaddr, loc->symbol[0] ? loc->symbol :
			 "the same place");
		err = -ESTALE;
	} else {
		why[0] = '\0';
		err = rec_insn_start_check(loc->probe, file, loc->vaddr, why, size);
	}
	if (err) {
		close(loc->probe_fd);
		loc->probe_fd = -1;
		loc->probe[0] = 0;
	}
	return err;
}

int rec_trigspec_resolve(const char *spec, const char *exe, pid_t pid,
			 struct rec_trigger_loc *loc, char *why, size_t size)
{
	struct ctx c = { .spec = spec, .exe = exe, .pid = pid, .loc = loc, .why = why,
			 .size = size };

	memset(loc, 0, sizeof(*loc));
	loc->probe_fd = -1;
	why[0] = '\0';
	if (spec && !strcmp(spec, "none"))
		return REC_TRIGSPEC_NONE;
	if (!spec) {
		c.spec = ".";
		if (form_default(&c, "")) {
			why[0] = '\0';
			return REC_TRIGSPEC_NONE;
		}
	} else {
		int err = resolve_form(&c);

		if (err) {
			if (loc->probe_fd >= 0)
				close(loc->probe_fd);
			loc->probe_fd = -1;
			return err;
		}
	}
	return probe_open(loc, loc->in_main ? exe : loc->file, why, size);
}

int rec_trigspec_signal(const char *spec)
{
	int sig;

	if (!spec || strncmp(spec, "signal:", 7))
		return 0;
	return sig_parse(spec + 7, &sig) ? -1 : sig;
}

int rec_trigspec_runtime_addr(const struct rec_trigger_loc *loc, pid_t pid, uint64_t *addr)
{
	struct rec_map m;
	int err;

	err = rec_proc_find_map(pid, loc->file, loc->file_offset, 0, &m);
	if (err) {
		if (!loc->pie && loc->in_main) {
			*addr = loc->vaddr;
			return 0;
		}
		return err;
	}
	*addr = m.start + (loc->file_offset - m.pgoff);
	return 0;
}
