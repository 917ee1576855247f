#!/usr/bin/env bash
# tier: check
# tests/run.sh itself, on fake suites in trees of their own (a copy of the
# runner, its requirements and lib.sh):
#   runner_finds_leftovers  a suite that leaves a process behind fails, and
#                     the process is killed;
#   runner_ignores_others   a process the suite did not start (another
#                     user's perf, here a stand-in) is neither reported nor
#                     touched;
#   runner_resets_signals   a suite starts with SIGINT, SIGTERM and SIGHUP at
#                     their default action even when the runner was started
#                     with them ignored, leading a session of its own;
#   runner_tiers      no names: the check and record tiers; --tiers picks;
#                     a suite named runs whatever its tier; check suites run
#                     side by side, record suites side by side (-J 1: one),
#                     the two tiers side by side, check suites then at nice
#                     10;
#   runner_hang_guard a suite silent for SNAPTRACE_TEST_HANG seconds is
#                     killed (with what it started) and fails naming the
#                     test it last finished and its time; a slow suite that
#                     keeps printing is not;
#   runner_skips      a skip naming no declared requirement is a FAIL; the
#                     skips are counted per requirement; a suite of the
#                     check tier that requires recording with perf fails;
#   runner_failed_list  a run with failures names every failed test in
#                     one line right above the count ("failed: SUITE/NAME",
#                     a suite that failed as a whole by its name, " #R" for
#                     the Rth run of -r); a run without, no such line;
#   runner_failure_log  a run keeps O/test-failures.log: each failing
#                     suite's rerun command, its FAIL lines with 15 lines
#                     of its output either side (not further), the last
#                     lines of a suite that failed without a FAIL line, no
#                     passing suite; the summary names it above the
#                     "failed:" line; a symlink at its name is replaced,
#                     never followed; a run without failures removes it
#                     and names it not; a log written while a run ran (by
#                     a run beside it on the same O) is kept, the run's
#                     failures after it;
#   runner_timings    each suite's wall and CPU seconds (what its children
#                     took counted), a test's time from the previous result
#                     line or as the suite gives it ("time NAME SECONDS"),
#                     the slowest first, a line per tier;
#   runner_private_tmp  a record-tier suite's /tmp is its own: what it
#                     leaves there (perf's /tmp/perf-vdso.so-*) never
#                     reaches the machine's /tmp; also with the tree and O
#                     under the machine's /tmp (they stay seen).
# The tests run side by side, each with a tree and an output file of its
# own: most of their time is waiting (a hang guard, suites that sleep), and
# a suite that waits holds one of the check tier's places meanwhile.
. "$(dirname "$0")/../lib.sh"

# A test's own: its runner's output, what it leaves to kill or remove.
OUT= FOREIGN= OUTSIDE= UNDER=
cleanup() {
	[ -n "$FOREIGN" ] && kill -9 "$FOREIGN" 2>/dev/null
	wait 2>/dev/null
	[ -n "$OUTSIDE" ] && rm -rf "$OUTSIDE"
	[ -n "$UNDER" ] && rm -rf "$UNDER"
}

# tree DIR: a copy of the runner in DIR, its build directory DIR/build.
tree() {
	mkdir -p "$1/tests" "$1/build/test"
	cp "$SNAPTRACE_TOP/tests/run.sh" "$SNAPTRACE_TOP/tests/requirements.sh" \
		"$SNAPTRACE_TOP/tests/lib.sh" "$1/tests/"
	cp "$SNAPTRACE_TEST_BIN/sigdfl" "$1/build/test/sigdfl"	# a copy: a link into a checkout under /tmp dangles in a private /tmp
}

# suite DIR NAME TIER: a suite NAME of tier TIER (none: no tier line) in the
# tree DIR, its body read from stdin.
suite() {
	mkdir -p "$1/tests/$2"
	{
		echo '#!/usr/bin/env bash'
		[ -n "${3:-}" ] && echo "# tier: $3"
		cat
	} >"$1/tests/$2/$2.test.sh"
}

