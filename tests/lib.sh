# Helpers for tests/*/*.test.sh suites (sourced). Each test prints one line:
# "ok NAME", "FAIL NAME: why" or "skip NAME: requires REQ: why" (see
# tests/run.sh); only `requires` (tests/requirements.sh) prints a skip line.
set -u
: "${SNAPTRACE_TOP:=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)}"
: "${SNAPTRACE_O:=$SNAPTRACE_TOP/build}"
: "${SNAPTRACE_BIN:=$SNAPTRACE_O/bin}"
: "${SNAPTRACE_TEST_BIN:=$SNAPTRACE_O/test}"
CONVERT="$SNAPTRACE_BIN/snaptrace-convert"
RECORD="$SNAPTRACE_BIN/snaptrace-record"
# WHOLE_RUN: the recorder's option (snaptrace-record's and snaptrace run's)
# for a ring that keeps all of a test program's short run (a second or two)
# whatever the machine's load: each preemption's context-switch record (512
# bytes of stack) shortens the default ring, which under load kept only the
# last 300 ms of jit_target's 600 ms, none of its JIT code (make
# test-stress: jit's jitdump named no jit_dump_spin in 2 copies of 3).
WHOLE_RUN=(--snapshot-size 16M)
# entry_point DIR: the README's entry point, scripts/snaptrace (a symbolic
# link to ../build/bin/snaptrace, the front end), copied as a link into
# DIR/scripts beside DIR/build, a link to this build; prints its path.
entry_point() {
	mkdir -p "$1/scripts" && cp -P "$SNAPTRACE_TOP/scripts/snaptrace" "$1/scripts/" &&
		ln -sfn "$SNAPTRACE_O" "$1/build" && echo "$1/scripts/snaptrace"
}
# sigdfl CMD...: CMD with SIGINT, SIGQUIT, SIGTERM and SIGHUP at their default
# (tests/runner/sigdfl.c), as from a terminal: a command a script starts in
# the background (CMD &) ignores SIGINT and SIGQUIT
SIGDFL="$SNAPTRACE_TEST_BIN/sigdfl"
export PAGER=cat
. "${BASH_SOURCE[0]%/*}/requirements.sh"

ok() { echo "ok $1"; }
fail() {
	local name=$1
	shift
	echo "FAIL $name: $*"
	# the suite's scratch directory gone under it (seen once in rootsafe,
	# cause unknown): say once what /tmp is now, for whoever looks next
	if [ -n "${TMP:-}" ] && [ ! -d "$TMP" ] && [ -z "${TMP_GONE_SAID:-}" ]; then
		TMP_GONE_SAID=1
		echo "scratch directory $TMP is gone; /tmp now: $(grep -E '^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /tmp ' /proc/self/mountinfo | tr '\n' '|') entries: $(ls -A /tmp 2>&1 | head -n 5 | tr '\n' ' ')"
	fi
}
# verdict NAME WHY: "ok NAME" where WHY is empty, else "FAIL NAME: WHY".
verdict() { if [ -n "$2" ]; then fail "$1" "$2"; else ok "$1"; fi; }

