#!/usr/bin/env bash
# tier: record
# Off-CPU time and sampling truth on this machine: the workload
# (tests/workload/workload.c, modes naps, pipe and spin; workload-nofp
# built without frame pointers) recorded with
#   perf record -e cpu-clock/freq=5000/ --call-graph fp --switch-events \
#       -e sched:sched_switch --call-graph fp
# (the frequency an event term, as snaptrace-record gives it: -F would put
# sched:sched_switch in frequency mode too, and the kernel, raising its
# period when two switches come close, would skip a switch now and then:
# a sleep drawn without its call, issue 18), then convert (the converter
# runs perf script itself; it must not warn of switches not sampled) and
# check, in the trace read back with --dump=tree:
# - offcpu-naps: 20 x (spin 3 ms, sleep 40 ms): one snaptrace_spin slice
#   per iteration (a few split in two where a sample in a function's
#   prologue skips its caller: frame pointers), no slice nor iteration drawn
#   longer than the measured spin (the program prints it) by more than 3
#   sampling periods; [off-cpu] blocked slices cover at
#   least 80% of the measured sleeping time; no broken-stack warning (the
#   program keeps frame pointers). Prints the longest spin slice against
#   its truth and the share of sleep shown as [off-cpu].
# - offcpu-short-gaps: 20 x (spin 0.1 ms, sleep 5 ms), mostly no sample
#   between two sleeps: each [off-cpu] blocked in clock_nanosleep has a call
#   of its own (the wakeup ends the call that blocked, issue 24), none holds
#   two, and each such call is within 3 sampling periods of the sleep the
#   program measured.
# - offcpu-pipe: read() on a pipe is [off-cpu] state blocked, syscall read.
# - offcpu-preempted: a spin pinned (taskset) to one CPU with a busier
#   process pinned there too shows [off-cpu] state preempted.
# - offcpu-broken-stacks: the same program built without frame pointers
#   gets the broken-stack warning naming its binary.
# - offcpu-no-switches: a recording without switch records nor sched_switch
#   converts with no message from perf script and no [off-cpu] slice.
# - offcpu-unsampled-switches: sched:sched_switch in frequency mode (-F 100)
#   on naps 300 x (sleep 20 us): the converter warns that it was recorded
#   with sample_freq=100 and how many switches its samples' periods say were
#   not sampled (some, when perf script prints more switch-out records than
#   sched_switch samples), of that many plus the samples perf script prints.
# - offcpu-multi-snapshot: snaptrace-record --multi-snapshot (switch records
#   printed ahead of the samples of their time, issue 8): converted with no
#   time clamped, every [off-cpu] slice ends at a switch in that perf script
#   prints (or at the recording's end, or where it began when its switch in
#   was lost: 0 ns, nothing says when it came back); offcpu-window: the recording directory
#   converted with --window 2ms,1ms holds only slices within those bounds of
#   a hit of its record.json.
# - offcpu-interrupt: snaptrace-record of naps asleep 99% of the time
#   (spin 0.1 ms, sleep 15 ms), ended by SIGINT (kill -INT of the
#   recorder): record.json's live_ns comes before the snapshot's time_ns,
#   and the recording
#   directory's trace draws no [off-cpu] past the later of live_ns and the
#   file's last record (the snapshot's time_ns, read once perf stopped, drew
#   a sleep that never happened, issue 24).
# - offcpu-no-samples-dwarf: snaptrace-record --callgraph dwarf of naps
#   (spin 20 ms, sleep 10 ms, 30 times) with a small ring: its samples
#   (8 KiB each) reach back a few ms, its switch records (their own ring)
#   the whole run. Of the on-CPU time before the first sample (from perf
#   script's switch records), the stretches longer than 3 periods are at
#   least 90% [before the oldest sample] (the ring of samples was
#   overwritten there: no [no samples] hole begins before the first sample;
#   shorter ones, sampling's grain, stay blank; at least 100 periods of it,
#   or there is no blank to test), and the summary's "before the oldest
#   sample" time is what the trace's slices of that name add up to.
# - offcpu-kernel-symbols: perf script was given the private kernel symbol
#   table (docs/design.md "Kernel symbols") for offcpu-naps, offcpu-pipe and
#   the multi-snapshot directory, whose traces name the kernel function each
#   thread blocked in.
# Every conversion's stderr must hold no message from perf script (the
# converter asks for fields per event kind), and every trace is the one
# converted with the user's own --kallsyms /proc/kallsyms (perf's whole
# table, given to perf alone).
# Skips when perf cannot record here. Never leaves perf or a target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PERF=${SNAPTRACE_PERF:-perf}
PERF_PID=
HOG_PID=
PERIOD_NS=200000	# -F 5000
EVENTS=(-e cpu-clock/freq=5000/ --call-graph fp --switch-events -e sched:sched_switch --call-graph fp)

