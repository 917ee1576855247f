#!/usr/bin/env bash
# tier: record
# The workload (tests/workload/workload.c) does what each mode's name says:
# every mode is run under callcount (tests/workload/callcount.c: a uprobe on
# each function the mode is about, counting every call in every thread and
# child, and the program's rusage) and checked against what its usage line
# promises: the calls made, in which thread and on which CPU, their spacing
# in time, sleeping or not (voluntary context switches), page faults, its
# output and exit status, its processes in /proc. The suites that record the
# workload rely on this (a former target, built at -O1, called its work
# once and then only the trigger: work_spread fails on such a program).
# workload-nofp keeps no frame pointer, workload keeps them. Needs root
# and uprobes (requirements root, uprobes).
. "$(dirname "$0")/../lib.sh"

W="$SNAPTRACE_TEST_BIN/workload"
CC="$SNAPTRACE_TEST_BIN/callcount"
NAMES=$(printf 'workload_%s ' usage work_spread work_forever hits storm bursts until fork cpufirst echo onterm thread \
	migrate naps pipe spin faults nest prologues movimm frame_pointers)
need_built workload "$W" "$SNAPTRACE_TEST_BIN/workload-nofp" "$CC"
# callcount's probes watch every CPU: root
requires_all root uprobes

# calls NAME FUNCS [-t SECONDS] -- ARGS...: runs the workload with ARGS
# under callcount, counting FUNCS; its lines in $TMP/NAME.calls, stdout of
# the workload mixed in (callcount's lines are all "FUNC PID TID CPU NS"
# or "comm ..." or "rusage ..."), status in RC.
calls() {
	local name=$1 funcs=$2
	local -a t=()
	shift 2
	[ "$1" = -t ] && { t=(-t "$2"); shift 2; }
	shift
	"$CC" "${t[@]}" "$funcs" -- "$W" "$@" >"$TMP/$name.calls" 2>"$TMP/$name.err"
	RC=$?
}

# count NAME FUNC: the calls of FUNC in NAME's run.
count() {
	awk -v f="$2" '$1 == f && NF == 5 { n++ } END { print n + 0 }' "$TMP/$1.calls"
}

# span_ms NAME FUNC: from the first call of FUNC to the last, in whole ms.
span_ms() {
	awk -v f="$2" '$1 == f && NF == 5 { if (!n++) a = $5; b = $5 } END { printf "%d\n", (b - a) / 1e6 }' \
		"$TMP/$1.calls"
}

# rusage NAME FIELD: the workload's rusage (user_us system_us minflt nvcsw nivcsw).
rusage() {
	awk -v i="$2" '$1 == "rusage" { print $(i + 1) }' "$TMP/$1.calls"
}

# check NAME WHY: ok, or FAIL with WHY (and the run's messages) when WHY is set.
check() {
	if [ -n "$2" ]; then
		fail "workload_$1" "$2 $(tl 2 "$TMP/$1.err")"
	else
		ok "workload_$1"
	fi
}

# tl N FILE: the last N lines of FILE on one line.
tl() {
	tail -n "$1" "$2" 2>/dev/null | tr '\n' ' '
}

t_usage() {
	local why="" rc
	"$W" >/dev/null 2>"$TMP/usage.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q '^  storm US$' "$TMP/usage.err" || why="no mode: exit $rc;"
	for bad in "nosuch" "work x" "hits 1" "fork" "echo hi" "spin -1"; do
		# shellcheck disable=SC2086
		"$W" $bad >/dev/null 2>&1
		rc=$?
		[ $rc -eq 2 ] || why+=" '$bad': exit $rc;"
	done
	check usage "$why"
}

# work MS: work_top once, two work_leaf per work_mid, work_mid called until
# the end (a hoisted call would be made once, at the start).
t_work_spread() {
	local why="" mid leaf span
	calls work_spread work_top,work_mid,work_leaf -- work 300
	mid=$(count work_spread work_mid) leaf=$(count work_spread work_leaf)
	span=$(span_ms work_spread work_mid)
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif [ "$(count work_spread work_top)" -ne 1 ] || [ "$mid" -lt 20 ] ||
		[ "$leaf" -ne $((2 * mid)) ]; then
		why="work_top $(count work_spread work_top), work_mid $mid, work_leaf $leaf calls: expected 1, at least 20, twice work_mid's"
	elif [ "$span" -lt 250 ]; then
		why="work_mid called over $span ms of a 300 ms run"
	fi
	check work_spread "$why"
}

