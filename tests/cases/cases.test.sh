#!/usr/bin/env bash
# tier: check
# Golden cases: every tests/cases/NAME/ directory holds
#   input.txt      perf script text (branch or sampled call chains)
#   expected.txt   the slices a correct conversion shows, "TID DEPTH NAME"
#                  (format: docs/contributing.md "Golden cases"; compared by
#                  tests/lib.sh slices_match)
#   README         one line: what the case checks
#   args           optional: extra converter options, one line (word-split;
#                  paths are relative to the case directory)
#   expect-exit    optional: expected exit status (default 0)
#   expect-stderr  optional: a grep -E pattern stderr must match
#   expect-records optional: grep -E patterns, one a line, each of which must
#                  match a line of `snaptrace-convert --dump=records` (thread
#                  and process names, the inferred argument, counters);
#                  a line "! PATTERN": no line may match PATTERN
#   expect-summary optional: the same form, for the stderr of the conversion
#                  (then made without --quiet: the summary's facts and the
#                  warnings)
# Every case that converts: no duration complete record is written after a
# record of its thread of a later time (tests/lib.sh records_in_order: a
# parent written as one after its children; snaptrace stats streams them).
# For each case: convert, check status and stderr; on failure, check that no
# output (nor a temporary file) is left; on success, read the file back with
# `snaptrace-convert --dump=slices` (non-zero when the reader finds the file
# unbalanced or malformed) and compare with expected.txt. A failing case
# prints, after its FAIL line, the whole diff of expected.txt against what
# the converter wrote (when the slices differ) and the command that reruns
# just that case. A case that converts is also converted in the form perf
# script prints with snaptrace's dlfilter (tests/gen/text2bin: its branch
# lines as binary records), which must write the same FXT bytes. A case
# that holds expected-times.txt also has its times checked on that FXT,
# as follows. How to add a case: docs/contributing.md.
# Times: expected-times.txt holds lines
#   TID DEPTH BEGIN END NAME        a slice (BEGIN/END in ns, "*" = any)
#   TID DEPTH TIME - NAME           an instant (after that thread's slices)
# derived from docs/design.md "The line driver" and "Ordering in the file"
# (thread's first timestamp, segment start after a decode error, spreading of equal timestamps, gaps,
# period as time). The converter's output read back with
# `snaptrace-convert --dump=tree` must list, per thread and in order, the
# same slices and instants with times within TOL ns (a converter may stagger
# inferred begins by a few ns to order them; more is a different time).
# DEPTH "*" matches any depth, a NAME ending in "*" matches by prefix.
# Frames inferred below the bottom of the stack cannot all begin exactly at
# the segment's start: Perfetto would nest equal-time begins in file order,
# innermost first. The converter staggers them, the k-th k ns before the
# segment's first branch, or after a decode error at error + 512 - k, and
# then moves the segment's events earlier than error + 512 up to that time
# (each inferred frame needs a ns of its own; 512 is as deep as Perfetto
# nests); the files pin those times. A decode error
# without a time before the thread's first event lands inside the frames
# inferred before that event (depth 1 in lost-data-no-time).
# Usage: bash tests/cases/cases.test.sh [NAME...]   (normally via tests/run.sh)
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CASES_DIR="$SNAPTRACE_TOP/tests/cases"
TEXT2BIN="$SNAPTRACE_TEST_BIN/gen/text2bin"
TOL=8

need_built cases "$CONVERT"

