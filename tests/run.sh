#!/usr/bin/env bash
# Runs the test suite against the build in directory O (default build).
#   tests/run.sh [-j N] [-J N] [-r N] [--tiers LIST] [--stress] [O] [SUITE[/NAME]...]
#
# Suites: every tests/DIR/NAME.test.sh by its NAME (the unit programs
# O/test/unit/test_* are the suite unit: tests/unit/unit.test.sh); SUITE/NAME
# hands NAME to the suite as an argument (cases/jit-int, unit/test_parse, or a
# golden case named alone: jit-int). Naming suites runs them whatever their tier; naming none runs
# every suite of the tiers in LIST (default check,record).
#
# Tiers: a suite says its own in one line near its top, "# tier: TIER"
# (none: check).
#   check        no perf recording, no timing: runs beside other check
#                suites, -j N at a time (default: the number of CPUs), and
#                beside record suites at nice 10 when the run has some
#                (weight 110 against a record suite's 1024: they take the
#                CPU the recordings leave idle, not the recordings' share)
#   record       records with perf or measures time: beside other record
#                suites, -J N at a time (default the CPUs plus one: a
#                recording mostly waits for perf, its program and the
#                clock; -J 1 runs each alone), and
#                beside the check suites, which yield to it
#   stress       race hunts at full count: only with --tiers stress; alone
#   pt-hardware  real Intel PT: only with --tiers pt-hardware; alone
# --stress exports SNAPTRACE_STRESS=1 (tests/lib.sh stress_count: a suite's
# race hunts at their full count); -r N runs each suite N times.
#
# Protocol: every test prints one line "ok NAME", "FAIL NAME: why" or
# "skip NAME: requires REQ: why", REQ one of tests/requirements.sh (a skip
# line naming none is a FAIL; skips are counted per REQ). A suite may print
# "time NAME SECONDS" to give a test's time itself; otherwise a test's time
# is from the suite's previous result line (or its start) to its own, as
# the lines arrive. A suite that exits non-zero without a FAIL line counts
# as one failure. A failing suite's other output follows its FAIL lines (a
# golden case's diff, the command that reruns it). With KEEP=1 suites keep
# their scratch directories and say where ("kept DIR").
#
# Hang guard: a suite that prints nothing for SNAPTRACE_TEST_HANG seconds
# (default 300) is killed (its process group and every process carrying
# its token), and the test it was in is a FAIL with its time.
#
# Every suite starts through O/test/sigdfl
# (tests/runner/sigdfl.c): SIGINT, SIGQUIT, SIGTERM and SIGHUP at their
# default action however the runner was started (nohup, a background job);
# in a session of its own (sigdfl -s); with TMPDIR a scratch directory of its own. A
# suite of another tier than check (perf records, and is killed) also gets
# that directory as its /tmp, in a mount namespace of its own, where one can
# be made (root), the source tree and O bound there at their paths when
# under the machine's /tmp: perf writes /tmp/perf-vdso.so-* whatever TMPDIR
# says, and leaves it behind when killed; and suites of runs side by side
# (a CI clone under /tmp beside a checkout's run) never meet in one /tmp
# (a copy of rootsafe's 100,000 names there once failed another's perf-map
# tests). Each suite runs with SNAPTRACE_TEST_RUN=TOKEN (its
# own) in its environment, which every process it starts inherits (perf,
# targets, converters): a process still carrying the token after the suite
# ended is a leftover of that suite, reported as a failure and killed.
# Processes of other users of the machine (another perf, another suite) are
# never looked at.
#
# Prints each suite's result line with its wall seconds as it ends, then the
# ten slowest tests, one line per tier, the skips per requirement, the
# failed tests in one line ("failed: SUITE/NAME ...", when some did) and
# "N passed, N failed" (", N skipped" when some were).
#
# Failure log: O/test-failures.log, replaced at each run (removed when
# nothing failed; a run's failures follow those of runs side by side on one
# O that wrote it meanwhile, and a run without removes no such log), holds for
# each failing suite the command that reruns it, its FAIL lines and the
# suite's output around each (15 lines either side, every line that is not
# ok or skip), each line after its seconds from the suite's start: what
# scrolled by in a long run stays to be read. The summary names it when it
# is not empty, above the "failed:" line. Exits 1 on a failure
# or when nothing passed or skipped, 2
# on a usage error (an unknown SUITE or tier, the build missing).
set -u
run_args=("$@")
top=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
usage() {
	echo "usage: tests/run.sh [-j N] [-J N] [-r N] [--tiers LIST] [--stress] [O] [SUITE[/NAME]...]" >&2
	exit 2
}

