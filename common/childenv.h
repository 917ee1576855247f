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
 * home under the same rule, else unset. A helper run as another user (perf
 * as the owner of a recording the caller may not trust: runas.h) is that
 * user's process, whose /proc/PID/environ she reads and whose memory she
 * may ptrace: it gets nothing of ours but the locale (an allow-list, not
 * the drop-list): PATH the system's (confstr(_CS_PATH)), HOME that user's
 * passwd home (never the caller's: perf reads ~/.perfconfig), PAGER=cat.
 */
#ifndef SNAPTRACE_CHILDENV_H
#define SNAPTRACE_CHILDENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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
 * The environment of a helper program. USER NULL (run as the caller): ours
 * without the variables the rule above drops, HOME as it says; USER
 * another user's uid (the helper takes that user's credentials before its
 * exec): only our locale variables (LANG, LANGUAGE, LC_*), PATH the
 * system's and HOME *USER's passwd home (none when it has no entry or no
 * absolute home). Then the "NAME=VALUE" entries of SET (NULL-terminated,
 * may be NULL) over it (SET's HOME wins). Returns a malloc'd
 * NULL-terminated array (one block: free() it; the strings are environ's
 * and SET's but the HOME and PATH entries, which live in the block), or
 * NULL when out of memory.
 */
char **childenv_build(const char *const *set, const uid_t *user);

#endif
