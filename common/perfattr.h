/* SPDX-License-Identifier: MIT */
/*
 * perfattr: the fields of a perf.data's attributes (struct perf_event_attr,
 * linux/perf_event.h) that hold bits perf 6.1 does not define. perf's reader
 * trusts them: another user's perf.data whose first attribute's
 * branch_sample_type was 0xffffffff crashed root's perf script (SIGSEGV).
 * perfdata_check() refuses such a file. Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_PERFATTR_H
#define SNAPTRACE_PERFATTR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reads the N = ATTRS_SIZE / ENTRY_SIZE attribute entries (struct
 * perf_file_attr: an attribute, then its ids' section) at ATTRS_OFF of the
 * perf.data open as FD, ENTRY_SIZE bytes each (the header's attr_size), and
 * checks each field of the table in perfattr.c that lies within both the
 * entry and the attribute's own size (its `size` field; 0: the first
 * published 64 bytes, PERF_ATTR_SIZE_VER0). Returns 0 when every field holds
 * only bits linux/perf_event.h defines; 1 when one does not, WHY (SIZE
 * bytes) then one phrase without the path, e.g. "its attribute 0's
 * branch_sample_type holds bits perf does not define (0xfff80000 of
 * 0xffffffff)"; or a negative errno (pread; -EIO: cut short).
 */
int perfattr_check(int fd, uint64_t attrs_off, uint64_t attrs_size, uint64_t entry_size,
		   char *why, size_t size);

#endif
