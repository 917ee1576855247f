/* SPDX-License-Identifier: MIT */
/* Unit tests of the perf script line parser (convert/parse.c) on the format
 * variants of docs/design.md "perf script grammar". */
#include "parse.h"
#include "unit.h"

static struct conv_line parse(const char *s)
{
	struct conv_line l;

	conv_parse_line(s, strlen(s), &l);
	return l;
}

static int span_is(struct conv_span sp, const char *want)
{
	return sp.len == strlen(want) && !memcmp(sp.s, want, sp.len);
}

#define CHECK_SPAN(sp, want)                                                         \
	do {                                                                         \
		if (!span_is(sp, want))                                              \
			UNIT_FAIL("%s is \"%.*s\", expected \"%s\"", #sp, (int)(sp).len, \
				  (sp).s ? (sp).s : "", want);                       \
	} while (0)

static void branch_perf61(void)
{
	struct conv_line l = parse(
		"           relay 18211/18212 73410.552000180:          1  branches:u:   call"
		"                      7f3c11a04c10 ring_pop+0x30 (/opt/relay/lib/libring.so) =>"
		"     7f3c11a05100 ring_wait+0x0 (/opt/relay/lib/libring.so)");

	CHECK_INT_EQ(l.kind, CONV_LINE_BRANCH);
	CHECK_SPAN(l.comm, "relay");
	CHECK_INT_EQ(l.pid, 18211);
	CHECK_INT_EQ(l.tid, 18212);
	CHECK_U64_EQ(l.ts, 73410552000180ull);
	CHECK(l.has_period);
	CHECK_INT_EQ(l.period, 1);
	CHECK_SPAN(l.event, "branches");
	CHECK_INT_EQ(l.flags, CONV_F_CALL);
	CHECK_U64_EQ(l.from.ip, 0x7f3c11a04c10ull);
	CHECK_SPAN(l.from.sym, "ring_pop");
	CHECK(l.from.has_symoff);
	CHECK_U64_EQ(l.from.symoff, 0x30);
	CHECK_SPAN(l.from.dso, "/opt/relay/lib/libring.so");
	CHECK_U64_EQ(l.to.ip, 0x7f3c11a05100ull);
	CHECK_SPAN(l.to.sym, "ring_wait");
	CHECK_U64_EQ(l.to.symoff, 0);
}

static void branch_minimal_columns(void)
{
	/* No comm, no period, no event, tid only, no symoff, no dso. */
	struct conv_line l = parse("  4412 1200.000000300:   return   46a140 schedule =>  46a145 main");

	CHECK_INT_EQ(l.kind, CONV_LINE_BRANCH);
	CHECK_INT_EQ(l.comm.len, 0);
	CHECK_INT_EQ(l.pid, 4412);
	CHECK_INT_EQ(l.tid, 4412);
	CHECK(!l.has_period);
	CHECK_INT_EQ(l.event.len, 0);
	CHECK_INT_EQ(l.flags, CONV_F_RETURN);
	CHECK_SPAN(l.from.sym, "schedule");
	CHECK(!l.from.has_symoff);
	CHECK_INT_EQ(l.from.dso.len, 0);
	CHECK_SPAN(l.to.sym, "main");
}

static void branch_microseconds(void)
{
	/* Without --ns perf prints microseconds. */
	struct conv_line l = parse("x 1/1 12.345678: 1 branches: jmp 10 a+0x0 (d) => 20 b+0x0 (d)");

	CHECK_U64_EQ(l.ts, 12345678000ull);
	CHECK_INT_EQ(l.flags, CONV_F_JMP);
}

static void comm_with_spaces_and_colons(void)
{
	struct conv_line l = parse(
		"  Web Content: 1 77/78 5.000000001: 1 branches:uH: jcc 401000 f+0x1 (/b) =>"
		" 401010 f+0x11 (/b)");

	CHECK_INT_EQ(l.kind, CONV_LINE_BRANCH);
	CHECK_SPAN(l.comm, "Web Content: 1");
	CHECK_INT_EQ(l.tid, 78);
	CHECK_SPAN(l.event, "branches");
	CHECK_INT_EQ(l.flags, CONV_F_JCC);
}

/* A comm is another process's name: one that reads as a header, and the
 * part of one after a newline (a line of its own), is never taken for the
 * line's header (docs/design.md "Threat model"). */
