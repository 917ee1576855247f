/* SPDX-License-Identifier: MIT */
/*
 * frontend: what `snaptrace run|attach` adds to a recording. The snaptrace
 * script execs snaptrace-record with --front-end VERB, so the front end, the
 * recorder and perf's parent are one process: a signal to the front end's
 * pid reaches the recorder, and SIGKILL of it takes perf and a launched
 * target along (their PR_SET_PDEATHSIG). After the recording the recorder
 * runs snaptrace-convert (found next to itself) as its child on the
 * snapshot files, and removes the temporary recording directory only once
 * the trace is written; whatever was captured is otherwise kept and named.
 */
#ifndef SNAPTRACE_REC_FRONTEND_H
#define SNAPTRACE_REC_FRONTEND_H

#include <limits.h>
#include <stdbool.h>

#include "cli.h"
#include "rec_state.h"

struct rec_frontend {
	const struct rec_cli *cli;
	char dir[PATH_MAX];          /* the recording directory */
	bool temporary;              /* created here (no -d): removed once converted */
	char convert[PATH_MAX];      /* snaptrace-convert next to this program */
	int trace_fd;                /* -o -: the original stdout, for the trace; -o naming
				      * a FIFO or device: it, open; else -1 */
};

/*
 * Before anything is recorded: checks that the trace can be written and that
 * snaptrace-convert is there, creates the temporary recording directory when
 * no -d was given and points CLI->rec.outdir at the directory. With -o - it
 * keeps the original stdout for the trace and points stdout at stderr, so
 * that the target's and perf's output never mixes into the trace; -o naming
 * a FIFO or a device is opened now (outpath_open(): never waiting, a FIFO
 * no one reads refused), its reader kept for the converter. Returns -1
 * to go on, or an exit status after a one-line error.
 */
int rec_frontend_prepare(struct rec_frontend *fe, struct rec_cli *cli);

/*
 * After the recording S that ended with exit status STATUS: converts S's
 * snapshots into the trace, whatever STATUS is (when S ran perf but settled
 * none, every non-empty perf.data file perf left in the directory).
 * a stop signal (sig_stops) read from SIGFD stops the conversion (SIGTERM to
 * it), or keep it from starting when one came after perf's end, before it
 * (rec_session_run() read those before). Removes the temporary directory only when
 * it is empty or when the recording succeeded and was converted; otherwise
 * names it. Returns the exit status: STATUS, or EXIT_RUNTIME when the
 * conversion failed or was stopped.
 */
int rec_frontend_finish(struct rec_frontend *fe, const struct rec_session *s, int status,
			int sigfd);

#endif
