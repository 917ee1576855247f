#!/usr/bin/env bash
# tests/run.sh itself: a suite that leaves a process behind fails (and the
# process is killed), while a process the suite did not start (another
# user's perf, here a stand-in) is neither reported nor touched; a suite
# starts with SIGINT, SIGTERM and SIGHUP at their default action even when
# the runner was started with them ignored.
. "$(dirname "$0")/../lib.sh"

FOREIGN=
cleanup() {
	[ -n "$FOREIGN" ] && kill -9 "$FOREIGN" 2>/dev/null
	wait 2>/dev/null
	scratch_done
}
trap cleanup EXIT

# A copy of the runner in a tree of its own with two suites.
mkdir -p "$TMP/top/tests/leaky" "$TMP/top/tests/tidy" "$TMP/top/tests/sigs" "$TMP/top/build/test"
ln -s "$SNAPTRACE_TEST_BIN/sigdfl" "$TMP/top/build/test/sigdfl"
cp "$SNAPTRACE_TOP/tests/run.sh" "$SNAPTRACE_TOP/tests/requirements.sh" "$TMP/top/tests/"
cat >"$TMP/top/tests/leaky/leaky.test.sh" <<'EOS'
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >"$LEAK_PID_FILE"
echo "ok leaky_suite"
EOS
cat >"$TMP/top/tests/tidy/tidy.test.sh" <<'EOS'
sleep 0.1 &
wait
echo "ok tidy_suite"
EOS

cat >"$TMP/top/tests/sigs/sigs.test.sh" <<'EOS'
ign=$(sed -n 's/^SigIgn:\t*//p' /proc/$$/status)
for s in INT TERM HUP; do
	if [ $((0x$ign >> ($(kill -l $s) - 1) & 1)) = 1 ]; then
		echo "FAIL sigs_$s: SIG$s is ignored in the suite"
	else
		echo "ok sigs_$s"
	fi
done
EOS

# the stand-in for a process someone else runs meanwhile
env -u SNAPTRACE_TEST_RUN sleep 300 </dev/null >/dev/null 2>&1 &
FOREIGN=$!

out=$(env -u SNAPTRACE_TEST_RUN LEAK_PID_FILE="$TMP/leak.pid" \
	bash "$TMP/top/tests/run.sh" "$TMP/top/build" leaky tidy 2>&1)
rc=$?
leak=$(cat "$TMP/leak.pid" 2>/dev/null)
# killed, it may take a moment to be reaped
for ((i = 0; i < 40; i++)); do
	[ -n "$leak" ] && [ -d "/proc/$leak" ] || break
	sleep 0.05
done
if [ $rc -eq 0 ]; then
	fail runner_finds_leftovers "the run passed although a suite left 'sleep 300': $out"
elif ! echo "$out" | grep -q "^FAIL leaky: processes left running:" ||
	! echo "$out" | grep -q "^ *$leak sleep 300"; then
	fail runner_finds_leftovers "no FAIL naming process $leak: $(echo "$out" | tr '\n' '|')"
elif echo "$out" | grep -q "FAIL tidy"; then
	fail runner_finds_leftovers "the tidy suite failed: $(echo "$out" | tr '\n' '|')"
elif [ -n "$leak" ] && [ -d "/proc/$leak" ]; then
	fail runner_finds_leftovers "the leftover $leak was not killed"
else
	ok runner_finds_leftovers
fi
if ! kill -0 "$FOREIGN" 2>/dev/null; then
	fail runner_ignores_others "the runner killed a process it did not start"
elif echo "$out" | grep -q "^ *$FOREIGN "; then
	fail runner_ignores_others "the runner reported a process it did not start"
else
	ok runner_ignores_others
fi

# started with SIGINT and SIGHUP ignored (as under nohup)
out=$(trap '' INT HUP; env -u SNAPTRACE_TEST_RUN bash "$TMP/top/tests/run.sh" "$TMP/top/build" sigs 2>&1)
if ! echo "$out" | grep -q '^sigs: 3 passed, 0 failed'; then
	fail runner_resets_signals "$(echo "$out" | tr '\n' '|')"
else
	ok runner_resets_signals
fi