# stress_count NORMAL FULL: how many times a race hunt repeats: NORMAL in
# `make test`, FULL under `make test-stress` (tests/run.sh --stress exports
# SNAPTRACE_STRESS=1).
stress_count() {
	if [ "${SNAPTRACE_STRESS:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# first_lines FILE: the first lines of FILE on one line, for a FAIL message.
first_lines() {
	head -n 3 "$1" | tr '\n' '|' | cut -c 1-300
}

# fail_recording NAME WHAT RC ERR [DATA...]: a FAIL line for NAME: WHAT
# (a recording that failed), its exit status RC (and the signal that ended
# it), whether each DATA (a perf.data, a recording directory) exists and
# what it holds; then the whole of ERR, its stderr, one line each, indented
# and with control characters shown (cat -v): the runner prints them below
# a failing suite's FAIL lines.
fail_recording() {
	local name=$1 what=$2 rc=$3 err=$4 st d
	shift 4
	st="exit $rc"
	[ "$rc" -gt 128 ] && st+=" (killed by SIG$(kill -l $((rc - 128)) 2>/dev/null))"
	[ "$rc" = 124 ] && st+=" (timeout's: the time limit passed)"
	for d; do
		if [ -d "$d" ]; then
			st+="; $d holds: $(cd "$d" && ls -A | tr '\n' ' ' | cat -v)"
		elif [ -e "$d" ]; then
			st+="; $d: $(stat -c %s "$d") bytes"
		else
			st+="; no $d"
		fi
	done
	if [ -f "$err" ]; then
		fail "$name" "$what: $st; its stderr ($(wc -l <"$err") lines) below"
		cat -v "$err" | sed 's/^/    | /'
	else
		fail "$name" "$what: $st; no stderr file $err"
	fi
}

# cc_target NAME SRC OUT: compiles SRC (a C file of the tree, e.g.
# tests/e2e/jit_target.c) into OUT as the suites' own targets are built
# (C11, warnings as errors, -O1 -g, frame pointers); when it does not
# compile, ends the suite with a FAIL line for NAME.
cc_target() {
	if ! cc -std=c11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -o "$3" \
		"$SNAPTRACE_TOP/$2" 2>"$TMP/cc.err"; then
		fail "$1" "cannot compile $2: $(first_lines "$TMP/cc.err")"
		exit 0
	fi
}

# need_built NAME FILE...: ends the suite with a FAIL line for NAME when a
# FILE is not built (`make all tests-build` builds every program and test
# tool the suites use: one missing is a broken build, never a skip).
need_built() {
	local name=$1 f
	shift
	for f; do
		if [ ! -x "$f" ]; then
			fail "$name" "$f is not built (make all tests-build)"
			exit 1
		fi
	done
}

# perf_data_stub FILE: a perf.data for stand-in perfs: the header of perf's
# struct perf_file_header (little-endian: no attribute, 8 bytes of data at
# 104, no feature) and its data, all there, so the converter takes it as a
# perf.data perf finished and runs perf on it.
perf_data_stub() {
	local v i
	{
		printf 'PERFILE2'
		for v in 104 136 104 0 104 8; do
			for ((i = 0; i < 8; i++)); do
				printf "\\$(printf %03o $((v >> (8 * i) & 255)))"
			done
		done
		head -c 56 /dev/zero
	} >"$1"
}

# check_perf_command NAME KIND DATA: the perf script command line the
# converter runs on DATA (text path, one range; seen through a perf that
# logs its arguments), less -i FILE (DATA as /proc/self/fd/N, inpath.h) and
# --kallsyms FILE (the kernel symbols of DATA: docs/design.md "Kernel symbols"),
# is what `snaptrace-convert --print-perf-command=KIND` prints, and every
# README line showing that command (a line starting "perf script" with its
# first -F) is that line (a trailing "\" continuation aside).
# perf_logging WRAPPER: writes WRAPPER, a perf (SNAPTRACE_PERF's, or the
# one on PATH) that appends each run's arguments, a line, to the file
# $PERF_LOG names in its environment.
perf_logging() {
	printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"$PERF_LOG"\nexec "%s" "$@"\n' \
		"$(command -v "${SNAPTRACE_PERF:-perf}")" >"$1"
	chmod +x "$1"
}

check_perf_command() {
	local name=$1 kind=$2 data=$3 want ran fields readme
	perf_logging "$TMP/cmd-perf"
	rm -f "$TMP/cmd-perf.log"
	want=$("$CONVERT" --print-perf-command="$kind")
	if ! PERF_LOG="$TMP/cmd-perf.log" SNAPTRACE_PERF="$TMP/cmd-perf" "$CONVERT" --quiet \
		--no-srcline --no-dlfilter -j 1 "$data" -o "$TMP/cmd.fxt" 2>"$TMP/cmd.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/cmd.err")"
		return
	fi
	ran="perf $(grep '^\(--buildid-dir [^ ]* \)\?script ' "$TMP/cmd-perf.log" | head -n 1 |
		sed 's|^--buildid-dir [^ ]* ||; s| -i [^ ]*||; s| --kallsyms [^ ]*||')"
	fields=$(sed 's/^[^-]*\(-[^F][^ ]* \)*-F \([^ ]*\) .*/\2/' <<<"$want")
	readme=$(grep -F -e "-F $fields " "$SNAPTRACE_TOP/README.md" | grep '^ *perf script ' |
		sed 's/ \\$//; s/^ *//' | sort -u)
	if [ "$ran" != "$want" ]; then
		fail "$name" "the converter ran '$ran', --print-perf-command=$kind prints '$want'"
	elif [ -z "$readme" ]; then
		fail "$name" "README.md shows no 'perf script ... -F $fields ...' line"
	elif [ "$readme" != "$want" ]; then
		fail "$name" "README.md shows '$(tr '\n' '|' <<<"$readme")', the converter runs '$want'"
	else
		ok "$name"
	fi
}

