#!/usr/bin/env bash
# tier: record
# The moment it failed (README "When the program fails"), recorded for real
# (sampling) with the programs of tests/record/crash/: snaptrace run's exit
# status, record.json's "signals" and "exits", the markers and the stack at
# the signal in the trace, the summary line and snaptrace stats' header.
#   null_write       a NULL write in boom(): exit 139, "[crash] SIGSEGV" on the thread and
#                    the triggers track (SEGV_MAPERR, addr 0x0, function boom, its line),
#                    the marker nested in boom (the stack at the signal), the snapshot
#                    taken at the signal (end "signal"), the summary line, stats' header
#   abort_assert     assert() fails: exit 134, "[signal] SIGABRT" (SI_TKILL) on the thread,
#                    cause "assert() failed" (the recorder's probe of __assert_fail); the
#                    program's function it came from (check_invariant, its line) and the
#                    C library's it called (inside __assert_fail) in the marker and the
#                    summary line; the stack at the signal whole: from main through
#                    check_invariant into the C library (which has no frame pointers: its
#                    chain unwound from a stack copy), no "[call chain cut" in it
#   cxx_exception    an uncaught C++ exception: exit 134, "[signal] SIGABRT", cause
#                    "uncaught C++ exception" (std::terminate)
#   fpe              a division by zero in divide(): exit 136, "[crash] SIGFPE" FPE_INTDIV
#   bus              a read past the end of a mapped file: exit 135, "[crash] SIGBUS"
#                    BUS_ADRERR at the address the program printed
#   handled_trigger  three SIGSEGVs the program handles, --trigger signal:SIGSEGV
#                    --multi-snapshot, 0.5 s apart: three snapshots, three
#                    "[trigger] signal:SIGSEGV" and three handled "[crash]
#                    SIGSEGV", less those record.json counts as coalesced (a
#                    snapshot took over 0.5 s at load 20, and a hit during one
#                    is coalesced into it); exit 0
#   catch_exit       a SIGSEGV whose handler exits with status 1: exit 1, the marker
#                    (handled), "exited with status 1 after handling SIGSEGV"
#   exit3            exit(3) and sh -c 'exit 3': exit 3, "exited with status 3", no marker
#   sigkill          kill -9 from another process: exit 137, "[signal] SIGKILL" with the
#                    sender's pid
#   sigterm          kill -TERM from another process (the kernel delivers it as a SIGKILL):
#                    exit 143, "[signal] SIGTERM" with the sender's pid, no SIGKILL
#   thread_crash     --multi-thread, a NULL write in a second thread: the marker on that
#                    thread, the marker nested in boom; record.json's signal not
#                    "unrecorded", the summary line says nothing of it
#   thread_crash_unrecorded  the same without --multi-thread (only the main thread
#                    recorded): record.json's signal "unrecorded", the marker on the
#                    triggers track, the summary line says the thread is not recorded,
#                    and both name where it crashed (boom, its file and line) from
#                    the process's mappings, as for a recorded thread,
#                    its stack not in the trace, and how to record it
#   threads_at_exit  --multi-thread, the workload's leave mode (threads working when main
#                    returns): exit 0, no signal in record.json and no marker (the kernel's
#                    SIGKILL of the other threads at exit_group is no signal of the
#                    program's: none was sent), the workers in the trace
#   ctrl_c           Ctrl-C (SIGINT to the terminal's process group, SIGINT at its
#                    default): exit 130, no marker (no "[signal] SIGKILL" of the kernel's
#                    delivery), record.json's SIGINT by_stop and exit SIGINT, "killed by
#                    SIGINT, which stopped the recording too"
#   attach_end       snaptrace attach to a process killed meanwhile: attach's status 0,
#                    "process PID was killed by SIGKILL from process KILLER"
#   bad_signal       --trigger signal:NOPE: exit 2 before anything runs
#   no_leftovers     no perf or target of ours left running
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
SRC="$SNAPTRACE_TOP/tests/record/crash"
PROG="$TMP/crash_target"
THROW="$TMP/throw_target"
NAMES="null_write abort_assert cxx_exception fpe bus handled_trigger catch_exit exit3
sigkill sigterm thread_crash thread_crash_unrecorded threads_at_exit ctrl_c attach_end bad_signal no_leftovers"
need_recording crash
need_built crash "$CONVERT" "$SNAPTRACE_BIN/snaptrace-stats"
requires_all signal_tracepoints cc cxx
if ! cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -pthread \
	-o "$PROG" "$SRC/crash_target.c" 2>"$TMP/cc.log" ||
	! g++ -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer \
		-o "$THROW" "$SRC/throw_target.cc" 2>>"$TMP/cc.log"; then
	fail_all "tests/record/crash: $(first_lines "$TMP/cc.log")"
