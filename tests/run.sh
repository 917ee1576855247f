#!/usr/bin/env bash
# Runs the test suite against the build in directory O (default build).
#   tests/run.sh [O] [SUITE[/NAME]...]
# SUITE is "unit" or the name of a tests/*/*.test.sh script without
# .test.sh (e.g. "cases"); none means all. SUITE/NAME runs one part of a
# suite: unit/test_parse (one unit test program), cases/jit-int or just
# jit-int (one golden case: the suite gets NAME as an argument). Every test prints one line
# "ok NAME", "FAIL NAME: why" or "skip NAME: requires REQ: why", REQ one of
# tests/requirements.sh (a skip line naming none is a FAIL; skips are
# counted per REQ); a suite that exits non-zero without a FAIL line counts
# as one failure. A failing suite's other
# output follows its FAIL lines (a golden case's diff, the command that reruns
# it). With KEEP=1 suites keep their scratch directories and say where
# ("kept DIR"). Ends with the line "N passed, N failed" (", N skipped" when
# some were) and exits 1 on failure, 2 when a SUITE does not exist.
# Every suite and unit program starts through $O/test/sigdfl
# (tests/runner/sigdfl.c): SIGINT, SIGQUIT, SIGTERM and SIGHUP at their
# default action however the runner was started (nohup, a background job).
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
sigdfl="$O/test/sigdfl"
if [ ! -x "$sigdfl" ]; then
	echo "tests/run.sh: $sigdfl is not built (make all tests-build)" >&2
	exit 2
fi

selected=()
for s in "$@"; do
	suite=${s%%/*}
	# a golden case may be named alone
	if [ "$s" = "$suite" ] && [ -f "$top/tests/cases/$s/input.txt" ] &&
		! compgen -G "$top/tests/*/$s.test.sh" >/dev/null; then
		s=cases/$s suite=cases
	fi
	selected+=("$s")
	if [ "$suite" != unit ] && ! compgen -G "$top/tests/*/$suite.test.sh" >/dev/null; then
		echo "tests/run.sh: no suite '$suite': expected unit, a golden case or one of:" \
			$(basename -s .test.sh "$top"/tests/*/*.test.sh) >&2
		exit 2
	fi
done

# want SUITE: true when SUITE is to run; sets parts to the NAMEs asked for
# (none: the whole suite).
want() {
	local s
	parts=()
	[ ${#selected[@]} -eq 0 ] && return 0
	local hit=1
	for s in "${selected[@]}"; do
		case "$s" in
		"$1") hit=0; parts=(); break ;;
		"$1"/*) hit=0; parts+=("${s#*/}") ;;
		esac
	done
	return $hit
}

. "$top/tests/requirements.sh"
declared=$(requirement_names | tr '\n' ' ')
reqlog=$(mktemp)

passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log" "$reqlog"' EXIT

# survivors TOKEN: the pids of the processes whose environment holds
# SNAPTRACE_TEST_RUN=TOKEN.
survivors() {
	grep -lsxzF "SNAPTRACE_TEST_RUN=$1" /proc/[0-9]*/environ 2>/dev/null | sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}

# check_survivors NAME TOKEN: FAIL (and SIGKILL) what suite NAME left
# running, after a grace second for processes on their way out. None is
# believed only when two looks 0.1 s apart find none: a process in the
# middle of an exec cannot have its environment read for a moment (grep
# skips it), which once let a leftover through.
check_survivors() {
	local left i p none=0
	for ((i = 0; i < 20; i++)); do
		left=$(survivors "$2")
		if [ -z "$left" ]; then
			none=$((none + 1))
			[ $none -ge 2 ] && return 0
		else
			none=0
		fi
		sleep 0.1
	done
	[ -z "$left" ] && return 0
	echo "FAIL $1: processes left running:"
	for p in $left; do
		echo "    $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c 1-200)"
		kill -9 "$p" 2>/dev/null
	done
	return 1
}

# run NAME CMD...: runs one suite, tallies its ok/FAIL/skip lines.
run() {
	local name=$1 rc token="$$.$RANDOM$RANDOM.$1"
	shift
	SNAPTRACE_TEST_RUN=$token "$sigdfl" "$@" >"$log" 2>&1
	rc=$?
	check_survivors "$name" "$token" >>"$log" || rc=1
	local p f s
	# a skip line must name a requirement: any other is a FAIL
	awk -v declared="$declared" -v reqlog="$reqlog" '
		BEGIN { n = split(declared, d, " "); for (i = 1; i <= n; i++) ok[d[i]] = 1 }
		/^skip / {
			if (match($0, /: requires [a-z0-9_]+: /) && ok[substr($0, RSTART + 11, RLENGTH - 13)]) {
				print substr($0, RSTART + 11, RLENGTH - 13) >>reqlog
			} else {
				sub(/^skip /, "FAIL ")
				$0 = $0 " (a skip that names no requirement of tests/requirements.sh)"
			}
		}
		{ print }' "$log" >"$log.req" && mv "$log.req" "$log"
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^skip ' "$log")
	grep -E '^(FAIL|skip|kept) ' "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc without a FAIL line; its output:"
		tail -n 20 "$log" | sed 's/^/    /'
		f=1
	elif [ "$f" -gt 0 ]; then
		grep -v -E '^(ok|FAIL|skip|kept) ' "$log" | sed 's/^/    /'
	fi
	echo "$name: $p passed, $f failed, $s skipped"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

if want unit; then
	for t in "$O"/test/unit/test_*; do
		[ -x "$t" ] || continue
		if [ ${#parts[@]} -gt 0 ] && ! printf '%s\n' "${parts[@]}" | grep -qx "$(basename "$t")"; then
			continue
		fi
		run "unit/$(basename "$t")" "$t"
	done
fi
for s in "$top"/tests/*/*.test.sh; do
	[ -e "$s" ] || continue
	name=$(basename "$s" .test.sh)
	if want "$name"; then
		run "$name" bash "$s" "${parts[@]}"
	fi
done

if [ "$skipped" -gt 0 ]; then
	echo "skipped: $(sort "$reqlog" | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')"
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
