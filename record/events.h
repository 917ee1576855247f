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
 * letters. Returns 0, -EINVAL, or -EEXIST when a PERIOD is given to a
 * PMU/TERMS/ form whose terms set the sampling too (period= or freq=:
 * rec_event_own_term()), which perf would obey and the PERIOD not.
 */
int rec_event_parse(const char *spec, struct rec_event *ev);

/* An event without a PERIOD is sampled about REC_EVENT_FREQ times a second
 * (perf's frequency mode: the kernel picks each sample's period, the
 * "period" a sample carries), a tracepoint at every event (perf's own
 * default for both, given explicitly so that no perf configuration or
 * --perf-arg -F changes what the recording says it did). */
#define REC_EVENT_FREQ 4000

/* Writes how EV is sampled into BUF (SIZE bytes): "every 50th event",
 * "every event" (a tracepoint), "about 4000 times a second". Returns BUF. */
char *rec_event_sampling(const struct rec_event *ev, char *buf, size_t size);

/* Says on stderr (diag_info) how each event of O is sampled, one line each:
 * "--event page-faults: sampled about 4000 times a second (...)". */
void rec_events_say(const struct rec_opts *o);

/* The period= or freq= term of EV's PMU/TERMS/ form: its length, with
 * *TERM pointing at it in EV->spec ("period=99" in "cpu/event=0x3c,period=99/"),
 * or 0 when there is none. */
int rec_event_own_term(const struct rec_event *ev, const char **term);

/* Whether EV's PMU/TERMS/ form sets its own sampling (a period= or freq=
 * term, perf's -e syntax), which the recorder then leaves alone. */
bool rec_event_own_sampling(const struct rec_event *ev);

/* Whether EV is a tracepoint (SYSTEM:NAME), whose every event is sampled
 * by default. */
bool rec_event_tracepoint(const struct rec_event *ev);

/*
 * Writes into BUF (SIZE bytes) the -e argument of perf record for EV:
 * EVENT/period=N|freq=REC_EVENT_FREQ[,overwrite]/SEL (period=1 for a
 * tracepoint without a PERIOD). OVERWRITE
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