fi
WL="$TMP/workload"
cp "$SNAPTRACE_TEST_BIN/workload" "$WL" || fail_all "the workload is not built (make tests-build)"
TARGETS=("$PROG" "$THROW" "$WL")
ulimit -c 0   # no core files of the crashes

# run NAME WANT ARGS... -- CMD...: snaptrace run into $TMP/NAME (kept) and
# $TMP/NAME.fxt, its stderr in $TMP/NAME.err; 1 with a FAIL line unless it
# exits with status WANT.
run() {
	local name=$1 want=$2 rc
	shift 2
	"$FRONT" run -d "$TMP/$name" -o "$TMP/$name.fxt" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "snaptrace run exited $rc, expected $want: $(tl 3 "$TMP/$name.err")"
		return 1
	fi
}

# marker FXT TID NAME: the instant NAME on thread TID's track, as
# --dump=records prints it (from "ts="); the triggers track's must be
# the same but for its tid.
marker() {
	"$CONVERT" --dump=records "$1" |
		sed -n "s/.* event instant \(ts=[0-9]* pid=[0-9]* tid=$2 cat=\"\" name=\"$3\".*\)/\1/p"
}

# triggers_marker FXT NAME: the instant NAME on a triggers track (a tid of
# the odd-id band), without its ts/pid/tid.
triggers_marker() {
	"$CONVERT" --dump=records "$1" |
		sed -n "s/.* event instant ts=[0-9]* pid=[0-9]* tid=21474[0-9]* cat=\"\" name=\"$2\" //p"
}

# json_signal DIR N KEY: the value of KEY of the N-th (from 1) of
# record.json's "signals" (rec_field: a string unquoted).
json_signal() {
	rec_field "$1" "signals.$(($2 - 1)).$3"
}

# first_exit NAME: "STATUS SIGNAL NAME" of the first of recording NAME's
# "exits" in record.json (null for those it has not).
first_exit() {
	local f out=""
	for f in status signal name; do
		out+="${out:+ }$(rec_field "$TMP/$1" "exits.0.$f")"
	done
	echo "$out"
}

# crash_in FXT TID SIG: the slice of thread TID that the instant "[crash]
# SIG" nests in, as the trace is read back (--dump=tree, Perfetto's
# nesting): the innermost function at the signal. (Not the slice that
# begins last: a function that returned before the signal, its caller
# going on without a sample, began after the caller's slice.)
crash_in() {
	"$CONVERT" --dump=tree "$1" | awk -v tid="$2" -v m="[crash] $3 @" '
		$1 != tid { next }
		{ d = $2 + 0; nm = $0; sub(/^[0-9]+ [0-9]+ +/, "", nm) }
		index(nm, m) == 1 { print d ? name[d - 1] : ""; exit }
		{ sub(/ \[[0-9]+, [0-9]+\].*/, "", nm); name[d] = nm }'
}

# line_of PATTERN FILE: the number of the line of FILE holding PATTERN.
line_of() {
	grep -n -F "$1" "$2" | head -n 1 | cut -d: -f1
}

