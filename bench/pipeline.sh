#!/usr/bin/env bash
# The whole pipeline's benchmark (`make bench`, after bench/bench.sh):
# perf.data -> trace.fxt.gz on synthesized Intel PT of about 1 MB and 4 MB of
# AUX data, made here by the Intel PT generator of the tests (ptsynth
# --repeat on tests/ptsynth/progs/bench.c, two threads; a TSC packet every
# 64 instructions, not ptsynth's default 8, so that, as in recorded PT, most
# bytes are branches rather than timing packets; a PSB+ every 16 KiB, perf's
# default psb_period; the repeat count is scaled from a probe), under
# O/bench-pt/ (removed at the end unless KEEP=1).
# Prints, in one run, the CPU time (user + sys, perf included: it is the
# converter's child; best of 3) of:
#   (a) perf script with the converter's own command line (what
#       `snaptrace-convert --print-perf-command` prints) writing text to
#       /dev/null (the floor of any text pipeline, magic-trace's included),
#   (b) the same with a same-symbol dlfilter like magic-trace's
#       (bench/mt_dlfilter.c),
#   snaptrace-convert end to end (dlfilter) with -j 1 and -j 2, and through
#   text (--no-dlfilter),
#   (c) perf script with snaptrace's dlfilter alone (its records to
#       /dev/null): the perf side of the end-to-end run; the rest of that
#       run's CPU is the converter's own,
# as ratios to (a) and (b), the wall time and -j 2's speed-up over -j 1 in
# wall time (best of 3 each), the most -j 2 can gain on this machine's CPUs
# (from CPU times alone, which load does not inflate as it does wall
# times: -j 1 overlaps perf's and the converter's CPU, so its wall is at
# least the larger; -j 2 at best spreads their sum over the CPUs), and the
# converter's peak RSS at 1 MB and 4 MB.
# The dlfilter's trace must equal the text path's, and -j 2's -j 1's, byte
# for byte, and read back cleanly.
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

# measure CMD...: runs CMD (stdout to /dev/null) three times; prints
# "CPU_SECONDS WALL_SECONDS PEAK_RSS_KIB": the least CPU time, the least
# wall time (each of its own run: the machine is shared), the peak RSS of
# the run of least CPU.
measure() {
	local i u s e m best=
	for i in 1 2 3; do
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

report() {
	local mb=$1 data=$2 a b c fast fast2 text
	a=$(measure "${SCRIPT[@]}" -i "$data")
	b=$(measure "${SCRIPT[@]}" -i "$data" --dlfilter "$MT")
	c=$(measure "${SCRIPT[@]}" -i "$data" --dlfilter "$FILTER")
	fast=$(measure "$CONVERT" --quiet -j 1 "$data" -o "$DIR/fast.fxt.gz")
	fast2=$(measure "$CONVERT" --quiet -j 2 "$data" -o "$DIR/fast2.fxt.gz")
	text=$(measure "$CONVERT" --quiet --no-dlfilter "$data" -o "$DIR/text.fxt.gz")
	"$CONVERT" --quiet -j 1 "$data" -o "$DIR/fast.fxt" || die "conversion failed"
	"$CONVERT" --quiet -j 2 "$data" -o "$DIR/fast2.fxt" || die "conversion failed"
	"$CONVERT" --quiet --no-dlfilter "$data" -o "$DIR/text.fxt" || die "conversion failed"
	cmp -s "$DIR/fast.fxt" "$DIR/text.fxt" || die "$mb MB: the dlfilter's trace differs from the text path's"
	cmp -s "$DIR/fast.fxt" "$DIR/fast2.fxt" || die "$mb MB: -j 2's trace differs from -j 1's"
	"$CONVERT" --dump=slices "$DIR/fast.fxt" >"$DIR/slices" 2>"$DIR/dump.err" && [ ! -s "$DIR/dump.err" ] ||
		die "$mb MB: the trace does not read back cleanly: $(head -n 2 "$DIR/dump.err")"
	awk -v mb="$mb" -v size="$(stat -c %s "$data")" -v a="$a" -v b="$b" -v c="$c" -v f="$fast" -v ncpu="$NCPU" \
	    -v f2="$fast2" -v t="$text" -v slices="$(wc -l <"$DIR/slices")" '
	BEGIN {
		split(a, A, " "); split(b, B, " "); split(c, C, " "); split(f, F, " "); split(f2, G, " "); split(t, T, " ")
		printf "pt %d MB (%.1f MB perf.data, %d slices):\n", mb, size / 1e6, slices
		printf "  (a) perf script text to /dev/null:      CPU %6.2f s, wall %6.2f s\n", A[1], A[2]
		printf "  (b) same, same-symbol dlfilter:         CPU %6.2f s, wall %6.2f s\n", B[1], B[2]
		printf "  snaptrace-convert (dlfilter), -j 1:     CPU %6.2f s, wall %6.2f s = %.2f x (a), %.2f x (b) CPU; peak RSS %.1f MiB\n",
			F[1], F[2], F[1] / A[1], F[1] / B[1], F[3] / 1024
		printf "  snaptrace-convert (dlfilter), -j 2:     CPU %6.2f s, wall %6.2f s = %.2f x faster than -j 1 in wall time; peak RSS %.1f MiB\n",
			G[1], G[2], F[2] / G[2], G[3] / 1024
		printf "  snaptrace-convert --no-dlfilter:        CPU %6.2f s, wall %6.2f s = %.2f x (a) CPU; peak RSS %.1f MiB\n",
			T[1], T[2], T[1] / A[1], T[3] / 1024
		own = F[1] > C[1] ? F[1] - C[1] : 0
		printf "  (c) perf script, snaptrace'"'"'s dlfilter:    CPU %6.2f s (the perf side of -j 1); the converter'"'"'s own CPU %.2f s\n",
			C[1], own
		m = C[1] > own ? C[1] : own
		printf "  -j 2 at most %.2f x faster than -j 1 on %d CPUs: -j 1 runs (c) and the converter side by side (wall >= %.2f s), -j 2 at best spreads both over the CPUs (wall >= %.2f s)\n",
			m / (F[1] / ncpu), ncpu, m, F[1] / ncpu
	}'
	echo "$fast" >"$DIR/rss-$mb"
}

d1=$(make_data 1)
d4=$(make_data 4)
report 1 "$d1"
report 4 "$d4"
r1=$(cut -d' ' -f3 "$DIR/rss-1")
r4=$(cut -d' ' -f3 "$DIR/rss-4")
awk -v r1="$r1" -v r4="$r4" 'BEGIN {
	printf "peak RSS 1 MB %.1f MiB, 4 MB %.1f MiB (ratio %.2f; goal: flat)\n", r1 / 1024, r4 / 1024, r4 / r1
	printf "goals: -j 1 end to end <= 0.30 x (a) CPU (stretch 0.25); -j 2 >= 1.6 x faster than -j 1 in wall time\n"
}'