static void comm_forging_a_header(void)
{
	/* "1/1 1.0: 1 x:", 13 bytes, whole or after a newline: the header is the
	 * last one whose comm fits in CONV_COMM_MAX bytes */
	struct conv_line l = parse("1/1 1.0: 1 x:    666/667      20.000300000:     100000 cpu-clock:u: ");

	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK_INT_EQ(l.pid, 666);
	CHECK_INT_EQ(l.tid, 667);
	CHECK_U64_EQ(l.ts, 20000300000ull);
	CHECK_INT_EQ(l.time_digits, 9);
	CHECK_SPAN(l.comm, "1/1 1.0: 1 x:");
	CHECK_SPAN(l.event, "cpu-clock");
	/* 15 bytes of comm: the longest perf prints */
	l = parse("1/1 1.000000: x 666/666 20.000300000: 1 cpu-clock:u: ");
	CHECK_INT_EQ(l.pid, 666);
	CHECK_SPAN(l.comm, "1/1 1.000000: x");
	/* a 16-byte comm is not perf's: its header is not taken */
	l = parse("1/1 1.0: 1 xyzwv 5/5 2.000000000: 1 cpu-clock:u: ");
	CHECK_INT_EQ(l.pid, 1);
	CHECK_INT_EQ(l.time_digits, 1);
	/* the rest of a sched_switch line after a newline in next_comm: its
	 * header is its own (1/1, one digit), which the driver refuses */
	l = parse("1/1 1.0: 1 x: next_pid=666 next_prio=120");
	CHECK_INT_EQ(l.pid, 1);
	CHECK_INT_EQ(l.time_digits, 1);
	/* microseconds; an error line's time is no header's */
	CHECK_INT_EQ(parse("x 1/1 12.345678: 1 cpu-clock: ").time_digits, 6);
	CHECK_INT_EQ(parse(" instruction trace error type 1 time 1.000000002 cpu 1 pid 2 tid 3 "
			   "ip 0x4 code 5: m").time_digits, 0);
}

static void flag_variants(void)
{
	static const struct {
		const char *flags;
		uint32_t want;
	} rows[] = {
		{ "tr strt", CONV_F_TRACE_BEGIN },
		{ "tr end", CONV_F_TRACE_END },
		{ "tr strt jmp", CONV_F_TRACE_BEGIN | CONV_F_JMP },
		{ "tr end  syscall", CONV_F_TRACE_END | CONV_F_SYSCALL },
		{ "tr end  async", CONV_F_TRACE_END | CONV_F_ASYNC },
		{ "tr end  call", CONV_F_TRACE_END | CONV_F_CALL },
		{ "tr end  return", CONV_F_TRACE_END | CONV_F_RETURN },
		{ "tr end  iret", CONV_F_TRACE_END | CONV_F_IRET },
		{ "tr end  sysret", CONV_F_TRACE_END | CONV_F_SYSRET },
		{ "tr strt tr end", CONV_F_TRACE_BEGIN | CONV_F_TRACE_END },
		{ "hw int", CONV_F_HW_INT },
		{ "int", CONV_F_INT },
		{ "iret", CONV_F_IRET },
		{ "syscall", CONV_F_SYSCALL },
		{ "sysret", CONV_F_SYSRET },
		{ "async", CONV_F_ASYNC },
		{ "tx abrt", CONV_F_TX_ABORT },
		{ "vmentry", CONV_F_VMENTRY },
		{ "vmexit", CONV_F_VMEXIT },
		{ "br miss", CONV_F_BRANCH_MISS },
		{ "jcc   (x)", CONV_F_JCC | CONV_F_IN_TX },
		{ "call (intr)", CONV_F_CALL },
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct conv_line l;

		snprintf(buf, sizeof(buf), "c 1/2 3.000000004: 1 branches:u: %s  10 a+0x0 (d) =>"
			 "  20 b+0x4 (d)", rows[i].flags);
		l = parse(buf);
		if (l.kind != CONV_LINE_BRANCH || l.flags != rows[i].want)
			UNIT_FAIL("\"%s\": kind %d flags 0x%x, expected branch 0x%x", rows[i].flags,
				  l.kind, l.flags, rows[i].want);
	}
}

static void unknown_flag(void)
{
	struct conv_line l = parse("c 1/2 3.000000004: 1 branches:u: jump  10 a+0x0 (d) => 20 b (d)");

	CHECK_INT_EQ(l.kind, CONV_LINE_UNKNOWN_FLAG);
	CHECK_SPAN(l.message, "jump");
}