# work without MS: still working when SIGTERM ends it.
t_work_forever() {
	local why=""
	calls work_forever work_mid -t 0.5 -- work
	if [ $RC -ne 143 ]; then
		why="exit $RC, expected 143 (SIGTERM after 0.5 s)"
	elif [ "$(span_ms work_forever work_mid)" -lt 300 ]; then
		why="work_mid called over $(span_ms work_forever work_mid) ms of 0.5 s"
	fi
	check work_forever "$why"
}

# hits 3 100: three hits in the main thread, 100 ms of work before each
# and after the last.
t_hits() {
	local why=""
	calls hits snaptrace_trigger,work_top -- hits 3 100
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif [ "$(count hits snaptrace_trigger)" -ne 3 ] || [ "$(count hits work_top)" -ne 4 ]; then
		why="$(count hits snaptrace_trigger) hits and $(count hits work_top) work_top calls, expected 3 and 4"
	elif awk '$1 == "snaptrace_trigger" && $2 != $3 { bad = 1 } END { exit !bad }' "$TMP/hits.calls"; then
		why="a hit outside the main thread"
	elif ! awk '$1 == "snaptrace_trigger" { if (n++ && $5 - t < 90e6) bad = 1; t = $5 }
		END { exit bad }' "$TMP/hits.calls"; then
		why="two hits less than 90 ms apart"
	fi
	check hits "$why"
}

# storm 2000: a hit every 2 ms, working between them. Hit k is due 2k ms
# after the start (the first work_mid call) and never comes earlier; a
# program the machine kept waiting makes the hits that came due at once. So
# n hits over the time up to the last one: at most one per 2 ms (10% and
# 4 ms of slack), and at least one per 4 ms.
t_storm() {
	local why="" n elapsed
	calls storm snaptrace_trigger,work_mid -t 0.6 -- storm 2000
	n=$(count storm snaptrace_trigger)
	elapsed=$(awk '$1 == "work_mid" && NF == 5 && !w { w = $5 } $1 == "snaptrace_trigger" { t = $5 }
		END { printf "%d\n", (t - w) / 1e6 }' "$TMP/storm.calls")
	if [ $RC -ne 143 ]; then
		why="exit $RC, expected 143 (SIGTERM)"
	elif [ "$n" -lt 50 ]; then
		why="$n hits in 0.6 s"
	elif [ $((n * 2 * 10)) -gt $((elapsed * 11 + 40)) ] || [ $((n * 4)) -lt "$elapsed" ]; then
		why="$n hits in the first $elapsed ms: not one every 2 ms"
	elif [ "$(count storm work_mid)" -lt "$n" ]; then
		why="$(count storm work_mid) work_mid calls for $n hits"
	fi
	check storm "$why"
}

# bursts 2 8: each round a work_top (with its work_mid and work_leaf calls),
# a hit, a nap: hits 10 ms or more apart (2 ms of work, then 8 ms asleep),
# asleep (a voluntary switch) between them, still going at SIGTERM.
t_bursts() {
	local why="" top hits
	calls bursts work_top,work_mid,work_leaf,snaptrace_trigger -t 0.5 -- bursts 2 8
	top=$(count bursts work_top) hits=$(count bursts snaptrace_trigger)
	if [ $RC -ne 143 ]; then
		why="exit $RC, expected 143 (SIGTERM after 0.5 s)"
	elif [ "$hits" -lt 5 ] || [ "$top" -lt "$hits" ] || [ "$top" -gt $((hits + 1)) ] ||
		[ "$(count bursts work_mid)" -lt "$top" ] ||
		[ "$(count bursts work_leaf)" -lt "$(count bursts work_mid)" ]; then
		why="work_top $top, work_mid $(count bursts work_mid), work_leaf $(count bursts work_leaf), hits $hits: expected a work_top (with work) per hit"
	elif ! awk '$1 == "snaptrace_trigger" { if (n++ && $5 - t < 9.9e6) bad = 1; t = $5 }
		END { exit bad }' "$TMP/bursts.calls"; then
		why="two hits less than 10 ms apart"
	elif [ "$(rusage bursts 4)" -lt "$hits" ]; then
		why="$(rusage bursts 4) voluntary context switches for $hits hits: the naps did not sleep"
	fi
	check bursts "$why"
}

# until FILE: runs until FILE exists, then exits 0.
t_until() {
	local why="" pid i
	"$W" until "$TMP/until.go" &
	pid=$!
	sleep 0.3
	if ! kill -0 "$pid" 2>/dev/null; then
		why="ended before FILE existed"
	else
		touch "$TMP/until.go"
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; why="still running 5 s after FILE"; }
	fi
	wait "$pid" || why+=" exit $?"
	check until "$why"
}

