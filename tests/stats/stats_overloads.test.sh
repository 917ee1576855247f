#!/usr/bin/env bash
# tier: check
# C++ overloads are never one function (issue 24, trial 13: a recording that
# measured app::load(int) of a program that also calls app::load(double)
# gave one "app::load" row of both, and load(int)'s measured calls under
# `stats --function 'app::load(double)'`). perf names both frames
# "app::load"; the converter names each overload by its parameter list
# (the binary's symbols), its sampled frames and its measured calls alike.
# A recording directory written by hand (a text snapshot whose frames are
# in a C++ binary built here, record.json measuring app::load(int), its
# calls file), so every slice is known:
#   overload-slices   the trace has app::load(int) (the 2 measured calls, one
#                     with its sampled frame inside) and app::load(double)
#                     (one slice of 2 samples), no "app::load"
#   overload-function --function 'app::load(double)' shows its slices only
#                     and no measured run; 'app::load(int)' its measured
#                     calls and their whole run (2 calls); the mangled name
#                     selects the same function as its signature
#   overload-bare     --function app::load: exit 1 naming both overloads
#   overload-no-srcline  --no-srcline names them the same way
#   overload-filter   the converter's --filter takes an overload by its
#                     signature (that one alone), or by perf's name (all)
#   overload-unknown  a frame whose symbol's start is not known (no symoff)
#                     is "app::load(?)": no overload by guess
#   overload-template a measured template function has perf's name
#                     ("tsq<int>", no return type) whether or not a sample
#                     falls in its call, even when record.json's name has the
#                     return type (the recorder's before issue 24's fix):
#                     --function 'tsq<int>' finds both calls
. "$(dirname "$0")/../lib.sh"

NAMES="overload-slices overload-function overload-bare overload-no-srcline overload-filter overload-unknown
	overload-template"
STATS="$SNAPTRACE_BIN/snaptrace-stats"
need_built overload-slices "$CONVERT" "$STATS"
requires_all cxx binutils

