/* SPDX-License-Identifier: MIT */
#include "perf_version.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	int major, minor;
	const char *option;
} features[PERF_FEAT_COUNT] = {
	[PERF_FEAT_SNAPSHOT_ON_EXIT] = { 5, 4, "--snapshot=e" },
	[PERF_FEAT_KCORE] = { 5, 5, "--kcore" },
	[PERF_FEAT_CONTROL] = { 5, 10, "--control" },
	[PERF_FEAT_DLFILTER] = { 5, 14, "--dlfilter" },
	[PERF_FEAT_NO_BPF_EVENT] = { 5, 1, "--no-bpf-event" },
	[PERF_FEAT_BUILDID_MMAP] = { 5, 12, "--buildid-mmap" },
};

/* Reads a decimal number of at most 6 digits at *P; advances *P. -1 if none. */
static int read_num(const char **p)
{
	int n = 0, digits = 0;

	while (isdigit((unsigned char)**p)) {
		if (++digits > 6)
			return -1;
		n = n * 10 + (**p - '0');
		(*p)++;
	}
	return digits ? n : -1;
}

/*
 * Finds MAJOR.MINOR[.PATCH] starting exactly at S. Returns 0 and fills V, or
 * -EINVAL when S does not start with one.
 */
static int parse_numbers(const char *s, struct perf_version *v)
{
	const char *p = s;
	int major, minor, patch = 0;

	major = read_num(&p);
	if (major < 2 || major > 99 || *p != '.')
		return -EINVAL;
	p++;
	minor = read_num(&p);
	if (minor < 0)
		return -EINVAL;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		patch = read_num(&p);
		if (patch < 0)
			patch = 0;
	}
	v->major = major;
	v->minor = minor;
	v->patch = patch;
	v->known = true;
	return 0;
}

int perf_version_parse(const char *text, struct perf_version *v)
{
	const char *s, *end;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (!text)
		return -EINVAL;
	s = strstr(text, "version");
	s = s ? s + strlen("version") : text;
	while (*s == ' ' || *s == '\t')
		s++;
	end = s;
	while (*end && *end != '\n' && *end != '\r')
		end++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - s);
	if (n >= sizeof(v->text))
		n = sizeof(v->text) - 1;
	memcpy(v->text, s, n);
	v->text[n] = '\0';

	/* The version normally starts the text; else take the first number. */
	for (s = v->text; *s; s++) {
		if (!isdigit((unsigned char)*s))
			continue;
		if (s > v->text && isdigit((unsigned char)s[-1]))
			continue;
		if (parse_numbers(s, v) == 0)
			return 0;
	}
	v->known = false;
	v->major = v->minor = v->patch = 0;
	return -EINVAL;
}

bool perf_version_at_least(const struct perf_version *v, int major, int minor)
{
	if (!v->known)
		return false;
	return v->major > major || (v->major == major && v->minor >= minor);
}

int perf_version_has(const struct perf_version *v, enum perf_feature f)
{
	if (f < 0 || f >= PERF_FEAT_COUNT)
		return 0;
	if (!v->known)
		return -1;
	return perf_version_at_least(v, features[f].major, features[f].minor);
}

const char *perf_feature_option(enum perf_feature f)
{
	if (f < 0 || f >= PERF_FEAT_COUNT)
		return "?";
	return features[f].option;
}

const char *perf_version_str(const struct perf_version *v, char *buf, unsigned size)
{
	if (!v->known)
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%d.%d.%d", v->major, v->minor, v->patch);
	return buf;
}
