#!/usr/bin/env bash
# tier: record
# The front end and snaptrace-record's command line where perf runs (the
# command line alone, nothing recorded: cli.test.sh): SNAPTRACE_BIN naming
# no programs is one clear line; -o - keeps the program's stdout out of the
# trace; the temporary recording is removed after success and kept (and
# named) when perf fails.
. "$(dirname "$0")/../lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN
need_built frontend "$RECORD" "$CONVERT"

# wait_said FILE PATTERN: waits until FILE has a line matching PATTERN (20 s
# at most; 1 then).
wait_said() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -q "$2" "$1" && return 0
		sleep 0.05
	done
	return 1
}

# wait_worked PID: waits until the workload the front end PID launched (a
# descendant of it, the recorder's child, whose comm is "workload") has run
# 50 ms on the CPU, so that a recording stopped then has samples of its
# work (20 s at most; 1 then): a stop signal sent as soon as the recording
# said how to stop it once found no sample yet under load (other_stops: a
# trace of one instant).
wait_worked() {
	local i c ticks level
	for ((i = 0; i < 400; i++)); do
		level=$1
		for _ in 1 2 3; do
			level=$(for c in $level; do cat /proc/"$c"/task/*/children 2>/dev/null; done)
			for c in $level; do
				[ "$(cat "/proc/$c/comm" 2>/dev/null)" = workload ] || continue
				ticks=$(awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null)
				[ "${ticks:-0}" -ge $(($(getconf CLK_TCK) / 20)) ] && return 0
			done
		done
		sleep 0.05
	done
	return 1
}

# What the host cannot do (the limits --check reports) is refused before
# anything starts: exit 2, one line naming the option and the limit.
t_host_limits_refused() {
	local max rc bad="" args evsrc=/sys/bus/event_source/devices
	requires host_limits_refused host_limits || return
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
	set --
	[ "$max" -gt 0 ] && [ "$max" -lt 1000000 ] &&
		set -- "--mode sampling --sampling-freq $((max + 1))|--sampling-freq $((max + 1)): expected at most $max"
	[ -e $evsrc/cpu/type ] || [ -e $evsrc/cpu_core/type ] ||
		set -- "$@" "--mode sampling --callgraph lbr|--callgraph lbr: expected a hardware PMU"
	for args in "$@"; do
		rm -rf "$TMP/limits.d"
		# shellcheck disable=SC2086
		"$RECORD" -o "$TMP/limits.d" ${args%%|*} -- /bin/true >/dev/null 2>"$TMP/limits.err"
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/limits.err")" -ne 1 ] ||
			[ -e "$TMP/limits.d" ] || ! grep -qF -- "${args#*|}" "$TMP/limits.err"; then
			bad="$bad [${args%%|*}: exit $rc: $(cat "$TMP/limits.err")]"
		fi
	done
	if [ -n "$bad" ]; then
		fail host_limits_refused "$bad"
	else
		ok host_limits_refused
	fi
}

# An empty --trigger is a usage error (it was a failed symbol lookup, exit 1).
t_empty_trigger() {
	local rc
	"$RECORD" -o "$TMP/empty.d" --trigger '' -- /bin/true >/dev/null 2>"$TMP/empty.err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/empty.err")" -ne 1 ] || [ -e "$TMP/empty.d" ] ||
		! grep -q "expected a SPEC.*found ''" "$TMP/empty.err"; then
		fail empty_trigger "exit $rc: $(cat "$TMP/empty.err")"
	else
		ok empty_trigger
	fi
}

# A bad -o is refused before anything is recorded, by snaptrace run and by
# snaptrace-convert alike (one rule: common/outpath.c): exit 2, one line, the
# same reason from both, and the program never started (/dev/full too: it
# was found unwritable only after the recording; a write that fails is a
# runtime failure, exit 1: new-user check 16).
t_output_checked_first() {
	local out bad="" rc msg cmsg want
	mkdir -p "$TMP/outdir"
	for out in "$TMP/x.txt" "$TMP/x.zst" "$TMP/x.json" "$TMP/outdir" "$TMP/none/x.fxt" \
		"$TMP/x.fxt.gz/" /dev/full; do
		want=2
		[ "$out" = /dev/full ] && want=1
		rm -f "$TMP/ran"
		"$FRONT" run -q -o "$out" -- sh -c ": >'$TMP/ran'" >/dev/null 2>"$TMP/o.err"
		rc=$?
		msg=$(sed 's/^snaptrace: //; s/ (see .*//' "$TMP/o.err")
		"$CONVERT" "$SNAPTRACE_TOP/tests/cases/br-miss/input.txt" -o "$out" \
			>/dev/null 2>"$TMP/c.err"
		cmsg=$(sed 's/^snaptrace-convert: //; s/ (see .*//' "$TMP/c.err")
		if [ $rc -ne $want ] || [ "$(wc -l <"$TMP/o.err")" -ne 1 ] || [ -e "$TMP/ran" ] ||
			! grep -qF -- "$out" "$TMP/o.err" || [ "$msg" != "$cmsg" ]; then
			bad="$bad [-o $out: exit $rc: $(cat "$TMP/o.err") | convert: $(cat "$TMP/c.err")]"
		fi
	done
	if [ -n "$bad" ]; then
		fail output_checked_first "$bad"
	else
		ok output_checked_first
	fi
}

# An output on a full file system (a filled tmpfs) is refused before the
# program runs: snaptrace run -o FILE there, snaptrace-record -o DIR there
# (no directory left behind), and snaptrace run -o - into /dev/full: exit
# 1 (a write that fails: a runtime failure; new-user check 16 found exit
# 2), one line naming it and "No space left on device", no "see --help".
t_output_full() {
	local m="$TMP/fullfs" bad="" rc what
	requires output_full tmpfs_mount || return
	if ! mkdir -p "$m" || ! mount -t tmpfs -o size=64k tmpfs "$m" 2>"$TMP/fullfs.err"; then
		fail output_full "cannot mount a small tmpfs: $(first_lines "$TMP/fullfs.err")"
		return
	fi
	dd if=/dev/zero of="$m/fill" bs=4k 2>/dev/null
	for what in front record stdout; do
		rm -f "$TMP/ran"
		case $what in
		front) "$FRONT" run -q -o "$m/t.fxt" -- sh -c ": >'$TMP/ran'" 2>"$TMP/full.err" ;;
		record) "$RECORD" -q -o "$m/rec" -- sh -c ": >'$TMP/ran'" 2>"$TMP/full.err" ;;
		stdout) "$FRONT" run -q -o - -- sh -c ": >'$TMP/ran'" 2>"$TMP/full.err" >/dev/full ;;
		esac
		rc=$?
		if [ $rc -ne 1 ] || [ "$(wc -l <"$TMP/full.err")" -ne 1 ] || [ -e "$TMP/ran" ] ||
			! grep -q "No space left on device" "$TMP/full.err" ||
			grep -q "see .*--help" "$TMP/full.err" || [ -e "$m/rec" ]; then
			bad+="[$what: exit $rc$([ -e "$TMP/ran" ] && echo ", the program ran"): $(first_lines "$TMP/full.err")]"
		fi
	done
	umount "$m"
	if [ -n "$bad" ]; then fail output_full "$bad"; else ok output_full; fi
}

