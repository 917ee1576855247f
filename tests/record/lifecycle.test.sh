#!/usr/bin/env bash
# tier: record
# The process lifecycle (README "Signals"): SIGINT, SIGTERM, SIGHUP and
# SIGKILL sent to each process of a recording at each phase.
#   processes: front  `snaptrace run` (which is the recorder, exec'd)
#              record `snaptrace-record` alone
#              perf   perf record, or perf script while converting
#   phases:    starting    perf is being started (a stand-in perf waits 1 s)
#              recording   the program runs, perf records
#              snapshot    --multi-snapshot with the trigger hit every 10 ms: a
#                          snapshot every 300 ms (signalled after the third)
#              ending      the front end only: perf has ended, the converter
#                          has not started (--duration ends the recording;
#                          the program, ended with SIGTERM after perf's end,
#                          sends the signal to the front end itself:
#                          workload onterm, and the recorder waits 500 ms
#                          before its SIGKILL, so the signal lands in that
#                          window every time); the old code dropped it and
#                          converted
#              converting  snaptrace-convert runs (its perf script waits 1 s)
#              early       the front end only: at once (0 ms) and during the
#                          probe of perf, from a terminal and to a background
#                          job (below, early_case)
#              ignored     the front end only, started with the signal ignored
#                          (trap '' INT HUP, nohup), the signal sent to its
#                          process group while converting (below, ignored_case)
# Each case checks the exit status and message the README gives, that the
# trace or the recording is there (read back with --dump=slices), and that
# no process of the case is left: every process a case starts carries
# LIFECYCLE_CASE=TMP/NAME (unique to this run: another run of the suite on the machine has its own) in its environment, and none may carry it afterwards.
# LIFECYCLE_WHO and LIFECYCLE_PHASES (space-separated) run a part only.
# The whole matrix (44 cases and 8 early ones) under make test-stress
# (SNAPTRACE_STRESS=1, or LIFECYCLE_ALL=1); make test runs every process at
# every phase with one of the four signals, turning with the process and the
# phase (lifecycle_sigs): front and perf meet each signal, record three (it
# has three phases), each phase three or two; and half of the early cases
# (each way of starting, each moment).
# About a minute with 3 cases at a time (LIFECYCLE_JOBS) on an idle machine.
. "$(dirname "$0")/../lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN
requires lifecycle recording || exit 0
need_built lifecycle "$RECORD" "$CONVERT"
PERF=$(command -v perf)

# The target: the workload (tests/workload/workload.c) in its bursts mode,
# for ever: 2 ms of nested work (work_leaf in every snapshot), the trigger,
# 8 ms asleep. Signals to the target's recorder, front end and perf are the
# subject here, not a busy target: a spinning one took a CPU per case (three
# cases at a time, and perf's samples of it). The perf of the "starting"
# phase and the slow perf script: slowperf (tests/record/slowperf.c), which
# logs its pid and waits 1 s before becoming perf.
PROG="$SNAPTRACE_TEST_BIN/workload"
SLOWPERF="$SNAPTRACE_TEST_BIN/slowperf"
need_built lifecycle "$PROG" "$SLOWPERF" "$SIGDFL"
TARGET=("$PROG" bursts 2 8)
export SLOWPERF_PERF="$PERF"

# case_pids NAME: the pids of the processes of case NAME.
case_pids() {
	grep -lsxzF "LIFECYCLE_CASE=$TMP/$1" /proc/[0-9]*/environ 2>/dev/null | sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}

