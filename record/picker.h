/* SPDX-License-Identifier: MIT */
/*
 * picker: lets the user pick one of a list on the terminal, the one
 * mechanism behind --trigger '?' (a function) and `snaptrace attach`
 * without -p (a process): fzf where it is in $PATH, as magic-trace does;
 * else a numbered list on stderr, narrowed by what is typed, read from
 * stdin. Not on a terminal there is nothing to pick with.
 */
#ifndef SNAPTRACE_REC_PICKER_H
#define SNAPTRACE_REC_PICKER_H

#include <stddef.h>

/* What is being picked, for the prompts. */
struct rec_picker {
	const char *what;        /* "trigger", "process": the prompt's word */
	const char *header;      /* fzf's header line */
};

/*
 * Lets the user pick one of the N rows ROWS, each "NAME<TAB>DETAIL" (the
 * list shows "NAME  (DETAIL)"; typed text narrows it to the rows that
 * contain it, ignoring case; fzf searches both). Sets *PICK to the index
 * picked. Returns 0; -ENOTTY when stdin is not a terminal; -ECANCELED when
 * nothing was picked (an empty answer, the end of input, Ctrl-C: SIGINT,
 * SIGTERM or SIGHUP pending, which the recorder blocks to read later); or
 * another negative errno (fzf could not run).
 */
int rec_pick(const struct rec_picker *p, char *const *rows, size_t n, size_t *pick);

#endif
