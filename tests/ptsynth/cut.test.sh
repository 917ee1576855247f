#!/usr/bin/env bash
# tier: check
# Cutting at edges (--filter START,STOP; --window BEFORE[,AFTER]) on
# synthesized Intel PT of tests/ptsynth/progs/phases.c, whose call structure
# is known: two threads, each calling phase_begin, work(3) and phase_end in
# phase(3), then the same with work(2), between calls of work outside.
# Checked against ptsynth-expect's listing of the truth: the slices kept
# (names, nesting, order, read back with --dump=slices, no problems), the
# frames open at an edge begun and ended exactly there, and the summary's
# exact counts of intervals kept and slices left out; usage errors exit 2.
. "$(dirname "$0")/../lib.sh"

. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"
CUT_AWK="$SNAPTRACE_TOP/tests/ptsynth/cut-expect.awk"

ptsynth_ready cut
if ! "$PTSYNTH" -q --cache "$PTSYNTH_RUNS" -o "$TMP/phases.data" --truth "$TMP/phases.truth" \
	-- "$PROGS/phases" \
	>/dev/null 2>"$TMP/gen.err"; then
	fail cut "ptsynth failed: $(first_lines "$TMP/gen.err")"
	exit 1
fi
"$EXPECT" "$TMP/phases.truth" >"$TMP/all.expected"

# slices NAME ARGS...: converts phases.data with ARGS into $TMP/NAME.fxt,
# its summary in NAME.err, its slices in NAME.slices and NAME.tree (the
# reader must find no problem); the text path (--no-dlfilter) must write the
# same bytes.
slices() {
	local name=$1
	shift
	if ! "$CONVERT" "$@" "$TMP/phases.data" -o "$TMP/$name.fxt" 2>"$TMP/$name.err"; then
		echo "snaptrace-convert $* failed: $(first_lines "$TMP/$name.err")"
		return 1
	fi
	if ! "$CONVERT" -q --no-dlfilter "$@" "$TMP/phases.data" -o "$TMP/$name.text.fxt" \
		2>/dev/null || ! cmp -s "$TMP/$name.fxt" "$TMP/$name.text.fxt"; then
		echo "the text path (--no-dlfilter) writes another trace"
		return 1
	fi
	# (a cut that keeps nothing is an empty trace, which --dump says)
	if ! "$CONVERT" --dump=slices "$TMP/$name.fxt" >"$TMP/$name.slices" 2>"$TMP/$name.derr" ||
		grep -qv "^snaptrace-convert: warning: $TMP/$name.fxt has no slices\$" "$TMP/$name.derr" ||
		! "$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.tree" 2>/dev/null; then
		echo "the FXT has problems: $(first_lines "$TMP/$name.derr")"
		return 1
	fi
}

# edges TREE START: in each kept interval of --dump=tree's TREE, the frames
# open at START's call (the lines before it that are neither START nor inside
# an interval's work) begin where START begins and all end at one time, no
# earlier than anything of their interval. Prints the first violation.
edges() {
	awk -v start="$2" '
	/^#/ { next }
	!match($0, /\[[0-9]+, [0-9]+\] dur=/) { next }
	{
		tid = $1; name = $3
		split(substr($0, RSTART + 1, RLENGTH - 7), t, ", ")
		b = t[1] + 0; e = t[2] + 0
	}
	$2 == 0 { n[tid] = 0; inner[tid] = 0 }
	name == start { inner[tid] = 1; sb = b
		for (i = 1; i <= n[tid]; i++) {
			if (ob[tid, i] != sb) { print tid ": " on[tid, i] " begins at " ob[tid, i] ", " start " at " sb; bad = 1; exit 1 }
			if (oe[tid, i] != oe[tid, 1]) { print tid ": " on[tid, i] " ends at " oe[tid, i] ", " on[tid, 1] " at " oe[tid, 1]; bad = 1; exit 1 }
		}
		if (n[tid] == 0) { print tid ": no frame open at " start; bad = 1; exit 1 }
	}
	!inner[tid] { n[tid]++; ob[tid, n[tid]] = b; oe[tid, n[tid]] = e; on[tid, n[tid]] = name; next }
	e > oe[tid, 1] { print tid ": " name " ends at " e ", after its interval (" oe[tid, 1] ")"; bad = 1; exit 1 }
	END { exit bad }' "$1"
}

t_uncut() {
	local why
	if ! why=$(slices all -q); then
		fail cut-uncut "$why"
	elif ! why=$(slices_match "$TMP/all.slices" "$TMP/all.expected"); then
		fail cut-uncut "without a cut the slices differ from the truth's: $why"
	else
		ok cut-uncut
	fi
}

