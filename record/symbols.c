/* SPDX-License-Identifier: MIT */
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "diag.h"
#include "escape.h"
#include "funcspec.h"
#include "host.h"
#include "inpath.h"
#include "run.h"
#include "picker.h"
#include "procfs.h"

#define MAX_FILES 256

struct entry {
	char *demangled, *name;   /* owned */
	int file;                 /* index into the table's files */
	struct rec_sym s;         /* value, size, file_offset, pie (names left empty) */
};

/* The functions of some files (one pass over each), matching a pattern. */
struct table {
	char (*files)[4096];      /* their names; files[0] read through EXE when set */
	int *fds;                 /* files[1...]: the files PID maps, read (-1: by name) */
	const char *exe;
	int nfiles;
	const char *pattern;      /* NULL: every function */
	bool offer;               /* for the picker: no parts split off a function, no
				     start-up code of the C run time (internal()) */
	struct entry *e;
	size_t n, cap;
	int file, err;            /* while collecting: the file, an error */
};

/* The file name of PATH. */
static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The C run time's and the linker's own code in every program: nobody means
 * one of these as a trigger. */
static const char *const crt_functions[] = {
	"_init", "_fini", "_start", "deregister_tm_clones", "register_tm_clones",
	"__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
	"_dl_relocate_static_pie",
};

/* Whether S is not worth offering as a trigger: a part gcc split off a
 * function (NAME.cold, NAME.part.N: its callers reach it by jumps, not
 * calls), or start-up code of the C run time. */
static bool internal(const struct rec_sym *s)
{
	if (rec_elf_is_part(s->name))
		return true;
	for (size_t i = 0; i < sizeof(crt_functions) / sizeof(crt_functions[0]); i++)
		if (!strcmp(s->name, crt_functions[i]))
			return true;
	return false;
}

static int collect_cb(const struct rec_sym *s, void *arg)
{
	struct table *t = arg;
	char unnamed[FUNCSPEC_UNNAMED_MAX];
	/* named as the trace names it */
	const char *shown = s->unnamed ? funcspec_unnamed(s->value, unnamed, sizeof(unnamed))
				       : s->demangled;
	struct entry *e;

	if (t->offer && internal(s))
		return 0;
	if (t->pattern && !funcspec_pattern_matches(t->pattern, shown) &&
	    !funcspec_pattern_matches(t->pattern, s->name))
		return 0;
	e = array_grow(t->e, &t->cap, t->n, sizeof(*t->e));
	if (!e)
		return -ENOMEM;
	t->e = e;
	e = &t->e[t->n];
	e->demangled = strdup(shown);
	e->name = strdup(s->name);
	if (!e->demangled || !e->name) {
		free(e->demangled);
		free(e->name);
		return -ENOMEM;
	}
	e->file = t->file;
	e->s = *s;
	e->s.name[0] = e->s.demangled[0] = '\0';
	t->n++;
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->s.value != y->s.value)
		return x->s.value < y->s.value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].demangled);
		free(t->e[i].name);
	}
	free(t->e);
	for (int i = 0; t->fds && i < t->nfiles; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	free(t->fds);
	free(t->files);
}

/* Reads the functions of T's files, sorted, each once (.symtab and .dynsym
 * both list the exported ones). Returns 0 or the error of the first file
 * (the program); a library that cannot be read is left out. */
static int table_collect(struct table *t, char *why, size_t size)
{
	size_t k = 0;

	for (t->file = 0; t->file < t->nfiles; t->file++) {
		char fd[32];
		const char *path = t->file == 0 && t->exe ? t->exe :
				   t->fds[t->file] >= 0 ? inpath_proc(t->fds[t->file], fd, sizeof(fd)) :
				   t->files[t->file];
		int err = rec_elf_functions(path, collect_cb, t);

		/* a file without .symtab (stripped: .dynsym alone, or none): the
		 * functions of its unwind table no symbol holds, unnamed, as the
		 * trace names them; for the picker, the program's only */
		if ((!err || err == REC_ELF_ENOSYMS) && (t->file == 0 || !t->offer))
			err = rec_elf_unnamed_functions(path, collect_cb, t);

		if (err == -ENOMEM || (err && t->file == 0 && err != REC_ELF_ENOSYMS)) {
			snprintf(why, size, "%s: cannot read its functions: %s", t->files[t->file],
				 rec_elf_strerror(err));
			return err;
		}
	}
	array_sort(t->e, t->n, sizeof(*t->e), by_place);
	for (size_t i = 0; i < t->n; i++) {
		if (k && !by_place(&t->e[k - 1], &t->e[i])) {
			free(t->e[i].demangled);
			free(t->e[i].name);
			continue;
		}
		t->e[k++] = t->e[i];
	}
	t->n = k;
	return 0;
}

/* T's files: EXE first (its real path; a process's, the kernel's name, the
 * file read through EXE itself), then the other files PID maps executable
 * (pid 0: none), each read as mapped (rec_proc_exec_files()). Returns 0 or
 * -ENOMEM. */