static void symbols_hard(void)
{
	struct conv_line l = parse(
		"c 1/2 3.000000004: 1 branches:u: call  401000 std::map<int, std::pair<int, int> >"
		"::operator[](int const&)+0x1f (/usr/bin/app) =>  402000 Foo::operator=>(Bar) const+0x0"
		" (/usr/bin/app)");

	CHECK_INT_EQ(l.kind, CONV_LINE_BRANCH);
	CHECK_SPAN(l.from.sym, "std::map<int, std::pair<int, int> >::operator[](int const&)");
	CHECK_U64_EQ(l.from.symoff, 0x1f);
	CHECK_SPAN(l.to.sym, "Foo::operator=>(Bar) const");
	CHECK_SPAN(l.to.dso, "/usr/bin/app");

	l = parse("c 1/2 3.000000004: 1 branches:u: call  10 camlStdlib__list__map_1234+0x8 "
		  "(/app.exe) =>  20 caml_apply2+0x0 (/app.exe)");
	CHECK_SPAN(l.from.sym, "camlStdlib__list__map_1234");
}

static void garbage_offset_and_kernel(void)
{
	struct conv_line l = parse(
		"solve 7001/7001 310.000000100: 1 branches:uH: call 401870 integrate+0x30 "
		"(/home/user/solve) => 401030 tan@plt+0xfffffffffef9b000 (/home/user/solve)");

	CHECK_SPAN(l.to.sym, "tan@plt");
	CHECK_U64_EQ(l.to.symoff, 0xfffffffffef9b000ull);

	l = parse("i 9/9 5.000000250: 1 branches:ku: call ffffffff9a000070 entry_SYSCALL_64+0x30 "
		  "([kernel.kallsyms]) => ffffffff9a254300 do_syscall_64+0x0 ([kernel.kallsyms])");
	CHECK_U64_EQ(l.from.ip, 0xffffffff9a000070ull);
	CHECK_SPAN(l.from.dso, "[kernel.kallsyms]");
	CHECK_SPAN(l.to.sym, "do_syscall_64");
}

static void unknown_symbols(void)
{
	struct conv_line l = parse("g 1/2 3.000000004: 1 branches:u: tr strt  0 [unknown] ([unknown])"
				   " =>  46a100 runtime.schedule+0x0 (/opt/gosched)");

	CHECK_INT_EQ(l.kind, CONV_LINE_BRANCH);
	CHECK_U64_EQ(l.from.ip, 0);
	CHECK_INT_EQ(l.from.sym.len, 0);
	CHECK(l.from.has_symtext);
	CHECK_SPAN(l.from.dso, "[unknown]");

	l = parse("g 1/2 3.000000004: 1 branches:u: call  55d1c0a2f3c0 f+0x40 (/n) =>"
		  "  3a1b00c04040 [unknown] (//anon)");
	CHECK_INT_EQ(l.to.sym.len, 0);
	CHECK_SPAN(l.to.dso, "//anon");

	/* [unknown] without a dso, and a deleted file's dso. */
	l = parse("g 1/2 3.000000004: 1 branches:u: jmp  10 [unknown] =>  20 f+0x0 (/tmp/x (deleted))");
	CHECK_INT_EQ(l.from.sym.len, 0);
	CHECK_INT_EQ(l.from.dso.len, 0);
	CHECK_SPAN(l.to.dso, "/tmp/x (deleted)");
}

static void decode_errors(void)
{
	struct conv_line l = parse(
		" instruction trace error type 1 time 77.000000250 cpu 3 pid 6100 tid 6101 ip "
		"0x402050 code 7: Overflow packet");

	CHECK_INT_EQ(l.kind, CONV_LINE_ERROR);
	CHECK(l.has_time);
	CHECK_U64_EQ(l.ts, 77000000250ull);
	CHECK_INT_EQ(l.pid, 6100);
	CHECK_INT_EQ(l.tid, 6101);
	CHECK_U64_EQ(l.from.ip, 0x402050);
	CHECK_SPAN(l.message, "Overflow packet");

	l = parse(" instruction trace error type 1 cpu -1 pid 6100 tid 6100 ip 0 code 8: Lost trace data");
	CHECK_INT_EQ(l.kind, CONV_LINE_ERROR);
	CHECK(!l.has_time);
	CHECK_SPAN(l.message, "Lost trace data");

	l = parse(" instruction trace error type 1 cpu 0 pid 5 tid 5 ip 0x1 code 9: Never-ending loop"
		  " (refer perf config intel-pt.max-loops)");
	CHECK_SPAN(l.message, "Never-ending loop (refer perf config intel-pt.max-loops)");
}