# wait_gone NAME: waits until no process of case NAME is left: 15 s at most
# (perf may still be writing its snapshot on a loaded machine).
wait_gone() {
	local i
	for ((i = 0; i < 150; i++)); do
		[ -z "$(case_pids "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}

# child_named PID COMM: the child of PID whose comm is COMM.
child_named() {
	local f
	for f in /proc/[0-9]*/stat; do
		read -r -a st 2>/dev/null <"$f" || continue
		if [ "${st[3]}" = "$1" ] && [ "${st[1]}" = "($2)" ]; then
			echo "${st[0]}"
			return 0
		fi
	done
	return 1
}

# script_pid ROOT: prints the pid (here, outside any namespace) of the perf
# script a converter under process ROOT runs (slowperf, then perf: "script"
# among its first four words). The converter runs root's perf with a /tmp
# of its own (common/tmpview.h), where slowperf's log cannot reach this
# suite's /tmp, and, for a recording with perf maps, as the first process of
# a pid namespace, where the pid it would log is 1.
script_pid() {
	local f p q st argv
	for f in /proc/[0-9]*/cmdline; do
		mapfile -d '' -t argv 2>/dev/null <"$f" || continue
		case ${argv[0]:-} in "$SLOWPERF" | */perf | perf) ;; *) continue ;; esac
		[ "${argv[1]:-}" = script ] || [ "${argv[3]:-}" = script ] || continue
		p=${f#/proc/}
		p=${p%/cmdline}
		q=$p
		while [ "$q" -gt 1 ] && [ "$q" != "$1" ]; do
			read -r -a st 2>/dev/null <"/proc/$q/stat" || continue 2
			q=${st[3]}
		done
		[ "$q" = "$1" ] && echo "$p" && return 0
	done
	return 1
}

log_has() { grep -q "$2" "$1" 2>/dev/null; }
slowperf_ran() { grep -q " $2\$" "$1" 2>/dev/null; }

# start_case NAME PROCESS PHASE SIG: starts the recording of a case in the
# background; sets PID (of the front end or recorder), DIR, OUT, ERR.
start_case() {
	local name=$1 who=$2 phase=$3 sig=$4 target=("${TARGET[@]}")
	# 1000 samples a second (not 5000): what a case converts is no subject here
	local -a opts=(--trigger none --duration 20) conv=() freq=(--sampling-freq 1000)
		DIR="$TMP/$name.d" OUT="$TMP/$name.fxt.gz" ERR="$TMP/$name.err"
	export SLOWPERF_LOG="$TMP/$name.slowperf"
	case $phase in
	starting) opts+=(--perf "$SLOWPERF") ;;
	snapshot) opts=(--trigger snaptrace_trigger --multi-snapshot
		--min-interval 300 --arm-after 0 --duration 20) ;;
	converting) opts=(--trigger none --duration 0.5) conv=(--convert-arg "--perf=$SLOWPERF") ;;
	ending) opts=(--trigger none --duration 0.5)
		target=("$PROG" onterm "$(kill -l "$sig")" "${TARGET[@]:1}") ;;
	esac
	# started as from a terminal (SIGDFL, tests/lib.sh)
	if [ "$who" = record ]; then
		LIFECYCLE_CASE=$TMP/$name "$SIGDFL" "$RECORD" -o "$DIR" "${freq[@]}" "${opts[@]}" \
			-- "${target[@]}" >/dev/null 2>"$ERR" &
	else
		LIFECYCLE_CASE=$TMP/$name "$SIGDFL" "$FRONT" run -o "$OUT" -d "$DIR" "${freq[@]}" \
			"${opts[@]}" "${conv[@]}" -- "${target[@]}" >/dev/null 2>"$ERR" &
	fi
	PID=$!
}

# victim PROCESS PHASE: waits for PHASE, prints the pid to signal.
victim() {
	local who=$1 phase=$2 p
	case $phase in
	starting)
		wait_until 10 slowperf_ran "$SLOWPERF_LOG" record || return 1
		p=$(awk '$2 == "record" { print $1 }' "$SLOWPERF_LOG") ;;
	recording | snapshot)
		wait_until 10 log_has "$ERR" "recording launched process" || return 1
		if [ "$phase" = snapshot ]; then
			wait_until 10 log_has "$ERR" "taking snapshot 2$" || return 1
		else
			sleep 0.3
		fi
		p=$(child_named "$PID" perf) ;;
	converting)
		p=$(wait_until 30 script_pid "$PID") || return 1 ;;	# one walk: its answer
	ending) echo -; return ;;	# the program sends it (start_case)
	esac
	[ "$who" = perf ] && echo "$p" || echo "$PID"
}

# has_slices FILE: FILE is a trace holding work_leaf.
has_slices() {
	"$CONVERT" --dump=slices "$1" 2>/dev/null | grep -q ' work_leaf$'
}

