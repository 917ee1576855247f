#!/usr/bin/env bash
# tier: check
# A recording directory as an input (README "Finding the moment"):
# snaptrace-convert DIR converts the snapshots record.json lists, in its
# order, with its hits and snapshot reasons. Built here from perf script
# text (the converter takes text snapshots as it takes perf.data) and a
# record.json written by hand, so every time is known:
#   markers       one "[trigger] SPEC" instant per hit at its time on the
#                 track "triggers" of the process (tid, ip, snapshot, the
#                 call's two arguments, a later recorder's extra fields),
#                 "[snapshot] interrupt" for the snapshot Ctrl-C took; the
#                 FXT read back with --dump
#   tsc-span      a first argument that is a TSC before the hit (record.json's
#                 TSC conversion) draws "[trigger span] SPEC" from it to the hit
#   offcpu-end    a thread asleep when its snapshot ends: [off-cpu] reaches
#                 the snapshot's end (the hit), not only the file's last record;
#                 given before another recording, it ends there too (never
#                 carried into another recording's time)
#   offcpu-tail   a thread asleep when a snapshot no hit took ends (Ctrl-C,
#                 --duration, the program's exit): [off-cpu] reaches the
#                 file's last record, or record.json's live_ns (perf still
#                 recorded then), never the snapshot's time_ns (taken after
#                 perf stopped: a sleep that never happened); the
#                 "[snapshot] interrupt" marker is at live_ns too, its
#                 taken_ns saying when Ctrl-C came
#   carry-stack   two consecutive snapshots of a recording are one timeline:
#                 a sampled stack running at the end of the first goes on in
#                 the second (the same files given alone end it at the
#                 thread's first event in the second: golden case
#                 sampling-snapshot-boundary)
#   summary       the summary puts the trigger in each thread's span
#   window-events --window keeps the event samples inside a window (those of
#                 every process, on their process's track) and counts those
#                 it leaves out
#   summary-no-samples  the summary's [no samples] time per thread is what
#                 its [no samples] slices add up to, also before a thread's
#                 first sample and in a thread of switch records only (golden
#                 case sampling-no-samples-before-first, not --quiet); a
#                 thread of one cycles sample reports the period another
#                 thread's samples gave, not 0
#   same-as-files the slices are those of the files given one by one
#   files         files given in a row are a recording of their own: a thread
#                 asleep at the end of one stays [off-cpu] into the next
#                 file, but a file left out between two (unfinished) ends
#                 what the one before carries, and so does a recording
#                 directory given next (another time): the gap rule
#   killed        a killed recorder's directory (no snapshot listed): its
#                 perf.data files are converted
#   names         text without a comm column: threads get record.json's names
#   unfinished    a snapshot file perf did not finish (its header never
#                 written) is left out with one warning naming it, listed or
#                 found in a killed recorder's directory; the snapshot before
#                 it then ends the recording ([off-cpu] not carried into the
#                 next one); no marker names the file; nothing left: exit 1
#   gap           a snapshot left out between two (unfinished, empty,
#                 marked by record.json's "problem", or lost: no file and a
#                 "problem", named)
#                 ends what the one before carries; an empty only snapshot:
#                 nothing left, exit 1
#   jit-map-beside a JIT's snapshot converted alone, its /tmp/perf-PID.map
#                 gone: the warning names the recording directory holding a
#                 copy (only when record.json and the copy are there)
#   errors        no record.json: exit 2; a bad one, or one whose snapshots
#                 perf never wrote: exit 1; one line naming the file and what
#                 was expected; no output left
#   exit-end      a --multi-snapshot recording ended by the program's exit
#                 whose last snapshot holds no samples: said, naming it;
#                 when the snapshot before holds the exit record, that one
#                 holds the end; when none does, the summary's line on how
#                 the program ended (and the trace's "ended" info record)
#                 says how long before the recorder saw the exit (end_ns)
#                 the trace ends, the figure checked against the trace's
#                 last end read back with --dump=tree (the old code said
#                 nothing: a trace ending 13 ms short looked complete)
#   exit-two      the two recordings of exit-end converted together: each
#                 says how its program ended once, naming the recording
#                 (the old summary said "the program exited with status 0"
#                 twice, no telling whose), in the summary and in the
#                 trace's "ended" info record alike
#   ring-start    a sampling recording whose event overwrites its ring
#                 ("event": "...,overwrite/..."): before a thread's first
#                 sample in a snapshot its time on the CPU is "[before the
#                 oldest sample]", not [no samples] (the switch records
#                 reach back further than the ring of samples, whose older
#                 samples were overwritten: no hole in the sampling), the
#                 summary counting it apart; after the first sample a hole
#                 is [no samples] as before, and so is all of it for an
#                 event without the term (perf record's own rings lose
#                 nothing)
#   same-time     600 hits at one time: 512 markers (Perfetto nests one
#                 time's instants on a track and drops them 512 deep), the
#                 rest counted in a warning
#   same-time-two 1,200 hits at one time alternating between two processes:
#                 512 markers of that time in all, no track 512 deep
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
need_built recording "$CONVERT"

CASE="$SNAPTRACE_TOP/tests/cases/offcpu-across-snapshots"

# record_json DIR HITS SNAPSHOTS [TSC]: writes DIR/record.json: process
# $REC_PID (default 300), threads $REC_THREADS (default 300 "app"), "end"
# $REC_END (default interrupt at 20.09 s).
record_json() {
	local threads='{"pid": 300, "tid": 300, "comm": "app"}'
	threads=${REC_THREADS:-$threads}
	cat >"$1/record.json" <<EOF
{
  "format": "snaptrace-record 1",
  "pids": [${REC_PID:-300}],
  "threads": [$threads],
  "trigger": {"spec": "magic_trace_stop_indicator", "mechanism": "uprobe", "file": "/opt/app", "symbol": "magic_trace_stop_indicator", "file_offset": 4608, "tsc": ${4:-null}},
  "hits": [$2
  ],
  "hits_total": 2, "hits_coalesced": 0, "hits_lost": 0,
  "snapshots": [$3
  ],
  "end": ${REC_END:-"\"interrupt\", \"end_ns\": 20090000000"}
}
EOF
}

# A recording of two snapshots: the first taken by a hit at 20.05 s (the
# thread went to sleep at 20.0002 s and is still asleep), the second by
# Ctrl-C at 20.08 s; a second hit at 20.06 s was coalesced into it.
D="$TMP/rec"
mkdir -p "$D"
cp "$CASE/snapshot-1.txt" "$D/perf.data.1"
cp "$CASE/input.txt" "$D/perf.data.2"
HITS='
    {"pid": 300, "tid": 300, "time_ns": 20050000000, "ip": 4198912, "args": [11, 22], "snapshot": 0, "duration_ns": 1500},
    {"pid": 300, "tid": 300, "time_ns": 20060000000, "ip": 4198912, "args": [33, 44], "snapshot": null}'
SNAPS='
    {"file": "perf.data.1", "reason": "trigger", "time_ns": 20050100000, "freeze_ms": 1.0, "ms": 2.0},
    {"file": "perf.data.2", "reason": "interrupt", "time_ns": 20080000000, "freeze_ms": 1.0, "ms": 2.0}'
