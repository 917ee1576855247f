#!/usr/bin/env bash
# tier: check
# The unit programs, one after another: O/test/unit/test_NAME for every
# tests/unit/test_NAME.c (a program built from a source since gone is a
# stale build product, not a test), or the test_NAMEs given
# (tests/run.sh build unit/test_parse). Each prints its own lines
# (tests/unit/unit.h) and runs with a scratch directory of its own as
# TMPDIR; one that exits non-zero without a FAIL line is a FAIL under its
# name. One suite, not a runner job per program: a job costs the runner
# ~30 ms of CPU and its slot ~0.2 s (the leftover check's two looks), more
# than most of these programs take.
. "$(dirname "$0")/../lib.sh"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for src in "$SNAPTRACE_TOP"/tests/unit/test_*.c; do
		[ -e "$src" ] || continue
		src=${src##*/}
		names+=("${src%.c}")
	done
fi
for name in "${names[@]}"; do
	if [ ! -f "$SNAPTRACE_TOP/tests/unit/$name.c" ]; then
		fail "$name" "no unit program: no tests/unit/$name.c"
		continue
	fi
	prog=$SNAPTRACE_TEST_BIN/unit/$name
	need_built "$name" "$prog"
	mkdir "$TMP/$name"
	out=$(TMPDIR=$TMP/$name "$prog" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	if [ $rc -ne 0 ] && [[ $'\n'$out != *$'\nFAIL '* ]]; then
		fail "$name" "exited $rc without a FAIL line"
	fi
done