static void samples_and_chains(void)
{
	struct conv_line l = parse("          ingest 2300/2300  950.000100000:     100000 cpu-clock:u: ");

	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK_SPAN(l.event, "cpu-clock");
	CHECK_INT_EQ(l.period, 100000);
	CHECK(!l.has_loc);

	l = parse("\t          4011f6 parse_row+0x26 (/opt/ingest)");
	CHECK_INT_EQ(l.kind, CONV_LINE_CHAIN);
	CHECK_U64_EQ(l.from.ip, 0x4011f6);
	CHECK_SPAN(l.from.sym, "parse_row");

	l = parse("  app 10/11 5.000000001: 50 branch-misses/period=50/u:  401000 f+0x1 (/bin/app)");
	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK_SPAN(l.event, "branch-misses");
	CHECK(l.has_loc);
	CHECK(!l.has_addr);
	CHECK_SPAN(l.from.sym, "f");

	l = parse("");
	CHECK_INT_EQ(l.kind, CONV_LINE_BLANK);
}

/* perf's addr column before the ip (-F with addr: a branch trace's fields),
 * bare for most events, resolved to SYM (DSO) for page faults. */
static void sample_addr_column(void)
{
	struct conv_line l = parse("3871/3871 431345.473157382:         50                  "
				   "branch-misses/period=50/u:                                      0"
				   "     7fca99943ac7 dl_open_worker+0x37 (/usr/lib64/ld-2.28.so)");

	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK_SPAN(l.event, "branch-misses");
	CHECK(l.has_addr);
	CHECK_U64_EQ(l.to.ip, 0);
	CHECK(l.has_loc);
	CHECK_U64_EQ(l.from.ip, 0x7fca99943ac7ull);
	CHECK_SPAN(l.from.sym, "dl_open_worker");
	CHECK_U64_EQ(l.from.symoff, 0x37);
	CHECK_SPAN(l.from.dso, "/usr/lib64/ld-2.28.so");

	l = parse("app 10/10 2.000000001: 1 page-faults/period=1/u:    7ffc1000 [unknown] ([stack])"
		  "      401020 fill(int)+0x20 (/opt/app)");
	CHECK(l.has_addr);
	CHECK_U64_EQ(l.to.ip, 0x7ffc1000);
	CHECK_SPAN(l.to.dso, "[stack]");
	CHECK_U64_EQ(l.from.ip, 0x401020);
	CHECK_SPAN(l.from.sym, "fill(int)");
	CHECK_SPAN(l.from.dso, "/opt/app");

	/* one location: a symbol with parentheses and spaces is not an addr */
	l = parse("app 10/10 2.000000001: 1 cache-misses:u:  401020 (anonymous namespace)::f(int, "
		  "char) const+0x20 (/opt/app)");
	CHECK(!l.has_addr);
	CHECK_U64_EQ(l.from.ip, 0x401020);
	CHECK_SPAN(l.from.sym, "(anonymous namespace)::f(int, char) const");

	/* event names: generic terms go, terms that choose the event stay */
	l = parse("app 10/10 2.000000001: 1 cpu-clock/freq=10000,overwrite/u: ");
	CHECK_SPAN(l.event, "cpu-clock");
	l = parse("app 10/10 2.000000001: 1 cpu/event=0x3c,umask=0x1/u: ");
	CHECK_SPAN(l.event, "cpu/event=0x3c,umask=0x1/u");
	l = parse("app 10/10 2.000000001: 1 syscalls:sys_enter_write: fd: 1");
	CHECK_SPAN(l.event, "syscalls:sys_enter_write");
}

static void aux_events(void)
{
	struct conv_line l = parse("  indexd  9120/9120  5522.000000100:   1   cbr:  cbr: 36 freq: 3629 "
				   "MHz (450%)    0 [unknown] ([unknown])");

	CHECK_INT_EQ(l.kind, CONV_LINE_AUX);
	CHECK_INT_EQ(l.cbr_mhz, 3629);
	l = parse("  indexd  9120/9120  5522.000000100:   1   psb:   offs: 0x0   0 [unknown] ([unknown])");
	CHECK_INT_EQ(l.kind, CONV_LINE_AUX);
	CHECK_INT_EQ(l.cbr_mhz, 0);
}