# abandon_case NAME WHY: case NAME failed before its signal (WHY): a FAIL
# with ERR's last lines, and its processes ended.
abandon_case() {
	fail "$1" "$2: $(tail -n 3 "$ERR" | tr '\n' '|')"
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	wait_gone "$1" || kill -9 $(case_pids "$1") 2>/dev/null
}

# left_running NAME: a FAIL when a process of case NAME is left (which is
# then killed); returns 1 then.
left_running() {
	wait_gone "$1" && return 0
	fail "$1" "left running: $(for q in $(case_pids "$1"); do
		tr '\0' ' ' <"/proc/$q/cmdline"; echo -n '| '; done)"
	kill -9 $(case_pids "$1") 2>/dev/null
	return 1
}

# verdict NAME WHY: ok, or a FAIL with WHY (not empty) and ERR's last lines.
verdict() {
	if [ -n "$2" ]; then
		fail "$1" "$2: $(tail -n 3 "$ERR" | tr '\n' '|')"
	else
		ok "$1"
	fi
}

# kept_named: the message names the recording directory, which holds perf data.
kept_named() {
	grep -q "stays in $DIR" "$ERR" && ls "$DIR"/perf.data* >/dev/null 2>&1
}

# expect NAME WHO PHASE SIG RC: what the README says for the case.
expect() {
	local name=$1 who=$2 phase=$3 sig=$4 rc=$5
	if [ "$who" = perf ]; then
		# perf failed (any signal): exit 1; whatever was captured is kept and named
		[ "$rc" -eq 1 ] || { echo "exit $rc, expected 1"; return; }
		if [ "$phase" = starting ]; then
			log_has "$ERR" "perf exited before recording" || echo "no perf message"
		else
			kept_named || echo "the recording is not kept and named"
		fi
		return
	fi
	if [ "$sig" = KILL ]; then
		# killed: what was recorded so far stays on disk
		if [ "$rc" -ne 137 ]; then
			echo "exit $rc, expected 137 (killed)"
		elif { [ "$phase" = converting ] || [ "$phase" = ending ]; } &&
			! ls "$DIR"/perf.data* >/dev/null 2>&1; then
			echo "the recording was removed"
		fi
		return
	fi
	if [ "$phase" = ending ] && [ -e "$OUT" ]; then
		echo "converted after the signal"
		return
	fi
	if [ "$phase" = converting ] || [ "$phase" = ending ]; then
		[ "$rc" -eq 1 ] || { echo "exit $rc, expected 1"; return; }
		log_has "$ERR" "conversion stopped; the recording stays in $DIR" ||
			{ echo "no 'conversion stopped' message"; return; }
		kept_named || echo "the recording is not kept"
		return
	fi
	# like Ctrl-C: the snapshot is taken and kept, exit 0
	[ "$rc" -eq 0 ] || { echo "exit $rc, expected 0"; return; }
	[ "$(rec_field "$DIR" end)" = interrupt ] ||
		{ echo "record.json does not say end: interrupt"; return; }
	if [ "$who" = front ] && [ "$phase" = starting ]; then
		# the program, stopped at its first instruction until perf was ready,
		# ran only just: the trace may hold nothing, but it is a valid one
		"$CONVERT" --dump=slices "$OUT" >/dev/null 2>&1 || echo "the trace does not read back"
	elif [ "$who" = front ]; then
		has_slices "$OUT" || echo "the trace has no work_leaf"
	elif [ "$phase" != starting ]; then
		# what the front end converts: every snapshot of record.json
		local -a f
		mapfile -t f < <(rec_rows "$DIR" snapshots file | D="$DIR/" awk '{ print ENVIRON["D"] $0 }')
		"$CONVERT" -q "${f[@]}" -o "$TMP/$name.check.fxt" 2>/dev/null &&
			has_slices "$TMP/$name.check.fxt" || echo "the snapshots have no work_leaf"
	fi
}

