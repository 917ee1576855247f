/* SPDX-License-Identifier: MIT */
/*
 * events: the extra events of --event EVENT[/PERIOD] (docs/design.md "Extra
 * events"): reading the option, the -e argument perf record gets, and the
 * check that perf knows and can count each one before anything starts.
 */
#ifndef SNAPTRACE_REC_EVENTS_H
#define SNAPTRACE_REC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "rec_opts.h"

/*
 * Reads SPEC "EVENT[/PERIOD]" into *EV (which points into SPEC). PERIOD is
 * a decimal from 1 to 2^62; EVENT is one event of perf's name characters
 * (letters, digits, "_-.:=,/"), a '/' only in a PMU/TERMS/ form (',' only
 * in its terms), and without a ":MODS" or "/MODS" suffix of modifier
 * letters. Returns 0 or -EINVAL.
 */
int rec_event_parse(const char *spec, struct rec_event *ev);

/*
 * Writes into BUF (SIZE bytes) the -e argument of perf record for EV:
 * EVENT/[period=N][,overwrite]/SEL ("NAME:SEL" without terms). OVERWRITE
 * puts it in an overwritable ring (sampling snapshots); KERNEL also samples
 * the kernel (else SEL is "u"; a tracepoint gets no SEL). Returns the length
 * written, or -E2BIG when it does not fit.
 */
int rec_event_arg(const struct rec_event *ev, bool overwrite, bool kernel, char *buf,
		  size_t size);

/*
 * Asks PERF (`perf stat -x, -e EVENT -- true`) whether it knows every event
 * of O and can count it on this host. Returns true, or false with WHY (SIZE
 * bytes) one line naming the --event and what perf said ("event syntax
 * error: 'x': parser error", "<not supported>").
 */
bool rec_events_usable(const char *perf, const struct rec_opts *o, char *why, size_t size);

#endif
