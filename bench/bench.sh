#!/usr/bin/env bash
# Converter benchmark (`make bench`): generates a realistic branch text
# (tests/gen/gen_branch_text: perf 6.1 layout, ~75% same-function jcc/jmp,
# nested calls/returns, 4 threads, long C++ names) of BENCH_LINES lines
# (default 2,000,000) and one 4x larger, under O/bench/ (several GB: removed
# when the benchmark ends, kept with KEEP=1 and then reused while newer than
# the generator), then prints in one run:
#   - converter lines/s and MB/s on the 1x file (best of BENCH_RUNS runs,
#     default 3),
#   - the ratio of its time to `wc -l` on the same file (reference run in
#     this invocation, best of BENCH_RUNS, page cache warm for both),
#   - peak RSS (/usr/bin/time -f %M) at 1x and 4x, and their ratio
#     (streaming: RSS must not grow with the input).
# The 1x output is read back with --dump=slices (it must be balanced).
# Then snaptrace-stats on the 1x and 4x outputs: its wall and CPU time (best
# of BENCH_RUNS) as ratios to the conversion that wrote the same trace (goal: below
# 1), and its peak RSS at 1x and 4x (streaming: it must not grow). Last,
# the converter's peak RSS on a record.json of BENCH_HITS hits (default
# 50,000) and 4x as many.
#   bench/bench.sh [O]     (O = build directory, default build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
CONVERT="$O/bin/snaptrace-convert"
STATS="$O/bin/snaptrace-stats"
GEN="$O/test/gen/gen_branch_text"
DIR="$O/bench"
LINES=${BENCH_LINES:-2000000}
RUNS=${BENCH_RUNS:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: BENCH_RUNS=$RUNS: expected a count" >&2; exit 2; }
export PAGER=cat

. "$top/bench/lib.sh"
[ -x "$CONVERT" ] || die "$CONVERT not built (make O=$O)"
[ -x "$STATS" ] || die "$STATS not built (make O=$O)"
[ -x "$GEN" ] || die "$GEN not built (make O=$O $GEN)"
scratch "$DIR"

# make_input N: prints the path of a generated input of N lines, made when
# missing or older than the generator.
make_input() {
	local f="$DIR/branches-$1.txt"
	if [ ! -s "$f" ] || [ "$GEN" -nt "$f" ]; then
		"$GEN" "$1" 1 >"$f.tmp" || die "generator failed"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# now_ns: the time in ns (to the microsecond: bash's, no process)
now_ns() { echo "${EPOCHREALTIME/./}000"; }

# best_of CMD...: runs CMD RUNS times, prints the shortest wall time in ns.
best_of() {
	local best= t0 t1 i
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now_ns)
		"$@" >/dev/null 2>&1 || die "failed: $*"
		t1=$(now_ns)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
	done
	echo "$best"
}

# best_cpu CMD...: runs CMD RUNS times, prints the least CPU time (user +
# system, ns) of a run; needs /usr/bin/time.
best_cpu() {
	local best= t i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U %S' -o "$DIR/cpu.txt" "$@" >/dev/null 2>&1 || die "failed: $*"
		t=$(awk '{ printf "%d", ($1 + $2) * 1e9 }' "$DIR/cpu.txt")
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}

# peak_rss_kib CMD...: runs CMD once, prints its peak RSS in KiB.
peak_rss_kib() {
	local out="$DIR/rss.txt"
	/usr/bin/time -f %M -o "$out" "$@" >/dev/null 2>"$DIR/rss.err" || {
		cat "$DIR/rss.err" >&2
		die "failed: $*"
	}
	tail -n 1 "$out"
}

in1=$(make_input "$LINES")
in4=$(make_input $((LINES * 4)))
bytes1=$(stat -c %s "$in1")
bytes4=$(stat -c %s "$in4")
lines1=$(wc -l <"$in1")
lines4=$(wc -l <"$in4")
cat "$in1" >/dev/null

wc_ns=$(best_of wc -l "$in1")
conv_ns=$(best_of "$CONVERT" --quiet "$in1" -o "$DIR/out-1x.fxt.gz")
raw_ns=$(best_of "$CONVERT" --quiet "$in1" -o "$DIR/out-1x.fxt")

"$CONVERT" --dump=slices "$DIR/out-1x.fxt.gz" >"$DIR/out-1x.slices" 2>"$DIR/dump.err"
rc=$?
slices=$(wc -l <"$DIR/out-1x.slices")
if [ "$rc" -ne 0 ] || [ -s "$DIR/dump.err" ] || [ "$slices" -eq 0 ]; then
	die "the 1x output does not read back cleanly: $(head -n 3 "$DIR/dump.err")"
fi

if [ -x /usr/bin/time ]; then
	rss1=$(peak_rss_kib "$CONVERT" --quiet "$in1" -o "$DIR/out-1x.fxt.gz")
	cat "$in4" >/dev/null
	t0=$(now_ns)
	rss4=$(peak_rss_kib "$CONVERT" --quiet "$in4" -o "$DIR/out-4x.fxt.gz")
	t1=$(now_ns)
	conv4_ns=$((t1 - t0))
else
	rss1="" rss4=""
	cat "$in4" >/dev/null
	conv4_ns=$(best_of "$CONVERT" --quiet "$in4" -o "$DIR/out-4x.fxt.gz")
fi

stats_ns=$(best_of "$STATS" --quiet "$DIR/out-1x.fxt.gz")
"$STATS" --quiet --format csv "$DIR/out-1x.fxt.gz" >"$DIR/stats-1x.csv" ||
	die "snaptrace-stats failed on the 1x output"
functions=$(($(wc -l <"$DIR/stats-1x.csv") - 1))
[ "$functions" -gt 0 ] || die "snaptrace-stats found no function in the 1x output"
if [ -n "$rss1" ]; then
	srss1=$(peak_rss_kib "$STATS" --quiet "$DIR/out-1x.fxt.gz")
	srss4=$(peak_rss_kib "$STATS" --quiet "$DIR/out-4x.fxt.gz")
	conv_cpu=$(best_cpu "$CONVERT" --quiet "$in1" -o "$DIR/out-1x.fxt.gz")
	stats_cpu=$(best_cpu "$STATS" --quiet "$DIR/out-1x.fxt.gz")
else
	srss1="" srss4="" conv_cpu="" stats_cpu=""
fi

awk -v l1="$lines1" -v b1="$bytes1" -v l4="$lines4" -v b4="$bytes4" -v wc="$wc_ns" \
    -v cv="$conv_ns" -v raw="$raw_ns" -v cv4="$conv4_ns" -v r1="$rss1" -v r4="$rss4" \
    -v slices="$slices" -v dir="$DIR" -v st="$stats_ns" -v fn="$functions" \
    -v sr1="$srss1" -v sr4="$srss4" -v ccpu="$conv_cpu" -v scpu="$stats_cpu" '
BEGIN {
	s = cv / 1e9
	printf "input: 1x %d lines %.1f MB, 4x %d lines %.1f MB (%s)\n", l1, b1 / 1e6, l4, b4 / 1e6, dir
	printf "wc -l: %.3f s (%.0f MB/s)\n", wc / 1e9, b1 / (wc / 1e9) / 1e6
	if (r1 != "")
		rss = sprintf("peak RSS 1x %.1f MiB, 4x %.1f MiB (ratio %.2f)", r1 / 1024, r4 / 1024, r4 / r1)
	else
		rss = "peak RSS n/a (no /usr/bin/time: install package time)"
	printf "convert: %d lines in %.2f s = %.2f M lines/s, %.0f MB/s, %.1fx wc -l; %s\n",
		l1, s, l1 / s / 1e6, b1 / s / 1e6, cv / wc, rss
	printf "convert (raw .fxt output): %.2f s = %.2f M lines/s, %.1fx wc -l\n",
		raw / 1e9, l1 / (raw / 1e9) / 1e6, raw / wc
	printf "convert 4x: %d lines in %.2f s = %.2f M lines/s; 1x output: %d slices, read back balanced\n",
		l4, cv4 / 1e9, l4 / (cv4 / 1e9) / 1e6, slices
	if (sr1 != "")
		srss = sprintf("peak RSS 1x %.1f MiB, 4x %.1f MiB (ratio %.2f)", sr1 / 1024, sr4 / 1024, sr4 / sr1)
	else
		srss = "peak RSS n/a"
	if (scpu != "" && ccpu > 0)
		cpu = sprintf("CPU %.2f s = %.2fx the CPU of the conversion (%.2f s)", scpu / 1e9, scpu / ccpu, ccpu / 1e9)
	else
		cpu = "CPU n/a"
	printf "stats on the 1x output (%d slices, %d functions): %.2f s = %.2fx the conversion that wrote it; %s; %s\n",
		slices, fn, st / 1e9, st / cv, cpu, srss
}'

# A recording directory whose record.json lists HITS and 4 x HITS hits
# (BENCH_HITS, default 50,000: a long --multi-snapshot run): its hits are
# read as a stream, so the peak RSS must not grow with them (it was 368 MiB
# at 200,000 when json-c held the whole document).
# recording_dir N: prints the path of a recording of N hits on a 1-line snapshot.
recording_dir() {
	local d="$DIR/rec-$1"
	mkdir -p "$d"
	echo '             app   300/300      20.000000100:          1  branches:u:   call      401000 main+0x0 (/opt/app) =>   402000 f+0x0 (/opt/app)' >"$d/perf.data.1"
	awk -v n="$1" 'BEGIN {
		printf "{\"format\": \"snaptrace-record 1\", \"pids\": [300], \"threads\": [{\"pid\": 300, \"tid\": 300, \"comm\": \"app\"}],\n"
		printf " \"trigger\": {\"spec\": \"f\", \"symbol\": \"f\", \"tsc\": null},\n \"hits\": [\n"
		for (i = 0; i < n; i++)
			printf "%s  {\"pid\": 300, \"tid\": 300, \"time_ns\": %.0f, \"ip\": 4198400, \"args\": null, \"snapshot\": %s, \"duration_ns\": %d}",
				i ? ",\n" : "", 20000000000 + 1000 * i, i ? "null" : "0", i
		printf "\n ],\n \"snapshots\": [{\"file\": \"perf.data.1\", \"reason\": \"trigger\", \"time_ns\": 20000000200}],\n"
		printf " \"end\": \"trigger\", \"end_ns\": 20000000300}\n"
	}' >"$d/record.json"
	echo "$d"
}
if [ -n "$rss1" ]; then
	hits=${BENCH_HITS:-50000}
	rec1=$(recording_dir "$hits")
	rec4=$(recording_dir $((4 * hits)))
	rrss1=$(peak_rss_kib "$CONVERT" --quiet "$rec1" -o "$DIR/rec-1.fxt.gz")
	rrss4=$(peak_rss_kib "$CONVERT" --quiet "$rec4" -o "$DIR/rec-4.fxt.gz")
	awk -v n="$hits" -v a="$rrss1" -v b="$rrss4" 'BEGIN {
		printf "record.json of %d and %d hits: peak RSS %.1f MiB, %.1f MiB (ratio %.2f)\n",
			n, 4 * n, a / 1024, b / 1024, b / a }'
fi
