#!/usr/bin/env bash
# tier: check
# Rust functions perf names alike are never one function (issue 24, trial
# 14: a Rust program's generic `fn crunch<T>` used at u32 and u64 gave one
# "main::crunch" slice name and one stats row, and `stats --function
# main::crunch::h<hash>` showed both). perf prints Rust names without their
# hash; the converter names each instance by the symbol at the frame's
# address, with its hash where the binary has several of that name (the
# mechanism of C++ overloads: stats_overloads), perf's name elsewhere.
# Text snapshots written by hand, whose frames are in binaries built here:
#   instances-slices    a C binary whose functions carry Rust symbol names
#                       (asm labels): two legacy instances of main::crunch,
#                       a v0 mycrate::f of two crates, a lone main::solo:
#                       slices named by hash, main::solo without one
#   instances-function  stats --function takes an instance by its hash or
#                       mangled symbol (that one alone), perf's name of two
#                       (exit 1 naming both), a lone one's hashed name
#   instances-filter    the converter's --filter takes perf's name (all
#                       instances) or one by its hash
#   instances-static    C static functions of one name in two files and a
#                       global one of that name: slices "helper [a.c]",
#                       "helper [b.c]", "helper [global]"; stats --function
#                       takes one so named, and helper names all three
#   instances-static-paths  C static functions of one name in two files of
#                       one name (a/util.c, b/util.c): "helper [a/util.c]",
#                       "helper [b/util.c]" (the shortest path suffix that
#                       tells them apart); without a line table each with its
#                       address
#   instances-rustc     a real Rust program (rustc, legacy mangling): its
#                       two instances of crunch<T> are two functions
. "$(dirname "$0")/../lib.sh"

NAMES="instances-slices instances-function instances-filter instances-static instances-static-paths instances-rustc"
STATS="$SNAPTRACE_BIN/snaptrace-stats"
need_built instances-slices "$CONVERT" "$STATS"
requires_all cc binutils

