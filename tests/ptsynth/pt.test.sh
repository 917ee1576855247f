#!/usr/bin/env bash
# Intel PT end to end without PT hardware: ptsynth runs each program of
# tests/ptsynth/progs under single-step and writes a perf.data whose Intel PT
# data encodes the executed control flow, plus the ground truth. Checked:
#   perf-*     the stock decoder (perf script) sees exactly the truth's
#              calls, returns, cross-function jumps and syscalls, with no
#              decode error unless one was injected;
#   convert-*  snaptrace-convert (which runs perf script) writes an FXT whose
#              slices per thread, read back with --dump=slices (no problems),
#              equal ptsynth-expect's listing of the truth (names, nesting,
#              order; inferred callers where a window starts mid-stack);
#              it decodes through snaptrace's dlfilter (perf is seen given
#              --dlfilter), and the FXT is byte for byte the one the text
#              path (--no-dlfilter) writes: same slices, times, order;
# in both return-compression modes and with a snapshot window, plus per-CPU
# queues, PSB+ every few bytes, an injected overflow, truncated data, a
# snapshot ending at magic_trace_stop_indicator (also as a recording
# directory with its trigger marker), a program dying of SIGSEGV (the trace
# ends at the fault; as a recording, its [crash] marker there), a two-snapshot recording
# on one timeline with a gap; context switches (blocked in syscalls,
# preempted): perf places each where the generator put it, and the converter
# draws an [off-cpu] slice from its switch out to its switch in (offcpu-*);
# and the repeat mode (--repeat). perf.data files are made here, never kept.
. "$(dirname "$0")/../lib.sh"

. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"
EVENTS_AWK="$SNAPTRACE_TOP/tests/ptsynth/perf-events.awk"
PERF_FIELDS=comm,pid,tid,time,flags,ip,addr,sym,symoff,dso,event,period

# program:S:W: the window test takes a snapshot at global step S keeping
# the last W instructions of each thread, so that it starts and ends in the
# middle of the program's own calls (its exit path comes later).
PROGRAMS="calls-static:260:150 calls-pie:300:200 recurse:900:400 tailcall:22:14
	indirect:300:150 longjmp:250:150 except:30000:15000 vdso:300:150 threads:1500:700
	stop:80:50"

ptsynth_ready ptsynth

# gen NAME PROG OPTS...: runs ptsynth into $TMP/NAME.data and $TMP/NAME.truth.
gen() {
	local name=$1 prog=$2
	shift 2
	echo "$*" >"$TMP/$name.opts"
	timeout 120 "$PTSYNTH" -q -o "$TMP/$name.data" --truth "$TMP/$name.truth" "$@" \
		-- "$PROGS/$prog" >"$TMP/$name.stdout" 2>"$TMP/$name.gen"
}

# check_perf NAME ERRORS: perf script agrees with the truth, ERRORS decode
# errors (a number) are in its output.
check_perf() {
	local name=$1 want_errors=$2 errors
	if ! "$PERF" script -i "$TMP/$name.data" --itrace=bep --ns -F "$PERF_FIELDS" \
		--show-switch-events >"$TMP/$name.txt" 2>"$TMP/$name.perr"; then
		fail "perf-$name" "perf script failed: $(head -3 "$TMP/$name.perr")"
		return
	fi
	errors=$(grep -c 'instruction trace error' "$TMP/$name.txt")
	if [ "$errors" -ne "$want_errors" ]; then
		fail "perf-$name" "expected $want_errors decode errors, found $errors: \
$(grep -m 2 'instruction trace error' "$TMP/$name.txt")"
		return
	fi
	# per thread, in order (perf interleaves the threads by time)
	awk -f "$EVENTS_AWK" "$TMP/$name.txt" | sort -s -k1,1n >"$TMP/$name.perf-ev"
	"$EXPECT" --events "$TMP/$name.truth" | sort -s -k1,1n >"$TMP/$name.truth-ev"
	if ! diff "$TMP/$name.truth-ev" "$TMP/$name.perf-ev" >"$TMP/$name.ev-diff"; then
		fail "perf-$name" "perf script differs from the truth (< truth, > perf): \
$(head -6 "$TMP/$name.ev-diff" | tr '\n' ' ')"
		return
	fi
	ok "perf-$name"
}

