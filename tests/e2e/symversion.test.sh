#!/usr/bin/env bash
# tier: check
# A function is found by the name a user types, with or without perf's
# symbol version (issue 24, trial 14: `--filter clock_nanosleep,...` kept
# nothing, the trace names it "clock_nanosleep@GLIBC_2.2.5"). One rule
# (common/demangle.c symbol_version_matches()) for every entry point; the
# recorder's --trigger and --measure are checked by dryrun. A text snapshot
# of a thread sleeping in clock_nanosleep@GLIBC_2.2.5 twice, reading the
# clock in clock_gettime@@GLIBC_2.17 between, and calling its PLT stub
# clock_gettime@plt; each row the slices or stats rows a name selects:
#   symversion-filter    the converter's --filter START,STOP
#   symversion-function  stats --function
. "$(dirname "$0")/../lib.sh"

NAMES="symversion-filter symversion-function"
STATS="$SNAPTRACE_BIN/snaptrace-stats"
need_built symversion-filter "$CONVERT" "$STATS"

LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6 BIN=/opt/app/prog
# sample TIME FRAME...: one sample of thread 600 with its call chain
sample() {
	local t=$1 f
	shift
	printf '             prog   600/600      %s:     100000 cpu-clock:u: \n' "$t"
	for f; do printf '\t%s\n' "$f"; done
	printf '\t401020 main+0x20 (%s)\n\t7f00000271ca __libc_start_call_main+0x7a (%s)\n\n' "$BIN" "$LIBC"
}
NS="7f00000e1010 clock_nanosleep@GLIBC_2.2.5+0x10 ($LIBC)"
GT="7f0000001010 clock_gettime@@GLIBC_2.17+0x10 ($LIBC)"
PLT="401104 clock_gettime@plt+0x4 ($BIN)"
{
	sample 30.000100000 "$NS"
	sample 30.000200000 "$NS"
	sample 30.000300000 "$PLT"
	sample 30.000400000 "$GT"
	sample 30.000500000 "401030 main+0x30 ($BIN)"
	sample 30.000600000 "$NS"
	sample 30.000700000 "401030 main+0x30 ($BIN)"
} >"$TMP/v.txt"

# names FXT: "COUNT NAME|" of FXT's slices of clock functions
names() {
	"$CONVERT" --dump=tree "$1" | grep -o 'clock_[a-z]*@[^ ]*' | sort | uniq -c |
		awk '{ print $1, $2 }' | tr '\n' '|'
}
# FILTER|KEPT: from each clock_nanosleep to the next clock_gettime (its PLT
# stub before it is not it), then from the second clock_nanosleep on
NS2="1 clock_gettime@plt|2 clock_nanosleep@GLIBC_2.2.5|"
verdict symversion-filter "$(filter_kept "$TMP/v.txt" names \
	"clock_nanosleep,clock_gettime|$NS2" \
	"clock_nanosleep@GLIBC_2.2.5,clock_gettime|$NS2" \
	"clock_nanosleep,clock_gettime@@GLIBC_2.17|$NS2" \
	"clock_nanosleep@GLIBC_2.17,clock_gettime|" \
	"clock_gettime,clock_nanosleep|1 clock_gettime@@GLIBC_2.17|" \
	"clock_gettime@plt,clock_nanosleep|1 clock_gettime@@GLIBC_2.17|1 clock_gettime@plt|")"

why=
if ! "$CONVERT" --quiet "$TMP/v.txt" -o "$TMP/v.fxt" 2>"$TMP/v.err"; then
	why="conversion failed: $(first_lines "$TMP/v.err")"
fi
# NAME|ROW: the function stats --function NAME shows (none: exit 1)
while [ -z "$why" ] && IFS='|' read -r name want; do
	got=$("$STATS" --format csv --function "$name" "$TMP/v.fxt" 2>/dev/null | sed -n '2s/,.*//p')
	[ "$got" = "$want" ] || why="$why --function $name: '$got', expected '$want';"
done <<'EOF'
clock_nanosleep|clock_nanosleep@GLIBC_2.2.5
clock_nanosleep@GLIBC_2.2.5|clock_nanosleep@GLIBC_2.2.5
clock_nanosleep@GLIBC_2.17|
clock_gettime|clock_gettime@@GLIBC_2.17
clock_gettime@plt|clock_gettime@plt
EOF
verdict symversion-function "$why"
