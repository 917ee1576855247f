/* SPDX-License-Identifier: MIT */
/* unrecorded: threads the recording leaves out (see unrecorded.h). */
#include "unrecorded.h"

#include <stdio.h>

#include "hitpolicy.h"
#include "signals.h"

bool rec_recorded_has(const struct rec_recorded *r, pid_t tid)
{
	return !r || rec_hitpolicy_recorded(tid, r->only_tid, r->multi_thread, r->pids, r->npids);
}

void rec_unrecorded_add(struct rec_unrecorded *u, pid_t tid)
{
	u->n++;
	for (int i = 0; i < u->ntids; i++)
		if (u->tids[i] == tid)
			return;
	if (u->ntids < REC_UNRECORDED_TIDS)
		u->tids[u->ntids++] = tid;
	else
		u->more = true;
}

const char *rec_unrecorded_text(const struct rec_unrecorded *u, const struct rec_recorded *r,
				char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "in thread%s", u->ntids > 1 || u->more ? "s" : "");

	for (int i = 0; i < u->ntids && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s %d", i ? "," : "", (int)u->tids[i]);
	if (n < size)
		snprintf(buf + n, size - n, "%s (not recorded: only %s is); %s not in the trace: "
			 SIG_UNRECORDED_HINT, u->more ? " and others" : "",
			 r && r->only_tid ? "the thread given" : "the main thread",
			 u->n == 1 ? "it is" : "they are");
	return buf;
}