# A scratch directory for the suite's files. scratch_done removes it when the
# suite exits, or, with KEEP=1 in the environment, keeps it and prints a line
# "kept DIR" (tests/run.sh shows those lines). A suite with a cleanup of its
# own calls scratch_done at the end of it.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/snaptrace-test.XXXXXX")

# on_exit ACTION: ACTION (shell text) runs when the shell calling on_exit
# exits, never in a child of it: the one way a suite sets its EXIT trap.
# bash (5.2) runs an inherited EXIT trap in a child it forked for `CMD &`
# when a signal ends that child before its exec: rootsafe's `kill $!` of an
# attacker's reader, under load, ran scratch_done there and removed the
# suite's $TMP in the middle of the suite (49 tests then failed with "No
# such file or directory", 3 times in about 40 runs). The pid is read from
# /proc/self/stat: in such a child $BASHPID still gives the parent's.
on_exit() {
	local pid
	read -r pid _ </proc/self/stat
	# shellcheck disable=SC2064 # the caller's pid, fixed now
	trap "read -r _exit_pid _ </proc/self/stat; [ \"\$_exit_pid\" != $pid ] || { $1; }" EXIT
}

scratch_done() {
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
on_exit scratch_done

# A test that runs perf and its target in a session of their own (run_group)
# sets `on_exit group_cleanup`: the group still running at the end (a test
# interrupted) gets SIGTERM, then SIGKILL, and is reaped.
GROUP_PID=
group_cleanup() {
	stop_group "$GROUP_PID"
	scratch_done
}

# stop_group PID: ends the process group led by PID (a child of this shell;
# empty or gone: nothing), SIGTERM then SIGKILL, and reaps it.
stop_group() {
	if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
		kill -TERM -- "-$1" 2>/dev/null
		sleep 0.5
		kill -KILL -- "-$1" 2>/dev/null
		wait "$1" 2>/dev/null
	fi
}

# end_bg PID...: ends background children of this shell (`CMD &`; gone:
# nothing) and reaps them, with SIGKILL: a catchable signal that reaches the
# forked bash before its exec is taken by bash's own handler and lost at the
# exec, and the child goes on as if never signalled (rootsafe's
# out-fifo-other then waited for ever on the attacker's `cat FIFO` that a
# SIGTERM had missed: 1 of 5 copies beside two busy loops); SIGKILL cannot
# be caught, and runs no inherited EXIT trap (on_exit) either. A child that
# is a subshell (`FUNCTION ... &`: bash runs the function in a fork and its
# commands as that fork's children) is stopped first and ended with every
# process below it: killing the subshell alone left rootsafe's comm-newline
# attacker process running (the runner's leftover check failed the suite).
end_bg() {
	local p all=()
	kill -STOP "$@" 2>/dev/null
	for p in "$@"; do
		all+=("$p" $(bg_descendants "$p"))
	done
	kill -KILL "${all[@]}" 2>/dev/null
	wait "$@" 2>/dev/null
}

# bg_descendants PID: the pids of every process below PID (children first
# listed, then theirs), from /proc's parent links.
bg_descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		bg_descendants "$c"
	done
}