# --filter phase_begin,phase_end: two intervals per thread.
t_filter() {
	local why want_kept want_dropped want_intervals line
	awk -v start=phase_begin -v stop=phase_end -v trim=main -v distinct="$TMP/distinct" \
		-f "$CUT_AWK" "$TMP/all.expected" >"$TMP/filter.expected"
	want_kept=$(wc -l <"$TMP/filter.expected")
	want_dropped=$(($(wc -l <"$TMP/all.expected") - $(cat "$TMP/distinct")))
	want_intervals=$(grep -c ' phase_begin$' "$TMP/all.expected")
	line="--filter phase_begin,phase_end: $want_intervals intervals kept, $want_dropped slices left out"
	if ! why=$(slices filter --filter phase_begin,phase_end); then
		fail cut-filter "$why"
	elif [ "$want_intervals" -ne 4 ] || [ "$want_kept" -ne 34 ]; then
		fail cut-filter "the truth is not phases.c's: $want_intervals intervals, $want_kept slices"
	elif ! why=$(slices_match "$TMP/filter.slices" "$TMP/filter.expected"); then
		fail cut-filter "kept slices differ from the truth's: $why"
	elif [ "$(wc -l <"$TMP/filter.slices")" -ne "$want_kept" ]; then
		fail cut-filter "expected $want_kept slices, found $(wc -l <"$TMP/filter.slices")"
	elif ! grep -q -F -- "$line" "$TMP/filter.err"; then
		fail cut-filter "expected the summary '$line': $(grep -e --filter "$TMP/filter.err")"
	elif ! why=$(edges "$TMP/filter.tree" phase_begin); then
		fail cut-filter "edge: $why"
	else
		ok cut-filter
	fi
}

# START never called: nothing kept, and the summary says why.
t_filter_never() {
	local why
	if ! why=$(slices never --filter no_such_function,phase_end); then
		fail cut-filter-never "$why"
	elif [ -s "$TMP/never.slices" ]; then
		fail cut-filter-never "slices kept: $(first_lines "$TMP/never.slices")"
	elif ! grep -q "no thread called no_such_function" "$TMP/never.err"; then
		fail cut-filter-never "no warning that START was never called: $(first_lines "$TMP/never.err")"
	else
		ok cut-filter-never
	fi
}

# Malformed values: exit 2, one line naming --filter; a comma inside a
# C++ parameter list is not the separator.
t_filter_usage() {
	local v rc bad=""
	for v in "" "a" "a," ",b" "a,b,c" ","; do
		"$CONVERT" --filter "$v" "$TMP/phases.data" -o "$TMP/u.fxt" 2>"$TMP/u.err"
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/u.err")" -ne 1 ] || ! grep -q -e "--filter" "$TMP/u.err"; then
			bad="$bad '$v' (exit $rc: $(first_lines "$TMP/u.err"))"
		fi
	done
	if [ -e "$TMP/u.fxt" ]; then
		fail cut-filter-usage "a refused --filter left an output"
	elif [ -n "$bad" ]; then
		fail cut-filter-usage "not a usage error:$bad"
	elif ! "$CONVERT" -q --filter "f(int, long),std::map<int, int>::find" \
		"$TMP/phases.data" -o "$TMP/u.fxt" 2>"$TMP/u.err"; then
		fail cut-filter-usage "C++ names refused: $(first_lines "$TMP/u.err")"
	else
		ok cut-filter-usage
	fi
}

# tree_slices TREE: --dump=tree's slices as "TID DEPTH BEGIN END NAME"
# (instants, such as the trigger markers, left out).
tree_slices() {
	awk 'match($0, /\[[0-9]+, [0-9]+\] dur=/) {
		split(substr($0, RSTART + 1, RLENGTH - 7), t, ", ")
		print $1, $2, t[1], t[2], $3
	}' "$1"
}