# run_case WHO PHASE SIG
run_case() {
	local who=$1 phase=$2 sig=$3 name="$1_$2_$3" p rc
	start_case "$name" "$who" "$phase" "$sig"
	if ! p=$(victim "$who" "$phase") || [ -z "$p" ]; then
		abandon_case "$name" "phase $phase not reached"
		return
	fi
	[ "$p" = - ] || kill -"$sig" "$p"
	wait "$PID" 2>/dev/null
	rc=$?
	left_running "$name" || return
	verdict "$name" "$(expect "$name" "$who" "$phase" "$sig" "$rc")"
	rm -rf "$DIR" "$OUT"
}

# The first moments (README "Signals"), cases named early_*: a signal at
# once (0 ms) and during the recorder's probe of perf (the stand-in perf
# waits 1 s in --version: SLOWPERF_VERSION=wait), sent as a terminal sends
# it (SIGDFL, in a process group of its own, the signal to the whole group:
# the probe is in it, unless the recorder keeps it out) and as a script
# sends it to a background job (plain &: SIGINT ignored, and it stays
# ignored throughout: the recording goes on until a SIGTERM).
#   early_case NAME terminal|background probe|once SIG
early_case() {
	local name=$1 how=$2 when=$3 sig=$4 rc pg=
	local -a cmd=("$FRONT" run -o "$TMP/$name.fxt.gz" -d "$TMP/$name.d" --sampling-freq 1000
		--trigger none --duration 20 --perf "$SLOWPERF" -- "$PROG" work)
	DIR="$TMP/$name.d" OUT="$TMP/$name.fxt.gz" ERR="$TMP/$name.err"
	export SLOWPERF_LOG="$TMP/$name.slowperf"
	# a cache of its own: perf's version is asked once per binary, and
	# probed here each time
	export XDG_CACHE_HOME="$TMP/$name.cache"
	if [ "$how" = terminal ]; then
		LIFECYCLE_CASE=$TMP/$name SLOWPERF_VERSION=wait "$SIGDFL" setsid "${cmd[@]}" \
			>/dev/null 2>"$ERR" &
		PID=$! pg=-
	else
		LIFECYCLE_CASE=$TMP/$name SLOWPERF_VERSION=wait "${cmd[@]}" >/dev/null 2>"$ERR" &
		PID=$!
	fi
	local why=
	if [ "$how" = terminal ] && ! wait_until 5 pgrp_is "$PID"; then
		why="not in a process group of its own"
	elif [ "$how" = background ] && ! sigint_ignored "$PID"; then
		why="SIGINT not ignored in a background job"
	elif [ "$when" = probe ] && ! wait_until 10 slowperf_ran "$SLOWPERF_LOG" --version; then
		why="the probe of perf was not reached"
	fi
	if [ -n "$why" ]; then
		abandon_case "$name" "$why"
		return
	fi
	kill -"$sig" -- "$pg$PID"
	# the background SIGINT is ignored: the recording goes on until a SIGTERM
	if [ "$how" = background ] && [ "$sig" = INT ]; then
		wait_until 10 log_has "$ERR" "recording launched process" && sleep 0.3
		kill -TERM "$PID" 2>/dev/null
	fi
	wait "$PID" 2>/dev/null
	rc=$?
	left_running "$name" || return
	verdict "$name" "$(early_expect "$how" "$when" "$sig" "$rc")"
	rm -rf "$DIR" "$OUT"
}

pgrp_is() { local st; read -r -a st <"/proc/$1/stat" && [ "${st[4]}" = "$1" ]; }
# sigint_ignored PID: SIGINT (bit 1 of SigIgn) is ignored, whichever of the
# front end's programs PID is running now.
sigint_ignored() { (( 0x$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$1/status") & 2 )); }

# early_expect HOW WHEN SIG RC: what the README says for an early case.
early_expect() {
	local how=$1 when=$2 sig=$3 rc=$4 n
	log_has "$ERR" 'perf --version' && { echo "the probe of perf was reported broken"; return; }
	if [ "$how" = background ] && [ "$sig" = INT ]; then
		# ignored throughout: the SIGTERM ended a recording of the program
		[ "$rc" -eq 0 ] || { echo "exit $rc, expected 0"; return; }
		log_has "$ERR" "SIGINT\|Interrupt" && { echo "the ignored SIGINT was acted on"; return; }
		has_slices "$OUT" || echo "the trace has no work_leaf"
		return
	fi
	case $sig in INT) n=2 ;; TERM) n=15 ;; HUP) n=1 ;; esac
	if [ "$rc" -eq $((128 + n)) ]; then
		# before the recorder's main(): the script's line, or (before bash
		# ran the script's first line, or while the recorder's program was
		# loading) the signal's default action, without a word
		[ "$when" = once ] || echo "exit $rc during the probe, expected 0"
		return
	fi
	[ "$rc" -eq 0 ] || { echo "exit $rc, expected 0 or $((128 + n))"; return; }
	log_has "$ERR" "SIG$sig came while the recording was starting" ||
		{ echo "no 'came while the recording was starting' warning"; return; }
	[ "$(rec_field "$DIR" end)" = interrupt ] ||
		{ echo "record.json does not say end: interrupt"; return; }
	"$CONVERT" --dump=slices "$OUT" >/dev/null 2>&1 || echo "the trace does not read back"
}