record_json "$D" "$HITS" "$SNAPS"

# convert NAME ARGS...: converts into $TMP/NAME.fxt, records and tree into
# $TMP/NAME.records and $TMP/NAME.tree (the reader's verdict: exit 0).
convert() {
	local name=$1
	shift
	"$CONVERT" "$@" -o "$TMP/$name.fxt" >/dev/null 2>"$TMP/$name.err" &&
		"$CONVERT" --dump=records "$TMP/$name.fxt" >"$TMP/$name.records" &&
		"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.tree"
}

# The "triggers" track: a thread object of its own in process 300.
t_markers() {
	local koid want got n
	if ! convert markers "$D"; then
		fail markers "conversion failed: $(first_lines "$TMP/markers.err")"
		return
	fi
	koid=$(sed -n 's/.* kobj thread koid=\([0-9]*\) name="triggers" process=300$/\1/p' \
		"$TMP/markers.records")
	if [ -z "$koid" ] || [ "$koid" = 300 ]; then
		fail markers "no thread object \"triggers\" in process 300: $(grep kobj "$TMP/markers.records" | tr '\n' '|')"
		return
	fi
	want="event instant ts=20050000000 pid=300 tid=$koid cat=\"\" name=\"[trigger] magic_trace_stop_indicator\" tid:int64=300 ip:pointer=0x401200 snapshot:uint64=0 snapshot_file:string=\"perf.data.1\" arg0:uint64=11 arg1:uint64=22 duration_ns:int64=1500
event instant ts=20060000000 pid=300 tid=$koid cat=\"\" name=\"[trigger] magic_trace_stop_indicator\" tid:int64=300 ip:pointer=0x401200 arg0:uint64=33 arg1:uint64=44
event instant ts=20080000000 pid=300 tid=$koid cat=\"\" name=\"[snapshot] interrupt\""
	got=$(grep -E '^[0-9]+ event .* tid='"$koid"' ' "$TMP/markers.records" | cut -d' ' -f2-)
	n=$(grep -c "tid=$koid " "$TMP/markers.records")
	if [ "$got" != "$want" ]; then
		fail markers "the triggers track holds: $got"
	elif [ "$n" -ne 3 ]; then
		fail markers "$n events on the triggers track, expected 3"
	else
		ok markers
	fi
}

# TSC -> perf clock: with time_shift 1, time_mult 1 and time_zero 0, a TSC
# is twice the time in ns. The first hit's first argument is the TSC of
# 20.04 s, 10 ms before the hit; the second's (33: 16 ns) lies before the
# trace: no span.
t_tsc_span() {
	local d="$TMP/tsc" span
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	record_json "$d" "${HITS/\[11, 22\]/[40080000000, 22]}" "$SNAPS" \
		'{"time_shift": 1, "time_mult": 1, "time_zero": 0}'
	if ! convert tsc "$d"; then
		fail tsc-span "conversion failed: $(first_lines "$TMP/tsc.err")"
		return
	fi
	span=$(grep -F '[trigger span]' "$TMP/tsc.tree")
	if [ "$(grep -c -F '[trigger span]' "$TMP/tsc.tree")" -ne 1 ]; then
		fail tsc-span "expected one span, found: $(grep -F '[trigger' "$TMP/tsc.tree" | tr '\n' '|')"
	elif ! grep -q -F '[trigger span] magic_trace_stop_indicator [20040000000, 20050000000] dur=10000000 cat="" start_tsc:uint64=40080000000' <<<"$span"; then
		fail tsc-span "span: $span"
	else
		ok tsc-span
	fi
}

# Thread 300 goes to sleep at 20.0002 s, the last record of perf.data.1; the
# snapshot ends at the hit (20.05 s). Alone the file cannot say so.
t_offcpu_end() {
	local d="$TMP/one" alone rec
	mkdir -p "$d"
	cp "$D/perf.data.1" "$d/"
	record_json "$d" "${HITS%%,
    {*}" "${SNAPS%%,
    {*}"
	if ! convert one "$d" || ! convert alone "$d/perf.data.1"; then
		fail offcpu-end "conversion failed: $(first_lines "$TMP/one.err") $(first_lines "$TMP/alone.err")"
		return
	fi
	rec=$(grep -F '[off-cpu]' "$TMP/one.tree")
	alone=$(grep -F '[off-cpu]' "$TMP/alone.tree")
	if ! grep -q -F '[off-cpu] [20000200000, 20050000000]' <<<"$rec"; then
		fail offcpu-end "with record.json: $rec"
	elif ! grep -q -F '[off-cpu] [20000200000, 20000200000]' <<<"$alone"; then
		fail offcpu-end "the file alone (its last record): $alone"
	elif [ "$(grep -c -F '[off-cpu]' "$TMP/one.tree")" -ne 1 ]; then
		fail offcpu-end "$(grep -c -F '[off-cpu]' "$TMP/one.tree") [off-cpu] slices, expected 1"
	elif ! mkdir -p "$TMP/other" || ! cp "$D/perf.data.2" "$TMP/other/perf.data.1" ||
		! record_json "$TMP/other" "" "${SNAPS%%,
    {*}" || ! convert two "$d" "$TMP/other"; then
		fail offcpu-end "two recordings: $(first_lines "$TMP/two.err")"
	elif ! grep -q -F '[off-cpu] [20000200000, 20050000000]' "$TMP/two.tree"; then
		fail offcpu-end "carried into the next recording: $(grep -F '[off-cpu]' "$TMP/two.tree")"
	else
		ok offcpu-end
	fi
}

# Thread 300 goes to sleep at 20.0002 s, its own last record; Ctrl-C's
# snapshot was taken at 20.129 s, after perf had stopped recording: only
# what perf recorded is known (an attached server that never sleeps more
# than 15 ms showed a 129 ms sleep there). Thread 301's switch at 20.001 s
# is the file's last record.
t_offcpu_tail() {
	local d="$TMP/tail" got want n mark
	mkdir -p "$d"
	{ cat "$CASE/snapshot-1.txt"
	  printf '%s\n' '          helper   300/301      20.000900000: PERF_RECORD_SWITCH IN         ' \
		'          helper   300/301      20.001000000: PERF_RECORD_SWITCH OUT        '
	} >"$d/perf.data.1"
	for live in none null 20010000000; do
		case $live in
		none) record_json "$d" "" '
    {"file": "perf.data.1", "reason": "interrupt", "time_ns": 20129000000, "freeze_ms": 1.0, "ms": 2.0}'
		      want='[20000200000, 20001000000]' ;;
		null) record_json "$d" "" '
    {"file": "perf.data.1", "reason": "interrupt", "time_ns": 20129000000, "live_ns": null}'
		      want='[20000200000, 20001000000]' ;;
		*) record_json "$d" "" '
    {"file": "perf.data.1", "reason": "interrupt", "time_ns": 20129000000, "live_ns": '"$live"'}'
		   want="[20000200000, $live]" ;;
		esac
		if ! convert "tail-$live" "$d"; then
			fail offcpu-tail "live_ns $live: conversion failed: $(first_lines "$TMP/tail-$live.err")"
			return
		fi
		got=$(grep -F '[off-cpu]' "$TMP/tail-$live.tree" | grep -v '^ *301 ')
		n=$(grep -c -F '[off-cpu]' <<<"$got")
		if [ "$n" -ne 1 ] || ! grep -q -F "[off-cpu] $want" <<<"$got"; then
			fail offcpu-tail "live_ns $live: expected thread 300's [off-cpu] $want, found: $(tr '\n' '|' <<<"$got")"
			return
		fi
		# the marker where the trace ends (live_ns), saying when Ctrl-C came;
		# at time_ns when nothing says where perf stopped
		mark="[snapshot] interrupt @$live"
		[ "$live" = none ] || [ "$live" = null ] && mark='[snapshot] interrupt @20129000000'
		got=$(grep -F '[snapshot] interrupt' "$TMP/tail-$live.tree" | head -n 1)
		if [ "${got#*"$mark"}" = "$got" ]; then
			fail offcpu-tail "live_ns $live: expected the marker $mark, found: $got"
			return
		elif [ "${mark#*@}" != 20129000000 ] && ! grep -q 'taken_ns:uint64=20129000000' <<<"$got"; then
			fail offcpu-tail "live_ns $live: the marker does not say when Ctrl-C came: $got"
			return
		elif [ "${mark#*@}" = 20129000000 ] && grep -q 'taken_ns' <<<"$got"; then
			fail offcpu-tail "live_ns $live: taken_ns on a marker at its time_ns: $got"
			return
		fi
	done
	ok offcpu-tail
}

