#!/usr/bin/env bash
# tier: check
# Intel PT end to end without PT hardware, the variants (the checks of
# pt.test.sh, pt-lib.sh's perf-* and convert-*, on other shapes of data):
# every program with a PSB+ every 128 bytes (where -j N can start a time
# range), per-CPU queues, PSB+ every few bytes, the repeat mode (--repeat), an
# injected overflow, truncated data, a damaged timing packet (-j N must still
# write -j 1's bytes); context switches (blocked in syscalls,
# preempted): perf places each where the generator put it, and the converter
# draws an [off-cpu] slice from its switch out to its switch in (offcpu-*);
# build ids in MMAP2 records (perf record --buildid-mmap: buildid-mmap-*);
# a snapshot ending at magic_trace_stop_indicator (also as a recording
# directory with its trigger marker); a program dying of SIGSEGV (the trace
# ends at the fault; as a recording, its [crash] marker there); a
# two-snapshot recording on one timeline with a gap; ptsynth's cache of
# traced runs (ptsynth-cache); the fallbacks to perf's text (fallback-*),
# perf script killed while writing (perf-killed), the perf version cache,
# the perf.data read without perf (perfdata-as-perf); a saved
# dlfilter stream, whole and damaged (saved-*). perf.data files are made
# here, never kept.
. "$(dirname "$0")/../lib.sh"

. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"
. "$SNAPTRACE_TOP/tests/ptsynth/pt-lib.sh"

ptsynth_ready pt-variants
# no source lines (pt-lib.sh SRCLINE_FOR): pt.test.sh checks them on every
# program's plain conversion; the variants here change the data, not the lines
SRCLINE_FOR=

# Every program with a PSB+ every 128 bytes (places where -j N can start a
# time range); layout and packet variants; the repeat mode (the benchmark's
# input: a loop's turn repeated in both threads is a trace perf decodes to
# the truth); damage: an OVF packet makes one decode error, the trace
# resumes after it and every frame stays balanced; truncated data ends the
# trace early; MTC packets (perf's time from the CTC between TSC packets,
# the in-process decoder's too; of a period above 8, whose first MTC after
# a TMA gives the bits the TMA lacks, with TSC packets far enough apart for
# MTCs to set the time); CBR packets in each PSB+, as the hardware
# writes them; CYC packets (cycle-accurate mode: perf times the CYCs after
# an MTC right after a CYC by the cycles up to the next such MTC, or with
# a CBR by the maximum non-turbo ratio; the in-process decoder too, and
# across its chunks' PSBs: except-cyc); the KSYMBOL and BPF_EVENT records perf record writes of the
# loaded BPF programs; FORK and EXIT records (perf script --show-task-events prints
# them between the branches; an EXIT ends its thread there: the in-process
# decoder once left them out). Every variant of a program is made from its one cached run
# (ptsynth --cache).
FALLBACK=([recurse-psb]=$DEEP [recurse-psb64]=$DEEP [recurse-noretcomp-psb]=$DEEP
	[recurse-window-end]=$DEEP [recurse-window]=$DEEP [recurse-overflow]="$OVF|$DEEP"
	[recurse-overflow-psb]="$OVF|$DEEP" [calls-static-overflow]=$OVF
	[bench-repeat]=$BADRET [bench-repeat-window]=$BADRET)
