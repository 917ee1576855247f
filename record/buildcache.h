/* SPDX-License-Identifier: MIT */
/*
 * buildcache: writes a binary into a build-id cache laid out as perf's
 * (`perf buildid-cache --add`: PATH/BUILDID/elf, and the link
 * .build-id/XX/REST -> ../../PATH/BUILDID, which `perf --buildid-dir` reads),
 * from a descriptor the caller opened and checked: the binary is never
 * opened again by name (another user's name could meanwhile lead anywhere).
 * Why: docs/design.md "Recording directories", "Threat model".
 */
#ifndef SNAPTRACE_REC_BUILDCACHE_H
#define SNAPTRACE_REC_BUILDCACHE_H

#include <sys/stat.h>

/* Hex digits of the longest build id read (perf's BUILD_ID_SIZE, 20 bytes). */
#define REC_BUILD_ID_HEX 40

/*
 * Reads the GNU build id of the ELF file open at FD into HEX
 * (REC_BUILD_ID_HEX + 1 bytes, lowercase; "" when it has none or a longer
 * one): common/elfid.h's elfid_fd() at perf's size. Returns 0, or -ENOEXEC
 * when FD is no ELF file.
 */
int rec_build_id(int fd, char *hex);

/*
 * Adds the regular file open at FD (ST its stat), the binary PATH (absolute,
 * as the perf.data names it) of build id HEX, to the cache directory DIRFD,
 * which only this process writes (a recording directory's): directories
 * made as needed (mode 0755 less the umask), the copy with the file's
 * permission bits but set-id and others' or the group's write, the
 * .build-id link. Returns 0, -EEXIST when PATH/HEX is there already, or
 * another negative errno (-EINVAL: PATH is no absolute path of plain names).
 */
int rec_build_cache_add(int dirfd, const char *path, int fd, const struct stat *st,
			const char *hex);

#endif
