/* SPDX-License-Identifier: MIT */
#include "childenv.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathtrust.h"

extern char **environ;

/*
 * The variables a helper never gets: each names where perf (6.1: its
 * getenv() calls), a library it loads or fzf runs code or reads
 * configuration from. The tools give perf every path it needs on its
 * command line (--buildid-dir, --symfs, --dlfilter), so none of these is
 * needed. LD_PRELOAD and the other ld.so variables are not here: the
 * dynamic loader applied them to the tool itself already (and glibc drops
 * them for a secure-execution process); PATH neither, by which the caller
 * finds perf.
 */
static const char *const dropped[] = {
	"TRACEEVENT_PLUGIN_DIR",    /* libtraceevent dlopens every .so there */
	"PERF_CONFIG",              /* perf's configuration file (names programs) */
	"PERF_EXEC_PATH",           /* where perf finds the scripts and programs it runs */
	"PERF_BUILDID_DIR",         /* the build-id cache perf reads binaries from */
	"PERF_PAGER",               /* a program perf runs (PAGER is set to cat) */
	"PERF_TEST_ATTR",           /* perf record writes its events' files there */
	"CLANG_EXEC", "CLANG_OPTIONS", "KBUILD_DIR", "KBUILD_OPTS",
	"PERF_BPF_INC_OPTIONS",     /* the compiler perf runs for a BPF event */
	"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
	"PERL5LIB", "PERL5OPT",     /* code perf's embedded interpreters load */
	"DEBUGINFOD_URLS", "DEBUGINFOD_CACHE_PATH",   /* debug files from elsewhere */
	"APK_PATH", "NDK_ROOT", "APP_PLATFORM", "APP_ABI",   /* map.c replace_android_lib():
				  * a /data/app-lib or /system/lib dso read from there */
	"CROSS_COMPILE",            /* arch/common.c: the prefix of the objdump perf runs */
	"FZF_DEFAULT_OPTS_FILE",    /* fzf's options (--bind ...:execute) from a file */
};

bool childenv_own_dir(const char *path, bool follow)
{
	struct stat st;

	return !(follow ? stat(path, &st) : lstat(path, &st)) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && pathtrust_of(&st, NULL) == PATHTRUST_US;
}

bool childenv_safe_dir(const char *path, char *out, size_t size)
{
	char real[PATH_MAX], *slash;
	struct stat entry, dir;

	if (!path || path[0] != '/' || !realpath(path, real) || !childenv_own_dir(real, false) ||
	    strlen(real) >= size || lstat(real, &entry))
		return false;
	strcpy(out, real);
	if (!strcmp(real, "/"))
		return true;
	slash = strrchr(real, '/');
	slash[slash == real] = '\0';	/* the directory above */
	return pathtrust_upward(real, entry, &dir) == 1;
}

/* Whether ENTRY ("NAME=VALUE") is named NAME. */
static bool named(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) && entry[n] == '=';
}

/* Whether SET (may be NULL) leaves the variable of ENTRY ("NAME=...") to us. */
static bool not_in_set(const char *entry, const char *const *set)
{
	for (size_t j = 0; set && set[j]; j++)
		if (!strncmp(entry, set[j], strcspn(set[j], "=") + 1))
			return false;
	return true;
}

/* Whether ENTRY of ours goes to a helper as it is (HOME, PATH of another
 * user's are decided apart): as the caller, all but the dropped ones; as
 * another user (OTHER), the locale alone. */
static bool passes(const char *entry, const char *const *set, bool other)
{
	if (!not_in_set(entry, set) || named(entry, "HOME"))
		return false;
	if (other)
		return named(entry, "LANG") || named(entry, "LANGUAGE") || !strncmp(entry, "LC_", 3);
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
		if (named(entry, dropped[i]))
			return false;
	return true;
}

/* The HOME a helper gets into OUT (SIZE bytes): as the caller (USER
 * NULL) ours, else our passwd home, when childenv_safe_dir(); as *USER,
 * that user's passwd home when absolute. False: none. */
static bool helper_home(const uid_t *user, char *out, size_t size)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (!user && childenv_safe_dir(getenv("HOME"), out, size))
		return true;
	if (getpwuid_r(user ? *user : geteuid(), &pw, buf, sizeof(buf), &res) || !res)
		return false;
	if (!user)
		return childenv_safe_dir(pw.pw_dir, out, size);
	return pw.pw_dir[0] == '/' && (size_t)snprintf(out, size, "%s", pw.pw_dir) < size;
}

/* Appends "NAME=VALUE" to V at *OUT, its text at *TEXT (moved past it). */
static void put(char **v, size_t *out, char **text, const char *name, const char *value)
{
	v[(*out)++] = *text;
	*text += sprintf(*text, "%s=%s", name, value) + 1;
}

char **childenv_build(const char *const *set, const uid_t *user)
{
	size_t n = 0, k = 0, out = 0;
	char home[PATH_MAX], path[PATH_MAX] = "", **v, *text;
	bool has_home, has_path;

	while (environ[n])
		n++;
	while (set && set[k])
		k++;
	has_home = not_in_set("HOME=", set) && helper_home(user, home, sizeof(home));
	/* the system's PATH: where the standard utilities are (POSIX confstr) */
	has_path = user && not_in_set("PATH=", set) &&
		   confstr(_CS_PATH, path, sizeof(path)) - 1 < sizeof(path) - 1;
	/* the array, then the HOME and PATH entries' text */
	v = malloc((n + k + 3) * sizeof(*v) + sizeof("HOME=") + strlen(has_home ? home : "") +
		   sizeof("PATH=") + strlen(path));
	if (!v)
		return NULL;
	text = (char *)(v + n + k + 3);
	for (size_t i = 0; i < n; i++)
		if (passes(environ[i], set, user))
			v[out++] = environ[i];
	if (has_home)
		put(v, &out, &text, "HOME", home);
	if (has_path)
		put(v, &out, &text, "PATH", path);
	for (size_t j = 0; j < k; j++)
		v[out++] = (char *)set[j];
	v[out] = NULL;
	return v;
}
