#!/usr/bin/env bash
# Runs the test suite against the build in directory O (default build).
#   tests/run.sh [O] [SUITE...]
# SUITE is "unit" or the name of a tests/*/*.test.sh script without
# .test.sh (e.g. "cases"); none means all. Every test prints one line
# "ok NAME", "FAIL NAME: why" or "skip NAME: why"; a suite that exits
# non-zero without a FAIL line counts as one failure. Ends with the line
# "N passed, N failed" (", N skipped" when some were) and exits 1 on failure.
# Each suite runs with SNAPTRACE_TEST_RUN=TOKEN (its own) in its environment,
# which every process it starts inherits (perf, targets, converters): a
# process still carrying the token after the suite ended is a leftover of
# that suite, reported as a failure and killed. Processes of other users of
# the machine (another perf, another suite) are never looked at.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-build}
shift $(( $# > 0 ? 1 : 0 ))
case "$O" in /*) ;; *) O="$top/$O" ;; esac
export SNAPTRACE_TOP="$top" SNAPTRACE_O="$O" SNAPTRACE_BIN="$O/bin" SNAPTRACE_TEST_BIN="$O/test"
export PAGER=cat

want() {
	[ $# -eq 0 ] && return 0
	local s
	for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done
	return 1
}
selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=()

passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# survivors TOKEN: the pids of the processes whose environment holds
# SNAPTRACE_TEST_RUN=TOKEN.
survivors() {
	grep -lsxzF "SNAPTRACE_TEST_RUN=$1" /proc/[0-9]*/environ 2>/dev/null | sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}

# check_survivors NAME TOKEN: FAIL (and SIGKILL) what suite NAME left
# running, after a grace second for processes on their way out.
check_survivors() {
	local left i p
	for ((i = 0; i < 20; i++)); do
		left=$(survivors "$2")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "FAIL $1: processes left running:"
	for p in $left; do
		echo "    $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c 1-200)"
		kill -9 "$p" 2>/dev/null
	done
	return 1
}

# run NAME CMD...: runs one suite, tallies its ok/FAIL/skip lines.
run() {
	local name=$1 rc token="$$.$RANDOM.$1"
	shift
	SNAPTRACE_TEST_RUN=$token "$@" >"$log" 2>&1
	rc=$?
	check_survivors "$name" "$token" >>"$log" || rc=1
	local p f s
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^skip ' "$log")
	grep -E '^(FAIL|skip) ' "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc without a FAIL line; its output:"
		tail -n 20 "$log" | sed 's/^/    /'
		f=1
	elif [ "$f" -gt 0 ]; then
		grep -v -E '^(ok|FAIL|skip) ' "$log" | tail -n 40 | sed 's/^/    /'
	fi
	echo "$name: $p passed, $f failed, $s skipped"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

if [ ${#selected[@]} -eq 0 ] || want unit; then
	for t in "$O"/test/unit/test_*; do
		[ -x "$t" ] || continue
		run "unit/$(basename "$t")" "$t"
	done
fi
for s in "$top"/tests/*/*.test.sh; do
	[ -e "$s" ] || continue
	name=$(basename "$s" .test.sh)
	if [ ${#selected[@]} -eq 0 ] || want "$name"; then
		run "$name" bash "$s"
	fi
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