# A helper program that cannot be run is named with the reason (a failed exec
# says why on the stderr its caller captures: common/run.c).
t_missing_perf_reason() {
	local rc
	perf_data_stub "$TMP/fake.data"
	"$FRONT" convert --perf "$TMP/no-such-perf" "$TMP/fake.data" -o "$TMP/fake.fxt" \
		>/dev/null 2>"$TMP/noperf.err"
	rc=$?
	if [ $rc -ne 1 ] || [ "$(wc -l <"$TMP/noperf.err")" -ne 1 ] ||
		! grep -qF "$TMP/no-such-perf: No such file or directory" "$TMP/noperf.err" ||
		[ -e "$TMP/fake.fxt" ]; then
		fail missing_perf_reason "exit $rc: $(cat "$TMP/noperf.err")"
	else
		ok missing_perf_reason
	fi
}

# -o - with stdout closed: one line saying so, exit 2, nothing run (the
# trace once went into whatever the recorder opened first, fd 1).
t_stdout_closed() {
	local bad="" rc
	rm -f "$TMP/ran"
	"$FRONT" run -q -o - -- sh -c ": >'$TMP/ran'" >&- 2>"$TMP/closed.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/closed.err")" -eq 1 ] && [ ! -e "$TMP/ran" ] &&
		grep -q "standard output is closed" "$TMP/closed.err" ||
		bad="[run: exit $rc: $(cat "$TMP/closed.err")]"
	"$CONVERT" "$SNAPTRACE_TOP/tests/cases/br-miss/input.txt" -o - >&- 2>"$TMP/closed.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "standard output is closed" "$TMP/closed.err" ||
		bad="$bad [convert: exit $rc: $(cat "$TMP/closed.err")]"
	"$CONVERT" "$SNAPTRACE_TOP/tests/cases/br-miss/input.txt" -o "$TMP/closed.fxt" >&- \
		2>"$TMP/closed.err"
	rc=$?
	[ $rc -eq 0 ] && "$CONVERT" --dump=slices "$TMP/closed.fxt" 2>/dev/null | grep -q ' main$' ||
		bad="$bad [convert -o FILE with stdout closed: exit $rc: $(cat "$TMP/closed.err")]"
	if [ -n "$bad" ]; then
		fail stdout_closed "$bad"
	else
		ok stdout_closed
	fi
}

