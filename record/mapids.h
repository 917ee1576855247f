/* SPDX-License-Identifier: MIT */
/*
 * mapids: the build ids of the files a target maps where another user
 * names them (their process, or a file where they may change a name:
 * procfs.h), read from the mapped files themselves. perf record (6.1,
 * --buildid-mmap's synthesis; without it, the build-id table it writes at
 * the end) opens each file /proc/PID/maps names by that name, as root:
 * that user may have left a FIFO there (perf waits in open()) or a
 * symbolic link to a file only root may read (perf follows it). So for
 * such a target perf runs with --no-buildid and opens none of them (plan.c
 * buildid_args()), and the recorder reads each executable file mapping's
 * build id through /proc/PID/map_files/START-END (the mapped inode, never
 * the name: only a regular file, opened from that descriptor) and lists
 * them in record.json's "buildids" (record_json.h), which the converter
 * checks the binaries against as it does perf's (convert/binaries.h).
 * Why: docs/design.md "Threat model".
 */
#ifndef SNAPTRACE_REC_MAPIDS_H
#define SNAPTRACE_REC_MAPIDS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The most files listed (record.json stays small): the rest are not. */
#define REC_MAPIDS_MAX 4096u

/* A file mapped, and its build id. */
struct rec_mapid {
	char *file;              /* as /proc/PID/maps names it, so as perf does (owned) */
	char hex[41];            /* its GNU build id, lowercase hex ("": it has none) */
	dev_t dev;               /* the mapped file (st_dev, st_ino) */
	ino_t ino;
};

struct rec_mapids {
	struct rec_mapid *ids;   /* owned */
	size_t n, cap;
	size_t left;             /* files past REC_MAPIDS_MAX, not listed */
};

/*
 * Adds to M the executable file mappings of process PID not listed yet (a
 * name and file already there, or no ELF file, add nothing): each read
 * through /proc/PID/map_files/ when it is a regular file. Returns 0, or
 * a negative errno when /proc/PID/maps cannot be read (-ENOMEM: out of
 * memory; what was added stays).
 */
int rec_mapids_read(struct rec_mapids *m, pid_t pid);

/* Writes M as record.json's "buildids" member's value: a JSON array of
 * {"file", "build_id"}, the names escaped (escape.h). */
void rec_mapids_write(FILE *f, const struct rec_mapids *m);

/* Frees what M holds; M stays valid, empty. */
void rec_mapids_free(struct rec_mapids *m);

#endif