jobs=$(nproc 2>/dev/null || echo 1)
record_jobs=$((jobs + 1)) repeat=1 tiers=check,record
while [ $# -gt 0 ]; do
	case "$1" in
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	-J) [ $# -ge 2 ] || usage; record_jobs=$2; shift 2 ;;
	-J*) record_jobs=${1#-J}; shift ;;
	-r) [ $# -ge 2 ] || usage; repeat=$2; shift 2 ;;
	-r*) repeat=${1#-r}; shift ;;
	--tiers) [ $# -ge 2 ] || usage; tiers=$2; shift 2 ;;
	--tiers=*) tiers=${1#--tiers=}; shift ;;
	--stress) export SNAPTRACE_STRESS=1; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ && $record_jobs =~ ^[1-9][0-9]*$ && $repeat =~ ^[1-9][0-9]*$ ]] || usage
TIERS="check record stress pt-hardware"
for t in ${tiers//,/ }; do
	[[ " $TIERS " == *" $t "* ]] || { echo "tests/run.sh: no tier '$t': expected one of: $TIERS" >&2; exit 2; }
done

O=${1:-build}
shift $(($# > 0 ? 1 : 0))
case "$O" in /*) ;; *) O="$top/$O" ;; esac
export SNAPTRACE_TOP="$top" SNAPTRACE_O="$O" SNAPTRACE_BIN="$O/bin" SNAPTRACE_TEST_BIN="$O/test"
export PAGER=cat
hang=${SNAPTRACE_TEST_HANG:-300}
[[ $hang =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: SNAPTRACE_TEST_HANG=$hang: expected whole seconds" >&2; exit 2; }
sigdfl="$O/test/sigdfl"
if [ ! -x "$sigdfl" ]; then
	echo "tests/run.sh: $sigdfl is not built (make all tests-build)" >&2
	exit 2
fi
. "$top/tests/requirements.sh"
declared=$(requirement_names)

# tier_of FILE: the tier FILE's header names (check when none).
tier_of() {
	local line n=0
	while IFS= read -r line && [ $n -lt 40 ]; do
		n=$((n + 1))
		if [[ $line =~ ^#\ tier:\ (.*)$ ]]; then
			echo "${BASH_REMATCH[1]}"
			return
		fi
	done <"$1"
	echo check
}

# The jobs: name (SUITE, or "SUITE #R" with -r), tier, program (a suite's
# script, run by bash) and arguments (one a line).
J_NAME=() J_TIER=() J_PROG=() J_ARGS=()
add_job() {
	local name=$1 tier=$2 prog=$3 r
	shift 3
	for ((r = 1; r <= repeat; r++)); do
		if [ "$repeat" -gt 1 ]; then J_NAME+=("$name #$r"); else J_NAME+=("$name"); fi
		J_TIER+=("$tier")
		J_PROG+=("$prog")
		J_ARGS+=("$(printf '%s\n' "$@")")
	done
}

selected=()
for s in "$@"; do
	suite=${s%%/*}
	suites=("$top"/tests/*/"$suite".test.sh)
	# a golden case may be named alone
	if [ "$s" = "$suite" ] && [ -f "$top/tests/cases/$s/input.txt" ] && [ ! -e "${suites[0]}" ]; then
		s=cases/$s suite=cases
		suites=("$top"/tests/*/cases.test.sh)
	fi
	selected+=("$s")
	if [ ! -e "${suites[0]}" ]; then
		all=("$top"/tests/*/*.test.sh)
		all=("${all[@]##*/}")
		echo "tests/run.sh: no suite '$suite': expected a golden case or one of:" \
			"${all[@]%.test.sh}" >&2
		exit 2
	fi
done

# want SUITE TIER: true when SUITE is to run; sets parts to the NAMEs asked
# for (none: the whole suite).
want() {
	local s hit=1
	parts=()
	if [ ${#selected[@]} -eq 0 ]; then
		[[ ",$tiers," == *",$2,"* ]]
		return
	fi
	for s in "${selected[@]}"; do
		case "$s" in
		"$1") hit=0; parts=(); break ;;
		"$1"/*) hit=0; parts+=("${s#*/}") ;;
		esac
	done
	return $hit
}

for s in "$top"/tests/*/*.test.sh; do
	[ -e "$s" ] || continue
	name=${s##*/}
	name=${name%.test.sh}
	tier=$(tier_of "$s")
	if [[ " $TIERS " != *" $tier "* ]]; then
		echo "tests/run.sh: $s: '# tier: $tier': expected one of: $TIERS" >&2
		exit 2
	fi
	if want "$name" "$tier"; then
		add_job "$name" "$tier" "$s" "${parts[@]}"
	fi
done
if [ ${#J_NAME[@]} -eq 0 ]; then
	echo "tests/run.sh: nothing to run (tiers $tiers)" >&2
	exit 2
fi

RUN=$(mktemp -d "${TMPDIR:-/tmp}/snaptrace-run.XXXXXX") || exit 1
# when the run started (the failure log's: one written later is another run's)
: >"$RUN/start"
# others may pass through it (not list it): a suite's second user (nobody)
# reaches the directories the suite opens to it under its /tmp, also where
# the suite keeps the machine's /tmp (not root). Each job's
# directory (RUN/I, its tmp and its output FIFO) is made here, for all the
# jobs in three commands, not three a job.
chmod 711 "$RUN"
jobdirs=()
for i in "${!J_NAME[@]}"; do jobdirs+=("$RUN/$i"); done
if ! mkdir -m 711 "${jobdirs[@]}" || ! mkdir "${jobdirs[@]/%//tmp}" || ! mkfifo "${jobdirs[@]/%//out}"; then
	rm -rf "$RUN"
	exit 1
fi
# a mount namespace of its own gives a suite its own /tmp (root only); the
# tree and O, where under the machine's /tmp (a CI clone made by mktemp -d),
# are bound again at their paths inside it (tmp_keep), from the machine's
# /tmp opened before the suite's hides it
private_tmp=0
unshare --mount --propagation private true 2>/dev/null && private_tmp=1
tmp_keep=()
for p in "$(realpath "$top")" "$(realpath "$O")"; do
	case $p/ in
	"${tmp_keep[0]:-//}"/*) ;;	# O inside the tree
	/tmp/?*) tmp_keep+=("$p") ;;
	esac
done
# shellcheck disable=SC2016
private_sh='exec 3</tmp && mount --bind "$0" /tmp || exit 1
while [ "$1" != -- ]; do
	mkdir -p "$1" && mount --no-canonicalize --bind "/proc/self/fd/3/${1#/tmp/}" "$1" || exit 1
	shift
done
shift
exec 3<&- && exec "$@"'

# survivors TOKEN: sets SURVIVORS to the pids of the processes whose
# environment holds SNAPTRACE_TEST_RUN=TOKEN (one grep and no subshell:
# the runner looks twice after every suite).
survivors() {
	mapfile -t SURVIVORS < <(grep -lsxzF "SNAPTRACE_TEST_RUN=$1" /proc/[0-9]*/environ 2>/dev/null)
	SURVIVORS=("${SURVIVORS[@]#/proc/}")
	SURVIVORS=("${SURVIVORS[@]%/environ}")
}

# check_survivors NAME TOKEN FD: FAIL (and SIGKILL) what suite NAME left
# running, after a grace second for processes on their way out. None is
# believed only when two looks 0.1 s apart find none: a process in the
# middle of an exec cannot have its environment read for a moment (grep
# skips it), which once let a leftover through. FD: a FIFO open for
# reading and writing, which nothing writes: the wait between two looks
# (read -t, no sleep process).
check_survivors() {
	local left i p none=0 nothing
	for ((i = 0; i < 20; i++)); do
		survivors "$2"
		left=${SURVIVORS[*]}
		if [ -z "$left" ]; then
			none=$((none + 1))
			[ $none -ge 2 ] && return 0
		else
			none=0
		fi
		read -r -t 0.1 -u "$3" nothing
	done
	[ -z "$left" ] && return 0
	echo "FAIL $1: processes left running:"
	for p in $left; do
		echo "    $p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c 1-200)"
		kill -9 "$p" 2>/dev/null
	done
	return 1
}

# ended PID: true when child PID has exited (gone, or a zombie not reaped).
ended() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 0
	st=${st##*) }
	[ "${st%% *}" = Z ]
}

# job I: runs job I in RUN/I/: its output, each line after the time it
# arrived (microseconds), in log; its start and end in times; the CPU time
# it took in cpu (bash's times); its exit status in rc (after the leftover
# check); hang when the guard fired.
job() {
	local i=$1 d="$RUN/$1" token="$$.$1.$RANDOM$RANDOM" pid fd line part="" rc
	local -a cmd=(bash "${J_PROG[$i]}")
	[ -z "${J_ARGS[$i]}" ] || mapfile -t -O "${#cmd[@]}" cmd <<<"${J_ARGS[$i]}"
	local t0=${EPOCHREALTIME/./} last now
	if [ $private_tmp = 1 ] && [ "${J_TIER[$i]}" != check ]; then
		echo private >"$d/private"
		# $d/tmp is the suite's /tmp (where the run's directory is not seen)
		TMPDIR=/tmp SNAPTRACE_TEST_RUN=$token SNAPTRACE_TEST_TIER=${J_TIER[$i]} setsid unshare --mount --propagation private \
			sh -c "$private_sh" "$d/tmp" "${tmp_keep[@]}" -- "$sigdfl" "${cmd[@]}" \
			>"$d/out" 2>&1 </dev/null &
	else
		[ "${J_TIER[$i]}" = check ] && cmd=("${check_nice[@]}" "${cmd[@]}")
		TMPDIR="$d/tmp" SNAPTRACE_TEST_RUN=$token SNAPTRACE_TEST_TIER=${J_TIER[$i]} "$sigdfl" -s "${cmd[@]}" \
			>"$d/out" 2>&1 </dev/null &
	fi
	pid=$!
	echo "$pid" >"$d/pid"
	exec {fd}<"$d/out"
	last=$t0
	while :; do
		if IFS= read -r -t 1 -u "$fd" line; then
			now=${EPOCHREALTIME/./}
			printf '%s %s\n' "$now" "$part$line" >>"$d/log"
			part="" last=$now
		elif [ $? -gt 128 ]; then
			part+=$line
			now=${EPOCHREALTIME/./}
			if ended "$pid"; then
				# what it printed last, or a leftover still holding the pipe
				while IFS= read -r -t 0.2 -u "$fd" line; do
					printf '%s %s\n' "$now" "$part$line" >>"$d/log"
					part=""
				done
				break
			fi
			if [ $((now - last)) -ge $((hang * 1000000)) ]; then
				echo "$now $last" >"$d/hang"
				kill -TERM -- "-$pid" 2>/dev/null
				sleep 1
				survivors "$token"
				kill -KILL -- "-$pid" "${SURVIVORS[@]}" 2>/dev/null
				break
			fi
		else
			[ -z "$part$line" ] || printf '%s %s\n' "${EPOCHREALTIME/./}" "$part$line" >>"$d/log"
			break
		fi
	done
	# the FIFO read and written by this shell alone: check_survivors' wait
	exec {fd}<&- {fd}<>"$d/out"
	wait "$pid"
	rc=$?
	# the CPU time of the suite and what it waited for (the second line)
	times >"$d/cpu"
	if [ -e "$d/hang" ]; then
		survivors "$token"
		[ ${#SURVIVORS[@]} = 0 ] || kill -KILL "${SURVIVORS[@]}" 2>/dev/null
	else
		check_survivors "${J_NAME[$i]}" "$token" "$fd" >"$d/left" || rc=1
	fi
	exec {fd}<&-
	echo "$t0 ${EPOCHREALTIME/./}" >"$d/times"
	echo "$rc" >"$d/rc"
}

passed=0 failed=0 skipped=0
declare -A tier_p=() tier_f=() tier_s=() tier_wall=() tier_n=()

# report I: prints job I's lines and result line, tallies them. A skip
# naming no declared requirement becomes a FAIL; the per-test times go to
# RUN/times, the skips per requirement to RUN/skips, a failing job's block
# of the failure log to RUN/failures.
report() {
	local i=$1 d="$RUN/$1" name=${J_NAME[$1]} rc t0 t1 p f s wall cpu tmp= line rerun part
	# the command that reruns the job: the suite, or the names it was given
	rerun=$(printf '%q ' "$top/tests/run.sh" "$O")
	if [ -z "${J_ARGS[$i]}" ]; then
		rerun+=$(printf '%q' "${name%% #*}")
	else
		while IFS= read -r part; do
			rerun+=$(printf '%q ' "${name%% #*}/$part")
		done <<<"${J_ARGS[$i]}"
		rerun=${rerun% }
	fi
	read -r rc <"$d/rc"
	read -r t0 t1 <"$d/times"
	[ -e "$d/private" ] && tmp=$d/tmp
	: >>"$d/log"
	[ -s "$d/left" ] && sed "s/^/$t1 /" "$d/left" >>"$d/log"
	if [ -e "$d/hang" ]; then
		local h now last
		read -r now last <"$d/hang"
		echo "$now FAIL $name: hung: no output for $(((now - last) / 1000000)) s$(
			l=$(grep -E '^[0-9]+ (ok|FAIL|skip) ' "$d/log" | tail -n 1 | cut -d' ' -f2-3)
			[ -n "$l" ] && echo " after '$l'") (killed after $(((now - t0) / 100000 / 10)).$(((now - t0) / 100000 % 10)) s; SNAPTRACE_TEST_HANG=$hang)" >>"$d/log"
	fi
	awk -v suite="${name%% #*}" -v job="$name" -v t0="$t0" -v declared="$declared" -v rc="$rc" \
		-v tmp="$tmp" -v failed="$RUN/failed" -v faillog="$RUN/failures" -v rerun="$rerun" \
		-v times="$RUN/times" -v skips="$RUN/skips" -v out="$d/result" '
	BEGIN { n = split(declared, d, "\n"); for (k = 1; k <= n; k++) req[d[k]] = 1; prev = t0 }
	{
		t = $1; line = substr($0, length($1) + 2)
		if (line ~ /^skip /) {
			if (match(line, /: requires [a-z0-9_]+: /) && (substr(line, RSTART + 11, RLENGTH - 13) in req))
				print substr(line, RSTART + 11, RLENGTH - 13) >>skips
			else
				line = "FAIL " substr(line, 6) " (a skip that names no requirement of tests/requirements.sh)"
		}
		# a private /tmp is the job directory tmp
		if (tmp != "" && line ~ /^kept \/tmp\//) line = "kept " tmp substr(line, 10)
		if (line ~ /^time [^ ]+ [0-9.]+$/) { split(line, w, " "); given[w[2]] = w[3]; next }
		if (line ~ /^(ok|FAIL|skip) /) {
			tn = line; sub(/^[a-zA-Z]+ /, "", tn); sub(/:.*/, "", tn)
			if (!(tn in took)) order[++nt] = tn
			took[tn] = (t - prev) / 1e6; prev = t
			if (line ~ /^ok /) p++; else if (line ~ /^FAIL /) { f++; failing[tn] = 1 } else s++
		}
		lines[++nl] = line; at[nl] = t
	}
	# failed_name TEST: "SUITE/TEST" for the summary (the suite alone for a
	# FAIL of the whole suite; " #R" after it for the Rth run of -r)
	function failed_name(tn) {
		return suite ((tn == suite || tn == job) ? "" : "/" tn) substr(job, length(suite) + 1)
	}
	END {
		for (k = 1; k <= nt; k++)
			printf "%.1f %s %s\n", (order[k] in given) ? given[order[k]] : took[order[k]], suite, order[k] >>times
		for (k = 1; k <= nl; k++) if (lines[k] ~ /^(FAIL|skip|kept) /) print lines[k]
		for (k = 1; k <= nt; k++) if (order[k] in failing) print failed_name(order[k]) >>failed
		if (rc != 0 && f == 0) {
			whole = "FAIL " suite ": exited " rc " without a FAIL line; its output:"
			print whole
			for (k = (nl > 20 ? nl - 19 : 1); k <= nl; k++) print "    " lines[k]
			print failed_name(suite) >>failed
			f = 1
		} else if (f > 0)
			for (k = 1; k <= nl; k++) if (lines[k] !~ /^(ok|FAIL|skip|kept|time) /) print "    " lines[k]
		print p + 0, f + 0, s + 0 >out
		if (f > 0) log_failures()
	}
	# log_failures: the block of the failure log for this job: the command
	# that reruns it, then each FAIL line (marked ">") with the 15 lines
	# either side, the last 40 when the suite failed without a FAIL line,
	# and every line that is neither ok nor skip; "..." where lines are left
	# out
	function log_failures(k, j, gap) {
		printf "== %s: %d failed (exit %d)\nrerun: %s\n", job, f, rc, rerun >>faillog
		if (whole != "") {
			print whole >>faillog
			for (k = nl - 39; k <= nl; k++) show[k] = 1
		}
		for (k = 1; k <= nl; k++) {
			if (lines[k] !~ /^(ok|skip) /) show[k] = 1
			if (lines[k] ~ /^FAIL /) for (j = k - 15; j <= k + 15; j++) show[j] = 1
		}
		for (k = 1; k <= nl; k++) {
			if (!(k in show)) { gap = 1; continue }
			if (gap) print "           ..." >>faillog
			gap = 0
			printf "%s %9.1f  %s\n", (lines[k] ~ /^FAIL / ? ">" : " "), (at[k] - t0) / 1e6, lines[k] >>faillog
		}
		if (gap) print "           ..." >>faillog
		print "" >>faillog
	}' "$d/log"
	read -r p f s <"$d/result"
	wall=$(((t1 - t0) / 100000))
	# user + system seconds of the suite's processes (the second line of
	# bash's times, "XmY.YYYs XmY.YYYs"): how much of its wall time it kept
	# a CPU busy; in milliseconds, then to a tenth
	cpu=
	{ read -r line && read -r line; } <"$d/cpu" 2>/dev/null
	if [[ $line =~ ^([0-9]+)m([0-9]+)\.([0-9]{3})s\ ([0-9]+)m([0-9]+)\.([0-9]{3})s$ ]]; then
		cpu=$(((BASH_REMATCH[1] + BASH_REMATCH[4]) * 60000 + (10#${BASH_REMATCH[2]} + 10#${BASH_REMATCH[5]}) * 1000 +
			10#${BASH_REMATCH[3]} + 10#${BASH_REMATCH[6]} + 50))
		cpu=$((cpu / 1000)).$((cpu / 100 % 10))
	fi
	echo "$name: $p passed, $f failed, $s skipped ($((wall / 10)).$((wall % 10)) s, CPU ${cpu:-?} s)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	local tier=${J_TIER[$i]}
	tier_p[$tier]=$((${tier_p[$tier]:-0} + p))
	tier_f[$tier]=$((${tier_f[$tier]:-0} + f))
	tier_s[$tier]=$((${tier_s[$tier]:-0} + s))
	tier_n[$tier]=$((${tier_n[$tier]:-0} + 1))
}

# Record jobs, then check jobs, each longest first (times of the last run
# in O/test-times, else tests/suite-times: the times of a run on the
# project's machine, for a fresh clone, which is every CI run; a suite timed
# in neither counts as long), so that the last to end is a short one; then
# each job of another tier. Each pass starts every job in that order that
# may start.
order=()
declare -A last_time=()
for tf in "$top/tests/suite-times" "$O/test-times"; do
	[ -f "$tf" ] || continue
	while read -r s n; do
		[[ $s =~ ^[0-9]+$ ]] && last_time[$n]=$s
	done <"$tf"
done
mapfile -t order < <(for i in "${!J_NAME[@]}"; do
	case ${J_TIER[$i]} in
	record) echo "0 ${last_time[${J_NAME[$i]%% #*}]:-9999} $i" ;;
	check) echo "1 ${last_time[${J_NAME[$i]%% #*}]:-9999} $i" ;;
	*) echo "2 0 $i" ;;
	esac
done | sort -k1,1n -k2,2gr -k3,3n | cut -d' ' -f3)

declare -A running=()

# may_start I: true when job I may start beside the running ones: a check
# job beside fewer than -j check jobs, a record job beside fewer than -J
# record jobs, whatever else runs of the two tiers; a job of another tier
# alone.
may_start() {
	local k same=0 tier=${J_TIER[$1]}
	for k in "${!running[@]}"; do
		case ${J_TIER[$k]} in
		check | record) [ "${J_TIER[$k]}" = "$tier" ] && same=$((same + 1)) ;;
		*) return 1 ;;
		esac
	done
	case $tier in
	check) [ "$same" -lt "$jobs" ] ;;
	record) [ "$same" -lt "$record_jobs" ] ;;
	*) [ ${#running[@]} -eq 0 ] ;;
	esac
}

# check jobs yield the CPU to record jobs where the run has both
check_nice=()
for t in "${J_TIER[@]}"; do
	[ "$t" = record ] && check_nice=(nice -n 10) && break
done

cleanup() {
	local i p
	for i in "${!running[@]}"; do
		p=$(cat "$RUN/$i/pid" 2>/dev/null) && kill -KILL -- "-$p" 2>/dev/null
		kill "${running[$i]}" 2>/dev/null
	done
	wait 2>/dev/null
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $RUN"
	else
		rm -rf "$RUN"
	fi
}
# the runner's shell alone (tests/lib.sh on_exit: a child bash forked for
# `job I &` runs an inherited EXIT trap when a signal ends it)
trap 'read -r _exit_pid _ </proc/self/stat; [ "$_exit_pid" != "$$" ] || cleanup' EXIT
trap 'exit 130' INT TERM HUP

run_start=${EPOCHREALTIME/./}
declare -A tier_t0=()
pending=("${order[@]}")
while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	left=()
	for i in "${pending[@]}"; do
		# a job of another tier waits for those before it
		if [ ${#left[@]} -gt 0 ] && [[ ${J_TIER[$i]} != check && ${J_TIER[$i]} != record ]] ||
			! may_start "$i"; then
			left+=("$i")
			continue
		fi
		: "${tier_t0[${J_TIER[$i]}]:=${EPOCHREALTIME/./}}"
		job "$i" &
		running[$i]=$!
	done
	pending=("${left[@]}")
	wait -n -p done_pid "${running[@]}"
	for i in "${!running[@]}"; do
		if [ "${running[$i]}" = "$done_pid" ]; then
			unset "running[$i]"
			report "$i"
			tier_wall[${J_TIER[$i]}]=$((${EPOCHREALTIME/./} - ${tier_t0[${J_TIER[$i]}]}))
		fi
	done
done
run_wall=$(((${EPOCHREALTIME/./} - run_start) / 100000))

# this run's suite times, for the next run's order
for i in "${!J_NAME[@]}"; do
	read -r t0 t1 <"$RUN/$i/times" && last_time[${J_NAME[$i]%% #*}]=$(((t1 - t0) / 1000000))
done
for n in "${!last_time[@]}"; do echo "${last_time[$n]} $n"; done >"$RUN/test-times" &&
	mv -T "$RUN/test-times" "$O/test-times" 2>/dev/null

if [ -s "$RUN/times" ]; then
	echo "slowest tests:"
	sort -k1,1gr "$RUN/times" | head -n 10 | awk '{ printf "  %7.1f s  %s  %s\n", $1, $2, $3 }'
fi
for t in $TIERS; do
	[ -n "${tier_n[$t]:-}" ] || continue
	w=$((${tier_wall[$t]} / 100000))
	echo "tier $t: ${tier_n[$t]} suites, ${tier_p[$t]} passed, ${tier_f[$t]} failed, ${tier_s[$t]} skipped ($((w / 10)).$((w % 10)) s)"
done
if [ -s "$RUN/skips" ]; then
	echo "skipped for lack of: $(sort "$RUN/skips" | uniq -c | sort -k1,1nr -k2 |
		awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')"
fi
[ $private_tmp = 1 ] || echo "note: the suites share /tmp (not root): perf may leave /tmp/perf-vdso.so-* when killed"
echo "total wall $((run_wall / 10)).$((run_wall % 10)) s"
# the failure log: this run's failures replace an earlier run's log (by a
# rename: never through what is at its name), or follow the failures of a
# run that wrote it while this one ran (runs side by side on one O); a run
# without failures removes an earlier run's log, never one written meanwhile
faillog="$O/test-failures.log"
if [ -s "$RUN/failures" ]; then
	{
		printf 'tests/run.sh'
		[ ${#run_args[@]} -eq 0 ] || printf ' %q' "${run_args[@]}"
		printf '\n%s UTC\n\n' "$(date -u '+%F %T')"
		cat "$RUN/failures"
	} >"$RUN/test-failures.log"
	if [ -f "$faillog" ] && [ ! -L "$faillog" ] && [ "$faillog" -nt "$RUN/start" ]; then
		{ echo; cat "$RUN/test-failures.log"; } >>"$faillog"
	else
		mv -T "$RUN/test-failures.log" "$faillog" 2>/dev/null
	fi && echo "failures, with their suites' output around them: $faillog"
elif [ ! "$faillog" -nt "$RUN/start" ]; then
	rm -f "$faillog" 2>/dev/null
fi
# every failed test in one line, right above the count (a CI log's last lines)
[ -s "$RUN/failed" ] && echo "failed: $(awk '!seen[$0]++' "$RUN/failed" | tr '\n' ' ' | sed 's/ $//')"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