# window_expect LO,HI... < SLICES: what --window keeps of the uncut trace's
# SLICES (tree_slices): per thread and window, in order, each slice that
# overlaps the window (both ends included) with its times cut to it. The
# windows, given in any order, are taken in time order, and windows that
# overlap are one (README "Finding the moment"): the hits come from two
# threads, whose order ptsynth's traced run does not fix. The
# callers of main are left out (found only at its return, after the
# windows), depths counted from main. Prints the listing, then into the file
# $TMP/window.counts "INTERVALS DROPPED": the (thread, window) pairs that
# keep a slice and the uncut slices kept in no window.
window_expect() {
	awk -v windows="$1" -v counts="$TMP/window.counts" '
	{ n++; tid[n] = $1; d[n] = $2; b[n] = $3; e[n] = $4; name[n] = $5
	  if (!($1 in seen)) { seen[$1] = 1; order[++nt] = $1 }
	  if ($5 == "main") base[$1] = $2 }
	END {
		nw = split(windows, w, ",")
		for (k = 1; k < nw; k += 2) {	# insertion by LO, then overlaps merged
			lo = w[k] + 0; hi = w[k + 1] + 0
			for (j = m; j >= 1 && wlo[j] > lo; j--) { wlo[j + 1] = wlo[j]; whi[j + 1] = whi[j] }
			wlo[j + 1] = lo; whi[j + 1] = hi; m++
		}
		for (j = 1; j <= m; j++)
			if (nm && wlo[j] <= mhi[nm]) { if (whi[j] > mhi[nm]) mhi[nm] = whi[j] }
			else { nm++; mlo[nm] = wlo[j]; mhi[nm] = whi[j] }
		for (i = 1; i <= nt; i++) for (k = 1; k <= nm; k++) {
			lo = mlo[k]; hi = mhi[k]; any = 0
			for (j = 1; j <= n; j++) {
				if (tid[j] != order[i] || d[j] < base[tid[j]] + 0 || b[j] > hi || e[j] < lo) continue
				print tid[j], d[j] - base[tid[j]], (b[j] > lo ? b[j] : lo), (e[j] < hi ? e[j] : hi), name[j]
				kept[j] = 1; any = 1
			}
			intervals += any
		}
		for (j = 1; j <= n; j++) dropped += !(j in kept)
		print intervals, dropped > counts
	}'
}

# --window 300ns,200ns around two hits of a recording directory: in the
# main thread's first phase_begin and at the worker's second phase_end.
# MAIN_PID, WORKER_END: the main thread's pid, the time of the worker's
# second phase_end (tree_slices of the uncut trace in all.times)
main_pid() {
	sed -n 's/^# thread pid=\([0-9]*\) .*/\1/p' "$TMP/all.tree" | head -1
}
worker_end() {
	awk -v pid="$1" '$5 == "phase_end" && $1 != pid { if (++n == 2) { print $3; exit } }' \
		"$TMP/all.times"
}

# recording_of DIR PID TRIGGER HITS SNAPSHOT_REASON SNAPSHOT_TIME: a
# recording directory DIR of phases.data (one snapshot), with TRIGGER (a
# JSON object or null) and HITS (JSON array elements).
recording_of() {
	mkdir -p "$1"
	cp "$TMP/phases.data" "$1/perf.data.1"
	cat >"$1/record.json" <<EOF
{
  "format": "snaptrace-record 1",
  "pids": [$2],
  "threads": [],
  "trigger": $3,
  "hits": [$4
  ],
  "hits_total": 2, "hits_coalesced": 1, "hits_lost": 0,
  "snapshots": [{"file": "perf.data.1", "reason": "$5", "time_ns": $6}],
  "end": "exit"
}
EOF
}

