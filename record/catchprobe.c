/* SPDX-License-Identifier: MIT */
/* catchprobe: where a call left by a C++ exception ends (see catchprobe.h). */
#include "catchprobe.h"

#include <stdlib.h>
#include <unistd.h>

/* Where the catch entry is looked for, in order. */
static const char *const specs[] = {
	"symbol:__cxa_begin_catch",          /* the runtime linked into the program */
	"libstdc++:__cxa_begin_catch",       /* GCC's */
	"libc++abi:__cxa_begin_catch",       /* LLVM's */
};

struct rec_trigger_loc *rec_catch_find(const char *exe, pid_t pid)
{
	struct rec_trigger_loc *loc = malloc(sizeof(*loc));
	char why[1024];

	if (!loc)
		return NULL;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (!rec_trigspec_resolve(specs[i], exe, pid, loc, why, sizeof(why)) && loc->entry)
			return loc;
		else if (loc->probe_fd >= 0)
			close(loc->probe_fd);
	free(loc);
	return NULL;
}

void rec_catch_free(struct rec_trigger_loc *loc)
{
	if (!loc)
		return;
	if (loc->probe_fd >= 0)
		close(loc->probe_fd);
	free(loc);
}