# The front end's window before it execs the recorder has no subshell and no
# external program (a signal there killed bash silently for ~0.2 s): no
# fork or clone between the script's start and the recorder's exec (each
# verb with --version, which its program answers: the front end answers
# check's --help itself).
t_no_fork_before_exec() {
	local verb forks bad=""
	requires no_fork_before_exec strace || return
	for verb in run attach check convert; do
		strace -f -e trace=execve,clone,clone3,fork,vfork -o "$TMP/st.log" \
			"$FRONT" $verb --version >/dev/null 2>&1
		forks=$(sed -n '/execve(".*\/snaptrace"/,/execve(".*snaptrace-\(record\|convert\)".* = 0$/p' \
			"$TMP/st.log" | grep -cE '(clone3?|v?fork)\(')
		grep -qE 'execve\(".*snaptrace-(record|convert)".* = 0$' "$TMP/st.log" ||
			bad="$bad [$verb: no exec of the program]"
		[ "$forks" -eq 0 ] || bad="$bad [$verb: $forks forks before the exec]"
	done
	if [ -n "$bad" ]; then
		fail no_fork_before_exec "$bad"
	else
		ok no_fork_before_exec
	fi
}

# A SIGTERM that came while the recorder was starting (here: pending across
# its exec, so deterministic) ends the recording like Ctrl-C, exit 0, with
# a warning that it stopped at once, worded for what was recorded (run: the
# program is never let go, so nothing of it, and the trace has no slice
# but the snapshot's marker (issue 24: the line said "at most the program's first moments" over a
# trace of 0 threads); attach: the moments after the attach, once worded as
# run's); the trace is written and reads back; no line says how to stop it
# (it was said after the stop all the same: "...; Ctrl-C to stop"), nor
# that a program never let go is being recorded.
t_signal_at_start_named() {
	local rc bad="" verb pid= want
	local -a how
	requires signal_at_start_named python3 || return
	"$SNAPTRACE_TEST_BIN/workload" work &
	pid=$!
	# attached once it runs the workload, not the shell's fork before its exec
	for ((rc = 0; rc < 1000; rc++)); do
		[ "$(readlink "/proc/$pid/exe")" = "$(realpath "$SNAPTRACE_TEST_BIN/workload")" ] && break
		sleep 0.01
	done
	for verb in run attach; do
		how=(-- "${PROG[@]}")
		[ $verb = attach ] && how=(-p "$pid")
		python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.kill(os.getpid(), signal.SIGTERM)
os.execv(sys.argv[1], sys.argv[1:])' "$RECORD" --front-end $verb -o "$TMP/start-$verb.fxt" \
			--trigger none "${how[@]}" >/dev/null 2>"$TMP/start-$verb.err"
		rc=$?
		want="the program was never started, so the trace holds nothing of it"
		[ $verb = attach ] && want="the trace holds at most the moments right after the attach"
		if [ $rc -ne 0 ] || ! grep -qF "warning: SIGTERM came while the recording was starting: it was stopped at once; $want" "$TMP/start-$verb.err" ||
			! "$CONVERT" --dump=slices "$TMP/start-$verb.fxt" >"$TMP/start-$verb.slices" 2>/dev/null; then
			bad+=" [$verb: exit $rc: $(tr '\n' '|' <"$TMP/start-$verb.err")]"
		elif grep -Eq 'Ctrl-C|to stop' "$TMP/start-$verb.err"; then
			# the stop came first: no line invites one (issue 24: "recording
			# process N (...); Ctrl-C to stop" came after it all the same)
			bad+=" [$verb: told how to stop a recording already stopping: $(grep -E 'Ctrl-C|to stop' "$TMP/start-$verb.err" | tr '\n' '|')]"
		elif [ $verb = run ] && grep -q 'recording launched process' "$TMP/start-$verb.err"; then
			bad+=" [run: 'recording launched process' of a program never let go]"
		elif [ $verb = run ] && grep -qv ' \[snapshot\] ' "$TMP/start-$verb.slices"; then
			# the line is true: nothing of the program (issue 24: 0 threads
			# under "at most the program's first moments")
			bad+=" [run: the trace holds slices: $(head -3 "$TMP/start-$verb.slices" | tr '\n' '|')]"
		fi
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -n "$bad" ]; then
		fail signal_at_start_named "$bad"
	else
		ok signal_at_start_named
	fi
}

