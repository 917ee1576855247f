/* SPDX-License-Identifier: MIT */
#include "host.h"

#include "run.h"
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EVSRC "/sys/bus/event_source/devices/"

/* Reads the first integer of FILE into *OUT. Returns 0 or -errno. */
static int read_int_file(const char *file, int *out)
{
	char buf[64];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	*out = (int)strtol(buf, NULL, 10);
	return 0;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Effective capabilities from /proc/self/status: CAP_SYS_ADMIN (21), CAP_PERFMON (38). */
static bool has_perf_caps(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			yes = (caps >> 21 & 1) || (caps >> 38 & 1);
			break;
		}
	}
	fclose(f);
	return yes;
}

/* Fills h->feat from `perf record -h`, for a perf whose version is unknown. */
static void probe_features(struct rec_host *h)
{
	static char help[65536];
	char *argv[] = { h->perf_path, "record", "-h", NULL };

	run_capture(argv, help, sizeof(help));
	h->feat_probed = true;
	h->feat[PERF_FEAT_CONTROL] = strstr(help, "--control") != NULL;
	h->feat[PERF_FEAT_KCORE] = strstr(help, "--kcore") != NULL;
	h->feat[PERF_FEAT_DLFILTER] = strstr(help, "--dlfilter") != NULL;
	h->feat[PERF_FEAT_NO_BPF_EVENT] = strstr(help, "bpf-event") != NULL;
	h->feat[PERF_FEAT_BUILDID_MMAP] = strstr(help, "--buildid-mmap") != NULL;
	/* --snapshot=e cannot be seen in the help; it is older than --kcore. */
	h->feat[PERF_FEAT_SNAPSHOT_ON_EXIT] = h->feat[PERF_FEAT_KCORE];
}

void rec_host_probe(struct rec_host *h, const char *perf_path)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->pt_psb_cyc = -1;
	h->uprobe_type = -1;
	h->paranoid = INT_MIN;
	perf_version_parse("", &h->perf_version);

	h->perf_want = perf_path ? perf_path : "perf";
	h->perf_found = run_find_program(h->perf_want, h->perf_path, sizeof(h->perf_path));
	if (h->perf_found == 0) {
		/* asked once per perf binary (perf_version_of()'s cache) */
		h->perf_runs = perf_version_of(h->perf_path, &h->perf_version) == 0;
		if (h->perf_version.known) {
			for (i = 0; i < PERF_FEAT_COUNT; i++)
				h->feat[i] = perf_version_has(&h->perf_version, i) == 1;
		} else if (h->perf_runs) {
			probe_features(h);
		}
	} else {
		h->perf_path[0] = '\0';
	}

	h->has_intel_pt = exists(EVSRC "intel_pt");
	if (h->has_intel_pt && read_int_file(EVSRC "intel_pt/caps/psb_cyc", &i) == 0)
		h->pt_psb_cyc = i != 0;
	h->has_hw_pmu = exists(EVSRC "cpu/type") || exists(EVSRC "cpu_core/type");
	if (read_int_file(EVSRC "uprobe/type", &i) == 0)
		h->uprobe_type = i;
	if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &i) == 0)
		h->paranoid = i;
	if (read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", &i) == 0)
		h->max_sample_rate = i;
	h->root = geteuid() == 0;
	h->cap_perfmon = h->root || has_perf_caps();
	h->sched_switch = (h->cap_perfmon || (h->paranoid != INT_MIN && h->paranoid <= -1)) &&
			  (i = rec_tracefs_open("events/sched/sched_switch/id")) >= 0;
	if (h->sched_switch)
		close(i);
}

enum rec_mode rec_host_auto_mode(const struct rec_host *h)
{
	return h->has_intel_pt ? REC_MODE_PT : REC_MODE_SAMPLING;
}

bool rec_host_lacks_permission(const struct rec_host *h, bool kernel, char *why, size_t size)
{
	if (h->cap_perfmon || h->paranoid == INT_MIN)
		return false;
	if (h->paranoid > 2) {
		snprintf(why, size, "kernel.perf_event_paranoid is %d: perf is disabled for "
			 "unprivileged users; run as root or `sysctl kernel.perf_event_paranoid=2`",
			 h->paranoid);
		return true;
	}
	if (kernel && h->paranoid > 1) {
		snprintf(why, size, "kernel.perf_event_paranoid is %d: tracing the kernel needs "
			 "root or `sysctl kernel.perf_event_paranoid=1`", h->paranoid);
		return true;
	}
	return false;
}

bool rec_host_refuses(const struct rec_host *h, const struct rec_opts *o, char *why, size_t size)
{
	enum rec_mode mode = o->mode == REC_MODE_AUTO ? rec_host_auto_mode(h) : o->mode;

	if (mode == REC_MODE_SAMPLING && h->max_sample_rate > 0 &&
	    o->sampling_freq > (unsigned)h->max_sample_rate) {
		snprintf(why, size, "--sampling-freq %u: expected at most %d "
			 "(kernel.perf_event_max_sample_rate on this host, see --check)",
			 o->sampling_freq, h->max_sample_rate);
		return true;
	}
	if (mode == REC_MODE_SAMPLING && o->snapshot_size > REC_RING_MAX_SAMPLING) {
		snprintf(why, size, "--snapshot-size %llu MiB: expected at most 1G when sampling "
			 "(the largest ring the kernel maps for sampling; 2G with Intel PT)",
			 (unsigned long long)(o->snapshot_size >> 20));
		return true;
	}
	if (mode == REC_MODE_SAMPLING && o->callgraph == REC_CG_LBR && !h->has_hw_pmu) {
		snprintf(why, size, "--callgraph lbr: expected a hardware PMU (Intel LBR), "
			 "found none (see --check); use --callgraph fp or dwarf");
		return true;
	}
	return false;
}