static void switch_records(void)
{
	struct conv_line l = parse("naps 10580/10580   282.997609080: PERF_RECORD_SWITCH OUT preempt");

	CHECK_INT_EQ(l.kind, CONV_LINE_SWITCH);
	CHECK_SPAN(l.comm, "naps");
	CHECK_INT_EQ(l.tid, 10580);
	CHECK_U64_EQ(l.ts, 282997609080ull);
	CHECK(l.switch_out);
	CHECK(l.switch_preempt);
	l = parse("naps 10580/10580   283.005957473: PERF_RECORD_SWITCH IN         ");
	CHECK_INT_EQ(l.kind, CONV_LINE_SWITCH);
	CHECK(!l.switch_out);
	CHECK(!l.switch_preempt);
	l = parse("  my app  7/9  1.000000001: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:"
		  "     0/0    ");
	CHECK_INT_EQ(l.kind, CONV_LINE_SWITCH);
	CHECK_SPAN(l.comm, "my app");
	CHECK(l.switch_out);
	CHECK(!l.switch_preempt);
	l = parse("app 7/9  1.000000001: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:  12/13");
	CHECK_INT_EQ(l.kind, CONV_LINE_SWITCH);
	CHECK(!l.switch_out);
	l = parse("app 7/9  1.000000001: PERF_RECORD_SWITCH SIDEWAYS");
	CHECK_INT_EQ(l.kind, CONV_LINE_BAD);
	l = parse("app 7/9  1.000000001: PERF_RECORD_SWITCHED OUT");
	CHECK(l.kind != CONV_LINE_SWITCH);
}

/* perf script --show-task-events: an exit ends a thread; a fork or a comm
 * record changes no time of one (never an event sample named
 * "PERF_RECORD_COMM"). */
static void task_records(void)
{
	struct conv_line l = parse("             thr 22294/22320   929.220118: "
				   "PERF_RECORD_EXIT(22294:22320):(22278:22278)");

	CHECK_INT_EQ(l.kind, CONV_LINE_EXIT);
	CHECK_SPAN(l.comm, "thr");
	CHECK_INT_EQ(l.pid, 22294);
	CHECK_INT_EQ(l.tid, 22320);
	CHECK_U64_EQ(l.ts, 929220118000ull);
	l = parse("             thr 22294/22294   929.181610: PERF_RECORD_FORK(22294:22320):(22294:22294)");
	CHECK_INT_EQ(l.kind, CONV_LINE_AUX);
	CHECK_INT_EQ(l.cbr_mhz, 0);
	l = parse("             thr     0/0         0.000000: PERF_RECORD_COMM: thr:22294/22294");
	CHECK_INT_EQ(l.kind, CONV_LINE_AUX);
	CHECK_INT_EQ(l.event.len, 0);
	l = parse("             cat 23625/23625   953.163025: PERF_RECORD_COMM exec: cat:23625/23625");
	CHECK_INT_EQ(l.kind, CONV_LINE_AUX);
	l = parse("             cat 23625/23625   953.163025: PERF_RECORD_EXITED(1:1):(1:1)");
	CHECK(l.kind != CONV_LINE_EXIT);
}

