#!/usr/bin/env bash
# tier: record
# The trigger on the timeline, recorded for real (README "Finding the
# moment"): the front end converts the recording directory, and the trace
# holds one "[trigger] SPEC" instant per hit of record.json at its time, on
# the track "triggers" of the traced process, with the arguments the call
# was made with (the target: the workload, tests/workload/workload.c, mode
# hits: snaptrace_trigger(1000 + i, 0xfeed0000 + i)):
#   demo              the bundled demo (make demo): its one hit
#   multi_snapshot    --multi-snapshot --arm-after 0, calls 300 ms apart, stopped
#                     after 3 snapshots: a marker per hit and snapshot, and
#                     the last snapshot's "[snapshot] interrupt"
#   call_arguments    snaptrace_trigger(1001, 0xfeed0001) ... shows arg0 and
#                     arg1 on each marker
#   tsc_span          whether this host's kernel offers the TSC conversion
#                     (record.json's trigger.tsc); the span itself is checked
#                     on a written record.json (tests/cases/recording.test.sh)
#   exit_names        --multi-snapshot, calls 15 ms apart up to the exit: the
#                     exit snapshot (often without side-band: perf's ":TID"
#                     comm) names no thread or process ":TID"; all are
#                     "workload [ID]" as record.json says
#   no_leftovers      no perf or target of ours left running
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
DEMO="$SNAPTRACE_O/examples/demo"
NAMES="demo multi_snapshot call_arguments exit_names tsc_span no_leftovers"
need_recording markers
need_built markers "$CONVERT"
use_workload markers
TARGETS=("$PROG" "$DEMO")

# hit_times DIR: the time_ns of every hit of DIR/record.json, one a line.
hit_times() {
	rec_rows "$1" hits time_ns
}

# markers FXT: the instants named "[trigger] ..." or "[snapshot] ...", as
# `snaptrace-convert --dump=records` prints them (from "ts=").
markers() {
	"$CONVERT" --dump=records "$1" | grep -E ' event instant .* name="\[(trigger|snapshot)\] ' |
		sed 's/.* event instant //'
}

# run_front NAME ARGS... -- CMD...: snaptrace run into $TMP/NAME (recording
# kept) and $TMP/NAME.fxt; 1 with a FAIL line when it failed.
run_front() {
	local name=$1
	shift
	if ! "$FRONT" run -q -d "$TMP/$name" -o "$TMP/$name.fxt" "$@" >/dev/null 2>"$TMP/$name.err"; then
		fail "$name" "snaptrace run failed: $(tl 3 "$TMP/$name.err")"
		return 1
	fi
}

t_demo() {
	local hit got
	if [ ! -x "$DEMO" ]; then
		fail demo "$DEMO is not built (make all tests-build)"
		return
	fi
	run_front demo -- "$DEMO" || return
	hit=$(hit_times "$TMP/demo")
	got=$(markers "$TMP/demo.fxt")
	if [ -z "$hit" ] || [ "$(wc -l <<<"$hit")" -ne 1 ]; then
		fail demo "expected one hit in record.json: $hit"
	elif [ "$(wc -l <<<"$got")" -ne 1 ] ||
		! grep -q "^ts=$hit pid=[0-9]* tid=[0-9]* cat=\"\" name=\"\[trigger\] magic_trace_stop_indicator\" tid:int64=[0-9]* ip:pointer=0x[0-9a-f]* snapshot:uint64=0 " <<<"$got"; then
		fail demo "no marker at the hit's time $hit: $got"
	else
		ok demo
	fi
}