declare -A MORE=(
	[threads]="threads-per-cpu:0:--per-cpu
		threads-per-cpu-psb:0:--per-cpu --psb-every 128
		threads-tasks:0:--task-events --block-syscalls 1000000
		threads-per-cpu-tasks:0:--per-cpu --task-events --psb-every 128
		threads-per-cpu-mtc:0:--per-cpu --mtc 0 --cbr 24 --task-events --block-syscalls 1000000
		threads-per-cpu-cyc:0:--per-cpu --cyc --mtc 0 --cbr 24 --psb-every 128"
	[recurse]="recurse-psb64:0:--psb-every 64 --tsc-every 3
		recurse-noretcomp-psb:0:--noretcomp --psb-every 128
		recurse-window-end:0:--snapshot-window 800
		recurse-overflow:1:--damage overflow@700
		recurse-overflow-psb:1:--damage overflow@700 --psb-every 128"
	[except]="except-window-psb:0:--snapshot-at 30000 --snapshot-window 15000 --psb-every 256
		except-window-noretcomp:0:--snapshot-at 30000 --snapshot-window 15000 --noretcomp
		except-mtc:0:--mtc 5
		except-cyc:0:--cyc --mtc 3 --cbr 24 --psb-every 256"
	[calls-static]="calls-static-overflow:1:--damage overflow@150
		calls-static-mtc-psb:0:--mtc 3 --psb-every 96
		calls-static-mtc12:0:--mtc 12 --tsc-every 64 --ns-per-step 200
		calls-static-cbr-psb:0:--cbr 24 --psb-every 96
		calls-static-cyc:0:--cyc --mtc 0
		calls-static-cyc-cbr-psb:0:--cyc --mtc 2 --cbr 7 --psb-every 96
		calls-static-bpf:0:--bpf-records"
	[tailcall]="tailcall-truncate:0:--damage truncate@200"
	[indirect]="indirect-mtc9:0:--mtc 9 --tsc-every 64 --psb-every 256"
)
for entry in $PROGRAMS; do
	prog=${entry%%:*} more=()
	[ -z "${MORE[$prog]:-}" ] || mapfile -t more < <(sed 's/^[[:space:]]*//' <<<"${MORE[$prog]}")
	variants "$prog" "$prog-psb:0:--psb-every 128" "${more[@]}"
done
variants bench "bench-repeat:0:--repeat turn,5" "bench-repeat-window:0:--repeat turn,5 --snapshot-window 2000"

# A damaged timing packet (a TSC with a flipped bit, in a PSB+ or between
# them): perf's decoder holds its time past it (every later branch of the
# thread at one time), so its times no longer say where the PSBs are; the
# split decodings must still write -j 1's bytes (convert(): -j 2 and -j 3
# once lost every line between the damage and the next range, 2 to 60% of
# the slices) and the text path's. Not compared with the truth: perf's
# times are wrong.
# damaged NAME PROG OPTS...
damaged() {
	local name=$1 prog=$2 why
	shift 2
	if ! gen "$name" "$prog" "$@"; then
		fail "convert-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
	elif ! why=$(convert "$name" "$TMP/$name.data"); then
		fail "convert-$name" "$why"
	elif [ "$(grep -c . "$TMP/$name.slices")" -lt 20 ]; then
		fail "convert-$name" "only $(grep -c . "$TMP/$name.slices") slices"
	else
		ok "convert-$name"
	fi
	rm -f "$TMP/$name".*
}
damaged recurse-tsc-psb recurse --damage tsc@900 --psb-every 128
damaged threads-per-cpu-tsc-psb threads --per-cpu --damage tsc@700 --psb-every 96
damaged calls-static-tsc-psb calls-static --damage tsc@400 --psb-every 96
damaged calls-static-tsc-mtc calls-static --damage tsc@400 --psb-every 96 --mtc 3

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

# Recorded with --buildid-mmap (snaptrace-record's Intel PT command line
# where perf has it): the build ids are in the MMAP2 records, no build-id
# table. perf and the converter decode it as any (check_perf,
# check_convert); the converter finds the program's build id there: forged
# to another (its first byte flipped), the program is named changed since
# the recording, with both ids, and the in-process decoder leaves it to perf
# script, naming the build id (ptimage.c).
name=buildid-mmap
if ! requires "$name-changed" python3; then
	:
elif gen "$name" calls-static --buildid-mmap; then
	check_perf "$name" 0
	check_convert "$name" 0
	id=$("$SNAPTRACE_TEST_BIN/perfdata_dump" buildids "$TMP/$name.data" 2>/dev/null |
		awk -v p="$PROGS/calls-static" '$2 == p { print $1 }')
	forged=$(printf '%02x' $((0x${id:0:2} ^ 0xff)))${id:2}
	python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(bytes.fromhex(sys.argv[3]))