static void sched_switch_fields(void)
{
	struct conv_line l = parse(
		"naps 10580/10580   283.006030111:          1 sched:sched_switch: prev_comm=naps "
		"prev_pid=10580 prev_prio=120 prev_state=S ==> next_comm=cc1 next_pid=10558 "
		"next_prio=120");

	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK_SPAN(l.event, "sched:sched_switch");
	CHECK(l.sched.valid);
	CHECK_SPAN(l.sched.prev_comm, "naps");
	CHECK_INT_EQ(l.sched.prev_pid, 10580);
	CHECK_INT_EQ(l.sched.prev_prio, 120);
	CHECK_SPAN(l.sched.prev_state, "S");
	CHECK_SPAN(l.sched.next_comm, "cc1");
	CHECK_INT_EQ(l.sched.next_pid, 10558);
	CHECK(!l.has_loc);
	/* comms with spaces and '=', R+ (preempted), and an inline ip without a chain */
	l = parse("Web Content 5/6 2.000000000: 1 sched:sched_switch: prev_comm=Web Content "
		  "prev_pid=6 prev_prio=120 prev_state=R+ ==> next_comm=a=b c next_pid=0 next_prio=120"
		  " ffffffff82265908 __schedule+0x628 ([kernel.kallsyms])");
	CHECK(l.sched.valid);
	CHECK_SPAN(l.sched.prev_comm, "Web Content");
	CHECK_SPAN(l.sched.prev_state, "R+");
	CHECK_SPAN(l.sched.next_comm, "a=b c");
	CHECK_INT_EQ(l.sched.next_pid, 0);
	CHECK(l.has_loc);
	CHECK_SPAN(l.from.sym, "__schedule");
	/* no trace field, or cut short: a plain sample */
	l = parse("app 5/6 2.000000000: 1 sched:sched_switch: ");
	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK(!l.sched.valid);
	l = parse("app 5/6 2.000000000: 1 sched:sched_switch: prev_comm=app prev_pid=x6");
	CHECK(!l.sched.valid);
	/* other tracepoints keep their text unread */
	l = parse("app 5/6 2.000000000: 1 sched:sched_wakeup: comm=app pid=6 prio=120");
	CHECK_INT_EQ(l.kind, CONV_LINE_SAMPLE);
	CHECK(!l.sched.valid);
}

/* perf evlist -F: the sampling event's name, as a sample line gives it,
 * and its frequency or period. */
static void evlist_lines(void)
{
	struct conv_span ev;
	uint64_t n;
	bool freq;

#define EVLIST(s) conv_parse_evlist_line(s, strlen(s), &ev, &n, &freq)
	CHECK(EVLIST("cpu-clock/freq=5000,overwrite/u: sample_freq=5000"));
	CHECK_SPAN(ev, "cpu-clock");
	CHECK_INT_EQ(n, 5000);
	CHECK(freq);
	CHECK(EVLIST("dummy:u: sample_freq=4000"));
	CHECK_SPAN(ev, "dummy");
	CHECK(EVLIST("cpu-clock: sample_period=100000"));
	CHECK_SPAN(ev, "cpu-clock");
	CHECK_INT_EQ(n, 100000);
	CHECK(!freq);
	CHECK(EVLIST("sched:sched_switch: sample_period=1"));
	CHECK_SPAN(ev, "sched:sched_switch");
	/* not an event line, or no number */
	CHECK(!EVLIST("# Tip: use 'perf evlist --trace-fields' to show fields"));
	CHECK(!EVLIST("cpu-clock"));
	CHECK(!EVLIST("cpu-clock: sample_freq="));
	CHECK(!EVLIST("cpu-clock: sample_freq=0"));
	CHECK(!EVLIST("cpu-clock: sample_freq=5000x"));
	CHECK(!EVLIST("cpu-clock: sample_type=IP"));
#undef EVLIST
}

static void bad_lines(void)
{
	CHECK_INT_EQ(parse("Warning: something odd").kind, CONV_LINE_BAD);
	CHECK_INT_EQ(parse("c 1/2 3.000000004: 1 branches:u: call 10 a+0x0 (d)").kind, CONV_LINE_BAD);
	CHECK_INT_EQ(parse("c 1/2 nottime: call 10 a => 20 b").kind, CONV_LINE_BAD);
	/* A line cut short (truncated last line) must not read past its end. */
	CHECK_INT_EQ(parse("c 1/2 3.000000004: 1 branches:u: call  10 a+0x0 (d) =").kind,
		     CONV_LINE_BAD);
}

int main(void)
{
	UNIT_RUN(branch_perf61);
	UNIT_RUN(branch_minimal_columns);
	UNIT_RUN(branch_microseconds);
	UNIT_RUN(comm_with_spaces_and_colons);
	UNIT_RUN(comm_forging_a_header);
	UNIT_RUN(flag_variants);
	UNIT_RUN(unknown_flag);
	UNIT_RUN(symbols_hard);
	UNIT_RUN(garbage_offset_and_kernel);
	UNIT_RUN(unknown_symbols);
	UNIT_RUN(decode_errors);
	UNIT_RUN(samples_and_chains);
	UNIT_RUN(sample_addr_column);
	UNIT_RUN(aux_events);
	UNIT_RUN(switch_records);
	UNIT_RUN(task_records);
	UNIT_RUN(sched_switch_fields);
	UNIT_RUN(evlist_lines);
	UNIT_RUN(bad_lines);
	return unit_exit();
}
