#!/usr/bin/env bash
# tier: check
# Hostile input to snaptrace-convert (issue 7): each a one-line error with
# the documented exit status, or a correct trace that reads back clean.
#   nul-comm       a NUL inside a comm, through a pipe (no binary check):
#                  converts (under ASan: no over-read), the name shows U+FFFD.
#   time-range     a time at or past 2^62 ns (2^62 itself once converted):
#                  exit 1, one line naming the line; 2^62 - 1 converts.
#   invalid-utf8   ill-formed UTF-8 in a symbol and a dso: converts, the
#                  trace has no problem (--dump exits 0), U+FFFD in the name.
#   cr-only        CR-only line ends: exit 2 and one line; CR LF converts.
#   strict-junk    text after the last column: --strict exit 1 (the error
#                  says --strict made it one, not "skipped"), else skipped
#                  with a warning; a line of junk the same.
#   long-line      a line of 1 MiB converts; one byte more, 1.5 MiB or 3 MiB
#                  without a newline: exit 1, one line naming the file and
#                  line, in text and in the dlfilter's binary stream (a 1.5
#                  MiB line once converted: the limit held only across
#                  blocks).
#   odd-tids       thread ids 0, 2^31-1, 2^31, 2^32+1 and ordinary ones: one
#                  track each, none shared; ordinary ids keep their number.
#   binrec-version the dlfilter's stream saved by another format version
#                  (its version record says 7), or without a version record
#                  (an older dlfilter's), or a branch with a flag bit binrec.h
#                  does not name: exit 1, one line naming the file (and the
#                  versions); the same stream of version 1 converts.
#   dump-args      --dump with a second file, or with -o: exit 2.
#   perf-force     every perf command run on a perf.data gets -f.
#   perf-lost      perf script's "lost N chunks!" (PERF_RECORD_LOST) is passed
#                  on with what it means for the trace (a gap, and how to
#                  avoid it), the trace still converted and read back.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_built hostile "$CONVERT"

# branch TID TIME FLAG FROM_IP FROM_SYM TO_IP TO_SYM [COMM]: one perf script branch line.
branch() {
	printf '%16s %6s/%-6s %s:          1  branches:u:   %-8s %16s %s (/opt/app) => %16s %s (/opt/app)\n' \
		"${8:-app}" "$1" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}

# call_return TID COMM: main calls work and it returns, in thread TID.
call_return() {
	branch "$1" 5.000000100 call 401010 main+0x10 402000 work+0x0 "${2:-app}"
	branch "$1" 5.000000300 return 402010 work+0x10 401015 main+0x15 "${2:-app}"
}

# expect_fail NAME STATUS PATTERN CMD...: CMD exits STATUS with one stderr
# line matching PATTERN and leaves no $TMP/NAME.fxt; returns 1 after a FAIL.
expect_fail() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" 2>"$TMP/$name.err" >/dev/null
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, expected $want: $(first_lines "$TMP/$name.err")"
	elif [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] || ! grep -Eq -- "$pat" "$TMP/$name.err"; then
		fail "$name" "expected one line matching /$pat/: $(first_lines "$TMP/$name.err")"
	elif [ -e "$TMP/$name.fxt" ]; then
		fail "$name" "an output was left"
	else
		return 0
	fi
	return 1
}

# converts NAME ARGS...: converts stdin to $TMP/NAME.fxt and dumps it (records
# and slices); returns 1 after a FAIL.
converts() {
	local name=$1
	shift
	if ! "$CONVERT" -q "$@" -o "$TMP/$name.fxt" 2>"$TMP/$name.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/$name.err")"
	elif ! "$CONVERT" --dump=records "$TMP/$name.fxt" >"$TMP/$name.records" 2>"$TMP/$name.err"; then
		fail "$name" "the reader finds problems: $(first_lines "$TMP/$name.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/$name.fxt" >"$TMP/$name.slices" 2>"$TMP/$name.err"; then
		fail "$name" "the reader finds problems: $(first_lines "$TMP/$name.err")"
	else
		return 0
	fi
	return 1
}

