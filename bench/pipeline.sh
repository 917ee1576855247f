#!/usr/bin/env bash
# The whole pipeline's benchmark (`make bench`, after bench/bench.sh):
# perf.data -> trace.fxt.gz on synthesized Intel PT of about 1, 4 and 64 MB
# of AUX data (BENCH_PT_MB="1 4 64" changes the sizes), made here by the
# Intel PT generator of the tests (ptsynth --repeat on
# tests/ptsynth/progs/bench.c, two threads; a TSC packet every 64
# instructions, not ptsynth's default 8, so that, as in recorded PT, most
# bytes are branches rather than timing packets; a PSB+ every 16 KiB, perf's
# default psb_period; the repeat count is scaled from a probe), under
# O/bench-pt/ (removed at the end unless KEEP=1).
# Prints, in one run, the CPU time (user + sys, perf included: it is the
# converter's child; the least of BENCH_RUNS runs, default 3, 1 at 64 MB) of:
#   (a) perf script with the converter's own command line (what
#       `snaptrace-convert --print-perf-command` prints) writing text to
#       /dev/null (the floor of any text pipeline, magic-trace's included),
#   (b) the same with a same-symbol dlfilter like magic-trace's
#       (bench/mt_dlfilter.c),
#   (c) perf script with snaptrace's dlfilter alone (its records to
#       /dev/null): the perf side of --decoder=perf,
#   snaptrace-convert end to end with the in-process decoder (the default)
#   and with --decoder=perf (perf script and the dlfilter), each at -j 1 and
#   -j 2, and through text (--no-dlfilter; not at 64 MB),
# as ratios to (a) and (b), with the wall time, -j 2's speed-up over -j 1 in
# wall time, and the peak RSS of each conversion (its perf included: the
# largest of the process tree's members, /usr/bin/time's %M); the machine's
# load average before each size. All traces must be byte for byte the same
# (the in-process decoder's, perf script's through the dlfilter and
# through text, -j 1's and -j 2's) and read back cleanly. Last, the
# in-process decoder's peak RSS at each size, -j 1 and -j 2, and the ratio
# of the largest size's to the smallest's (issue 21: flat).
#   bench/pipeline.sh [O]     (O = build directory, default build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-build}
case "$O" in /*) ;; *) O="$top/$O" ;; esac
CONVERT="$O/bin/snaptrace-convert"
PTSYNTH="$O/test/ptsynth"
PROG="$O/test/ptsynth-progs/bench"
MT="$O/bench-tools/mt-dlfilter.so"
FILTER="$O/bin/snaptrace-dlfilter.so"
NCPU=$(getconf _NPROCESSORS_ONLN)
PERF=${SNAPTRACE_PERF:-perf}
DIR="$O/bench-pt"
export PAGER=cat

. "$top/bench/lib.sh"
for f in "$CONVERT" "$PTSYNTH" "$PROG" "$MT" "$FILTER"; do
	[ -x "$f" ] || [ -f "$f" ] || die "$f not built (make O=$O bench builds it)"
done
command -v "$PERF" >/dev/null || die "no perf"
[ -x /usr/bin/time ] || die "no /usr/bin/time (install package time)"
scratch "$DIR"
# the text path's perf script command line, less -i FILE (one definition: the converter's)
read -r -a SCRIPT <<<"$("$CONVERT" --print-perf-command=branches)" || die "no perf command"
SCRIPT[0]=$PERF

# make_data MB: prints the path of a perf.data of about MB MB of PT.
make_data() {
	local f="$DIR/pt-$1mb.data" k
	if [ ! -s "$DIR/probe.data" ]; then
		"$PTSYNTH" -q -o "$DIR/probe.data" --tsc-every 64 --psb-every 16384 --repeat turn,100 -- "$PROG" >/dev/null 2>&1 ||
			die "ptsynth failed"
	fi
	k=$(( $1 * 1048576 * 100 / $(stat -c %s "$DIR/probe.data") ))
	"$PTSYNTH" -q -o "$f" --tsc-every 64 --psb-every 16384 --repeat "turn,$k" -- "$PROG" >/dev/null 2>"$DIR/gen.err" ||
		die "ptsynth failed: $(head -n 2 "$DIR/gen.err")"
	echo "$f"
}

# measure RUNS CMD...: runs CMD (stdout to /dev/null) RUNS times; prints
# "CPU_SECONDS WALL_SECONDS PEAK_RSS_KIB": the least CPU time, the least
# wall time (each of its own run: the machine is shared), the peak RSS of
# the run of least CPU.
measure() {
	local runs=$1 i u s e m best=
	shift
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%U %S %e %M' -o "$DIR/time" "$@" >/dev/null 2>"$DIR/err" ||
			die "failed: $* : $(head -n 2 "$DIR/err")"
		read -r u s e m <"$DIR/time"
		best=$(awk -v u="$u" -v s="$s" -v e="$e" -v m="$m" -v best="$best" 'BEGIN {
			c = u + s; split(best, B, " ")
			if (best != "" && B[1] <= c) { c = B[1]; m = B[3] }
			if (best != "" && B[2] < e) e = B[2]
			printf "%.3f %.3f %d", c, e, m }')
	done
	echo "$best"
}

# same MB A B: the traces A and B (raw FXT) are the same bytes.
same() {
	cmp -s "$DIR/$2.fxt" "$DIR/$3.fxt" || die "$1 MB: the trace of $3 differs from $2's"
}

report() {
	local mb=$1 data=$2 runs=${BENCH_RUNS:-3} a b c row name
	[ "$mb" -ge 64 ] && runs=${BENCH_RUNS:-1}
	a=$(measure "$runs" "${SCRIPT[@]}" -i "$data")
	b=$(measure "$runs" "${SCRIPT[@]}" -i "$data" --dlfilter "$MT")
	c=$(measure "$runs" "${SCRIPT[@]}" -i "$data" --dlfilter "$FILTER")
	printf 'pt %d MB (%.1f MB perf.data; load average before: %s):\n' "$mb" \
		"$(awk -v s="$(stat -c %s "$data")" 'BEGIN { print s / 1e6 }')" "$(cut -d' ' -f1-3 /proc/loadavg)"
	awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { split(a, A, " "); split(b, B, " "); split(c, C, " ")
		printf "  (a) perf script text to /dev/null:            CPU %6.2f s, wall %6.2f s, peak RSS %6.1f MiB\n", A[1], A[2], A[3] / 1024
		printf "  (b) same, same-symbol dlfilter (magic-trace): CPU %6.2f s, wall %6.2f s = %.3f x (a)\n", B[1], B[2], B[1] / A[1]
		printf "  (c) perf script, snaptrace'"'"'s dlfilter:          CPU %6.2f s, wall %6.2f s = %.3f x (a)\n", C[1], C[2], C[1] / A[1] }'
	# name|options
	while IFS='|' read -r name opts; do
		[ "$name" = text ] && [ "$mb" -ge 64 ] && continue
		# shellcheck disable=SC2086
		row=$(measure "$runs" "$CONVERT" --quiet $opts "$data" -o "$DIR/out.fxt.gz")
		# shellcheck disable=SC2086
		"$CONVERT" --quiet $opts "$data" -o "$DIR/$name.fxt" 2>"$DIR/err" ||
			die "conversion failed: $opts: $(head -n 2 "$DIR/err")"
		echo "$row" >"$DIR/row-$name"
		awk -v r="$row" -v a="$a" -v b="$b" -v what="snaptrace-convert $opts" -v base="$(cat "$DIR/row-${name%2}1" 2>/dev/null)" '
		BEGIN { split(r, R, " "); split(a, A, " "); split(b, B, " "); split(base, J, " ")
			printf "  %-44s CPU %6.2f s, wall %6.2f s = %.3f x (a), %.3f x (b) CPU; peak RSS %6.1f MiB", what ":", R[1], R[2], R[1] / A[1], R[1] / B[1], R[3] / 1024
			if (base != "" && what ~ /-j 2/) printf "; %.2f x faster than -j 1 in wall time", J[2] / R[2]
			printf "\n" }'
	done <<EOF
builtin1|-j 1
builtin2|-j 2
perf1|--decoder=perf -j 1
perf2|--decoder=perf -j 2
text|--no-dlfilter
EOF
	same "$mb" builtin1 builtin2
	same "$mb" builtin1 perf1
	same "$mb" builtin1 perf2
	[ "$mb" -ge 64 ] || same "$mb" builtin1 text
	"$CONVERT" --dump=slices "$DIR/builtin1.fxt" >"$DIR/slices" 2>"$DIR/dump.err" && [ ! -s "$DIR/dump.err" ] ||
		die "$mb MB: the trace does not read back cleanly: $(head -n 2 "$DIR/dump.err")"
	echo "  $(wc -l <"$DIR/slices") slices, the same bytes from every decoder and -j"
	for j in 1 2; do cut -d' ' -f3 "$DIR/row-builtin$j" >"$DIR/rss$j-$mb"; done
	rm -f "$DIR"/*.fxt "$DIR"/row-*
}

sizes=${BENCH_PT_MB:-1 4 64}
for mb in $sizes; do
	report "$mb" "$(make_data "$mb")"
	rm -f "$DIR/pt-${mb}mb.data"
done
awk -v sizes="$sizes" -v dir="$DIR" 'BEGIN {
	n = split(sizes, S, " ")
	for (j = 1; j <= 2; j++) {
		line = "peak RSS of the in-process decoder, -j " j ":"
		for (i = 1; i <= n; i++) {
			f = dir "/rss" j "-" S[i]; getline r < f; R[i] = r
			line = line sprintf(" %s MB %.1f MiB", S[i], r / 1024)
		}
		printf "%s (ratio %.2f; goal: flat)\n", line, R[n] / R[1]
	}
	printf "goals: -j 1 end to end <= 0.15 x (a) CPU; -j 2 >= 1.6 x faster than -j 1 in wall time on 2 quiet cores\n"
}'