# crash_checks NAME SIG CODE FUNCTION [ADDR]: the marker "[crash] SIG" of
# the recording NAME on its thread and the triggers track, with CODE,
# FUNCTION and ADDR (when given); the marker nested in a slice of FUNCTION.
crash_checks() {
	local name=$1 sig=$2 code=$3 func=$4 addr=${5:-} tid m t
	tid=$(json_signal "$TMP/$name" 1 tid)
	m=$(marker "$TMP/$name.fxt" "$tid" "\[crash\] $sig")
	t=$(triggers_marker "$TMP/$name.fxt" "\[crash\] $sig")
	if [ -z "$tid" ] || [ "$(json_signal "$TMP/$name" 1 name)" != "$sig" ]; then
		fail "$name" "record.json: expected signal $sig, found $(rec_part "$TMP/$name" signals.0.)"
	elif [ -z "$m" ]; then
		fail "$name" "no [crash] $sig instant on thread $tid: $("$CONVERT" --dump=records "$TMP/$name.fxt" | grep -c instant) instants"
	elif [ "${m#*name=\"\[crash\] $sig\" }" != "$t" ]; then
		fail "$name" "the triggers track's marker differs: '$t' vs '$m'"
	elif [[ "$m" != *"code:string=\"$code\""* ]] || [[ "$m" != *"function:string=\"$func\""* ]]; then
		fail "$name" "expected code $code in $func: $m"
	elif [ -n "$addr" ] && [[ "$m" != *"addr:pointer=$addr "* ]]; then
		fail "$name" "expected addr $addr: $m"
	elif [ "$(crash_in "$TMP/$name.fxt" "$tid" "$sig")" != "$func" ]; then
		fail "$name" "thread $tid's [crash] $sig is in $(crash_in "$TMP/$name.fxt" "$tid" "$sig"), expected $func"
	else
		return 0
	fi
	return 1
}

t_null_write() {
	local tid line m
	run null_write 139 -- "$PROG" null || return
	tid=$(json_signal "$TMP/null_write" 1 tid)
	line=$(line_of '*p = 1;' "$SRC/crash_target.c")
	m=$(marker "$TMP/null_write.fxt" "$tid" '\[crash\] SIGSEGV')
	crash_checks null_write SIGSEGV SEGV_MAPERR boom 0x0 || return
	if [[ "$m" != *"line:uint64=$line "* ]] || [[ "$m" != *'file:string="'*crash_target.c'"'* ]]; then
		fail null_write "expected crash_target.c:$line: $m"
	elif [ "$(json_signal "$TMP/null_write" 1 snapshot)" != 0 ] ||
		[ "$(rec_field "$TMP/null_write" end)" != signal ] ||
		[ "$(snaps "$TMP/null_write" signal)" = "" ]; then
		fail null_write "expected the snapshot taken at the signal (end \"signal\"): end $(rec_field "$TMP/null_write" end), snapshots: $(rec_rows "$TMP/null_write" snapshots reason | tr '\n' ' '), the signal's: $(json_signal "$TMP/null_write" 1 snapshot); $(tl 3 "$TMP/null_write.err")"
	elif [ "$(first_exit null_write)" != "null 11 SIGSEGV" ]; then
		fail null_write "record.json's exits: $(rec_part "$TMP/null_write" exits)"
	elif ! grep -q "snaptrace-convert: the program was killed by SIGSEGV (SEGV_MAPERR, address 0x0) in boom (crash_target.c:$line), thread $tid" \
		"$TMP/null_write.err"; then
		fail null_write "no summary line: $(grep -i 'program' "$TMP/null_write.err")"
	elif ! "$SNAPTRACE_BIN/snaptrace-stats" --limit 1 "$TMP/null_write.fxt" | head -n 1 |
		grep -q "; the program was killed by SIGSEGV (SEGV_MAPERR, address 0x0) in boom"; then
		fail null_write "stats' header: $("$SNAPTRACE_BIN/snaptrace-stats" --limit 1 "$TMP/null_write.fxt" | head -n 1)"
	else
		ok null_write
	fi
}