nul_comm() {
	local rc
	printf '%s\n' "$(call_return 100 "aXb")" | sed 's/aXb/a\x00b/' |
		converts nul-comm - || return
	# again with the summary, which names threads too (under ASan: no over-read
	# of either name)
	{ call_return 100 "aXb"; call_return 200 app; } | sed 's/aXb/a\x00b/' |
		"$CONVERT" - -o "$TMP/nul-comm2.fxt" 2>"$TMP/nul-comm2.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail nul-comm "without -q: exit $rc: $(grep -m1 -e ERROR -e 'runtime error' "$TMP/nul-comm2.err" || first_lines "$TMP/nul-comm2.err")"
	elif ! grep -q $'name="a\xef\xbf\xbdb \\[100\\]"' "$TMP/nul-comm.records"; then
		fail nul-comm "thread not named 'a<U+FFFD>b [100]': $(grep kobj "$TMP/nul-comm.records" | head -2 | tr '\n' '|')"
	elif ! printf '100 0 main\n100 1 work\n' | slices_match "$TMP/nul-comm.slices" /dev/stdin >"$TMP/nul-comm.diff"; then
		fail nul-comm "$(first_lines "$TMP/nul-comm.diff")"
	else
		ok nul-comm
	fi
}

time_range() {
	branch 100 9300000000.000000100 call 401010 main+0x10 402000 work+0x0 >"$TMP/time.txt"
	expect_fail time-range 1 '^snaptrace-convert: .*time.txt:1: time 9300000000.000000100 s is at or past 2\^62 ns' \
		"$CONVERT" -q "$TMP/time.txt" -o "$TMP/time-range.fxt" || return
	branch 100 4611686018.427387904 call 401010 main+0x10 402000 work+0x0 >"$TMP/time.txt"
	expect_fail time-range 1 '^snaptrace-convert: .*time.txt:1: time 4611686018.427387904 s is at or past 2\^62 ns' \
		"$CONVERT" -q "$TMP/time.txt" -o "$TMP/time-range.fxt" || return
	# the largest accepted time converts, and reads back without a problem
	{ call_return 100 | sed 's/ 5\.000000/ 4611686018.427387/'
	  branch 100 4611686018.427387903 call 401010 main+0x10 402000 work+0x0; } |
		converts time-range - && ok time-range
}

invalid_utf8() {
	call_return 100 | sed -e 's/work/w\xff\xc0rk/g' -e 's#/opt/app#/opt/\xed\xa0\x80app#g' |
		converts invalid-utf8 - || return
	if ! grep -q $'100 1 w\xef\xbf\xbd\xef\xbf\xbdrk' "$TMP/invalid-utf8.slices"; then
		fail invalid-utf8 "no U+FFFD in the name: $(first_lines "$TMP/invalid-utf8.slices")"
	else
		ok invalid-utf8
	fi
}

cr_only() {
	local i
	for i in $(seq 50); do call_return 100; done | tr '\n' '\r' >"$TMP/cr.txt"
	expect_fail cr-only 2 "cr.txt:1: a carriage return between two perf script lines" \
		"$CONVERT" -q "$TMP/cr.txt" -o "$TMP/cr-only.fxt" || return
	call_return 100 | sed 's/$/\r/' | converts cr-only - || return
	if ! printf '100 0 main\n100 1 work\n' | slices_match "$TMP/cr-only.slices" /dev/stdin >"$TMP/cr.diff"; then
		fail cr-only "CR LF: $(first_lines "$TMP/cr.diff")"
	else
		ok cr-only
	fi
}

strict_junk() {
	{ call_return 100; branch 100 5.000000400 call 401020 main+0x20 402000 work+0x0 | sed 's/$/ JUNK/'; } >"$TMP/junk.txt"
	expect_fail strict-junk 1 'junk.txt:3: \(dso\) column unlike the first line.s \(text after the last column\?\) \(an error with --strict\): .*JUNK$' \
		"$CONVERT" -q --strict "$TMP/junk.txt" -o "$TMP/strict-junk.fxt" || return
	{ call_return 100; echo 'garbage'; } >"$TMP/junk2.txt"
	expect_fail strict-junk 1 'junk2.txt:3: not a line of perf script output \(an error with --strict\): garbage$' \
		"$CONVERT" -q --strict "$TMP/junk2.txt" -o "$TMP/strict-junk.fxt" || return
	if grep -q skipped "$TMP/strict-junk.err"; then
		fail strict-junk "--strict's error says skipped: $(first_lines "$TMP/strict-junk.err")"
		return
	fi
	if ! "$CONVERT" "$TMP/junk.txt" -o "$TMP/junk.fxt" 2>"$TMP/junk.err"; then
		fail strict-junk "without --strict: exit $?: $(first_lines "$TMP/junk.err")"
	elif ! grep -q 'warning: .*junk.txt:3: (dso) column unlike the first line' "$TMP/junk.err" ||
		! grep -q '1 line skipped' "$TMP/junk.err"; then
		fail strict-junk "no warning and count: $(first_lines "$TMP/junk.err")"
	else
		ok strict-junk
	fi
}

