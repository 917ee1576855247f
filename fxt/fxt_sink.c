// SPDX-License-Identifier: MIT
/*
 * fxt_sink: the byte sink under the FXT writer (see fxt_sink.h).
 *
 * Records are staged in a buffer that starts at 16 KiB and doubles up to
 * 1 MiB (a trace of a few records costs a few KiB); a flush of the full
 * buffer either writes it to the file descriptor (raw) or hands it to the
 * deflate thread, which runs it through fxt_deflate (its output written out
 * as it comes), while the writer goes on filling a second staging buffer
 * (made at the first hand-over). Short writes and EINTR are retried; any
 * other failure becomes the sticky error.
 */
#include "fxt_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes all N bytes of P to FD. Returns 0 or a negative errno. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int set_err(struct fxt_sink *s, int err)
{
	if (!s->err)
		s->err = err;
	return s->err;
}

/* fxt_deflate's output into the file. */
static int emit(void *arg, const uint8_t *p, size_t n)
{
	return write_all(((struct fxt_sink *)arg)->out.fd, p, n);
}

static void *deflate_thread(void *arg)
{
	struct fxt_sink *s = arg;
	int err;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->job_busy && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->job_busy)
			break;
		pthread_mutex_unlock(&s->lock);
		err = s->job_err ? 0 : fxt_deflate_run(&s->z, s->job, s->job_len, false, emit, s);
		pthread_mutex_lock(&s->lock);
		if (err)
			s->job_err = err;
		s->job_busy = false;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Waits until the deflate thread has finished its job; takes its error. */
static void wait_idle(struct fxt_sink *s)
{
	int err;

	pthread_mutex_lock(&s->lock);
	while (s->job_busy)
		pthread_cond_wait(&s->cond, &s->lock);
	err = s->job_err;
	pthread_mutex_unlock(&s->lock);
	if (err)
		set_err(s, err);
}

/* Hands the staging buffer to the deflate thread and takes the spare. */
static int hand_over(struct fxt_sink *s)
{
	uint8_t *spare;
	size_t spare_cap;

	wait_idle(s);
	if (s->err)
		return s->err;
	spare = s->job;
	spare_cap = s->job_cap;
	pthread_mutex_lock(&s->lock);
	s->job = s->buf;
	s->job_cap = s->cap;
	s->job_len = s->len;
	s->job_busy = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	s->buf = spare;	/* NULL at the first hand-over: fxt_sink_room() makes it */
	s->cap = spare_cap;
	s->len = 0;
	return 0;
}

/* Stops and joins the deflate thread. */
static void stop_thread(struct fxt_sink *s)
{
	if (!s->thread_ready)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	s->thread_ready = false;
}

int fxt_sink_flush(struct fxt_sink *s)
{
	int err;

	if (s->err)
		return s->err;
	if (!s->len)
		return 0;
	if (s->gzip)
		return hand_over(s);
	err = write_all(s->out.fd, s->buf, s->len);
	if (err)
		return set_err(s, err);
	s->len = 0;
	return 0;
}

int fxt_sink_room(struct fxt_sink *s, size_t n)
{
	size_t cap;
	uint8_t *buf;

	if (s->len + n > FXT_SINK_BUF_BYTES && fxt_sink_flush(s) < 0)
		return s->err;
	if (s->cap - s->len >= n)
		return 0;
	for (cap = s->cap ? s->cap : FXT_SINK_BUF_FIRST; cap < s->len + n; cap *= 2)
		;
	if (cap > FXT_SINK_BUF_BYTES)
		cap = FXT_SINK_BUF_BYTES;
	buf = realloc(s->buf, cap);
	if (!buf)
		return set_err(s, -ENOMEM);
	s->buf = buf;
	s->cap = cap;
	return 0;
}

static void free_mem(struct fxt_sink *s)
{
	stop_thread(s);
	if (s->z_ready)
		fxt_deflate_end(&s->z);
	s->z_ready = false;
	free(s->buf);
	free(s->job);
	s->buf = s->job = NULL;
}

int fxt_sink_open(struct fxt_sink *s, const char *path, bool gzip)
{
	char why[16];	/* the caller words the message */
	int err;

	memset(s, 0, sizeof(*s));
	s->out.fd = -1;
	s->is_stdout = strcmp(path, "-") == 0;
	s->gzip = gzip && !s->is_stdout;
	s->buf = malloc(FXT_SINK_BUF_FIRST);
	if (!s->buf)
		goto nomem;
	s->cap = FXT_SINK_BUF_FIRST;
	if (s->gzip) {
		if (fxt_deflate_init(&s->z))
			goto nomem;
		s->z_ready = true;
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->cond, NULL);
		if (pthread_create(&s->thread, NULL, deflate_thread, s))
			goto nomem;
		s->thread_ready = true;
	}
	err = outpath_open(&s->out, path, why, sizeof(why));
	if (err) {
		free_mem(s);
		return err;
	}
	return 0;
nomem:
	free_mem(s);
	return -ENOMEM;
}

int fxt_sink_close(struct fxt_sink *s)
{
	int err = 0;

	if (s->gzip) {
		wait_idle(s);
		if (!s->err && (err = fxt_deflate_run(&s->z, s->buf, s->len, true, emit, s)))
			set_err(s, err);
	} else if (!s->err) {
		fxt_sink_flush(s);
	}
	err = s->err;
	if (err)
		outpath_abort(&s->out);
	else
		err = outpath_commit(&s->out);
	free_mem(s);
	return err;
}

void fxt_sink_abort(struct fxt_sink *s)
{
	outpath_abort(&s->out);
	free_mem(s);
}
