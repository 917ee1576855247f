#!/usr/bin/env bash
# The cost of the unwound twin (`make bench`, after bench/pipeline.sh;
# docs/design.md "The caller a library hides"): with --callgraph fp the
# recorder samples every switch out twice, sched:sched_switch (frame
# pointers) and context-switches with a 512-byte copy of the user stack that
# perf unwinds (DWARF). Measured on tests/record/waits_target.c built -O2
# -fno-omit-frame-pointer (its call tree is known: worker > nap_us >
# nanosleep, worker > locked_update > pthread_mutex_lock), recorded by perf
# with the recorder's own events (`snaptrace-record --dry-run`: one
# definition), and, as the reference in the same run, with the same events
# less the twin (and the dummy's call-graph term that only the twin needs):
#   - the target's CPU time (its own getrusage), 2 threads, 4000 naps of
#     20 us each, no spinning: a switch out every few microseconds, the worst
#     case; median of 5 interleaved runs each, and the cost per switch;
#   - bytes per twin: recorded without a ring (--full-execution), the
#     difference of the two files over the number of twins;
#   - perf script's CPU (the converter's command line, best of 3) on those
#     files, as a ratio, and per twin;
#   - truth: of the [off-cpu] slices of the sleeps and of the mutex waits
#     (4 threads, 100 rounds of a 1 ms nap and a 300 us hold), how many have
#     nap_us and locked_update among their callers, with and without.
#   bench/offcpu.sh [O]     (O = build directory, default build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
RECORD="$O/bin/snaptrace-record"
CONVERT="$O/bin/snaptrace-convert"
PROG="$O/bench-tools/waits_target"
PERF=${SNAPTRACE_PERF:-perf}
DIR="$O/bench-offcpu"
export PAGER=cat

. "$top/bench/lib.sh"
for f in "$RECORD" "$CONVERT" "$PROG"; do
	[ -x "$f" ] || die "$f not built (make O=$O bench builds it)"
done
command -v "$PERF" >/dev/null || die "no perf"
[ -x /usr/bin/time ] || die "no /usr/bin/time (install package time)"
scratch "$DIR"

