#!/usr/bin/env bash
# tier: check
# PLT entries named by the function they jump to (issue 24): perf 6.1
# names a sample in clock_gettime's PLT entry "_init+0x30" (the zero-size
# _init it stretched over .plt wins) and knows nothing of .plt.sec and
# .plt.got. A small program calling clock_gettime, built as Debian builds
# (.plt, .plt.got) and with IBT's layout (-fcf-protection -z ibtplt: .plt,
# .plt.sec, .plt.got), is sampled in text (no recording: one sample per PLT
# entry objdump names, its frame as perf 6.1 prints it, _init+OFF, and one
# in its libc function); the slices read back must name each entry as
# objdump does (NAME@plt, its reference: BFD's own PLT decoder);
# `snaptrace stats --function
# clock_gettime` then finds the libc function, never the stub. A recording
# that kept the plain build, the program then rebuilt: its entries named
# from the kept copy (pltnames-kept-copy).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_built pltnames "$CONVERT"
requires pltnames cc binutils x86_64 || exit 0
STATS="$SNAPTRACE_BIN/snaptrace-stats"

printf '%s\n' '#include <stdlib.h>' '#include <time.h>' \
	'int main(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);' \
	'void *(*m)(size_t) = malloc; free(m(8)); return (int)t.tv_nsec & 1; }' >"$TMP/prog.c"

# sample BIN: perf 6.1's text of one sample in each PLT entry objdump names
# (frame "_init+OFF", OFF four bytes into the entry), then one in libc;
# the expected leaf names into BIN.want.
sample() {
	local bin=$1 init n=0 addr name
	init=$(nm "$bin" | awk '$3 == "_init" { print $1 }')
	: >"$bin.want"
	objdump -d "$bin" | sed -n 's/^\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' >"$bin.entries"
	while read -r addr name; do
		n=$((n + 1))
		printf 'prog 4000/4000 100.%09d: 100000 cpu-clock:u: \n' "$n"
		printf '\t%x _init+0x%x (%s)\n' $((16#$addr + 4)) $((16#$addr + 4 - 16#$init)) "$bin"
		printf '\t401000 main+0x10 (%s)\n\n' "$bin"
		echo "$name" >>"$bin.want"
	done <"$bin.entries"
	printf 'prog 4000/4000 100.%09d: 100000 cpu-clock:u: \n' $((n + 1))
	printf '\t7f0000001010 clock_gettime@@GLIBC_2.17+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n'
	printf '\t401000 main+0x10 (%s)\n\n' "$bin"
}

# check NAME BIN INPUT: INPUT converted names BIN's entries as BIN.want.
check() {
	local name=$1 bin=$2 in=$3 got
	if ! "$CONVERT" -q -o "$TMP/$name.fxt" "$in" 2>"$TMP/$name.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/$name.err")"
		return 1
	fi
	got=$("$CONVERT" --dump=slices "$TMP/$name.fxt" | awk '$2 == 1 { print $3 }' |
		grep -v '^clock_gettime@@')
	if [ "$got" != "$(cat "$bin.want")" ]; then
		fail "$name" "leaves $(echo $got), objdump's $(echo $(cat "$bin.want"))"
		return 1
	fi
	ok "$name"
}

for flavour in plain ibt; do
	bin="$TMP/$flavour"
	flags=()
	[ "$flavour" = ibt ] && flags=(-fcf-protection=full -Wl,-z,ibtplt)
	if ! cc -O1 "${flags[@]}" -o "$bin" "$TMP/prog.c" 2>"$TMP/cc.err"; then
		fail "pltnames-$flavour" "cc: $(first_lines "$TMP/cc.err")"
		continue
	fi
	sample "$bin" >"$bin.txt"
	want=".plt .plt.got"
	[ "$flavour" = ibt ] && want=".plt .plt.got .plt.sec"
	for sec in $want; do
		if ! objdump -h "$bin" | grep -q " $sec "; then
			fail "pltnames-$flavour" "cc made no $sec section: the test checks nothing"
			continue 2
		fi
	done
	if [ "$(wc -l <"$bin.want")" -lt 2 ]; then
		fail "pltnames-$flavour" "objdump names $(wc -l <"$bin.want") PLT entries, 2 expected"
		continue
	fi
	check "pltnames-$flavour" "$bin" "$bin.txt" || continue
	got=$("$STATS" --format csv --function clock_gettime "$TMP/pltnames-$flavour.fxt" 2>/dev/null |
		sed -n 2p)
	case $got in
	clock_gettime@@GLIBC_2.17,*) ok "pltnames-$flavour-stats" ;;
	*) fail "pltnames-$flavour-stats" "stats --function clock_gettime gave '$got'" ;;
	esac
