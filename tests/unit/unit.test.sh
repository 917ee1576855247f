#!/usr/bin/env bash
# tier: check
# The unit programs, UNIT_JOBS (default the CPUs plus one) at a time:
# O/test/unit/test_NAME for every tests/unit/test_NAME.c (a program built
# from a source since gone is a stale build product, not a test), or the
# test_NAMEs given (tests/run.sh build unit/test_parse). Each prints its own
# lines and each test's time (tests/unit/unit.h), shown when it ends, and
# runs with a scratch directory of its own as TMPDIR; one that exits
# non-zero without a FAIL line is a FAIL under its name. Side by side, as a
# few mostly wait (the 5 s stop watch of test_spawn, a FIFO's reader): one
# after another, they held the check tier's slot 35 s for 6 s of CPU. One
# suite, not a runner job per program: a job costs the runner ~30 ms of CPU
# and its slot ~0.2 s (the leftover check's two looks), more than most of
# these programs take.
. "$(dirname "$0")/../lib.sh"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for src in "$SNAPTRACE_TOP"/tests/unit/test_*.c; do
		[ -e "$src" ] || continue
		src=${src##*/}
		names+=("${src%.c}")
	done
fi
# unit_program NAME: runs test_NAME's program, its lines on stdout
unit_program() {
	local name=$1 prog=$SNAPTRACE_TEST_BIN/unit/$1 out rc
	mkdir "$TMP/$name"
	out=$(TMPDIR=$TMP/$name "$prog" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	if [ $rc -ne 0 ] && [[ $'\n'$out != *$'\nFAIL '* ]]; then
		fail "$name" "exited $rc without a FAIL line"
	fi
}

jobs=${UNIT_JOBS:-$(($(nproc) + 1))}
for name in "${names[@]}"; do
	if [ ! -f "$SNAPTRACE_TOP/tests/unit/$name.c" ]; then
		fail "$name" "no unit program: no tests/unit/$name.c"
		continue
	fi
	need_built "$name" "$SNAPTRACE_TEST_BIN/unit/$name"
	in_background "$jobs" "$name" unit_program "$name"
done
wait