# A stop signal ignored when snaptrace started stays ignored (README
# "Signals"), in every process of the recording: started under `trap ''
# INT HUP` or nohup in a session of its own, the front end gets the signal
# sent to its whole process group (kill -SIG -PGID, as a hangup or a
# script's kill reaches it) while its converter runs (synchronised on the
# converter's perf script, slowperf, which waits 1 s before becoming perf),
# and the trace is written all the same, exit 0. The old converter put its
# own handler over an ignored SIGINT and SIGHUP and died of it ("conversion
# stopped", exit 1); perf script, which handles SIGINT even when ignored,
# stopped early and exited 0 with its output cut (it now runs in a process
# group of its own). At its default action the same group signal still
# stops the conversion: exit 1, the recording kept and named, no trace and
# no temporary left.
#   ignored_case NAME trap|nohup|default SIG
ignored_case() {
	local name=$1 how=$2 sig=$3 rc why= outdir="$TMP/$1.out"
	local -a cmd=("$FRONT" run -o "$outdir/trace.fxt.gz" -d "$TMP/$name.d" --sampling-freq 1000
		--trigger none --duration 0.5 --convert-arg "--perf=$SLOWPERF" -- "${TARGET[@]}")
	DIR="$TMP/$name.d" OUT="$outdir/trace.fxt.gz" ERR="$TMP/$name.err"
	export SLOWPERF_LOG="$TMP/$name.slowperf"
	mkdir "$outdir"
	case $how in
	trap) LIFECYCLE_CASE=$TMP/$name setsid bash -c 'trap "" INT HUP; exec "$@"' - "${cmd[@]}" \
		>/dev/null 2>"$ERR" & ;;
	nohup) LIFECYCLE_CASE=$TMP/$name setsid nohup "${cmd[@]}" >/dev/null 2>"$ERR" & ;;
	default) LIFECYCLE_CASE=$TMP/$name "$SIGDFL" setsid "${cmd[@]}" >/dev/null 2>"$ERR" & ;;
	esac
	PID=$!
	if ! wait_until 5 pgrp_is "$PID"; then
		why="not in a process group of its own"
	elif ! wait_until 30 script_pid "$PID" >/dev/null; then
		why="the conversion was not reached"
	fi
	if [ -n "$why" ]; then
		abandon_case "$name" "$why"
		return
	fi
	kill -"$sig" -- "-$PID"
	wait "$PID" 2>/dev/null
	rc=$?
	left_running "$name" || return
	if compgen -G "$outdir/.snaptrace-*" >/dev/null; then
		why="a temporary left: $(ls -A "$outdir" | tr '\n' ' ')"
	elif [ "$how" = default ]; then
		if [ "$rc" -ne 1 ]; then
			why="exit $rc, expected 1"
		elif ! log_has "$ERR" "conversion stopped; the recording stays in $DIR"; then
			why="no 'conversion stopped' message"
		elif ! kept_named; then
			why="the recording is not kept"
		elif [ -n "$(ls -A "$outdir")" ]; then
			why="output left: $(ls -A "$outdir" | tr '\n' ' ')"
		fi
	elif [ "$rc" -ne 0 ]; then
		why="exit $rc, expected 0 (SIG$sig ignored)"
	elif log_has "$ERR" "stopping\|Hangup\|Interrupt"; then
		why="the ignored SIG$sig was acted on"
	elif ! has_slices "$OUT"; then
		why="the trace has no work_leaf"
	fi
	verdict "$name" "$why"
	rm -rf "$DIR" "$outdir"
}

