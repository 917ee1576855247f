# Helpers of the recorder's suites (sourced after tests/lib.sh).

# fail_all WHY: a FAIL line for every test named in NAMES, then exit 1.
fail_all() {
	local n
	for n in $NAMES; do fail "$n" "$1"; done
	exit 1
}

# need_recording SUITE: skips every test of NAMES unless perf can record
# here (requirement recording); a FAIL for SUITE when snaptrace-record is
# not built.
need_recording() {
	requires_all recording
	need_built "$1" "$RECORD" "$SIGDFL"
}

# first_hit DIR: "PID TID" of the first trigger hit in DIR/record.json.
first_hit() {
	rec_rows "$1" hits pid tid | head -n 1
}

# usage_refused WHAT PATTERN ARGS...: snaptrace-record ARGS exits 2 with one line
# matching PATTERN and records nothing (no $TMP/bad); else prints
# " [WHAT: exit N: its last lines]".
usage_refused() {
	local what=$1 pattern=$2 rc
	shift 2
	rm -rf "$TMP/bad"
	"$RECORD" -o "$TMP/bad" "$@" </dev/null >/dev/null 2>"$TMP/bad.err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/bad.err")" -ne 1 ] ||
		! grep -q -- "$pattern" "$TMP/bad.err" || [ -e "$TMP/bad" ]; then
		echo " [$what: exit $rc: $(tl 2 "$TMP/bad.err")]"
	fi
}

# tl N FILE: the last N lines of FILE on one line (for failure messages).
tl() {
	tail -n "$1" "$2" | tr '\n' ' '
}

# wait_for FILE PATTERN SECONDS: waits until FILE has a line matching
# PATTERN; 1 when SECONDS of wall time pass first (a deadline, not a count of
# polls: under load each poll's grep and sleep take many times 10 ms).
# Callers must check it: a line that never came is the test's failure.
wait_for() {
	local end=$((${EPOCHREALTIME/./} + $3 * 1000000))
	until grep -q "$2" "$1" 2>/dev/null; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.01
	done
}

# wait_exec PID PROGRAM: waits (10 s at most) until process PID runs
# PROGRAM: a program started in the background is the shell's fork until
# it execs, which a loaded machine can delay past any fixed sleep (an
# attach would find bash and none of the program's functions).
wait_exec() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(realpath "$2")" ] && return 0
		sleep 0.01
	done
	return 1
}

# until_snapshot N ERR CMD...: runs CMD (snaptrace-record or `snaptrace
# run`, --multi-snapshot, not -q) with its stderr in ERR until it has taken
# its Nth snapshot (record.json's N-1: "taking snapshot N-1"), then stops it as Ctrl-C does (SIGINT, at its default
# when CMD starts: SIGDFL); returns its
# status (124 when it took no Nth snapshot within 60 s). The program keeps
# running while the snapshots are written, which takes seconds on a loaded
# machine: a program that exits first ends the recording with hits still
# waiting (coalesced, or taken by the exit snapshot), and the files perf
# switches to after its exit have no side-band (no names).
until_snapshot() {
	local n=$1 err=$2 pid
	shift 2
	"$SIGDFL" "$@" >/dev/null 2>"$err" &
	pid=$!
	BG+=("$pid")
	if ! wait_for "$err" "taking snapshot $((n - 1))$" 60; then
		kill -INT "$pid"
		wait "$pid"
		return 124
	fi
	kill -INT "$pid"
	wait "$pid"
}

# trig DIR KEY: a number of record.json's trigger object.
trig() {
	rec_field "$1" "trigger.$2"
}

# hits DIR: "TID ENTRY_NS TIME_NS DURATION_NS" of each hit.
hits() {
	rec_rows "$1" hits tid entry_ns time_ns duration_ns
}

# close_to REC_NS OWN_MS: the recorder's duration is the program's own
# measure (which it contains) within 5 ms + 25% (a loaded machine may
# preempt the call outside the program's measure).
close_to() {
	awk -v r="$1" -v o="$2" 'BEGIN { r /= 1e6; exit !(r >= o - 0.05 && r <= o * 1.25 + 5) }'
}