# signal_checks NAME SIG CODE CAUSE: "[signal] SIG" with CODE and the
# cause of an abort on the thread, the summary line naming the cause.
signal_checks() {
	local name=$1 tid m
	tid=$(json_signal "$TMP/$name" 1 tid)
	m=$(marker "$TMP/$name.fxt" "$tid" "\[signal\] $2")
	if [ -z "$m" ]; then
		fail "$name" "no [signal] $2 instant on thread $tid"
	elif [[ "$m" != *"code:string=\"$3\""* ]] || [[ "$m" != *"handled:bool=false"* ]] ||
		[[ "$m" != *"cause:string=\"$4\""* ]]; then
		fail "$name" "expected $3, $4, not handled: $m"
	elif [ -z "$(triggers_marker "$TMP/$name.fxt" "\[signal\] $2")" ]; then
		fail "$name" "no [signal] $2 on the triggers track"
	elif ! grep -q "the program was killed by $2 ($4)" "$TMP/$name.err"; then
		fail "$name" "no summary line: $(tl 3 "$TMP/$name.err")"
	else
		ok "$name"
	fi
}

# signal_stack FXT TID SIG: the slices of thread TID that the instant
# "[signal] SIG" nests in, outermost first, joined by ">", as the trace is
# read back (--dump=tree).
signal_stack() {
	"$CONVERT" --dump=tree "$1" | awk -v tid="$2" -v m="[signal] $3 @" '
		$1 != tid { next }
		{ d = $2 + 0; nm = $0; sub(/^[0-9]+ [0-9]+ +/, "", nm) }
		index(nm, m) == 1 { for (i = 0; i < d; i++) s = s (i ? ">" : "") name[i]; print s; exit }
		{ sub(/ \[[0-9]+, [0-9]+\].*/, "", nm); name[d] = nm }'
}

t_abort_assert() {
	local d="$TMP/abort_assert" tid m line stack
	run abort_assert 134 -- "$PROG" assert || return
	tid=$(json_signal "$d" 1 tid)
	m=$(marker "$d.fxt" "$tid" '\[signal\] SIGABRT')
	line=$(line_of 'assert(v < 0);' "$SRC/crash_target.c")
	stack=$(signal_stack "$d.fxt" "$tid" SIGABRT)
	if [[ "$m" != *'function:string="check_invariant" inside:string="__assert_fail"'* ]] ||
		[[ "$m" != *"line:uint64=$line "* ]]; then
		fail abort_assert "expected the marker in check_invariant (line $line) inside __assert_fail: $m"
	elif ! grep -q "the program was killed by SIGABRT (assert() failed) in check_invariant (crash_target.c:$line), inside __assert_fail, thread $tid" "$d.err"; then
		fail abort_assert "the summary line names no function: $(grep -i killed "$d.err")"
	elif [[ "$stack" != *">main>check_invariant>__assert_fail>"* ]] ||
		[[ "$stack" == *"[call chain cut"* ]]; then
		fail abort_assert "the stack at the signal is not whole: $stack"
	else
		signal_checks abort_assert SIGABRT SI_TKILL 'assert() failed'
	fi
}

t_cxx_exception() {
	run cxx_exception 134 -- "$THROW" || return
	signal_checks cxx_exception SIGABRT SI_TKILL 'uncaught C++ exception'
}

t_fpe() {
	run fpe 136 -- "$PROG" fpe || return
	crash_checks fpe SIGFPE FPE_INTDIV divide && ok fpe
}

t_bus() {
	local addr
	run bus 135 -- "$PROG" bus || return
	addr=$(sed -n 's/^map \(0x[0-9a-f]*\)$/\1/p' "$TMP/bus.out")
	if [ -z "$addr" ]; then
		fail bus "the program printed no address: $(first_lines "$TMP/bus.out")"
		return
	fi
	crash_checks bus SIGBUS BUS_ADRERR main "$addr" && ok bus
}