H1=0123456789abcdef H2=fedcba9876543210 H3=00000000deadbeef
BIN="$TMP/inst"
cat >"$TMP/inst.c" <<EOF
#define F(c, sym) __attribute__((noinline)) int c(int n) __asm__(sym); \\
	int c(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
F(crunch_u32, "_ZN4main6crunch17h${H1}E")
F(crunch_u64, "_ZN4main6crunch17h${H2}E")
F(solo, "_ZN4main4solo17h${H3}E")
F(f_a, "_RNvCs1234_7mycrate1f")
F(f_b, "_RNvCs5678_7mycrate1f")
int main(int argc, char **argv) { (void)argv; return crunch_u32(argc) + crunch_u64(argc) + solo(argc) + f_a(argc) + f_b(argc); }
EOF
if ! cc -O1 -fno-omit-frame-pointer -o "$BIN" "$TMP/inst.c" 2>"$TMP/cc.err"; then
	for n in $NAMES; do fail "$n" "cannot build inst.c: $(first_lines "$TMP/cc.err")"; done
	exit 0
fi
# addr BINARY SYMBOL: its address in BINARY, hex without 0x
addr() { nm "$1" | awk -v s="$2" '$3 == s { sub(/^0+/, "", $1); print $1 }'; }
hex() { printf '%x' $((0x$1 + $2)); }
# snapshot BINARY PERFNAME=SYMBOL...: a text snapshot (stdout) of thread 500,
# two samples in each function (perf's name; SYMBOL, or @ADDRESS in hex),
# called from main
snapshot() {
	local bin=$1 f m a t=1
	m=$(addr "$bin" main)
	shift
	for f; do
		a=${f#*=}
		case $a in @*) a=${a#@} ;; *) a=$(addr "$bin" "$a") ;; esac
		for off in 4 8; do
			printf '            inst   500/500      20.00%04d000:     100000 cpu-clock:u: \n' $t
			printf '\t%s %s+0x%x (%s)\n' "$(hex "$a" $off)" "${f%%=*}" $off "$bin"
			printf '\t%s main+0x10 (%s)\n%s\n' "$(hex "$m" 16)" "$bin" "$ROOT"
			t=$((t + 1))
		done
		printf '            inst   500/500      20.00%04d000:     100000 cpu-clock:u: \n' $t
		printf '\t%s main+0x20 (%s)\n%s\n' "$(hex "$m" 32)" "$bin" "$ROOT"
		t=$((t + 1))
	done
}
ROOT=$(printf '\t7f00000271ca __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n')
# names FXT REGEX: "COUNT NAME|" of FXT's slices whose names match REGEX
names() {
	"$CONVERT" --dump=tree "$1" | grep -o "$2" | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' '|'
}
snapshot "$BIN" "main::crunch=_ZN4main6crunch17h${H1}E" "main::crunch=_ZN4main6crunch17h${H2}E" \
	"main::solo=_ZN4main4solo17h${H3}E" "mycrate::f=_RNvCs1234_7mycrate1f" \
	"mycrate::f=_RNvCs5678_7mycrate1f" >"$TMP/inst.txt"
T="$TMP/inst.fxt"
RE='main::[a-z]*[^ ]*\|mycrate[^ ]*'
want="1 main::crunch::h$H1|1 main::crunch::h$H2|1 main::solo|1 mycrate[128aac]::f|1 mycrate[3c1c0]::f|"
if ! "$CONVERT" --quiet "$TMP/inst.txt" -o "$T" 2>"$T.err"; then
	fail instances-slices "conversion failed: $(first_lines "$T.err")"
else
	got=$(names "$T" "$RE")
	verdict instances-slices "$([ "$got" = "$want" ] || echo "slices '$got', expected '$want'")"
fi

# stats NAME: stats --function NAME of $T into $TMP/f.out, its exit status in $rc
stats_of() {
	"$STATS" --function "$1" "$T" >"$TMP/f.out" 2>&1
	rc=$?
}
why=
for c in "main::crunch::h$H1|main::crunch::h$H1 " "_ZN4main6crunch17h${H2}E|main::crunch::h$H2 " \
	"mycrate[3c1c0]::f|mycrate[3c1c0]::f " "main::solo::h$H3|main::solo " "main::solo|main::solo "; do
	stats_of "${c%|*}"
	got=$(grep -o "^ .*  \($RE\) " "$TMP/f.out" | grep -o "$RE" | sort -u | tr '\n' ' ')
	[ $rc = 0 ] && [ "$got" = "${c#*|}" ] ||
		why="$why --function ${c%|*}: exit $rc, functions '$got', expected '${c#*|}';"
done
for c in main::crunch mycrate::f; do
	stats_of "$c"
	[ $rc = 1 ] && grep -q 'names several functions' "$TMP/f.out" ||
		why="$why --function $c: exit $rc: $(first_lines "$TMP/f.out");"
done
verdict instances-function "$why"

# FILTER|SLICES: the main::crunch slices --filter FILTER keeps
crunch_names() { names "$1" 'main::crunch[^ ]*'; }
verdict instances-filter "$(filter_kept "$TMP/inst.txt" crunch_names \
	"main::crunch,main|1 main::crunch::h$H1|1 main::crunch::h$H2|" \
	"main::crunch::h$H2,main|1 main::crunch::h$H2|")"

# helper: static in a.c and b.c, global in c.c
for f in a b c; do
	printf '%s __attribute__((noinline)) int helper(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\nint %s(int n) { return helper(n); }\n' \
		"$([ $f = c ] || echo static)" "call_$f" >"$TMP/$f.c"
done
printf 'int call_a(int), call_b(int), call_c(int);\nint main(int argc, char **argv) { (void)argv; return call_a(argc) + call_b(argc) + call_c(argc); }\n' \
	>"$TMP/m.c"
CBIN="$TMP/cst"
mapfile -t at < <(cc -O1 -fno-omit-frame-pointer -o "$CBIN" "$TMP/m.c" "$TMP/a.c" "$TMP/b.c" "$TMP/c.c" \
	2>"$TMP/cc.err" && nm "$CBIN" | awk '$3 == "helper" { print $1 }' | sed 's/^0*//')
why=
if [ ${#at[@]} != 3 ]; then
	why="expected 3 helper symbols in cst: $(first_lines "$TMP/cc.err") $(nm "$CBIN" 2>&1 | grep helper | tr '\n' '|')"
else
	snapshot "$CBIN" "helper=@${at[0]}" "helper=@${at[1]}" "helper=@${at[2]}" >"$TMP/cst.txt"
	T="$TMP/cst.fxt"
	want="1 helper [a.c]|1 helper [b.c]|1 helper [global]|"
	if ! "$CONVERT" --quiet "$TMP/cst.txt" -o "$T" 2>"$T.err"; then
		why="conversion failed: $(first_lines "$T.err")"
	elif got=$("$CONVERT" --dump=tree "$T" | grep -o 'helper[^]]*]' | sort | uniq -c |
		   sed 's/^ *//' | tr '\n' '|') && [ "$got" != "$want" ]; then
		why="slices '$got', expected '$want'"
	elif ! stats_of 'helper [b.c]' || [ $rc != 0 ] ||
	     [ "$(grep -c '  helper \[' "$TMP/f.out")" != 1 ] || ! grep -q '  helper \[b.c\]' "$TMP/f.out"; then
		why="--function 'helper [b.c]': exit $rc: $(tr '\n' '|' <"$TMP/f.out")"
	elif stats_of helper; [ $rc != 1 ] || ! grep -q '"helper \[a.c\]".*"helper \[global\]"\|"helper \[global\]".*"helper \[a.c\]"' "$TMP/f.out"; then
		why="--function helper: exit $rc: $(first_lines "$TMP/f.out")"
	fi
fi
verdict instances-static "$why"

# helper: static in a/util.c and in b/util.c (one STT_FILE name, util.c):
# the shortest suffix of their paths in the line table tells them apart,
# "helper [a/util.c]" and "helper [b/util.c]" (issue 24: both were "helper
# [util.c]"); built without -g nothing does, and each keeps its address
mkdir -p "$TMP/pa/a" "$TMP/pa/b"
for f in a b; do
	printf 'static __attribute__((noinline)) int helper(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\nint call_%s(int n) { return helper(n); }\n' \
		"$f" >"$TMP/pa/$f/util.c"
done
printf 'int call_a(int), call_b(int);\nint main(int argc, char **argv) { (void)argv; return call_a(argc) + call_b(argc); }\n' \
	>"$TMP/pa/m.c"
why=
for g in -g -g0; do
	PBIN="$TMP/pa/bin$g"
	mapfile -t at < <(cd "$TMP/pa" && cc -O1 $g -fno-omit-frame-pointer -o "$PBIN" m.c a/util.c b/util.c \
		2>"$TMP/cc.err" && nm -n "$PBIN" | awk '$3 == "helper" { print $1 }' | sed 's/^0*//')
	if [ ${#at[@]} != 2 ]; then
		why+=" [$g: expected 2 helper symbols: $(first_lines "$TMP/cc.err")]"
		continue
	fi
	if [ $g = -g ]; then want="1 helper [a/util.c]|1 helper [b/util.c]|"
	else want=$(printf '1 helper [util.c 0x%s]\n' "${at[@]}" | sort | tr '\n' '|'); fi
	snapshot "$PBIN" "helper=@${at[0]}" "helper=@${at[1]}" >"$TMP/pa$g.txt"
	if ! "$CONVERT" --quiet "$TMP/pa$g.txt" -o "$TMP/pa$g.fxt" 2>"$TMP/pa$g.err"; then
		why+=" [$g: conversion failed: $(first_lines "$TMP/pa$g.err")]"
	elif got=$("$CONVERT" --dump=tree "$TMP/pa$g.fxt" | grep -o 'helper [[][^]]*]' | sort | uniq -c |
		   sed 's/^ *//' | tr '\n' '|') && [ "$got" != "$want" ]; then
		why+=" [$g: slices '$got', expected '$want']"
	fi
done
verdict instances-static-paths "$why"

requires instances-rustc rustc || exit 0
cat >"$TMP/crunch.rs" <<'EOF'
#[inline(never)]
fn crunch<T: Copy + std::ops::Add<Output = T> + From<u8>>(x: T, n: u32) -> T {
    let mut s = x;
    for _ in 0..n { s = std::hint::black_box(s + T::from(1u8)); }
    s
}
fn main() { println!("{} {}", crunch(1u32, 9), crunch(1u64, 9)); }
EOF
RBIN="$TMP/crunch"
if ! "$(rustc_cmd)" -O -C force-frame-pointers=yes \
	-o "$RBIN" "$TMP/crunch.rs" >"$TMP/rustc.err" 2>&1; then
	fail instances-rustc "rustc failed: $(first_lines "$TMP/rustc.err")"
	exit 0
fi
mapfile -t syms < <(nm "$RBIN" | awk '$3 ~ /^_ZN[0-9]+crunch6crunch17h[0-9a-f]+E$/ { print $3 }')
why=
if [ ${#syms[@]} != 2 ]; then
	why="expected 2 instances of crunch in the binary: $(nm "$RBIN" | grep crunch | tr '\n' '|')"
else
	snapshot "$RBIN" "crunch::crunch=${syms[0]}" "crunch::crunch=${syms[1]}" >"$TMP/rs.txt"
	want=$(for s in "${syms[@]}"; do h=${s%E}; echo "1 crunch::crunch::${h: -17}"; done | sort | tr '\n' '|')
	if ! "$CONVERT" --quiet "$TMP/rs.txt" -o "$TMP/rs.fxt" 2>"$TMP/rs.err"; then
		why="conversion failed: $(first_lines "$TMP/rs.err")"
	elif [ "$(names "$TMP/rs.fxt" 'crunch::crunch[^ ]*')" != "$want" ]; then
		why="slices '$(names "$TMP/rs.fxt" 'crunch::crunch[^ ]*')', expected '$want'"
	fi
fi
verdict instances-rustc "$why"
