#!/usr/bin/env bash
# tier: record
# The abort probes (record/abortcause.h, record/sigwatch.h): the cause of a
# SIGABRT recorded for real with tests/record/aborts/abort_target.c, and what
# the probes cost: how many uprobe events the recorder opens for them.
#   probe_count    a launched C program that fails an assert(): cause "assert()
#                  failed" with 1 to 3 uprobe events (record.json's
#                  "abort_probes", one per file holding causes: the C library),
#                  whatever the number of CPUs or of cause functions; and the
#                  recorder's perf event fds while it records (read in /proc,
#                  not told by the recorder) at most the CPUs' signal_generate
#                  and 10 more (before: 7 abort uprobes on every CPU, 21 fds on 2)
#   causes         stack smashing (__stack_chk_fail), a fortify check
#                  (__chk_fail), assert_perror(), abort(): each names its
#                  cause, found on the stack at the abort probe
#   thread_later   a thread created after the recording started fails an assert():
#                  its cause named (the probe is inherited), and the thread was
#                  created (the program is unchanged: pthread_create succeeds)
#   attached       attached to a program with one thread: one uprobe event; with
#                  more threads than CPUs: one per CPU; the cause named in both
#   definitions    the tracefs uprobe definitions (record/uprobedef.h): none
#                  left of a recording's, and one a killed recorder left (its
#                  process gone) removed by the next recording
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

SRC="$SNAPTRACE_TOP/tests/record/aborts/abort_target.c"
PROG="$TMP/abort_target"
FORT="$TMP/abort_fortify"
NAMES="probe_count causes thread_later attached definitions"
need_recording aborts
need_built aborts "$CONVERT"
requires_all signal_tracepoints cc
if ! cc -std=c11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -pthread \
	-fstack-protector-all -U_FORTIFY_SOURCE -o "$PROG" "$SRC" 2>"$TMP/cc.log" ||
	! cc -std=c11 -Wall -Wextra -O2 -g -pthread -D_FORTIFY_SOURCE=2 \
		-o "$FORT" "$SRC" 2>>"$TMP/cc.log"; then
	fail_all "tests/record/aborts: $(first_lines "$TMP/cc.log")"
fi
TARGETS=("$PROG" "$FORT")
ulimit -c 0   # no core files of the aborts
NCPU=$(getconf _NPROCESSORS_CONF)

# rec NAME ARGS...: snaptrace-record --trigger none into $TMP/NAME, its
# stderr in $TMP/NAME.err; 1 with a FAIL line unless it exits 0.
rec() {
	local name=$1
	shift
	if ! "$RECORD" -q --trigger none -o "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"; then
		fail "$name" "snaptrace-record failed: $(tl 3 "$TMP/$name.err")"
		return 1
	fi
}

# cause_is NAME CAUSE: recording NAME's first signal is a SIGABRT that ended
# the target, with CAUSE; 1 with a FAIL line otherwise.
cause_is() {
	local got
	got="$(rec_field "$TMP/$1" signals.0.name) $(rec_field "$TMP/$1" exits.0.signal) $(
		rec_field "$TMP/$1" signals.0.cause)"
	if [ "$got" != "SIGABRT 6 $2" ]; then
		fail "$1" "expected SIGABRT 6 $2, found '$got': $(rec_part "$TMP/$1" signals)"
		return 1
	fi
}

# perf_fds PID: how many perf events process PID holds open.
perf_fds() {
	local n=0 f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:[perf_event]" ] && n=$((n + 1))
	done
	echo "$n"
}

