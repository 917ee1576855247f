/* SPDX-License-Identifier: MIT */
/*
 * debuglink: the .gnu_debuglink names of the binaries a perf.data maps,
 * checked before perf reads them. perf 6.1 looks for a binary's debug file
 * by that name (dso.c debuglink_paths[]: the bare name, then beside the
 * binary, in its .debug/, under /usr/lib/debug) and, when the binary has no
 * build id, takes the symbols of whatever regular file it finds: a name
 * holding '/' ("/root/priv/libsecret.so", "../../x") is a path of the
 * binary's author's choosing, which root's perf opened and named the
 * binary's frames from. Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_CONVERT_DEBUGLINK_H
#define SNAPTRACE_CONVERT_DEBUGLINK_H

#include <stddef.h>

#include "runas.h"

/*
 * Reads the executable file mappings of the perf.data PERFDATA (a path
 * this process reaches) and, for each binary there (SYMFS before its name
 * when not NULL, as perf's --symfs) owned by another user than root and the
 * caller, its .gnu_debuglink (libelf; opened as runas_open() opens: a
 * regular file, never a FIFO, and one each user of WHO may open (NULL:
 * none), so a binary the recording's owner may not read is not looked
 * at). Returns 0 when none names a path; -EPERM
 * with WHY (SIZE bytes) one phrase naming the binary and its debuglink
 * name; or -ENOMEM (WHY says so). A perf.data that cannot be read is 0:
 * the mappings before the damage are checked, and what reads it says why.
 */
int debuglink_check(const char *perfdata, const char *symfs, const struct runas_set *who,
		    char *why, size_t size);

#endif