# long_branch BYTES: a branch line of exactly BYTES bytes (its target's name padded).
long_branch() {
	local line pad
	line=$(branch 100 5.000000500 call 401020 main+0x20 402000 work+0x0)
	pad=$(( $1 - ${#line} ))
	branch 100 5.000000500 call 401020 main+0x20 402000 "work$(head -c "$pad" /dev/zero | tr '\0' w)+0x0"
}

long_line() {
	local f=$TMP/long.txt
	{ call_return 100; long_branch 1048576; } >"$f"
	converts long-line "$f" || return
	rm -f "$TMP/long-line.fxt"
	for n in 1048577 1572864; do
		{ call_return 100; long_branch $n; } >"$f"
		expect_fail long-line 1 "^snaptrace-convert: .*long.txt:3: a line longer than 1048576 bytes, which no perf script prints" \
			"$CONVERT" -q "$f" -o "$TMP/long-line.fxt" || return
	done
	{ call_return 100; head -c 3145728 /dev/zero | tr '\0' x; } >"$f"
	expect_fail long-line 1 "^snaptrace-convert: .*long.txt:3: a line longer than 1048576 bytes" \
		"$CONVERT" -q "$f" -o "$TMP/long-line.fxt" || return
	# the dlfilter's stream: records, then a text line of perf's 1.5 MiB long
	{ call_return 100 | "$SNAPTRACE_TEST_BIN/gen/text2bin"
	  printf ' instruction trace error type 1 time 5.000000400 cpu 2 pid 100 tid 100 ip 0x402018 code 7: %s\n' \
		"$(head -c 1572864 /dev/zero | tr '\0' x)"; } >"$f"
	expect_fail long-line 1 "^snaptrace-convert: .*long.txt:3: a line longer than 1048576 bytes" \
		"$CONVERT" -q "$f" -o "$TMP/long-line.fxt" && ok long-line
}

odd_tids() {
	local t n
	for t in 0 2147483647 2147483648 4294967297 2147479551 77; do
		call_return "$t"
	done | converts odd-tids - || return
	n=$(awk '{print $1}' "$TMP/odd-tids.slices" | sort -u | wc -l)
	if [ "$n" -ne 6 ]; then
		fail odd-tids "$n tracks for 6 thread ids: $(awk '{print $1}' "$TMP/odd-tids.slices" | sort -u | tr '\n' ' ')"
	elif ! grep -q '^2147479551 0 main' "$TMP/odd-tids.slices" || ! grep -q '^77 0 main' "$TMP/odd-tids.slices"; then
		fail odd-tids "an ordinary id lost its number: $(awk '{print $1}' "$TMP/odd-tids.slices" | sort -u | tr '\n' ' ')"
	elif [ "$(grep -c 'kobj thread' "$TMP/odd-tids.records")" -ne 6 ]; then
		fail odd-tids "expected 6 thread objects: $(grep 'kobj thread' "$TMP/odd-tids.records" | tr '\n' '|')"
	else
		ok odd-tids
	fi
}

# put_bytes FILE OFFSET BYTES: overwrites FILE's bytes from OFFSET with BYTES
# (printf escapes).
put_bytes() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

binrec_version() {
	local f=$TMP/stream.bin size
	# a version record (8 bytes), strings, one branch record (80 bytes, last)
	branch 100 5.000000100 call 401010 main+0x10 402000 work+0x0 |
		"$SNAPTRACE_TEST_BIN/gen/text2bin" >"$f"
	converts binrec-version "$f" || return
	if ! grep -qx '100 0 work' "$TMP/binrec-version.slices"; then
		fail binrec-version "version 1: no call of work: $(tr '\n' '|' <"$TMP/binrec-version.slices")"
		return
	fi
	rm -f "$TMP/binrec-version.fxt"
	cp "$f" "$TMP/v7.bin"
	put_bytes "$TMP/v7.bin" 4 '\007'
	expect_fail binrec-version 1 "^snaptrace-convert: $TMP/v7.bin: byte 0: the dlfilter's stream of format version 7, expected version 1: convert the perf.data again$" \
		"$CONVERT" -q "$TMP/v7.bin" -o "$TMP/binrec-version.fxt" || return
	tail -c +9 "$f" >"$TMP/v0.bin"
	expect_fail binrec-version 1 "^snaptrace-convert: $TMP/v0.bin: byte 0: a binary record before the stream's version record .*expected format version 1" \
		"$CONVERT" -q "$TMP/v0.bin" -o "$TMP/binrec-version.fxt" || return
	size=$(stat -c %s "$f")
	cp "$f" "$TMP/flag.bin"
	put_bytes "$TMP/flag.bin" $((size - 76)) '\000\010\000\000'   # bit 11: no name
	expect_fail binrec-version 1 "^snaptrace-convert: $TMP/flag.bin: byte $((size - 80)): a malformed binary record \(type 2, 80 bytes\)$" \
		"$CONVERT" -q "$TMP/flag.bin" -o "$TMP/binrec-version.fxt" && ok binrec-version
}

dump_args() {
	call_return 100 | converts dump-args - || return
	expect_fail dump-two 2 'dump reads one FXT file, got 2' \
		"$CONVERT" --dump=slices "$TMP/dump-args.fxt" "$TMP/dump-args.fxt" || return
	expect_fail dump-two 2 'dump prints to stdout: it takes no -o' \
		"$CONVERT" --dump "$TMP/dump-args.fxt" -o "$TMP/dump-two.fxt" || return
	ok dump-args
}

# A stand-in perf that refuses to read a perf.data without -f, as perf does
# for a file of another user (even to root).
perf_force() {
	local fake="$TMP/fakeperf"
	call_return 100 >"$TMP/force.txt"
	cat >"$fake" <<-EOF
	#!/bin/sh
	echo "\$*" >>"$TMP/force.args"
	case " \$* " in *" -f "*) ;; *) echo "file not owned by current user or root" >&2; exit 1 ;; esac
	[ "\$1" = --buildid-dir ] && shift 2	# a global option, before the command
	case "\$1" in evlist) echo "cycles:u" ;; script) cat "$TMP/force.txt" ;; esac
	EOF
	chmod +x "$fake"
	perf_data_stub "$TMP/perf.data"
	if ! "$CONVERT" -q --perf "$fake" "$TMP/perf.data" -o "$TMP/force.fxt" 2>"$TMP/force.err"; then
		fail perf-force "exit $?: $(first_lines "$TMP/force.err")"
	elif [ "$(grep -c -- ' -f ' "$TMP/force.args")" -ne "$(wc -l <"$TMP/force.args")" ] ||
		[ "$(wc -l <"$TMP/force.args")" -lt 2 ]; then
		fail perf-force "perf commands without -f: $(first_lines "$TMP/force.args")"
	else
		ok perf-force
	fi
}

