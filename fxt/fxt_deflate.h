/* SPDX-License-Identifier: MIT */
/*
 * fxt_deflate (private to fxt/): one gzip member (RFC 1952) made from
 * buffers handed in one after another, by ISA-L's igzip where the build has
 * it (libisal-dev: the Makefile defines FXT_DEFLATE_ISAL), else by zlib's
 * deflate. Both write a standard gzip stream that zlib, gzip and Perfetto
 * read. Why igzip: on the converter's FXT its level 1 deflates about 5
 * times faster than zlib's level 1 for a 4% larger file (measured in
 * fxt_deflate.c).
 */
#ifndef SNAPTRACE_FXT_DEFLATE_H
#define SNAPTRACE_FXT_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef FXT_DEFLATE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

enum { FXT_DEFLATE_OUT_BYTES = 1 << 18 };  /* compressed bytes handed out at once */

struct fxt_deflate {
	uint8_t *out;              /* FXT_DEFLATE_OUT_BYTES */
#ifdef FXT_DEFLATE_ISAL
	struct isal_zstream z;
	uint8_t *level_buf;
#else
	z_stream z;
	bool ready;                /* deflateInit2 succeeded */
#endif
};

/* Writes N compressed bytes at P somewhere (the sink's file). Returns 0 or
 * a negative errno, which stops fxt_deflate_run(). */
typedef int (*fxt_deflate_emit)(void *arg, const uint8_t *p, size_t n);

/* Starts a gzip member in D. Returns 0 or -ENOMEM (D then holds nothing). */
int fxt_deflate_init(struct fxt_deflate *d);

/*
 * Compresses LEN bytes at IN, handing what it makes to EMIT(ARG, ...);
 * with FINISH, ends the member (header, data, trailer: a whole gzip file
 * has then been emitted). Returns 0 or a negative errno (EMIT's, or
 * -EINVAL when the compressor fails).
 */
int fxt_deflate_run(struct fxt_deflate *d, const uint8_t *in, size_t len, bool finish,
		    fxt_deflate_emit emit, void *arg);

/* Frees what D holds (after init, whatever happened since). */
void fxt_deflate_end(struct fxt_deflate *d);

#endif