# Calls 300 ms apart (above --min-interval's 100 ms), the recording stopped
# when the fourth snapshot starts (until_snapshot; the Ctrl-C may come
# while a loaded host still writes it, so three are whole): a marker at
# each hit's time (one per hit record.json lists, also one in no
# snapshot, and one per coalesced hit it lists in the snapshot holding it,
# marked coalesced), with the snapshot record.json gives it and the call's
# arguments (the workload's call k passes 1000 + k and 0xfeed0000 + k),
# and the
# "[snapshot] interrupt" of the last snapshot (where the trace ends; taken_ns
# says when Ctrl-C came).
t_multi() {
	local d="$TMP/multi" got n=0 all=0 co=0 bad= nosnap= t a b k rc
	until_snapshot 4 "$TMP/multi.err" "$FRONT" run -d "$d" -o "$TMP/multi.fxt" --multi-snapshot \
		--arm-after 0 --trigger snaptrace_trigger -- "$PROG" hits 0 300
	rc=$?
	if [ $rc -ne 0 ]; then
		fail multi_snapshot "snaptrace run: exit $rc: $(tl 3 "$TMP/multi.err")"
		fail call_arguments "no recording"
		return
	fi
	got=$(markers "$TMP/multi.fxt")
	while read -r t a b k; do
		n=$((n + 1))
		[ $((b - 0xfeed0000)) -eq $((a - 1000)) ] ||
			bad="hit $n: arguments $a, $b in record.json, not call k's 1000 + k, 0xfeed0000 + k; "
		grep -q "^ts=$t .* name=\"\[trigger\] snaptrace_trigger\" .* snapshot:uint64=$k .*arg0:uint64=$a arg1:uint64=$b\( .*\)\?\$" <<<"$got" ||
			bad+="hit $n at $t: no marker with snapshot $k, arg0 $a, arg1 $b; "
	done < <(rec_rows "$d" hits time_ns args.0 args.1 snapshot | awk '$4 ~ /^[0-9]+$/')
	# a hit listed in no snapshot (perf read the ring too late on a loaded
	# host: docs/design.md "Snapshots") has its marker
	# too, naming none
	while read -r t k; do
		all=$((all + 1))
		[ "$k" = null ] || continue
		grep "^ts=$t .* name=\"\[trigger\] snaptrace_trigger\" " <<<"$got" | grep -qv 'snapshot:uint64=' ||
			nosnap+="hit at $t in no snapshot: no marker of it without a snapshot; "
	done < <(rec_rows "$d" hits time_ns snapshot)
	# a coalesced hit (it came while a snapshot was being written, on a
	# loaded host) has its marker in the snapshot holding it
	while read -r t k; do
		co=$((co + 1))
		grep -q "^ts=$t .* name=\"\[trigger\] snaptrace_trigger\" .* snapshot:uint64=$k .*coalesced:bool=true" <<<"$got" ||
			nosnap+="coalesced hit at $t: no marker in snapshot $k; "
	done < <(rec_rows "$d" coalesced_hits time_ns snapshot)
	# 3 hits or more (4 snapshots were waited for), at least one in a
	# snapshot: on a loaded host perf may read the ring after some hits
	if [ "$all" -lt 3 ] || [ "$n" -lt 1 ]; then
		fail multi_snapshot "record.json lists $all hits, $n with a snapshot, expected 3 or more, 1 or more: $(tl 3 "$TMP/multi.err")"
		fail call_arguments "record.json lists $all hits, $n with a snapshot"
	elif [ "$(grep -c '\[trigger\]' <<<"$got")" -ne $((all + co)) ]; then
		fail multi_snapshot "$(grep -c '\[trigger\]' <<<"$got") trigger markers, expected one per hit listed ($all, $n in a snapshot, and $co coalesced): $got"
		fail call_arguments "see multi_snapshot"
	elif [ -n "$nosnap" ]; then
		fail multi_snapshot "$nosnap markers: $got"
		fail call_arguments "see multi_snapshot"
	elif [ -n "$bad" ]; then
		ok multi_snapshot
		fail call_arguments "$bad markers: $got"
	elif ! grep -q '"\[snapshot\] interrupt"\( taken_ns:uint64=[0-9]*\)\?$' <<<"$got"; then
		fail multi_snapshot "no [snapshot] interrupt marker: $got"
		ok call_arguments
	else
		ok multi_snapshot
		ok call_arguments
	fi
}

# Snapshots up to the target's exit: perf synthesizes each file's side-band
# from /proc when it switches files, which can miss a target about to exit;
# the exit snapshot's samples then carry perf's ":TID" comm (docs/design.md
# "Snapshots", its side-band bullet). Every thread and process keeps the
# name record.json gives.
t_exit_names() {
	local d="$TMP/exitnames" names exitf sb=with
	run_front exitnames --multi-snapshot --min-interval 100 --arm-after 0 \
		--trigger snaptrace_trigger -- "$PROG" hits 40 15 || return
	names=$("$CONVERT" --dump=records "$TMP/exitnames.fxt" |
		sed -n 's/^[0-9]* kobj \(thread\|process\) koid=[0-9]* name="\([^"]*\)".*/\2/p' | grep -vx triggers)
	exitf=$(snaps "$d" exit)
	if [ -n "$exitf" ] && ! PAGER=cat "${SNAPTRACE_PERF:-perf}" script -f -i "$d/$exitf" --show-task-events 2>/dev/null |
		grep -q PERF_RECORD_COMM; then
		sb=without
	fi
	if [ -z "$exitf" ]; then
		fail exit_names "no exit snapshot in record.json: $(tl 3 "$TMP/exitnames.err")"
	elif [ -z "$names" ] || grep -vqE '^workload \[[0-9]+\]$' <<<"$names"; then
		fail exit_names "names other than record.json's \"workload\" (exit snapshot $sb side-band): $(tr '\n' ' ' <<<"$names")"
	else
		ok exit_names
		echo "  (exit snapshot $sb side-band; names: $(sort -u <<<"$names" | tr '\n' ' '))"
	fi
}

# The kernel gives the TSC conversion (cap_user_time_zero) only with a TSC
# sched_clock: record.json says which.
t_tsc() {
	local tsc
	tsc=$(rec_field "$TMP/multi" trigger.tsc)
	[ -z "$tsc" ] && tsc="time_shift $(rec_field "$TMP/multi" trigger.tsc.time_shift)"
	case "$tsc" in
	null) requires tsc_span tsc && fail tsc_span "the kernel offers the TSC conversion (captime), but record.json's tsc is null" ;;
	'time_shift '[0-9]*) ok tsc_span ;;
	*) fail tsc_span "record.json's trigger.tsc: '$tsc'" ;;
	esac
}

t_demo
t_multi
t_exit_names
t_tsc
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or a target still running"; fi