# watch NAME THREADS [attach]: records abort_target attach THREADS, launched
# or attached to, until it aborts: the recorder's perf event fds counted in
# FDS once the target runs, its pid in RECPID; 1 with a FAIL line on a
# failure.
watch() {
	local name=$1 pid="" go="$TMP/$1.go"
	if [ "${3:-}" = attach ]; then
		"$PROG" attach "$2" "$go" >"$TMP/$name.prog" 2>&1 &
		pid=$!
		BG+=("$pid")
		if ! wait_for "$TMP/$name.prog" '^ready$' 30; then
			fail "$name" "the target never said ready: $(tl 2 "$TMP/$name.prog")"
			return 1
		fi
		"$RECORD" --trigger none -o "$TMP/$name" -p "$pid" >/dev/null 2>"$TMP/$name.err" &
	else
		"$RECORD" --trigger none -o "$TMP/$name" -- "$PROG" attach "$2" "$go" \
			>"$TMP/$name.prog" 2>"$TMP/$name.err" &
	fi
	RECPID=$!
	BG+=("$RECPID")
	# the start-up line ends "Ctrl-C to stop" or "SIGTERM (kill PID) to stop"
	if ! wait_for "$TMP/$name.prog" '^ready$' 30 || ! wait_for "$TMP/$name.err" ' to stop$' 30; then
		fail "$name" "the target never ran recorded: $(tl 2 "$TMP/$name.prog") $(tl 3 "$TMP/$name.err")"
		return 1
	fi
	FDS=$(perf_fds "$RECPID")
	touch "$go"
	[ -z "$pid" ] || wait "$pid" 2>/dev/null
	if ! wait "$RECPID"; then
		fail "$name" "snaptrace-record failed: $(tl 3 "$TMP/$name.err")"
		return 1
	fi
}

t_probe_count() {
	local n
	watch probe_count 0 || return
	n=$(rec_field "$TMP/probe_count" abort_probes)
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 3 ]; then
		fail probe_count "expected 1 to 3 uprobe events for the abort causes of a C program, record.json says '$n'"
	elif [ "$FDS" -gt $((NCPU + 10)) ]; then
		fail probe_count "the recorder held $FDS perf events while it recorded, expected at most $((NCPU + 10)) ($NCPU CPUs)"
	else
		cause_is probe_count 'assert() failed' && ok probe_count
	fi
}

t_causes() {
	local m want
	for m in smash perror abort; do
		case $m in
		smash) want='stack smashing detected' ;;
		perror) want='assert() failed' ;;
		abort) want='abort()' ;;
		esac
		rec "causes_$m" -- "$PROG" "$m" && cause_is "causes_$m" "$want" || return
	done
	rec causes_fortify -- "$FORT" fortify &&
		cause_is causes_fortify 'buffer overflow detected' && ok causes
}

t_thread_later() {
	local d="$TMP/thread_later" tid
	rec thread_later -- "$PROG" thread || return
	tid=$(rec_field "$d" signals.0.tid)
	if grep -q 'pthread_create failed' "$d.err"; then
		fail thread_later "the program could not create its thread while recorded: $(tl 2 "$d.err")"
	elif [ -z "$tid" ] || [ "$tid" = "$(rec_field "$d" pids.0)" ]; then
		fail thread_later "expected the SIGABRT in the second thread: $(rec_part "$d" signals)"
	else
		cause_is thread_later 'assert() failed' && ok thread_later
	fi
}

t_attached() {
	local one many
	watch attached_one 0 attach && cause_is attached_one 'assert() failed' || return
	watch attached_many "$NCPU" attach && cause_is attached_many 'assert() failed' || return
	one=$(rec_field "$TMP/attached_one" abort_probes)
	many=$(rec_field "$TMP/attached_many" abort_probes)
	if [ "$one" != 1 ] || [ "$many" != "$NCPU" ]; then
		fail attached "expected 1 uprobe event on 1 thread, $NCPU on $((NCPU + 1)) threads ($NCPU CPUs): $one, $many"
	else
		ok attached
	fi
}

t_definitions() {
	local ev=/sys/kernel/tracing/uprobe_events dead libc
	requires definitions root || return
	[ -w "$ev" ] || ev=/sys/kernel/debug/tracing/uprobe_events
	libc=$(ldd "$PROG" | awk '$1 ~ /^libc\.so/ { print $3 }')
	# a process that has ended: the recorder it stands for is gone
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	if ! echo "p:snaptrace_$dead/abort_0 $libc:0x0" >>"$ev" 2>"$TMP/definitions.w"; then
		fail definitions "cannot define a uprobe in $ev: $(first_lines "$TMP/definitions.w")"
		return
	fi
	watch definitions 0 || return
	if grep -q "^p:snaptrace_$dead/" "$ev"; then
		fail definitions "the definition of a recorder gone is left: $(grep snaptrace_ "$ev" | head -3)"
		echo "-:snaptrace_$dead/abort_0" >>"$ev"
	elif grep -q "^p:snaptrace_$RECPID/" "$ev"; then
		fail definitions "the recording left its definitions: $(grep snaptrace_ "$ev" | head -3)"
	else
		cause_is definitions 'assert() failed' && ok definitions
	fi
}

run_tests ${ONLY[@]:+"${ONLY[@]}"} $NAMES
