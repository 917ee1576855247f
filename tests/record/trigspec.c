/* SPDX-License-Identifier: MIT */
/*
 * trigspec: resolves --trigger SPECs for a program as snaptrace-record does
 * when it launches it (rec_trigspec_resolve(), record/trigspec.h), without
 * recording: tests/record/triggers.test.sh checks every spelling of a
 * trigger with it and records only a few.
 *
 *   trigspec PROGRAM SPEC...
 *
 * An empty SPEC is no --trigger at all (the default stop indicator). Prints
 * one line per SPEC:
 *   SPEC<TAB>SYMBOL<TAB>FILE<TAB>FILE_OFFSET<TAB>VADDR<TAB>entry|inside
 * (offsets and addresses in hex, as record.json's trigger has them in
 * decimal), or SPEC<TAB>signal<TAB>N (a signal: trigger, no function),
 * SPEC<TAB>none (no trigger), or SPEC<TAB>error: WHY. Exits 0 when every
 * SPEC resolved, 1 otherwise, 2 on a usage error.
 */
#include <stdio.h>

#include "trigspec.h"

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: trigspec PROGRAM SPEC...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		struct rec_trigger_loc loc;
		char why[1024];
		int sig = rec_trigspec_signal(argv[i]), r;

		if (sig) {
			printf(sig < 0 ? "%s\terror: not a signal\n" : "%s\tsignal\t%d\n", argv[i], sig);
			bad |= sig < 0;
			continue;
		}
		r = rec_trigspec_resolve(argv[i][0] ? argv[i] : NULL, argv[1], 0, &loc, why,
					 sizeof(why));
		if (r < 0) {
			printf("%s\terror: %s\n", argv[i], why);
			bad = 1;
		} else if (r == REC_TRIGSPEC_NONE) {
			printf("%s\tnone\n", argv[i]);
		} else {
			printf("%s\t%s\t%s\t0x%llx\t0x%llx\t%s\n", argv[i], loc.symbol, loc.file,
			       (unsigned long long)loc.file_offset, (unsigned long long)loc.vaddr,
			       loc.entry ? "entry" : "inside");
		}
	}
	return fflush(stdout) || bad;
}
