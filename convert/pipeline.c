/* SPDX-License-Identifier: MIT */
/*
 * A ring of NBLOCKS blocks goes round: the calling thread reads text into a
 * free block (carrying a partial last line over to the next block), workers
 * parse ready blocks, and the calling thread converts parsed blocks strictly
 * in order, then frees them for reading again. A text that fits in one block
 * starts no worker: the calling thread parses it (a thread's start and end
 * cost more than a small input's parsing).
 */
#include "pipeline.h"

#include "array.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binstream.h"
#include "ptdecode.h"
#include "diag.h"

#define MAX_WORKERS 8

enum block_state { BLOCK_FREE, BLOCK_READY, BLOCK_PARSING, BLOCK_PARSED };

struct block {
	enum block_state state;
	char *text;                 /* PIPELINE_BLOCK + CONV_LINE_MAX bytes */
	size_t len;                 /* bytes of whole lines (the last may lack '\n' at EOF) */
	struct conv_line *lines;
	size_t nlines, caplines;
	bool nomem;
};

struct pipeline {
	pthread_mutex_t lock;
	pthread_cond_t work, done;  /* a block became READY / PARSED */
	struct block *blocks;
	unsigned nblocks;
	bool stop;
};

/* Splits block B into lines and parses each. Returns false on out-of-memory. */
static bool parse_block(struct block *b)
{
	const char *p = b->text, *end = b->text + b->len;

	b->nlines = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		struct conv_line *l = array_grow(b->lines, &b->caplines, b->nlines, sizeof(*l));

		if (!l)
			return false;
		b->lines = l;
		conv_parse_line(p, (size_t)(e - p), &b->lines[b->nlines++]);
		p = e + 1;
	}
	return true;
}

