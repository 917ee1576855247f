/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of convert/perfcmd (the perf script command line: --time
 * ranges to the nanosecond, the dlfilter and its removal, extra arguments)
 * and convert/ptsplit (time-range boundaries from a perf.data's PSBs,
 * written here: AUXTRACE_INFO, then AUXTRACE buffers of PSB+ with a TSC).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfcmd.h"
#include "ptsplit.h"
#include "unit.h"
#include "unit_tmp.h"

static void line_of(const struct perfcmd_opts *o, char *buf, size_t size)
{
	struct perfcmd cmd;

	perfcmd_build(&cmd, o);
	perfcmd_format(&cmd, buf, size);
}

static void time_ranges(void)
{
	struct perfcmd_opts o = { .perf = "perf", .input = "p.data", .kind = PERFCMD_SAMPLES,
				  .has_range = true, .first = 0, .last = 1500000000ull };
	char buf[512];

	line_of(&o, buf, sizeof(buf));
	CHECK(strstr(buf, " --time ,1.500000000") != NULL);
	o.first = 1500000001ull;
	o.last = UINT64_MAX;
	line_of(&o, buf, sizeof(buf));
	CHECK(strstr(buf, " --time 1.500000001,") && !strstr(buf, " --time 1.500000001,1"));
	o.first = 7;
	o.last = 12000000009ull;
	line_of(&o, buf, sizeof(buf));
	CHECK(strstr(buf, " --time 0.000000007,12.000000009") != NULL);
	CHECK(strstr(buf, " -i p.data ") != NULL);
	CHECK(strstr(buf, "--kallsyms") == NULL);
	o.kallsyms = "/proc/self/fd/9/kallsyms";
	line_of(&o, buf, sizeof(buf));
	CHECK(strstr(buf, " -i p.data --kallsyms /proc/self/fd/9/kallsyms ") != NULL);
}

static void dlfilter_and_extra(void)
{
	const char *extra[] = { "--symfs=/r" };
	struct perfcmd_opts o = { .perf = "/usr/bin/perf", .kind = PERFCMD_BRANCHES,
				  .dlfilter = "/x/f.so", .extra = extra, .nextra = 1 };
	struct perfcmd cmd;
	char buf[512], text[512];

	perfcmd_build(&cmd, &o);
	CHECK(cmd.dlfilter_arg > 0);
	CHECK_STR_EQ(cmd.argv[cmd.dlfilter_arg + 1], "/x/f.so");
	CHECK_STR_EQ(cmd.argv[cmd.argc - 1], "--symfs=/r");
	CHECK(cmd.argv[cmd.argc] == NULL);
	perfcmd_drop_dlfilter(&cmd);
	perfcmd_format(&cmd, buf, sizeof(buf));
	CHECK(!strstr(buf, "dlfilter") && !strstr(buf, "f.so"));
	CHECK(cmd.argv[cmd.argc] == NULL && cmd.dlfilter_arg == 0);
	/* the text path's line, less the binary and -i, is --print-perf-command's */
	perfcmd_text(PERFCMD_BRANCHES, text, sizeof(text));
	CHECK(!strncmp(buf + strlen("/usr/bin/"), text, strlen(text)));
}

static void kinds(void)
{
	enum perfcmd_kind k;

	CHECK(perfcmd_kind_parse("samples", &k) == 0 && k == PERFCMD_SAMPLES);
	CHECK(perfcmd_kind_parse("sched", &k) == 0 && k == PERFCMD_SCHED);
	CHECK(perfcmd_kind_parse("pt", &k) == -1);
}

/* Writes a perf.data of NBUF buffers of NPSB PSB+ each (PSB, TSC, PSBEND,
 * then PAD bytes up to 64 per PSB); the k-th PSB of buffer b at TSC
 * 1000 + 100 * k + b, but for the DAMAGED-th PSB of each buffer (-1: none),
 * whose TSC has bit 40 flipped. perf time = TSC * 2 (time_mult 2, shift 0). */
