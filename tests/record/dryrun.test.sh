#!/usr/bin/env bash
# tier: check
# Golden tests of the perf command lines snaptrace-record builds (--dry-run),
# on any host: a stand-in `perf` prints the version under test, so the
# Intel PT lines are checked for perf 4.19 (no --snapshot=e, --kcore,
# --control), 5.4 (--snapshot=e), 5.10 (--kcore, --control, --delay=-1),
# 6.1 and 6.8, for each option set.
. "$(dirname "$0")/../lib.sh"

need_built dryrun "$RECORD"

# stand_in VERSION [HELP]: a perf that only answers --version (and -h, with
# HELP); one of a VERSION alone is written once and used again.
stand_in() {
	local f="$TMP/perf-${1:-empty}"
	if [ $# = 1 ] && [ -x "$f" ]; then
		echo "$f"
		return
	fi
	cat >"$f" <<EOF
#!/bin/sh
case "\$1" in
--version) echo "perf version $1"; exit 0 ;;
record) echo "${2:-}"; exit 129 ;;
esac
exit 1
EOF
	chmod +x "$f"
	echo "$f"
}

# check NAME VERSION "ARGS" "EXPECTED": runs --dry-run with the stand-in for
# VERSION and compares the command line (perf's path shown as "perf").
check() {
	local name=$1 perf out
	perf=$(stand_in "$2")
	# shellcheck disable=SC2086
	out=$("$RECORD" --perf "$perf" --dry-run $3 2>"$TMP/err")
	local rc=$?
	out=${out//$perf/perf}
	if [ $rc -ne 0 ]; then
		fail "$name" "exit $rc: $(cat "$TMP/err")"
	elif [ "$out" != "$4" ]; then
		fail "$name" "expected: $4
     found: $out"
	else
		ok "$name"
	fi
}

# Tracepoints (sched:sched_switch, signal:signal_deliver) are in the lines
# where the host allows them (CAP_PERFMON or paranoid -1, and the
# tracepoint's id readable in tracefs; root mounts tracefs where nothing has
# yet, as perf does: then the kernel having tracefs is enough). The
# signals: their kernel filter, written out here (README "When the program
# fails").
TP_ID=/sys/kernel/tracing/events/sched/sched_switch/id
[ -r $TP_ID ] || TP_ID=/sys/kernel/debug/tracing/events/sched/sched_switch/id
[ -r $TP_ID ] || { [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems && TP_ID=/proc/filesystems; }
FILTER="'sig == 4 || sig == 5 || sig == 6 || sig == 7 || sig == 8 || sig == 11 || sig == 31 || \
(sa_handler == 0 && (sig == 1 || sig == 2 || sig == 3 || sig == 9 || sig == 10 || sig == 12 || \
sig == 13 || sig == 14 || sig == 15 || sig == 16 || sig == 24 || sig == 25 || sig == 26 || \
sig == 27 || sig == 29 || sig == 30 || sig >= 32))'"
if [ -r $TP_ID ] && { [ "$(id -u)" = 0 ] ||
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le -1 ]; }; then
	SS=" -e sched:sched_switch/overwrite/"
	SIG=" -e signal:signal_deliver --filter $FILTER"
	# with frame pointers the signal's chain is unwound from a stack copy
	# too, and -d lists the read-only mappings that unwinding reads
	SIGDW=" -e signal:signal_deliver/call-graph=dwarf,stack-size=8192/ --filter $FILTER" DD=" -d"
	SIGPT=" -e signal:signal_deliver/call-graph=fp/ --filter $FILTER"
	# with frame pointers: each switch's twin, unwound from a stack copy,
	# and the dummy records the data mappings its unwinding reads
	TW=" -e context-switches/period=1,overwrite,call-graph=dwarf,stack-size=512/"
	TWF=" -e context-switches/period=1,call-graph=dwarf,stack-size=512/"
	DU="dummy/call-graph=dwarf/u" DK="dummy/call-graph=dwarf/"
else
	SS="" SIG="" SIGDW="" DD="" SIGPT="" TW="" TWF="" DU="dummy:u" DK="dummy"
fi

PT_NORMAL="intel_pt/cyc=1,cyc_thresh=1,mtc_period=0"
PT_HIGH="intel_pt/cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1"
PRE="perf record -o snaptrace-DIR/perf.data --timestamp --no-buildid-cache"
NB="$PRE --no-bpf-event"   # perf >= 5.1
CTL="--delay=-1 --control=fd:3,4"
SE="--snapshot=e"
T42="--per-thread -t 42"
SW="--switch-output=signal"
SWE="--switch-events"
MT="-p 1234,1235"

if requires dryrun_pt psb_cyc; then
	# VERSIONS: one or more, comma-separated (the same line for each)
	while IFS='|' read -r versions args expected; do
		for ver in ${versions//,/ }; do
			check "dryrun_pt_${ver}_$(echo "$args" | tr -c 'a-z0-9\n' '_' | tr -s _)" \
				"$ver" "--mode pt $args" "$(eval echo "\"$expected\"")"
		done
	done <<'EOF'
4.19.0|-t 42|$PRE -e $PT_NORMAL/u$SIGPT $T42 --snapshot $SWE
4.19.0|--timer-resolution low -t 42|$PRE -e intel_pt//u$SIGPT $T42 --snapshot $SWE
4.19.0|--timer-resolution high --kernel -t 42|$PRE -e $PT_HIGH/uk$SIGPT $T42 --snapshot $SWE
4.19.0|--snapshot-size 4M --multi-thread -p 1234,1235|$PRE -e $PT_NORMAL/u$SIGPT $MT --snapshot -m,1024 $SWE
4.19.0|--multi-snapshot -t 42|$PRE -e $PT_NORMAL/u$SIGPT $T42 --snapshot $SWE $SW
4.19.0|--full-execution --kernel -p 7|$PRE -e $PT_NORMAL/uk$SIGPT --per-thread -t 7 $SWE
5.4.0|-t 42|$NB -e $PT_NORMAL/u$SIGPT $T42 --snapshot=e $SWE
5.4.0|--timer-resolution low -t 42|$NB -e intel_pt//u$SIGPT $T42 --snapshot=e $SWE
5.4.0|--timer-resolution high --kernel -t 42|$NB -e $PT_HIGH/uk$SIGPT $T42 --snapshot=e $SWE
5.4.0|--snapshot-size 4M --multi-thread -p 1234,1235|$NB -e $PT_NORMAL/u$SIGPT $MT --snapshot=e -m,1024 $SWE
5.4.0|--multi-snapshot -t 42|$NB -e $PT_NORMAL/u$SIGPT $T42 --snapshot=e $SWE $SW
5.4.0|--full-execution --kernel -p 7|$NB -e $PT_NORMAL/uk$SIGPT --per-thread -t 7 $SWE
5.10.0|-t 42|$NB -e $PT_NORMAL/u$SIGPT $T42 --snapshot=e $SWE $CTL
5.10.0|--timer-resolution low -t 42|$NB -e intel_pt//u$SIGPT $T42 --snapshot=e $SWE $CTL
5.10.0|--timer-resolution high --kernel -t 42|$NB -e $PT_HIGH/uk$SIGPT $T42 --snapshot=e --kcore $SWE $CTL
5.10.0|--snapshot-size 4M --multi-thread -p 1234,1235|$NB -e $PT_NORMAL/u$SIGPT $MT $SE -m,1024 $SWE $CTL
5.10.0|--multi-snapshot -t 42|$NB -e $PT_NORMAL/u$SIGPT $T42 --snapshot=e $SWE $SW $CTL
5.10.0|--full-execution --kernel -p 7|$NB -e $PT_NORMAL/uk$SIGPT --per-thread -t 7 --kcore $SWE $CTL
6.1.187,6.8.12|-t 42|$NB -e $PT_NORMAL/u$SIGPT --buildid-mmap $T42 --snapshot=e $SWE $CTL
6.1.187,6.8.12|--timer-resolution low -t 42|$NB -e intel_pt//u$SIGPT --buildid-mmap $T42 --snapshot=e $SWE $CTL
6.1.187,6.8.12|--timer-resolution high --kernel -t 42|$NB -e $PT_HIGH/uk$SIGPT --buildid-mmap $T42 --snapshot=e --kcore $SWE $CTL
6.1.187,6.8.12|--snapshot-size 4M --multi-thread -p 1234,1235|$NB -e $PT_NORMAL/u$SIGPT --buildid-mmap $MT $SE -m,1024 $SWE $CTL
6.1.187,6.8.12|--multi-snapshot -t 42|$NB -e $PT_NORMAL/u$SIGPT --buildid-mmap $T42 --snapshot=e $SWE $SW $CTL
6.1.187,6.8.12|--full-execution --kernel -p 7|$NB -e $PT_NORMAL/uk$SIGPT --buildid-mmap --per-thread -t 7 --kcore $SWE $CTL
EOF
fi

# Sampling lines depend on whether the host has a hardware PMU, and on
# whether it allows sched:sched_switch (CAP_PERFMON or paranoid -1, and the
# tracepoint's id readable in tracefs).
EVSRC=/sys/bus/event_source/devices
if [ -e $EVSRC/cpu/type ] || [ -e $EVSRC/cpu_core/type ]; then
	BASE=cycles
else
	BASE=cpu-clock
fi
EV="$BASE/freq=5000,overwrite/u"; EV2="$BASE/freq=2000,overwrite/u"; EVK="$BASE/freq=5000,overwrite/"
check dryrun_sampling_default 6.1.187 "--mode sampling -t 42" \
	"$NB -e $DU -e $EV$SS$TW$SIGDW --call-graph fp --buildid-mmap$DD -k mono $T42 $SWE $SW $CTL"
check dryrun_sampling_options 6.1.187 \
	"--mode sampling --sampling-freq 2000 --callgraph dwarf --snapshot-size 1M -p 5" \
	"$NB -e dummy:u -e $EV2$SS$SIG --call-graph dwarf --buildid-mmap -m 256 -k mono --per-thread -t 5 $SWE $SW $CTL"
# --multi-snapshot keeps perf recording while it writes a snapshot (12-160
# ms after the hit, measured): a dwarf ring holds that (16 MiB at 5000 Hz,
# as root; perf refuses more than its default otherwise, and the warning
# below says so), fp's default ring does already (issue 24)
M16=" -m 4096"; [ "$(id -u)" = 0 ] || M16=""
check dryrun_sampling_dwarf_multi_ring 6.1.187 \
	"--mode sampling --callgraph dwarf --multi-snapshot -t 42" \
	"$NB -e dummy:u -e $EV$SS$SIG --call-graph dwarf --buildid-mmap$M16 -k mono $T42 $SWE $SW $CTL"
check dryrun_sampling_kernel_multi 6.1.187 \
	"--mode sampling --kernel --multi-snapshot --multi-thread -p 5" \
	"$NB -e $DK -e $EVK$SS$TW$SIGDW --call-graph fp --buildid-mmap$DD -k mono -p 5 $SWE $SW $CTL"
# a pid named twice (or in two -p) is a usage error naming it, not a
# silently shorter list (issue 24)
bad=""
for args in "-p 5,5" "-p 6,5 -p 5"; do
	# shellcheck disable=SC2086
	"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run --mode sampling $args >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "expected each process once, found one named twice" "$TMP/err" ||
		bad="$bad [$args: exit $rc: $(cat "$TMP/err")]"
done
if [ -n "$bad" ]; then fail dryrun_pid_twice_refused "$bad"; else ok dryrun_pid_twice_refused; fi
check dryrun_sampling_full_execution 6.1.187 "--mode sampling --full-execution -t 3" \
	"$NB -e $DU -e $BASE/freq=5000/u${SS%/overwrite/}$TWF$SIGDW --call-graph fp --buildid-mmap$DD -k mono --per-thread -t 3 $SWE $CTL"
check dryrun_sampling_perf_4_19 4.19.0 "--mode sampling -t 3" \
	"$PRE -e $DU -e $EV$SS$TW$SIGDW --call-graph fp$DD -k mono --per-thread -t 3 $SWE $SW"
check dryrun_launch_placeholder 6.1.187 "--mode sampling -- /bin/true" \
	"$NB -e $DU -e $EV$SS$TW$SIGDW --call-graph fp --buildid-mmap$DD -k mono --per-thread -t PID $SWE $SW $CTL"
# --event: each extra event beside the samples, in their overwritable ring
# (sampling), or beside intel_pt in perf's normal ring (PT, as magic-trace);
# a period is perf's period term, its absence perf's default said
# explicitly (freq=4000, a tracepoint's period=1); u unless --kernel; none
# for a tracepoint.
check dryrun_event_sampling 6.1.187 \
	"--mode sampling --event page-faults --event branch-misses/50 --event sched:sched_wakeup -t 42" \
	"$NB -e $DU -e $EV -e page-faults/freq=4000,overwrite/u -e branch-misses/period=50,overwrite/u -e sched:sched_wakeup/period=1,overwrite/$SS$TW$SIGDW --call-graph fp --buildid-mmap$DD -k mono $T42 $SWE $SW $CTL"
check dryrun_event_sampling_kernel_full 6.1.187 \
	"--mode sampling --kernel --full-execution --event page-faults/10 --event cpu/event=0x3c/ -t 3" \
	"$NB -e $DK -e $BASE/freq=5000/ -e page-faults/period=10/ -e cpu/event=0x3c,freq=4000/${SS%/overwrite/}$TWF$SIGDW --call-graph fp --buildid-mmap$DD -k mono --per-thread -t 3 $SWE $CTL"
check dryrun_event_pt 6.1.187 "--mode pt --event branch-misses/50 --event cpu/event=0x3c/ --event sched:sched_wakeup -t 1" \
	"$NB -e $PT_NORMAL/u -e branch-misses/period=50/u -e cpu/event=0x3c,freq=4000/u -e sched:sched_wakeup/period=1/$SIGPT --buildid-mmap --per-thread -t 1 --snapshot=e $SWE $CTL"
check dryrun_extra_perf_arg 6.1.187 "--mode pt --perf-arg --no-inherit -t 1" \
	"$NB -e $PT_NORMAL/u$SIGPT --buildid-mmap --per-thread -t 1 --snapshot=e $SWE $CTL --no-inherit"

# The most pids -p takes (64, of 7 digits) all reach perf's command line.
PIDS=$(seq -s, 1000001 1000064)
check dryrun_many_pids 6.1.187 "--mode pt --timer-resolution low --multi-thread -p $PIDS" \
	"$NB -e intel_pt//u$SIGPT --buildid-mmap -p $PIDS --snapshot=e $SWE $CTL"

# Intel PT as sampling: --buildid-mmap where perf has it (5.12), so that
# perf record opens no binary of the traced process itself, as root, through
# that process's mount namespace (docs/design.md "Threat model").
check dryrun_pt_buildid_mmap 5.12.0 "--mode pt -t 42" \
	"$NB -e $PT_NORMAL/u$SIGPT --buildid-mmap $T42 --snapshot=e $SWE $CTL"
check dryrun_pt_no_buildid_mmap 5.11.0 "--mode pt -t 42" \
	"$NB -e $PT_NORMAL/u$SIGPT $T42 --snapshot=e $SWE $CTL"

# An option the program makes useless is a warning, also under --quiet.
# warned NAME "ARGS" PATTERN: --dry-run with ARGS says PATTERN on stderr.
warned() {
	local perf
	perf=$(stand_in 6.1.187)
	# shellcheck disable=SC2086
	if ! "$RECORD" --perf "$perf" --dry-run -q $2 >/dev/null 2>"$TMP/err"; then
		fail "$1" "exit non-zero: $(cat "$TMP/err")"
	elif ! grep -q "^snaptrace-record: warning: $3" "$TMP/err"; then
		fail "$1" "expected a warning '$3', found: $(cat "$TMP/err")"
	else
		ok "$1"
	fi
}
warned dryrun_warn_dwarf_multi_ring_small "--mode sampling --callgraph dwarf --snapshot-size 1M --multi-snapshot -t 42" \
	"the ring (1024 KiB, --snapshot-size) holds about 20 ms of samples at 5000 Hz with --callgraph dwarf, less than the 200 ms perf may take to write a snapshot while it records on: a hit's moments may be overwritten before perf writes them; --snapshot-size 16384K would hold it"
warned dryrun_warn_multi_snapshot_no_trigger "--mode sampling --multi-snapshot -- /bin/true" \
	"--multi-snapshot is ignored"
if "$RECORD" --perf "$(stand_in 6.1.187)" --dry-run --mode sampling --multi-snapshot \
	--min-interval 10 -t 42 2>&1 >/dev/null | grep -q 'min-interval'; then
	fail dryrun_min_interval_multi_quiet "--min-interval with --multi-snapshot is warned about"
else
	ok dryrun_min_interval_multi_quiet
fi

# The start-up lines say what each mode runs (issue 24: "armed at once (no
# ring buffer)" for the slow-call trigger, "until the trigger" with
# --multi-snapshot): --dry-run prints the recording's own description and
# arming (one source: record/plan.c rec_plan_describe, arming.c), checked
# here for each mode; multisnap.test.sh checks a recording says the same.
# Durations read as people write them (numparse.h num_duration_text()):
# "250 us", "10 s", never "1e+04 ms".
# The workload has the default trigger (snaptrace_trigger), /bin/true none.
# ARM "*": not checked (Intel PT's ring size depends on the privileges).
WL="$SNAPTRACE_TEST_BIN/workload"
# with the tracepoints the samples carry -d's 16 bytes more (plan.h REC_SAMPLE_DATA_BYTES)
RING="after 874 ms: the ring fills in about 874 ms (512 KiB at about 120 bytes a sample (fp), 5000 samples a second); a hit before waits for it (--arm-after 0 arms at once)"
[ -n "$DD" ] && RING="after 771 ms: the ring fills in about 771 ms (512 KiB at about 136 bytes a sample (fp), 5000 samples a second); a hit before waits for it (--arm-after 0 arms at once)"
SLOW="at once (a call slower than --trigger-slower-than is a hit whenever it comes)"
bad=""
while IFS='|' read -r args want arm; do
	# shellcheck disable=SC2086
	"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run $args >/dev/null 2>"$TMP/err"
	got=$(sed -n 's/^snaptrace-record: would record (\(.*\))$/\1/p' "$TMP/err")
	gotarm=$(sed -n 's/^snaptrace-record: would have the trigger armed \(.*\)$/\1/p' "$TMP/err")
	[ "$arm" = "*" ] && gotarm="*"
	[ "$got" = "$want" ] && [ "$gotarm" = "$arm" ] ||
		bad="$bad [$args: '$got', armed '$gotarm'; expected '$want', armed '$arm']"
done <<EOF
--mode sampling -- $WL work|sampling, a ring buffer until the trigger|$RING
--mode sampling --multi-snapshot -- $WL work|sampling, a snapshot at each trigger hit, at most one per 100 ms, until the end|$RING
--mode sampling --multi-snapshot --min-interval 0 --arm-after 0 -- $WL work|sampling, a snapshot at each trigger hit, until the end|after 0 ms (--arm-after): hits before are ignored
--mode sampling --trigger-slower-than 5ms -- $WL work|sampling, a ring buffer until a call slower than 5 ms|$SLOW
--mode sampling --trigger-slower-than 250us --multi-snapshot --duration 3 -- $WL work|sampling, a snapshot at each call slower than 250 us, at most one per 100 ms, until the end; stops after 3 s|$SLOW
--mode sampling --trigger-slower-than 10s --duration 10000 -- $WL work|sampling, a ring buffer until a call slower than 10 s; stops after 10000 s|$SLOW
--mode sampling --full-execution -- $WL work|sampling, everything from the start (no ring buffer), until the trigger|at once (no ring buffer: --full-execution keeps everything from the start)
--mode sampling --full-execution --trigger none -- $WL work|sampling, everything from the start (no ring buffer), until the end|
--mode sampling --trigger none --duration 2 -- $WL work|sampling, no trigger: a snapshot of the ring buffer at the end; stops after 2 s|
--mode sampling -- /bin/true|sampling, no trigger: a snapshot of the ring buffer at the end|
--mode sampling --trigger signal:USR1 -- /bin/true|sampling, a ring buffer until the trigger|$RING
--mode pt --multi-snapshot -- $WL work|Intel PT, a snapshot at each trigger hit, at most one per 100 ms, until the end|*
EOF
if [ -n "$bad" ]; then fail dryrun_startup_lines "$bad"; else ok dryrun_startup_lines; fi

# A dry run checks what the recording checks before perf starts, by the same
# code (record/main.c resolve_probes): a trigger or --measure that does not
# resolve fails it with the recording's error and exit status (1: not
# found; 2: a usage error: MID is one byte into an instruction of
# work_leaf), and the trigger it would use is said, and with --multi-thread
# that a child process's calls are not watched (issue 24,
# trial 13: all of these were "would record (... no trigger ...)", exit 0).
# A function is taken as perf names it too, with its symbol version
# (issue 24, trial 14: "clock_nanosleep@GLIBC_2.2.5" was not found).
MID=$(objdump -d "$WL" | awk -F'\t' '/<work_leaf>:/ { f = 1; next } f && /^$/ { exit }
	f && NF >= 3 && split($2, b, " ") > 1 { sub(/^ */, "", $1); sub(/:$/, "", $1); print $1; exit }')
# one byte into that instruction (of two or more bytes)
[ -n "$MID" ] && MID=$(printf '%x' $((0x$MID + 1)))
bad=""
while IFS='|' read -r args rc want; do
	# shellcheck disable=SC2086
	"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run --mode sampling $args >"$TMP/out" 2>"$TMP/err"
	got=$?
	[ "$got" = "$rc" ] && grep -Eq "^snaptrace-record: $want" "$TMP/err" &&
		{ [ "$rc" = 0 ] || [ ! -s "$TMP/out" ]; } ||
		bad="$bad [$args: exit $got, expected $rc and '$want': $(first_lines "$TMP/err")]"
done <<EOF
--trigger nosuch -- $WL|1|--trigger nosuch: .*expected a function named 'nosuch', found none
--trigger workload.c:1 -- $WL|1|--trigger workload.c:1: .*expected code at workload.c:1, found none
--trigger addr:0x${MID:-0} -- $WL|2|--trigger addr:0x${MID:-0}: 0x${MID:-0} is inside the instruction at
--measure nosuch -- $WL|1|--measure nosuch: .*expected a function named 'nosuch', found none
--measure work_leaf --measure work_leaf -- $WL|2|--measure work_leaf: expected each function once, found work_leaf measured already
--trigger none --trigger-slower-than 5ms -- $WL|2|--trigger-slower-than: expected a function trigger
--trigger signal:NOSUCH -- $WL|2|--trigger signal:NOSUCH: expected a signal name
-- $TMP/no-such-program|2|$TMP/no-such-program: expected an executable program
--trigger work_leaf -- $WL|0|trigger: work_leaf \($WL\) by (uprobe|breakpoint)$
-- $WL|0|trigger: snaptrace_trigger \($WL\) by (uprobe|breakpoint)$
--trigger signal:USR1 -- $WL|0|trigger: the program receiving SIGUSR1$
--multi-thread --trigger none --measure work_leaf -- $WL|0|note: --multi-thread records the processes the program forks too, but --measure watches only the launched process
--multi-thread --trigger work_leaf --measure work_mid -- $WL|0|note: --multi-thread records .* but the trigger and --measure watch only the launched process
--trigger none --event page-faults -- $WL|0|--event page-faults: sampled about 4000 times a second \(perf picks each sample's period, its "period" argument; --event page-faults/N samples every Nth\)$
--trigger none --event page-faults/7 -- $WL|0|--event page-faults/7: sampled every 7th event$
--trigger none --event sched:sched_wakeup -- $WL|0|--event sched:sched_wakeup: sampled every event$
--trigger libc:clock_nanosleep@GLIBC_2.2.5 -- $WL|0|trigger: libc:clock_nanosleep@GLIBC_2.2.5 \([^)]*libc[^)]*\) by (uprobe|breakpoint)$
--trigger none --measure libc:nanosleep@@GLIBC_2.2.5 -- $WL|0|would record
EOF
[ -n "$MID" ] || bad="no instruction of work_leaf longer than a byte in objdump -d $WL"
if [ -n "$bad" ]; then fail dryrun_resolves_as_recording "$bad"; else ok dryrun_resolves_as_recording; fi

# One rule for an option that would have no effect (issue 24, trial 13):
# the command line alone makes it useless (--min-interval without
# --multi-snapshot, --arm-after or --multi-snapshot with --trigger none,
# --timer-resolution with --mode sampling, --callgraph with --mode pt,
# --event's /N beside the event's own period= or freq= term): a usage
# error (exit 2, one line naming it); the program makes it useless (no
# trigger symbol in it): a warning. Every duration option takes a unit,
# --min-interval's bare number being milliseconds (numparse.h
# num_parse_time, one parser).
bad=""
while IFS='|' read -r args rc want; do
	# shellcheck disable=SC2086
	"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run $args >/dev/null 2>"$TMP/err"
	got=$?
	[ "$got" = "$rc" ] && grep -Eq "^snaptrace-record: $want" "$TMP/err" &&
		{ [ "$rc" = 0 ] || [ "$(wc -l <"$TMP/err")" = 1 ]; } ||
		bad="$bad [$args: exit $got, expected $rc and '$want': $(first_lines "$TMP/err")]"
done <<EOF
--mode sampling --min-interval 10 -- $WL|2|--min-interval needs --multi-snapshot
--trigger none --event cpu/event=0x3c,period=99//5 -- $WL|2|--event cpu/event=0x3c,period=99//5: expected the sampling once, found both /5 and the term period=99 \(drop one\)
--trigger none --event cpu/freq=10,event=0x3c//5 -- $WL|2|--event cpu/freq=10,event=0x3c//5: expected the sampling once, found both /5 and the term freq=10 \(drop one\)
--mode sampling --timer-resolution high -- $WL|2|--timer-resolution: expected --mode pt or auto .*found --mode sampling
--mode pt --callgraph dwarf -- $WL|2|--callgraph: expected --mode sampling or auto .*found --mode pt
--mode sampling --arm-after 2 --trigger none -- $WL|2|--arm-after: expected a trigger \(it delays the trigger\), found --trigger none
--mode sampling --multi-snapshot --trigger none -- $WL|2|--multi-snapshot: expected a trigger .*found --trigger none
--mode sampling --multi-snapshot -- /bin/true|0|warning: --multi-snapshot is ignored: it takes a snapshot at each trigger hit, and [^ ]*true has no trigger symbol
--mode sampling --multi-snapshot --min-interval 250ms -- $WL|0|would record \(sampling, a snapshot at each trigger hit, at most one per 250 ms, until the end\)
--mode sampling --multi-snapshot --min-interval 1.5s -- $WL|0|would record \(.* at most one per 1.5 s, until the end\)
--mode sampling --multi-snapshot --min-interval 40 -- $WL|0|would record \(.* at most one per 40 ms, until the end\)
--mode sampling --multi-snapshot --min-interval 40x -- $WL|2|--min-interval 40x: expected a duration from 0 to 86400s
EOF
if [ -n "$bad" ]; then fail dryrun_no_effect_and_durations "$bad"; else ok dryrun_no_effect_and_durations; fi

# A perf whose version says nothing: features come from `perf record -h`.
perf=$(stand_in "" "    --control <fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]>
        --kcore    copy /proc/kcore")
out=$("$RECORD" --perf "$perf" --dry-run --mode pt --kernel -t 1 2>/dev/null)
out=${out//$perf/perf}
# (no --no-bpf-event: that help does not list it)
exp="$PRE -e $PT_NORMAL/uk$SIGPT --per-thread -t 1 --snapshot=e --kcore $SWE $CTL"
if ! requires dryrun_unknown_version_probes_help psb_cyc; then
	:
elif [ "$out" = "$exp" ]; then
	ok dryrun_unknown_version_probes_help
else
	fail dryrun_unknown_version_probes_help "expected: $exp
     found: $out"
fi

# --dry-run never starts anything.
if pgrep -f "$TMP/perf-" >/dev/null; then
	fail dryrun_no_process "a stand-in perf runs"
else
	ok dryrun_no_process
fi

# --callgraph auto: fp for a program built with frame pointers (also when
# stripped: the functions then come from .eh_frame_hdr), dwarf without them
# (the workload and workload-nofp, tests/workload); a script by its
# interpreter, a shell script (a launcher) judged not at all.
if [ ! -x "$SNAPTRACE_TEST_BIN/workload" ] || [ ! -x "$SNAPTRACE_TEST_BIN/workload-nofp" ]; then
	fail dryrun_callgraph_auto "$SNAPTRACE_TEST_BIN/workload or workload-nofp is not built (make all tests-build)"
else
	auto_ok=1
	cp "$SNAPTRACE_TEST_BIN/workload" "$TMP/auto-fp"
	cp "$SNAPTRACE_TEST_BIN/workload-nofp" "$TMP/auto-nofp"
	cp "$SNAPTRACE_TEST_BIN/workload" "$TMP/auto-stripped"
	strip "$TMP/auto-stripped"
	for v in fp:fp nofp:dwarf stripped:fp; do
		IFS=: read -r name want <<<"$v"
		out=$("$RECORD" --perf "$(stand_in 6.1.187)" --dry-run --mode sampling \
			--callgraph auto -- "$TMP/auto-$name" 2>"$TMP/auto.err")
		if [[ "$out" != *" --call-graph $want "* ]] ||
			! grep -q "callgraph auto: $TMP/auto-$name: .*using $want" "$TMP/auto.err"; then
			fail dryrun_callgraph_auto "$name: expected --call-graph $want, found: $out \
$(first_lines "$TMP/auto.err")"
			auto_ok=0
			break
		fi
	done
	# a script is judged by its interpreter, the program that runs (through
	# /usr/bin/env and a script run by a script), and the line says so; a
	# shell script is a launcher (pyenv's shim) whose program is not known:
	# judged nothing, fp, said so (it judged the script: "not an ELF file")
	printf '#!%s\n' "$TMP/auto-nofp" >"$TMP/auto-script"
	printf '#!/usr/bin/env auto-script\n' >"$TMP/auto-envscript"
	printf '#!/bin/sh\nexec "$@"\n' >"$TMP/auto-shim"
	chmod +x "$TMP/auto-script" "$TMP/auto-envscript" "$TMP/auto-shim"
	for v in "script:dwarf:$TMP/auto-script is a script run by $TMP/auto-nofp: " \
		"envscript:dwarf:$TMP/auto-envscript is a script run by $TMP/auto-script, a script run by $TMP/auto-nofp: " \
		"shim:fp:$TMP/auto-shim is a shell script ([^)]*): the program it runs .* is not known before it runs: judged nothing: using fp"; do
		[ "$auto_ok" = 1 ] || break
		IFS=: read -r name want line <<<"$v"
		out=$(PATH="$TMP:$PATH" "$RECORD" --perf "$(stand_in 6.1.187)" --dry-run \
			--mode sampling --callgraph auto -- "$TMP/auto-$name" 2>"$TMP/auto.err")
		if [[ "$out" != *" --call-graph $want "* ]] ||
			! grep -q "callgraph auto: $line" "$TMP/auto.err"; then
			fail dryrun_callgraph_auto "$name: expected --call-graph $want and '$line', found: $out \
$(first_lines "$TMP/auto.err")"
			auto_ok=0
		fi
	done
	[ "$auto_ok" = 1 ] && ok dryrun_callgraph_auto
fi

# A function named as in the source selects the clone gcc made of it when
# the binary has only that (.isra, .constprop, .part; "f(int) [clone
# .isra.0]" in C++), saying which; a cold part (.cold: no call enters it) is
# never one, and two clones of one function are an ambiguity (issue 24).
if requires dryrun_trigger_clone cxx; then
	g++ -O2 -Wall -Wextra -Werror -o "$TMP/clones" "$SNAPTRACE_TOP/tests/record/clones_target.cc" \
		2>"$TMP/cc.err" || fail dryrun_trigger_clone "g++: $(first_lines "$TMP/cc.err")"
	bad=""
	while IFS='|' read -r spec rc line; do
		"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run --mode sampling --trigger "$spec" \
			-- "$TMP/clones" >/dev/null 2>"$TMP/err"
		got=$?
		[ $got = "$rc" ] && grep -q -- "$line" "$TMP/err" ||
			bad="$bad [--trigger $spec: exit $got, expected $rc and '$line': $(first_lines "$TMP/err")]"
	done <<'ROWS'
app::Store::load(int)|0|--trigger app::Store::load(int): .*/clones has that function only as the clone gcc made of it .*: using app::Store::load(int) \[clone .isra.0\]$
app::Store::load|0|using app::Store::load(int) \[clone .isra.0\]$
crunch|0|--trigger crunch: .*: using crunch.constprop.0.isra.0$
chill|1|expected a function named 'chill', found none
twice|2|expected one function named 'twice', found 2
ROWS
	if [ -n "$bad" ]; then fail dryrun_trigger_clone "$bad"; else ok dryrun_trigger_clone; fi
fi

# How to stop a recording is said once perf records (the line "recording
# ... ; Ctrl-C to stop"), never before: a dry run, which records nothing,
# says it nowhere (issue 24: "no trigger symbol ... recording until Ctrl-C,
# exit" came before perf ran, and a Ctrl-C it invited on a loaded machine
# found nothing recorded yet); with SIGINT ignored neither its stand-in
# ("SIGTERM (kill PID)").
bad=""
for args in "-- /bin/true" "--duration 2 -- /bin/true" "--trigger none -- /bin/true" \
	"--trigger none -p $$"; do
	for ign in "" INT; do
		# shellcheck disable=SC2086
		if [ -n "$ign" ]; then
			(trap '' INT; exec "$RECORD" --perf "$(stand_in 6.1.187)" --dry-run $args) \
				>/dev/null 2>"$TMP/err"
		else
			"$RECORD" --perf "$(stand_in 6.1.187)" --dry-run $args >/dev/null 2>"$TMP/err"
		fi
		rc=$?
		if [ $rc -ne 0 ] || grep -Eq 'Ctrl-C|to stop|kill ' "$TMP/err"; then
			bad+=" [$args${ign:+ (SIG$ign ignored)}: exit $rc: $(first_lines "$TMP/err")]"
		fi
	done
done
if [ -n "$bad" ]; then fail dryrun_no_stop_hint "$bad"; else ok dryrun_no_stop_hint; fi