static int table_files(struct table *t, const char *exe, pid_t pid)
{
	char real[4096];
	int n;

	t->files = calloc(MAX_FILES, sizeof(*t->files));
	t->fds = malloc(MAX_FILES * sizeof(*t->fds));
	if (!t->files || !t->fds)
		return -ENOMEM;
	t->fds[0] = -1;
	t->exe = exe;
	if (pid > 0 ? !rec_proc_same_mntns(pid) || !rec_proc_exe_name(exe, real, sizeof(real)) :
		      !realpath(exe, real))
		snprintf(real, sizeof(real), "%s", exe);	/* /proc/PID/exe: the file itself */
	else if (pid <= 0)
		t->exe = NULL;	/* read by its real path */
	snprintf(t->files[0], sizeof(t->files[0]), "%s", real);
	t->nfiles = 1;
	if (pid <= 0)
		return 0;
	n = rec_proc_exec_files(pid, t->files + 1, t->fds + 1, MAX_FILES - 1);
	if (n == -EXDEV)
		diag_warn("process %d is in another mount namespace: its libraries are not read "
			  "(the paths it maps them by name other files here), only its program "
			  "(/proc/%d/exe)", (int)pid, (int)pid);
	for (int i = 0; i < n && i < MAX_FILES - 1; i++) {
		if (!strcmp(t->files[1 + i], real)) {
			close(t->fds[1 + i]);	/* the program: read through EXE */
			continue;
		}
		memmove(t->files[t->nfiles], t->files[1 + i], sizeof(t->files[0]));
		t->fds[t->nfiles++] = t->fds[1 + i];
	}
	return 0;
}

/* Whether S is a process id that exists. */
static pid_t as_pid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v <= 0 || v > INT32_MAX || !rec_proc_alive((pid_t)v))
		return 0;
	return (pid_t)v;
}

int rec_symbols_list(FILE *out, const char *target, const char *pattern, char *why, size_t size)
{
	struct table t = { .pattern = pattern && *pattern ? pattern : NULL };
	char exe[4096];
	pid_t pid = as_pid(target);
	int err;

	why[0] = '\0';
	if (pid) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	} else if (run_find_program(target, exe, sizeof(exe))) {
		if (access(target, R_OK)) {
			snprintf(why, size, "%s: %s (expected a process id or an ELF file: a "
				 "program or a library)", target, strerror(errno));
			return -ENOENT;
		}
		snprintf(exe, sizeof(exe), "%s", target);   /* a library: not executable */
	}
	err = pid ? 0 : inpath_open(AT_FDCWD, exe, 0, why, size);
	if (err == -EINVAL) {
		char kind[128];	/* a FIFO never waited on, a device never read */

		snprintf(kind, sizeof(kind), "%s", why);
		snprintf(why, size, "%s: %s (an ELF file) or a process id", target, kind);
		return err;
	}
	if (err > 0)
		close(err);
	why[0] = '\0';
	err = table_files(&t, exe, pid);
	if (!err)
		err = table_collect(&t, why, size);
	if (err) {
		if (!why[0])
			snprintf(why, size, "%s", strerror(-err));
		table_free(&t);
		return err;
	}
	/* each field escaped as text (a binary's names are anybody's: a TAB in
	 * one cannot split the line); no CSV quoting, a name stays what
	 * --trigger takes back (docs/design.md "Threat model") */
	for (size_t i = 0; i < t.n; i++) {
		esc_fputs(out, t.e[i].demangled, ESC_TEXT);
		fputc('\t', out);
		if (t.e[i].s.unnamed) {	/* no symbol: the spelling --trigger takes */
			esc_fputs(out, t.files[t.e[i].file], ESC_TEXT);
			fprintf(out, ":addr:0x%" PRIx64, t.e[i].s.value);
		} else {
			esc_fputs(out, t.e[i].name, ESC_TEXT);
		}
		fputc('\t', out);
		esc_fputs(out, t.files[t.e[i].file], ESC_TEXT);
		fprintf(out, "\t0x%" PRIx64 "\n", t.e[i].s.value);
	}
	err = (int)t.n;
	table_free(&t);
	return err;
}

/* Picks one of T's entries on the terminal (rec_pick); sets *PICK. */
static int pick_entry(const struct table *t, size_t *pick)
{
	static const struct rec_picker picker = {
		"trigger", "the function whose call takes the snapshot",
	};
	char **rows = calloc(t->n ? t->n : 1, sizeof(*rows));
	int err = rows ? 0 : -ENOMEM;

	for (size_t i = 0; i < t->n && !err; i++) {
		if (asprintf(&rows[i], "%s\t%s", t->e[i].demangled,
			     base(t->files[t->e[i].file])) < 0) {
			rows[i] = NULL;
			err = -ENOMEM;
		}
	}
	if (!err)
		err = rec_pick(&picker, rows, t->n, pick);
	for (size_t i = 0; rows && i < t->n; i++)
		free(rows[i]);
	free(rows);
	return err;
}

int rec_symbols_pick(const char *exe, pid_t pid, struct rec_sym *s, char *file,
		     size_t size_file, int *fd, char *why, size_t size)
{
	struct table t = { .offer = true };
	size_t pick = 0;
	int err;

	*fd = -1;
	if (!isatty(STDIN_FILENO)) {
		snprintf(why, size, "expected a terminal to pick a function on, "
			 "found none (stdin is not one); list them with `snaptrace symbols %s`",
			 pid > 0 ? "PID" : exe);
		return -ENOTTY;
	}
	err = table_files(&t, exe, pid);
	if (!err)
		err = table_collect(&t, why, size);
	if (!err && !t.n) {
		snprintf(why, size, "%s: expected functions to pick from, found none", exe);
		err = -ENOENT;
	}
	if (!err)
		err = pick_entry(&t, &pick);
	if (err == -ECANCELED)
		snprintf(why, size, "no function picked");
	else if (err && !why[0])
		snprintf(why, size, "%s", strerror(-err));
	if (!err) {
		*s = t.e[pick].s;
		snprintf(s->name, sizeof(s->name), "%s", t.e[pick].name);
		snprintf(s->demangled, sizeof(s->demangled), "%s", t.e[pick].demangled);
		snprintf(file, size_file, "%s", t.files[t.e[pick].file]);
		*fd = t.fds[t.e[pick].file];
		t.fds[t.e[pick].file] = -1;	/* the caller's now */
	}
	table_free(&t);
	return err;
}
