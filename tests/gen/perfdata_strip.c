/* SPDX-License-Identifier: MIT */
/*
 * perfdata_strip IN OUT: writes OUT, a copy of the perf.data IN without its
 * side-band records (COMM, MMAP, MMAP2, FORK: what names its processes and
 * maps their addresses), through common/perfdata.c's perfdata_rewrite():
 * a snapshot as perf writes it when it switches files after the target
 * exited (it finds nothing in /proc to synthesize). Exit 1 with the reason
 * on stderr when it cannot. Built by the tests (tests/record/multisnap.test.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perfdata.h"

static bool not_sideband(const unsigned char *rec, void *arg)
{
	uint32_t type;

	(void)arg;
	memcpy(&type, rec, 4);
	return type != PERFDATA_REC_COMM && type != PERFDATA_REC_MMAP &&
	       type != PERFDATA_REC_MMAP2 && type != PERFDATA_REC_FORK;
}

int main(int argc, char **argv)
{
	int fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: perfdata_strip IN OUT\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	err = perfdata_rewrite(argv[1], NULL, 0, not_sideband, NULL, fd);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-err));
		unlink(argv[2]);
		return 1;
	}
	return 0;
}