BIN="$TMP/ovl"
cat >"$TMP/ovl.cc" <<'EOF'
namespace app {
__attribute__((noinline)) int load(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
__attribute__((noinline)) double load(double x) { volatile double s = 0; for (int i = 0; i < 9; i++) s += x; return s; }
}
template<class T> __attribute__((noinline)) T tsq(T x) { volatile T s = 0; for (int i = 0; i < 9; i++) s += x * x; return s; }
int main(int argc, char **) { return app::load(argc) + (int)app::load(argc * 1.5) + tsq(argc) + (int)tsq(argc * 0.5); }
EOF
if ! g++ -O1 -g -fno-omit-frame-pointer -o "$BIN" "$TMP/ovl.cc" 2>"$TMP/cc.err"; then
	for n in $NAMES; do fail "$n" "cannot build ovl.cc: $(first_lines "$TMP/cc.err")"; done
	exit 0
fi
# addr SYMBOL: its address in the binary, hex without 0x
addr() { nm "$BIN" | awk -v s="$1" '$3 == s { sub(/^0+/, "", $1); print $1 }'; }
I=$(addr _ZN3app4loadEi) D=$(addr _ZN3app4loadEd) M=$(addr main)
hex() { printf '%x' $((0x$1 + $2)); }

D_REC="$TMP/rec"
mkdir -p "$D_REC"
# sample TIME FRAME...: one sample of thread 500 with its call chain
sample() {
	local t=$1 f
	shift
	printf '             ovl   500/500      %s:     100000 cpu-clock:u: \n' "$t"
	for f; do printf '\t%s\n' "$f"; done
	printf '\t7f00000271ca __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n'
}
{
	sample 20.000100000 "$(hex "$D" 8) app::load+0x8 ($BIN)" "$(hex "$M" 32) main+0x20 ($BIN)"
	sample 20.000200000 "$(hex "$D" 8) app::load+0x8 ($BIN)" "$(hex "$M" 32) main+0x20 ($BIN)"
	sample 20.000300000 "$(hex "$M" 32) main+0x20 ($BIN)"
	sample 20.000400000 "$(hex "$I" 4) app::load+0x4 ($BIN)" "$(hex "$M" 16) main+0x10 ($BIN)"
	sample 20.000500000 "$(hex "$M" 32) main+0x20 ($BIN)"
	sample 20.000800000 "$(hex "$M" 32) main+0x20 ($BIN)"
} >"$D_REC/perf.data.1"
cat >"$D_REC/measured-calls.txt" <<EOF
# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]
0 500 500 20000350000 20000450000 ?
0 500 500 20000600000 20000700000 ?
EOF
cat >"$D_REC/record.json" <<EOF
{
  "format": "snaptrace-record 1",
  "pids": [500],
  "threads": [{"pid": 500, "tid": 500, "comm": "ovl"}],
  "trigger": null,
  "measure": [
    {"spec": "app::load(int)", "symbol": "_ZN3app4loadEi", "name": "app::load", "file": "$BIN", "vaddr": $((0x$I)), "file_offset": $((0x$I)), "calls": 2, "total_ns": 200000, "min_ns": 100000, "p50_ns": 100000, "p90_ns": 100000, "p99_ns": 100000, "max_ns": 100000,
     "histogram": [[65536, 131072, 2]],
     "slowest": [], "returns_unmatched": 0, "entries_untracked": 0, "first_second_calls": 2, "cost_ns": 30000, "calls_file": "measured-calls.txt", "calls_written": 2, "calls_dropped": 0}
  ],
  "hits": [],
  "hits_total": 0, "hits_coalesced": 0, "hits_lost": 0,
  "snapshots": [
    {"file": "perf.data.1", "reason": "exit", "time_ns": 20001000000, "freeze_ms": 1.0, "ms": 2.0}
  ],
  "end": "exit", "end_ns": 20001000000
}
EOF

T="$TMP/ovl.fxt"
# names FXT: "COUNT NAME" of the slices named app::load...
names() {
	"$CONVERT" --dump=tree "$1" | grep -o 'app::load[^ ]*' | sort | uniq -c | awk '{ print $1, $2 }' |
		tr '\n' ' '
}
want="1 app::load(double) 2 app::load(int) "
if ! "$CONVERT" --quiet "$D_REC" -o "$T" 2>"$T.err"; then
	fail overload-slices "conversion failed: $(first_lines "$T.err")"
else
	got=$(names "$T")
	verdict overload-slices "$([ "$got" = "$want" ] || echo "slices '$got', expected '$want'")"
fi

# function NAME [FXT]: stats --function NAME (of FXT, $T by default)'s output (and its errors) in $TMP/f.out
function_out() { "$STATS" --function "$1" "${2:-$T}" >"$TMP/f.out" 2>&1; }
why=
if ! function_out 'app::load(double)'; then
	why="app::load(double): $(first_lines "$TMP/f.out")"
elif grep -q 'app::load(int)\|whole recording' "$TMP/f.out" ||
     ! grep -q '(1 slice,' "$TMP/f.out" || ! grep -q '^longest 1 slice ' "$TMP/f.out"; then
	why="app::load(double) shows another function's or no slices: $(tr '\n' '|' <"$TMP/f.out")"
elif ! function_out 'app::load(int)' || ! grep -q 'app::load(int) in the whole recording' "$TMP/f.out" ||
     ! grep -q '(2 calls' "$TMP/f.out" || grep -q 'double' "$TMP/f.out"; then
	why="app::load(int): $(tr '\n' '|' <"$TMP/f.out")"
else
	cp "$TMP/f.out" "$TMP/int.out"
	function_out _ZN3app4loadEi
	cmp -s "$TMP/f.out" "$TMP/int.out" ||
		why="_ZN3app4loadEi differs from app::load(int): $(diff "$TMP/int.out" "$TMP/f.out" | tr '\n' '|')"
fi
verdict overload-function "$why"

function_out app::load
rc=$?
verdict overload-bare "$([ $rc = 1 ] && grep -q '"app::load(int)"' "$TMP/f.out" &&
	grep -q '"app::load(double)"' "$TMP/f.out" || echo "exit $rc: $(first_lines "$TMP/f.out")")"