# Early signals (issue 24): SIGTERM to the front end (the compiled
# program, build/bin/snaptrace) at several moments of its start, from
# before its first instruction (pending at its exec) to 50 ms after it
# first handles the signal, and from 5 to 20 ms after its exec whatever
# it did by then (sooner, a loaded host may not yet have run its first
# instruction: no program can act on a signal then), as `snaptrace run ... & kill $!` does
# (tests/record/sigat.c): never a silent exit. The same through the
# README's entry point, scripts/snaptrace: a symbolic link to the front
# end, so exec runs it directly (the bash script it was needed 10-20 ms to
# start, and a signal then ended it silently: 19 of 24 trials at 0-25 ms).
# run hands the signal to the recorder, which stops at once, says so and
# writes the trace (exit 0, the trace read back); another verb ends with
# "stopped by SIGTERM before it started" and 143.
t_early_signals() {
	local us rc bad="" fe sigat="$SNAPTRACE_TEST_BIN/sigat" entry
	local -a at=(-1 0 2000 8000 20000 50000 +10000)
	# make test: the front end at seven moments, one in each stretch of its
	# start (the signal pending at exec; at its first handled instruction;
	# the recorder's exec, perf's start, the program's; 10 ms after exec
	# whatever it did); the README's entry point, the same program, at two;
	# test-stress (SNAPTRACE_STRESS=1): both at the fourteen moments next
	[ "$(stress_count 0 1)" = 1 ] &&
		at=(-1 0 500 1000 2000 3000 5000 8000 12000 20000 50000 +5000 +10000 +20000)
	entry=$(entry_point "$TMP/tree")
	# what the kernel execs for the entry point is the front end: no interpreter
	[ "$(head -c 4 "$entry" | od -An -c | tr -d ' ')" = '177ELF' ] ||
		bad+=" [$entry is no ELF program: $(head -n 1 "$entry" | cut -c 1-40)]"
	for fe in "$SNAPTRACE_BIN/snaptrace" "$entry"; do
		for us in "${at[@]}"; do
			rm -f "$TMP/early.fxt"
			"$sigat" "$us" "$fe" run -o "$TMP/early.fxt" --trigger none -- "${PROG[@]}" \
				>/dev/null 2>"$TMP/early.err"
			rc=$?
			if [ $rc -ne 0 ] || ! grep -q "^snaptrace: Terminated: stopping" "$TMP/early.err" ||
				! "$CONVERT" --dump=slices "$TMP/early.fxt" >/dev/null 2>&1; then
				bad+=" [$fe run at $us us: exit $rc: $(tail -n 3 "$TMP/early.err" | tr '\n' '|')]"
			fi
		done
		[ "$(stress_count 0 1)" = 1 ] || at=(-1 +10000)
		"$sigat" -1 "$fe" stats "$TMP/none.fxt" >/dev/null 2>"$TMP/early.err"
		rc=$?
		[ $rc -eq 143 ] && [ "$(cat "$TMP/early.err")" = "snaptrace: stopped by SIGTERM before it started: nothing recorded, no trace written" ] ||
			bad+=" [$fe stats: exit $rc: $(tr '\n' '|' <"$TMP/early.err")]"
	done
	if [ -n "$bad" ]; then fail early_signals "$bad"; else ok early_signals; fi
}

# With SIGINT inherited as ignored (a job a script starts with &), it stays
# ignored, so the start-up line does not promise Ctrl-C: it names SIGTERM
# and the command (kill PID), and that command ends the recording, the trace
# written and read back. From a terminal (sigdfl) it says Ctrl-C.
t_stop_how_named() {
	local pid rc bad=""
	(trap '' INT; exec "$FRONT" run -o "$TMP/ign.fxt" --trigger none -- "${PROG[@]}") \
		>/dev/null 2>"$TMP/ign.err" &
	pid=$!
	wait_said "$TMP/ign.err" ' to stop$'
	wait_worked "$pid"
	if grep -q "; SIGTERM (kill $pid) to stop$" "$TMP/ign.err"; then
		kill -TERM "$pid"
	else
		bad="[SIGINT ignored: $(tr '\n' '|' <"$TMP/ign.err")]"
		kill -TERM "$pid"
	fi
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] && ! grep -q Ctrl-C "$TMP/ign.err" &&
		"$CONVERT" --dump=slices "$TMP/ign.fxt" 2>/dev/null | grep -q ' work_leaf$' ||
		bad+=" [SIGINT ignored, then SIGTERM: exit $rc: $(tail -n 2 "$TMP/ign.err" | tr '\n' '|')]"
	"$SIGDFL" "$FRONT" run -o "$TMP/dfl.fxt" --trigger none --duration 0.3 -- "${PROG[@]}" \
		>/dev/null 2>"$TMP/dfl.err"
	grep -q '; Ctrl-C to stop$' "$TMP/dfl.err" || bad+=" [terminal: $(tr '\n' '|' <"$TMP/dfl.err")]"
	if [ -n "$bad" ]; then fail stop_how_named "$bad"; else ok stop_how_named; fi
}

# Every stop signal ends a recording as SIGTERM does (common/signals.h
# sig_stops): SIGQUIT (Ctrl-\\), SIGUSR1 and SIGUSR2 to `snaptrace run`
# while it records gave exit 131/138, no word, no trace, the temporary
# recording left in TMPDIR unnamed (issue 24 item 7). Each: exit 0, the
# line "NAME: stopping", the trace read back (work_leaf), TMPDIR empty.
t_other_stops() {
	local sig pid rc bad=""
	for sig in QUIT USR1 USR2; do
		rm -rf "$TMP/stop.tmp" "$TMP/stop.fxt"
		mkdir "$TMP/stop.tmp"
		TMPDIR="$TMP/stop.tmp" "$SIGDFL" "$FRONT" run -o "$TMP/stop.fxt" --trigger none \
			-- "${PROG[@]}" >/dev/null 2>"$TMP/stop.err" &
		pid=$!
		wait_said "$TMP/stop.err" ' to stop$'
		wait_worked "$pid"
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		[ $rc -eq 0 ] && grep -q ": stopping$" "$TMP/stop.err" &&
			[ -z "$(ls -A "$TMP/stop.tmp")" ] &&
			"$CONVERT" --dump=slices "$TMP/stop.fxt" 2>/dev/null | grep -q ' work_leaf$' ||
			bad+=" [SIG$sig: exit $rc, TMPDIR: $(ls -A "$TMP/stop.tmp" | tr '\n' ' ')$(tail -n 2 "$TMP/stop.err" | tr '\n' '|')]"
	done
	if [ -n "$bad" ]; then fail other_stops "$bad"; else ok other_stops; fi
}