d[i] ^= 0xff
open(sys.argv[2], "wb").write(d)' "$TMP/$name.data" "$TMP/$name.forged.data" "${id:-00}" 2>"$TMP/$name.forge.err"
	"$CONVERT" -j 1 "$TMP/$name.forged.data" -o "$TMP/$name.forged.fxt" 2>"$TMP/$name.forged.err"
	rc=$?
	if [ ${#id} -ne 40 ]; then
		fail "$name-changed" "no build id of $PROGS/calls-static in the MMAP2 records: $("$SNAPTRACE_TEST_BIN/perfdata_dump" buildids "$TMP/$name.data" 2>&1 | first_lines /dev/stdin)"
	elif [ "$rc" -ne 0 ]; then
		fail "$name-changed" "exit $rc: $(first_lines "$TMP/$name.forged.err")"
	elif [ "$(grep -c "$PROGS/calls-static: changed since the recording (its build id is $id, the recording's $forged)" "$TMP/$name.forged.err")" -ne 1 ]; then
		fail "$name-changed" "expected one warning naming the program and both build ids: $(first_lines "$TMP/$name.forged.err")"
	elif ! grep -q "decoding through perf script: $PROGS/calls-static: build id $id, recorded $forged" "$TMP/$name.forged.err"; then
		fail "$name-changed" "the in-process decoder did not see the recorded build id: $(first_lines "$TMP/$name.forged.err")"
	else
		ok "$name-changed"
	fi
	rm -f "$TMP/$name".*
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# Two snapshots of one run (perf.data files given as two inputs): one
# timeline, the second snapshot after the first with a gap between them.
name=multi
if timeout 120 "$PTSYNTH" -q --cache "$PTSYNTH_RUNS" -o "$TMP/$name%d.data" --truth "$TMP/$name%d.truth" \
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

# ptsynth --cache (every generation above goes through it): a second run
# of a program takes the traced run from the cache, says so, and writes
# the same truth and perf.data byte for byte (pid included); the program
# changed (its modification time), or the entry damaged, it is traced again
# and the entry rewritten.
name=ptsynth-cache
cp "$PROGS/calls-static" "$TMP/cprog"
# cache_gen K: generates $TMP/$name.K.* from $TMP/cprog through $TMP/runs;
# prints "cached", "traced" or why it failed.
cache_gen() {
	if ! "$PTSYNTH" --cache "$TMP/runs" -o "$TMP/$name.$1.data" --truth "$TMP/$name.$1.truth" \
		-- "$TMP/cprog" >/dev/null 2>"$TMP/$name.$1.err"; then
		echo "ptsynth failed: $(first_lines "$TMP/$name.$1.err")"
	elif grep -q ' steps (traced before) ' "$TMP/$name.$1.err"; then
		echo cached
	else
		echo traced
	fi
}
got="$(cache_gen 1) $(cache_gen 2)"
if [ "$got" != "traced cached" ]; then
	why="two runs: $got, expected: traced cached"
elif ! cmp -s "$TMP/$name.1.truth" "$TMP/$name.2.truth" ||
	! cmp -s "$TMP/$name.1.data" "$TMP/$name.2.data"; then
	why="the cached run's truth or perf.data differs from the traced one's"
else
	touch -d '2001-01-01' "$TMP/cprog"
	got="$(cache_gen 3) $(cache_gen 4)"
	for f in "$TMP"/runs/*.run; do truncate -s 100 "$f"; done
	got="$got $(cache_gen 5) $(cache_gen 6)"
	why=
	[ "$got" = "traced cached traced cached" ] ||
		why="changed program, again, damaged entry, again: $got, expected: traced cached traced cached"
fi
if [ -z "$why" ] && ! diff <("$EXPECT" "$TMP/$name.1.truth" | cut -d' ' -f2-) \
	<("$EXPECT" "$TMP/$name.6.truth" | cut -d' ' -f2-) >/dev/null; then
	why="the run traced again has other calls than the first"
fi
if [ -n "$why" ]; then
	fail "$name" "$why"
else
	ok "$name"
fi
rm -f "$TMP/$name".*

# ptsynth classifies the code it steps through from the mapped files, as
# perf decodes it, not from the traced process: a uprobe anyone sets on a
# file (another suite's probe on libstdc++'s __cxa_begin_catch once made
# pt-variants fail with a cold cache) puts an int3 in every process's copy
# of that code. A copy of calls-static with a uprobe enabled at leaf()
# (tracefs, no perf) is traced (no cache) and perf agrees with the truth.
name=uprobe-elsewhere
if requires "perf-$name" uprobe_events; then
	group=snaptrace_$$
	cp "$PROGS/calls-static" "$TMP/$name.prog"
	addr=$((16#$(nm "$TMP/$name.prog" | awk '$3 == "leaf" { print $1 }')))
	# the file offset of leaf(): its address less its LOAD segment's
	off=
	while read -r _ o v _ n _; do
		[ $((addr >= v && addr < v + n)) = 1 ] && off=$(printf '0x%x' $((addr - v + o)))
	done < <(readelf -lW "$TMP/$name.prog" | grep '^ *LOAD ')
	probe_off() {
		echo 0 >"/sys/kernel/tracing/events/$group/leaf/enable" 2>/dev/null
		echo "-:$group/leaf" >>/sys/kernel/tracing/uprobe_events 2>/dev/null
	}
	on_exit 'probe_off; scratch_done'
	if ! echo "p:$group/leaf $TMP/$name.prog:$off" >>/sys/kernel/tracing/uprobe_events ||
		! echo 1 >"/sys/kernel/tracing/events/$group/leaf/enable"; then
		fail "perf-$name" "cannot set a uprobe at $TMP/$name.prog:$off"
	elif ! timeout 120 "$PTSYNTH" -q -o "$TMP/$name.data" --truth "$TMP/$name.truth" \
		-- "$TMP/$name.prog" >/dev/null 2>"$TMP/$name.gen"; then
		fail "perf-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
	else
		check_perf "$name" 0
	fi
	probe_off
	on_exit scratch_done
	rm -f "$TMP/$name".*
fi

# The in-process decoder's threads at -j 2 share no libipt image (libipt
# reorders an image's sections as it reads them): a worker once copied
# the image the converter's thread was decoding with, and decoded on a
# damaged list, falling back to perf script ("no memory mapped at this
# address") about once in 20 runs of this input of 2 chunks. Each run
# must decode it itself and write -j 1's bytes (no source lines: their
# DWARF reading was most of a run's time). 4 runs in make test and make
# check; the hunt's 200 with --stress (make test-stress T=pt-variants).
name=ptdecode-jobs-race
if gen "$name" except --snapshot-at 30000 --snapshot-window 15000 --psb-every 256; then
	"$CONVERT" --quiet --no-srcline -j 1 "$TMP/$name.data" -o "$TMP/$name.1.fxt" 2>"$TMP/$name.err"
	why= runs=$(stress_count 4 200)
	for ((i = 1; i <= runs; i++)); do
		if ! "$CONVERT" --no-srcline -j 2 "$TMP/$name.data" -o "$TMP/$name.2.fxt" 2>"$TMP/$name.err"; then
			why="run $i failed: $(first_lines "$TMP/$name.err")"
		elif [ -n "$(fallback_notes <"$TMP/$name.err")" ]; then
			why="run $i fell back: $(fallback_notes <"$TMP/$name.err")"
		elif ! cmp -s "$TMP/$name.1.fxt" "$TMP/$name.2.fxt"; then
			why="run $i wrote other bytes than -j 1"
		fi
		[ -z "$why" ] || break
	done
	verdict "$name" "$why"
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi
rm -f "$TMP/$name".*

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
		if ! SNAPTRACE_PERF="$TMP/$perf" "$bin" --decoder=perf "$TMP/$name.data" -o "$TMP/$case.fxt" \
			2>"$TMP/$case.err"; then
			fail "$case" "snaptrace-convert failed: $(first_lines "$TMP/$case.err")"
		elif [ "$(grep -c -e '^\(--buildid-dir [^ ]* \)\?script .*--dlfilter' "$TMP/perf.log")" -ne "$want" ]; then
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
fallback-perf-refuses-dlfilter|$CONVERT|perf-refuses|1|perf script failed with the dlfilter (exited with status 129: Error: unknown option 'dlfilter'): decoding through text
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
			if ! XDG_CACHE_HOME="$TMP/cache" SNAPTRACE_PERF="$TMP/$p" "$CONVERT" --decoder=perf --quiet -j 1 \
				"$TMP/$name.data" -o "$TMP/$case.fxt" 2>"$TMP/$case.err"; then
				why="snaptrace-convert failed: $(first_lines "$TMP/$case.err")"
			elif ! cmp -s "$TMP/$case.fxt" "$TMP/$name.text.fxt"; then
				why="$p, run $k: the trace differs from the text path's"
			fi
		done
	done
	if [ -z "$why" ] && [ "$(grep -c -e '^--version' "$TMP/perf.log")" != 3 ]; then
		why="perf --version ran $(grep -c -e '^--version' "$TMP/perf.log") times, expected 3 (twice for perf, once for perf-old)"
	elif [ -z "$why" ] && [ "$(grep -c -e '^\(--buildid-dir [^ ]* \)\?script .*--dlfilter' "$TMP/perf.log")" != 3 ]; then
		why="$(grep -c -e '^\(--buildid-dir [^ ]* \)\?script .*--dlfilter' "$TMP/perf.log") perf script runs with --dlfilter, expected 3 (perf's)"
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
	need_built "$case" "$SNAPTRACE_TEST_BIN/perfdata_dump"
	for what in events:evlist:-F buildids:buildid-list; do
		args=${what#*:}
		"$real" ${args//:/ } -f -i "$TMP/$name.data" 2>/dev/null | grep -v '^#' >"$TMP/$case.perf"
		if ! "$SNAPTRACE_TEST_BIN/perfdata_dump" "${what%%:*}" "$TMP/$name.data" >"$TMP/$case.ours" 2>"$TMP/$case.err"; then
			why="${what%%:*}: $(first_lines "$TMP/$case.err")"
		elif ! cmp -s "$TMP/$case.perf" "$TMP/$case.ours"; then
			why="${what%%:*} differ (< perf, > ours): $(diff "$TMP/$case.perf" "$TMP/$case.ours" | head -n 4 | tr '\n' '|')"
		elif [ "${what%%:*}" = events ] && ! grep -q '^intel_pt' "$TMP/$case.ours"; then
			why="no intel_pt event: $(first_lines "$TMP/$case.ours")"
		fi
		[ -n "$why" ] && break
	done
	if [ -n "$why" ]; then
		fail "$case" "$why"
	else
		ok "$case"
	fi
	# the command line of an Intel PT perf.data is the README's and --print-perf-command's
	check_perf_command perf-command-branches branches "$TMP/$name.data"
	# perf script killed while writing (SIGKILL after 3,001 bytes, inside a
	# binary record or a line): exit 1, and the one error says perf was
	# killed (it once said only "a binary record cut short", blaming the data);
	# --decoder=perf: the in-process decoder runs no perf script
	case=perf-killed
	printf '#!/bin/bash\n[ "$1" = script ] || [ "$3" = script ] || exec "%s" "$@"\n"%s" "$@" | head -c 3001\nkill -KILL $$\n' \
		"$real" "$real" >"$TMP/perf-killed"
	chmod +x "$TMP/perf-killed"
	why=
	for path in dlfilter no-dlfilter; do
		rm -f "$TMP/$case.fxt"
		SNAPTRACE_PERF="$TMP/perf-killed" "$CONVERT" -q -j 1 --decoder=perf \
			$([ $path = no-dlfilter ] && echo --no-dlfilter) \
			"$TMP/$name.data" -o "$TMP/$case.fxt" 2>"$TMP/$case.err"
		rc=$?
		# (the line perf was cut in may be warned about before)
		if [ $rc -ne 1 ] || [ "$(grep -c -v ': warning: ' "$TMP/$case.err")" -ne 1 ] ||
			! tail -n 1 "$TMP/$case.err" | grep -q "$name.data: perf script was killed by signal 9 (SIGKILL)"; then
			why="$why $path: exit $rc: $(first_lines "$TMP/$case.err");"
		elif [ -e "$TMP/$case.fxt" ]; then
			why="$why $path: a trace was written;"
		fi
	done
	verdict "$case" "$why"
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi

# The in-process decoder leaves to perf script what it does not reproduce,
# with one line saying why, and the trace is perf script's:
# an OVF packet, a compressed return past libipt's 64 calls (found midway:
# the conversion is redone), a mapped file that is gone, a CPU's AUX data
# decoded while it runs a task whose process maps no code (found midway);
# and decodes per-CPU queues whose switch records say the task a CPU runs
# next (cpu-switch3), and a CPU that runs two processes, one after the
# other, each its own program at the same addresses (cpu-processes: the
# second's ITRACE_START and switch in; cpu-processes3: its switch records
# too, the switch out naming it), without running perf; --decoder=perf
# never tries it. Each fails on a decoder that decodes on regardless (or,
# for the processes, in one image).
# case|program|ptsynth options|what the note says (empty: no note)
while IFS='|' read -r case prog opts says; do
	name=ptdecode-$case
	bin="$PROGS/$prog"
	if [ "$case" = image-gone ]; then
		mkdir -p "$TMP/gone"
		cp "$PROGS/$prog" "$TMP/gone/$prog"
		bin="$TMP/gone/$prog"
	fi
	# shellcheck disable=SC2086
	if ! timeout 120 "$PTSYNTH" -q -o "$TMP/$name.data" $opts -- "$bin" >/dev/null 2>"$TMP/$name.gen"; then
		fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
		continue
	fi
	[ "$case" = image-gone ] && rm -r "$TMP/gone"
	# per-CPU queues as perf record writes them with --switch-events:
	# have_sched_switch 3 (AUXTRACE_INFO's 8th private word; that record is
	# ptsynth's first, at the data section's offset, the header's sixth
	# word), where a CPU-wide switch out names the task the CPU runs next
	# (here the idle task, or the second process) and a switch in names it
	# only when it is another (the decoders must follow both); cpu-idle:
	# CPU 0 starts (ITRACE_START, the first record of type 12, size 48: its
	# tid) in the idle task (tid 0, perf's pid 0 whatever the record says),
	# so perf decodes its AUX data there until the first switch in (in no
	# process's maps: decode errors), which the in-process decoder meets
	# midway
	case $case in
	cpu-switch3|cpu-idle|cpu-processes3)
		data=$(od -An -t u8 -j 40 -N 8 "$TMP/$name.data" | tr -d ' ')
		printf '\x03' | dd of="$TMP/$name.data" bs=1 seek=$((data + 16 + 7 * 8)) conv=notrunc 2>/dev/null ;;&
	cpu-idle)
		at=$(od -An -tx8 -v -w8 "$TMP/$name.data" | grep -n -m 1 '^ 003000000000000c$' | cut -d: -f1)
		head -c 4 /dev/zero | dd of="$TMP/$name.data" bs=1 seek=$(((at - 1) * 8 + 12)) conv=notrunc 2>/dev/null ;;
	esac
	"$CONVERT" --quiet --decoder=perf "$TMP/$name.data" -o "$TMP/$name.perf.fxt" 2>/dev/null
	rm -f "$TMP/perf.log"
	decoder=
	[ "$case" = forced ] && decoder=--decoder=perf
	# shellcheck disable=SC2086
	if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" $decoder "$TMP/$name.data" -o "$TMP/$name.fxt" \
		2>"$TMP/$name.err"; then
		fail "$name" "snaptrace-convert failed: $(first_lines "$TMP/$name.err")"
	elif [ -n "$says" ] && [ "$(grep -c -e 'decoding through perf script' "$TMP/$name.err")" -ne 1 ]; then
		fail "$name" "expected one note, found: $(first_lines "$TMP/$name.err")"
	elif [ -n "$says" ] && ! grep -q -F -e "$TMP/$name.data: " "$TMP/$name.err"; then
		fail "$name" "the note does not name the file: $(first_lines "$TMP/$name.err")"
	elif [ -n "$says" ] && ! grep -e 'decoding through perf script' "$TMP/$name.err" | grep -q -F -e "$says"; then
		fail "$name" "expected the note to say '$says': $(grep -e 'perf script' "$TMP/$name.err")"
	elif [ -z "$says" ] && grep -q -e 'decoding through perf script' "$TMP/$name.err"; then
		fail "$name" "unexpected note: $(first_lines "$TMP/$name.err")"
	elif { [ -n "$says" ] || [ -n "$decoder" ]; } &&
		! grep -q -e '^\(--buildid-dir [^ ]* \)\?script ' "$TMP/perf.log" 2>/dev/null; then
		fail "$name" "perf script was not run"
	elif [ -z "$says" ] && [ -z "$decoder" ] && [ -s "$TMP/perf.log" ]; then
		fail "$name" "perf was run: $(first_lines "$TMP/perf.log")"
	elif ! cmp -s "$TMP/$name.fxt" "$TMP/$name.perf.fxt"; then
		fail "$name" "the trace differs from perf script's"
	else
		ok "$name"
	fi
	rm -f "$TMP/$name".*
done <<EOF
overflow|calls-static|--damage overflow@150|Intel PT packets perf reads its own way (OVF)
deep-returns|recurse||compressed return without call
image-gone|calls-static||$TMP/gone/calls-static: No such file or directory
cpu-switch3|threads|--per-cpu --block-syscalls 1000000 --preempt-at 1500:500000|
cpu-idle|threads|--per-cpu --block-syscalls 1000000|the AUX data of CPU 0 decoded while it runs a thread of process 0, which maps no code
cpu-processes|calls-static|--per-cpu --then $PROGS/tailcall|
cpu-processes3|calls-static|--per-cpu --block-syscalls 1000000 --psb-every 128 --then $PROGS/tailcall|
forced|calls-static||
EOF

# A saved output of perf script with the dlfilter converts like the
# perf.data; a damaged one is a one-line error naming the file and the byte
# (exit 1), never a crash or a partial trace: cut inside a record, a record
# of unknown type, a string id out of order, a branch naming no string, a
# version record of another format version.
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
	# walk the records and lines for the offsets of the VERSION record, the
	# first STRING, the record after it and the first BRANCH
	read -r version first second branch < <(od -An -tu1 -v "$TMP/$name.bin" |
		tr -s ' ' '\n' | grep . | awk '
		{ b[n++] = $1 }
		END { for (i = 0; i < n;) {
			if (b[i] != 0) { while (i < n && b[i] != 10) i++; i++; continue }
			size = b[i + 2] + 256 * b[i + 3]
			if (b[i + 1] == 4 && v == "") v = i
			if (b[i + 1] == 1 && f == "") { f = i; s = i + size }
			if (b[i + 1] == 2 && br == "") br = i
			i += size }
			print v, f, s, br }')
	# damage|what the message says
	while IFS='|' read -r damage says; do
		cp "$TMP/$name.bin" "$TMP/$damage.bin"
		case $damage in
		cut) truncate -s $((first + 10)) "$TMP/$damage.bin" ;;
		type) printf '\x09' | dd of="$TMP/$damage.bin" bs=1 seek=$((second + 1)) conv=notrunc 2>/dev/null ;;
		id) printf '\x07' | dd of="$TMP/$damage.bin" bs=1 seek=$((first + 4)) conv=notrunc 2>/dev/null ;;
		version) printf '\x07' | dd of="$TMP/$damage.bin" bs=1 seek=$((version + 4)) conv=notrunc 2>/dev/null ;;
		nostring) head -c "$first" "$TMP/$name.bin" >"$TMP/$damage.bin"   # the VERSION kept
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
version|the dlfilter's stream of format version 7, expected version 1
EOF
else
	fail "$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
fi
