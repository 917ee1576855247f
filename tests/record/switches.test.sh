#!/usr/bin/env bash
# tier: record
# The recorder's side of off-CPU time and of truthful snapshots, with real
# perf sampling on this machine (the target: the workload,
# tests/workload/workload.c; modes naps, spin, migrate and thread):
# - a snapshot holds the context switches (PERF_RECORD_SWITCH) and, where the
#   host allows tracepoints, sched:sched_switch samples whose call chain shows
#   where the thread blocked, as stock `perf script --show-switch-events`
#   prints them; blocked and preempted are told apart;
# - one thread is recorded into its own ring (--per-thread): a snapshot is
#   its newest contiguous stretch, never a stale fragment of a CPU it left;
# - a trigger hit in a thread the recording leaves out is warned about;
# - an attach to a thread asleep: record.json gives its state and wait
#   channel at start_ns, and the trace draws it [off-cpu] from start_ns to
#   its first switch-in (the old trace began at the wake-up: no block).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="switches_check_agrees switches_recorded switches_preempted switches_no_stale_fragment
switches_unrecorded_thread_warning switches_multi_thread_no_warning switches_asleep_at_attach
switches_no_leftovers"
need_recording switches
use_workload switches
TARGETS=("$PROG")
HOG=
on_exit '[ -z "$HOG" ] || { kill -KILL "$HOG"; wait "$HOG"; } 2>/dev/null; scratch_done'

# Whether the recorder adds sched:sched_switch here (as its --dry-run says).
SCHED=0
"$RECORD" --mode sampling --dry-run -t 1 2>/dev/null | grep -q sched:sched_switch && SCHED=1

# record NAME ARGS...: runs snaptrace-record in sampling mode into $TMP/NAME
# (pinned to the CPUs of the taskset list PIN when set) and sets SNAP to its
# last snapshot file; returns 1 (with a FAIL line) when the recording failed.
PIN=
record() {
	local name=$1 d="$TMP/$1" f
	local -a pin=()
	shift
	[ -z "$PIN" ] || pin=(taskset -c "$PIN")
	if ! "${pin[@]}" "$RECORD" -q --mode sampling -o "$d" "$@" >/dev/null 2>"$d.err"; then
		fail "$name" "snaptrace-record failed: $(tl 3 "$d.err")"
		return 1
	fi
	f=$(snaps "$d" | tail -n 1)
	if [ -z "$f" ] || [ ! -s "$d/$f" ]; then
		fail "$name" "no snapshot in $d: $(tl 3 "$d.err")"
		return 1
	fi
	SNAP="$d/$f"
}

# switches FILE TID FN: what `perf script --show-switch-events` shows of
# thread TID: "OUT PREEMPT IN GAPS_MS STACK_S STACK_R" = blocked switch-outs,
# preempted switch-outs, switch-ins, the off-CPU time (OUT to IN) of every
# blocked switch-out in ms (comma-separated), and sched_switch samples with
# prev_state S / R whose call chain holds a function named FN...
switches() {
	perf script -i "$1" --ns --show-switch-events 2>/dev/null | awk -v tid="$2" -v fn="$3" '
	function when(   i) { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return $i + 0; return -1 }
	/^[^ \t]/ {
		if (chain) finish()
		mine = $2 == tid
		if (!mine) next
		if (/PERF_RECORD_SWITCH OUT preempt/) { preempt++; out_t = -1 }
		else if (/PERF_RECORD_SWITCH OUT/) { out++; out_t = when() }
		else if (/PERF_RECORD_SWITCH IN/) {
			in_++
			if (out_t >= 0) gaps = gaps sprintf("%s%.1f", gaps == "" ? "" : ",", (when() - out_t) * 1e3)
			out_t = -1
		} else if (/sched:sched_switch:/) { chain = 1; state = $0; sub(/.*prev_state=/, "", state); sub(/ .*/, "", state); hit = 0 }
		next
	}
	chain && mine && index($2, fn) == 1 { hit = 1 }
	/^$/ && chain { finish() }
	function finish() { if (hit) { if (state == "S") s++; else if (state ~ /^R/) r++ } chain = 0 }
	END { if (chain) finish(); printf "%d %d %d %s %d %d\n", out, preempt, in_, gaps == "" ? "-" : gaps, s, r }'
}

# the recorded thread of DIR (launched: the process's main thread)
main_tid() {
	rec_field "$1" pids.0
}

