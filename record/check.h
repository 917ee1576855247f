/* SPDX-License-Identifier: MIT */
/* check: the host report of `snaptrace-record --check` (see check.c). */
#ifndef SNAPTRACE_REC_CHECK_H
#define SNAPTRACE_REC_CHECK_H

#include <stdio.h>

#include "host.h"
#include "trigger.h"

/*
 * Prints the report for host H to F, running the trigger self-test.
 * Returns 0 when this host can record, -1 when something essential is
 * missing (perf, permission).
 */
int rec_check_print(FILE *f, const struct rec_host *h);

/*
 * The mechanism auto uses given self-test results (1 fired): the uprobe
 * when it fires (it also reaches libraries loaded later), else the
 * breakpoint, else REC_MECH_AUTO meaning none works.
 */
enum rec_mechanism rec_check_pick_mechanism(int breakpoint, int uprobe);

#endif