# The front end's stderr a pipe closed early (`2>&1 | head -3`): the
# converter (sharing that stderr) was killed by SIGPIPE after writing the
# trace, the run exited 1 and left its recording in TMPDIR with no word
# (issue 24 item 7). Now: exit 0, the trace read back, TMPDIR empty.
t_stderr_closed() {
	local rc
	rm -rf "$TMP/errpipe.tmp"
	mkdir "$TMP/errpipe.tmp"
	TMPDIR="$TMP/errpipe.tmp" "$FRONT" run -o "$TMP/errpipe.fxt" --trigger none --duration 0.3 \
		-- "${PROG[@]}" 2>&1 >/dev/null | head -n 1 >/dev/null
	rc=${PIPESTATUS[0]}
	if [ $rc -ne 0 ] || [ -n "$(ls -A "$TMP/errpipe.tmp")" ] ||
		! "$CONVERT" --dump=slices "$TMP/errpipe.fxt" 2>/dev/null | grep -q ' work_leaf$'; then
		fail stderr_closed "exit $rc, TMPDIR: $(ls -A "$TMP/errpipe.tmp" | tr '\n' ' ')"
	else
		ok stderr_closed
	fi
}

# perf's failures said in few lines, each true (issue 24): perf's raw
# "libperf: Miscounted nr_mmaps" gets what failed and what to try; an
# option perf refuses (--perf-arg) gives perf's error line, not its usage
# text, no "trigger armed" line (perf never ran), and the -d directory is
# named (kept or removed); a trace written to /dev/null is not offered to
# ui.perfetto.dev, a file is.
t_perf_failure_said() {
	local rc bad="" d="$TMP/pf.d"
	mkdir -p "$TMP/pf"
	printf '#!/bin/sh\n[ "$1" = record ] || exec perf "$@"\necho "libperf: Miscounted nr_mmaps 2 vs 1" >&2\nexit 1\n' \
		>"$TMP/pf/perf" && chmod +x "$TMP/pf/perf"
	"$FRONT" run -o "$TMP/pf.fxt" --trigger none --perf "$TMP/pf/perf" -- "${PROG[@]}" \
		>/dev/null 2>"$TMP/pf.err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "perf could not map its ring buffers .*; try " "$TMP/pf.err" ||
		bad="[nr_mmaps: exit $rc: $(tr '\n' '|' <"$TMP/pf.err")]"
	"$FRONT" run -o "$TMP/pf.fxt" -d "$d" --trigger work_leaf --perf-arg=--bogus-opt \
		-- "${PROG[@]}" >/dev/null 2>"$TMP/pf.err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "Error: unknown option .bogus-opt" "$TMP/pf.err" ||
		grep -q "Usage:\|trigger armed" "$TMP/pf.err" || [ "$(wc -l <"$TMP/pf.err")" -gt 7 ] ||
		! { [ -d "$d" ] && grep -qF "$d" "$TMP/pf.err" ||
			grep -qF "nothing was recorded: $d, empty, is removed" "$TMP/pf.err"; }; then
		bad+=" [--perf-arg=--bogus-opt: exit $rc: $(tr '\n' '|' <"$TMP/pf.err" | cut -c 1-600)]"
	fi
	for rc in /dev/null "$TMP/pf2.fxt"; do
		"$CONVERT" "$SNAPTRACE_TOP/tests/cases/br-miss/input.txt" -o "$rc" 2>"$TMP/pf.err"
		grep -q "open .* in https://ui.perfetto.dev" "$TMP/pf.err"
		[ $? -eq "$([ "$rc" = /dev/null ] && echo 1 || echo 0)" ] ||
			bad+=" [convert -o $rc: $(tail -n 1 "$TMP/pf.err")]"
	done
	"$CONVERT" --dump=slices "$TMP/pf2.fxt" 2>/dev/null | grep -q ' main$' ||
		bad+=" [$TMP/pf2.fxt does not read back]"
	if [ -n "$bad" ]; then fail perf_failure_said "$bad"; else ok perf_failure_said; fi
}

t_snaptrace_bin_missing() {
	local rc
	SNAPTRACE_BIN=/nonexistent "$FRONT" run -- /bin/true >/dev/null 2>"$TMP/bin.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail snaptrace_bin_missing "exit $rc, expected 1"
	elif [ "$(wc -l <"$TMP/bin.err")" -ne 1 ] ||
		! grep -q '^snaptrace: SNAPTRACE_BIN=/nonexistent: expected snaptrace-record' \
			"$TMP/bin.err"; then
		fail snaptrace_bin_missing "message: $(tr '\n' '|' <"$TMP/bin.err")"
	else
		ok snaptrace_bin_missing
	fi
}