# naps: 12 times spin 4 ms and sleep 30 ms, no trigger (the snapshot is
# taken at the exit). Every sleep is a blocked switch-out followed by a
# switch-in about 30 ms later, and (with the tracepoint) a sched_switch
# sample with prev_state S whose chain holds libc's clock_nanosleep.
t_switches_recorded() {
	local f tid out in gaps long s
	record switches_recorded -- "$PROG" naps 12 4000 30000 || return
	f=$SNAP
	tid=$(main_tid "$TMP/switches_recorded")
	read -r out _ in gaps s _ <<<"$(switches "$f" "$tid" clock_nanosleep)"
	# sleeps of 25 ms to 1 s (the machine is shared: generous upper bound)
	long=$(echo "$gaps" | tr ',' '\n' | awk '$1 >= 25 && $1 < 1000' | wc -l)
	if [ -z "$tid" ]; then
		fail switches_recorded "no pid in record.json"
	elif [ "$out" -lt 12 ] || [ "$in" -lt 12 ]; then
		fail switches_recorded "expected >= 12 blocked switch-outs and switch-ins of thread $tid, found $out and $in"
	elif [ "$long" -lt 12 ]; then
		fail switches_recorded "expected 12 off-CPU stretches of about 30 ms, found $long (ms: $gaps)"
	elif [ "$SCHED" = 1 ] && [ "$s" -lt 12 ]; then
		# for the failure log: each sched_switch sample's state and chain
		perf script -i "$f" --ns 2>/dev/null | awk '/sched:sched_switch:/ { on = 1; n++ }
			on && n <= 16 { print "    " substr($0, 1, 160) } /^$/ { on = 0 }'
		fail switches_recorded "expected 12 sched_switch samples (prev_state S) with clock_nanosleep in the call chain, found $s"
	else
		ok switches_recorded
	fi
}

# spin 400 ms pinned to one CPU with a busier process pinned there too: the
# thread is preempted (OUT preempt; sched_switch prev_state R in
# snaptrace_spin).
t_switches_preempted() {
	local tid preempt r rc
	PIN=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
	taskset -c "$PIN" "$PROG" spin 5000 >/dev/null 2>&1 &
	HOG=$!
	record switches_preempted -- "$PROG" spin 400
	rc=$?
	kill -KILL "$HOG" 2>/dev/null
	wait "$HOG" 2>/dev/null
	HOG= PIN=
	[ $rc -eq 0 ] || return
	tid=$(main_tid "$TMP/switches_preempted")
	read -r _ preempt _ _ _ r <<<"$(switches "$SNAP" "$tid" snaptrace_spin)"
	if [ "$preempt" -lt 3 ]; then
		fail switches_preempted "expected preempted switch-outs of thread $tid, found $preempt"
	elif [ "$SCHED" = 1 ] && [ "$r" -lt 3 ]; then
		fail switches_preempted "expected sched_switch samples (prev_state R) with snaptrace_spin in the call chain, found $r"
	else
		ok switches_preempted
	fi
}

