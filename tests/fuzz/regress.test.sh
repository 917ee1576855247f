#!/usr/bin/env bash
# tier: check
# Every input the fuzzers (tests/fuzz/build.mk) found a defect with, kept in
# tests/fuzz/regress/: NAME.fxt through `snaptrace-convert --dump` (exit 0,
# or 1 with its problems listed); NAME.txt (perf script text) and NAME.bin
# (the dlfilter's stream), each as its fuzz target takes it (its options
# byte first: a line of text the converter skips, or a byte before the
# stream), through the converter, with source lines read under the symfs the fuzz
# targets use (tests/fuzz/fuzz_conv.h: this converter as /bin/prog, its
# first 64 KiB as /bin/cut, a perf map as /tmp/perf-1.map, a text file as
# /bin/text); NAME.json as the record.json of a recording directory beside
# fuzz_record_json's two snapshot files. Each exits 0, 1 or 2, and an
# output it writes reads back without problem. Never a crash or a
# sanitizer report (`make asan` runs this on the sanitizer build).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_built regress "$CONVERT"

# fuzz_conv.h's symfs
SYMFS=$TMP/symfs
mkdir -p "$SYMFS/bin" "$SYMFS/tmp"
cp "$CONVERT" "$SYMFS/bin/prog"
head -c 65536 "$CONVERT" >"$SYMFS/bin/cut"
printf '7f0000001000 40 jitted_spin\n7f0000001040 40 jitted_other\n' >"$SYMFS/tmp/perf-1.map"
echo 'not an ELF file' >"$SYMFS/bin/text"

# fuzz_record_json.c's snapshots
snapshots() {
	printf '             app   300/300      20.000100000:     100000 cpu-clock:u: \n\t          401100 work+0x10 (/opt/app)\n\t          401020 main+0x20 (/opt/app)\n\n             app   300/300      20.000200000: PERF_RECORD_SWITCH OUT        \n' >"$1/perf.data.1"
	printf '             app   300/300      20.040000000: PERF_RECORD_SWITCH IN         \n             app   300/300      20.040100000:     100000 cpu-clock:u: \n\t          401100 work+0x10 (/opt/app)\n\t          401040 main+0x40 (/opt/app)\n' >"$1/perf.data.2"
}

for f in "$SNAPTRACE_TOP"/tests/fuzz/regress/*; do
	n=$(basename "$f")
	case "$f" in
	*.fxt)
		"$CONVERT" --dump "$f" >/dev/null 2>"$TMP/$n.err"
		rc=$?
		if [ "$rc" -gt 1 ]; then
			fail "regress/$n" "--dump exit $rc: $(first_lines "$TMP/$n.err")"
			continue
		fi
		;;
	*.txt | *.bin | *.json)
		in=$f
		if [ "${f##*.}" = bin ]; then
			# as fuzz_binstream.c takes it: the dlfilter's first records
			# (VERSION 1, STRING 1 "app"), then the bytes past its options byte
			in=$TMP/in-$n
			{ printf '\0\4\10\0\1\0\0\0\0\1\13\0\1\0\0\0app'; tail -c +2 "$f"; } >"$in"
		fi
		if [ "${f##*.}" = json ]; then
			in=$TMP/rec-$n
			mkdir -p "$in"
			cp "$f" "$in/record.json"
			snapshots "$in"
		fi
		"$CONVERT" -q --perf-arg=--symfs="$SYMFS" "$in" -o "$TMP/$n.fxt" 2>"$TMP/$n.err"
		rc=$?
		if [ "$rc" -gt 2 ]; then
			fail "regress/$n" "exit $rc: $(first_lines "$TMP/$n.err")"
			continue
		fi
		if [ "$rc" -eq 0 ] && ! "$CONVERT" --dump=slices "$TMP/$n.fxt" >/dev/null 2>"$TMP/$n.err"; then
			fail "regress/$n" "the output has problems: $(first_lines "$TMP/$n.err")"
			continue
		fi
		;;
	*)
		fail "regress/$n" "neither .fxt, .txt, .bin nor .json"
		continue
		;;
	esac
	if grep -q -e 'Sanitizer' -e 'runtime error' "$TMP/$n.err"; then
		fail "regress/$n" "$(grep -m1 -e 'Sanitizer' -e 'runtime error' "$TMP/$n.err")"
	else
		ok "regress/$n"
	fi
done
