/* SPDX-License-Identifier: MIT */
/*
 * buildids FILE: prints the build ids perfdata_buildids() reads from the
 * perf.data FILE, as `perf buildid-list -i FILE` prints them ("HEX PATH"
 * lines); exits 1 with the reason on stderr when it cannot read them.
 * Built by tests/e2e/srcline.test.sh against common/perfdata.c.
 */
#include <stdio.h>

#include "perfdata.h"

static int print(void *arg, const char *hex, const char *path)
{
	(void)arg;
	printf("%s %s\n", hex, path);
	return 0;
}

int main(int argc, char **argv)
{
	char why[256];

	if (argc != 2) {
		fprintf(stderr, "usage: buildids FILE\n");
		return 2;
	}
	if (perfdata_buildids(argv[1], print, NULL, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", argv[1], why);
		return 1;
	}
	return 0;
}
