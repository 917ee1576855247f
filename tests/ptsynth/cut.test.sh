#!/usr/bin/env bash
# Cutting at edges (--filter START,STOP; --window BEFORE[,AFTER]) on
# synthesized Intel PT of tests/ptsynth/progs/phases.c, whose call structure
# is known: two threads, each calling phase_begin, work(3) and phase_end in
# phase(3), then the same with work(2), between calls of work outside.
# Checked against ptsynth-expect's listing of the truth: the slices kept
# (names, nesting, order, read back with --dump=slices, no problems), the
# frames open at an edge begun and ended exactly there, and the summary's
# exact counts of intervals kept and slices left out; usage errors exit 2.
. "$(dirname "$0")/../lib.sh"

PTSYNTH="$SNAPTRACE_TEST_BIN/ptsynth"
EXPECT="$SNAPTRACE_TEST_BIN/ptsynth-expect"
PROGS="$SNAPTRACE_TEST_BIN/ptsynth-progs"
CUT_AWK="$SNAPTRACE_TOP/tests/ptsynth/cut-expect.awk"
PERF=${SNAPTRACE_PERF:-perf}

if [ -f "$SNAPTRACE_TEST_BIN/ptsynth.skip" ]; then
	skip cut "$(cat "$SNAPTRACE_TEST_BIN/ptsynth.skip")"
	exit 0
fi
need_convert cut
if ! command -v "$PERF" >/dev/null 2>&1; then
	skip cut "no perf to decode Intel PT"
	exit 0
fi
if ! "$PTSYNTH" -q -o "$TMP/phases.data" --truth "$TMP/phases.truth" -- "$PROGS/phases" \
	>/dev/null 2>"$TMP/gen.err"; then
	if grep -q -i 'permission\|not permitted' "$TMP/gen.err"; then
		skip cut "ptrace is not permitted here: $(head -1 "$TMP/gen.err")"
		exit 0
	fi
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
	if ! "$CONVERT" --dump=slices "$TMP/$name.fxt" >"$TMP/$name.slices" 2>"$TMP/$name.derr" ||
		[ -s "$TMP/$name.derr" ] ||
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
	{
		tid = $1; name = $3
		b = $0; sub(/^[^[]*\[/, "", b); e = b; sub(/,.*/, "", b)
		sub(/^[^,]*, /, "", e); sub(/\].*/, "", e)
		b += 0; e += 0
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

t_uncut
t_filter
t_filter_never
t_filter_usage