# run_group OUT ERR CMD...: runs CMD (at most 60 s) in a new session, its
# stdout in OUT and stderr in ERR; returns its status.
run_group() {
	local out=$1 err=$2 rc
	shift 2
	setsid timeout -k 5 60 "$@" >"$out" 2>"$err" &
	GROUP_PID=$!
	wait "$GROUP_PID"
	rc=$?
	GROUP_PID=
	return "$rc"
}
# in_background JOBS NAME CMD...: runs NAME (CMD, which prints its lines)
# as one of JOBS at a time, then prints its lines and "time NAME SECONDS"
# under the lock $TMP/output.lock, so that no two NAMEs' lines mix and the
# runner's hang guard sees the suite go on; the suite waits for the last
# ones (`wait`). For suites whose parts mostly wait (perf, sleeping
# helpers), each with its own names and scratch.
in_background() {
	local jobs=$1 name=$2
	shift 2
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	{
		local r="$TMP/$name.result" t t0=${EPOCHREALTIME/./}
		"$@" >"$r"
		t=$(((${EPOCHREALTIME/./} - t0) / 100000))
		echo "time $name $((t / 10)).$((t % 10))" >>"$r"
		flock "$TMP/output.lock" cat "$r"
	} &
}

# fifo_reader FIFO OUT: copies what is written into FIFO into OUT in the
# background (its pid in READER), its reader open before this returns: a
# writer that refuses a FIFO no process reads (the converter and the front
# end open it O_NONBLOCK: ENXIO) must find one however late the background
# job runs (`cat FIFO >OUT &` may not have opened it yet on a loaded
# machine). This shell holds FIFO open for writing too (fd FIFO_RW), so
# that opening the reader here does not wait: run the writer with
# {FIFO_RW}>&- (it need not hold it); fifo_reader_end closes it and waits
# for the reader, which then sees the end of what the writer wrote.
FIFO_RW=
fifo_reader() {
	local r
	exec {FIFO_RW}<>"$1"
	exec {r}<"$1"
	cat <&"$r" >"$2" {FIFO_RW}>&- &
	READER=$!
	exec {r}<&-
}
# fifo_reader_end: after the writer closed the FIFO: the reader's status.
fifo_reader_end() {
	exec {FIFO_RW}>&-
	wait "$READER"
}
# rec_field DIR PATH: the value of field PATH ("end", "trigger.symbol",
# "pids.0") of recording directory DIR's record.json as
# `snaptrace-convert --dump=recording` prints it (a string unquoted, null as
# null); nothing when there is no such field.
rec_field() {
	"$CONVERT" --dump=recording "$1" 2>/dev/null |
		P="$2=" awk 'index($0, ENVIRON["P"]) == 1 { print substr($0, length(ENVIRON["P"]) + 1); exit }'
}

# rec_part DIR PREFIX: the fields of DIR's record.json whose path starts
# with PREFIX ("signals", "trigger."), as `snaptrace-convert --dump=recording`
# prints them, on one line: what a failure message shows of record.json.
rec_part() {
	"$CONVERT" --dump=recording "$1" 2>/dev/null |
		P="$2" awk 'index($0, ENVIRON["P"]) == 1' | tr '\n' ' '
}