# The remaining tests record: they need perf and the permission to use it.
if ! requirement recording >/dev/null; then
	t_snaptrace_bin_missing
	t_missing_perf_reason
	t_no_fork_before_exec
	for n in perf_failure_said stop_how_named signal_at_start_named stdout_closed output_checked_first empty_trigger host_limits_refused breakpoint_warned \
		stdout_trace_only temporary_removed failed_recording_kept; do
		requires $n recording
	done
	exit 0
fi

# The target: the workload (tests/workload/workload.c): a line on stdout,
# then work for ever.
need_built frontend "$SNAPTRACE_TEST_BIN/workload"
PROG=("$SNAPTRACE_TEST_BIN/workload" echo TARGET-STDOUT-LINE work)

# --trigger-mechanism breakpoint on a host where breakpoints do not fire
# (--check: "opens but does not fire") is kept but warned about at start.
t_breakpoint_warned() {
	local rc
	requires breakpoint_warned dead_breakpoints || return
	"$RECORD" -q -o "$TMP/bp.d" --trigger work_leaf --trigger-mechanism breakpoint \
		--duration 0.3 -- "${PROG[@]}" \
		>/dev/null 2>"$TMP/bp.err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "warning: --trigger-mechanism breakpoint: it did not fire" \
		"$TMP/bp.err"; then
		fail breakpoint_warned "exit $rc: $(tr '\n' '|' <"$TMP/bp.err")"
	else
		ok breakpoint_warned
	fi
}

t_stdout_trace_only() {
	local rc
	(cd "$TMP" && "$FRONT" run -q -o - --trigger none --duration 0.5 -- "${PROG[@]}") \
		>"$TMP/stdout.fxt" 2>"$TMP/stdout.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail stdout_trace_only "exit $rc: $(tail -n 2 "$TMP/stdout.err" | tr '\n' '|')"
	elif grep -aq TARGET-STDOUT-LINE "$TMP/stdout.fxt"; then
		fail stdout_trace_only "the program's stdout is in the trace stream"
	elif ! grep -q TARGET-STDOUT-LINE "$TMP/stdout.err"; then
		fail stdout_trace_only "the program's stdout is not on stderr"
	elif ! "$CONVERT" --dump=slices "$TMP/stdout.fxt" | grep -q ' work_leaf$'; then
		fail stdout_trace_only "the trace on stdout does not read back with work_leaf"
	else
		ok stdout_trace_only
	fi
}

# A tracer never changes what it traces: the launched program gets the
# signals ignored that the user ran snaptrace with (trap '' PIPE HUP) and no
# other, though the recorder ignores SIGPIPE itself (spawn.c reset SIGPIPE to
# its default for every child but perf: a program run with SIGPIPE ignored
# ran with it at default under snaptrace).
t_target_ignored_as_given() {
	local how got want bad="" mine
	mine=$(( 0x$(awk '$1 == "SigIgn:" { print $2 }' /proc/self/status) & 0x1001 ))
	for how in given own; do
		if [ "$how" = given ]; then
			want=$((0x1001))
			(trap '' PIPE HUP; exec "$FRONT" run -q -o "$TMP/ign-$how.fxt" --trigger none \
				--duration 0.3 -- sh -c 'grep ^SigIgn: /proc/self/status; exec "$@"' - \
				"${PROG[@]}") >"$TMP/ign-$how.out" 2>"$TMP/ign-$how.err"
		else
			want=$mine
			"$FRONT" run -q -o "$TMP/ign-$how.fxt" --trigger none --duration 0.3 -- \
				sh -c 'grep ^SigIgn: /proc/self/status; exec "$@"' - "${PROG[@]}" \
				>"$TMP/ign-$how.out" 2>"$TMP/ign-$how.err"
		fi
		got=$(awk '$1 == "SigIgn:" { print $2 }' "$TMP/ign-$how.out")
		if [ -z "$got" ] || [ $((0x$got & 0x1001)) -ne "$want" ]; then
			bad+=" [$how: SigIgn ${got:-none}, expected SIGPIPE|SIGHUP bits $want]"
		elif ! "$CONVERT" --dump=slices "$TMP/ign-$how.fxt" 2>/dev/null | grep -q ' work_leaf$'; then
			bad+=" [$how: the trace has no work_leaf: $(tail -n 2 "$TMP/ign-$how.err" | tr '\n' '|')]"
		fi
	done
	if [ -n "$bad" ]; then fail target_ignored_as_given "$bad"; else ok target_ignored_as_given; fi
}

t_temporary_removed() {
	local rc
	mkdir -p "$TMP/tmp1"
	TMPDIR="$TMP/tmp1" "$FRONT" run -q -o "$TMP/tmp1.fxt.gz" --trigger none --duration 0.3 \
		-- "${PROG[@]}" >/dev/null 2>"$TMP/tmp1.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail temporary_removed "exit $rc: $(tail -n 2 "$TMP/tmp1.err" | tr '\n' '|')"
	elif [ -n "$(ls -A "$TMP/tmp1")" ]; then
		fail temporary_removed "left in TMPDIR: $(ls -A "$TMP/tmp1")"
	elif ! "$CONVERT" --dump=slices "$TMP/tmp1.fxt.gz" | grep -q ' work_leaf$'; then
		fail temporary_removed "the trace has no work_leaf"
	else
		ok temporary_removed
	fi
}

