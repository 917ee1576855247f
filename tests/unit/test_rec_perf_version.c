/* SPDX-License-Identifier: MIT */
/* Unit tests of common/perf_version: lenient `perf --version` parsing. */
#include <errno.h>

#include "perf_version.h"
#include "unit.h"

static void check_version(const char *text, int major, int minor, int patch)
{
	struct perf_version v;

	CHECK_INT_EQ(perf_version_parse(text, &v), 0);
	CHECK(v.known);
	CHECK_INT_EQ(v.major, major);
	CHECK_INT_EQ(v.minor, minor);
	CHECK_INT_EQ(v.patch, patch);
}

static void check_unknown(const char *text)
{
	struct perf_version v;

	CHECK_INT_EQ(perf_version_parse(text, &v), -EINVAL);
	CHECK(!v.known);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_CONTROL), -1);
	CHECK(!perf_version_at_least(&v, 2, 0));
}

static void version_plain(void)
{
	check_version("perf version 6.1.187\n", 6, 1, 187);
	check_version("perf version 6.8\n", 6, 8, 0);
	check_version("perf version 4.19.0\n", 4, 19, 0);
}

static void version_git_describe(void)
{
	check_version("perf version 5.10.0-rc3.g1234\n", 5, 10, 0);
	check_version("perf version 4.19.gdeadbeef\n", 4, 19, 0);
	check_version("perf version 5.15.g1a2b.dirty", 5, 15, 0);
}

static void version_distro(void)
{
	struct perf_version v;

	check_version("perf version 3.10.0-1160.el7.x86_64.debug\n", 3, 10, 0);
	check_version("perf version 6.8.12+deb13-amd64\n", 6, 8, 12);
	check_version("perf version linux-tools 5.4.0-150\n", 5, 4, 0);
	check_version("6.1.187", 6, 1, 187);
	perf_version_parse("perf version 5.10.0-rc3.g1234  \n", &v);
	CHECK_STR_EQ(v.text, "5.10.0-rc3.g1234");
}

static void version_unknown(void)
{
	check_unknown("perf version \n");
	check_unknown("perf version\n");
	check_unknown("");
	check_unknown("perf version unknown");
	check_unknown("perf version 1.0");   /* no perf ever had major 1 */
	check_unknown(NULL);
}

static void version_features(void)
{
	struct perf_version v;
	char buf[32];

	perf_version_parse("perf version 4.19.0", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_NO_BPF_EVENT), 0);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_SNAPSHOT_ON_EXIT), 0);
	perf_version_parse("perf version 5.1.0", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_NO_BPF_EVENT), 1);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_KCORE), 0);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_CONTROL), 0);
	perf_version_parse("perf version 5.4.0", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_SNAPSHOT_ON_EXIT), 1);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_KCORE), 0);
	perf_version_parse("perf version 5.5.3", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_KCORE), 1);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_CONTROL), 0);
	perf_version_parse("perf version 5.10.0-rc3", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_CONTROL), 1);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_DLFILTER), 0);
	perf_version_parse("perf version 5.14", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_DLFILTER), 1);
	perf_version_parse("perf version 6.1.187", &v);
	CHECK_INT_EQ(perf_version_has(&v, PERF_FEAT_DLFILTER), 1);
	CHECK_STR_EQ(perf_version_str(&v, buf, sizeof(buf)), "6.1.187");
	CHECK_STR_EQ(perf_feature_option(PERF_FEAT_KCORE), "--kcore");
	perf_version_parse("", &v);
	CHECK_STR_EQ(perf_version_str(&v, buf, sizeof(buf)), "unknown");
}

int main(void)
{
	UNIT_RUN(version_plain);
	UNIT_RUN(version_git_describe);
	UNIT_RUN(version_distro);
	UNIT_RUN(version_unknown);
	UNIT_RUN(version_features);
	return unit_exit();
}
