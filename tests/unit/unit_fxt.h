/* SPDX-License-Identifier: MIT */
/* unit_fxt.h: helpers shared by the FXT writer's unit tests. */
#ifndef SNAPTRACE_UNIT_FXT_H
#define SNAPTRACE_UNIT_FXT_H

#include <string.h>

#include "fxt_writer.h"
#include "unit.h"

/* Opens a writer on PATH; a failure is a test failure (returns NULL). */
static inline struct fxt_writer *open_or_fail(const char *path, enum fxt_output out)
{
	int err = 1;
	struct fxt_writer *w = fxt_writer_open(path, out, "snaptrace", &err);

	if (!w)
		UNIT_FAIL("fxt_writer_open(%s): %s", path, strerror(-err));
	else
		CHECK_INT_EQ(err, 0);
	return w;
}

#endif
