/* SPDX-License-Identifier: MIT */
/*
 * childenv: the environment of every helper program the tools run (perf,
 * fzf, snaptrace-convert from the recorder), decided here once; spawn.c
 * gives it to every child but the traced program, whose environment is the
 * caller's as is (a tracer never changes what it traces). The tools run as
 * root with an environment another user may have set (HOME of a sudo that
 * keeps it, `su -p`): perf and the libraries it loads run code and read
 * configuration from paths the environment names (libtraceevent dlopens
 * every .so in $TRACEEVENT_PLUGIN_DIR and ~/.local/lib/traceevent/plugins
 * whenever tracepoints are read; perf reads ~/.perfconfig, $PERF_CONFIG,
 * runs helpers from $PERF_EXEC_PATH). The rule (docs/design.md "Threat
 * model"): such variables are dropped, and HOME is kept only when it is a
 * directory of the caller's that nobody else may write, on a path nobody
 * else may change (childenv_safe_dir()); else it is the caller's passwd
 * home under the same rule, else unset.
 */
#ifndef SNAPTRACE_CHILDENV_H
#define SNAPTRACE_CHILDENV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether PATH is a directory of the caller's (euid; root's counts for
 * root) where nobody else may put a name (pathtrust.h: PATHTRUST_US): PATH
 * itself when not FOLLOW (lstat: a link is not), else what it leads to.
 */
bool childenv_own_dir(const char *path, bool follow);

/*
 * Whether PATH (absolute) leads to a directory of the caller's that nobody
 * else may write (childenv_own_dir()) along a path nobody else may change:
 * for each directory above the one it resolves to, pathtrust_of() that
 * directory and the entry on the way in it is PATHTRUST_US (root's or the
 * caller's, written by nobody else, or sticky as /tmp with the entry root's
 * or the caller's). Its resolved path (realpath) into OUT (SIZE bytes)
 * when true.
 */
bool childenv_safe_dir(const char *path, char *out, size_t size);

/*
 * The environment of a helper program: ours without the variables the rule
 * above drops, HOME as it says (unless SET names one), then the
 * "NAME=VALUE" entries of SET (NULL-terminated, may be NULL) over it.
 * Returns a malloc'd NULL-terminated array (one block: free() it; the
 * strings are environ's and SET's but the HOME entry, which lives in the
 * block), or NULL when out of memory.
 */
char **childenv_build(const char *const *set);

#endif
