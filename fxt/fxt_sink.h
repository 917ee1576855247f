/* SPDX-License-Identifier: MIT */
/*
 * fxt_sink (private to fxt/): a buffered byte sink with a sticky error, after
 * redis rio. Bytes go to a raw file, a gzip member (fxt_deflate.h) or stdout.
 * The output is opened by outpath (common/outpath.h): a regular file is
 * written under a temporary name and renamed to PATH by fxt_sink_close();
 * on any error, or fxt_sink_abort(), the temporary file is removed and
 * nothing new exists under PATH. A device or FIFO is written straight.
 *
 * Writers reserve room with fxt_sink_reserve(), fill it, and commit it with
 * fxt_sink_commit(): whole records are placed in the buffer at once. After
 * the first failure every call fails with the same negative errno (s->err)
 * and writes nothing.
 */
#ifndef SNAPTRACE_FXT_SINK_H
#define SNAPTRACE_FXT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>

#include "fxt_deflate.h"
#include "outpath.h"

enum {
	FXT_SINK_BUF_FIRST = 16 << 10,  /* uncompressed staging buffer: first size, */
	FXT_SINK_BUF_BYTES = 1 << 20,   /* ... doubling up to this */
};

struct fxt_sink {
	uint8_t *buf;          /* staging buffer of cap bytes (FXT_SINK_BUF_FIRST,
				* doubled as records come, up to FXT_SINK_BUF_BYTES:
				* a small trace costs a small buffer) */
	size_t len, cap;       /* bytes staged, buf's size */
	int err;               /* 0 or the sticky negative errno */
	struct outpath out;    /* the file written (out.fd) */
	bool is_stdout;
	bool gzip;
	bool z_ready;          /* fxt_deflate_init succeeded */
	uint64_t total;        /* bytes committed (before compression) */
	struct fxt_deflate z;
	/* Gzip: deflate runs on its own thread over a full staging buffer
	 * (job) while the writer fills the other one (buf). */
	uint8_t *job;          /* the buffer being deflated, or spare when idle
				* (NULL until the first hand-over) */
	size_t job_len, job_cap;
	int job_err;           /* the deflate thread's error, taken when idle */
	bool job_busy, stop, thread_ready;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/*
 * Opens a sink on PATH ("-" is stdout), gzip-compressed if GZIP (never for
 * stdout). Returns 0, or a negative errno with nothing left on disk.
 */
int fxt_sink_open(struct fxt_sink *s, const char *path, bool gzip);

/* Writes out the staging buffer. Returns 0 or the sticky negative errno. */
int fxt_sink_flush(struct fxt_sink *s);

/* Slow path of fxt_sink_reserve(): makes room for N bytes, growing the
 * staging buffer while it is below FXT_SINK_BUF_BYTES, else flushing it.
 * Returns 0 or the sticky negative errno (-ENOMEM when it cannot grow). */
int fxt_sink_room(struct fxt_sink *s, size_t n);

/*
 * Returns room for N bytes (N <= FXT_SINK_BUF_BYTES) at the end of the
 * staging buffer, growing or flushing it first if needed, or NULL after an
 * error.
 */
static inline uint8_t *fxt_sink_reserve(struct fxt_sink *s, size_t n)
{
	if (s->err)
		return NULL;
	if (s->cap - s->len < n && fxt_sink_room(s, n) < 0)
		return NULL;
	return s->buf + s->len;
}

/* Commits N bytes previously reserved and filled. */
static inline void fxt_sink_commit(struct fxt_sink *s, size_t n)
{
	s->len += n;
	s->total += n;
}

/*
 * Flushes, ends the gzip member, closes and renames the temporary file to
 * the final path (stdout is flushed, not closed). Frees what S holds.
 * Returns 0, or a negative errno with no file left under the final path.
 */
int fxt_sink_close(struct fxt_sink *s);

/* Discards the output: closes and removes the temporary file; frees S's memory. */
void fxt_sink_abort(struct fxt_sink *s);


#endif