# The golden case sampling-snapshot-boundary as a recording of two
# snapshots: main and __libc_start_call_main run on from the first into the
# second (one slice each), work ends at the switch out.
t_carry_stack() {
	local d="$TMP/carry" c="$SNAPTRACE_TOP/tests/cases/sampling-snapshot-boundary" got
	mkdir -p "$d"
	cp "$c/snapshot-1.txt" "$d/perf.data.1"
	cp "$c/input.txt" "$d/perf.data.2"
	record_json "$d" "" '
    {"file": "perf.data.1", "reason": "none", "time_ns": 20000220000, "live_ns": 20000210000},
    {"file": "perf.data.2", "reason": "interrupt", "time_ns": 20010300000, "live_ns": 20010250000}'
	if ! convert carry "$d"; then
		fail carry-stack "conversion failed: $(first_lines "$TMP/carry.err")"
		return
	fi
	got=$(grep -v -e '^#' -e '\[snapshot\]' "$TMP/carry.tree" | sed 's/ cat=.*//; s/ dur=[0-9]*//; s/  */ /g' | tr '\n' '|')
	if [ "$got" != "300 0 __libc_start_call_main [20000100000, 20010200000]|300 1 main [20000100000, 20010200000]|300 2 work [20000100000, 20000250000]|300 2 nap [20000250000, 20010100000]|300 3 [off-cpu] [20000250000, 20010000000]|300 2 work [20010100000, 20010200000]|" ]; then
		fail carry-stack "slices: $got"
	else
		ok carry-stack
	fi
}

# Event samples of two processes at 1.00015, 1.000155 and 1.00016 s
# (golden case events-tracks-per-process); a hit at 1.000155 s and
# --window 10us,1us keep 1.000145 to 1.000156 s: three event samples kept,
# one left out.
t_window_events() {
	local d="$TMP/wev" got
	mkdir -p "$d"
	cp "$SNAPTRACE_TOP/tests/cases/events-tracks-per-process/input.txt" "$d/perf.data.1"
	REC_PID=700 record_json "$d" '
    {"pid": 700, "tid": 700, "time_ns": 1000155000, "ip": 4198912, "args": null, "snapshot": 0}' '
    {"file": "perf.data.1", "reason": "trigger", "time_ns": 1000156000}'
	if ! convert wev --window 10us,1us "$d"; then
		fail window-events "conversion failed: $(first_lines "$TMP/wev.err")"
		return
	fi
	got=$(grep -E '^[0-9]+ event instant .*name="page-faults"' "$TMP/wev.records" |
		sed 's/^[0-9]* event instant ts=\([0-9]*\) pid=\([0-9]*\) .* tid:int64=\([0-9]*\) .*/\1 \2 \3/' | tr '\n' ' ')
	if [ "$got" != "1000150000 700 700 1000150000 700 701 1000155000 800 800 " ]; then
		fail window-events "event samples kept (time pid tid): $got"
	elif ! grep -q -F -- '--window 10us,1us: 1 interval kept, 0 slices left out (and 0 instants, 1 event sample)' "$TMP/wev.err"; then
		fail window-events "summary: $(grep -F -- '--window' "$TMP/wev.err")"
	else
		ok window-events
	fi
}

# The thread's span in the two snapshots: 20.0001 to 20.0402 s; the last
# hit (20.06 s) lies 19.8 ms after its end.
t_summary() {
	local line
	line=$(grep -F 'app [300]:' "$TMP/markers.err")
	if ! grep -q -F 'trigger at +19.800 ms from its end (the last of 2)' <<<"$line"; then
		fail summary "summary line: $line"
	else
		ok summary
	fi
}