# case_fail NAME WHY: the FAIL line of case NAME, then the command that runs
# it alone and keeps its files ($TMP/NAME.*).
case_fail() {
	local o=${SNAPTRACE_O#"$SNAPTRACE_TOP"/}
	fail "cases/$1" "$2"
	echo "  rerun: KEEP=1 tests/run.sh $o cases/$1   (or: make test T=cases/$1)"
}

# times_match TREE EXPECTED: prints the first difference and returns 1.
times_match() {
	awk -v tol=$TOL '
	function push(t, v) { if (!(t in cnt)) { cnt[t] = 0; order[++nt] = t }; cnt[t]++; val[t, cnt[t]] = v }
	function epush(t, v) { if (!(t in ecnt)) { ecnt[t] = 0; eorder[++ne] = t }; ecnt[t]++; ev[t, ecnt[t]] = v }
	function near(want, got) { return want == "*" || want == "-" || (got != "" && (got - want <= tol && want - got <= tol)) }
	function name_ok(want, got) {
		if (substr(want, length(want), 1) == "*")
			return substr(got, 1, length(want) - 1) == substr(want, 1, length(want) - 1)
		return want == got
	}
	FNR == NR {
		if ($0 == "") next
		n = $1 " " $2 " " $3 " " $4 " "
		epush($1, $2 SUBSEP $3 SUBSEP $4 SUBSEP substr($0, length(n) + 1))
		next
	}
	/^#/ { next }
	{
		tid = $1; depth = $2
		rest = substr($0, length($1) + length($2) + 3)
		sub(/^ +/, "", rest)
		if (match(rest, / \[[0-9]+, ([0-9]+\] dur=|did not end\])/)) {
			name = substr(rest, 1, RSTART - 1)
			times = substr(rest, RSTART)
			b = times; sub(/^ *\[/, "", b); sub(/,.*/, "", b)
			e = times; sub(/^[^,]*, /, "", e); sub(/\].*/, "", e)
			if (e == "did not end") e = "never"
		} else if (match(rest, / @[0-9]+ instant/)) {
			name = substr(rest, 1, RSTART - 1)
			b = substr(rest, RSTART + 2); sub(/ .*/, "", b)
			e = "-"
		} else {
			next
		}
		push(tid, depth SUBSEP b SUBSEP e SUBSEP name)
	}
	END {
		for (i = 1; i <= ne; i++) {
			t = eorder[i]
			for (j = 1; j <= ecnt[t] || j <= cnt[t]; j++) {
				if (j > ecnt[t]) { split(val[t, j], a, SUBSEP); print "thread " t ": extra " a[4]; exit 1 }
				split(ev[t, j], x, SUBSEP)
				if (j > cnt[t]) { print "thread " t ": missing " x[4]; exit 1 }
				split(val[t, j], a, SUBSEP)
				if ((x[1] != "*" && x[1] != a[1]) || !name_ok(x[4], a[4]) || !near(x[2], a[2]) ||
				    (x[3] != "-" && !near(x[3], a[3])) || (x[3] == "-") != (a[3] == "-")) {
					print "thread " t ": expected " x[1] " " x[4] " [" x[2] ", " x[3] "], found " \
						a[1] " " a[4] " [" a[2] ", " a[3] "]"
					exit 1
				}
			}
		}
	}' "$2" "$1"
}