# run_tree DIR ARGS...: runs DIR's runner on DIR/build (ARGS before it are
# options, after it suites), output in $OUT, status in RC.
run_tree() {
	local dir=$1
	shift
	env -u SNAPTRACE_TEST_RUN -u SNAPTRACE_TOP -u SNAPTRACE_O -u SNAPTRACE_BIN \
		-u SNAPTRACE_TEST_BIN bash "$dir/tests/run.sh" "$@" >"$OUT" 2>&1
	RC=$?
}

# out: the last run's output on one line, for a FAIL message.
out() {
	tr '\n' '|' <"$OUT" | cut -c 1-600
}

t_leftovers() {
	local t="$TMP/left" leak i
	tree "$t"
	suite "$t" leaky <<'EOS'
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >"$LEAK_PID_FILE"
echo "ok leaky_suite"
EOS
	suite "$t" tidy <<'EOS'
sleep 0.1 &
wait
echo "ok tidy_suite"
EOS
	# the stand-in for a process someone else runs meanwhile
	env -u SNAPTRACE_TEST_RUN sleep 300 </dev/null >/dev/null 2>&1 &
	FOREIGN=$!
	disown "$FOREIGN"	# killed at the end without a word from bash
	LEAK_PID_FILE="$TMP/leak.pid" run_tree "$t" "$t/build" leaky tidy
	leak=$(cat "$TMP/leak.pid" 2>/dev/null)
	# killed, it may take a moment to be reaped
	for ((i = 0; i < 40; i++)); do
		[ -n "$leak" ] && [ -d "/proc/$leak" ] || break
		sleep 0.05
	done
	if [ $RC -eq 0 ]; then
		fail runner_finds_leftovers "the run passed although a suite left 'sleep 300': $(out)"
	elif ! grep -q "^FAIL leaky: processes left running:" "$OUT" ||
		! grep -q "^ *$leak sleep 300" "$OUT"; then
		fail runner_finds_leftovers "no FAIL naming process $leak: $(out)"
	elif grep -q "FAIL tidy" "$OUT"; then
		fail runner_finds_leftovers "the tidy suite failed: $(out)"
	elif [ -n "$leak" ] && [ -d "/proc/$leak" ]; then
		fail runner_finds_leftovers "the leftover $leak was not killed"
	else
		ok runner_finds_leftovers
	fi
	if ! kill -0 "$FOREIGN" 2>/dev/null; then
		fail runner_ignores_others "the runner killed a process it did not start"
	elif grep -q "^ *$FOREIGN " "$OUT"; then
		fail runner_ignores_others "the runner reported a process it did not start"
	else
		ok runner_ignores_others
	fi
}