t_summary_no_samples() {
	local c="$SNAPTRACE_TOP/tests/cases/sampling-no-samples-before-first" why
	if ! "$CONVERT" "$c/input.txt" -o "$TMP/nosamples.fxt" 2>"$TMP/nosamples.err" ||
		! "$CONVERT" --dump=tree "$TMP/nosamples.fxt" >"$TMP/nosamples.tree" 2>/dev/null; then
		fail summary-no-samples "conversion failed: $(first_lines "$TMP/nosamples.err")"
	elif ! why=$(awk '
		FILENAME == ARGV[1] {
			if (match($0, /\[[0-9]+\]: .*no samples [0-9.]+ ms/)) {
				tid = substr($0, RSTART + 1); sub(/\].*/, "", tid)
				ms = $0; sub(/.*no samples /, "", ms); sub(/ ms.*/, "", ms); said[tid] = ms + 0
			}
			if (/once \[103\]: .*1 sample every 100 us/) once = 1
			next
		}
		/ \[no samples\] \[/ { t = $0; sub(/.*\[no samples\] \[/, "", t); sub(/\].*/, "", t)
			split(t, be, ", "); drawn[$1] += be[2] - be[1] }
		END {
			for (tid in said) if (said[tid] - drawn[tid] / 1e6 > 0.0005 || drawn[tid] / 1e6 - said[tid] > 0.0005) {
				print "thread " tid ": no samples " said[tid] " ms in the summary, " drawn[tid] / 1e6 " ms drawn"; exit 1
			}
			if (said[101] != 4 || said[102] != 3) { print "work and helper: " said[101] " and " said[102] " ms, expected 4 and 3"; exit 1 }
			if (!once) { print "once [103]: not \"1 sample every 100 us\""; exit 1 }
		}' "$TMP/nosamples.err" "$TMP/nosamples.tree"); then
		fail summary-no-samples "$why"
	else
		ok summary-no-samples
	fi
}

# three_samples: snapshot 1's first sample of thread 300 at 20.0001,
# 20.0002 and 20.0003 s.
three_samples() {
	for t in 20.000100000 20.000200000 20.000300000; do
		sed -n '1,5p' "$CASE/snapshot-1.txt" | sed "s/20.000100000/$t/"
	done
}

# Snapshot 1 of process 300 holds 3 samples (20.0001 to 20.0003 s) and,
# in "reach", its exit record at 20.0004 s; snapshot 2 (exit) only a COMM
# record; the recorder saw the exit at 20.0135 s (end_ns). In "short" the
# empty snapshot's line points at the line on how the program ended, which
# gives the amount; in "exitonly" snapshot 2 holds the exit record (at
# 20.0100 s) and no sample: its line says so, with the time from the
# samples before, never "short of the program's end" (trial 13: said so,
# pointing at a line that gave no amount, the exit being in the trace).
t_exit_end() {
	local d v last fig bad=""
	for v in reach short exitonly; do
		d="$TMP/exit-$v"
		mkdir -p "$d"
		three_samples >"$d/perf.data.1"
		[ $v = reach ] && printf '%s\n' '             app   300/300      20.000400000: PERF_RECORD_EXIT(300:300):(299:299)' >>"$d/perf.data.1"
		printf '%s\n' '             app   300/300      20.000350000: PERF_RECORD_COMM: app:300/300' >"$d/perf.data.2"
		[ $v = exitonly ] && printf '%s\n' '             app   300/300      20.010000000: PERF_RECORD_EXIT(300:300):(299:299)' >>"$d/perf.data.2"
		REC_END='"exit", "signals": [], "exits": [{"pid": 300, "status": 0, "signal": null, "core": null}], "launched": true, "end_ns": 20013500000' \
			record_json "$d" "" '
    {"file": "perf.data.1", "reason": "trigger", "time_ns": 20000350000},
    {"file": "perf.data.2", "reason": "exit", "time_ns": 20100000000, "live_ns": 20013500000}'
		if ! convert "exit-$v" "$d"; then
			bad+="$v: conversion failed: $(first_lines "$TMP/exit-$v.err") "
			continue
		fi
		# thread 300's last end as the trace holds it, and the figure it gives
		last=$(awk '$1 == 300 && match($0, /, [0-9]+\]/) { e = substr($0, RSTART + 2, RLENGTH - 3) + 0; if (e > m) m = e }
			END { printf "%.0f", m }' "$TMP/exit-$v.tree")
		fig=$(awk -v l="$last" 'BEGIN { printf "%.3f", (20013500000 - l) / 1e6 }')
		if [ "$(grep -c "^snaptrace-convert: $d/perf.data.2: the last snapshot (exit) holds no samples: " "$TMP/exit-$v.err")" != 1 ]; then
			bad+="$v: the empty last snapshot is not said once: $(first_lines "$TMP/exit-$v.err") "
		elif [ $v = reach ] && { ! grep -q "holds no samples: perf read the snapshot before it after the program's exit: that one holds the program's end$" "$TMP/exit-$v.err" ||
			! grep -q "^snaptrace-convert: the program exited with status 0$" "$TMP/exit-$v.err"; }; then
			bad+="$v: $(grep -e 'holds no' -e 'program exited' "$TMP/exit-$v.err" | tr '\n' '|') "
		elif [ $v = exitonly ] && { ! grep -q "holds no samples: only the program's exit, 9.700 ms after the samples of the snapshot before it$" "$TMP/exit-$v.err" ||
			! grep -q "^snaptrace-convert: the program exited with status 0$" "$TMP/exit-$v.err"; }; then
			bad+="$v: $(grep -e 'holds no' -e 'program exited' "$TMP/exit-$v.err" | tr '\n' '|') "
		elif [ $v = short ] && { [ "$last" -lt 20000300000 ] ||
			! grep -q "holds no samples: the trace ends with the snapshot before it, short of the program's end (by how much: the line on how the program ended)$" "$TMP/exit-$v.err" ||
			! grep -q "^snaptrace-convert: the program exited with status 0; its trace ends $fig ms before the recorder saw it end (its exit is in no snapshot): what it ran last is in none$" "$TMP/exit-$v.err" ||
			! grep -q "ended=the program exited with status 0; its trace ends $fig ms before" "$TMP/exit-$v.records"; }; then
			bad+="$v: trace ends at $last, expected $fig ms short: $(grep -e 'holds no' -e 'program exited' "$TMP/exit-$v.err" | tr '\n' '|') $(grep -o 'ended=.*' "$TMP/exit-$v.records") "
		fi
	done
	if [ -n "$bad" ]; then fail exit-end "$bad"; else ok exit-end; fi
}

# A launched program --duration's end came before (no exit in record.json,
# end "duration"): the recorder then ended it, which the converter says,
# on stderr and in the trace's "ended" info, with how far short of the
# recording's end (20.0135 s) the trace stops (trial 13: nothing said the
# trace ends before the program's end). An attached one that runs on, and
# a launched one ended by a trigger (the moment asked for), get no line.
t_duration_end() {
	local d v fig bad=""
	for v in launched attached trigger; do
		d="$TMP/dur-$v"
		mkdir -p "$d"
		three_samples >"$d/perf.data.1"
		REC_END="\"$([ $v = trigger ] && echo trigger || echo duration)\", \"signals\": [], \"exits\": [], \"launched\": $([ $v = attached ] && echo false || echo true), \"end_ns\": 20013500000" \
			record_json "$d" "" '
    {"file": "perf.data.1", "reason": "duration", "time_ns": 20013600000, "live_ns": 20013500000}'
		if ! convert "dur-$v" "$d"; then
			bad+="$v: conversion failed: $(first_lines "$TMP/dur-$v.err") "
			continue
		fi
		fig=$(awk '$1 == 300 && match($0, /, [0-9]+\]/) { e = substr($0, RSTART + 2, RLENGTH - 3) + 0; if (e > m) m = e }
			END { printf "%.3f", (20013500000 - m) / 1e6 }' "$TMP/dur-$v.tree")
		if [ $v = launched ] && { ! grep -q "^snaptrace-convert: the program still ran when --duration ended the recording, and snaptrace-record then ended it: the trace holds none of its end; its trace ends $fig ms before the recording's end$" "$TMP/dur-$v.err" ||
			! grep -q "ended=the program still ran when --duration ended the recording" "$TMP/dur-$v.records"; }; then
			bad+="$v: expected the line, $fig ms short: $(grep -e 'still ran' "$TMP/dur-$v.err") "
		elif [ $v != launched ] && grep -q "still ran" "$TMP/dur-$v.err"; then
			bad+="$v: $(grep 'still ran' "$TMP/dur-$v.err") "
		fi
	done
	if [ -n "$bad" ]; then fail duration-end "$bad"; else ok duration-end; fi
}

# The recordings of t_exit_end converted together (one process id in both:
# the process's end is the later one's, so each may say its trace ends short).
t_exit_two() {
	local r="$TMP/exit-reach" sh="$TMP/exit-short" lines
	if ! convert exit-two "$r" "$sh"; then
		fail exit-two "conversion failed: $(first_lines "$TMP/exit-two.err")"
		return
	fi
	lines=$(grep 'exited with status' "$TMP/exit-two.err")
	if [ "$(grep -c . <<<"$lines")" != 2 ] ||
		! grep -qF "snaptrace-convert: $r: the program exited with status 0" <<<"$lines" ||
		! grep -q "^snaptrace-convert: $sh: the program exited with status 0; its trace ends" <<<"$lines"; then
		fail exit-two "expected one line per recording, naming it: $(tr '\n' '|' <<<"$lines")"
	elif ! grep -qF "ended=$r: the program exited with status 0" "$TMP/exit-two.records" ||
		! grep -qF "ended=$sh: the program exited with status 0" "$TMP/exit-two.records"; then
		fail exit-two "the trace's ended record: $(grep -o 'ended=.*' "$TMP/exit-two.records")"
	else
		ok exit-two
	fi
}

# Thread 300 runs from 20.000 s, is off the CPU from 20.010 to 20.020 s, is
# first sampled at 20.050 s (every 0.1 ms), then not from 20.0502 to 20.060 s
# (its first 10 ms, before any period is known, are no hole either way).
t_ring_start() {
	local d ev bad="" want got
	for ev in ring plain; do
		d="$TMP/ring-$ev"
		mkdir -p "$d"
		{ printf '%s\n' '             app   300/300      20.000000000: PERF_RECORD_SWITCH IN         ' \
			'             app   300/300      20.010000000: PERF_RECORD_SWITCH OUT        ' \
			'             app   300/300      20.020000000: PERF_RECORD_SWITCH IN         '
		  for t in 20.050000000 20.050100000 20.050200000 20.060000000 20.060100000; do
			sed -n '1,5p' "$CASE/snapshot-1.txt" | sed "s/20.000100000/$t/"
		  done; } >"$d/perf.data.1"
		want="cpu-clock/freq=10000/u"
		[ $ev = ring ] && want="cpu-clock/freq=10000,overwrite/u"
		REC_END='"interrupt", "end_ns": 20090000000, "event": "'"$want"'"' record_json "$d" "" '
    {"file": "perf.data.1", "reason": "interrupt", "time_ns": 20090000000, "live_ns": 20060100000}'
		if ! convert "ring-$ev" "$d"; then
			bad+="$ev: conversion failed: $(first_lines "$TMP/ring-$ev.err") "
			continue
		fi
		got=$(grep -o -e '\[no samples\] \[[0-9]*, [0-9]*\]' -e '\[off-cpu\] \[[0-9]*, [0-9]*\]' \
			-e '\[before the oldest sample\] \[[0-9]*, [0-9]*\]' "$TMP/ring-$ev.tree" | tr '\n' '|')
		want='[off-cpu] [20010000000, 20020000000]|[before the oldest sample] [20020000000, 20050000000]|[no samples] [20050300000, 20060000000]|'
		[ $ev = plain ] && want='[off-cpu] [20010000000, 20020000000]|[no samples] [20020000000, 20050000000]|[no samples] [20050300000, 20060000000]|'
		if [ "$got" != "$want" ]; then
			bad+="$ev: drawn $got, expected $want "
		elif [ $ev = ring ] && ! grep -q "app \[300\]: .* no samples 9.700 ms (.*); before the oldest sample 30.000 ms (.*: on the CPU before its first sample in a snapshot, whose ring of samples reaches back less far than its switch records)" "$TMP/ring-$ev.err"; then
			bad+="$ev: summary $(grep -F 'app [300]' "$TMP/ring-$ev.err") "
		elif [ $ev = plain ] && grep -q "before the oldest" "$TMP/ring-$ev.err"; then
			bad+="$ev: summary $(grep -F 'app [300]' "$TMP/ring-$ev.err") "
		fi
	done
	if [ -n "$bad" ]; then fail ring-start "$bad"; else ok ring-start; fi
}

# The slices of a directory are those of its files given in order (but the
# [off-cpu] slice, which reaches the recording's end).
t_same_as_files() {
	if ! convert files "$D/perf.data.1" "$D/perf.data.2"; then
		fail same-as-files "conversion failed: $(first_lines "$TMP/files.err")"
	elif ! diff <(grep -v -F -e '[off-cpu]' -e '[trigger' -e '[snapshot' -e '# thread' "$TMP/markers.tree") \
		<(grep -v -F -e '[off-cpu]' -e '# thread' "$TMP/files.tree") >"$TMP/same.diff"; then
		fail same-as-files "$(head -n 4 "$TMP/same.diff" | tr '\n' '|')"
	else
		ok same-as-files
	fi
}

# Thread 300 goes to sleep at 20.0002 s, the last record of perf.data.1,
# and is switched in at 20.04 s in perf.data.2: given in a row, one
# [off-cpu] to 20.04 s; with an unfinished file between them, or a
# recording directory after perf.data.1, the time between is unknown: it
# ends at the first file's last record (docs/design.md "Recording
# directories", the gap rule).
t_files() {
	local z="$TMP/files-zero" o="$TMP/files-other" name want got
	mkdir -p "$o"
	head -c 4096 /dev/zero >"$z"
	cp "$D/perf.data.2" "$o/perf.data.1"
	record_json "$o" "" "${SNAPS%%,
    {*}"
	for name in row:20040000000 gap:20000200000 rec:20000200000; do
		want="[off-cpu] [20000200000, ${name#*:}]" name=files-${name%%:*}
		case $name in
		files-row) convert "$name" "$D/perf.data.1" "$D/perf.data.2" ;;
		files-gap) convert "$name" "$D/perf.data.1" "$z" "$D/perf.data.2" ;;
		files-rec) convert "$name" "$D/perf.data.1" "$o" ;;
		esac || { fail files "$name: conversion failed: $(first_lines "$TMP/$name.err")"; return; }
		got=$(grep -F '[off-cpu]' "$TMP/$name.tree" | grep '^ *300 ')
		if [ "$(wc -l <<<"$got")" -ne 1 ] || ! grep -q -F "$want" <<<"$got"; then
			fail files "$name: expected one $want, found: $(tr '\n' '|' <<<"$got")"
			return
		fi
	done
	ok files
}