# patterns_match PATTERNS FILE: each line of PATTERNS (grep -E) matches a
# line of FILE, and none of a line "! PATTERN" does; else prints the first
# that fails and returns 1.
patterns_match() {
	local pat
	while IFS= read -r pat; do
		[ -n "$pat" ] || continue
		if [ "${pat#! }" != "$pat" ]; then
			if grep -E -q -- "${pat#! }" "$2"; then
				echo "a line matches /${pat#! }/: $(grep -E -m1 -- "${pat#! }" "$2" | cut -c1-300)"
				return 1
			fi
		elif ! grep -E -q -- "$pat" "$2"; then
			echo "no line matches /$pat/"
			return 1
		fi
	done <"$1"
}

# run_case DIR: prints one ok/FAIL line for the case in DIR (run in DIR:
# paths in its args are relative to it).
run_case() {
	local dir=$1 name want_rc=0 rc pat out err actual args=() quiet=(--quiet) why
	name=${dir##*/}
	out="$TMP/$name.fxt"
	err="$TMP/$name.err"
	actual="$TMP/$name.slices"
	[ -f "$dir/expect-exit" ] && read -r want_rc <"$dir/expect-exit"
	# shellcheck disable=SC2207
	[ -f "$dir/args" ] && args=($(<"$dir/args"))
	cd "$dir" || { case_fail "$name" "cannot enter $dir"; return; }

	[ -f "$dir/expect-summary" ] && quiet=()
	"$CONVERT" "${quiet[@]}" "${args[@]}" input.txt -o "$out" >"$TMP/$name.stdout" 2>"$err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		case_fail "$name" "exit $rc, expected $want_rc; stderr: $(first_lines "$err")"
		return
	fi
	if [ -f "$dir/expect-stderr" ]; then
		pat=$(<"$dir/expect-stderr")
		if ! grep -E -q -- "$pat" "$err"; then
			case_fail "$name" "stderr does not match /$pat/: $(first_lines "$err")"
			return
		fi
	fi
	if [ -f "$dir/expect-summary" ] && ! why=$(patterns_match "$dir/expect-summary" "$err"); then
		case_fail "$name" "stderr: $why"
		return
	fi
	# the summary's facts (not warnings) one short line each: the coverage
	# line of stacks cut at no code was ~600 characters on most runs (issue
	# 24 item 7); the why belongs in docs/design.md
	if [ -f "$dir/expect-summary" ] &&
		why=$(grep -v -e '^[^:]*: warning: ' -e '^[^:]*: error: ' "$err" | awk 'length > 240' | head -n 1) &&
		[ -n "$why" ]; then
		case_fail "$name" "a summary line of ${#why} characters (at most 240): ${why:0:300}"
		return
	fi
	if [ "$want_rc" -ne 0 ]; then
		# A failed conversion never leaves a file under the final name, nor a temporary.
		if [ -e "$out" ] || compgen -G "$TMP/.snaptrace-*.tmp" >/dev/null; then
			case_fail "$name" "exit $rc but an output file was left: $(ls "$out"* 2>/dev/null | tr '\n' ' ')"
			return
		fi
		ok "cases/$name"
		return
	fi
	if [ ! -s "$out" ]; then
		case_fail "$name" "exit 0 but no output file $out"
		return
	fi
	if ! "$CONVERT" --dump=slices "$out" >"$actual" 2>"$err.dump"; then
		case_fail "$name" "reader rejects the output: $(first_lines "$err.dump")"
		return
	fi
	local diff
	if ! diff=$(slices_match "$actual" "$dir/expected.txt"); then
		case_fail "$name" "$(echo "$diff" | tr '\n' ' ')"
		# thread by thread, as slices_match compares them
		sort -s -k1,1n "$dir/expected.txt" >"$TMP/$name.expected"
		sort -s -k1,1n "$actual" >"$TMP/$name.actual"
		echo "  diff -u expected.txt actual, by thread ('*' in expected.txt matches any depth or name suffix):"
		diff -u --label expected.txt --label actual "$TMP/$name.expected" "$TMP/$name.actual" |
			sed 's/^/  /'
		return
	fi
	if ! "$CONVERT" --dump=records "$out" >"$TMP/$name.records" 2>"$err.dump"; then
		case_fail "$name" "--dump=records fails: $(first_lines "$err.dump")"
		return
	fi
	if ! diff=$(records_in_order "$TMP/$name.records"); then
		case_fail "$name" "a complete record written late (a reader cannot stream it): $diff"
		return
	fi
	if [ -f "$dir/expect-records" ] &&
		! why=$(patterns_match "$dir/expect-records" "$TMP/$name.records"); then
		case_fail "$name" "records: $why"
		return
	fi
	if [ -f "$dir/expected-times.txt" ]; then
		if ! "$CONVERT" --dump=tree "$out" >"$TMP/$name.tree" 2>"$err.dump"; then
			case_fail "$name" "--dump=tree fails: $(first_lines "$err.dump")"
			return
		fi
		if ! diff=$(times_match "$TMP/$name.tree" "$dir/expected-times.txt"); then
			case_fail "$name" "times differ from expected-times.txt: $diff"
			return
		fi
	fi
	if ! "$TEXT2BIN" <"$dir/input.txt" >"$TMP/$name.bin"; then
		case_fail "$name" "$TEXT2BIN failed"
		return
	fi
	if ! "$CONVERT" --quiet "${args[@]}" "$TMP/$name.bin" -o "$out.bin.fxt" 2>"$err.bin"; then
		case_fail "$name" "the dlfilter's form fails to convert: $(first_lines "$err.bin")"
		return
	fi
	if ! cmp -s "$out" "$out.bin.fxt"; then
		"$CONVERT" --dump=tree "$out" >"$TMP/$name.tree" 2>&1
		"$CONVERT" --dump=tree "$out.bin.fxt" >"$TMP/$name.bin.tree" 2>&1
		case_fail "$name" "the dlfilter's form converts to another trace (< text, > binary): \
$(diff "$TMP/$name.tree" "$TMP/$name.bin.tree" | head -6 | tr '\n' ' ')"
		return
	fi
	ok "cases/$name"
}

if [ $# -gt 0 ]; then
	for n in "$@"; do run_case "$CASES_DIR/$n"; done
else
	for d in "$CASES_DIR"/*/; do
		[ -f "$d/input.txt" ] || continue
		run_case "${d%/}"
	done
fi