static void write_perf_data(const char *path, int nbuf, int npsb, int cap_time, int damaged)
{
	FILE *f = fopen(path, "wb");
	uint64_t hdr[13] = { 0 }, info[2 + 5] = { 0 };
	uint64_t off = 104;

	memcpy(hdr, "PERFILE2", 8);
	hdr[1] = 104;
	hdr[5] = off;	/* data.offset */
	hdr[6] = 7 * 8 + (uint64_t)nbuf * (48 + 64 * (uint64_t)npsb);
	fwrite(hdr, 8, 13, f);
	info[0] = 70 | ((uint64_t)(7 * 8) << 48);	/* AUXTRACE_INFO, its size */
	info[1] = 1;			/* Intel PT */
	info[3] = 0;			/* time_shift */
	info[4] = 2;			/* time_mult */
	info[5] = 0;			/* time_zero */
	info[6] = (uint64_t)cap_time;
	fwrite(info, 8, 7, f);
	for (int b = 0; b < nbuf; b++) {
		uint64_t rec[6] = { 71 | ((uint64_t)48 << 48), 64 * (uint64_t)npsb, 0, 1, 0, 0 };

		fwrite(rec, 8, 6, f);
		for (int k = 0; k < npsb; k++) {
			unsigned char pkt[64] = { 0 };
			uint64_t tsc = 1000 + 100 * (uint64_t)k + (uint64_t)b;

			if (k == damaged)
				tsc ^= 1ull << 40;
			for (int i = 0; i < 16; i += 2)
				pkt[i] = 0x02, pkt[i + 1] = 0x82;
			pkt[16] = 0x19;
			memcpy(pkt + 17, &tsc, 7);
			pkt[24] = 0x02;
			pkt[25] = 0x23;
			fwrite(pkt, 1, sizeof(pkt), f);
		}
	}
	fclose(f);
}

/* The boundaries ptsplit_plan() chooses (N ranges), and that it keeps the
 * PSB times, ascending, when there are some. */
static size_t plan(const char *path, unsigned n, uint64_t *b)
{
	struct ptsplit sp;
	size_t nb;

	ptsplit_plan(path, n, &sp);
	nb = sp.nbounds;
	memcpy(b, sp.bounds, nb * sizeof(*b));
	CHECK(nb ? sp.psbs && sp.npsbs > nb : !sp.psbs && !sp.npsbs);
	for (size_t i = 1; i < sp.npsbs; i++)
		CHECK(sp.psbs[i - 1] <= sp.psbs[i]);
	ptsplit_free(&sp);
	return nb;
}

static void boundaries(void)
{
	const char *path = unit_tmp("pt.data");
	uint64_t b[PTSPLIT_MAX];
	size_t n;

	write_perf_data(path, 1, 8, 1, -1);
	CHECK(ptsplit_intel_pt(path));
	n = plan(path, 2, b);
	CHECK_INT_EQ(n, 1);
	/* just after the PSB at half the bytes: the 5th, TSC 1400, time 2800 */
	CHECK_U64_EQ(b[0], 2801);
	n = plan(path, 4, b);
	CHECK_INT_EQ(n, 3);
	CHECK(n == 3 && b[0] == 2401 && b[1] == 2801 && b[2] == 3201);
	CHECK_INT_EQ(plan(path, 1, b), 0);
	/* two buffers (queues): their PSBs in time order */
	write_perf_data(path, 2, 4, 1, -1);
	n = plan(path, 2, b);
	CHECK(n == 1 && b[0] == 2 * 1200 + 1);
	/* no TSC conversion: one range */
	write_perf_data(path, 1, 8, 0, -1);
	CHECK_INT_EQ(plan(path, 2, b), 0);
	/* one PSB: nowhere to start a second range */
	write_perf_data(path, 1, 1, 1, -1);
	CHECK_INT_EQ(plan(path, 2, b), 0);
	/* a PSB+ whose TSC has a flipped bit: its buffer's times go back
	 * after it (or at it): perf's times cannot be told apart, one range */
	write_perf_data(path, 1, 8, 1, 3);
	CHECK_INT_EQ(plan(path, 2, b), 0);
	write_perf_data(path, 2, 8, 1, 6);
	CHECK_INT_EQ(plan(path, 4, b), 0);
	/* not a perf.data */
	CHECK_INT_EQ(plan("/dev/null", 2, b), 0);
	CHECK(!ptsplit_intel_pt("/dev/null"));
	unlink(path);
}

int main(void)
{
	if (unit_tmp_init("test_perfcmd"))
		return 1;
	UNIT_RUN(time_ranges);
	UNIT_RUN(dlfilter_and_extra);
	UNIT_RUN(kinds);
	UNIT_RUN(boundaries);
	unit_tmp_fini();
	return unit_exit();
}