t_handled_trigger() {
	local n_trig n_crash handled co
	run handled_trigger 0 --trigger signal:SIGSEGV --multi-snapshot --min-interval 10 \
		--arm-after 0 -- "$PROG" handled || return
	n_trig=$("$CONVERT" --dump=records "$TMP/handled_trigger.fxt" |
		grep -c 'event instant .*name="\[trigger\] signal:SIGSEGV"')
	n_crash=$(triggers_marker "$TMP/handled_trigger.fxt" '\[crash\] SIGSEGV' | grep -c 'handled:bool=true')
	handled=$(rec_rows "$TMP/handled_trigger" signals signal name code handled fatal |
		grep -c -x '11 SIGSEGV 1 true false')
	# a SIGSEGV that comes while the previous one's snapshot is still being
	# written (over 0.5 s on a machine at load 20) is coalesced into it, and
	# record.json counts it: 3 hits = snapshots + coalesced
	co=$(rec_field "$TMP/handled_trigger" hits_coalesced)
	if [ "$handled" -ne 3 ]; then
		fail handled_trigger "record.json: $handled handled SIGSEGVs, expected 3"
	elif ! [[ $co =~ ^[0-2]$ ]] ||
		[ "$(snaps "$TMP/handled_trigger" trigger | wc -l)" -ne $((3 - co)) ]; then
		fail handled_trigger "expected $((3 - co)) trigger snapshots ($co hits coalesced): $(snaps "$TMP/handled_trigger" | tr '\n' ' ')"
	elif [ "$n_trig" -lt $((3 - co)) ] || [ "$n_trig" -gt 3 ] || [ "$n_crash" -lt $((3 - co)) ] ||
		[ "$n_crash" -gt 3 ]; then
		fail handled_trigger "$n_trig [trigger] and $n_crash handled [crash] markers, expected $((3 - co)) to 3 each ($co hits coalesced)"
	elif ! grep -q 'the program exited with status 0 after handling SIGSEGV' \
		"$TMP/handled_trigger.err"; then
		fail handled_trigger "no summary line: $(grep -i program "$TMP/handled_trigger.err")"
	else
		ok handled_trigger
	fi
}

t_catch_exit() {
	local tid
	run catch_exit 1 -- "$PROG" catch || return
	tid=$(json_signal "$TMP/catch_exit" 1 tid)
	if [[ "$(marker "$TMP/catch_exit.fxt" "$tid" '\[crash\] SIGSEGV')" != *"handled:bool=true"* ]]; then
		fail catch_exit "no handled [crash] SIGSEGV on thread $tid"
	elif ! grep -q 'the program exited with status 1 after handling SIGSEGV (SEGV_MAPERR, address 0x0) in boom' \
		"$TMP/catch_exit.err"; then
		fail catch_exit "no summary line: $(grep -i program "$TMP/catch_exit.err")"
	else
		ok catch_exit
	fi
}

t_exit3() {
	run exit3_sh 3 -- sh -c 'exit 3' || return
	run exit3 3 -- "$PROG" exit3 || return
	if [[ "$(first_exit exit3)" != "3 null"* ]]; then
		fail exit3 "record.json's exits: $(rec_part "$TMP/exit3" exits)"
	elif ! grep -q 'the program exited with status 3$' "$TMP/exit3.err"; then
		fail exit3 "no summary line: $(grep -i program "$TMP/exit3.err")"
	elif "$CONVERT" --dump=records "$TMP/exit3.fxt" | grep -q 'name="\[\(crash\|signal\)\]'; then
		fail exit3 "a crash or signal marker in a program that exited"
	else
		ok exit3
	fi
}

# start_bg NAME ARGS...: snaptrace ARGS in the background (its pid in BGPID),
# until the target printed "ready" into $TMP/NAME.out.
start_bg() {
	local name=$1
	shift
	"$FRONT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	BGPID=$!
	BG+=("$BGPID")
	if ! wait_for "$TMP/$name.out" '^ready$' 30; then
		fail "$name" "the target never said ready: $(tl 3 "$TMP/$name.err")"
		return 1
	fi
}

