#!/usr/bin/env bash
# tier: record
# End-to-end tests of snaptrace-record and the snaptrace front end on this
# machine: real perf (sampling mode unless the host has Intel PT), real
# triggers. Every snapshot is converted and read back with
# `snaptrace-convert --dump=slices`. Needs perf and permission to use it
# (root here); skips otherwise. No perf or target process may outlive a test.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
DEMO="$SNAPTRACE_O/examples/demo"
export SNAPTRACE_BIN

NAMES="demo_default_trigger attach_named_trigger duration sigint_keeps_data
target_sigkill_keeps_data second_thread_trigger attach_threads_unrecorded multi_thread missing_symbol dead_pid missing_perf
usage_error check_report installed_layout recorder_killed stripped_target breakpoint_mechanism
unprivileged_user perf_refuses perf_killed start_not_missed start_not_missed_without_control
short_lived_targets attached_targets_exit grandchildren_end children_named addr_zero rebuilt_binary arm_after no_probe_after_release
hot_trigger_lookback hot_trigger_multi hits_accounted no_leftovers"
need_recording record
need_built record "$CONVERT" "$DEMO"

# The target: the workload (tests/workload/workload.c), its modes work,
# hits, storm, until, thread and fork.
use_workload record
TARGETS=("$PROG" "$DEMO")

# nested SLICES OUTER MID INNER: OUTER at depth D, MID at D+1 and INNER at
# D+2 in one thread.
nested() {
	echo "$1" | awk -v o="$2" -v m="$3" -v i="$4" '
		{ d[$1 " " $3] = d[$1 " " $3] " " $2 " " }
		END {
			for (k in d) {
				split(k, kk, " "); if (kk[2] != o) continue
				split(d[k], ds, " ")
				for (j in ds) {
					D = ds[j] + 0
					if (index(d[kk[1] " " m], " " D + 1 " ") &&
					    index(d[kk[1] " " i], " " D + 2 " "))
						exit 0
				}
			}
			exit 1
		}'
}


t_demo_default_trigger() {
	local d="$TMP/demo" s
	if ! "$FRONT" run -o "$TMP/demo.fxt.gz" -d "$d" -- "$DEMO" >"$TMP/demo.out" \
		2>"$TMP/demo.err"; then
		fail demo_default_trigger "snaptrace run failed: $(tl 3 "$TMP/demo.err")"
		return
	fi
	if [ "$(rec_field "$d" end)" != trigger ]; then
		fail demo_default_trigger "end is not trigger: $(rec_field "$d" end)"
		return
	fi
	if [ "$(rec_field "$d" trigger.spec)" != magic_trace_stop_indicator ]; then
		fail demo_default_trigger "default trigger not magic_trace_stop_indicator"
		return
	fi
	s=$("$CONVERT" --dump=slices "$TMP/demo.fxt.gz") ||
		{ fail demo_default_trigger "cannot read demo.fxt.gz back"; return; }
	# a newcomer's first screen: no warning a user cannot act on. The
	# demo's chains cut at a loop are past glibc's clone3 (under
	# pthread_create, no frame pointer): a coverage fact of the summary
	# naming it, never a warning (docs/design.md "A chain cut at a loop");
	# a chain the samples around place has no cut frame
	if grep -q 'warning: .*repeats* a frame' "$TMP/demo.err"; then
		fail demo_default_trigger "a loop warning on the first screen: $(grep 'repeats* a frame' \
			"$TMP/demo.err" | cut -c1-200)"
		return
	fi
	# demo_arith, a leaf without a frame, shows under demo_outer (fp gap)
	if ! nested "$s" demo_outer demo_middle demo_inner; then
		fail demo_default_trigger "demo_outer > demo_middle > demo_inner not nested:" \
			"$(echo "$s" | head -n 5 | tr '\n' ';')"
		return
	fi
	nested "$s" main demo_outer demo_middle ||
		{ fail demo_default_trigger "main > demo_outer > demo_middle not nested"; return; }
	ok demo_default_trigger
}

