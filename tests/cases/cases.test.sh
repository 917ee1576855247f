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
# lines as binary records), which must write the same FXT bytes. How to add
# a case: docs/contributing.md.
# Usage: bash tests/cases/cases.test.sh [NAME...]   (normally via tests/run.sh)
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CASES_DIR="$SNAPTRACE_TOP/tests/cases"
TEXT2BIN="$SNAPTRACE_TEST_BIN/gen/text2bin"

need_built cases "$CONVERT"

# case_fail NAME WHY: the FAIL line of case NAME, then the command that runs
# it alone and keeps its files ($TMP/NAME.*).
case_fail() {
	local o=${SNAPTRACE_O#"$SNAPTRACE_TOP"/}
	fail "cases/$1" "$2"
	echo "  rerun: KEEP=1 tests/run.sh $o cases/$1   (or: make test T=cases/$1)"
}

# run_case DIR: prints one ok/FAIL line for the case in DIR (run in DIR:
# paths in its args are relative to it).
run_case() {
	local dir=$1 name want_rc=0 rc pat out err actual args=()
	name=${dir##*/}
	out="$TMP/$name.fxt"
	err="$TMP/$name.err"
	actual="$TMP/$name.slices"
	[ -f "$dir/expect-exit" ] && read -r want_rc <"$dir/expect-exit"
	# shellcheck disable=SC2207
	[ -f "$dir/args" ] && args=($(<"$dir/args"))
	cd "$dir" || { case_fail "$name" "cannot enter $dir"; return; }

	"$CONVERT" --quiet "${args[@]}" input.txt -o "$out" >"$TMP/$name.stdout" 2>"$err"
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
	if [ -f "$dir/expect-records" ]; then
		while IFS= read -r pat; do
			[ -n "$pat" ] || continue
			if [ "${pat#! }" != "$pat" ]; then
				if grep -E -q -- "${pat#! }" "$TMP/$name.records"; then
					case_fail "$name" "a record matches /${pat#! }/: \
$(grep -E -m1 -- "${pat#! }" "$TMP/$name.records")"
					return
				fi
			elif ! grep -E -q -- "$pat" "$TMP/$name.records"; then
				case_fail "$name" "no record matches /$pat/"
				return
			fi
		done <"$dir/expect-records"
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