# target_pid NAME: the pid of the recording NAME's target (record.json).
target_pid() {
	rec_field "$TMP/$1" pids.0
}

# kill_from PID [SIG]: SIG (SIGKILL) to PID from a process of its own, whose
# pid goes to KILLER (the sender the kernel tells; its comm is read while it
# runs).
kill_from() {
	sh -c 'sleep 0.2; exec kill -"$2" "$1"' sh "$1" "${2:-KILL}" &
	KILLER=$!
	wait "$KILLER"
}

t_sigkill() {
	local pid rc m
	start_bg sigkill run -d "$TMP/sigkill" -o "$TMP/sigkill.fxt" -- "$PROG" wait || return
	pid=$(target_pid sigkill)
	kill_from "$pid"
	wait "$BGPID"
	rc=$?
	m=$(triggers_marker "$TMP/sigkill.fxt" '\[signal\] SIGKILL')
	if [ "$rc" -ne 137 ]; then
		fail sigkill "snaptrace run exited $rc, expected 137: $(tl 3 "$TMP/sigkill.err")"
	elif ! [[ "$m " =~ " sender_pid:int64=$KILLER " ]]; then
		fail sigkill "expected [signal] SIGKILL from process $KILLER: '$m'"
	elif ! grep -q "the program was killed by SIGKILL (SI_USER) from process $KILLER" \
		"$TMP/sigkill.err"; then
		fail sigkill "no summary line: $(grep -i program "$TMP/sigkill.err")"
	else
		ok sigkill
	fi
}

t_sigterm() {
	local pid rc m
	start_bg sigterm run -d "$TMP/sigterm" -o "$TMP/sigterm.fxt" -- "$PROG" wait || return
	pid=$(target_pid sigterm)
	kill_from "$pid" TERM
	wait "$BGPID"
	rc=$?
	m=$(triggers_marker "$TMP/sigterm.fxt" '\[signal\] SIGTERM')
	if [ "$rc" -ne 143 ]; then
		fail sigterm "snaptrace run exited $rc, expected 143: $(tl 3 "$TMP/sigterm.err")"
	elif ! [[ "$m " =~ " sender_pid:int64=$KILLER " ]]; then
		fail sigterm "expected [signal] SIGTERM from process $KILLER: '$m'; markers: $(
			"$CONVERT" --dump=records "$TMP/sigterm.fxt" | grep -o 'name="\[[a-z]*\] [A-Z]*"' |
			sort -u | tr '\n' ' ')"
	elif [ -n "$(triggers_marker "$TMP/sigterm.fxt" '\[signal\] SIGKILL')" ] ||
		[ -n "$(rec_rows "$TMP/sigterm" signals name | grep -x SIGKILL)" ] ||
		[ "$(rec_field "$TMP/sigterm" exits.0.name)" = SIGKILL ]; then
		fail sigterm "the kernel's delivery as SIGKILL is shown as a SIGKILL"
	elif ! grep -q "the program was killed by SIGTERM (SI_USER) from process $KILLER" \
		"$TMP/sigterm.err"; then
		fail sigterm "no summary line: $(grep -i program "$TMP/sigterm.err")"
	else
		ok sigterm
	fi
}

t_thread_crash() {
	local pid tid
	run thread_crash 139 --multi-thread -- "$PROG" thread || return
	pid=$(target_pid thread_crash)
	tid=$(json_signal "$TMP/thread_crash" 1 tid)
	if [ "$tid" = "$pid" ] || [ -z "$tid" ]; then
		fail thread_crash "expected the crash in a second thread, found tid $tid (pid $pid)"
	elif [ "$(json_signal "$TMP/thread_crash" 1 unrecorded)" != false ] ||
		grep -q "not recorded" "$TMP/thread_crash.err"; then
		fail thread_crash "its thread is recorded, said not to be: unrecorded $(json_signal "$TMP/thread_crash" 1 unrecorded); $(grep "not recorded" "$TMP/thread_crash.err")"
	else
		crash_checks thread_crash SIGSEGV SEGV_MAPERR boom 0x0 && ok thread_crash
	fi
}