# wait_until SECONDS CMD...: polls CMD every 50 ms until it succeeds (CMD's
# output passes through: a CMD that prints only when it succeeds hands its
# answer over).
wait_until() {
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# rec_rows DIR ARRAY FIELD...: a line per element of DIR's record.json's
# ARRAY ("hits", "snapshots"), its FIELDs (paths within the element:
# "time_ns", "args.0") separated by spaces, in the file's order; an element
# without one of them is left out.
rec_rows() {
	local dir=$1 array=$2
	shift 2
	"$CONVERT" --dump=recording "$dir" 2>/dev/null | A="$array." F="$*" awk '
	function flush(   i, line) {
		for (i = 1; i <= n; i++) {
			if (!(f[i] in v)) { split("", v); return }
			line = line (i > 1 ? " " : "") v[f[i]]
		}
		if (cur != "") print line
		split("", v)
	}
	BEGIN { n = split(ENVIRON["F"], f, " "); a = ENVIRON["A"]; cur = "" }
	index($0, a) == 1 {
		rest = substr($0, length(a) + 1)
		k = substr(rest, 1, index(rest, ".") - 1)
		if (k != cur) { flush(); cur = k }
		rest = substr(rest, index(rest, ".") + 1)
		v[substr(rest, 1, index(rest, "=") - 1)] = substr(rest, index(rest, "=") + 1)
	}
	END { flush() }'
}

# json_replace FILE FROM TO: replaces the first FROM in the JSON file FILE
# (a test's own copy of a record.json) by TO, wherever its lines break;
# fails when FILE has no FROM.
json_replace() {
	local text
	text=$(<"$1") || return 1
	[[ $text == *"$2"* ]] || { echo "json_replace: $1 has no $2" >&2; return 1; }
	printf '%s\n' "${text/"$2"/"$3"}" >"$1"
}


# junk_frames IN OUT [NOROOT]: perf script text IN with a junk frame
# appended to every call chain, in turn 0xffffffffffffffff (perf's libdw
# unwinder at the end of a stack: a return address of 0, less one), 0, an
# address in no mapping ([unknown] binary), one at no user-space address
# (xz's frame-pointer walk: 0xf729666a1e9d51b9, past a kernel part too, as
# no kernel frame comes after a user frame), one in the thread's [stack],
# and one at 0x40 of the converter's own binary (ELF, with its symbols:
# its program headers, in the first segment and in no section, code in
# none of the ELF layouts; a stripped PIE's .interp at 0x318 drew a frame
# once, issue 18): what convert/chaincheck.c
# conv_chain_clean() cuts, so OUT converts to the slices IN does (tests of
# each path a chain takes: the junkframes suite, measured's measured-junk).
# With NOROOT, the frames of the threads' roots (_start,
# __libc_start_call_main, start_thread, clone3...) are left out of both:
# IN's chains written to NOROOT reach no root (a dwarf unwinder's short
# copy), so a junk frame would be their outermost, where nothing else cuts.
junk_frames() {
	if [ -n "${3:-}" ]; then
		grep -Ev '^\s+[0-9a-f]+ (_start|__libc_start_main|__libc_start_main_impl|__libc_start_call_main|clone|clone3|start_thread|thread_start|_dl_start|_dl_start_user)(@[@A-Za-z0-9_.]+)?\+' "$1" >"$3"
		set -- "$3" "$2"
	fi
	awk -v bin="$CONVERT" 'BEGIN { j[0] = "ffffffffffffffff [unknown] ([unknown])"; j[1] = "0 [unknown] ([unknown])"
			j[2] = "417dcc6a999807ff [unknown] ([unknown])"; j[3] = "f729666a1e9d51b9 [unknown] ([unknown])"
			j[4] = "7ffd5c57ebff [unknown] ([stack])"; j[5] = "40 [unknown] (" bin ")" }
		function junk(   s) { s = j[k++ % 6]; printf "\t%16s %s\n", substr(s, 1, index(s, " ") - 1), substr(s, index(s, " ") + 1); chain = 0 }
		/^\t/ { chain = 1; print; next }
		chain { junk() }
		{ print }
		END { if (chain) junk() }' "$1" >"$2"
}