cleanup() {
	# perf, timeout and the target share one process group led by each
	stop_group "$PERF_PID"
	stop_group "$HOG_PID"
	scratch_done
}
on_exit cleanup

W="$SNAPTRACE_TEST_BIN/workload"
WNOFP="$SNAPTRACE_TEST_BIN/workload-nofp"
need_built offcpu "$CONVERT" "$W" "$WNOFP"
requires offcpu recording || exit 0

# record NAME [taskset CPU] -- CMD...: records CMD with EVENTS into $TMP/NAME.data (its
# stdout in $TMP/NAME.out), converts it to $TMP/NAME.tree (summary in
# $TMP/NAME.conv.err). Returns 1 when perf could not record (its status in
# REC_RC, its stderr in $TMP/NAME.rec.err), 2 when conversion or reading
# back failed.
record() {
	local name=$1 pin=()
	shift
	if [ "$1" = taskset ]; then pin=(taskset -c "$2"); shift 2; fi
	shift	# --
	setsid timeout -k 5 60 "${pin[@]}" "$PERF" record -q "${EVENTS[@]}" -o "$TMP/$name.data" -- "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.rec.err" &
	PERF_PID=$!
	wait "$PERF_PID"
	REC_RC=$?
	PERF_PID=
	[ "$REC_RC" -eq 0 ] && [ -s "$TMP/$name.data" ] || return 1
	PERF_LOG="$TMP/$name.perf-args" "$CONVERT" --perf "$PERF_LOGGED" "$TMP/$name.data" \
		-o "$TMP/$name.fxt.gz" 2>"$TMP/$name.conv.err" || return 2
	! grep -q "perf script" "$TMP/$name.conv.err" || return 2
	if [ "$name" != offcpu-unsampled-switches ] && grep -q "not at every event" "$TMP/$name.conv.err"; then
		grep "not at every event" "$TMP/$name.conv.err" >"$TMP/$name.dump.err"
		return 2
	fi
	"$CONVERT" --dump=tree "$TMP/$name.fxt.gz" >"$TMP/$name.tree" 2>"$TMP/$name.dump.err" || return 2
	same_kernel_symbols "$name" "$TMP/$name.fxt.gz" "$TMP/$name.data" >"$TMP/$name.dump.err" || return 2
}

PERF_LOGGED="$TMP/perf-logged"
perf_logging "$PERF_LOGGED"

# same_kernel_symbols NAME TRACE INPUT...: TRACE (INPUT converted by perf
# $PERF_LOGGED, logging to $TMP/NAME.perf-args) is the trace of INPUT
# converted with the user's own --kallsyms /proc/kallsyms (the table perf
# reads by itself here: no vmlinux, the running kernel's perf.data), which
# perf is given alone (docs/design.md "Kernel symbols"): the private table
# of the symbols its samples need names every kernel frame as the whole
# does. Prints what differs; returns 1 then.
same_kernel_symbols() {
	local name=$1 trace=$2
	shift 2
	PERF_LOG="$TMP/$name.whole-args" "$CONVERT" --quiet --perf "$PERF_LOGGED" \
		--perf-arg=--kallsyms=/proc/kallsyms "$@" -o "$TMP/$name.whole.${trace##*/}" 2>/dev/null || {
		echo "the conversion with --perf-arg=--kallsyms=/proc/kallsyms failed"
		return 1
	}
	if grep -q -e "--kallsyms /proc/self/fd/" "$TMP/$name.whole-args" ||
		! grep -q -e "--kallsyms=/proc/kallsyms" "$TMP/$name.whole-args"; then
		echo "perf was not given the user's --kallsyms alone: $(first_lines "$TMP/$name.whole-args")"
		return 1
	fi
	cmp -s "$trace" "$TMP/$name.whole.${trace##*/}" ||
		{ echo "the trace differs with the whole kernel symbol table"; return 1; }
}