# A JIT's snapshot converted alone once /tmp/perf-PID.map is gone, beside
# its recording's copy of the map: the warning names the recording
# directory to convert (new-user check 16: it said only that the functions
# show as addresses); without a record.json beside it, or without the copy,
# the warning says no more than that.
t_jit_map_beside() {
	local j="$TMP/jitrec" name bad=
	mkdir -p "$j"
	cp "$SNAPTRACE_TOP/tests/cases/broken-stacks-jit/input.txt" "$j/perf.data.1"
	echo "7f0000001000 100 LazyCompile:*crunch" >"$j/perf-900.map"
	for name in rec norec nocopy; do
		case $name in
		norec) rm "$j/record.json" ;;
		nocopy) record_json "$j" "" '{"file": "perf.data.1", "reason": "interrupt", "time_ns": 5000000000}'; rm "$j/perf-900.map" ;;
		*) record_json "$j" "" '{"file": "perf.data.1", "reason": "interrupt", "time_ns": 5000000000}' ;;
		esac
		"$CONVERT" "$j/perf.data.1" -o "$TMP/jit-$name.fxt" 2>"$TMP/jit-$name.err" >/dev/null ||
			bad+="[$name: exit $?: $(first_lines "$TMP/jit-$name.err")]"
		want="warning: the JIT's perf map /tmp/perf-900.map is gone: its functions show as addresses"
		[ $name = rec ] && want+="; convert the recording directory $j, which holds a copy"
		grep -qxF "snaptrace-convert: $want" "$TMP/jit-$name.err" ||
			bad+="[$name: $(grep -F perf-900.map "$TMP/jit-$name.err")]"
	done
	if [ -n "$bad" ]; then fail jit-map-beside "$bad"; else ok jit-map-beside; fi
}