# slices_match ACTUAL EXPECTED: compares two "TID DEPTH NAME" listings (the
# format of tests/cases/*/expected.txt and of `snaptrace-convert --dump=slices`).
# Threads are compared one by one, in any order; within a thread line by line.
# In EXPECTED a depth "*" matches any depth and a name ending in "*" matches
# any name with that prefix. Prints the first difference and returns 1.
slices_match() {
	awk '
	function key(line) { split(line, f, " "); return f[1] }
	NR == FNR { e[key($0)] = e[key($0)] $0 "\n"; if (!(key($0) in seen)) { seen[key($0)] = 1; order[++n] = key($0) }; next }
	{ a[key($0)] = a[key($0)] $0 "\n"; if (!(key($0) in seen)) { seen[key($0)] = 1; order[++n] = key($0) } }
	END {
		for (i = 1; i <= n; i++) {
			t = order[i]
			ne = split(e[t], el, "\n") - 1; na = split(a[t], al, "\n") - 1
			for (j = 1; j <= (ne > na ? ne : na); j++) {
				if (j > ne) { print "extra line: " al[j]; exit 1 }
				if (j > na) { print "missing line: " el[j]; exit 1 }
				if (!match_line(el[j], al[j])) { print "expected: " el[j] "\n   found: " al[j]; exit 1 }
			}
		}
	}
	function match_line(x, y,   xs, ys, xn, yn) {
		xs = x; ys = y
		# tid
		if (substr(xs, 1, index(xs, " ")) != substr(ys, 1, index(ys, " "))) return 0
		xs = substr(xs, index(xs, " ") + 1); ys = substr(ys, index(ys, " ") + 1)
		# depth
		xn = substr(xs, 1, index(xs, " ") - 1); yn = substr(ys, 1, index(ys, " ") - 1)
		if (xn != "*" && xn != yn) return 0
		xs = substr(xs, index(xs, " ") + 1); ys = substr(ys, index(ys, " ") + 1)
		# name
		if (substr(xs, length(xs), 1) == "*")
			return substr(ys, 1, length(xs) - 1) == substr(xs, 1, length(xs) - 1)
		return xs == ys
	}' "$2" "$1"
}

# filter_kept INPUT NAMES CASE...: for each CASE "FILTER|KEPT" (KEPT may
# hold "|" too), converts
# INPUT with --filter FILTER (into $TMP/f.fxt) and compares what the command
# NAMES prints of that trace with KEPT. Prints what differed (nothing: all
# kept what they should).
filter_kept() {
	local in=$1 names=$2 f got
	shift 2
	for f; do
		if ! "$CONVERT" --quiet --filter "${f%%|*}" "$in" -o "$TMP/f.fxt" 2>"$TMP/f.err"; then
			echo -n " --filter ${f%%|*} failed: $(first_lines "$TMP/f.err");"
		elif got=$("$names" "$TMP/f.fxt") && [ "$got" != "${f#*|}" ]; then
			echo -n " --filter ${f%%|*} kept '$got', expected '${f#*|}';"
		fi
	done
}

# records_in_order RECORDS: checks a `snaptrace-convert --dump=records`
# listing for what lets a reader stream a thread's slices (snaptrace stats):
# no duration complete record comes after a record of its thread (begin,
# complete, instant, end) of a later time, as a parent's written after its
# children's would. Prints the first that does and returns 1.
records_in_order() {
	awk '
	# a < b for decimal integers without leading zeros, exact past 2^53
	function before(a, b) { return length(a) != length(b) ? length(a) < length(b) : a < b }
	$2 == "event" && ($3 == "begin" || $3 == "complete" || $3 == "instant" || $3 == "end") {
		ts = k = ""
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^ts=/) ts = substr($i, 4)
			else if ($i ~ /^(pid|tid)=/) k = k " " $i
		}
		if ($3 == "complete" && (k in latest) && before(ts, latest[k])) {
			print "record " $1 " (complete at " ts ") after a record of its thread at " latest[k]
			exit 1
		}
		if (!(k in latest) || before(latest[k], ts))
			latest[k] = ts
	}' "$1"
}