t_thread_crash_unrecorded() {
	local name=thread_crash_unrecorded pid tid line m
	run "$name" 139 -- "$PROG" thread || return
	pid=$(target_pid "$name")
	tid=$(json_signal "$TMP/$name" 1 tid)
	line=$(line_of '*p = 1;' "$SRC/crash_target.c")
	m=$(triggers_marker "$TMP/$name.fxt" '\[crash\] SIGSEGV')
	if [ "$tid" = "$pid" ] || [ -z "$tid" ] || [ "$(json_signal "$TMP/$name" 1 unrecorded)" != true ]; then
		fail "$name" "expected the crash in a second thread, not recorded: tid $tid (pid $pid), unrecorded $(json_signal "$TMP/$name" 1 unrecorded)"
	elif [ -z "$(triggers_marker "$TMP/$name.fxt" '\[crash\] SIGSEGV')" ]; then
		fail "$name" "no [crash] SIGSEGV on the triggers track"
	elif ! grep -q "snaptrace-convert: the program was killed by SIGSEGV (SEGV_MAPERR, address 0x0) in boom (crash_target.c:$line), thread $tid (not recorded: its stack is not in the trace; record every thread with --multi-thread)" \
		"$TMP/$name.err"; then
		fail "$name" "the summary line does not name where (boom, crash_target.c:$line) or does not say the thread is not recorded: $(grep -i 'killed' "$TMP/$name.err")"
	elif [[ "$m" != *'function:string="boom"'* ]] || [[ "$m" != *"line:uint64=$line "* ]]; then
		fail "$name" "the [crash] marker does not name boom at line $line: $m"
	else
		ok "$name"
	fi
}

t_threads_at_exit() {
	local d="$TMP/threads_at_exit" workers
	run threads_at_exit 0 --multi-thread --trigger none -- "$WL" leave 2 300 || return
	workers=$("$CONVERT" --dump=records "$d.fxt" | grep -c 'kobj thread koid=[0-9]* name="worker \[')
	if [ -n "$(rec_rows "$d" signals signal)" ] ||
		[ "$(rec_field "$d" end)" != exit ]; then
		fail threads_at_exit "record.json: $(rec_part "$d" signals) end $(rec_field "$d" end)"
	elif "$CONVERT" --dump=records "$d.fxt" | grep -q 'name="\[\(crash\|signal\)\]'; then
		fail threads_at_exit "a signal marker: $("$CONVERT" --dump=records "$d.fxt" | grep -o 'name="\[[a-z]*\] [A-Z]*"' | sort -u | tr '\n' ' ')"
	elif ! grep -q 'the program exited with status 0$' "$d.err"; then
		fail threads_at_exit "no summary line: $(grep -i program "$d.err")"
	elif [ "$workers" -lt 2 ]; then
		fail threads_at_exit "expected the 2 worker threads in the trace, found $workers named"
	else
		ok threads_at_exit
	fi
}

