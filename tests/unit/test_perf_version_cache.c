/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/perf_version's perf_version_of(): `perf --version`
 * runs once per perf binary (stand-in scripts that count their runs), again
 * when the binary changes; a perf that fails is not remembered; the cache
 * keeps at most 16 binaries; without a home for it, perf runs each time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_version.h"
#include "unit.h"
#include "unit_tmp.h"

/* Writes a stand-in perf NAME that counts its runs in NAME.runs and prints
 * "perf version VERSION" (exits 1 when VERSION is NULL). Returns its path. */
static const char *stand_in(const char *name, const char *version)
{
	static char path[256];
	char runs[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s", unit_tmp(name));
	snprintf(runs, sizeof(runs), "%s.runs", path);
	f = fopen(path, "w");
	if (!f)
		return path;
	fprintf(f, "#!/bin/sh\necho run >>'%s'\n", runs);
	if (version)
		fprintf(f, "echo 'perf version %s'\n", version);
	else
		fprintf(f, "exit 1\n");
	fclose(f);
	chmod(path, 0755);
	return path;
}

/* The lines of the file at PATH (0 when there is none). */
static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

/* How many times the stand-in NAME ran. */
static int runs(const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s.runs", unit_tmp(name));
	return count_lines(path);
}

/* Lines of the cache file. */
static int cache_lines(void)
{
	return count_lines(unit_tmp("cache/snaptrace/perf-versions"));
}

static void test_once_per_binary(void)
{
	struct perf_version v;
	const char *perf = stand_in("perf-a", "6.2.1");

	setenv("XDG_CACHE_HOME", unit_tmp("cache"), 1);
	for (int i = 0; i < 3; i++) {
		CHECK_INT_EQ(perf_version_of(perf, &v), 0);
		CHECK(v.known && v.major == 6 && v.minor == 2 && v.patch == 1);
	}
	CHECK_INT_EQ(runs("perf-a"), 1);
	/* the binary changed (another size): asked again */
	perf = stand_in("perf-a", "5.10.0-rc3");
	CHECK_INT_EQ(perf_version_of(perf, &v), 0);
	CHECK(v.known && v.major == 5 && v.minor == 10);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_DLFILTER), 0);
	CHECK_INT_EQ(runs("perf-a"), 2);
	CHECK_INT_EQ(cache_lines(), 1);
}

static void test_failing_perf(void)
{
	struct perf_version v;
	const char *perf = stand_in("perf-fails", NULL);
	int before = cache_lines();

	setenv("XDG_CACHE_HOME", unit_tmp("cache"), 1);
	CHECK_INT_EQ(perf_version_of(perf, &v), -1);
	CHECK(!v.known);
	CHECK_INT_EQ(perf_version_of(perf, &v), -1);
	CHECK_INT_EQ(runs("perf-fails"), 2);
	CHECK_INT_EQ(cache_lines(), before);
	CHECK_INT_EQ(perf_version_of(unit_tmp("no-such-perf"), &v), -1);
}

static void test_bounded(void)
{
	struct perf_version v;

	setenv("XDG_CACHE_HOME", unit_tmp("cache"), 1);
	for (int i = 0; i < 20; i++) {
		char name[32];

		snprintf(name, sizeof(name), "perf-%d", i);
		CHECK_INT_EQ(perf_version_of(stand_in(name, "6.1.0"), &v), 0);
	}
	CHECK_INT_EQ(cache_lines(), 16);
	/* the newest are kept */
	CHECK_INT_EQ(perf_version_of(unit_tmp("perf-19"), &v), 0);
	CHECK_INT_EQ(runs("perf-19"), 1);
}

static void test_no_home(void)
{
	struct perf_version v;
	const char *perf = stand_in("perf-nohome", "6.1.0");
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK_INT_EQ(perf_version_of(perf, &v), 0);
	CHECK_INT_EQ(perf_version_of(perf, &v), 0);
	CHECK(v.known && v.major == 6);
	CHECK_INT_EQ(runs("perf-nohome"), 2);
	if (home)
		setenv("HOME", home, 1);
	free(home);
}

int main(void)
{
	if (unit_tmp_init("test_perf_version_cache"))
		return 1;
	UNIT_RUN(test_once_per_binary);
	UNIT_RUN(test_failing_perf);
	UNIT_RUN(test_bounded);
	UNIT_RUN(test_no_home);
	unit_tmp_fini();
	return unit_exit();
}