# A perf that logs its command lines, to see the dlfilter used.
cat >"$TMP/perf" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/perf.log"
exec "$(command -v "$PERF")" "\$@"
EOF
chmod +x "$TMP/perf"

# convert NAME INPUT...: converts INPUTs into $TMP/NAME.fxt (through the
# dlfilter, -j 1) and dumps its slices into $TMP/NAME.slices; the reader must
# report no problem, the text path (--no-dlfilter) must write the same
# bytes, and so must -j 2 and -j 3 (perf script run on time ranges: how
# many ranges -j 3 made, summed over the inputs, is left in
# $TMP/NAME.ranges).
convert() {
	local name=$1 j
	shift
	rm -f "$TMP/perf.log"
	if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" --quiet -j 1 "$@" -o "$TMP/$name.fxt" \
		2>"$TMP/$name.cerr"; then
		echo "snaptrace-convert failed: $(head -3 "$TMP/$name.cerr")"
		return 1
	fi
	if [ "$(grep -c -e '^script .*--dlfilter .*/snaptrace-dlfilter.so' "$TMP/perf.log")" -ne $# ]; then
		echo "perf script was not run with the dlfilter: $(first_lines "$TMP/perf.log")"
		return 1
	fi
	for j in 2 3; do
		rm -f "$TMP/perf.log"
		if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" --quiet -j $j "$@" \
			-o "$TMP/$name.j$j.fxt" 2>"$TMP/$name.cerr"; then
			echo "snaptrace-convert -j $j failed: $(head -3 "$TMP/$name.cerr")"
			return 1
		fi
		if ! cmp -s "$TMP/$name.fxt" "$TMP/$name.j$j.fxt"; then
			"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.j1.tree" 2>&1
			"$CONVERT" --dump=tree "$TMP/$name.j$j.fxt" >"$TMP/$name.jn.tree" 2>&1
			echo "-j $j's trace differs from -j 1's (< -j 1, > -j $j; perf ran: \
$(grep -o -e '--time [^ ]*' "$TMP/perf.log" | tr '\n' ' ')): \
$(diff "$TMP/$name.j1.tree" "$TMP/$name.jn.tree" | head -6 | tr '\n' ' ')"
			return 1
		fi
	done
	grep -c -e '^script .* --time ' "$TMP/perf.log" >"$TMP/$name.ranges"
	if ! "$CONVERT" --quiet --no-dlfilter "$@" -o "$TMP/$name.text.fxt" \
		2>"$TMP/$name.cerr"; then
		echo "snaptrace-convert --no-dlfilter failed: $(head -3 "$TMP/$name.cerr")"
		return 1
	fi
	if ! cmp -s "$TMP/$name.fxt" "$TMP/$name.text.fxt"; then
		"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.fast.tree" 2>&1
		"$CONVERT" --dump=tree "$TMP/$name.text.fxt" >"$TMP/$name.text.tree" 2>&1
		echo "the dlfilter's trace differs from the text path's (< dlfilter, > text): \
$(diff "$TMP/$name.fast.tree" "$TMP/$name.text.tree" | head -6 | tr '\n' ' ')"
		return 1
	fi
	if ! "$CONVERT" --dump=slices "$TMP/$name.fxt" >"$TMP/$name.slices" \
		2>"$TMP/$name.derr" || [ -s "$TMP/$name.derr" ]; then
		echo "the FXT has problems: $(head -3 "$TMP/$name.derr")"
		return 1
	fi
}

# check_convert NAME ERRORS: the converter's slices equal the expected ones;
# ERRORS decode-error instants. A perf.data with a PSB+ every few bytes
# (ptsynth --psb-every) must have been split into time ranges by -j 3.
check_convert() {
	local name=$1 want_errors=$2 why errors
	if ! why=$(convert "$name" "$TMP/$name.data"); then
		fail "convert-$name" "$why"
		return
	fi
	if grep -q -e '--psb-every' "$TMP/$name.opts" && [ "$(cat "$TMP/$name.ranges")" -lt 2 ]; then
		fail "convert-$name" "-j 3 did not split the decoding into time ranges \
($(cat "$TMP/$name.ranges") perf script runs with --time)"
		return
	fi
	"$EXPECT" "$TMP/$name.truth" >"$TMP/$name.expected"
	errors=$(grep -c ' \[decode error: ' "$TMP/$name.slices")
	if [ "$errors" -ne "$want_errors" ]; then
		fail "convert-$name" "expected $want_errors decode-error instants, found $errors"
		return
	fi
	if ! why=$(slices_match "$TMP/$name.slices" "$TMP/$name.expected"); then
		fail "convert-$name" "slices differ from the truth's: $why"
		return
	fi
	ok "convert-$name"
}

# both NAME PROG ERRORS OPTS...: generates, then checks perf and the converter.
both() {
	local name=$1 prog=$2 errors=$3
	shift 3
	if ! gen "$name" "$prog" "$@"; then
		fail "perf-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
		fail "convert-$name" "ptsynth failed"
		return
	fi
	check_perf "$name" "$errors"
	check_convert "$name" "$errors"
	rm -f "$TMP/$name".*
}

for entry in $PROGRAMS; do
	IFS=: read -r prog at window <<<"$entry"
	both "$prog" "$prog" 0
	both "$prog-noretcomp" "$prog" 0 --noretcomp
	both "$prog-window" "$prog" 0 --snapshot-at "$at" --snapshot-window "$window"
	# a PSB+ every 128 bytes: places where -j N can start a time range
	both "$prog-psb" "$prog" 0 --psb-every 128
done

# Layout and packet variants.
both threads-per-cpu threads 0 --per-cpu
both recurse-psb64 recurse 0 --psb-every 64 --tsc-every 3
both threads-per-cpu-psb threads 0 --per-cpu --psb-every 128
both recurse-noretcomp-psb recurse 0 --noretcomp --psb-every 128
both except-window-psb except 0 --snapshot-at 30000 --snapshot-window 15000 --psb-every 256
both except-window-noretcomp except 0 --snapshot-at 30000 --snapshot-window 15000 --noretcomp
both recurse-window-end recurse 0 --snapshot-window 800

# The repeat mode (the benchmark's input): a loop's turn repeated in both
# threads is a trace perf decodes to the truth.
both bench-repeat bench 0 --repeat turn,5
both bench-repeat-window bench 0 --repeat turn,5 --snapshot-window 2000

# Damage: an OVF packet makes one decode error; the trace resumes after it
# and every frame stays balanced. Truncated data ends the trace early.
both calls-static-overflow calls-static 1 --damage overflow@150
both recurse-overflow recurse 1 --damage overflow@700
both recurse-overflow-psb recurse 1 --damage overflow@700 --psb-every 128
both tailcall-truncate tailcall 0 --damage truncate@200

# Context switches: every syscall blocks NS, and the thread of a global step
# is preempted before it. perf (check_perf, with --show-switch-events) must
# show each switch at the generator's time, in order among the thread's
# branches; the converter an [off-cpu] slice under the open frames (under
# [syscall] when blocked in one: check_convert) from the switch out to the
# switch in, to the nanosecond.
# offcpu NAME PROG KINDS OPTS...: KINDS are the switch kinds the truth must
# hold ("blocked preempt").
offcpu() {
	local name=$1 prog=$2 kinds=$3 want got k
	shift 3
	if ! gen "$name" "$prog" "$@"; then
		fail "perf-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
		return
	fi
	check_perf "$name" 0
	check_convert "$name" 0
	want=$(awk -F '\t' '$1 == "switch-out" { o = $4; s = $11 }
		$1 == "switch-in" { print $2, o, $4, s }' "$TMP/$name.truth" | sort)
	got=$("$CONVERT" --dump=tree "$TMP/$name.fxt" 2>/dev/null | awk '
		$0 ~ /\[off-cpu\] \[/ { match($0, /\[[0-9]+, [0-9]+\]/)
			split(substr($0, RSTART + 1, RLENGTH - 2), t, ", ")
			s = $0 ~ /preempt/ ? "preempt" : "blocked"; print $1, t[1], t[2], s }' | sort)
	for k in $kinds; do
		if ! grep -q " $k\$" <<<"$want"; then
			fail "offcpu-$name" "expected $k switches in the truth, found: $want"
			return
		fi
	done
	if [ "$got" != "$want" ]; then
		fail "offcpu-$name" "[off-cpu] slices (TID OUT IN STATE) differ from the switches \
(< truth, > converter): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -4 |
			tr '\n' ' ')"
	else
		ok "offcpu-$name"
	fi
	rm -f "$TMP/$name".*
}
offcpu calls-static calls-static "blocked preempt" --block-syscalls 2000000 \
	--preempt-at 40:3000000
offcpu threads-per-cpu threads "blocked preempt" --per-cpu --block-syscalls 1000000 \
	--preempt-at 1500:500000
offcpu recurse-window recurse preempt --snapshot-at 900 --snapshot-window 400 \
	--block-syscalls 1000000 --preempt-at 700:250000
offcpu threads-per-cpu-psb threads "blocked preempt" --per-cpu --block-syscalls 1000000 \
	--preempt-at 1500:500000 --psb-every 128

# A snapshot ending where magic_trace_stop_indicator is entered.
name=stop-snapshot
if gen "$name" stop --snapshot-at magic_trace_stop_indicator; then
	check_perf "$name" 0
	check_convert "$name" 0
	last=$(grep -v '\[decode error' "$TMP/$name.slices" | tail -1 | cut -d' ' -f3-)
	if [ "$last" = magic_trace_stop_indicator ]; then
		ok "$name-ends-at-trigger"
	else
		fail "$name-ends-at-trigger" "expected the last slice magic_trace_stop_indicator, \
found '$last'"
	fi
	# The same perf.data as a recording directory (record.json written here,
	# its hit where magic_trace_stop_indicator was entered): the same
	# slices, and the marker at the hit on the process's triggers track.
	rec="$TMP/$name.rec"
	mkdir -p "$rec"
	cp "$TMP/$name.data" "$rec/perf.data"
	hit=$("$CONVERT" --dump=tree "$TMP/$name.fxt" 2>/dev/null |
		sed -n 's/.* magic_trace_stop_indicator \[\([0-9]*\), .*/\1/p' | tail -1)
	pid=$("$CONVERT" --dump=records "$TMP/$name.fxt" 2>/dev/null |
		sed -n 's/.* kobj process koid=\([0-9]*\) .*/\1/p' | head -1)
	cat >"$rec/record.json" <<EOF
{"format": "snaptrace-record 1", "pids": [$pid], "threads": [],
 "trigger": {"spec": "magic_trace_stop_indicator", "symbol": "magic_trace_stop_indicator", "tsc": null},
 "hits": [{"pid": $pid, "tid": $pid, "time_ns": ${hit:-0}, "snapshot": 0, "ip": null, "args": null}],
 "snapshots": [{"file": "perf.data", "reason": "trigger", "time_ns": null}],
 "end": "trigger", "end_ns": null}
EOF
	if [ -z "$hit" ] || [ -z "$pid" ]; then
		fail "$name-recording" "no magic_trace_stop_indicator slice or process in the trace"
	elif ! "$CONVERT" -q "$rec" -o "$TMP/$name.rec.fxt" 2>"$TMP/$name.rec.err"; then
		fail "$name-recording" "converting the directory failed: $(head -3 "$TMP/$name.rec.err")"
	elif ! diff <("$CONVERT" --dump=slices "$TMP/$name.fxt") \
		<("$CONVERT" --dump=slices "$TMP/$name.rec.fxt" | grep -v ' \[trigger\] ') >/dev/null; then
		fail "$name-recording" "the directory's slices differ from the file's"
	elif [ "$("$CONVERT" --dump=records "$TMP/$name.rec.fxt" |
		grep -c " event instant ts=$hit pid=$pid tid=[0-9]* cat=\"\" name=\"\[trigger\] magic_trace_stop_indicator\" tid:int64=$pid snapshot:uint64=0 snapshot_file:string=\"perf.data\"$")" -ne 1 ]; then
		fail "$name-recording" "no marker at the hit $hit: $("$CONVERT" --dump=records "$TMP/$name.rec.fxt" | grep -F '[trigger]')"
	else
		ok "$name-recording"
	fi
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# A program that dies of SIGSEGV (progs/crash.c: boom() writes through
# NULL): the exception leaves the traced code at the faulting instruction
# (FUP, TIP.PGD), so the branch trace ends in boom, where perf and the
# converter agree with the truth; as a recording directory whose record.json
# lists the signal at the trace's end, the "[crash] SIGSEGV" marker sits there
# on the thread and on the triggers track.
name=crash-fault
if gen "$name" crash; then
	check_perf "$name" 0
	check_convert "$name" 0
	last=$(grep -v '\[' "$TMP/$name.slices" | tail -1 | cut -d' ' -f3-)
	at=$("$CONVERT" --dump=tree "$TMP/$name.fxt" 2>/dev/null |
		sed -n 's/.* boom \[[0-9]*, \([0-9]*\)\].*/\1/p' | tail -1)
	pid=$("$CONVERT" --dump=records "$TMP/$name.fxt" 2>/dev/null |
		sed -n 's/.* kobj process koid=\([0-9]*\) .*/\1/p' | head -1)
	rec="$TMP/$name.rec"
	mkdir -p "$rec"
	cp "$TMP/$name.data" "$rec/perf.data"
	cat >"$rec/record.json" <<EOF
{"format": "snaptrace-record 1", "pids": [$pid], "threads": [], "launched": true, "trigger": null,
 "hits": [],
 "signals": [
    {"pid": $pid, "tid": $pid, "time_ns": ${at:-0}, "signal": 11, "name": "SIGSEGV", "code": 1, "code_name": "SEGV_MAPERR", "errno": 0, "handled": false, "fatal": true, "by_stop": false, "ip": 4200019, "addr": 0, "cause": null, "sender": null, "snapshot": 0}
 ],
 "exits": [{"pid": $pid, "status": null, "signal": 11, "name": "SIGSEGV", "core": false}],
 "snapshots": [{"file": "perf.data", "reason": "signal", "time_ns": null}],
 "end": "signal", "end_ns": null}
EOF
	if [ "$last" != boom ]; then
		fail "$name-ends-at-fault" "expected the last slice boom, found '$last'"
	elif [ -z "$at" ] || [ -z "$pid" ]; then
		fail "$name-ends-at-fault" "no boom slice or process in the trace"
	elif ! "$CONVERT" "$rec" -o "$TMP/$name.rec.fxt" 2>"$TMP/$name.rec.err"; then
		fail "$name-ends-at-fault" "converting the directory failed: $(head -3 "$TMP/$name.rec.err")"
	elif [ "$("$CONVERT" --dump=records "$TMP/$name.rec.fxt" |
		grep -c " event instant ts=$at pid=$pid tid=[0-9]* cat=\"\" name=\"\[crash\] SIGSEGV\" signal:string=\"SIGSEGV\" signo:int64=11 code:string=\"SEGV_MAPERR\" addr:pointer=0x0 ")" -ne 2 ]; then
		fail "$name-ends-at-fault" "no marker at the fault $at on the thread and the triggers track"
	elif ! grep -q 'the program was killed by SIGSEGV (SEGV_MAPERR, address 0x0)' \
		"$TMP/$name.rec.err"; then
		fail "$name-ends-at-fault" "no summary line: $(tail -3 "$TMP/$name.rec.err")"
	else
		ok "$name-ends-at-fault"
	fi
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# Two snapshots of one run (perf.data files given as two inputs): one
# timeline, the second snapshot after the first with a gap between them.
name=multi
if timeout 120 "$PTSYNTH" -q -o "$TMP/$name%d.data" --truth "$TMP/$name%d.truth" \
	--snapshot-window 120 --snapshot-at magic_trace_stop_indicator,420 \
	-- "$PROGS/stop" >/dev/null 2>"$TMP/$name.gen"; then
	if why=$(convert "$name" "$TMP/${name}1.data" "$TMP/${name}2.data"); then
		"$EXPECT" "$TMP/${name}1.truth" "$TMP/${name}2.truth" >"$TMP/$name.expected"
		n1=$("$EXPECT" "$TMP/${name}1.truth" | grep -c .)
		"$CONVERT" --dump=tree "$TMP/$name.fxt" 2>/dev/null |
			grep -v '^#' | grep -v ' instant ' >"$TMP/$name.tree"
		# slices in start order: the first n1 come from snapshot 1
		gap=$(awk -v n1="$n1" '
			{ if (!match($0, /\[[0-9]+, [0-9]+\]/)) next
			  split(substr($0, RSTART + 1, RLENGTH - 2), t, ", ")
			  if (++i <= n1) { if (t[2] > end1) end1 = t[2] }
			  else if (!seen2++ || t[1] < begin2) begin2 = t[1] }
			END { if (!seen2) print "none"; else print begin2 - end1 }' \
			"$TMP/$name.tree")
		if ! why=$(slices_match "$TMP/$name.slices" "$TMP/$name.expected"); then
			fail "convert-$name" "slices differ from the truths': $why"
		elif [ "$gap" = none ] || [ "$gap" -le 0 ]; then
			fail "convert-$name" "expected the second snapshot after a gap, found \
gap '$gap' ns"
		else
			ok "convert-$name"
		fi
	else
		fail "convert-$name" "$why"
	fi
else
	fail "convert-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# The fallback to perf's text: a perf that refuses --dlfilter (run again
# without it, with a note), a perf older than 5.14 (never given it, also
# when its version comes from the cache), and a snaptrace-convert with no
# dlfilter beside it: each writes the text path's trace.
name=fallback
if gen "$name" calls-static; then
	real=$(command -v "$PERF")
	"$CONVERT" --quiet --no-dlfilter "$TMP/$name.data" -o "$TMP/$name.text.fxt" 2>/dev/null
	cat >"$TMP/perf-refuses" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/perf.log"
case " \$* " in *" --dlfilter "*) echo "  Error: unknown option 'dlfilter'" >&2; exit 129 ;; esac
exec "$real" "\$@"
EOF
	cat >"$TMP/perf-old" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/perf.log"
[ "\$1" = --version ] && { echo "perf version 5.10.0"; exit 0; }
exec "$real" "\$@"
EOF
	mkdir "$TMP/alone"
	cp "$CONVERT" "$TMP/alone/"
	chmod +x "$TMP/perf-refuses" "$TMP/perf-old"
	# case|convert binary|perf|perf script runs given --dlfilter|note on stderr
	while IFS='|' read -r case bin perf want note; do
		rm -f "$TMP/perf.log"
		if ! SNAPTRACE_PERF="$TMP/$perf" "$bin" "$TMP/$name.data" -o "$TMP/$case.fxt" \
			2>"$TMP/$case.err"; then
			fail "$case" "snaptrace-convert failed: $(first_lines "$TMP/$case.err")"
		elif [ "$(grep -c -e '^script .*--dlfilter' "$TMP/perf.log")" -ne "$want" ]; then
			fail "$case" "expected $want perf script runs with --dlfilter: \
$(first_lines "$TMP/perf.log")"
		elif [ -n "$note" ] && ! grep -q -F -e "$note" "$TMP/$case.err"; then
			fail "$case" "expected the note '$note', found: $(first_lines "$TMP/$case.err")"
		elif ! cmp -s "$TMP/$case.fxt" "$TMP/$name.text.fxt"; then
			fail "$case" "the trace differs from the text path's"
		elif ! "$CONVERT" --dump=slices "$TMP/$case.fxt" >/dev/null 2>&1; then
			fail "$case" "the FXT does not read back cleanly"
		else
			ok "$case"
		fi
	done <<EOF
fallback-perf-refuses-dlfilter|$CONVERT|perf-refuses|1|perf script failed with the dlfilter (status 129: Error: unknown option 'dlfilter'): decoding through text
fallback-perf-5.10|$CONVERT|perf-old|0|
fallback-no-dlfilter-beside|$TMP/alone/snaptrace-convert|perf|0|
EOF
	# perf --version runs once per perf binary, not per conversion (its
	# answer is cached under XDG_CACHE_HOME): again when the binary changes;
	# a cached old version still keeps the dlfilter from perf-old.
	case=version-cached
	rm -f "$TMP/perf.log"
	why=
	for k in 1 2 3; do
		[ $k = 3 ] && touch -d '2001-01-01' "$TMP/perf"
		for p in perf perf-old; do
			if ! XDG_CACHE_HOME="$TMP/cache" SNAPTRACE_PERF="$TMP/$p" "$CONVERT" --quiet -j 1 \
				"$TMP/$name.data" -o "$TMP/$case.fxt" 2>"$TMP/$case.err"; then
				why="snaptrace-convert failed: $(first_lines "$TMP/$case.err")"
			elif ! cmp -s "$TMP/$case.fxt" "$TMP/$name.text.fxt"; then
				why="$p, run $k: the trace differs from the text path's"
			fi
		done
	done
	if [ -z "$why" ] && [ "$(grep -c -e '^--version' "$TMP/perf.log")" != 3 ]; then
		why="perf --version ran $(grep -c -e '^--version' "$TMP/perf.log") times, expected 3 (twice for perf, once for perf-old)"
	elif [ -z "$why" ] && [ "$(grep -c -e '^script .*--dlfilter' "$TMP/perf.log")" != 3 ]; then
		why="$(grep -c -e '^script .*--dlfilter' "$TMP/perf.log") perf script runs with --dlfilter, expected 3 (perf's)"
	elif [ -z "$why" ] && [ "$(wc -l <"$TMP/cache/snaptrace/perf-versions")" != 2 ]; then
		why="the cache holds $(wc -l <"$TMP/cache/snaptrace/perf-versions") lines, expected 2 (one per binary)"
	fi
	if [ -n "$why" ]; then
		fail "$case" "$why"
	else
		ok "$case"
	fi
	# What the converter reads of a synthesized PT perf.data without perf
	# (common/perfdata.c: its events, its build ids) is what perf evlist -F
	# and perf buildid-list print.
	case=perfdata-as-perf
	why=
	if ! cc -std=c11 -D_GNU_SOURCE -I"$SNAPTRACE_TOP/common" -o "$TMP/perfdata_dump" \
		"$SNAPTRACE_TOP/tests/e2e/perfdata_dump.c" "$SNAPTRACE_TOP/common/perfdata.c" 2>"$TMP/cc.err"; then
		why="cannot compile: $(first_lines "$TMP/cc.err")"
	else
		for what in events:evlist:-F buildids:buildid-list; do
			args=${what#*:}
			"$real" ${args//:/ } -f -i "$TMP/$name.data" 2>/dev/null | grep -v '^#' >"$TMP/$case.perf"
			if ! "$TMP/perfdata_dump" "${what%%:*}" "$TMP/$name.data" >"$TMP/$case.ours" 2>"$TMP/$case.err"; then
				why="${what%%:*}: $(first_lines "$TMP/$case.err")"
			elif ! cmp -s "$TMP/$case.perf" "$TMP/$case.ours"; then
				why="${what%%:*} differ (< perf, > ours): $(diff "$TMP/$case.perf" "$TMP/$case.ours" | head -n 4 | tr '\n' '|')"
			elif [ "${what%%:*}" = events ] && ! grep -q '^intel_pt' "$TMP/$case.ours"; then
				why="no intel_pt event: $(first_lines "$TMP/$case.ours")"
			fi
			[ -n "$why" ] && break
		done
	fi
	if [ -n "$why" ]; then
		fail "$case" "$why"
	else
		ok "$case"
	fi
	# the command line of an Intel PT perf.data is the README's and --print-perf-command's
	check_perf_command perf-command-branches branches "$TMP/$name.data"
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# A saved output of perf script with the dlfilter converts like the
# perf.data; a damaged one is a one-line error naming the file and the byte
# (exit 1), never a crash or a partial trace: cut inside a record, a record
# of unknown type, a string id out of order, a branch naming no string.
name=saved
if gen "$name" calls-static; then
	"$PERF" script -i "$TMP/$name.data" --ns --itrace=bep -F "$PERF_FIELDS" \
		--show-switch-events --dlfilter "$SNAPTRACE_BIN/snaptrace-dlfilter.so" \
		>"$TMP/$name.bin" 2>/dev/null
	"$CONVERT" --quiet "$TMP/$name.data" -o "$TMP/$name.want.fxt" 2>/dev/null
	if ! "$CONVERT" --quiet "$TMP/$name.bin" -o "$TMP/$name.fxt" 2>"$TMP/$name.err"; then
		fail "$name-stream" "conversion failed: $(first_lines "$TMP/$name.err")"
	elif ! cmp -s "$TMP/$name.fxt" "$TMP/$name.want.fxt"; then
		fail "$name-stream" "the saved stream converts to another trace than the perf.data"
	else
		ok "$name-stream"
	fi
	# the first record's offset (a NUL at a line's start)
	first=$(grep -a -b -o -P '^\x00' "$TMP/$name.bin" | head -n 1 | cut -d: -f1)
	second=$((first + $(od -An -tu2 -j $((first + 2)) -N 2 "$TMP/$name.bin")))
	# the first BRANCH record's offset: walk the records and lines
	branch=$(od -An -tu1 -v "$TMP/$name.bin" | tr -s ' ' '\n' | grep . | awk '
		{ b[n++] = $1 }
		END { for (i = 0; i < n;) {
			if (b[i] != 0) { while (i < n && b[i] != 10) i++; i++; continue }
			if (b[i + 1] == 2) { print i; exit }
			i += b[i + 2] + 256 * b[i + 3] } }')
	# damage|what the message says
	while IFS='|' read -r damage says; do
		cp "$TMP/$name.bin" "$TMP/$damage.bin"
		case $damage in
		cut) truncate -s $((first + 10)) "$TMP/$damage.bin" ;;
		type) printf '\x09' | dd of="$TMP/$damage.bin" bs=1 seek=$((second + 1)) conv=notrunc 2>/dev/null ;;
		id) printf '\x07' | dd of="$TMP/$damage.bin" bs=1 seek=$((first + 4)) conv=notrunc 2>/dev/null ;;
		nostring) head -c "$first" "$TMP/$name.bin" >"$TMP/$damage.bin"
			tail -c +$((branch + 1)) "$TMP/$name.bin" | head -c 80 >>"$TMP/$damage.bin" ;;
		esac
		"$CONVERT" --quiet "$TMP/$damage.bin" -o "$TMP/$damage.fxt" 2>"$TMP/$damage.err"
		rc=$?
		if [ "$rc" -ne 1 ]; then
			fail "$name-$damage" "exit $rc, expected 1: $(first_lines "$TMP/$damage.err")"
		elif [ -e "$TMP/$damage.fxt" ]; then
			fail "$name-$damage" "an output file was left"
		elif [ "$(grep -c . "$TMP/$damage.err")" -ne 1 ] ||
			! grep -q -E "^snaptrace-convert: (error: )?$TMP/$damage.bin: byte [0-9]+: $says" "$TMP/$damage.err"; then
			fail "$name-$damage" "expected one line '$TMP/$damage.bin: byte N: $says', found: \
$(first_lines "$TMP/$damage.err")"
		else
			ok "$name-$damage"
		fi
	done <<EOF
cut|a binary record cut short
type|a malformed binary record \(type 9,
id|a malformed binary record \(type 1,
nostring|a malformed binary record \(type 2,
EOF
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# Source lines: every slice of a program's own functions carries the
# file:line addr2line gives for the function's symbol (the call's target is
# its start; a caller found at its return is drawn from its start too), or
# none where addr2line has none (the static libc's code; a program built
# without -g).
# srcline_check PROG: prints what is wrong, if anything, else how many
# functions have lines. C++ names are as perf prints them (c++filt -p).
srcline_check() {
	local prog=$1 name="srcline-$1" bin="$PROGS/$1" f have want addr n=0
	gen "$name" "$prog" || { echo "ptsynth failed: $(head -3 "$TMP/$name.gen")"; return; }
	convert "$name" "$TMP/$name.data" || return
	"$CONVERT" --dump=tree "$TMP/$name.fxt" |
		awk -v b="$bin" 'index($0, "cat=\"" b "\"") {
			line = "-"
			if (match($0, /file:string="[^"]*" line:uint64=[0-9]+/)) {
				s = substr($0, RSTART, RLENGTH); gsub(/file:string="|" line:uint64=/, " ", s)
				split(s, p, " "); line = p[1] ":" p[2]
			}
			sub(/^[0-9]+ [0-9]+ +/, "")
			if (match($0, / \[[0-9]+, [0-9]+\]/)) print substr($0, 1, RSTART - 1) "\t" line
		}' | sort -u >"$TMP/$name.lines"
	nm "$bin" | awk '$2 ~ /^[TtW]$/ { print $3 "\t" $1 }' | c++filt -p >"$TMP/$name.nm"
	while IFS=$'\t' read -r f have; do
		addr=$(awk -F'\t' -v f="$f" '$1 == f { print $2 }' "$TMP/$name.nm")
		[ "$(echo "$addr" | grep -c .)" = 1 ] || continue	# not one symbol: not checked
		want=$(addr2line -e "$bin" "0x$addr")
		case $want in '??:'* | *':?') want=- ;; esac
		if [ "$have" != "$want" ]; then
			echo "$f: $have, addr2line says $want"
			return
		fi
		[ "$want" = - ] || n=$((n + 1))
	done <"$TMP/$name.lines"
	echo "$n with lines"
}
for prog in calls-pie calls-static recurse except calls-nodebug; do
	why=$(srcline_check "$prog")
	case $prog:$why in
	calls-nodebug:"0 with lines" | calls-*:[4-9]" with lines" | recurse:[1-9]*" with lines" | except:[2-9]" with lines")
		ok "srcline-$prog" ;;
	*) fail "srcline-$prog" "$why" ;;
	esac
	rm -f "$TMP/srcline-$prog".*
done