# fork work 200: a child in a session of its own and a grandchild stay
# (asleep) after the workload's exit 0; found by a token in their environment.
t_fork() {
	local why="" p pids sid="" states="" rc
	WORKLOAD_CASE="$TMP/fork" "$W" fork work 200
	rc=$?
	pids=$(grep -lsxzF "WORKLOAD_CASE=$TMP/fork" /proc/[0-9]*/environ | cut -d/ -f3)
	for p in $pids; do
		read -r -a st <"/proc/$p/stat" && sid+=" ${st[5]}" states+=" ${st[2]}"
	done
	if [ $rc -ne 0 ]; then
		why="exit $rc"
	elif [ "$(wc -w <<<"$pids")" -ne 2 ]; then
		why="expected a child and a grandchild left, found: $pids"
	elif [ "$(tr ' ' '\n' <<<"$sid" | sort -u | grep -c .)" -ne 1 ] || [ "${sid# }" = "$$" ]; then
		why="not in one session of their own: sessions$sid"
	elif [ "$(tr -d ' S' <<<"$states")" != "" ]; then
		why="not asleep: states$states"
	fi
	[ -n "$pids" ] && kill -9 $pids
	check fork "$why"
}

# cpufirst 100 work 10: one snaptrace_cpu_spin of 100 ms of CPU time, then
# the work mode's nested work
t_cpufirst() {
	local why=""
	calls cpufirst snaptrace_cpu_spin,work_leaf -- cpufirst 100 work 10
	if [ $RC -ne 0 ] || [ "$(count cpufirst snaptrace_cpu_spin)" -ne 1 ]; then
		why="exit $RC, $(count cpufirst snaptrace_cpu_spin) calls"
	elif [ "$(count cpufirst work_leaf)" -lt 1 ]; then
		why="the mode after it did not run (no work_leaf)"
	elif [ $(($(rusage cpufirst 1) + $(rusage cpufirst 2))) -lt 90000 ]; then
		why="$(rusage cpufirst 1) us of user and $(rusage cpufirst 2) of system time"
	fi
	check cpufirst "$why"
}

t_echo() {
	local out rc
	out=$("$W" echo "a line" work 50)
	rc=$?
	check echo "$([ $rc -eq 0 ] && [ "$out" = "a line" ] || echo "exit $rc, stdout '$out'")"
}

# thread 200: the hit in the second thread, named worker (callcount's comm
# lines); both threads work.
# onterm 10 work: the first SIGTERM sends SIGUSR1 (10) to the parent (this
# shell), the second is ignored too: the program runs on until SIGKILL
t_onterm() {
	local got=0 pid why= i
	trap 'got=$((got + 1))' USR1
	"$W" onterm 10 work 20000 &
	pid=$!
	# its handler is installed: SIGTERM (bit 15) caught, by the workload
	# itself (the shell forked for `&` catches SIGTERM too until its exec)
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$W")" ] &&
			(( 0x$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0) & 0x4000 )) && break
		sleep 0.05
	done
	kill -TERM "$pid"
	sleep 0.2
	kill -TERM "$pid"
	sleep 0.2
	kill -0 "$pid" 2>/dev/null || why="ended by SIGTERM;"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	trap - USR1
	[ "$got" = 1 ] || why+=" the parent got SIGUSR1 $got times, expected 1"
	check onterm "$why"
}