done

# pltnames-stripped: a binary without a symbol table (Debian's libsqlite3
# calls sqlite3Malloc through .plt.got): perf 6.1 prints a call chain's
# frame in a .plt.got entry "[unknown]" at its map-relative address (the
# file offset); the slice is named by the entry as objdump names it
bin="$TMP/stripped"
if ! cc -O1 -o "$bin" "$TMP/prog.c" 2>"$TMP/cc.err" || ! strip "$bin" 2>>"$TMP/cc.err"; then
	fail pltnames-stripped "cc: $(first_lines "$TMP/cc.err")"
else
	# objdump's entries of .plt.got, each at its file offset (section offset
	# + address - section address, from readelf's section table)
	objdump -d "$bin" | awk '
		/^Disassembly of section / { sec = $4; sub(/:$/, "", sec) }
		sec == ".plt.got" && /^[0-9a-f]+ <.*@plt>:$/ {
			name = $2; gsub(/[<>:]/, "", name); print $1, name }' >"$bin.entries"
	read -r saddr soff < <(readelf -SW "$bin" |
		sed -n 's/.* \.plt\.got *PROGBITS *\([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
	n=0
	: >"$bin.want"
	while read -r addr name; do
		n=$((n + 1))
		printf 'prog 4000/4000 100.%09d: 100000 cpu-clock:u: \n' "$n"
		printf '\t%x [unknown] (%s)\n' $((16#$addr - 16#$saddr + 16#$soff + 4)) "$bin"
		printf '\t1000 [unknown] (%s)\n\n' "$bin"
		echo "$name" >>"$bin.want"
	done <"$bin.entries" >"$bin.txt"
	if [ "$n" -lt 1 ] || [ -z "$soff" ]; then
		fail pltnames-stripped "objdump names no .plt.got entry: the test checks nothing"
	else
		check pltnames-stripped "$bin" "$bin.txt"
	fi
fi

# pltnames-kept-copy: the plain program's recording keeping its binary
# (record.json's build id of it, DIR/binaries as --keep-binaries writes
# it), the program then rebuilt with other PLT entries: its entries are
# named from the kept copy, as perf names the frames (they were read from
# the file at the path, another build, and left perf's _init+OFF)
bin="$TMP/plain"
id=$(readelf -n "$bin" 2>/dev/null | awk '/Build ID:/ { print $3 }')
if [ ! -s "$bin.txt" ] || [ -z "$id" ]; then
	fail pltnames-kept-copy "no plain build with a build id to keep"
else
	d="$TMP/kept"
	mkdir -p "$d/binaries/.build-id/${id:0:2}/${id:2}"
	cp "$bin" "$d/binaries/.build-id/${id:0:2}/${id:2}/elf"
	cp "$bin.txt" "$d/perf.data.1"
	printf '%s\n' '{"format": "snaptrace-record 1", "pids": [4000],' \
		'"threads": [{"pid": 4000, "tid": 4000, "comm": "prog"}], "trigger": null,' \
		"\"buildids\": [{\"file\": \"$bin\", \"build_id\": \"$id\"}]," \
		'"hits": [], "hits_total": 0, "hits_coalesced": 0, "hits_lost": 0,' \
		'"snapshots": [{"file": "perf.data.1", "reason": "exit", "time_ns": 100100000000, "freeze_ms": 1.0, "ms": 2.0}],' \
		'"end": "exit", "end_ns": 100100000000}' >"$d/record.json"
	printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
		'int main(void) { printf("%d\n", (int)getpid()); return puts("x") < 0; }' >"$TMP/prog2.c"
	if ! cc -O1 -o "$bin" "$TMP/prog2.c" 2>"$TMP/cc.err"; then
		fail pltnames-kept-copy "cc: $(first_lines "$TMP/cc.err")"
	else
		check pltnames-kept-copy "$bin" "$d"
	fi
fi