# A recorder killed before it listed its snapshots ("end": "none"): every
# non-empty perf.data file of the directory, in name order.
t_killed() {
	local d="$TMP/killed"
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	: >"$d/perf.data.3"
	REC_END='"none", "end_ns": null' record_json "$d" "" ""
	if ! convert killed "$d"; then
		fail killed "conversion failed: $(first_lines "$TMP/killed.err")"
	elif ! cmp -s <(grep -v -F '[off-cpu]' "$TMP/killed.tree") <(grep -v -F '[off-cpu]' "$TMP/files.tree"); then
		fail killed "slices differ from those of perf.data.1 perf.data.2"
	else
		ok killed
	fi
}

# perf script text without its comm column (tests/cases/layout-no-comm):
# alone, thread 100 is "[100]"; in a recording, the name record.json gives.
t_names() {
	local d="$TMP/names"
	mkdir -p "$d"
	cp "$SNAPTRACE_TOP/tests/cases/layout-no-comm/input.txt" "$d/perf.data.1"
	REC_PID=100 REC_THREADS='{"pid": 100, "tid": 100, "comm": "server"}' record_json "$d" "" '
    {"file": "perf.data.1", "reason": "interrupt", "time_ns": null}'
	if ! convert names "$d" || ! convert names-alone "$d/perf.data.1"; then
		fail names "conversion failed: $(first_lines "$TMP/names.err")"
	elif ! grep -q 'kobj thread koid=100 name="server \[100\]" process=100$' "$TMP/names.records" ||
		! grep -q 'kobj process koid=100 name="server \[100\]"$' "$TMP/names.records"; then
		fail names "$(grep kobj "$TMP/names.records" | tr '\n' '|')"
	elif ! grep -q 'kobj thread koid=100 name="\[100\]" process=100$' "$TMP/names-alone.records"; then
		fail names "alone: $(grep kobj "$TMP/names-alone.records" | tr '\n' '|')"
	else
		ok names
	fi
}

# perf.data.2 is a perf.data whose header perf never wrote (zero bytes: a
# full disk, perf killed while writing it): left out, perf.data.1 is the
# recording's last snapshot.
t_unfinished() {
	local d="$TMP/unfin" k="$TMP/unfin-killed" o="$TMP/unfin-other" warn
	mkdir -p "$d" "$k" "$o"
	cp "$D/perf.data.2" "$o/perf.data.1"
	record_json "$o" "" "${SNAPS%%,
    {*}"
	cp "$D/perf.data.1" "$d/"
	head -c 4096 /dev/zero >"$d/perf.data.2"
	record_json "$d" "$HITS" "$SNAPS"
	cp "$d"/perf.data.* "$k/"
	REC_END='"none", "end_ns": null' record_json "$k" "" ""
	warn="snaptrace-convert: warning: %s/perf.data.2: left out: an unfinished perf.data: its header was never written (all zero bytes)"
	if ! convert unfin "$d" "$o" || ! convert unfin-killed "$k"; then
		fail unfinished "conversion failed: $(first_lines "$TMP/unfin.err") $(first_lines "$TMP/unfin-killed.err")"
	elif [ "$(grep -c 'warning:' "$TMP/unfin.err")" -ne 1 ] || ! grep -q -x -F "$(printf "$warn" "$d")" "$TMP/unfin.err" ||
		! grep -q -x -F "$(printf "$warn" "$k")" "$TMP/unfin-killed.err"; then
		fail unfinished "expected one warning naming perf.data.2: $(first_lines "$TMP/unfin.err")"
	elif ! grep -q -F '[off-cpu] [20000200000, 20050000000]' "$TMP/unfin.tree"; then
		fail unfinished "carried into the next recording: $(grep -F '[off-cpu]' "$TMP/unfin.tree")"
	elif grep -q -F 'perf.data.2' "$TMP/unfin.records" ||
		! grep -q -F 'snapshot_file:string="perf.data.1"' "$TMP/unfin.records"; then
		fail unfinished "markers: $(grep -F 'snapshot_file' "$TMP/unfin.records" | tr '\n' '|')"
	elif ! cmp -s <(grep -v -F -e '[off-cpu]' -e '[trigger' -e '[snapshot' "$TMP/unfin-killed.tree") \
		<(grep -v -F -e '[off-cpu]' "$TMP/alone.tree"); then
		fail unfinished "killed: the slices are not those of perf.data.1 alone"
	elif rm "$d/perf.data.1" && head -c 4096 /dev/zero >"$d/perf.data.1" &&
		"$CONVERT" "$d" -o "$TMP/unfin-none.fxt" >/dev/null 2>"$TMP/unfin-none.err"; then
		fail unfinished "every snapshot unfinished: exit 0"
	elif [ -e "$TMP/unfin-none.fxt" ] ||
		! tail -n 1 "$TMP/unfin-none.err" | grep -q -x "snaptrace-convert: $d: nothing left to convert: every perf.data given is unfinished (named above)"; then
		fail unfinished "every snapshot unfinished: $(first_lines "$TMP/unfin-none.err")"
	else
		ok unfinished
	fi
}

# gap_named WHAT DIR WARNING: the conversion of DIR (gap-WHAT) names the
# snapshot it leaves out in the line WARNING, and the thread asleep at the
# end of perf.data.1 is [off-cpu] until then, not bridged to the next
# snapshot; else a FAIL of gap, and 1.
gap_named() {
	if ! convert "gap-$1" "$2" || ! grep -q -x -F "$3" "$TMP/gap-$1.err" ||
		! grep -q -F '[off-cpu] [20000200000, 20050000000]' "$TMP/gap-$1.tree"; then
		fail gap "$1: $(first_lines "$TMP/gap-$1.err") $(grep -F '[off-cpu]' "$TMP/gap-$1.tree" | tr '\n' '|')"
		return 1
	fi
}