# events FULL: the recorder's perf record arguments from the first -e to
# the targets (its --dry-run for a launched program, --multi-thread; FULL:
# --full-execution, no ring), one per line.
events() {
	local line i keep=0
	local -a a
	line=$("$RECORD" --dry-run --mode sampling --multi-thread --trigger none $1 -- "$PROG" \
		2>/dev/null | tail -n 1) || die "no --dry-run line"
	eval "a=($line)"	# the recorder quotes as the shell reads it
	for ((i = 0; i < ${#a[@]}; i++)); do
		case ${a[$i]} in
		-e) keep=1 ;;
		-p|--per-thread|-t) break ;;
		esac
		[ $keep = 1 ] && printf '%s\n' "${a[$i]}"
	done
}
# without_twin: those arguments less the twin and its dummy's term
without_twin() {
	local prev= x
	while IFS= read -r x; do
		if [ "$prev" = -e ] && [[ $x == context-switches/*call-graph=dwarf* ]]; then
			prev=
			continue
		fi
		[ -n "$prev" ] && printf '%s\n' "$prev"
		case $x in dummy/call-graph=dwarf/*) x=dummy:${x#dummy/call-graph=dwarf/} ;; esac
		[ "$x" = dummy: ] && x=dummy
		prev=$x
	done
	[ -n "$prev" ] && printf '%s\n' "$prev"
}
mapfile -t TWIN < <(events "")
mapfile -t PLAIN < <(events "" | without_twin)
mapfile -t TWIN_FULL < <(events --full-execution)
mapfile -t PLAIN_FULL < <(events --full-execution | without_twin)
printf '%s\n' "${TWIN[@]}" | grep -q '^context-switches/' ||
	die "the recorder records no twin here (sched:sched_switch not allowed?): $(printf '%s ' "${TWIN[@]}")"

# rec OUT ARGS... -- PROG ARGS: perf record with those events; the program's
# output in OUT.out
rec() {
	local out=$1
	shift
	"$PERF" record -q -o "$out" --timestamp --no-bpf-event "$@" >"$out.out" 2>"$out.err" ||
		die "perf record failed: $(head -n 2 "$out.err")"
}

# 1. the target's CPU time
SW=(2 4000 20 0)
for r in 1 2 3 4 5; do
	"$PROG" "${SW[@]}" | sed -n 's/^cpu_ns \([0-9]*\) switches \([0-9]*\)/none \1 \2/p'
	rec "$DIR/p.data" "${PLAIN[@]}" --switch-events -- "$PROG" "${SW[@]}"
	sed -n 's/^cpu_ns \([0-9]*\) switches \([0-9]*\)/plain \1 \2/p' "$DIR/p.data.out"
	rec "$DIR/t.data" "${TWIN[@]}" --switch-events -- "$PROG" "${SW[@]}"
	sed -n 's/^cpu_ns \([0-9]*\) switches \([0-9]*\)/twin \1 \2/p' "$DIR/t.data.out"
done >"$DIR/cpu.txt"

# 2. bytes, 3. perf script: every sample kept
rec "$DIR/pf.data" "${PLAIN_FULL[@]}" --switch-events -- "$PROG" "${SW[@]}"
rec "$DIR/tf.data" "${TWIN_FULL[@]}" --switch-events -- "$PROG" "${SW[@]}"
read -r -a SCRIPT <<<"$("$CONVERT" --print-perf-command=sched)" || die "no perf command"
SCRIPT[0]=$PERF
best_cpu3() {
	local best= t i
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$DIR/time.txt" "$@" >"$DIR/script.txt" 2>/dev/null ||
			die "failed: $*"
		t=$(awk '{ printf "%d", ($1 + $2) * 1e9 }' "$DIR/time.txt")
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}
pcpu=$(best_cpu3 "${SCRIPT[@]}" -i "$DIR/pf.data")
pswitch=$(grep -c ' sched:sched_switch: ' "$DIR/script.txt")
tcpu=$(best_cpu3 "${SCRIPT[@]}" -i "$DIR/tf.data")
tswitch=$(grep -c ' sched:sched_switch: ' "$DIR/script.txt")
twins=$(grep -c ' context-switches/' "$DIR/script.txt")
[ "$twins" -gt 0 ] || die "no twin in $DIR/tf.data"

# 4. truth
truth() {
	"$CONVERT" --quiet "$1" -o "$1.fxt" 2>/dev/null || die "cannot convert $1"
	"$CONVERT" --dump=tree "$1.fxt" | awk '
		/^# thread / { split($3, p, "="); pid = p[2]; next }
		match($0, / \[[0-9]+, [0-9]+\]/) {
			tid = $1; d = $2 + 0; nm = substr($0, 1, RSTART - 1)
			sub(/^[0-9]+ [0-9]+ +/, "", nm)
			name[tid, d] = nm
			if (nm != "[off-cpu]" || tid == pid || $0 !~ /state:string="blocked"/) next
			w = ""
			if ($0 ~ /syscall:string="clock_nanosleep"/) w = "nap_us"
			if ($0 ~ /syscall:string="futex"/) w = "locked_update"
			if (w == "") next
			all[w]++
			for (i = 0; i < d; i++) if (name[tid, i] == w) { with[w]++; break }
		}
		END { printf "%d of %d sleeps under nap_us, %d of %d mutex waits under locked_update",
			with["nap_us"], all["nap_us"], with["locked_update"], all["locked_update"] }'
}
TR=(4 100 1000 300)
rec "$DIR/ptr.data" "${PLAIN_FULL[@]}" --switch-events -- "$PROG" "${TR[@]}"
rec "$DIR/ttr.data" "${TWIN_FULL[@]}" --switch-events -- "$PROG" "${TR[@]}"
ptruth=$(truth "$DIR/ptr.data")
ttruth=$(truth "$DIR/ttr.data")

# median KIND COLUMN: the median of COLUMN (2: CPU ns, 3: switches) of KIND's runs
median() {
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$DIR/cpu.txt" | sort -n | awk '
		{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
awk -v none="$(median none 2)" -v p="$(median plain 2)" -v t="$(median twin 2)" \
    -v n="$(median twin 3)" -v psize="$(stat -c %s "$DIR/pf.data")" \
    -v tsize="$(stat -c %s "$DIR/tf.data")" -v twins="$twins" -v psw="$pswitch" -v tsw="$tswitch" \
    -v pcpu="$pcpu" -v tcpu="$tcpu" -v ptruth="$ptruth" -v ttruth="$ttruth" 'BEGIN {
	printf "unwound switches (--callgraph fp): the target (2 threads, 4000 naps of 20 us, %d switches) took %.3f s of CPU unrecorded, %.3f s recorded without the twin, %.3f s with it: %.2fx, %.1f us more per switch (median of 5)\n", n, none / 1e9, p / 1e9, t / 1e9, t / p, (t - p) / n / 1e3
	printf "unwound switches: %.0f bytes per twin (%d twins; %d and %d sched_switch samples); perf script %.2f s with them, %.2f s without: %.2fx, %.1f us per twin\n", (tsize - psize) / twins, twins, tsw, psw, tcpu / 1e9, pcpu / 1e9, tcpu / pcpu, (tcpu - pcpu) / twins / 1e3
	printf "unwound switches: truth with the twin: %s; without: %s\n", ttruth, ptruth
}'