t_thread() {
	local why=""
	calls thread snaptrace_trigger,work_mid -- thread 200
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif ! awk '$1 == "comm" && $2 != $3 && $4 == "worker" { ok = 1 } END { exit !ok }' \
		"$TMP/thread.calls"; then
		why="no second thread named worker: $(grep '^comm ' "$TMP/thread.calls" | tr '\n' ';')"
	elif [ "$(count thread snaptrace_trigger)" -ne 1 ] ||
		! awk '$1 == "snaptrace_trigger" && $2 != $3 { ok = 1 } END { exit !ok }' "$TMP/thread.calls"; then
		why="expected one hit, in the second thread: $(grep trigger "$TMP/thread.calls")"
	elif [ "$(awk '$1 == "work_mid" { print $3 }' "$TMP/thread.calls" | sort -u | wc -l)" -ne 2 ]; then
		why="work_mid not called in both threads"
	fi
	check thread "$why"
}

# migrate 100 100: early on one CPU, late on another, then the hit.
t_migrate() {
	local why=""
	requires workload_migrate two_cpus || return
	calls migrate early,late,snaptrace_trigger -- migrate 100 100
	read -r _ _ _ a ta < <(grep '^early ' "$TMP/migrate.calls")
	read -r _ _ _ b tb < <(grep '^late ' "$TMP/migrate.calls")
	read -r _ _ _ _ tt < <(grep '^snaptrace_trigger ' "$TMP/migrate.calls")
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif [ -z "${a:-}" ] || [ -z "${b:-}" ] || [ -z "${tt:-}" ] || [ "$a" = "$b" ]; then
		why="early on CPU '${a:-}', late on CPU '${b:-}', the hit at '${tt:-}': expected two CPUs and a hit"
	elif [ $(((tb - ta) / 1000000)) -lt 90 ] || [ $(((tt - tb) / 1000000)) -lt 90 ]; then
		why="early, late and the hit not 100 ms apart"
	fi
	check migrate "$why"
}