# A snapshot left out between two others (unfinished, or empty: perf never
# wrote into it) is a gap of unknown time: the snapshot before it ends what
# it carries ([off-cpu] at its end, never bridged to the next snapshot's
# switch in); a recording whose only snapshot is empty has nothing left to
# convert.
t_gap() {
	local d="$TMP/gap" e="$TMP/gap-empty" what
	mkdir -p "$d" "$e"
	cp "$CASE/snapshot-1.txt" "$d/perf.data.1"
	cp "$CASE/input.txt" "$d/perf.data.3"
	record_json "$d" "$HITS" "$SNAPS,
    {\"file\": \"perf.data.3\", \"reason\": \"interrupt\", \"time_ns\": 20080000000, \"freeze_ms\": 1.0, \"ms\": 2.0}"
	for what in unfinished empty; do
		if [ "$what" = unfinished ]; then
			head -c 4096 /dev/zero >"$d/perf.data.2"
		else
			: >"$d/perf.data.2"
		fi
		if ! convert "gap-$what" "$d"; then
			fail gap "$what: conversion failed: $(first_lines "$TMP/gap-$what.err")"
			return
		elif ! grep -q -F "perf.data.2: left out: an unfinished perf.data: " "$TMP/gap-$what.err"; then
			fail gap "$what: not left out: $(first_lines "$TMP/gap-$what.err")"
			return
		elif ! grep -q -F '[off-cpu] [20000200000, 20050000000]' "$TMP/gap-$what.tree"; then
			fail gap "$what: bridged to the next snapshot: $(grep -F '[off-cpu]' "$TMP/gap-$what.tree" | tr '\n' '|')"
			return
		fi
	done
	# a file the recorder marks (perf could not read it on a full disk),
	# though its header checks out: left out, named, the same gap
	cp "$CASE/snapshot-1.txt" "$d/perf.data.2"
	record_json "$d" "$HITS" "${SNAPS%\}}, \"problem\": \"perf cannot read it: incompatible file format\"},
    {\"file\": \"perf.data.3\", \"reason\": \"interrupt\", \"time_ns\": 20080000000, \"freeze_ms\": 1.0, \"ms\": 2.0}"
	gap_named marked "$d" "snaptrace-convert: warning: $d/perf.data.2: left out: record.json marks it: perf cannot read it: incompatible file format" ||
		return
	# a snapshot whose file perf lost (its next file got the same name and
	# replaced it: no file, a problem): named, the same gap
	rm "$d/perf.data.2"
	record_json "$d" "$HITS" "${SNAPS%%,
    {*},
    {\"file\": \"\", \"reason\": \"trigger\", \"time_ns\": 20060000000, \"problem\": \"lost: perf gave the next file it switched to the same name, perf.data.3 (perf names them to the 10 ms), replacing it\"},
    {\"file\": \"perf.data.3\", \"reason\": \"interrupt\", \"time_ns\": 20080000000, \"freeze_ms\": 1.0, \"ms\": 2.0}"
	gap_named lost "$d" "snaptrace-convert: warning: $d: snapshot 2 left out: record.json marks it: lost: perf gave the next file it switched to the same name, perf.data.3 (perf names them to the 10 ms), replacing it" ||
		return
	: >"$e/perf.data.1"
	record_json "$e" "" '
    {"file": "perf.data.1", "reason": "exit", "time_ns": 20050100000}'
	if "$CONVERT" "$e" -o "$TMP/gap-none.fxt" >/dev/null 2>"$TMP/gap-none.err"; then
		fail gap "an empty only snapshot: exit 0, $(first_lines "$TMP/gap-none.err")"
	elif ! grep -q -x -F "snaptrace-convert: $e: nothing left to convert: every perf.data given is unfinished (named above)" "$TMP/gap-none.err" ||
		[ -e "$TMP/gap-none.fxt" ]; then
		fail gap "an empty only snapshot: $(first_lines "$TMP/gap-none.err")"
	else
		ok gap
	fi
}

# expect_error NAME DIR STATUS PATTERN: the conversion of DIR exits STATUS
# with one line matching PATTERN, and leaves no output.
expect_error() {
	local rc
	"$CONVERT" "$2" -o "$TMP/$1.fxt" >/dev/null 2>"$TMP/$1.err"
	rc=$?
	if [ "$rc" -ne "$3" ]; then
		fail "errors/$1" "exit $rc, expected $3: $(first_lines "$TMP/$1.err")"
	elif [ "$(wc -l <"$TMP/$1.err")" -ne 1 ] || ! grep -q -E -- "$4" "$TMP/$1.err"; then
		fail "errors/$1" "stderr: $(first_lines "$TMP/$1.err")"
	elif [ -e "$TMP/$1.fxt" ] || ls -a "$TMP" | grep -q '^\.snaptrace-'; then
		fail "errors/$1" "output left behind"
	else
		return 0
	fi
	return 1
}

t_errors() {
	local d="$TMP/bad" all=0
	mkdir -p "$TMP/empty" "$d"
	cp "$D"/perf.data.* "$d/"
	expect_error no-json "$TMP/empty" 2 \
		"^snaptrace-convert: $TMP/empty: expected a recording directory of snaptrace-record \(with record.json\), found no record.json \(see --help\)$" || all=1
	record_json "$d" "${HITS/20050000000/\"soon\"}" "$SNAPS"
	expect_error bad-time "$d" 1 \
		"^snaptrace-convert: $d/record.json: hits\[0\]\.time_ns: expected an integer, found \"soon\"$" || all=1
	record_json "$d" "$HITS" "${SNAPS/perf.data.2/perf.data.7}"
	expect_error missing-file "$d" 1 \
		"^snaptrace-convert: $d/record.json: snapshots\[1\]: expected the snapshot file $d/perf.data.7, found none$" || all=1
	record_json "$d" "" '
    {"file": "", "reason": "trigger", "time_ns": 20050100000}'
	expect_error none-written "$d" 1 \
		"^snaptrace-convert: $d: nothing left to convert: perf wrote none of the snapshot files record.json lists$" || all=1
	head -c 300 "$D/record.json" >"$d/record.json"
	expect_error cut-short "$d" 1 \
		"^snaptrace-convert: $d/record.json:7: expected the JSON of snaptrace-record's report, found the end of the file \(cut short\?\)$" || all=1
	[ "$all" = 0 ] && ok errors
}

# A hit with more extra fields than FXT's 15 arguments hold beside the
# marker's own (tid, ip, snapshot, snapshot_file, arg0, arg1): the marker
# keeps what fits and names the rest in fields_left_out, one warning says so
# (the conversion once failed: "cannot write: Invalid argument").
t_many_fields() {
	local d="$TMP/fields" extra="" k marker nargs
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	for k in $(seq 1 12); do extra="$extra, \"f$k\": $k"; done
	record_json "$d" "${HITS/\"duration_ns\": 1500/\"duration_ns\": 1500$extra}" "$SNAPS"
	if ! convert fields "$d"; then
		fail many-fields "conversion failed: $(first_lines "$TMP/fields.err")"
		return
	fi
	marker=$(grep -F 'name="[trigger] magic_trace_stop_indicator"' "$TMP/fields.records" | head -n 1)
	nargs=$(grep -o ' [a-z_0-9]*:[a-z0-9]*=' <<<"$marker" | grep -c .)
	if [ "$nargs" -ne 15 ]; then
		fail many-fields "the marker has $nargs arguments, expected 15: $marker"
	elif ! grep -q -F 'duration_ns:int64=1500 f1:int64=1 ' <<<"$marker" ||
		! grep -q -F 'fields_left_out:string="f8, f9, f10, f11, f12"' <<<"$marker"; then
		fail many-fields "the marker: $marker"
	elif ! grep -q 'warning: .*record.json: 1 hit has more fields than a marker can show (15 arguments); .*fields_left_out .*(hits\[0\]: f8, f9, f10, f11, f12)' "$TMP/fields.err"; then
		fail many-fields "no warning naming the fields left out: $(first_lines "$TMP/fields.err")"
	else
		ok many-fields
	fi
}

# A stripped binary's function triggered by address (addr:0x1370): its
# slices are "[unnamed @ 0x1370]" (record.json's name of it), and so is the
# marker, the spec typed kept as argument `trigger` (it was "[trigger]
# addr:0x1370", which a search for the function's slices never finds)
t_unnamed_marker() {
	local d="$TMP/unnamed-marker" got
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	record_json "$d" "$HITS" "$SNAPS"
	sed -i 's/"trigger": {.*/"trigger": {"spec": "addr:0x1370", "mechanism": "uprobe", "file": "\/opt\/app", "symbol": "", "name": "[unnamed @ 0x1370]", "vaddr": 4976, "file_offset": 4976, "tsc": null},/' "$d/record.json"
	if ! convert unnamed-marker "$d"; then
		fail unnamed-marker "conversion failed: $(first_lines "$TMP/unnamed-marker.err")"
		return
	fi
	got=$(grep -c -F 'name="[trigger] [unnamed @ 0x1370]" tid:int64=300 trigger:string="addr:0x1370" ip:pointer=0x401200' \
		"$TMP/unnamed-marker.records")
	if [ "$got" -ne 2 ] || grep -q -F '[trigger] addr:' "$TMP/unnamed-marker.records"; then
		fail unnamed-marker "the markers: $(grep -F '[trigger]' "$TMP/unnamed-marker.records" | tr '\n' '|')"
	else
		ok unnamed-marker
	fi
}

# --dump=recording: record.json a field per line, PATH=VALUE in the file's
# order (the reference written here by hand), the streamed hits in their
# place, a name's control character escaped, an empty array as []; the
# conversion's errors for a directory without record.json (2) or a bad one (1).
t_dump() {
	local d="$TMP/dump" want got
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	want='format=snaptrace-record 1
pids.0=300
threads.0.pid=300
threads.0.tid=300
threads.0.comm=app
trigger.spec=magic_trace_stop_indicator
trigger.mechanism=uprobe
trigger.file=/opt/app
trigger.symbol=magic_trace_stop_indicator
trigger.file_offset=4608
trigger.tsc=null
hits.0.pid=300
hits.0.tid=300
hits.0.time_ns=20050000000
hits.0.ip=4198912
hits.0.args.0=11
hits.0.args.1=22
hits.0.snapshot=0
hits.0.duration_ns=1500
hits.1.pid=300
hits.1.tid=300
hits.1.time_ns=20060000000
hits.1.ip=4198912
hits.1.args.0=33
hits.1.args.1=44
hits.1.snapshot=null
hits_total=2
hits_coalesced=0
hits_lost=0
snapshots.0.file=perf.data.1
snapshots.0.reason=trigger
snapshots.0.time_ns=20050100000
snapshots.0.freeze_ms=1.0
snapshots.0.ms=2.0
snapshots.1.file=perf.data.2
snapshots.1.reason=interrupt
snapshots.1.time_ns=20080000000
snapshots.1.freeze_ms=1.0
snapshots.1.ms=2.0
end=interrupt
end_ns=20090000000'
	if ! got=$("$CONVERT" --dump=recording "$D" 2>"$TMP/dump.err"); then
		fail dump "exit $?: $(first_lines "$TMP/dump.err")"
		return
	elif [ "$got" != "$want" ]; then
		fail dump "printed: $(diff <(echo "$want") <(echo "$got") | tr '\n' '|')"
		return
	fi
	REC_THREADS='{"pid": 300, "tid": 300, "comm": "a\u001bb"}' record_json "$d" "" "$SNAPS"
	got=$("$CONVERT" --dump=recording "$d" 2>"$TMP/dump.err" | grep -E '^(hits|threads\.0\.comm)=')
	if [ "$got" != $'threads.0.comm=a\\x1bb\nhits=[]' ]; then
		fail dump "no hits, an escape in a name: $got $(first_lines "$TMP/dump.err")"
		return
	fi
	mkdir -p "$TMP/dump-empty"
	"$CONVERT" --dump=recording "$TMP/dump-empty" >"$TMP/dump.out" 2>"$TMP/dump.err"
	got="exit $? $(wc -l <"$TMP/dump.out") $(cat "$TMP/dump.err")"
	if [ "$got" != "exit 2 0 snaptrace-convert: $TMP/dump-empty: expected a recording directory of snaptrace-record (with record.json), found no record.json (see --help)" ]; then
		fail dump "no record.json: $got"
		return
	fi
	record_json "$d" "" "${SNAPS/trigger/shot}"
	"$CONVERT" --dump=recording "$d" >"$TMP/dump.out" 2>"$TMP/dump.err"
	got="exit $? $(wc -l <"$TMP/dump.out") $(cat "$TMP/dump.err")"
	if [ "$got" != "exit 1 0 snaptrace-convert: $d/record.json: snapshots[0].reason: expected trigger, interrupt, exit, duration, perf-died, signal or none, found \"shot\"" ]; then
		fail dump "a bad reason: $got"
	else
		ok dump
	fi
}

# same_time NAME HITS PROCESSES LEFT: HITS hits at one time (and the
# snapshot Ctrl-C took, at that time too) of PROCESSES processes in turn
# (300, 301, ...): Perfetto nests the instants of one time on one track in
# one another and drops those 512 deep; the converter writes 512 of that
# time in all, says it left out LEFT, and the trace reads back clean.
same_time() {
	local name=$1 d="$TMP/$1" hits n
	mkdir -p "$d"
	cp "$D"/perf.data.* "$d/"
	# one awk, not a subshell per hit (1,200 forks took 12 s of a loaded machine)
	hits=$(awk -v n="$2" -v procs="$3" 'BEGIN {
		for (k = 1; k <= n; k++)
			printf "%s\n    {\"pid\": %d, \"tid\": %d, \"time_ns\": 20060000000, \"snapshot\": %s}",
				(k > 1 ? "," : ""), 300 + k % procs, 300 + k % procs, (k == 1 ? "0" : "null")
	}')
	record_json "$d" "$hits" "${SNAPS/20080000000/20060000000}"
	if ! convert "$name" "$d"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/$name.err")"
		return
	fi
	n=$(grep -c 'ts=20060000000 .*name="\[\(trigger\|snapshot\)\]' "$TMP/$name.records")
	if ! "$CONVERT" --dump "$TMP/$name.fxt" >/dev/null 2>"$TMP/$name.dump.err"; then
		fail "$name" "the trace has problems: $(first_lines "$TMP/$name.dump.err")"
	elif [ "$n" -ne 512 ]; then
		fail "$name" "$n markers at 20.06 s, expected 512"
	elif ! grep -q "warning: $4 instants were left out: 512 or more of one time on one track" "$TMP/$name.err"; then
		fail "$name" "no warning of the $4 left out: $(first_lines "$TMP/$name.err")"
	else
		ok "$name"
	fi
}

t_markers
t_unnamed_marker
t_dump
t_many_fields
same_time same-time 600 1 89
# two processes in turn: a count per process and run once never passed 1,
# and both tracks went 512 deep
same_time same-time-two 1200 2 689
t_tsc_span
t_offcpu_end
t_offcpu_tail
t_exit_end
t_duration_end
t_exit_two
t_ring_start
t_carry_stack
t_window_events
t_summary
t_summary_no_samples
t_same_as_files
t_files
t_jit_map_beside
t_killed
t_names
t_unfinished
t_gap
t_errors