# The cases run LIFECYCLE_JOBS (default 3) at a time: most of a case is
# waiting for perf; each has its own names, directory and token. A case's
# lines are printed as it ends (under a lock, so that no two cases' lines
# mix: the runner's hang guard sees the suite go on), with its own time
# ("time NAME SECONDS", tests/run.sh), which the order of the lines cannot
# give.
jobs=${LIFECYCLE_JOBS:-3}
ALL=$(stress_count "${LIFECYCLE_ALL:-0}" 1)
SIGS=(INT TERM HUP KILL)
WHOS=(front perf record)
PHASES=(starting recording snapshot converting ending)
# lifecycle_sigs W P: the signals of the process numbered W (in WHOS) at the
# phase numbered P (in PHASES): all four for the whole matrix; else
# SIGS[(W + P) % 4], so that a process meets a signal at each phase, and a
# phase one with each process.
lifecycle_sigs() {
	if [ "$ALL" = 1 ]; then
		echo "${SIGS[*]}"
	else
		echo "${SIGS[($1 + $2) % 4]}"
	fi
}
index_of() {
	local k=0 x want=$1
	shift
	for x; do
		[ "$x" = "$want" ] && { echo $k; return; }
		k=$((k + 1))
	done
}
for who in ${LIFECYCLE_WHO:-${WHOS[*]}}; do
	for phase in ${LIFECYCLE_PHASES:-${PHASES[*]}}; do
		[ "$phase" = early ] || [ "$phase" = ignored ] && continue
		[ "$who" = record ] && [ "$phase" = converting ] && continue
		[ "$who" != front ] && [ "$phase" = ending ] && continue
		for sig in $(lifecycle_sigs "$(index_of "$who" "${WHOS[@]}")" \
			"$(index_of "$phase" "${PHASES[@]}")"); do
			# a signal ignored when this shell started (nohup) stays ignored in
			# every child, perf included: the case cannot happen as written
			# (tests/run.sh starts every suite with them at their default)
			if [ "$sig" != KILL ] && ! requires "${who}_${phase}_$sig" "sig${sig,,}"; then
				continue
			fi
			in_background "$jobs" "${who}_${phase}_$sig" run_case "$who" "$phase" "$sig"
		done
	done
done
# the early cases: all eight for the whole matrix, else one of each way of
# starting at each moment, the signals crossed (the background SIGINT, which
# stays ignored, kept)
if [ "$ALL" = 1 ]; then
	EARLY=("terminal probe INT" "terminal probe TERM" "terminal once INT" "terminal once TERM"
		"background probe INT" "background once INT" "background probe TERM" "background once TERM")
else
	EARLY=("terminal probe TERM" "terminal once INT" "background probe INT" "background once TERM")
fi
for c in "${EARLY[@]}"; do
	read -r how when sig <<<"$c"
	name="early_${how}_${when}_$sig"
	case " ${LIFECYCLE_PHASES:-early} / ${LIFECYCLE_WHO:-front} " in
	*" early "*/*" front "*) ;;
	*) continue ;;
	esac
	requires "$name" "sig${sig,,}" || continue
	in_background "$jobs" "$name" early_case "$name" "$how" "$when" "$sig"
done
# the ignored cases (above): SIGHUP and SIGINT ignored, nohup's SIGHUP, and
# one at its default action
for c in "trap HUP" "trap INT" "nohup HUP" "default HUP"; do
	read -r how sig <<<"$c"
	name="ignored_${how}_$sig"
	case " ${LIFECYCLE_PHASES:-ignored} / ${LIFECYCLE_WHO:-front} " in
	*" ignored "*/*" front "*) ;;
	*) continue ;;
	esac
	if [ "$how" = default ]; then
		requires "$name" "sig${sig,,}" || continue
	fi
	in_background "$jobs" "$name" ignored_case "$name" "$how" "$sig"
done
wait