t_ctrl_c() {
	local rc sigs
	# Ctrl-C: SIGINT to the process group of the terminal (snaptrace and its
	# program), SIGINT at its default as on a terminal (SIGDFL): the program
	# dies of it, which the kernel delivers as a SIGKILL of its own
	setsid "$SIGDFL" "$FRONT" run -d "$TMP/ctrl_c" -o "$TMP/ctrl_c.fxt" -- "$PROG" sigint \
		>"$TMP/ctrl_c.out" 2>"$TMP/ctrl_c.err" &
	BGPID=$!
	BG+=("$BGPID")
	if ! wait_for "$TMP/ctrl_c.out" '^ready$' 30; then
		fail ctrl_c "the target never said ready: $(tl 3 "$TMP/ctrl_c.err")"
		return
	fi
	sleep 0.3
	kill -INT -- "-$BGPID"
	wait "$BGPID"
	rc=$?
	sigs=$(rec_rows "$TMP/ctrl_c" signals signal | wc -l)
	if [ "$rc" -ne 130 ]; then
		fail ctrl_c "snaptrace run exited $rc, expected 130 (SIGINT): $(tl 3 "$TMP/ctrl_c.err")"
	elif "$CONVERT" --dump=records "$TMP/ctrl_c.fxt" | grep -q 'name="\[\(crash\|signal\)\]'; then
		fail ctrl_c "Ctrl-C is drawn as a crash or signal: $("$CONVERT" --dump=records \
			"$TMP/ctrl_c.fxt" | grep -o 'name="\[[a-z]*\] [A-Z]*"' | head -3)"
	elif [ "$sigs" != 1 ] || [ "$(json_signal "$TMP/ctrl_c" 1 name)" != SIGINT ] ||
		[ "$(json_signal "$TMP/ctrl_c" 1 by_stop)" != true ]; then
		fail ctrl_c "record.json's signals: expected one SIGINT by_stop: $(rec_part \
			"$TMP/ctrl_c" signals)"
	elif [ "$(first_exit ctrl_c)" != "null 2 SIGINT" ]; then
		fail ctrl_c "record.json's exits: $(rec_part "$TMP/ctrl_c" exits)"
	elif ! grep -q 'the program was killed by SIGINT, which stopped the recording too' \
		"$TMP/ctrl_c.err"; then
		fail ctrl_c "no summary line: $(grep -i program "$TMP/ctrl_c.err")"
	else
		ok ctrl_c
	fi
}

t_attach_end() {
	local pid rc
	"$PROG" wait >"$TMP/attach_end.prog" 2>&1 &
	pid=$!
	BG+=("$pid")
	if ! wait_for "$TMP/attach_end.prog" '^ready$' 30; then
		fail attach_end "the target never said ready: $(tl 2 "$TMP/attach_end.prog")"
		return
	fi
	"$FRONT" attach -d "$TMP/attach_end" -o "$TMP/attach_end.fxt" --trigger none -p "$pid" \
		>/dev/null 2>"$TMP/attach_end.err" &
	BGPID=$!
	BG+=("$BGPID")
	# the start-up line ends "Ctrl-C to stop" or, SIGINT inherited as
	# ignored (a job started with &), "SIGTERM (kill PID) to stop"
	if ! wait_for "$TMP/attach_end.err" ' to stop$' 30; then
		fail attach_end "no start-up line: $(tl 3 "$TMP/attach_end.err")"
		kill -TERM "$BGPID"
		return
	fi
	kill_from "$pid"
	wait "$BGPID"
	rc=$?
	wait "$pid" 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		fail attach_end "snaptrace attach exited $rc, expected 0: $(tl 3 "$TMP/attach_end.err")"
	elif ! grep -q "process $pid was killed by SIGKILL (SI_USER) from process $KILLER" \
		"$TMP/attach_end.err"; then
		fail attach_end "no summary line: $(grep -i process "$TMP/attach_end.err" | tail -n 2)"
	else
		ok attach_end
	fi
}

t_bad_signal() {
	local rc
	"$FRONT" run -o "$TMP/bad.fxt" --trigger signal:NOPE -- "$PROG" exit3 >/dev/null \
		2>"$TMP/bad_signal.err"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "expected a signal name or number after 'signal:'" \
		"$TMP/bad_signal.err"; then
		fail bad_signal "exit $rc: $(tl 2 "$TMP/bad_signal.err")"
	else
		ok bad_signal
	fi
}

t_no_leftovers() {
	if no_procs; then ok no_leftovers; else fail no_leftovers "processes left running"; fi
}

# crash/NAME (tests/run.sh) runs case NAME alone
for t in ${1:-$NAMES}; do "t_$t"; done