t_attach_named_trigger() {
	local d="$TMP/attach" pid s rc
	"$PROG" hits 0 200 &
	pid=$!
	BG+=("$pid")
	wait_exec "$pid" "$PROG"
	# armed after 0.3 s: a hit at once found a ring holding no sample of
	# work_leaf on a machine loaded 13 deep (the work of the call before)
	"$FRONT" attach -p "$pid" --trigger work_top --arm-after 0.3 -o "$TMP/attach.fxt.gz" -d "$d" \
		>"$TMP/attach.out" 2>"$TMP/attach.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail attach_named_trigger "exit $rc: $(tl 3 "$TMP/attach.err")"
	elif [ "$(rec_field "$d" end)" != trigger ]; then
		fail attach_named_trigger "end is $(rec_field "$d" end), not trigger"
	elif ! kill -0 "$pid" 2>/dev/null; then
		fail attach_named_trigger "the attached process did not survive the recording"
	elif ! s=$("$CONVERT" --dump=slices "$TMP/attach.fxt.gz") ||
		! nested "$s" work_top work_mid work_leaf; then
		fail attach_named_trigger "work_top > work_mid > work_leaf not in the trace"
	elif ! rec_rows "$d" hits pid tid | grep -q -x "$pid $pid"; then
		fail attach_named_trigger "no hit of process $pid in record.json"
	else
		ok attach_named_trigger
	fi
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

t_duration() {
	local d="$TMP/duration" t0 t1 rc
	t0=$(date +%s%N)
	timeout -k 5 60 "$RECORD" -q -o "$d" --trigger none --duration 0.5 -- "$PROG" work \
		>/dev/null 2>"$TMP/duration.err"
	rc=$?
	t1=$(date +%s%N)
	if [ $rc -ne 0 ]; then
		fail duration "exit $rc: $(tl 3 "$TMP/duration.err")"
	elif [ "$(rec_field "$d" end)" != duration ]; then
		fail duration "end is $(rec_field "$d" end), not duration"
	elif [ $(((t1 - t0) / 1000000)) -gt 15000 ]; then
		fail duration "took $(((t1 - t0) / 1000000)) ms for --duration 0.5"
	elif ! slices_of "$d" $(snaps "$d" duration) | grep -q ' work_leaf$'; then
		fail duration "the duration snapshot has no work_leaf"
	elif ! no_procs; then
		fail duration "a perf or target process is left"
	else
		ok duration
	fi
}

# start_forever NAME: launches the recorder on "workload bursts 2 8" (for
# ever: 2 ms of nested work, 8 ms asleep; the signals are the subject, not a
# busy target) in the background, waits until it records; sets REC_PID and
# REC_DIR.
start_forever() {
	REC_DIR="$TMP/$1"
	"$SIGDFL" "$RECORD" -o "$REC_DIR" --trigger none -- "$PROG" bursts 2 8 >/dev/null 2>"$TMP/$1.err" &
	REC_PID=$!
	BG+=("$REC_PID")
	wait_for "$TMP/$1.err" "^snaptrace-record: recording" 30
}

t_sigint_keeps_data() {
	local rc
	if ! start_forever sigint; then
		fail sigint_keeps_data "the recorder did not start: $(tl 2 "$TMP/sigint.err")"
		return
	fi
	sleep 0.3
	kill -INT "$REC_PID"
	wait "$REC_PID"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail sigint_keeps_data "exit $rc after SIGINT: $(tl 3 "$TMP/sigint.err")"
	elif [ "$(rec_field "$REC_DIR" end)" != interrupt ]; then
		fail sigint_keeps_data "end: $(rec_field "$REC_DIR" end), not interrupt"
	elif ! slices_of "$REC_DIR" $(snaps "$REC_DIR") | grep -q ' work_leaf$'; then
		fail sigint_keeps_data "the snapshot has no work_leaf"
	elif ! no_procs; then
		fail sigint_keeps_data "a perf or target process is left"
	else
		ok sigint_keeps_data
	fi
}

t_target_sigkill_keeps_data() {
	local rc target
	if ! start_forever sigkill; then
		fail target_sigkill_keeps_data "the recorder did not start"
		return
	fi
	sleep 0.3
	target=$(pgrep -P "$REC_PID" -f "^$PROG")
	kill -9 $target
	wait "$REC_PID"
	rc=$?
	if [ -z "$target" ]; then
		fail target_sigkill_keeps_data "no target process found"
	elif [ $rc -ne 0 ]; then
		fail target_sigkill_keeps_data "exit $rc: $(tl 3 "$TMP/sigkill.err")"
	elif [ "$(rec_field "$REC_DIR" end)" != signal ] &&
		! { ! requires target_sigkill_keeps_data signal_tracepoints >/dev/null &&
			[ "$(rec_field "$REC_DIR" end)" = exit ]; }; then
		# the snapshot at the signal that ended it (README "When the program
		# fails"); "exit" where the host does not let the signals be watched
		fail target_sigkill_keeps_data "end: $(rec_field "$REC_DIR" end)"
	elif ! slices_of "$REC_DIR" $(snaps "$REC_DIR") | grep -q ' work_leaf$'; then
		fail target_sigkill_keeps_data "the snapshot has no work_leaf (symbols lost?)"
	elif ! no_procs; then
		fail target_sigkill_keeps_data "a perf or target process is left"
	else
		ok target_sigkill_keeps_data
	fi
}

# SIGKILL of the recorder: the launched target and perf go with it, and perf
# still writes its snapshot (record.json is the one written at the start).
t_recorder_killed() {
	local i
	if ! start_forever killed; then
		fail recorder_killed "the recorder did not start"
		return
	fi
	sleep 0.5
	kill -9 "$REC_PID"
	wait "$REC_PID" 2>/dev/null
	# perf writes its snapshot, then ends (30 s at most: a loaded machine)
	for ((i = 0; i < 300; i++)); do
		no_procs && break
		sleep 0.1
	done
	if ! no_procs; then
		fail recorder_killed "left after SIGKILL of the recorder:" \
			"$(pgrep -s 0 -af "^$PROG") $(own_perfs)"
	elif [ "$(rec_field "$REC_DIR" end)" != none ]; then
		fail recorder_killed "record.json: end '$(rec_field "$REC_DIR" end)', not none"
	elif ! ls "$REC_DIR"/perf.data.* >/dev/null 2>&1; then
		fail recorder_killed "no snapshot file: $(ls "$REC_DIR" | tr '\n' ' ')"
	elif ! slices_of "$REC_DIR" $(cd "$REC_DIR" && ls perf.data.*) | grep -q ' work_leaf$'; then
		fail recorder_killed "the snapshot does not convert: $(tl 2 "$REC_DIR/convert.log")"
	else
		ok recorder_killed
	fi
}

# the trigger in a second thread, which the default recording (the main
# thread) leaves out: the hit takes no snapshot (its trace would not show
# it; issue 24), is counted (hits_unrecorded) and said; the recording runs
# on to the program's exit
t_second_thread_trigger() {
	local d="$TMP/thread" n
	if ! "$RECORD" -q -o "$d" --arm-after 0 -- "$PROG" thread 300 >/dev/null 2>"$TMP/thread.err"; then
		fail second_thread_trigger "exit non-zero: $(tl 3 "$TMP/thread.err")"
		return
	fi
	n=$(rec_field "$d" hits_unrecorded)
	if [ "$(rec_field "$d" end)" = trigger ] || [ -n "$(first_hit "$d")" ]; then
		fail second_thread_trigger "the hit in the thread not recorded took a snapshot: end $(rec_field "$d" end), hit '$(first_hit "$d")'"
	elif [ "${n:-0}" -lt 1 ] || ! grep -q "which is not recorded .*ignored" "$TMP/thread.err"; then
		fail second_thread_trigger "the ignored hit is not counted ($n) or said: $(tl 2 "$TMP/thread.err")"
	elif ! no_procs; then
		fail second_thread_trigger "a perf or target process is left"
	else
		ok second_thread_trigger
	fi
}

# Attached to a process with two worker threads besides the main one,
# without --multi-thread: the recorder says at the start that the other 2
# threads are not in the trace, with the hint, and the trace read back has
# no worker; with --multi-thread it says nothing of the kind and the workers
# are in the trace.
t_attach_threads_unrecorded() {
	local d="$TMP/attach-threads" pid want bad="" workers
	"$PROG" leave 2 120000 &   # killed below: outlives two recordings on a loaded machine
	pid=$!
	BG+=("$pid")
	wait_exec "$pid" "$PROG"
	want="warning: process $pid has 3 threads: only its main thread is recorded, what the other 2 run is not in the trace; record every thread with --multi-thread"
	for mt in "" --multi-thread; do
		rm -rf "$d$mt"
		if ! "$RECORD" -q -o "$d$mt" -p "$pid" $mt --trigger none --duration 0.3 \
			2>"$d$mt.err" || ! "$CONVERT" --quiet "$d$mt" -o "$d$mt.fxt" 2>>"$d$mt.err"; then
			bad+="[${mt:-main thread only}: failed: $(tl 3 "$d$mt.err")]"
			continue
		fi
		workers=$("$CONVERT" --dump=records "$d$mt.fxt" | grep -c 'kobj thread koid=[0-9]* name="worker \[')
		if [ -z "$mt" ] && { ! grep -qF "$want" "$d.err" || [ "$workers" != 0 ]; }; then
			bad+="[main thread only: $workers workers in the trace; $(grep -c 'not in the trace' "$d.err") warnings: $(tl 2 "$d.err")]"
		elif [ -n "$mt" ] && { grep -q "not in the trace" "$d$mt.err" || [ "$workers" -lt 2 ]; }; then
			bad+="[--multi-thread: $workers workers in the trace; $(tl 2 "$d$mt.err")]"
		fi
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -n "$bad" ]; then fail attach_threads_unrecorded "$bad"; else ok attach_threads_unrecorded; fi
}

