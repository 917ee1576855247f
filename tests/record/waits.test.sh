#!/usr/bin/env bash
# tier: record
# Where threads wait, recorded for real with the default unwinder (--callgraph
# fp) on waits_target.c, a pthreads program built -O2 -fno-omit-frame-pointer
# against the system's C library (no frame pointers there): 4 workers, each
# 100 times nap_us(1000) (nanosleep) and locked_update() (a mutex the others
# hold), measuring their own sleeps. One recording (--multi-thread, a ring
# that holds the whole run, ended by the program's exit), converted:
# - callers_sleeps: at least 90% of the [off-cpu] slices of the workers'
#   sleeps (blocked in clock_nanosleep) have nap_us among their callers,
#   and there are at least 50 of them;
# - callers_mutex: the same for the mutex waits (blocked in futex) and
#   locked_update, at least 5 of them.
# - stats_sleeps: snaptrace stats --off-cpu on that trace gives, for each
#   worker, as many waits blocked in clock_nanosleep as the program slept;
#   their total is at most 5% over what it measured around its nanosleep
#   calls (the blocked time is inside that measure), and with the time
#   preempted under nap_us (a preemption in the wrapper after the wakeup,
#   inside the measure but not a wait: 10.6 ms of one worker's 234.7 ms on a
#   loaded machine) at least 5% under it.
# On the old code (frame pointers only) the C library hid both wrappers, and
# stats had no --off-cpu.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="callers_sleeps callers_mutex stats_sleeps no_leftovers"
need_recording waits
need_built waits "$CONVERT"
need_built waits "$SNAPTRACE_BIN/snaptrace-stats"
requires_all gcc sched_switch

PROG="$TMP/waits_target"
gcc -std=c11 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -pthread \
	-o "$PROG" "$SNAPTRACE_TOP/tests/record/waits_target.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build waits_target.c: $(tl 3 "$TMP/cc.err")"
TARGETS=("$PROG")

STATS="$SNAPTRACE_BIN/snaptrace-stats"
REC="$TMP/rec"
"$RECORD" -q -o "$REC" --multi-thread --trigger none "${WHOLE_RUN[@]}" \
	-- "$PROG" 4 100 1000 300 >"$REC.out" 2>"$REC.err" ||
	fail_all "the recording failed: $(tl 3 "$REC.err")"
"$CONVERT" --quiet "$REC" -o "$TMP/t.fxt.gz" 2>"$TMP/convert.err" ||
	fail_all "the conversion failed: $(tl 3 "$TMP/convert.err")"
"$CONVERT" --dump=tree "$TMP/t.fxt.gz" >"$TMP/tree" 2>"$TMP/dump.err" ||
	fail_all "the trace does not read back: $(tl 3 "$TMP/dump.err")"

# t_callers NAME SYSCALL WRAPPER MIN: at least 90% of at least MIN waits.
t_callers() {
	local with all
	read -r with all < <(offcpu_callers "$TMP/tree" "$2" "$3")
	if [ "$all" -lt "$4" ]; then
		fail "$1" "expected at least $4 [off-cpu] slices blocked in $2 in the workers, found $all"
	elif [ $((with * 10)) -lt $((all * 9)) ]; then
		fail "$1" "$with of $all [off-cpu] slices blocked in $2 have $3 among their callers (90% expected)"
	else
		echo "ok $1: $with of $all blocked in $2 under $3"
	fi
}

# t_stats: each worker's sleeps (the program's "worker TID naps N slept_ns
# NS") against stats' waits blocked in clock_nanosleep of that thread.
t_stats() {
	local bad="" tid n ns waits total
	"$STATS" --off-cpu --format csv "$TMP/t.fxt.gz" >"$TMP/waits.csv" 2>"$TMP/stats.err" || {
		fail stats_sleeps "snaptrace stats --off-cpu failed: $(tl 3 "$TMP/stats.err")"
		return
	}
	while read -r tid n ns; do
		read -r waits total preempted < <(awk -F, -v t="$tid" '$10 != t { next }
			$1 == "syscall" && $2 == "blocked" && $3 == "clock_nanosleep" { w = $4; b = $5 }
			$1 == "caller" && $2 == "preempted" && $3 == "nap_us" { p = $5 }
			END { print w + 0, b + 0, p + 0 }' "$TMP/waits.csv")
		if [ "${waits:-0}" != "$n" ] ||
			! awk -v a="${total:-0}" -v p="${preempted:-0}" -v b="$ns" \
				'BEGIN { exit !(a + p >= b * 0.95 && a <= b * 1.05) }'; then
			bad="$bad [thread $tid slept $n times, $ns ns; stats: ${waits:-no} waits, ${total:-0} ns, ${preempted:-0} ns preempted under nap_us]"
		fi
	done < <(sed -n 's/^worker \([0-9]*\) naps \([0-9]*\) slept_ns \([0-9]*\)$/\1 \2 \3/p' "$REC.out")
	if [ "$(grep -c '^worker ' "$REC.out")" -ne 4 ]; then
		fail stats_sleeps "expected 4 workers' lines: $(tl 5 "$REC.out")"
	elif [ -n "$bad" ]; then
		fail stats_sleeps "$bad"
	else
		ok stats_sleeps
	fi
}

t_callers callers_sleeps clock_nanosleep nap_us 50
t_callers callers_mutex futex locked_update 5
t_stats
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