# A stand-in perf whose perf script warns of lost chunks, as perf 6.1 does.
perf_lost() {
	local fake="$TMP/lostperf"
	call_return 100 >"$TMP/lost.txt"
	cat >"$fake" <<-EOF
	#!/bin/sh
	[ "\$1" = --buildid-dir ] && shift 2
	case "\$1" in
	evlist) echo "cycles:u" ;;
	script) cat "$TMP/lost.txt"; printf 'Warning:\nProcessed 303 events and lost 1 chunks!\n\nCheck IO/CPU overload!\n\n' >&2 ;;
	esac
	EOF
	chmod +x "$fake"
	perf_data_stub "$TMP/lost.data"
	if ! "$CONVERT" -q --perf "$fake" "$TMP/lost.data" -o "$TMP/lost.fxt" 2>"$TMP/lost.err"; then
		fail perf-lost "exit $?: $(first_lines "$TMP/lost.err")"
	elif ! grep -q "perf script: Warning: Processed 303 events and lost 1 chunks! Check IO/CPU overload! (what this means: while recording, perf's ring buffer was full and the kernel dropped events that many times; the trace has a gap at each" "$TMP/lost.err"; then
		fail perf-lost "perf's warning passed on as it is: $(first_lines "$TMP/lost.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/lost.fxt" >"$TMP/lost.slices" ||
		! printf '100 0 main\n100 1 work\n' | slices_match "$TMP/lost.slices" /dev/stdin >/dev/null; then
		fail perf-lost "the trace does not read back: $(first_lines "$TMP/lost.slices")"
	else
		ok perf-lost
	fi
}

nul_comm
time_range
invalid_utf8
cr_only
strict_junk
long_line
odd_tids
binrec_version
dump_args
perf_force
perf_lost