# snaps DIR [REASON]: the snapshot files of a recording (with that reason).
snaps() {
	rec_rows "$1" snapshots reason file | R="${2:-}" awk '
		ENVIRON["R"] == "" || $1 == ENVIRON["R"] { print substr($0, length($1) + 2) }'
}

# snap_problem DIR FILE: the "problem" record.json gives snapshot FILE: null
# for a perf.data perf finished, else why it is not one (without quotes).
snap_problem() {
	rec_rows "$1" snapshots file problem | F="$2" awk '
		$1 == ENVIRON["F"] { print substr($0, length($1) + 2) }'
}

# snaps_ok DIR ERR: every file record.json lists holds data, or is marked
# with its problem (record.json's "problem": perf left it unfinished, the
# disk full) and named in a warning of the recorder's stderr ERR; and
# record.json lists every perf.data* file in DIR, each once (the perf.data
# perf was writing when it failed too). A snapshot perf never wrote (file
# "": perf ended first) is no file; one whose file perf lost (file "", a
# problem "lost: ...": replaced by the next, never there) is named in a
# warning. Prints what is wrong.
snaps_ok() {
	local f p n=0 i=0 files line
	while IFS= read -r line; do
		f=${line%% *} p=${line#* } i=$((i + 1))
		if [ -z "$f" ] && [ "$p" != null ] &&
			! grep -q -F "warning: $1: snapshot $i has no file (record.json marks it): $p" "$2"; then
			echo "snapshot $i, without a file, is marked '$p' but named in no warning"
		fi
		[ -n "$f" ] || continue
		n=$((n + 1))
		if [ "$p" = null ]; then
			[ -s "$1/$f" ] || echo "listed but missing or empty: $f"
		elif ! grep -q -F "warning: $1/$f: an unfinished perf.data, kept but not to be converted (record.json marks it): $p" "$2"; then
			echo "$f is marked '$p' but named in no warning"
		fi
	done < <(rec_rows "$1" snapshots file problem)
	files=$(find "$1" -maxdepth 1 -name 'perf.data*' -printf x | wc -c)
	[ "$files" -eq "$n" ] || echo "perf wrote $files files, record.json lists $n"
	rec_rows "$1" snapshots file | grep . | sort | uniq -d | sed 's/^/listed twice: /'
}

# convert_snaps DIR FILE...: converts snapshot files of DIR into
# DIR/t.fxt.gz (messages in DIR/convert.log).
convert_snaps() {
	local dir=$1 f
	local -a in=()
	shift
	for f in "$@"; do in+=("$dir/$f"); done
	"$CONVERT" --quiet "${in[@]}" -o "$dir/t.fxt.gz" >/dev/null 2>"$dir/convert.log"
}

# slices_of DIR FILE...: converts snapshot files of DIR, prints the slices.
slices_of() {
	convert_snaps "$@" || return 1
	"$CONVERT" --dump=slices "$1/t.fxt.gz"
}

# span_ms DIR FILE...: converts snapshot files of DIR and prints the time
# the trace covers, in whole ms: from its first slice's begin to its last
# end, as `snaptrace-convert --dump=tree` reads them back.
span_ms() {
	convert_snaps "$@" || return 1
	"$CONVERT" --dump=tree "$1/t.fxt.gz" | awk '
		match($0, /\[[0-9]+, [0-9]+\]/) {
			split(substr($0, RSTART + 1, RLENGTH - 2), t, ", ")
			if (min == "" || t[1] + 0 < min) min = t[1] + 0
			if (t[2] + 0 > max) max = t[2] + 0
		}
		END { if (min == "") exit 1; printf "%d\n", (max - min) / 1e6 }'
}

# own_perfs [DIR]: the pids of our perf record processes, with their command
# lines (pgrep -a): perf runs in its recording directory, under DIR (default
# $TMP; other suites may run perf at the same time), in this suite's session
# (the runner starts each suite in a session of its own).
own_perfs() {
	local p
	for p in $(pgrep -s 0 -f "^[^ ]*perf record "); do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
		"${1:-$TMP}" | "${1:-$TMP}"/*) echo "$p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)" ;;
		esac
	done
}

# offcpu_callers TREE SYSCALL WRAPPER [AFTER_NS]: "WITH ALL" of the blocked
# [off-cpu] slices in SYSCALL of the threads other than each process's main
# one in TREE (snaptrace-convert --dump=tree), those beginning after AFTER_NS
# (perf's clock) when given: how many have WRAPPER among their callers, of
# how many.
offcpu_callers() {
	awk -v sc="$2" -v w="$3" -v after="${4:-0}" '
		/^# thread / { split($3, p, "="); pid = p[2]; next }
		match($0, / \[[0-9]+, [0-9]+\]/) {
			tid = $1; d = $2 + 0; nm = substr($0, 1, RSTART - 1)
			split(substr($0, RSTART + 2, RLENGTH - 3), t, ", ")
			sub(/^[0-9]+ [0-9]+ +/, "", nm)
			name[tid, d] = nm
			if (nm != "[off-cpu]" || tid == pid || t[1] + 0 <= after + 0 ||
			    $0 !~ /state:string="blocked"/ || $0 !~ "syscall:string=\"" sc "\"")
				next
			all++
			for (i = 0; i < d; i++)
				if (name[tid, i] == w) { with++; break }
		}
		END { print with + 0, all + 0 }' "$1"
}

# no_procs: no perf of ours (own_perfs) and none of the programs in the
# array TARGETS left running in this suite's session (suites that run side
# by side start the same programs: build/test/workload, the demo).
no_procs() {
	local p
	[ -n "$(own_perfs)" ] && return 1
	for p in "${TARGETS[@]}"; do
		pgrep -s 0 -f "^$p" >/dev/null && return 1
	done
	return 0
}

# Background processes a suite started (BG+=("$!")): killed, waited for, and
# the scratch directory handled, when the suite exits.
BG=()
rec_cleanup() {
	local p
	for p in "${BG[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	scratch_done
}
on_exit rec_cleanup

# The tests the suite was asked for (tests/run.sh SUITE/NAME gives it NAME):
# none, all of them.
ONLY=("$@")

# run_tests NAME...: runs the test function t_NAME of each NAME (all, or
# those asked for).
# A test that leaves a perf or target of the suite running (one that failed
# half-way, typically) is told so, and what it left is ended before the next
# test runs: a leftover is blamed on the test that left it, never on every
# test after it (one slow start once failed 14 tests of record this way).
run_tests() {
	local n p
	for n in "$@"; do
		if [ ${#ONLY[@]} -eq 0 ] || printf '%s\n' "${ONLY[@]}" | grep -qxF "$n"; then
			"t_$n"
			no_procs && continue
			fail "$n" "left running after it: $(own_perfs | cut -d' ' -f1-3 | tr '\n' ' ')$(
				for p in "${TARGETS[@]}"; do pgrep -s 0 -f "^$p"; done | tr '\n' ' ')"
			for p in "${BG[@]}"; do kill -9 "$p" 2>/dev/null; done
			for p in $(own_perfs | cut -d' ' -f1); do kill -9 "$p" 2>/dev/null; done
			for p in "${TARGETS[@]}"; do pkill -9 -s 0 -f "^$p"; done
			for p in "${BG[@]}"; do wait "$p" 2>/dev/null; done
		fi
	done
}

# use_workload SUITE: PROG is a copy of the workload
# (tests/workload/workload.c, `workload` without arguments lists its modes)
# in the scratch directory, its path this suite's own, so that no_procs
# finds only the suite's processes; a FAIL for SUITE when it is not built.
use_workload() {
	need_built "$1" "$SNAPTRACE_TEST_BIN/workload"
	PROG="$TMP/workload"
	cp "$SNAPTRACE_TEST_BIN/workload" "$PROG"
}
