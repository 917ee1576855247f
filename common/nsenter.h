/* SPDX-License-Identifier: MIT */
/*
 * nsenter: keeping perf in our own mount namespace. perf (6.1: util/
 * namespaces.c nsinfo__new(), nsinfo__mountns_enter()) looks at the live
 * process of every pid a perf.data names (/proc/PID/ns/mnt) and, when it is
 * in another mount namespace, setns()es into it to open that process's
 * files: a jitdump (jitdump.c jit_open()), the ELF files perf inject --jit
 * creates (jit_emit_elf(): open(O_CREAT|O_TRUNC)), perf maps and binaries
 * (symbol.c dso__load(), dso.c open_dso()). A pid the perf.data's author
 * chose, of a process in the author's own user and mount namespace, would
 * have root read and write where that author's mounts lead. Why:
 * docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_NSENTER_H
#define SNAPTRACE_NSENTER_H

#include <stdbool.h>

/*
 * Takes from the calling process, and so from every program it starts,
 * what setns(CLONE_NEWNS) needs: CAP_SYS_ADMIN and CAP_SYS_CHROOT leave
 * the bounding set (where the process may; for root, whose programs get
 * the bounding set at exec), the effective and inheritable sets (so the
 * ambient set too), and CAP_SYS_CHROOT the permitted set. CAP_SYS_ADMIN
 * stays permitted, not effective: a child about to exec perf raises it to
 * give perf a private /tmp (tmpview.h) and drops it (nsenter_admin());
 * no program started ever has it (the bounding set). perf's setns then
 * fails and it opens every name in our mount namespace. Call it before
 * any thread starts. Returns 0, or a negative errno of capget/capset
 * (dropping from the bounding set without CAP_SETPCAP is no error: such a
 * process cannot enter a namespace it does not own anyway, unless perf
 * carries file capabilities).
 */
int nsenter_drop(void);

/* Whether CAP_SYS_ADMIN is in the calling thread's permitted set (root
 * after nsenter_drop()). */
bool nsenter_admin_permitted(void);

/*
 * ON: raises CAP_SYS_ADMIN into the calling thread's effective set (from
 * the permitted set); else takes it out of the effective and permitted
 * sets for good. Async-signal-safe (capget, capset): for a forked child.
 * Returns 0 or a negative errno (-EPERM: not permitted).
 */
int nsenter_admin(bool on);

#endif