t_signals() {
	local t="$TMP/sigs"
	tree "$t"
	suite "$t" sigs <<'EOS'
ign=$(sed -n 's/^SigIgn:\t*//p' /proc/$$/status)
for s in INT TERM HUP; do
	if [ $((0x$ign >> ($(kill -l $s) - 1) & 1)) = 1 ]; then
		echo "FAIL sigs_$s: SIG$s is ignored in the suite"
	else
		echo "ok sigs_$s"
	fi
done
# in a session of its own, which it leads (sigdfl -s)
read -r st </proc/$$/stat
set -- ${st##*) }
[ "$4" = $$ ] && [ "$3" = $$ ] && echo "ok sigs_session" || echo "FAIL sigs_session: session $4, group $3, pid $$"
EOS
	# started with SIGINT and SIGHUP ignored (as under nohup)
	(trap '' INT HUP; run_tree "$t" "$t/build" sigs; echo $RC >"$TMP/sigs.rc")
	if ! grep -q '^sigs: 4 passed, 0 failed' "$OUT"; then
		fail runner_resets_signals "$(out)"
	else
		ok runner_resets_signals
	fi
}

# Tiers: three check suites that must see each other run (-j 3), two record
# suites that must see each other (-J 1: each alone) and, in a run of both
# tiers, the check suites beside them at nice 10 (each check suite leaves
# its niceness in the tree's nice.NAME, where a record suite's private /tmp
# shows it too; record suites run at the runner's), a stress and a
# pt-hardware suite, each alone.
t_tiers() {
	local t="$TMP/tiers" why="" n tier
	tree "$t"
	mkdir -p "$t/running"
	mkfifo "$t/nothing"
	# Each suite looks at the others every 0.05 s while it waits for them
	# (a loaded machine starts them seconds apart): with bash alone, a
	# glob and a read -t on a FIFO nothing writes, no process a look.
	for n in c1:check c2:check n1:; do
		tier=${n#*:} n=${n%%:*}
		suite "$t" "$n" "$tier" <<EOS
: >"$t/running/c-$n"
nice >"$t/nice.$n"
exec {z}<>"$t/nothing"
for ((i = 0; i < 400; i++)); do
	all=("$t"/running/*) c=("$t"/running/c-*)
	seen="\${all[*]##*/} "
	[[ -n "\${RUNNER_TIERS_BOTH:-}" && "\$seen" == *r-r* ]] && : >"$t/saw-r.$n"
	[ \${#c[@]} -ge 3 ] && { [ -z "\${RUNNER_TIERS_BOTH:-}" ] || [ -e "$t/saw-r.$n" ]; } && break
	read -r -t 0.05 -u \$z _
done
[ \${#c[@]} -ge 3 ] && echo "ok $n" || echo "FAIL $n: ran beside \$seen"
[ -z "\${RUNNER_TIERS_BOTH:-}" ] || [ -e "$t/saw-r.$n" ] || echo "FAIL ${n}_beside: no record suite beside: \$seen"
sleep 1
rm -f "$t/running/c-$n"
EOS
	done
	for n in r1 r2; do
		suite "$t" "$n" record <<EOS
: >"$t/running/r-$n"
want=2 expect="r-r1 r-r2 "
[ -n "\${RUNNER_TIERS_ALONE:-}" ] && want=1 expect="r-$n "
exec {z}<>"$t/nothing"
for ((i = 0; i < 400; i++)); do
	r=("$t"/running/r-*)
	[ \${#r[@]} -ge \$want ] && break
	read -r -t 0.05 -u \$z _
done
r=("$t"/running/r-*)
seen="\${r[*]##*/} "
[ "\$seen" = "\$expect" ] && [ "\$(nice)" = "$(nice)" ] && echo "ok $n" ||
	echo "FAIL $n: ran beside \$seen at nice \$(nice), the runner's $(nice)"
# in a run of both tiers, until each check suite saw a record suite beside
# it (niced check suites start seconds late on a loaded machine)
for ((i = 0; i < 400 && \${#RUNNER_TIERS_BOTH}; i++)); do
	s=("$t"/saw-r.*)
	[ \${#s[@]} -ge 3 ] && [ -e "\${s[0]}" ] && break
	read -r -t 0.05 -u \$z _
done
sleep 0.5
rm -f "$t/running/r-$n"
EOS
	done
	suite "$t" s1 stress <<<'echo "ok s1"'
	suite "$t" p1 pt-hardware <<<'echo "ok p1"'
	# suites that ran, in name order
	ran() { sed -n 's/^\([a-z0-9]*\): [0-9]* passed.*/\1/p' "$OUT" | sort | tr '\n' ' '; }
	RUNNER_TIERS_BOTH=1 run_tree "$t" -j 3 "$t/build"
	[ $RC = 0 ] && [ "$(ran)" = "c1 c2 n1 r1 r2 " ] || why="no names: ran $(ran) (exit $RC): $(out)"
	# nice: the runner's own niceness (this suite may itself run niced)
	local n0 n10
	n0=$(nice) n10=$(($(nice) + 10 > 19 ? 19 : $(nice) + 10))
	[ -n "$why" ] || [ "$(cat "$t/nice.c1" "$t/nice.c2" "$t/nice.n1" | tr '\n' ' ')" = "$n10 $n10 $n10 " ] ||
		why="no names: check suites at nice $(cat "$t/nice."* | tr '\n' ' '), expected $n10 (the runner's $n0 + 10)"
	if [ -z "$why" ]; then
		RUNNER_TIERS_ALONE=1 run_tree "$t" -J 1 --tiers record "$t/build"
		[ $RC = 0 ] && [ "$(ran)" = "r1 r2 " ] || why="-J 1: ran $(ran) (exit $RC): $(out)"
	fi
	if [ -z "$why" ]; then
		run_tree "$t" -j 3 --tiers check "$t/build"
		[ $RC = 0 ] && [ "$(ran)" = "c1 c2 n1 " ] || why="--tiers check: ran $(ran): $(out)"
		[ -n "$why" ] || [ "$(cat "$t/nice.c1")" = "$n0" ] ||
			why="--tiers check: at nice $(cat "$t/nice.c1"), expected the runner's $n0 (no record suite in the run)"
	fi
	if [ -z "$why" ]; then
		run_tree "$t" --tiers stress,pt-hardware "$t/build"
		[ $RC = 0 ] && [ "$(ran)" = "p1 s1 " ] || why="--tiers stress,pt-hardware: ran $(ran): $(out)"
	fi
	if [ -z "$why" ]; then
		run_tree "$t" --tiers check "$t/build" p1
		[ $RC = 0 ] && [ "$(ran)" = "p1 " ] || why="p1 named: ran $(ran): $(out)"
	fi
	if [ -z "$why" ]; then
		run_tree "$t" --tiers nonsense "$t/build"
		[ $RC = 2 ] || why="--tiers nonsense: exit $RC, expected 2"
	fi
	if [ -z "$why" ]; then
		suite "$t" bad wrong <<<'echo "ok bad"'
		run_tree "$t" "$t/build"
		[ $RC = 2 ] && grep -q "tier: wrong" "$OUT" || why="a suite of tier 'wrong': exit $RC: $(out)"
	fi
	if [ -n "$why" ]; then
		fail runner_tiers "$why"
	else
		ok runner_tiers
	fi
}

t_hang() {
	local t="$TMP/hang" pid start took i why=""
	tree "$t"
	suite "$t" hangs <<EOS
echo "ok before_hang"
sleep 300 &
echo \$! >"$TMP/hang.pid"
wait
echo "ok never"
EOS
	suite "$t" talks <<'EOS'
for i in 1 2 3 4 5 6; do echo "note $i"; sleep 0.5; done
echo "ok slow_but_talking"
EOS
	start=$SECONDS
	SNAPTRACE_TEST_HANG=2 run_tree "$t" "$t/build" hangs
	took=$((SECONDS - start))
	pid=$(cat "$TMP/hang.pid" 2>/dev/null)
	# killed, it may take a moment to be reaped
	for ((i = 0; i < 40; i++)); do
		[ -n "$pid" ] && [ -d "/proc/$pid" ] || break
		sleep 0.05
	done
	if [ $RC -ne 1 ] || ! grep -q "^FAIL hangs: hung: no output for [0-9]* s after 'ok before_hang' (killed after [0-9.]* s; SNAPTRACE_TEST_HANG=2)" "$OUT"; then
		why="exit $RC, expected 1 with the hang's FAIL line: $(out)"
	elif [ $took -ge 60 ]; then
		why="the runner took $took s to give up on a suite silent for 2 s"
	elif [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
		why="the hung suite's sleep ($pid) still runs"
	elif grep -q "ok never" "$OUT"; then
		why="the suite went on"
	else
		SNAPTRACE_TEST_HANG=2 run_tree "$t" "$t/build" talks
		grep -q '^talks: 1 passed, 0 failed' "$OUT" ||
			why="a suite printing every 0.5 s for 3 s was not let be: $(out)"
	fi
	if [ -n "$why" ]; then
		fail runner_hang_guard "$why"
	else
		ok runner_hang_guard
	fi
}

t_skips() {
	local t="$TMP/skips" why=""
	tree "$t"
	suite "$t" sk <<'EOS'
echo "skip no_req: cannot be bothered"
echo "skip bad_req: requires no_such_thing: x"
echo "skip fzf_1: requires fzf: no fzf"
echo "skip fzf_2: requires fzf: no fzf"
echo "skip root_1: requires root: not root"
echo "ok fine"
EOS
	# requires (lib.sh) on two requirements of this tree's own
	printf '%s\n' 'req_always() { :; }' 'req_never() { echo "never here"; return 1; }' \
		>>"$t/tests/requirements.sh"
	suite "$t" req <<'EOS'
. "$(dirname "$0")/../lib.sh"
requires has always && echo "ok has"
requires lacks always never || :
requires unknown made_up || :
EOS
	# a recording requirement in a suite of the check tier: a FAIL, the same
	# suite in the record tier asks the host (here: req_recording replaced)
	printf '%s\n' 'req_recording() { echo "no recording in this tree"; return 1; }' \
		>>"$t/tests/requirements.sh"
	suite "$t" recchk <<'EOS'
. "$(dirname "$0")/../lib.sh"
requires records recording || :
EOS
	suite "$t" recrec record <<'EOS'
. "$(dirname "$0")/../lib.sh"
requires records recording || :
EOS
	run_tree "$t" "$t/build" sk
	if [ $RC -ne 1 ] || ! grep -q '^FAIL no_req: cannot be bothered (a skip that names no requirement' "$OUT" ||
		! grep -q '^FAIL bad_req: requires no_such_thing: x (a skip that names no requirement' "$OUT"; then
		why="undeclared skips: exit $RC, expected 1 and two FAIL lines: $(out)"
	elif ! grep -q '^sk: 1 passed, 2 failed, 3 skipped' "$OUT" ||
		! grep -q '^skipped for lack of: fzf 2, root 1$' "$OUT"; then
		why="expected 'sk: 1 passed, 2 failed, 3 skipped' and 'skipped for lack of: fzf 2, root 1': $(out)"
	else
		run_tree "$t" "$t/build" req
		if ! grep -q '^skip lacks: requires never: never here$' "$OUT" ||
			! grep -q "^FAIL unknown: requires 'made_up', which tests/requirements.sh does not define" "$OUT" ||
			! grep -q '^req: 1 passed, 1 failed, 1 skipped' "$OUT"; then
			why="requires: expected 'has' ok, 'lacks' skipped for never and the unknown requirement a FAIL: $(out)"
		else
			run_tree "$t" "$t/build" recchk recrec
			if ! grep -q "^FAIL records: requires recording (it records with perf) in a suite of the check tier" "$OUT" ||
				! grep -q '^skip records: requires recording: no recording in this tree$' "$OUT"; then
				why="a recording requirement: expected a FAIL in the check tier and a skip in the record tier: $(out)"
			fi
		fi
	fi
	if [ -n "$why" ]; then
		fail runner_skips "$why"
	else
		ok runner_skips
	fi
}

# failed_line: the sorted names of the "failed:" line, the line above the
# last of $OUT (empty without one).
failed_line() {
	tail -n 2 "$OUT" | head -n 1 | sed -n 's/^failed: //p' | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' '
}

t_failed_list() {
	local t="$TMP/failed" why="" got
	tree "$t"
	suite "$t" fa <<'EOS'
echo "FAIL one: wrong"
echo "ok fine"
echo "FAIL two: wrong too"
EOS
	suite "$t" fb <<'EOS'
echo "ok before"
exit 3
EOS
	suite "$t" fc <<'EOS'
echo "ok good"
EOS
	run_tree "$t" "$t/build" fa fb fc
	got=$(failed_line)
	if [ $RC -ne 1 ] || [ "$got" != "fa/one fa/two fb " ] || [ "$(tail -n 1 "$OUT")" != "3 passed, 3 failed" ]; then
		why="expected 'failed: fa/one fa/two fb' (any order) above '3 passed, 3 failed': $(out)"
	else
		run_tree "$t" -r 2 "$t/build" fa
		got=$(tail -n 2 "$OUT" | head -n 1)
		if [ "$(wc -w <<<"$got")" != 9 ] || [[ $got != "failed: "* ]] || [[ $got != *"fa/one #1"* ]] ||
			[[ $got != *"fa/two #1"* ]] || [[ $got != *"fa/one #2"* ]] || [[ $got != *"fa/two #2"* ]]; then
			why="-r 2: expected 'failed: fa/one #1 fa/two #1 fa/one #2 fa/two #2' (any order): $(out)"
		else
			run_tree "$t" "$t/build" fc
			grep -q '^failed:' "$OUT" && why="a run without failures has a 'failed:' line: $(out)"
		fi
	fi
	if [ -n "$why" ]; then
		fail runner_failed_list "$why"
	else
		ok runner_failed_list
	fi
}

t_failure_log() {
	local t="$TMP/faillog" why="" log
	tree "$t"
	log="$t/build/test-failures.log"
	# lines 1-30 ok, 31 a note, 32 a FAIL, 33 its detail, 34-63 ok, 64 a FAIL
	suite "$t" fa <<'EOS'
for i in $(seq 1 30); do echo "ok t$i"; done
echo "note before"
echo "FAIL mid: wrong"
echo "detail of mid"
for i in $(seq 31 60); do echo "ok t$i"; done
echo "FAIL end: wrong too"
EOS
	suite "$t" fb <<'EOS'
echo "ok before"
echo "last words"
exit 3
EOS
	suite "$t" fc <<<'echo "ok good"'
	echo "decoy" >"$TMP/faillog-decoy"
	ln -s "$TMP/faillog-decoy" "$log"
	run_tree "$t" "$t/build" fa fb fc
	if [ $RC -ne 1 ] || [ "$(tail -n 3 "$OUT" | head -n 1)" != "failures, with their suites' output around them: $log" ]; then
		why="expected the log named above the 'failed:' line: $(out)"
	elif [ -L "$log" ] || [ "$(cat "$TMP/faillog-decoy")" != decoy ]; then
		why="the symlink at the log's name was followed or kept"
	elif ! grep -qxF "rerun: $t/tests/run.sh $t/build fa" "$log" ||
		! grep -qxF "rerun: $t/tests/run.sh $t/build fb" "$log"; then
		why="no rerun command for fa and fb: $(tr '\n' '|' <"$log" | cut -c 1-600)"
	elif ! grep -q '^> *[0-9.]*  FAIL mid: wrong$' "$log" || ! grep -q '^> *[0-9.]*  FAIL end: wrong too$' "$log" ||
		! grep -q 'note before$' "$log" || ! grep -q 'detail of mid$' "$log" ||
		! grep -q ' ok t17$' "$log" || ! grep -q ' ok t44$' "$log" || ! grep -q ' ok t46$' "$log"; then
		why="fa's FAIL lines and the 15 lines either side are not all there: $(tr '\n' '|' <"$log" | cut -c 1-900)"
	elif grep -q ' ok t16$' "$log" || grep -q ' ok t45$' "$log"; then
		why="lines further than 15 from a FAIL are in the log: $(tr '\n' '|' <"$log" | cut -c 1-900)"
	elif ! grep -q '^FAIL fb: exited 3 without a FAIL line' "$log" || ! grep -q 'last words$' "$log"; then
		why="fb, which failed without a FAIL line, is not in the log with its output"
	elif grep -q '^== fc\|ok good' "$log"; then
		why="the passing suite fc is in the log"
	else
		run_tree "$t" "$t/build" fc
		if [ $RC -ne 0 ] || [ -e "$log" ] || grep -q 'test-failures.log' "$OUT"; then
			why="a run without failures: exit $RC, the log $(ls -l "$log" 2>&1) (expected removed, not named): $(out)"
		fi
	fi
	# another run's log written while this one runs (here by its suite)
	suite "$t" fd <<'EOS'
sleep 0.1
echo "another run's failures" >"$SNAPTRACE_O/test-failures.log"
echo "ok good"
EOS
	if [ -z "$why" ]; then
		run_tree "$t" "$t/build" fd
		[ $RC -eq 0 ] && [ "$(cat "$log" 2>&1)" = "another run's failures" ] ||
			why="a run without failures removed the log another run wrote meanwhile: $(out)"
	fi
	if [ -z "$why" ]; then
		run_tree "$t" "$t/build" fd fb
		[ $RC -eq 1 ] && [ "$(head -n 1 "$log")" = "another run's failures" ] && grep -qxF "rerun: $t/tests/run.sh $t/build fb" "$log" ||
			why="a failing run beside another: expected its failures after the other's: $(tr '\n' '|' <"$log" | cut -c 1-600)"
	fi
	if [ -n "$why" ]; then
		fail runner_failure_log "$why"
	else
		ok runner_failure_log
	fi
}

t_timings() {
	local t="$TMP/timings" why="" first second
	tree "$t"
	suite "$t" tm <<'EOS'
echo "ok quick"
awk 'BEGIN { for (i = 0; i < 20000000; i++) s += i }'
sleep 1.2
echo "ok slept"
echo "time given 900.5"
echo "ok given"
EOS
	run_tree "$t" "$t/build" tm
	first=$(sed -n '/^slowest tests:/{n;p}' "$OUT")
	second=$(sed -n '/^slowest tests:/{n;n;p}' "$OUT")
	if [ $RC -ne 0 ] || ! grep -q '^tm: 3 passed, 0 failed, 0 skipped ([1-9][0-9]*\.[0-9] s, CPU [0-9]*\.[0-9] s)$' "$OUT"; then
		why="no 'tm: 3 passed, 0 failed, 0 skipped (N.N s, CPU N.N s)' of at least a second: $(out)"
	elif grep -q '^tm: .*, CPU 0\.0 s)$' "$OUT"; then
		why="the CPU time of the suite's awk is not counted: $(out)"
	elif ! [[ $first =~ ^\ +900\.5\ s\ \ tm\ \ given$ ]]; then
		why="the slowest should be the time given, 900.5 s: '$first'"
	elif ! [[ $second =~ ^\ +([0-9]+)\.[0-9]\ s\ \ tm\ \ slept$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ]; then
		why="the second slowest should be 'slept', over a second: '$second'"
	elif ! grep -q '^tier check: 1 suites, 3 passed, 0 failed, 0 skipped ([0-9.]* s)$' "$OUT"; then
		why="no line for the check tier: $(out)"
	fi
	if [ -n "$why" ]; then
		fail runner_timings "$why"
	else
		ok runner_timings
	fi
}

# A suite of the record tier writes where perf writes its vdso (perf's
# vdso.c: /tmp/perf-vdso.so-XXXXXX, whatever TMPDIR says) and is killed
# before it removes it: in a tree outside /tmp, and in one under the
# machine's /tmp (a CI clone made by mktemp -d), with O elsewhere under it
# too (the private /tmp shows both at their paths: the suite reads its
# script and a file of O's there).
t_private_tmp() {
	local t o name why=""
	requires runner_private_tmp mount_namespace || return
	OUTSIDE=$(mktemp -d /var/tmp/snaptrace-runner.XXXXXX) && UNDER=$(mktemp -d /tmp/snaptrace-runner.XXXXXX) || {
		fail runner_private_tmp "cannot make a directory in /var/tmp and /tmp"
		return
	}
	name="perf-vdso.so-snaptrace-runner-test-$$"
	for t in "$OUTSIDE/tree" "$UNDER/tree"; do
		o="$t/build"
		[ "$t" = "$OUTSIDE/tree" ] || o="$UNDER/o"
		tree "$t"
		[ "$o" = "$t/build" ] || { mkdir -p "$o/test" && cp "$t/build/test/sigdfl" "$o/test/"; }
		echo seen >"$o/test/mark"
		suite "$t" vdso record <<EOS
echo "tmpdir \$TMPDIR"
echo x >/tmp/$name
[ -f /tmp/$name ] && echo "ok vdso_written"
[ "\$(cat "$o/test/mark")" = seen ] && echo "ok o_seen"
EOS
		run_tree "$t" "$o" vdso
		if [ -e "/tmp/$name" ]; then
			rm -f "/tmp/$name"
			why="$t: /tmp/$name, written by a record-tier suite, is in the machine's /tmp: $(out)"
		elif [ $RC -ne 0 ] || ! grep -q '^vdso: 2 passed' "$OUT"; then
			why="$t: the suite failed: $(out)"
		fi
		[ -z "$why" ] || break
	done
	if [ -n "$why" ]; then
		fail runner_private_tmp "$why"
	else
		ok runner_private_tmp
	fi
}

# Each test in a subshell of its own, in the background; then their lines
# in this order, each test's time given (they overlap).
TESTS="t_leftovers t_signals t_tiers t_hang t_skips t_failed_list t_failure_log t_timings t_private_tmp"
for t in $TESTS; do
	(
		OUT="$TMP/$t.out"
		on_exit cleanup
		start=${EPOCHREALTIME/./}
		"$t" >"$TMP/$t.lines"
		end=${EPOCHREALTIME/./}
		sed -n 's/^\(ok\|FAIL\|skip\) \([^ :]*\).*/\2/p' "$TMP/$t.lines" |
			while read -r n; do
				printf 'time %s %d.%06d\n' "$n" $(((end - start) / 1000000)) \
					$(((end - start) % 1000000))
			done >>"$TMP/$t.lines"
	) &
done
wait
for t in $TESTS; do
	cat "$TMP/$t.lines"
done