t_window() {
	local why pid h1 h2 d="$TMP/rec" line intervals dropped
	pid=$(main_pid)
	tree_slices "$TMP/all.tree" >"$TMP/all.times"
	h1=$(awk '$5 == "phase_begin" { print $3 + 50; exit }' "$TMP/all.times")
	h2=$(worker_end "$pid")
	recording_of "$d" "$pid" '{"spec": "phase_begin", "mechanism": "uprobe", "file": "'"$PROGS"'/phases", "symbol": "phase_begin", "file_offset": 0}' "
    {\"pid\": $pid, \"tid\": $pid, \"time_ns\": $h1, \"snapshot\": null},
    {\"pid\": $pid, \"tid\": $pid, \"time_ns\": $h2, \"snapshot\": 0}" trigger "$h2"
	window_expect "$((h1 - 300)),$((h1 + 200)),$((h2 - 300)),$((h2 + 200))" <"$TMP/all.times" \
		>"$TMP/window.expected"
	read -r intervals dropped <"$TMP/window.counts"
	line="--window 300ns,200ns: $intervals intervals kept, $dropped slices left out"
	if ! "$CONVERT" --window 300ns,200ns "$d" -o "$TMP/window.fxt" 2>"$TMP/window.err" ||
		! "$CONVERT" --dump=tree "$TMP/window.fxt" >"$TMP/window.tree" 2>"$TMP/window.derr" ||
		[ -s "$TMP/window.derr" ]; then
		fail cut-window "conversion or read-back failed: $(first_lines "$TMP/window.err") $(first_lines "$TMP/window.derr")"
	elif [ "$intervals" -lt 2 ] || [ "$(wc -l <"$TMP/window.expected")" -lt 10 ]; then
		fail cut-window "the windows keep too little to test: $intervals intervals"
	elif ! why=$(diff "$TMP/window.expected" <(tree_slices "$TMP/window.tree")); then
		fail cut-window "kept slices differ from the uncut trace's cut at the windows (< expected, > found): $(echo "$why" | head -4 | tr '\n' ' ')"
	elif ! grep -q -F -- "$line" "$TMP/window.err"; then
		fail cut-window "expected the summary '$line': $(grep -e --window "$TMP/window.err")"
	elif ! grep -q '\[trigger\] phase_begin' "$TMP/window.tree"; then
		fail cut-window "the trigger markers are gone"
	else
		ok cut-window
	fi
}

# --window 300ns,200ns around a snapshot no hit took (Ctrl-C: its
# "[snapshot] interrupt" mark at the worker's second phase_end), in a
# recording without hits (issue 24: --window could anchor on hits only).
t_window_snapshot() {
	local pid at d="$TMP/rec-interrupt" why intervals dropped
	pid=$(main_pid)
	at=$(worker_end "$pid")
	recording_of "$d" "$pid" null "" interrupt "$at"
	window_expect "$((at - 300)),$((at + 200))" <"$TMP/all.times" >"$TMP/wsnap.expected"
	read -r intervals dropped <"$TMP/window.counts"
	if ! "$CONVERT" --window 300ns,200ns "$d" -o "$TMP/wsnap.fxt" 2>"$TMP/wsnap.err" ||
		! "$CONVERT" --dump=tree "$TMP/wsnap.fxt" >"$TMP/wsnap.tree" 2>"$TMP/wsnap.derr" ||
		[ -s "$TMP/wsnap.derr" ]; then
		fail cut-window-snapshot "conversion or read-back failed: $(first_lines "$TMP/wsnap.err") $(first_lines "$TMP/wsnap.derr")"
	elif [ "$intervals" -lt 1 ] || [ ! -s "$TMP/wsnap.expected" ]; then
		fail cut-window-snapshot "the window keeps nothing to test"
	elif ! why=$(diff "$TMP/wsnap.expected" <(tree_slices "$TMP/wsnap.tree")); then
		fail cut-window-snapshot "kept slices differ from the uncut trace's cut at the window (< expected, > found): $(echo "$why" | head -4 | tr '\n' ' ')"
	elif ! grep -q -F -- "--window 300ns,200ns: $intervals intervals kept, $dropped slices left out" "$TMP/wsnap.err" ||
		! grep -q '\[snapshot\] interrupt' "$TMP/wsnap.tree"; then
		fail cut-window-snapshot "the summary or the mark: $(grep -e --window "$TMP/wsnap.err")"
	else
		ok cut-window-snapshot
	fi
}

# --window without hits: a usage error naming what it needs; malformed
# values, and --window with --filter: exit 2, one line.
t_window_usage() {
	local v rc bad=""
	"$CONVERT" --window 10ms "$TMP/phases.data" -o "$TMP/w.fxt" 2>"$TMP/w.err"
	rc=$?
	if [ $rc -ne 2 ] || ! grep -q "needs a recording directory with trigger hits or snapshots" "$TMP/w.err"; then
		bad="$bad no hits (exit $rc: $(first_lines "$TMP/w.err"))"
	fi
	for v in "" "10" "10ms," ",1ms" "10ms,1ms,1ms" "0ms" "0ms,0ns" "-1ms" "1.5ns" "10 ms" "1e3ms"; do
		"$CONVERT" --window "$v" "$TMP/rec" -o "$TMP/w.fxt" 2>"$TMP/w.err"
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/w.err")" -ne 1 ] || ! grep -q -e "--window" "$TMP/w.err"; then
			bad="$bad '$v' (exit $rc: $(first_lines "$TMP/w.err"))"
		fi
	done
	"$CONVERT" --window 1ms --filter a,b "$TMP/rec" -o "$TMP/w.fxt" 2>"$TMP/w.err"
	rc=$?
	[ $rc -eq 2 ] || bad="$bad with --filter (exit $rc)"
	if [ -e "$TMP/w.fxt" ]; then
		fail cut-window-usage "a refused --window left an output"
	elif [ -n "$bad" ]; then
		fail cut-window-usage "not a usage error:$bad"
	else
		ok cut-window-usage
	fi
}

t_uncut
t_filter
t_filter_never
t_filter_usage
t_window
t_window_snapshot
t_window_usage
