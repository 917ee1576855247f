/* SPDX-License-Identifier: MIT */
/*
 * check: the host report of `snaptrace-record --check` (`snaptrace check`):
 * what perf and the kernel offer, whether triggers fire, and what mode auto
 * picks. Lines are "NAME: VALUE" so that scripts can grep them.
 */
#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

static const char *fires(int r, char *buf, size_t size)
{
	if (r == 1)
		return "fires";
	if (r == 0)
		return "opens but does not fire";
	snprintf(buf, size, "cannot open (%s)", strerror(-r));
	return buf;
}

enum rec_mechanism rec_check_pick_mechanism(int breakpoint, int uprobe)
{
	if (uprobe == 1)
		return REC_MECH_UPROBE;
	if (breakpoint == 1)
		return REC_MECH_BREAKPOINT;
	return REC_MECH_AUTO;
}

int rec_check_print(FILE *f, const struct rec_host *h)
{
	char ver[32], b1[96], b2[96], why[256];
	int bp, up, ok = 1;
	enum rec_mechanism m;

	if (h->perf_path[0])
		fprintf(f, "perf: %s\n", h->perf_path);
	else
		fprintf(f, "perf: not found: %s is %s (install linux-perf, or pass --perf PATH)\n",
			h->perf_want, h->perf_found == -ENOENT ? "nowhere" : run_found(h->perf_found));
	fprintf(f, "perf version: %s (printed \"%s\")%s\n",
		perf_version_str(&h->perf_version, ver, sizeof(ver)), h->perf_version.text,
		h->perf_runs ? "" : ", perf does not run");
	for (int i = 0; i < PERF_FEAT_COUNT; i++)
		fprintf(f, "perf %s: %s%s\n", perf_feature_option(i), h->feat[i] ? "yes" : "no",
			h->feat_probed ? " (from perf record -h)" : "");
	if (!h->perf_runs)
		ok = 0;
	fprintf(f, "intel_pt: %s\n", h->has_intel_pt ? "present" : "absent");
	if (h->has_intel_pt)
		fprintf(f, "intel_pt caps/psb_cyc: %s\n",
			h->pt_psb_cyc < 0 ? "unknown" :
			h->pt_psb_cyc ? "1" : "0 (timer resolution low)");
	fprintf(f, "hardware PMU (cycles): %s\n", h->has_hw_pmu ? "present" : "absent (cpu-clock)");
	if (h->paranoid == INT_MIN)
		fprintf(f, "perf_event_paranoid: unknown\n");
	else
		fprintf(f, "perf_event_paranoid: %d\n", h->paranoid);
	fprintf(f, "perf_event_max_sample_rate: %d\n", h->max_sample_rate);
	fprintf(f, "privileges: %s\n", h->root ? "root" : h->cap_perfmon ?
		"CAP_PERFMON/CAP_SYS_ADMIN" : "unprivileged user");
	if (rec_host_lacks_permission(h, false, why, sizeof(why))) {
		fprintf(f, "permission: %s\n", why);
		ok = 0;
	} else {
		bool user_only = rec_host_lacks_permission(h, true, why, sizeof(why));

		fprintf(f, "permission: ok%s\n",
			user_only ? " (user space only; --kernel needs more)" : "");
	}
	fprintf(f, "sched_switch samples: %s\n", h->sched_switch ? "yes" :
		"no (needs root or CAP_PERFMON, or perf_event_paranoid -1, and a readable tracefs)");
	rec_trigger_selftest(h->uprobe_type, &bp, &up);
	fprintf(f, "breakpoint trigger: %s\n", fires(bp, b1, sizeof(b1)));
	fprintf(f, "uprobe trigger: %s\n", h->uprobe_type < 0 ? "no uprobe PMU" :
		fires(up, b2, sizeof(b2)));
	m = rec_check_pick_mechanism(bp, up);
	fprintf(f, "trigger mechanism auto picks: %s\n",
		m == REC_MECH_AUTO ? "none (triggers unavailable)" : rec_mechanism_name(m));
	fprintf(f, "mode auto picks: %s\n", rec_host_auto_mode(h) == REC_MODE_PT ?
		"pt (Intel PT)" : "sampling (no Intel PT on this host)");
	return ok ? 0 : -1;
}