# migrate: early() 300 ms of CPU time on one CPU, then late() 1 s on
# another, with a 64 KiB ring (about 0.1 s of samples alone, less with the
# switches): the snapshot is late() only, in one contiguous stretch. One ring
# per CPU kept early()'s last samples in the first CPU's ring, stitched to
# late()'s across a hole. The work is sized in CPU time (the workload's
# snaptrace_cpu_spin), so late() outlasts the ring however loaded the
# machine; how many of the ring's records are samples is not fixed (at load
# 10 its preemptions' switch records and sched_switch samples with their
# stack copies left 28 samples), so the test asks for samples of late(),
# none of early(), not a count. The frames are read with -F ip,sym: with sym
# alone perf prints no call chain (the early() check saw none before).
t_switches_no_stale_fragment() {
	local f samples n late early gap
	requires switches_no_stale_fragment two_cpus || return
	record switches_no_stale_fragment --snapshot-size 64K --arm-after 0 -- "$PROG" migrate 300 1000 || return
	f=$SNAP
	# the cpu-clock samples, those whose chain holds late() and early(), and
	# the largest hole between two samples in which the thread stayed on the
	# CPU (a switch record inside a hole: it was descheduled, not lost)
	samples=$(perf script -i "$f" --ns -F time,event,ip,sym --show-switch-events 2>/dev/null | awk '
		/PERF_RECORD_SWITCH/ { off = 1; next }
		/^[^ \t]/ { s = 0 }
		/cpu-clock|cycles/ { t = $1 + 0; if (n++ && !off && t - prev > gap) gap = t - prev; prev = t; off = 0; s = 1; next }
		s && $2 == "early" { early++ }
		s && $2 == "late" { late++ }
		END { printf "%d %d %d %.0f\n", n, late, early, gap * 1e3 }')
	read -r n late early gap <<<"$samples"
	if [ "$late" -lt 1 ]; then
		fail switches_no_stale_fragment "expected a snapshot of late(), found $n samples, $late of late()"
	elif [ "$early" -ne 0 ]; then
		fail switches_no_stale_fragment "$early samples of early() (a stale fragment) in a snapshot that should hold only late() ($n samples, $late of late())"
	elif [ "$gap" -gt 100 ]; then
		fail switches_no_stale_fragment "a hole of $gap ms between two samples of one spin"
	else
		ok switches_no_stale_fragment
	fi
}

# thread: the trigger fires in thread "worker"; the default recording holds
# the main thread only, so the hit takes no snapshot (it would not show it)
# and the recorder says so, once; --multi-thread does not.
t_switches_unrecorded_thread_warning() {
	local d="$TMP/unrec" n
	if ! "$RECORD" -q --mode sampling --arm-after 0 -o "$d" -- "$PROG" thread 200 >/dev/null \
		2>"$d.err"; then
		fail switches_unrecorded_thread_warning "snaptrace-record failed: $(tl 3 "$d.err")"
		return
	fi
	n=$(rec_field "$d" hits_unrecorded)
	if [ "${n:-0}" -lt 1 ] || [ -n "$(first_hit "$d")" ]; then
		fail switches_unrecorded_thread_warning "expected the worker's hit ignored (hits_unrecorded), found $n and hits '$(first_hit "$d")'"
	elif ! grep -q "warning: trigger hit in thread [0-9]* (worker) of process [0-9]*, which is not recorded .*ignored.*--multi-thread" \
		"$d.err"; then
		fail switches_unrecorded_thread_warning "no warning naming the worker thread: $(tl 3 "$d.err")"
	elif [ "$(grep -c "not recorded" "$d.err")" -ne 1 ]; then
		fail switches_unrecorded_thread_warning "expected one warning: $(tl 4 "$d.err")"
	else
		ok switches_unrecorded_thread_warning
	fi
}

t_switches_multi_thread_no_warning() {
	local d="$TMP/mt"
	if ! "$RECORD" -q --mode sampling --multi-thread --arm-after 0 -o "$d" -- "$PROG" thread 200 \
		>/dev/null 2>"$d.err"; then
		fail switches_multi_thread_no_warning "snaptrace-record failed: $(tl 3 "$d.err")"
	elif grep -q "not recorded" "$d.err"; then
		fail switches_multi_thread_no_warning "warned with --multi-thread: $(tl 2 "$d.err")"
	elif [ -z "$(first_hit "$d")" ]; then
		fail switches_multi_thread_no_warning "no trigger hit in record.json"
	else
		ok switches_multi_thread_no_warning
	fi
}

# --check says whether sched_switch samples are recorded, as the command line does.
t_switches_check_agrees() {
	local line want=no
	[ "$SCHED" = 1 ] && want=yes
	line=$("$RECORD" --check 2>/dev/null | grep '^sched_switch samples: ')
	if [ "${line#sched_switch samples: }" = "$want" ] ||
		{ [ "$want" = no ] && [[ "$line" == "sched_switch samples: no ("* ]]; }; then
		ok switches_check_agrees
	else
		fail switches_check_agrees "expected 'sched_switch samples: $want', found '$line'"
	fi
}

# attach to naps 5 100 1000000 (0.1 ms of work, then 1 s asleep: at the
# attach it is asleep, 9,999 times in 10,000) for 1.5 s: record.json says the
# thread was in state S in hrtimer_nanosleep or do_nanosleep at start_ns; the
# thread's first slice is [off-cpu] from start_ns, blocked, prev_state S,
# kernel_function the wait channel, to its first switch-in; the time on the
# CPU comes after it.
t_switches_asleep_at_attach() {
	local d="$TMP/asleep" pid tid start state wchan first
	"$PROG" naps 5 100 1000000 >/dev/null &
	pid=$!
	if ! wait_exec "$pid" "$PROG"; then
		fail switches_asleep_at_attach "the workload did not start"
	elif ! "$RECORD" -q --mode sampling -o "$d" -p "$pid" --trigger none --duration 1.5 \
		>/dev/null 2>"$d.err"; then
		fail switches_asleep_at_attach "snaptrace-record failed: $(tl 3 "$d.err")"
	fi
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -d "$d" ] || return
	tid=$pid
	start=$(rec_field "$d" start_ns)
	state=$(rec_rows "$d" threads state | head -n 1)
	wchan=$(rec_rows "$d" threads wchan | head -n 1)
	if [ "$state" != S ] || [ -z "$start" ] || [ "$start" = null ] ||
		! [[ $wchan =~ nanosleep ]]; then
		fail switches_asleep_at_attach "record.json: start_ns '$start', state '$state', wchan '$wchan'"
	elif ! "$CONVERT" -q "$d" -o "$d.fxt" 2>"$d.conv" ||
		! "$CONVERT" --dump=tree "$d.fxt" >"$d.tree" 2>>"$d.conv"; then
		fail switches_asleep_at_attach "the conversion failed: $(tl 3 "$d.conv")"
	else
		first=$(grep -m 1 "^$tid 0 " "$d.tree")
		if ! [[ $first =~ ^$tid\ 0\ \[off-cpu\]\ \[$start,\ ([0-9]+)\]\ .*state:string=\"blocked\"\ prev_state:string=\"S\"\ kernel_function:string=\"$wchan\"$ ]] ||
			[ "${BASH_REMATCH[1]}" -le "$start" ]; then
			fail switches_asleep_at_attach "expected [off-cpu] from start_ns $start (blocked, S, $wchan) first, found: $first"
		else
			ok switches_asleep_at_attach
		fi
	fi
}

t_switches_check_agrees
t_switches_recorded
t_switches_preempted
t_switches_no_stale_fragment
t_switches_unrecorded_thread_warning
t_switches_multi_thread_no_warning
t_switches_asleep_at_attach
if no_procs; then
	ok switches_no_leftovers
else
	fail switches_no_leftovers "a perf or target process is left"
fi