# --multi-thread: both threads of "workload thread" are in the trace.
t_multi_thread() {
	local d="$TMP/mthread" tids
	if ! "$RECORD" -q -o "$d" --multi-thread --arm-after 0 -- "$PROG" thread 300 >/dev/null \
		2>"$TMP/mthread.err"; then
		fail multi_thread "exit non-zero: $(tl 3 "$TMP/mthread.err")"
		return
	fi
	tids=$(slices_of "$d" $(snaps "$d") | awk '$3 == "work_leaf" { print $1 }' | sort -u |
		wc -l)
	if [ "$tids" -ne 2 ]; then
		fail multi_thread "expected work_leaf in 2 threads, found $tids"
	elif ! no_procs; then
		fail multi_thread "a perf or target process is left"
	else
		ok multi_thread
	fi
}

# The tracer changes nothing the program does while it runs (issue 24: a
# 63 ms [off-cpu] D in clone3 looked like the recorder's probes): every
# probe and tracepoint the recorder registers (tracefs uprobe_events, a
# uprobe, breakpoint or tracepoint perf_event_open) comes before it lets
# the launched program go (PTRACE_DETACH); after it only dummy software
# events (the perf clock reads). The program here makes a thread.
t_no_probe_after_release() {
	local log="$TMP/noprobe.strace" late
	requires no_probe_after_release strace || return
	strace -tt -o "$log" -e trace=ptrace,perf_event_open,openat,wait4 \
		"$RECORD" -q -o "$TMP/noprobe" --multi-snapshot --trigger work_mid \
		--trigger-slower-than 1ms --duration 5 -- "$PROG" thread 300 >/dev/null \
		2>"$TMP/noprobe.err"
	# from the program's release to its reaping (the recorder's release of
	# its own probes comes after the program's end)
	late=$(awk '/PTRACE_DETACH/ && !pid { pid = $3; sub(/,$/, "", pid); on = 1; next }
		on && /wait4\(/ && $NF == pid { exit }
		on && (/uprobe_events|kprobe_events/ ||
		       /perf_event_open\(\{type=(PERF_TYPE_TRACEPOINT|PERF_TYPE_BREAKPOINT|0x)/) {
			print substr($0, 1, 120) }' "$log")
	if ! grep -q PTRACE_DETACH "$log"; then
		fail no_probe_after_release "no PTRACE_DETACH of the launched program: $(tl 3 "$TMP/noprobe.err")"
	elif [ -n "$late" ]; then
		fail no_probe_after_release "registered after the program was let go: $late"
	else
		ok no_probe_after_release
	fi
}

t_stripped_target() {
	local rc
	cp "$PROG" "$TMP/stripped" && strip "$TMP/stripped"
	"$RECORD" -o "$TMP/strip" --trigger work_mid -- "$TMP/stripped" work 100 >/dev/null \
		2>"$TMP/strip.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail stripped_target "exit $rc, expected 1"
	elif ! grep -q "expected a symbol table to find 'work_mid', found none" \
		"$TMP/strip.err"; then
		fail stripped_target "unexpected message: $(cat "$TMP/strip.err")"
	else
		ok stripped_target
	fi
}

# Hardware breakpoints, also in a thread created after the start (recorded:
# --multi-thread; a hit in a thread not recorded is ignored). Some VMs
# open the event but never deliver it: requirement breakpoints).
t_breakpoint_mechanism() {
	local d="$TMP/bp" hit
	requires breakpoint_mechanism breakpoints || return
	if ! "$RECORD" -q -o "$d" --trigger-mechanism breakpoint --arm-after 0 --multi-thread -- "$PROG" thread 300 >/dev/null \
		2>"$TMP/bp.err"; then
		fail breakpoint_mechanism "exit non-zero: $(tl 3 "$TMP/bp.err")"
		return
	fi
	hit=$(first_hit "$d")
	if [ "$(rec_field "$d" trigger.mechanism)" != breakpoint ]; then
		fail breakpoint_mechanism "record.json does not say breakpoint"
	elif [ -z "$hit" ] || [ "${hit% *}" = "${hit#* }" ]; then
		fail breakpoint_mechanism "expected a hit in the second thread, found '$hit'"
	elif ! slices_of "$d" $(snaps "$d") | grep -q ' work_leaf$'; then
		fail breakpoint_mechanism "the snapshot has no work_leaf"
	else
		ok breakpoint_mechanism
	fi
}

# As an unprivileged user: user-space recording works (auto picks what fires
# for that user), --kernel is refused with the reason.
t_unprivileged_user() {
	local pub="$TMP/pub" rc1 rc2
	requires unprivileged_user second_user || return
	chmod 711 "$TMP"
	mkdir -p "$pub" && chmod 777 "$pub"
	cp "$PROG" "$pub/prog" && chmod 755 "$pub/prog"
	(cd "$pub" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$RECORD" -o "$pub/k" --kernel -- "$pub/prog" work 100 >/dev/null 2>"$pub/k.err")
	rc1=$?
	(cd "$pub" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$RECORD" -q -o "$pub/u" --arm-after 0 -- "$pub/prog" hits 1 300 >/dev/null 2>"$pub/u.err")
	rc2=$?
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ] &&
		{ [ $rc1 -ne 1 ] || ! grep -q "no permission to record" "$pub/k.err"; }; then
		fail unprivileged_user "--kernel as nobody: exit $rc1: $(cat "$pub/k.err")"
	elif ! requires unprivileged_user user_recording; then
		:
	elif [ $rc2 -ne 0 ] && grep -q "neither did" "$pub/u.err" &&
		! requires unprivileged_user breakpoints; then
		: # a normal user's trigger needs a hardware breakpoint
	elif [ $rc2 -ne 0 ]; then
		fail unprivileged_user "as nobody: exit $rc2: $(tl 2 "$pub/u.err")"
	elif [ "$(rec_field "$pub/u" end)" != trigger ]; then
		fail unprivileged_user "as nobody: end is $(rec_field "$pub/u" end)"
	else
		ok unprivileged_user
	fi
}

t_perf_refuses() {
	local rc
	"$RECORD" -o "$TMP/refuse" --perf-arg --no-such-perf-option -- "$PROG" work >/dev/null \
		2>"$TMP/refuse.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail perf_refuses "exit $rc, expected 1"
	elif ! grep -q "perf exited before recording: .*perf said:" "$TMP/refuse.err" ||
		! grep -q "unknown option .no-such-perf-option" "$TMP/refuse.err"; then
		fail perf_refuses "perf's message not shown: $(head -n 3 "$TMP/refuse.err")"
	elif ! no_procs; then
		fail perf_refuses "the launched target is left"
	else
		ok perf_refuses
	fi
}

t_perf_killed() {
	local rc perf
	if ! start_forever perfkill; then
		fail perf_killed "the recorder did not start"
		return
	fi
	perf=$(own_perfs "$REC_DIR" | cut -d ' ' -f 1)
	kill -9 $perf
	wait "$REC_PID"
	rc=$?
	if [ -z "$perf" ]; then
		fail perf_killed "no perf process found"
	elif [ $rc -ne 1 ]; then
		fail perf_killed "exit $rc, expected 1"
	elif ! grep -q "perf exited while the target was running" "$TMP/perfkill.err"; then
		fail perf_killed "unexpected message: $(tl 2 "$TMP/perfkill.err")"
	elif ! no_procs; then
		fail perf_killed "the launched target is left"
	else
		ok perf_killed
	fi
}

# start_not_missed NAME [RECORD OPTIONS]: "workload cpufirst 50 hits 1 100"
# spins 50 ms of its own CPU time in snaptrace_cpu_spin, then works 100 ms
# and hits the trigger; the snapshot must reach back to the program's start:
# most of that spin is sampled (perf takes 100 to 500 ms to become ready,
# record.json's ready_ms: a start released too early misses all of it).
# Little work after the spin: on a loaded machine every preemption adds a
# context-switch record with 512 bytes of stack to the overwriting ring,
# which then holds less time (the wall time before the hit once decided,
# then 300 ms of work: at load 9 the ring no longer reached the start).
start_not_missed() {
	local name=$1 d="$TMP/$1" f n
	shift
	if ! "$RECORD" -q -o "$d" --arm-after 0 "$@" -- "$PROG" cpufirst 50 hits 1 100 >/dev/null \
		2>"$TMP/$name.err"; then
		fail "$name" "exit non-zero: $(tl 3 "$TMP/$name.err")"
		return
	fi
	f=$(snaps "$d" trigger | head -n 1)
	# 50 ms of the program's CPU time at 5000 samples a second: about 250
	# samples in snaptrace_cpu_spin, however loaded the machine (the wall
	# time before the hit once decided, and a loaded machine failed it)
	n=$(PAGER=cat perf script -i "$d/$f" -F ip,sym 2>/dev/null | grep -c 'snaptrace_cpu_spin')
	if [ -z "$f" ]; then
		fail "$name" "no trigger snapshot: $(tl 3 "$TMP/$name.err")"
	elif [ "$n" -lt 25 ]; then
		fail "$name" "$n samples of the program's first 50 ms of CPU time (about 250 when perf records from its first instruction)"
	else
		ok "$name"
	fi
}

# expect_error NAME STATUS PATTERN CMD...: CMD must exit with STATUS, say a
# line matching PATTERN on stderr, and leave no process behind.
expect_error() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	"$@" >/dev/null 2>"$TMP/$name.err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name" "exit $rc, expected $want"
	elif ! grep -q "$pattern" "$TMP/$name.err"; then
		fail "$name" "unexpected message: $(cat "$TMP/$name.err")"
	elif ! no_procs; then
		fail "$name" "a process is left"
	else
		ok "$name"
	fi
}

t_missing_symbol() {
	# the closest names are suggested
	expect_error missing_symbol 1 "expected a function named 'work_mdi'.*closest:.*work_mid" \
		"$RECORD" -o "$TMP/nosym" --trigger work_mdi -- "$PROG" work 100
}

t_dead_pid() {
	local dead
	true &
	dead=$!
	wait "$dead"
	expect_error dead_pid 1 "^snaptrace-record: -p $dead: expected a running process" \
		"$RECORD" -o "$TMP/dead" -p "$dead"
}

t_missing_perf() {
	expect_error missing_perf 1 "perf: expected the perf program, found none" \
		"$RECORD" -o "$TMP/noperf" --perf "$TMP/no-such-perf" -- "$PROG" work 100
}

t_usage_error() {
	local rc1 rc2
	"$RECORD" >/dev/null 2>&1
	rc1=$?
	"$RECORD" --mode bogus -- true >/dev/null 2>&1
	rc2=$?
	if [ $rc1 -ne 2 ] || [ $rc2 -ne 2 ]; then
		fail usage_error "exit $rc1 and $rc2, expected 2 and 2"
	else
		ok usage_error
	fi
}

t_check_report() {
	local out
	out=$("$FRONT" check 2>&1)
	if ! echo "$out" | grep -q '^perf version: [0-9]'; then
		fail check_report "no perf version line: $(echo "$out" | head -n 3 | tr '\n' ';')"
	elif ! echo "$out" | grep -q '^uprobe trigger: fires$\|^breakpoint trigger: fires$'; then
		fail check_report "no trigger mechanism fires"
	elif [ -e /sys/bus/event_source/devices/intel_pt ] &&
		! echo "$out" | grep -q '^mode auto picks: pt'; then
		fail check_report "Intel PT present but auto does not pick it"
	elif [ ! -e /sys/bus/event_source/devices/intel_pt ] &&
		! echo "$out" | grep -q '^mode auto picks: sampling'; then
		fail check_report "no Intel PT but auto does not pick sampling"
	else
		ok check_report
	fi
}

# make install: the front end finds its programs in PREFIX/libexec/snaptrace.
t_installed_layout() {
	local p="$TMP/prefix" rc
	# -o: install the programs under test as they are (never rebuilt here
	# without the flags they were built with, e.g. SAN=1)
	if ! make -s -C "$SNAPTRACE_TOP" O="$SNAPTRACE_O" PREFIX="$p" \
		-o "$RECORD" -o "$CONVERT" install >"$TMP/install.log" 2>&1; then
		fail installed_layout "make install failed: $(tl 3 "$TMP/install.log")"
		return
	fi
	(cd "$TMP" && env -u SNAPTRACE_BIN "$p/bin/snaptrace" run -q -o "$TMP/inst.fxt.gz" \
		--duration 0.3 --trigger none -- "$PROG" work >/dev/null 2>"$TMP/inst.err")
	rc=$?
	if [ $rc -ne 0 ]; then
		fail installed_layout "installed snaptrace run: exit $rc: $(tl 2 "$TMP/inst.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/inst.fxt.gz" | grep -q ' work_leaf$'; then
		fail installed_layout "the trace of the installed front end has no work_leaf"
	elif ! no_procs; then
		fail installed_layout "a perf or target process is left"
	else
		ok installed_layout
	fi
}

# exits_clean DIR ARGS...: the recorder with ARGS into DIR ends with the
# target's exit, status 0 and a snapshot that converts; else says why.
exits_clean() {
	local d=$1
	shift
	if ! "$RECORD" -q -o "$d" "$@" >/dev/null 2>"$d.err"; then
		echo "exit non-zero: $(tl 3 "$d.err")"
	elif [ "$(rec_field "$d" end)" != exit ]; then
		echo "end is $(rec_field "$d" end), not exit"
	elif ! slices_of "$d" $(snaps "$d") | grep -q ' work_'; then
		echo "the snapshot does not convert: $(tl 2 "$d/convert.log")"
	fi
}

# A target that exits by itself while perf records (perf may see the exit
# before the recorder can reap it): exit 0 and a snapshot, every time (3
# times, 30 under make test-stress); the same for attached targets.
t_short_lived_targets() {
	local d="$TMP/short" i bad="" n
	n=$(stress_count 3 30)
	mkdir -p "$d"
	for ((i = 0; i < n && ${#bad} == 0; i++)); do
		bad=$(exits_clean "$d/$i" -- "$PROG" work 50)
		# progress for the runner's hang guard: 30 recordings under
		# make test-stress on a loaded machine outlast its 300 s of silence
		((i % 5 == 4)) && echo "# short_lived_targets: $((i + 1)) of $n runs"
	done
	if [ -n "$bad" ]; then
		fail short_lived_targets "run $i: $bad"
	elif ! no_procs; then
		fail short_lived_targets "a perf or target process is left"
	else
		ok short_lived_targets
	fi
}

# attached_exit DIR: attaches to "workload until DIR.go", which exits by itself
# once the recorder records; says what is wrong.
attached_exit() {
	local d=$1 pid rec rc
	"$PROG" until "$d.go" &
	pid=$!
	BG+=("$pid")
	wait_exec "$pid" "$PROG" || echo "the program did not start"
	"$RECORD" -o "$d" -p "$pid" >/dev/null 2>"$d.err" &
	rec=$!
	BG+=("$rec")
	wait_for "$d.err" "^snaptrace-record: recording" 30 || echo "the recorder did not start"
	sleep 0.3
	touch "$d.go"
	wait "$pid"
	wait "$rec"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "exit $rc: $(tl 3 "$d.err")"
	elif [ "$(rec_field "$d" end)" != exit ]; then
		echo "end is $(rec_field "$d" end), not exit"
	elif ! slices_of "$d" $(snaps "$d") | grep -q ' work_'; then
		echo "the snapshot does not convert: $(tl 2 "$d/convert.log")"
	fi
}

t_attached_targets_exit() {
	local d="$TMP/attexit" i bad="" n
	n=$(stress_count 2 10)
	mkdir -p "$d"
	for ((i = 0; i < n && ${#bad} == 0; i++)); do
		bad=$(attached_exit "$d/$i")
		# progress for the runner's hang guard: 30 recordings under
		# make test-stress on a loaded machine outlast its 300 s of silence
		((i % 5 == 4)) && echo "# attached_targets_exit: $((i + 1)) of $n runs"
	done
	if [ -n "$bad" ]; then
		fail attached_targets_exit "run $i: $bad"
	elif ! no_procs; then
		fail attached_targets_exit "a perf or target process is left"
	else
		ok attached_targets_exit
	fi
}

# What a launched target forks (even into a session of its own) ends with
# the recording, whether the target is ended or exits by itself.
t_grandchildren_end() {
	local rc1 rc2
	"$RECORD" -q -o "$TMP/fork1" --arm-after 0 -- "$PROG" fork hits 0 300 >/dev/null \
		2>"$TMP/fork1.err"
	rc1=$?
	"$RECORD" -q -o "$TMP/fork2" --trigger none -- "$PROG" fork work 300 >/dev/null \
		2>"$TMP/fork2.err"
	rc2=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail grandchildren_end "exit $rc1 and $rc2: $(tl 2 "$TMP/fork1.err") $(tl 2 "$TMP/fork2.err")"
	elif [ "$(rec_field "$TMP/fork1" end)" != trigger ] ||
		[ "$(rec_field "$TMP/fork2" end)" != exit ]; then
		fail grandchildren_end "ends: $(rec_field "$TMP/fork1" end)," \
			"$(rec_field "$TMP/fork2" end)"
	elif ! no_procs; then
		fail grandchildren_end "left running: $(pgrep -s 0 -af "^$PROG" | tr '\n' ' ')"
	else
		ok grandchildren_end
	fi
}

# A shell given a command runs it in a child: dash (Debian's /bin/sh) even
# for a lone `sh -c PROG` (the README once said it execs it), bash for
# 'PROG; true'. The shell alone is recorded: one warning worded for the
# shell (what to run instead: the program itself, `exec`, --multi-thread),
# record.json counts the child; a trigger looked for in the shell says the
# same; `sh -c 'exec PROG'` is the program, recorded (its work_leaf in the
# trace), nothing said; with --multi-thread the child is recorded and
# nothing is said, unless --measure (or a trigger) watches: then that its
# calls are not counted; a program's own threads are no children.
t_children_named() {
	local d="$TMP/children" bad="" s sh cmd
	local want='snaptrace-record: warning: the shell (SH -c) ran its command in 1 child process, not recorded (only the shell is; dash forks even for one command): give the program itself (snaptrace run -- PROG ARGS), `SH -c '"'exec PROG ARGS'"'`, or --multi-thread'
	# dash forks for a lone command; bash for 'PROG; true'
	for sh in sh bash; do
		cmd="'$PROG' work 100"
		[ "$sh" = bash ] && cmd+="; true"
		"$RECORD" -o "$d-$sh" --trigger none -- "$sh" -c "$cmd" >/dev/null 2>"$d-$sh.err" ||
			bad+=" [$sh -c $cmd: exit non-zero: $(tl 2 "$d-$sh.err")]"
		[ "$(grep -cxF -- "${want//SH/$sh}" "$d-$sh.err")" = 1 ] &&
			[ "$(rec_field "$d-$sh" children_unrecorded)" = 1 ] ||
			bad+=" [$sh -c $cmd: not named: $(grep -i child "$d-$sh.err" | tr '\n' ' ') $(rec_part "$d-$sh" children)]"
	done
	"$RECORD" -o "$d-trig" --trigger work_leaf -- sh -c "'$PROG' work 100" >/dev/null \
		2>"$d-trig.err" && bad+=" [a trigger in the shell's child: exit 0]"
	[ "$(wc -l <"$d-trig.err")" = 1 ] &&
		grep -qF "the shell runs its command in a child process, whose functions are not looked for: give the program itself (snaptrace run -- PROG ARGS) or \`sh -c 'exec PROG ARGS'\`" "$d-trig.err" ||
		bad+=" [a trigger in the shell's child: $(tl 2 "$d-trig.err")]"
	# exec: the shell becomes the program, recorded, nothing said
	"$RECORD" -o "$d-exec" --trigger none -- sh -c "exec '$PROG' work 100" >/dev/null \
		2>"$d-exec.err" || bad+=" [exec: exit non-zero: $(tl 2 "$d-exec.err")]"
	if grep -q "child process" "$d-exec.err" || [ "$(rec_field "$d-exec" children_unrecorded)" != 0 ]; then
		bad+=" [exec: said: $(grep -i child "$d-exec.err" | tr '\n' ' ')]"
	elif ! "$CONVERT" -q "$d-exec" -o "$d-exec.fxt" 2>"$d-exec.conv" ||
		! s=$("$CONVERT" --dump=slices "$d-exec.fxt" 2>>"$d-exec.conv") || ! grep -q ' work_leaf$' <<<"$s"; then
		bad+=" [exec: no work_leaf in the trace: $(tl 2 "$d-exec.conv")]"
	fi
	"$RECORD" -o "$d-mt" --multi-thread --trigger none -- sh -c "'$PROG' work 100; true" >/dev/null \
		2>"$d-mt.err" || bad+=" [--multi-thread: exit non-zero: $(tl 2 "$d-mt.err")]"
	if grep -q "child process" "$d-mt.err" || [ "$(rec_field "$d-mt" children_unrecorded)" != 0 ]; then
		bad+=" [--multi-thread: said: $(grep -i child "$d-mt.err" | tr '\n' ' ') $(rec_part "$d-mt" children)]"
	elif ! "$CONVERT" -q "$d-mt" -o "$d-mt.fxt" 2>"$d-mt.conv" ||
		! s=$("$CONVERT" --dump=slices "$d-mt.fxt" 2>>"$d-mt.conv") || ! grep -q ' work_leaf$' <<<"$s"; then
		bad+=" [--multi-thread: no work_leaf in the trace: $(tl 2 "$d-mt.conv")]"
	fi
	# --multi-thread with --measure: the child is recorded, its calls not
	# counted (the probes watch the launched process): said up front and
	# with the count at the end (trial 13: "measured: no call" alone)
	"$RECORD" -o "$d-mtm" --multi-thread --trigger none --measure work_leaf -- "$PROG" fork work 100 \
		>/dev/null 2>"$d-mtm.err" || bad+=" [--multi-thread --measure: exit non-zero: $(tl 2 "$d-mtm.err")]"
	grep -qx "snaptrace-record: note: --multi-thread records the processes the program forks too, but --measure watches only the launched process: a call in a child process is not seen (to watch one, record the child's program itself)" "$d-mtm.err" &&
		grep -qx "snaptrace-record: warning: the program started 1 child process: recorded (--multi-thread), but --measure watches only the launched process: its calls are in no count nor hit" "$d-mtm.err" &&
		[ "$(rec_field "$d-mtm" children_unrecorded)" = 0 ] ||
		bad+=" [--multi-thread --measure: $(grep -i -e child -e multi "$d-mtm.err" | tr '\n' ' ') $(rec_part "$d-mtm" children)]"
	"$RECORD" -o "$d-thr" --trigger none -- "$PROG" thread 20 >/dev/null 2>"$d-thr.err" ||
		bad+=" [thread: exit non-zero: $(tl 2 "$d-thr.err")]"
	grep -q "child process" "$d-thr.err" || [ "$(rec_field "$d-thr" children_unrecorded)" != 0 ] &&
		bad+=" [threads counted as children: $(grep -i child "$d-thr.err" | tr '\n' ' ') $(rec_part "$d-thr" children)]"
	if [ -n "$bad" ]; then fail children_named "$bad"; else ok children_named; fi
}

# json_ms FILE KEY: the whole milliseconds after "KEY": in FILE.
json_ms() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}

# --arm-after: a trigger hit every 10 ms from the start takes no snapshot
# before 600 ms: the hits before are counted as before_armed, the snapshot
# is the first hit's after it, and its trace reaches back past 500 ms. With
# --trigger none it is a usage error; for a program without a trigger
# symbol, a warning naming it (one rule: docs/design.md "The recorder").
t_arm_after() {
	local d="$TMP/arm-after" f span early
	if ! "$RECORD" -q -o "$d" --arm-after 0.6 -- "$PROG" storm 10000 >/dev/null \
		2>"$TMP/arm-after.err"; then
		fail arm_after "exit non-zero: $(tl 3 "$TMP/arm-after.err")"
		return
	fi
	f=$(snaps "$d" trigger)
	early=$(rec_field "$d" hits_before_armed)
	span=$(span_ms "$d" $f)
	if [ "$(rec_field "$d" arming.by)" != option ] ||
		! awk -v a="$(rec_field "$d" arming.after_ms)" 'BEGIN { exit !(a == 600) }'; then
		fail arm_after "record.json: $(rec_part "$d" arming)"
	elif [ -z "$f" ] || [ "$(rec_rows "$d" hits deferred | grep -c -x false)" -ne 1 ]; then
		fail arm_after "expected one trigger snapshot of a hit after the arming"
	elif [ "${early:-0}" -lt 10 ]; then
		fail arm_after "expected tens of hits before the arming, found '$early'"
	elif [ -z "$span" ] || [ "$span" -lt 500 ]; then
		fail arm_after "the snapshot covers '$span' ms: taken before --arm-after 0.6?"
	elif ! { "$RECORD" -q -o "$d.none" --trigger none --arm-after 1 --duration 0.2 -- \
		"$PROG" work >/dev/null 2>"$TMP/arm-none.err"; [ $? = 2 ]; } ||
		[ "$(cat "$TMP/arm-none.err")" != "snaptrace-record: --arm-after: expected a trigger (it delays the trigger), found --trigger none (see snaptrace-record --help)" ]; then
		fail arm_after "with --trigger none (a usage error): $(tl 2 "$TMP/arm-none.err")"
	elif ! "$RECORD" -q -o "$d.nosym" --arm-after 1 --duration 0.2 -- sleep 1 >/dev/null \
		2>"$TMP/arm-nosym.err" ||
		! grep -qx "snaptrace-record: warning: --arm-after is ignored: it delays the trigger, and [^ ]*/sleep has no trigger symbol (one snapshot at the end)" "$TMP/arm-nosym.err" ||
		[ "$(wc -l <"$TMP/arm-nosym.err")" != 1 ]; then
		fail arm_after "a program without a trigger symbol (a warning): $(tl 2 "$TMP/arm-nosym.err")"
	else
		ok arm_after
	fi
}

# hot_lookback NAME [OPTIONS]: a trigger hit every 10 ms from the start;
# the (first) trigger snapshot, taken when the ring has had time to fill,
# covers at least 80% of the arming time record.json gives (without the
# arming it covered about 13 ms). Prints the span.
hot_lookback() {
	local name=$1 d="$TMP/$1" f span after
	shift
	if ! "$RECORD" -o "$d" "$@" -- "$PROG" storm 10000 >/dev/null 2>"$TMP/$name.err"; then
		fail "$name" "exit non-zero: $(tl 3 "$TMP/$name.err")"
		return
	fi
	f=$(snaps "$d" trigger | head -n 1)
	after=$(sed -n 's/.*trigger armed after \([0-9]*\) ms: the ring fills in about.*/\1/p' \
		"$TMP/$name.err")
	span=$(span_ms "$d" $f)
	if [ -z "$after" ] || [ "$after" -lt 100 ]; then
		fail "$name" "expected the arming said (after the ring's fill time): $(tl 3 "$TMP/$name.err")"
	elif [ "$(rec_field "$d" arming.by)" != ring ] ||
		! awk -v a="$(rec_field "$d" arming.after_ms)" 'BEGIN { exit !(a >= 1) }'; then
		fail "$name" "record.json: $(rec_part "$d" arming)"
	elif [ -z "$f" ] || ! rec_rows "$d" hits snapshot deferred | grep -q -x '0 true'; then
		fail "$name" "the first snapshot is not the one of a hit that waited for the arming"
	elif [ -z "$span" ] || [ $((span * 10)) -lt $((after * 8)) ]; then
		fail "$name" "the snapshot covers '$span' ms, the arming was after $after ms"
	else
		echo "# $name: look-back $span ms, armed after $after ms"
		ok "$name"
	fi
}

# accounted DIR: where DIR's record.json loses or counts twice a trigger hit:
# every hit seen is in a snapshot (listed with it), coalesced into one
# (counted), or in none, said with why (listed without a snapshot, ignored
# before the arming, in a thread not recorded):
# hits_total == in a snapshot + hits_coalesced + in none. A hit before the
# arming that a later one replaced is in that one's snapshot (coalesced),
# never "before the arming" unless --arm-after ignored it. Nothing when all
# add up.
accounted() {
	local total listed in_snap coal none early
	total=$(rec_field "$1" hits_total)
	listed=$(rec_rows "$1" hits snapshot | wc -l)
	in_snap=$(rec_rows "$1" hits snapshot | grep -c -v -x null)
	coal=$(rec_field "$1" hits_coalesced)
	early=$(rec_field "$1" hits_before_armed)
	none=$((listed - in_snap + early + $(rec_field "$1" hits_unrecorded)))
	if [ "$total" != $((in_snap + coal + none)) ]; then
		echo "[hits_total $total != $in_snap in a snapshot + $coal coalesced + $none in none]"
	elif [ "$(rec_field "$1" arming.by)" != option ] && [ "$early" != 0 ]; then
		echo "[$early hits before the arming in none, though each waited for the arming]"
	elif ! grep -q "trigger hits (numbered as in record.json) and the snapshot to open for each: .*; $coal coalesced" "$2"; then
		echo "[the summary does not count the $coal coalesced: $(grep 'trigger hits' "$2")]"
	fi
}

t_hot_trigger() {
	local bad
	hot_lookback hot_trigger_lookback
	hot_lookback hot_trigger_multi --multi-snapshot --duration 2
	bad=$(accounted "$TMP/hot_trigger_multi" "$TMP/hot_trigger_multi.err")
	if [ -n "$bad" ]; then fail hits_accounted "$bad"; else ok hits_accounted; fi
}

# A binary rebuilt between recording and conversion: the build ids in the
# recording keep perf from giving its old addresses the new binary's names.
# Both builds are made here, from workload.c in the scratch directory, so
# that the first has a build id of this run's own: perf's build-id cache
# (~/.debug) may hold the built workload from a plain `perf record` of
# another suite, and would then rightly name the old addresses through it.
t_rebuilt_binary() {
	local d="$TMP/rebuilt" p="$TMP/rebuilt-prog" s
	local -a cc=(cc -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -pthread)
	requires rebuilt_binary cc || return
	cp "$SNAPTRACE_TOP/tests/workload/workload.c" "$TMP/rebuilt-0.c"
	if ! "${cc[@]}" -o "$p" "$TMP/rebuilt-0.c" 2>"$TMP/rebuilt-cc.err"; then
		fail rebuilt_binary "cannot compile workload.c: $(tl 2 "$TMP/rebuilt-cc.err")"
		return
	fi
	if ! "$RECORD" -q -o "$d" --arm-after 0 -- "$p" hits 1 300 >/dev/null 2>"$TMP/rebuilt.err"; then
		fail rebuilt_binary "exit non-zero: $(tl 3 "$TMP/rebuilt.err")"
		return
	fi
	if ! slices_of "$d" $(snaps "$d") | grep -q ' work_leaf$'; then
		fail rebuilt_binary "before the rebuild the snapshot has no work_leaf"
		return
	fi
	# the same program with 4 KiB of code in front: every function moves
	{ echo 'void pad(void); void pad(void) { __asm__ volatile(".fill 4096, 1, 0x90"); }'
	  cat "$TMP/rebuilt-0.c"; } >"$TMP/rebuilt.c"
	rm -f "$p"
	"${cc[@]}" -o "$p" "$TMP/rebuilt.c" || {
		fail rebuilt_binary "cannot compile the rebuilt program"; return; }
	s=$(slices_of "$d" $(snaps "$d"))
	if echo "$s" | grep -q ' \(work_top\|work_mid\|work_leaf\|work_tick\|pad\)$'; then
		fail rebuilt_binary "the old addresses got the rebuilt binary's names:" \
			"$(echo "$s" | grep ' \(work_\|pad\)' | head -n 3 | tr '\n' ';')"
	elif ! echo "$s" | grep -q 'unknown.*rebuilt-prog'; then
		fail rebuilt_binary "expected [unknown] frames in rebuilt-prog: $(echo "$s" | head -n 3)"
	else
		ok rebuilt_binary
	fi
}

t_addr_zero() {
	expect_error addr_zero 2 "addr:0x0: expected an address of .*code" \
		"$RECORD" -o "$TMP/addr0" --trigger addr:0x0 -- "$PROG" work 100
}

t_start_not_missed() {
	start_not_missed start_not_missed
	# a perf that says 5.4 has no --control: readiness is seen in /proc instead
	printf '#!/bin/sh\n[ "$1" = --version ] && echo "perf version 5.4.0" && exit 0\nexec perf "$@"\n' \
		>"$TMP/perf-5.4" && chmod +x "$TMP/perf-5.4"
	start_not_missed start_not_missed_without_control --perf "$TMP/perf-5.4"
}

run_tests demo_default_trigger attach_named_trigger duration \
	sigint_keeps_data target_sigkill_keeps_data recorder_killed second_thread_trigger attach_threads_unrecorded \
	multi_thread missing_symbol dead_pid missing_perf usage_error check_report \
	installed_layout stripped_target breakpoint_mechanism unprivileged_user perf_refuses \
	perf_killed short_lived_targets attached_targets_exit grandchildren_end children_named addr_zero \
	rebuilt_binary arm_after hot_trigger start_not_missed no_probe_after_release
if no_procs; then
	ok no_leftovers
else
	fail no_leftovers "left: $(own_perfs) $(pgrep -s 0 -af "^$PROG")"
fi