static void *worker(void *arg)
{
	struct pipeline *pl = arg;

	pthread_mutex_lock(&pl->lock);
	for (;;) {
		struct block *b = NULL;

		for (unsigned i = 0; i < pl->nblocks && !b; i++)
			if (pl->blocks[i].state == BLOCK_READY)
				b = &pl->blocks[i];
		if (!b) {
			if (pl->stop)
				break;
			pthread_cond_wait(&pl->work, &pl->lock);
			continue;
		}
		b->state = BLOCK_PARSING;
		pthread_mutex_unlock(&pl->lock);
		b->nomem = !parse_block(b);
		pthread_mutex_lock(&pl->lock);
		b->state = BLOCK_PARSED;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/*
 * Fills block B: CARRY (the partial line left by the previous block, moved
 * to B's start) plus new text, cut after its last newline; what follows is
 * the new carry. Returns 1 when B holds text, 0 at the end, -1 on error.
 */
static int fill_block(struct input *in, struct block *b, char *carry, size_t *ncarry, bool *eof,
		      char *errbuf, size_t errlen)
{
	size_t len = *ncarry, want = PIPELINE_BLOCK;
	char *cut;

	memcpy(b->text, carry, len);
	for (;;) {
		while (!*eof && len < want) {
			long r = input_read(in, b->text + len, want - len, errbuf, errlen);

			if (r < 0)
				return -1;
			if (r == 0)
				*eof = true;
			len += (size_t)r;
		}
		cut = *eof ? NULL : memrchr(b->text, '\n', len);
		if (*eof || cut || want > PIPELINE_BLOCK)
			break;
		want = PIPELINE_BLOCK + CONV_LINE_MAX;	/* a line longer than a block */
	}
	if (*eof || !cut) {	/* !cut: a line longer than CONV_LINE_MAX, which the driver refuses */
		b->len = len;	/* at the end a last line may lack its newline */
		*ncarry = 0;
	} else {
		b->len = (size_t)(cut - b->text) + 1;
		*ncarry = len - b->len;
		memcpy(carry, b->text + b->len, *ncarry);
	}
	return b->len > 0 ? 1 : 0;
}

static void progress(struct input *in, const char *name)
{
	uint64_t size = input_size(in), done = input_bytes(in);

	if (size)
		diag_progress("%s: %llu%%", name, (unsigned long long)(done * 100 / size));
	else
		diag_progress("%s: %llu MiB", name, (unsigned long long)(done >> 20));
}

/* pipeline_convert() of a text input. Over 80 lines, kept whole: one loop
 * over the ring of blocks (read ahead, wait for the parse, feed the driver)
 * whose indices, threads and carry every step shares. */
static int convert_text(struct input *in, const char *name, struct conv_driver *cv,
			unsigned workers, int *conv_err, char *errbuf, size_t errlen)
{
	struct pipeline pl = { .lock = PTHREAD_MUTEX_INITIALIZER,
			       .work = PTHREAD_COND_INITIALIZER,
			       .done = PTHREAD_COND_INITIALIZER };
	pthread_t threads[MAX_WORKERS];
	unsigned nthreads = 0, next_read = 0, next_conv = 0;
	char *carry = malloc(PIPELINE_BLOCK + CONV_LINE_MAX);
	size_t ncarry = 0;
	bool eof = false;
	int rc = PIPELINE_OK;

	workers = workers < 1 ? 1 : workers > MAX_WORKERS ? MAX_WORKERS : workers;
	pl.nblocks = 2 * workers + 2;
	pl.blocks = calloc(pl.nblocks, sizeof(*pl.blocks));
	if (!carry || !pl.blocks)
		goto nomem;
	for (unsigned i = 0; i < pl.nblocks; i++)
		if (!(pl.blocks[i].text = malloc(PIPELINE_BLOCK + CONV_LINE_MAX)))
			goto nomem;
	for (;;) {
		struct block *b;

		/* Read ahead into every free block. */
		while (!eof && next_read - next_conv < pl.nblocks) {
			int r;

			b = &pl.blocks[next_read % pl.nblocks];
			r = fill_block(in, b, carry, &ncarry, &eof, errbuf, errlen);
			if (r < 0) {
				rc = PIPELINE_READ_ERROR;
				goto out;
			}
			if (r == 0)
				break;
			pthread_mutex_lock(&pl.lock);
			b->state = BLOCK_READY;
			pthread_cond_signal(&pl.work);
			pthread_mutex_unlock(&pl.lock);
			next_read++;
		}
		if (next_conv == next_read)
			break;
		b = &pl.blocks[next_conv % pl.nblocks];
		if (nthreads == 0 && eof && next_read == 1) {	/* the whole text in one block */
			b->nomem = !parse_block(b);
			b->state = BLOCK_PARSED;
		} else if (nthreads == 0) {
			for (; nthreads < workers; nthreads++)
				if (pthread_create(&threads[nthreads], NULL, worker, &pl))
					break;
			if (nthreads == 0)
				goto nomem;
		}
		pthread_mutex_lock(&pl.lock);
		while (b->state != BLOCK_PARSED)
			pthread_cond_wait(&pl.done, &pl.lock);
		pthread_mutex_unlock(&pl.lock);
		if (b->nomem)
			goto nomem;
		for (size_t i = 0; i < b->nlines; i++) {
			int e = conv_driver_parsed(cv, &b->lines[i]);

			if (e) {
				*conv_err = e;
				rc = PIPELINE_CONVERT;
				goto out;
			}
		}
		pthread_mutex_lock(&pl.lock);
		b->state = BLOCK_FREE;
		pthread_mutex_unlock(&pl.lock);
		next_conv++;
		progress(in, name);
	}
	goto out;
nomem:
	snprintf(errbuf, errlen, "out of memory");
	rc = PIPELINE_NOMEM;
out:
	pthread_mutex_lock(&pl.lock);
	pl.stop = true;
	for (unsigned i = 0; i < pl.nblocks && pl.blocks; i++)
		if (pl.blocks[i].state == BLOCK_READY)
			pl.blocks[i].state = BLOCK_FREE;
	pthread_cond_broadcast(&pl.work);
	pthread_mutex_unlock(&pl.lock);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	diag_progress("%s", "");
	for (unsigned i = 0; i < pl.nblocks && pl.blocks; i++) {
		free(pl.blocks[i].text);
		free(pl.blocks[i].lines);
	}
	free(pl.blocks);
	free(carry);
	return rc;
}

int pipeline_convert(struct input *in, const char *name, struct conv_driver *cv, unsigned workers,
		     int *conv_err, char *errbuf, size_t errlen)
{
	if (input_ptdecode(in))	/* decoded in process: lines made, not parsed */
		return ptdecode_convert(input_ptdecode(in), cv, conv_err, errbuf, errlen);
	if (input_binstream(in))	/* binary records: no parsing to spread */
		return binstream_convert(in, name, cv, conv_err, errbuf, errlen);
	return convert_text(in, name, cv, workers, conv_err, errbuf, errlen);
}
