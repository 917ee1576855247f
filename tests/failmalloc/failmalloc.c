/* SPDX-License-Identifier: MIT */
#include "failmalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_asprintf(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static unsigned long count, fail_at;
static bool failed;

/* Counts one allocation; returns true when it is the one to fail (errno
 * is then ENOMEM, as malloc sets it). */
static bool fails_now(void)
{
	unsigned long n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);

	if (n != __atomic_load_n(&fail_at, __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&failed, true, __ATOMIC_RELAXED);
	errno = ENOMEM;
	return true;
}

void failmalloc_set(unsigned long at)
{
	__atomic_store_n(&count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&failed, false, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_at, at, __ATOMIC_RELAXED);
}

unsigned long failmalloc_count(void)
{
	return __atomic_load_n(&count, __ATOMIC_RELAXED);
}

bool failmalloc_failed(void)
{
	return __atomic_load_n(&failed, __ATOMIC_RELAXED);
}

static void write_count(void)
{
	FILE *f = fopen(getenv("FAILMALLOC_COUNT_FILE"), "w");

	if (f) {
		fprintf(f, "%lu\n", failmalloc_count());
		fclose(f);
	}
}

/* Reads FAILMALLOC_AT and FAILMALLOC_COUNT_FILE before main. */
__attribute__((constructor)) static void failmalloc_init(void)
{
	const char *at = getenv("FAILMALLOC_AT");

	failmalloc_set(at ? strtoul(at, NULL, 10) : 0);
	if (getenv("FAILMALLOC_COUNT_FILE"))
		atexit(write_count);
}

void *__wrap_malloc(size_t size)
{
	return fails_now() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fails_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return fails_now() ? NULL : __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
	return fails_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fails_now() ? NULL : __real_strndup(s, n);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (fails_now())
		return -1;
	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}
