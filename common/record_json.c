/* SPDX-License-Identifier: MIT */
#include "record_json.h"

#include <stdio.h>
#include <string.h>

static const char *const end_names[RECORD_ENDS] = {
	[RECORD_END_NONE] = "none", [RECORD_END_TRIGGER] = "trigger",
	[RECORD_END_INTERRUPT] = "interrupt", [RECORD_END_EXIT] = "exit",
	[RECORD_END_DURATION] = "duration", [RECORD_END_PERF_DIED] = "perf-died",
	[RECORD_END_SIGNAL] = "signal",
};

const char *record_end_name(enum record_end end)
{
	return (unsigned)end < RECORD_ENDS ? end_names[end] : "?";
}

const char *record_end_said(enum record_end end)
{
	static const char *const said[RECORD_ENDS] = {
		[RECORD_END_NONE] = "the recording failed",
		[RECORD_END_TRIGGER] = "the recording ended at its trigger (one snapshot)",
		[RECORD_END_INTERRUPT] = "the recording was stopped",
		[RECORD_END_EXIT] = "the recording ended",
		[RECORD_END_DURATION] = "the recording ended at --duration",
		[RECORD_END_PERF_DIED] = "perf exited",
		[RECORD_END_SIGNAL] = "the recording ended at its signal",
	};

	return (unsigned)end < RECORD_ENDS ? said[end] : "the recording ended";
}

bool record_end_parse(const char *word, enum record_end *end)
{
	for (int k = 0; k < RECORD_ENDS; k++)
		if (!strcmp(word, end_names[k])) {
			*end = (enum record_end)k;
			return true;
		}
	return false;
}

char *record_end_words(char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int k = 1; k <= RECORD_ENDS && at < size; k++)   /* "none" last */
		at += (size_t)snprintf(buf + at, size - at, "%s%s", k == 1 ? "" :
				       k == RECORD_ENDS ? " or " : ", ", end_names[k % RECORD_ENDS]);
	return buf;
}