# kernel_symbols NAME...: each recording NAME was converted with a private
# kernel symbol table (its samples have kernel frames: sched_switch's call
# chains) naming the kernel function blocked in, identical to the whole
# table's trace (record()). Prints what is wrong.
kernel_symbols() {
	local n
	for n in "$@"; do
		if ! grep -q -e "--kallsyms /proc/self/fd/[0-9]*/kallsyms" "$TMP/$n.perf-args" 2>/dev/null; then
			echo "$n: perf script was not given the private table: $(first_lines "$TMP/$n.perf-args" 2>&1)"
		elif ! grep -q 'kernel_function:string="[a-z_]' "$TMP/$n.tree"; then
			echo "$n: no kernel function named in its trace"
		fi
	done
}

# recorded NAME RC: reports a failed record() and returns 1.
recorded() {
	case $2 in
	0) return 0 ;;
	1) fail_recording "$1" "perf could not record" "$REC_RC" "$TMP/$1.rec.err" "$TMP/$1.data" ;;
	*) fail "$1" "conversion failed: $(first_lines "$TMP/$1.conv.err") $(first_lines "$TMP/$1.dump.err" 2>/dev/null)" ;;
	esac
	return 1
}

# naps: spins and sleeps against the program's own measurements.
record offcpu-naps -- "$W" naps 20 3000 40000
if recorded offcpu-naps $?; then
	if why=$(awk -v period=$PERIOD_NS '
		function times(   t) { t = $0; sub(/.*\[/, "", t); sub(/\].*/, "", t); split(t, be, ", ") }
		function dur(   d) { d = $0; sub(/.*dur=/, "", d); sub(/ .*/, "", d); return d + 0 }
		FNR == NR { if ($1 == "spin") truth[++ns] = $2; else sleep += $2; next }
		/ snaptrace_spin \[/ {
			times(); pieces++
			if (!open) { n++; open = 1; b[n] = be[1] }
			e[n] = be[2]
			if (dur() - truth[n] > 3 * period) { print "spin " n ": a slice of " dur() " ns, truth " truth[n] " ns"; bad = 1; exit 1 }
		}
		# a nap: blocked (at the root when its sched_switch sample was lost)
		/ \[off-cpu\] \[/ && /state:string="blocked"/ { off += dur(); open = 0 }
		END {
			if (bad) exit 1
			if (n != ns) { print n " spins drawn for " ns " spins run"; exit 1 }
			for (i = 1; i <= n; i++) {
				ext = e[i] - b[i]
				if (ext - truth[i] > 3 * period) { print "spin " i ": drawn over " ext " ns, truth " truth[i] " ns"; exit 1 }
				if (ext > longest) { longest = ext; li = i }
				if (i == 1 || ext - truth[i] > worst) worst = ext - truth[i]
			}
			share = 100 * off / sleep
			printf "longest spin %.3f ms (truth %.3f ms), drawn at most %.3f ms longer than " \
				"its truth, %d spins in %d slices (a sample in a function prologue skips its " \
				"caller); [off-cpu] covers %.1f%% of %.1f ms asleep\n", longest / 1e6,
				truth[li] / 1e6, worst / 1e6, n, pieces, share, sleep / 1e6
			if (share < 80) exit 1
		}' "$TMP/offcpu-naps.out" "$TMP/offcpu-naps.tree"); then
		if grep -q "call stacks are broken" "$TMP/offcpu-naps.conv.err"; then
			fail offcpu-naps "broken-stack warning for a program with frame pointers: $(grep broken "$TMP/offcpu-naps.conv.err")"
		else
			echo "# offcpu-naps: $why"
			ok offcpu-naps
		fi
	else
		fail offcpu-naps "$why"
	fi
fi

# short gaps: a sleep is one call, even with no sample between two.
record offcpu-short-gaps -- "$W" naps 20 100 5000
if recorded offcpu-short-gaps $?; then
	if why=$(awk -v period=$PERIOD_NS -v nap=5000000 '
		FNR == NR { if ($1 == "sleep") truth[++nt] = $2; next }
		/^#/ { next }
		{ d = $2; t = $0; sub(/.*\[/, "", t); sub(/\].*/, "", t); split(t, be, ", ")
		  begin[d] = be[1]; dur[d] = be[2] - be[1] }
		# a sleep: blocked in the call (a preemption in it after the wakeup
		# is [off-cpu] preempted, of the same syscall)
		/ \[off-cpu\] \[/ && /state:string="blocked"/ && /syscall:string="clock_nanosleep"/ {
			n++
			if (n > 1 && begin[d - 1] == parent) { print "sleeps " n - 1 " and " n " in one call starting at " parent; bad = 1; exit 1 }
			parent = begin[d - 1]; call[n] = dur[d - 1]
		}
		END {
			if (bad) exit 1
			if (n != nt) { print n " sleeps drawn for " nt " slept"; exit 1 }
			for (i = 1; i <= n; i++) {
				# The measure around the call in the program is the most it
				# took (a preemption just outside it widens it); nanosleep
				# never returns before the time asked is over: the least.
				if (call[i] > truth[i] + 3 * period || call[i] < nap - 3 * period) {
					print "sleep " i ": a call of " call[i] " ns, expected " nap " to " truth[i] " ns (asked, measured around it), 3 periods either side"; exit 1
				}
				diff = call[i] - truth[i]; if (diff < 0) diff = -diff
				if (diff > worst) worst = diff
			}
			printf "%d sleeps, each its own call, at most %.3f ms from the program'"'"'s own measure\n", n, worst / 1e6
		}' "$TMP/offcpu-short-gaps.out" "$TMP/offcpu-short-gaps.tree"); then
		echo "# offcpu-short-gaps: $why"
		ok offcpu-short-gaps
	else
		fail offcpu-short-gaps "$why"
	fi
fi

# pipe: blocked in read().
record offcpu-pipe -- "$W" pipe 5 30000
if recorded offcpu-pipe $?; then
	if grep -E -q '\[off-cpu\] .*state:string="blocked".*syscall:string="read"' "$TMP/offcpu-pipe.tree"; then
		ok offcpu-pipe
	else
		fail offcpu-pipe "no [off-cpu] blocked in read: $(grep -c 'off-cpu' "$TMP/offcpu-pipe.tree") [off-cpu] slices"
	fi
fi

# preempted: a busier process on the same CPU.
CPU=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
setsid taskset -c "$CPU" "$W" spin 3000 >/dev/null 2>&1 &
HOG_PID=$!
record offcpu-preempted taskset "$CPU" -- "$W" spin 400
rc=$?
kill -TERM -- "-$HOG_PID" 2>/dev/null
wait "$HOG_PID" 2>/dev/null
HOG_PID=
if recorded offcpu-preempted $rc; then
	if grep -E -q '\[off-cpu\] .*state:string="preempted"' "$TMP/offcpu-preempted.tree"; then
		ok offcpu-preempted
	else
		fail offcpu-preempted "no [off-cpu] preempted: $(grep -c 'off-cpu' "$TMP/offcpu-preempted.tree") [off-cpu] slices"
	fi
fi

# broken stacks: no frame pointers.
record offcpu-broken-stacks -- "$WNOFP" spin 300
if recorded offcpu-broken-stacks $?; then
	if grep -q "call stacks are broken.*workload-nofp.*-fno-omit-frame-pointer" "$TMP/offcpu-broken-stacks.conv.err"; then
		ok offcpu-broken-stacks
	else
		fail offcpu-broken-stacks "no broken-stack warning naming workload-nofp: $(first_lines "$TMP/offcpu-broken-stacks.conv.err")"
	fi
fi

# no switch records: as before, and no complaint from perf script.
EVENTS=(-e cpu-clock/freq=5000/ --call-graph fp)
record offcpu-no-switches -- "$W" naps 3 3000 20000
if recorded offcpu-no-switches $?; then
	if grep -q 'off-cpu\]' "$TMP/offcpu-no-switches.tree"; then
		fail offcpu-no-switches "[off-cpu] slices without switch records"
	elif ! grep -q ' snaptrace_spin \[' "$TMP/offcpu-no-switches.tree"; then
		fail offcpu-no-switches "no snaptrace_spin slice"
	else
		ok offcpu-no-switches
	fi
fi

# unsampled switches: sched_switch in frequency mode (-F 100) on a program
# switching thousands of times a second; the converter says so.
EVENTS=(-e cpu-clock/freq=5000/ --call-graph fp --switch-events -e sched:sched_switch -F 100 --call-graph fp)
record offcpu-unsampled-switches -- "$W" naps 300 0 20
if recorded offcpu-unsampled-switches $?; then
	read -r outs samples < <("$PERF" script -f -i "$TMP/offcpu-unsampled-switches.data" \
		--show-switch-events -F tid,event 2>/dev/null |
		awk '/PERF_RECORD_SWITCH OUT/ { o++ } /sched:sched_switch/ { s++ } END { print o + 0, s + 0 }')
	said=$(grep -o "sched:sched_switch was recorded with sample_freq=100, not at every event .*: about [0-9]* of [0-9]* switches were not sampled" \
		"$TMP/offcpu-unsampled-switches.conv.err" | sed 's/.*: about \([0-9]*\) of \([0-9]*\) switches.*/\1 \2/')
	read -r n m <<<"$said"
	if [ -z "$said" ]; then
		fail offcpu-unsampled-switches "no warning of sched:sched_switch at sample_freq=100: $(first_lines "$TMP/offcpu-unsampled-switches.conv.err")"
	elif [ "$m" -ne $((samples + n)) ] || { [ "$outs" -gt "$samples" ] && [ "$n" -eq 0 ]; }; then
		fail offcpu-unsampled-switches "the converter says $n of $m switches not sampled; perf script prints $outs switch-out records and $samples sched_switch samples"
	else
		echo "# offcpu-unsampled-switches: about $n of $m switches not sampled, says the converter; perf script: $outs switch-out records, $samples sched_switch samples"
		ok offcpu-unsampled-switches
	fi
fi

# multi-snapshot: perf prints each file's switch records (their own ring,
# read as the recording went) ahead of the samples of the same time (the
# overwritten ring, at the snapshot); the converter merges them by time.
multi_snapshot() {
	local d="$TMP/multi" f why
	setsid timeout -k 5 60 "$RECORD" -q -o "$d" --multi-snapshot --arm-after 0 --min-interval 200 \
		--trigger snaptrace_nap -- "$W" naps 30 3000 20000 \
		>"$TMP/multi.out" 2>"$TMP/multi.rec.err" &
	PERF_PID=$!
	wait "$PERF_PID"
	f=$?
	PERF_PID=
	if [ "$f" -ne 0 ] || ! compgen -G "$d/perf.data.*" >/dev/null; then
		fail_recording offcpu-multi-snapshot "snaptrace-record could not record" "$f" "$TMP/multi.rec.err" "$d"
		return
	fi
	if ! PERF_LOG="$TMP/multi.perf-args" "$CONVERT" --perf "$PERF_LOGGED" "$d"/perf.data.* \
		-o "$TMP/multi.fxt" 2>"$TMP/multi.conv.err" ||
		! "$CONVERT" --dump=tree "$TMP/multi.fxt" >"$TMP/multi.tree" 2>"$TMP/multi.dump.err" ||
		[ -s "$TMP/multi.dump.err" ] ||
		! same_kernel_symbols multi "$TMP/multi.fxt" "$d"/perf.data.* >"$TMP/multi.dump.err"; then
		fail offcpu-multi-snapshot "conversion failed: $(first_lines "$TMP/multi.conv.err") $(first_lines "$TMP/multi.dump.err")"
		return
	fi
	for f in "$d"/perf.data.*; do
		"$PERF" script -f -i "$f" --ns --show-switch-events -F tid,time 2>/dev/null
	done | awk '/PERF_RECORD_SWITCH IN/ { t = $2; sub(/:$/, "", t); sub(/\./, "", t); print t }' \
		>"$TMP/multi.ins"
	if grep -q "back in time\|clamped" "$TMP/multi.conv.err"; then
		fail offcpu-multi-snapshot "times clamped: $(grep -m 1 "clamped" "$TMP/multi.conv.err")"
	elif ! why=$(awk '
		FNR == NR { in_at[$1] = 1; next }
		/^#/ { next }
		{ t = $0; sub(/.*\[/, "", t); sub(/\].*/, "", t); split(t, be, ", "); if (be[2] > last) last = be[2] }
		/ \[off-cpu\] \[/ { n++; beg[n] = be[1]; end[n] = be[2] }
		END {
			if (n < 5) { print "only " n " [off-cpu] slices"; exit 1 }
			# a switch in lost with a wrapped ring: the slice ends where it began
			for (i = 1; i <= n; i++)
				if (!(end[i] in in_at) && end[i] != last && end[i] != beg[i]) {
					print "an [off-cpu] slice [" beg[i] ", " end[i] "] ends at no switch in"; exit 1
				}
			print n " [off-cpu] slices"
		}' period="$PERIOD_NS" "$TMP/multi.ins" "$TMP/multi.tree"); then
		fail offcpu-multi-snapshot "$why"
	else
		echo "# offcpu-multi-snapshot: $why, each ending at a switch in"
		ok offcpu-multi-snapshot
	fi
	# --window on the recording directory: every slice within 2 ms before
	# to 1 ms after a hit of its record.json or the mark of a snapshot no
	# hit took (the exit one, at its live_ns), one interval per anchor.
	if ! "$CONVERT" --window 2ms,1ms "$d" -o "$TMP/window.fxt" 2>"$TMP/window.err" ||
		! "$CONVERT" --dump=tree "$TMP/window.fxt" >"$TMP/window.tree" 2>/dev/null; then
		fail offcpu-window "conversion failed: $(first_lines "$TMP/window.err")"
	elif ! why=$(awk '
		FNR == NR { hit[++nh] = $1; next }
		match($0, /\[[0-9]+, [0-9]+\] dur=/) {
			split(substr($0, RSTART + 1, RLENGTH - 7), t, ", "); n++
			for (i = 1; i <= nh; i++)
				if (t[1] >= hit[i] - 2000000 && t[2] <= hit[i] + 1000000) { seen[i] = 1; next }
			print "a slice outside every window: " $0; exit 1
		}
		END { for (i = 1; i <= nh; i++) k += i in seen
		      if (k < 2) { print "only " k " of " nh " windows hold slices"; exit 1 }
		      print n " slices in " k " of " nh " windows" }' \
		<(rec_rows "$d" hits time_ns
		  # and the snapshot no hit took (the exit): its mark, where it ends
		  rec_rows "$d" snapshots reason live_ns |
			awk '$1 ~ /^(exit|interrupt|duration)$/ && $2 != "null" { print $2 }') \
		"$TMP/window.tree"); then
		fail offcpu-window "$why"
	elif ! grep -q -e "--window 2ms,1ms: [0-9]* intervals kept" "$TMP/window.err"; then
		fail offcpu-window "no summary of the cut: $(first_lines "$TMP/window.err")"
	else
		echo "# offcpu-window: $why"
		ok offcpu-window
	fi
}
multi_snapshot
verdict offcpu-kernel-symbols "$(kernel_symbols offcpu-naps offcpu-pipe multi)"

# interrupt: what is drawn at the end of a Ctrl-C recording is what perf
# recorded (or the recorder saw it record), never the snapshot's time.
interrupt() {
	local d="$TMP/intr" rc why live taken rec
	"$SIGDFL" setsid timeout -k 5 60 "$RECORD" -o "$d" --trigger none -- "$W" naps 100000 100 15000 \
		>"$TMP/intr.out" 2>"$TMP/intr.rec.err" &
	PERF_PID=$!
	# recording (perf enabled and the target let go), then a second of it
	for ((rc = 0; rc < 3000; rc++)); do
		grep -q '^snaptrace-record: recording' "$TMP/intr.rec.err" 2>/dev/null && break
		sleep 0.01
	done
	sleep 1
	# SIGINT to the recorder (timeout's child), as kill -INT PID: given to
	# timeout (the hang guard), it went to the whole process group, the
	# program too (whose death, seen first, takes the snapshot as a
	# "signal" one), and started -k's 5 s, after which timeout SIGKILLed a
	# recorder still stopping perf on a loaded machine (exit 137, "could
	# not record" at load ~30; its stop took 5 to 8 s at load 15)
	rec=$(pgrep -P "$PERF_PID" -f "^$RECORD ")
	kill -INT ${rec:-"$PERF_PID"} 2>/dev/null
	wait "$PERF_PID"
	rc=$?
	PERF_PID=
	if [ "$rc" -ne 0 ] || ! compgen -G "$d/perf.data*" >/dev/null; then
		fail_recording offcpu-interrupt "snaptrace-record could not record" "$rc" "$TMP/intr.rec.err" "$d"
		return
	fi
	live=$(rec_rows "$d" snapshots reason live_ns | awk '$1 == "interrupt" { print $2 }')
	taken=$(rec_rows "$d" snapshots reason time_ns | awk '$1 == "interrupt" { print $2 }')
	if [ -z "$live" ] || [ -z "$taken" ] || [ "$live" -gt "$taken" ]; then
		fail offcpu-interrupt "record.json: live_ns '$live', time_ns '$taken': $(rec_part "$d" snapshots)"
		return
	fi
	if ! "$CONVERT" "$d" -o "$TMP/intr.fxt" 2>"$TMP/intr.conv.err" ||
		! "$CONVERT" --dump=tree "$TMP/intr.fxt" >"$TMP/intr.tree" 2>/dev/null; then
		fail offcpu-interrupt "conversion failed: $(first_lines "$TMP/intr.conv.err")"
		return
	fi
	if ! why=$(awk -v live="$live" -v taken="$taken" '
		FNR == NR { t = $2; sub(/:$/, "", t); sub(/\./, "", t); if (t + 0 > last) last = t + 0; next }
		/ \[off-cpu\] \[/ { t = $0; sub(/.*\[off-cpu\] \[/, "", t); sub(/\].*/, "", t)
			split(t, be, ", "); n++; if (be[2] + 0 > end) end = be[2] + 0 }
		END {
			known = live > last ? live : last
			if (!n) { print "no [off-cpu] slice"; exit 1 }
			if (end > known) { printf "an [off-cpu] slice ends at %d, %.3f ms past what perf recorded (snapshot taken %.3f ms after)\n", end, (end - known) / 1e6, (taken - known) / 1e6; exit 1 }
			printf "the last [off-cpu] ends %.3f ms before live_ns; the snapshot was taken %.3f ms after it\n", (live - end) / 1e6, (taken - live) / 1e6
		}' <("$PERF" script -f -i "$d"/perf.data* --ns --show-switch-events -F tid,time 2>/dev/null) \
		"$TMP/intr.tree"); then
		fail offcpu-interrupt "$why"
	else
		echo "# offcpu-interrupt: $why"
		ok offcpu-interrupt
	fi
}
interrupt

# dwarf: few samples, a long span of switch records. The period comes from
# the perf.data (cpu-clock/freq=5000): no sample precedes the blank.
no_samples_dwarf() {
	local d="$TMP/dwarf" why
	setsid timeout -k 5 60 "$RECORD" -q -o "$d" --callgraph dwarf --snapshot-size 256K --trigger none \
		-- "$W" naps 30 20000 10000 >"$TMP/dwarf.out" 2>"$TMP/dwarf.rec.err" &
	PERF_PID=$!
	wait "$PERF_PID"
	why=$?
	PERF_PID=
	if [ "$why" -ne 0 ] || ! compgen -G "$d/perf.data.*" >/dev/null; then
		fail_recording offcpu-no-samples-dwarf "snaptrace-record could not record" "$why" "$TMP/dwarf.rec.err" "$d"
		return
	fi
	if ! "$CONVERT" "$d" -o "$TMP/dwarf.fxt" 2>"$TMP/dwarf.conv.err" ||
		! "$CONVERT" --dump=tree "$TMP/dwarf.fxt" >"$TMP/dwarf.tree" 2>"$TMP/dwarf.dump.err" ||
		[ -s "$TMP/dwarf.dump.err" ]; then
		fail offcpu-no-samples-dwarf "conversion failed: $(first_lines "$TMP/dwarf.conv.err") $(first_lines "$TMP/dwarf.dump.err")"
		return
	fi
	"$PERF" script -f -i "$d"/perf.data.* --ns --show-switch-events -F tid,time,event 2>/dev/null |
		awk '{ t = $2; sub(/:$/, "", t); sub(/\./, "", t) }
		     /PERF_RECORD_SWITCH IN/ { print "in", t; next }
		     /PERF_RECORD_SWITCH OUT/ { print "out", t; next }
		     /cpu-clock/ { print "sample", t }' >"$TMP/dwarf.events"
	if why=$(awk -v period="$PERIOD_NS" '
		FILENAME == ARGV[1] {
			if ($1 == "sample" && (!first || $2 < first)) first = $2
			ev[++ne] = $1; at[ne] = $2; next
		}
		FILENAME == ARGV[2] {
			if (!said && match($0, /before the oldest sample [0-9.]+ ms/)) { ms = substr($0, RSTART + 25, RLENGTH - 28) + 0; said = 1 }
			next
		}
		/ \[no samples\] \[/ {
			t = $0; sub(/.*\[no samples\] \[/, "", t); sub(/\].*/, "", t); split(t, be, ", ")
			if (be[1] < first) hole = be[1]
		}
		/ \[before the oldest sample\] \[/ {
			t = $0; sub(/.*\[before the oldest sample\] \[/, "", t); sub(/\].*/, "", t); split(t, be, ", ")
			all += be[2] - be[1]
			if (be[1] < first) before += (be[2] < first ? be[2] : first) - be[1]
		}
		END {
			if (!first) { print "no cpu-clock sample"; exit 1 }
			if (!said) { print "no \"before the oldest sample\" time in the summary"; exit 1 }
			if (hole) { print "a [no samples] hole at " hole ", before the first sample at " first; exit 1 }
			for (i = 1; i <= ne; i++) {	# on the CPU before the first sample
				if (ev[i] == "in") { on = at[i]; continue }
				if (on && on < first) {
					d = (at[i] < first ? at[i] : first) - on
					blank += d
					if (d > 3 * period) longer += d	# shorter: the sampling grain
				}
				on = 0
			}
			if (blank < 100 * period) { print "only " blank " ns on the CPU before the first sample: no blank to cover"; exit 1 }
			if (all / 1e6 - ms > 0.002 || ms - all / 1e6 > 0.002) {
				print "the summary says before the oldest sample " ms " ms, the trace has " all / 1e6 " ms"; exit 1
			}
			if (before < 0.9 * longer || before > blank) {
				printf "[before the oldest sample] covers %.3f ms before the first sample, of %.3f ms on the CPU in stretches over 3 periods (%.3f ms in all)\n", before / 1e6, longer / 1e6, blank / 1e6; exit 1
			}
			printf "[before the oldest sample] covers %.1f of %.1f ms on the CPU before the first sample (%.1f%%; %.1f ms in stretches over 3 periods); summary and trace: %.3f ms\n",
				before / 1e6, blank / 1e6, 100 * before / blank, longer / 1e6, ms
		}' "$TMP/dwarf.events" "$TMP/dwarf.conv.err" "$TMP/dwarf.tree"); then
		echo "# offcpu-no-samples-dwarf: $why"
		ok offcpu-no-samples-dwarf
	else
		fail offcpu-no-samples-dwarf "$why"
	fi
}
no_samples_dwarf
