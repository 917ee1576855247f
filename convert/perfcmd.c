/* SPDX-License-Identifier: MIT */
#include "perfcmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S 1000000000u

/* The fields of each kind (docs/design.md "perf script grammar"): "-F" and
 * its argument, as many pairs as the kind needs. A recording of
 * sched:sched_switch has them per kind of event, and the tracepoint's text
 * (perf warns about `trace` for any other kind). Sampled call chains are
 * read with --no-inline: perf would add inlined frames to the chains it unwinds
 * from a stack copy (DWARF) only, and name a function by its DWARF name,
 * marked "(inlined)" and without its binary, wherever that differs from
 * its symbol (clock_nanosleep@GLIBC_2.2.5 is __GI___clock_nanosleep). */
static const char *const kind_args[][9] = {
	[PERFCMD_BRANCHES] = { "--itrace=bep", "-F",
			       "comm,pid,tid,time,flags,ip,addr,sym,symoff,dso,event,period" },
	[PERFCMD_SAMPLES] = { "-F", "comm,pid,tid,time,ip,sym,symoff,dso,event,period" },
	[PERFCMD_SCHED] = {
		"-F", "hw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
		"-F", "sw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
		"-F", "raw:comm,pid,tid,time,ip,sym,symoff,dso,event,period",
		"-F", "trace:comm,pid,tid,time,ip,sym,symoff,dso,event,period,trace",
	},
};

static const char *const kind_names[] = {
	[PERFCMD_BRANCHES] = "branches", [PERFCMD_SAMPLES] = "samples", [PERFCMD_SCHED] = "sched",
};

/* Writes NS as perf's "SECONDS.NANOSECONDS" into BUF. */
static int put_time(char *buf, size_t size, uint64_t ns)
{
	return snprintf(buf, size, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_S, ns % NS_PER_S);
}

void perfcmd_build(struct perfcmd *cmd, const struct perfcmd_opts *o)
{
	const char **a = cmd->argv;
	size_t n = 0;

	a[n++] = o->perf;
	if (o->buildid_dir) {   /* a global option: before the command */
		a[n++] = "--buildid-dir";
		a[n++] = o->buildid_dir;
	}
	a[n++] = "script";
	a[n++] = "--ns";
	for (size_t i = 0; i < 9 && kind_args[o->kind][i]; i++)
		a[n++] = kind_args[o->kind][i];
	if (o->kind != PERFCMD_BRANCHES)
		a[n++] = "--no-inline";	/* sampled call chains: see kind_args */
	a[n++] = "--show-switch-events";	/* off-CPU time; none when not recorded */
	a[n++] = "--show-task-events";	/* a thread's exit ends it */
	a[n++] = "-f";	/* root reading another user's perf.data */
	if (o->input) {
		a[n++] = "-i";
		a[n++] = o->input;
	}
	if (o->kallsyms) {
		a[n++] = "--kallsyms";
		a[n++] = o->kallsyms;
	}
	cmd->dlfilter_arg = 0;
	if (o->dlfilter) {
		/* The branches in binary (docs/design.md "Decoding"). */
		cmd->dlfilter_arg = n;
		a[n++] = "--dlfilter";
		a[n++] = o->dlfilter;
	}
	if (o->has_range) {
		int k = 0;

		/* --time is inclusive at both ends; an empty end is the file's */
		if (o->first)
			k = put_time(cmd->time, sizeof(cmd->time), o->first);
		cmd->time[k++] = ',';
		cmd->time[k] = 0;
		if (o->last != UINT64_MAX)
			put_time(cmd->time + k, sizeof(cmd->time) - (size_t)k, o->last);
		a[n++] = "--time";
		a[n++] = cmd->time;
	}
	for (size_t i = 0; i < o->nextra && n < PERFCMD_MAX_ARGS; i++)
		a[n++] = o->extra[i];
	a[n] = NULL;
	cmd->argc = n;
}

void perfcmd_drop_dlfilter(struct perfcmd *cmd)
{
	size_t k = cmd->dlfilter_arg;

	if (!k)
		return;
	memmove(&cmd->argv[k], &cmd->argv[k + 2], (cmd->argc + 1 - k - 2) * sizeof(cmd->argv[0]));
	cmd->argc -= 2;
	cmd->dlfilter_arg = 0;
}

int perfcmd_kind_parse(const char *name, enum perfcmd_kind *kind)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i])) {
			*kind = (enum perfcmd_kind)i;
			return 0;
		}
	return -1;
}

size_t perfcmd_format(const struct perfcmd *cmd, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < cmd->argc && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", cmd->argv[i]);
	return n;
}

void perfcmd_text(enum perfcmd_kind kind, char *buf, size_t size)
{
	struct perfcmd cmd;

	perfcmd_build(&cmd, &(struct perfcmd_opts){ .perf = "perf", .kind = kind });
	perfcmd_format(&cmd, buf, size);
}
