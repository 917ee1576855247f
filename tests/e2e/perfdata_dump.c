/* SPDX-License-Identifier: MIT */
/*
 * perfdata_dump buildids|events FILE: prints what common/perfdata.c reads
 * from the perf.data FILE without perf, as perf prints it: its build ids
 * as `perf buildid-list -i FILE` ("HEX PATH" lines), or its events' names
 * as `perf evlist -F -i FILE`. Exits 1 with the reason on stderr when it
 * cannot read them. Built by the tests (tests/e2e/srcline.test.sh,
 * tests/ptsynth/pt-variants.test.sh, which uses $(O)/test/perfdata_dump:
 * tests/e2e/build.mk) against common/perfdata.c.
 */
#include <stdio.h>
#include <string.h>

#include "perfdata.h"

static int print(void *arg, const char *hex, const char *path)
{
	(void)arg;
	printf("%s %s\n", hex, path);
	return 0;
}

int main(int argc, char **argv)
{
	static char names[1 << 16];
	char why[256];
	int err;

	if (argc != 3 || (strcmp(argv[1], "buildids") && strcmp(argv[1], "events"))) {
		fprintf(stderr, "usage: perfdata_dump buildids|events FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "buildids")) {
		if (perfdata_buildids(argv[2], print, NULL, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", argv[2], why);
			return 1;
		}
		return 0;
	}
	err = perfdata_event_names(argv[2], names, sizeof(names));
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	fputs(names, stdout);
	return 0;
}
