/* SPDX-License-Identifier: MIT */
#include "perfattr.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <unistd.h>

/* The flag bits after read_format (disabled ... sigtrap): 38 in perf 6.1,
 * then __reserved_1. */
#define FLAG_BITS 38

/* A field of struct perf_event_attr and the bits it may hold. */
struct field {
	const char *name;
	size_t off, width;  /* bytes */
	uint64_t defined;
};

#define FIELD(f, bits) \
	{ #f, offsetof(struct perf_event_attr, f), sizeof(((struct perf_event_attr *)0)->f), bits }

/* The one table: each field whose undefined bits perf 6.1's reader takes as
 * they are (the reserved ones must be 0). */
static const struct field fields[] = {
	FIELD(sample_type, PERF_SAMPLE_MAX - 1),
	FIELD(read_format, PERF_FORMAT_MAX - 1),
	{ "flags", offsetof(struct perf_event_attr, read_format) + 8, 8,
	  ((uint64_t)1 << FLAG_BITS) - 1 },
	FIELD(branch_sample_type, PERF_SAMPLE_BRANCH_MAX - 1),
	FIELD(__reserved_2, 0),
	FIELD(__reserved_3, 0),
};

/* The little-endian value of the N bytes at P. */
static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int perfattr_check(int fd, uint64_t attrs_off, uint64_t attrs_size, uint64_t entry_size,
		   char *why, size_t size)
{
	unsigned char b[sizeof(struct perf_event_attr)];

	if (entry_size <= 16)	/* the ids' section follows each attribute */
		return 0;
	for (uint64_t at = 0, k = 0; at + entry_size <= attrs_size; at += entry_size, k++) {
		uint64_t have = entry_size - 16 < sizeof(b) ? entry_size - 16 : sizeof(b), own;
		ssize_t n;

		do
			n = pread(fd, b, (size_t)have, (off_t)(attrs_off + at));
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if ((uint64_t)n < have)
			return -EIO;
		own = le(b + offsetof(struct perf_event_attr, size), 4);
		own = own ? own : PERF_ATTR_SIZE_VER0;
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			const struct field *f = &fields[i];
			uint64_t v;

			if (f->off + f->width > have || f->off + f->width > own)
				continue;
			v = le(b + f->off, f->width);
			if (!(v & ~f->defined))
				continue;
			snprintf(why, size, "its attribute %" PRIu64 "'s %s holds bits perf does not "
				 "define (0x%" PRIx64 " of 0x%" PRIx64 ")", k, f->name, v & ~f->defined,
				 v);
			return 1;
		}
	}
	return 0;
}