# perf killed during the recording: exit 1, and the temporary recording is
# kept, named in the message and still holds what perf wrote.
t_failed_recording_kept() {
	local pid perf dir rc
	mkdir -p "$TMP/tmp2"
	TMPDIR="$TMP/tmp2" "$FRONT" run -o "$TMP/tmp2.fxt.gz" --trigger none --duration 20 \
		-- "${PROG[@]}" >/dev/null 2>"$TMP/tmp2.err" &
	pid=$!
	wait_said "$TMP/tmp2.err" "recording launched"
	sleep 0.3
	perf=$(pgrep -P "$pid" -x perf)
	[ -n "$perf" ] && kill -9 "$perf"
	wait "$pid"
	rc=$?
	dir=$(ls -d "$TMP"/tmp2/snaptrace.* 2>/dev/null)
	if [ -z "$perf" ]; then
		fail failed_recording_kept "no perf child of $pid found"
	elif [ $rc -ne 1 ]; then
		fail failed_recording_kept "exit $rc, expected 1"
	elif [ -z "$dir" ] || ! ls "$dir"/perf.data* >/dev/null 2>&1; then
		fail failed_recording_kept "the temporary recording is gone"
	elif ! grep -q "stays in $dir" "$TMP/tmp2.err"; then
		fail failed_recording_kept "the message does not name $dir:" \
			"$(tail -n 2 "$TMP/tmp2.err" | tr '\n' '|')"
	else
		ok failed_recording_kept
	fi
}

# A perf that writes a perf.data header and exits before recording (as
# "libperf: Miscounted nr_mmaps" did on an attach): exit 1 with perf's own
# message, and no conversion is tried (nothing was recorded): no message of
# the converter's, no trace, the directory named.
t_perf_refused_not_converted() {
	local rc
	mkdir -p "$TMP/tmp3"
	cat >"$TMP/tmp3/perf" <<'EOF2'
#!/bin/sh
case "$1" in
record)
	out=perf.data
	while [ $# -gt 0 ]; do
		case $1 in -o) out=$2; shift ;; -o*) out=${1#-o} ;; --output=*) out=${1#--output=} ;; esac
		shift
	done
	head -c 1000 /dev/zero >"$out"
	echo "libperf: Miscounted nr_mmaps 2 vs 1" >&2
	exit 1 ;;
*) exec perf "$@" ;;
esac
EOF2
	chmod +x "$TMP/tmp3/perf"
	TMPDIR="$TMP/tmp3" "$FRONT" run -o "$TMP/tmp3.fxt.gz" --trigger none --perf "$TMP/tmp3/perf" \
		-- "${PROG[@]}" >/dev/null 2>"$TMP/tmp3.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail perf_refused_not_converted "exit $rc, expected 1"
	elif ! grep -q "perf exited before recording" "$TMP/tmp3.err"; then
		fail perf_refused_not_converted "perf's failure not named: $(tr '\n' '|' <"$TMP/tmp3.err")"
	elif grep -q "snaptrace-convert\|conversion" "$TMP/tmp3.err"; then
		fail perf_refused_not_converted "a conversion was tried: $(tr '\n' '|' <"$TMP/tmp3.err")"
	elif [ -e "$TMP/tmp3.fxt.gz" ]; then
		fail perf_refused_not_converted "a trace was written"
	elif ! grep -q "stays in $TMP/tmp3/snaptrace\\." "$TMP/tmp3.err"; then
		fail perf_refused_not_converted "the directory is not named: $(tr '\n' '|' <"$TMP/tmp3.err")"
	else
		ok perf_refused_not_converted
	fi
}

# The same perf under snaptrace-record alone: exit 1 with perf's message,
# and the file it left named with what it is (it once stayed without a word:
# a header-only perf.data and no record.json in DIR).
t_perf_refused_named() {
	local rc d="$TMP/refused.d"
	"$RECORD" -o "$d" --trigger none --perf "$TMP/tmp3/perf" -- "${PROG[@]}" >/dev/null \
		2>"$TMP/perf-fails.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail perf_refused_named "exit $rc, expected 1"
	elif ! grep -q "perf exited before recording" "$TMP/perf-fails.err"; then
		fail perf_refused_named "perf's failure not named: $(tr '\n' '|' <"$TMP/perf-fails.err")"
	elif ! grep -q "^snaptrace-record: $d/perf.data: what perf wrote before it failed stays (nothing was recorded; record.json says so): its header was never written" "$TMP/perf-fails.err"; then
		fail perf_refused_named "the file perf left is not named: $(tr '\n' '|' <"$TMP/perf-fails.err")"
	else
		ok perf_refused_named
	fi
}