# naps 5 2000 20000: spin and nap in turn, asleep (a voluntary switch) in
# each nap; the program's own measures printed.
t_naps() {
	local why=""
	calls naps snaptrace_spin,snaptrace_nap -- naps 5 2000 20000
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif [ "$(awk '$1 ~ /^snaptrace_/ { printf "%s ", substr($1, 11, 1) }' \
		<(sort -k 5n "$TMP/naps.calls"))" != "s n s n s n s n s n " ]; then
		why="expected spin and nap in turn 5 times: $(awk '{ print $1 }' "$TMP/naps.calls" | tr '\n' ' ')"
	elif [ "$(rusage naps 4)" -lt 5 ]; then
		why="$(rusage naps 4) voluntary context switches: the naps did not sleep"
	elif [ "$(awk '$1 == "spin" && $2 >= 2e6 { s++ } $1 == "sleep" && $2 >= 20e6 { n++ }
		END { print s + 0, n + 0 }' "$TMP/naps.calls")" != "5 5" ]; then
		why="expected 5 'spin' lines of 2 ms and 5 'sleep' lines of 20 ms"
	fi
	check naps "$why"
}

# pipe 3 20000: three blocking reads, each 20 ms or more after the last.
t_pipe() {
	local why=""
	calls pipe snaptrace_wait_pipe -- pipe 3 20000
	if [ $RC -ne 0 ]; then
		why="exit $RC"
	elif [ "$(count pipe snaptrace_wait_pipe)" -ne 3 ] || [ "$(span_ms pipe snaptrace_wait_pipe)" -lt 40 ]; then
		why="$(count pipe snaptrace_wait_pipe) calls over $(span_ms pipe snaptrace_wait_pipe) ms"
	elif [ "$(rusage pipe 4)" -lt 3 ]; then
		why="$(rusage pipe 4) voluntary context switches: read() did not block"
	fi
	check pipe "$why"
}

# spin 200: one call, never asleep (the one voluntary switch before exec,
# callcount's start, and one at exit at most).
t_spin() {
	local why=""
	calls spin snaptrace_spin -- spin 200
	if [ $RC -ne 0 ] || [ "$(count spin snaptrace_spin)" -ne 1 ]; then
		why="exit $RC, $(count spin snaptrace_spin) calls"
	elif [ "$(rusage spin 4)" -gt 3 ]; then
		why="$(rusage spin 4) voluntary context switches: it slept"
	elif [ "$(rusage spin 1)" -lt 2000 ]; then
		why="$(rusage spin 1) us of user time"
	fi
	check spin "$why"
}

# faults 100: a fault per page touched (256 per call).
t_faults() {
	local why="" n
	calls faults snaptrace_pf_touch -- faults 100
	n=$(count faults snaptrace_pf_touch)
	if [ $RC -ne 0 ] || [ "$n" -lt 1 ]; then
		why="exit $RC, $n calls"
	elif [ "$(rusage faults 3)" -lt $((256 * n)) ]; then
		why="$(rusage faults 3) page faults for $n calls of 256 pages"
	fi
	check faults "$why"
}

# nest 100000: 1 outer, 5 middle, 20 inner calls, an inner's leaf every 256 rounds.
t_nest() {
	local got
	calls nest snaptrace_e2e_outer,snaptrace_e2e_middle,snaptrace_e2e_inner,snaptrace_e2e_leaf -- nest 100000
	got="$RC $(count nest snaptrace_e2e_outer) $(count nest snaptrace_e2e_middle) $(count nest snaptrace_e2e_inner) $(count nest snaptrace_e2e_leaf)"
	check nest "$([ "$got" = "0 1 5 20 $((20 * 391))" ] || echo "exit, outer, middle, inner, leaf: $got")"
}

# prologues 1000: 1 caller, 1000 framed calls, each calling the leaf once.
t_prologues() {
	local got
	calls prologues snaptrace_fp_caller,snaptrace_fp_framed,snaptrace_fp_tick -- prologues 1000
	got="$RC $(count prologues snaptrace_fp_caller) $(count prologues snaptrace_fp_framed) $(count prologues snaptrace_fp_tick)"
	check prologues "$([ "$got" = "0 1 1000 1000" ] || echo "exit, caller, framed, tick: $got")"
}

# movimm FILE: mov_imm() called 200 times, the sum written.
t_movimm() {
	calls movimm mov_imm -- movimm "$TMP/movimm.out"
	check movimm "$([ $RC -eq 0 ] && [ "$(count movimm mov_imm)" -eq 200 ] &&
		[ "$(tr '\n' ' ' <"$TMP/movimm.out")" = "started 100100000 " ] ||
		echo "exit $RC, $(count movimm mov_imm) calls, wrote: $(tr '\n' ' ' <"$TMP/movimm.out")")"
}

# workload sets up a frame (push %rbp; mov %rsp,%rbp) in each function the
# tests name in stacks, workload-nofp in none.
t_frame_pointers() {
	local f v why="" n
	for v in workload workload-nofp; do
		objdump -d --no-show-raw-insn "$SNAPTRACE_TEST_BIN/$v" >"$TMP/$v.dis"
		for f in work_top work_mid work_leaf snaptrace_spin snaptrace_nap snaptrace_fp_framed; do
			n=$(awk -v f="<$f>:" '$2 == f { on = 1; next } on && /^$/ { exit }
				on { print $2 $3 }' "$TMP/$v.dis" | head -n 2 | tr -d '\n')
			case "$v:$n" in
			workload:"push%rbpmov%rsp,%rbp") ;;
			workload:*) why+=" $v: $f starts '$n', without a frame;" ;;
			*:"push%rbpmov%rsp,%rbp") why+=" $v: $f sets up a frame;" ;;
			esac
		done
	done
	check frame_pointers "$why"
}

t_usage
t_work_spread
t_work_forever
t_hits
t_storm
t_bursts
t_until
t_fork
t_cpufirst
t_echo
t_onterm
t_thread
t_migrate
t_naps
t_pipe
t_spin
t_faults
t_nest
t_prologues
t_movimm
t_frame_pointers