if ! "$CONVERT" --quiet --no-srcline "$D_REC" -o "$TMP/ovl2.fxt" 2>"$TMP/ovl2.err"; then
	fail overload-no-srcline "conversion failed: $(first_lines "$TMP/ovl2.err")"
else
	got=$(names "$TMP/ovl2.fxt")
	verdict overload-no-srcline "$([ "$got" = "$want" ] || echo "slices '$got', expected '$want'")"
fi

# FILTER|SLICES: the app::load slices --filter FILTER keeps
verdict overload-filter "$(filter_kept "$D_REC" names 'app::load(int),app::load(double)|2 app::load(int) ' \
	'app::load(double),app::load(int)|1 app::load(double) ' \
	'app::load,main|1 app::load(double) 2 app::load(int) ')"

mkdir -p "$TMP/unk"
cp "$D_REC/record.json" "$D_REC/measured-calls.txt" "$TMP/unk/"
sed 's/ app::load+0x8 (/ app::load (/' "$D_REC/perf.data.1" >"$TMP/unk/perf.data.1"
if ! "$CONVERT" --quiet "$TMP/unk" -o "$TMP/unk.fxt" 2>"$TMP/unk.err"; then
	fail overload-unknown "conversion failed: $(first_lines "$TMP/unk.err")"
else
	got=$(names "$TMP/unk.fxt")
	verdict overload-unknown "$([ "$got" = "1 app::load(?) 2 app::load(int) " ] ||
		echo "slices '$got', expected '1 app::load(?) 2 app::load(int) '")"
fi

# a template function instantiated twice, tsq<int> measured (record.json
# written by the recorder before issue 24's fix: its name "int tsq<int>")
TI=$(addr _Z3tsqIiET_S0_) TD=$(addr _Z3tsqIdET_S0_)
mkdir -p "$TMP/tpl"
# the same samples, in tsq<double> and tsq<int> where they were in app::load
sed -e "s/^\t$(hex "$D" 8) app::load+/\t$(hex "$TD" 8) tsq<double>+/" \
	-e "s/^\t$(hex "$I" 4) app::load+/\t$(hex "$TI" 4) tsq<int>+/" \
	"$D_REC/perf.data.1" >"$TMP/tpl/perf.data.1"
cp "$D_REC/measured-calls.txt" "$TMP/tpl/"
sed -e 's/"spec": "app::load(int)"/"spec": "int tsq<int>"/' -e 's/"_ZN3app4loadEi"/"_Z3tsqIiET_S0_"/' \
	-e 's/"name": "app::load"/"name": "int tsq<int>"/' -e "s/: $((0x$I)),/: $((0x$TI)),/g" \
	"$D_REC/record.json" >"$TMP/tpl/record.json"
why=
if [ -z "$TI" ] || [ -z "$TD" ]; then
	why="no _Z3tsqIiET_S0_ or _Z3tsqIdET_S0_ in the binary: $(nm "$BIN" | grep tsq | tr '\n' '|')"
elif [ "$(grep -c 'tsq<' "$TMP/tpl/perf.data.1")" != 3 ]; then
	why="the snapshot's samples are not in tsq: $(grep 'tsq<' "$TMP/tpl/perf.data.1" | tr '\n' '|')"
elif ! "$CONVERT" --quiet "$TMP/tpl" -o "$TMP/tpl.fxt" 2>"$TMP/tpl.err"; then
	why="conversion failed: $(first_lines "$TMP/tpl.err")"
else
	got=$("$CONVERT" --dump=tree "$TMP/tpl.fxt" | grep -o '[a-z]* *tsq<[^ ]*' | sort | uniq -c |
		awk '{ $1 = $1; print }' | tr '\n' '|')
	if [ "$got" != "1 tsq<double>|2 tsq<int>|" ]; then
		why="slices '$got', expected '1 tsq<double>|2 tsq<int>|'"
	elif ! function_out 'tsq<int>' "$TMP/tpl.fxt" || ! grep -q 'tsq<int> in the whole recording' "$TMP/f.out" ||
	     ! grep -q '(2 calls' "$TMP/f.out"; then
		why="--function 'tsq<int>': $(tr '\n' '|' <"$TMP/f.out")"
	fi
fi
verdict overload-template "$why"