# Every recording directory a failed start leaves ends with a record.json
# saying what happened (issue 24): a -d directory where perf left a header
# (run and attach) holds one with "end": "none" and perf's words in "error",
# which the converter names in one line (exit 1, no trace); a new -d
# directory perf wrote nothing into is removed.
t_failed_dir_accounted() {
	local d rc bad="" verb
	for verb in run attach; do
		d="$TMP/failed-$verb"
		if [ $verb = run ]; then
			"$FRONT" run -d "$d" -o "$TMP/f.fxt" --trigger none --perf "$TMP/tmp3/perf" \
				-- "${PROG[@]}" >/dev/null 2>"$d.err"
		else
			"$FRONT" attach -d "$d" -o "$TMP/f.fxt" --trigger none --perf "$TMP/tmp3/perf" \
				-p $$ >/dev/null 2>"$d.err"
		fi
		rc=$?
		if [ $rc -ne 1 ] || [ ! -f "$d/record.json" ]; then
			bad+=" [$verb: exit $rc, record.json: $(ls "$d" 2>&1 | tr '\n' ' ')]"
		elif [ "$(rec_field "$d" end)" != none ] ||
			[[ "$(rec_field "$d" error)" != "perf exited before recording: perf could not map its ring buffers "*"; perf said: libperf: Miscounted nr_mmaps 2 vs 1"* ]]; then
			bad+=" [$verb: record.json: end $(rec_field "$d" end), error $(rec_field "$d" error)]"
		else
			"$FRONT" convert "$d" -o "$TMP/f.fxt" >/dev/null 2>"$d.conv"
			rc=$?
			[ $rc -eq 1 ] && [ "$(wc -l <"$d.conv")" -eq 1 ] && [ ! -e "$TMP/f.fxt" ] &&
				grep -q "^snaptrace-convert: $d: the recording failed, nothing to convert (record.json says): perf exited before recording: perf could not map its ring buffers .*; perf said: libperf: Miscounted" "$d.conv" ||
				bad+=" [$verb: convert: exit $rc: $(tail -n 2 "$d.conv" | tr "\n" " ")]"
		fi
	done
	d="$TMP/failed-empty"
	"$FRONT" run -d "$d" -o "$TMP/f.fxt" --trigger none --perf-arg=--no-such-option \
		-- "${PROG[@]}" >/dev/null 2>"$d.err"
	rc=$?
	[ $rc -eq 1 ] && [ ! -e "$d" ] || bad+=" [nothing written: exit $rc, $d: $(ls -A "$d" 2>&1 | tr '\n' ' ')]"
	if [ -n "$bad" ]; then fail failed_dir_accounted "$bad"; else ok failed_dir_accounted; fi
}

# --convert-arg is checked by snaptrace-convert (--check-options) before
# anything is recorded: an option that prints and writes no trace (--help:
# once exit 0, no trace, the recording deleted) or a bad value is exit 2,
# nothing started; one the converter takes records and converts.
t_convert_arg_checked() {
	local rc bad="" arg
	for arg in --help --version --print-perf-command --dump --window=bad --no-such; do
		rm -f "$TMP/ran"
		(cd "$TMP" && "$FRONT" run -o "$TMP/ca.fxt" --trigger none --convert-arg="$arg" \
			-- /bin/sh -c "touch $TMP/ran") >/dev/null 2>"$TMP/ca.err"
		rc=$?
		if [ $rc -ne 2 ] || [ -e "$TMP/ran" ] || [ -e "$TMP/ca.fxt" ] ||
			! grep -q -- "--convert-arg: snaptrace-convert refuses the arguments" "$TMP/ca.err"; then
			bad="$bad [$arg: exit $rc$([ -e "$TMP/ran" ] && echo ', the program ran'): $(tr '\n' '|' <"$TMP/ca.err")]"
		fi
	done
	"$FRONT" run -q -o "$TMP/ca.fxt" --trigger none --duration 0.3 --convert-arg=--no-srcline -- "${PROG[@]}" \
		>/dev/null 2>"$TMP/ca.err"
	rc=$?
	if [ -n "$bad" ]; then
		fail convert_arg_checked "$bad"
	elif [ $rc -ne 0 ] || ! "$CONVERT" --dump=slices "$TMP/ca.fxt" | grep -q ' work_leaf$'; then
		fail convert_arg_checked "--convert-arg=--no-srcline: exit $rc: $(tr '\n' '|' <"$TMP/ca.err")"
	else
		ok convert_arg_checked
	fi
}

t_snaptrace_bin_missing
t_missing_perf_reason
t_no_fork_before_exec
t_signal_at_start_named
t_early_signals
t_stop_how_named
t_other_stops
t_stderr_closed
t_perf_failure_said
t_stdout_closed
t_output_checked_first
t_output_full
t_empty_trigger
t_host_limits_refused
t_breakpoint_warned
t_stdout_trace_only
t_temporary_removed
t_target_ignored_as_given
t_failed_recording_kept
t_perf_refused_not_converted
t_perf_refused_named
t_failed_dir_accounted
t_convert_arg_checked
