#!/usr/bin/env bash
# tier: check
# Measured calls (--measure, docs/design.md "Measured calls") in a recording
# directory written by hand (tests/cases/measured/: text snapshot, record.json
# with "measure", the calls file), so every time is known:
#   measured-slices  every call of a recorded thread inside the snapshot is
#                    a slice of its exact entry and return with measured=true
#                    and its duration (a call left by an exception, marked
#                    so in the calls file, with left_by=exception); a call between two samples nests under
#                    what they share; the frames the samples show inside a
#                    call go inside it (also where frame pointers hide its own
#                    frame) and end by its return; a call still running at
#                    the snapshot's end is cut there (its duration_ns says
#                    the whole); calls before the snapshot or of a thread not
#                    recorded are not drawn; a sampled frame of the measured
#                    function (a call that left it unmeasured) ends by the
#                    entry of a measured call the samples cannot tell from
#                    it, never enclosing it (expected-tree.txt)
#   measured-before-samples  a call that begins before the thread's oldest
#                    sample (its switch records reach back further): with no
#                    caller known it goes under "[callers unknown]", which
#                    ends with it, never drawn as a top-level call with its
#                    program inside it; with its caller recorded, under the
#                    callers the sample that follows shows, from its entry
#   measured-before-samples-named  such a call whose caller is on no frame
#                    of the sample that follows: under its caller named by
#                    its return address, under that sample's frames up to
#                    its last of the caller's binary
#   measured-window-cut  --window's summary counts the measured calls cut
#                    short (at its edges or a snapshot's), as snaptrace stats
#                    does
#   measured-junk-*  those recordings with a junk frame past every chain
#                    (0xffffffffffffffff, 0, unmapped): the same slices
#   measured-after-sleep  a call whose caller's frame the stack has at
#                    another address (its call of a sleep the stack still
#                    draws): under that caller, by the function that holds
#                    its return address; the frames above end at its entry
#                    (also through a function of the binary that starts
#                    before the caller: -helper); with its caller on no
#                    frame of the stack (frame pointers hid it), under the
#                    frame of the sample that follows that holds the address,
#                    from its entry (-hidden)
#   measured-caller-unseen  no sample shows the caller at all: under its
#                    function named by its return address (a binary built
#                    here), a frame for that call alone; library frames
#                    above the last of its binary or a root end at entry
#   measured-caller-kept-copy  that binary rebuilt after the recording,
#                    which kept it: the caller named from the kept copy
#   measured-caller-past-sample  the sample right after a call's return in
#                    the [uprobes] page (frame pointers skip the caller):
#                    the call stays under the caller the stack has;
#                    the sample before its entry at the function's first
#                    instruction is no caller (-entry-sample)
#   measured-leaf-skipped-caller  a sample in a library's frameless leaf
#                    skips main between two samples of it: main stays open,
#                    the call after it goes under its named caller in main
#   measured-tail-called-nested  a measured call tail-calls another: the
#                    inner call goes under it, no frame of its caller inside
#   measured-caller-skipped  the sample right after a call's entry shows its
#                    function at its first instruction (or the [uprobes]
#                    page, its entry probe's instruction run out of line)
#                    straight under its caller's caller (frame pointers
#                    skip the caller: the function has not set up its
#                    frame), and no sample ever shows the function under
#                    its caller (one that tail-calls, as slowcall_target's
#                    tail_timed): with its caller recorded, the call stays
#                    under the caller the stack has, which goes on (it once
#                    ended there, the call drawn under its caller's caller)
#   measured-unnamed  a stripped binary's function measured by its address,
#                    or a slow-call trigger on it: one name by its address
#                    (below)
#   measured-info    the whole run's numbers of each measured function are in
#                    the trace (the info record snaptrace stats reads)
#   measured-info-unrecorded  with them, the calls in threads not recorded
#                    and those threads (record.json calls_unrecorded,
#                    threads_unrecorded)
#   measured-errors  a calls file that is not the recorder's (a bad line, an
#                    index past "measure", a return before the entry) and a
#                    calls_file naming a path: exit 1, one line naming the
#                    file and line, no trace
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
need_built measured "$CONVERT"

SRC="$SNAPTRACE_TOP/tests/cases/measured"
D="$TMP/rec"
mkdir -p "$D"
cp "$SRC/perf.data.1" "$SRC/record.json" "$SRC/measured-calls.txt" "$D/"

# tree FXT: "TID DEPTH BEGIN END NAME [measured DURATION_NS]" of each slice
# of the program's threads (tracks of the process left out)
tree() {
	"$CONVERT" --dump=tree "$1" | awk '
		/^# thread/ { split($3, t, "="); tid = t[2]; keep = tid < 2147479552; next }
		keep && match($0, / \[[0-9]+, [0-9]+\]/) {
			split(substr($0, RSTART + 2, RLENGTH - 3), se, ", ")
			nm = substr($0, 1, RSTART - 1); sub(/^[0-9]+ [0-9]+ +/, "", nm)
			m = ""
			if (match($0, /measured:bool=true duration_ns:uint64=[0-9]+/))
				m = " measured " substr($0, RSTART + 38, RLENGTH - 38)
			if ($0 ~ /left_by:string="exception"/)
				m = m " exception"
			print $1, $2, se[1], se[2], nm m
		}'
}

# tree_case NAME DIR EXPECTED OUT: recording DIR converted into OUT has the
# slices of EXPECTED (tree's lines): one ok or FAIL line NAME
tree_case() {
	if ! "$CONVERT" --quiet "$2" -o "$4" 2>"$4.err"; then
		fail "$1" "conversion failed: $(first_lines "$4.err")"
	elif ! diff "$3" <(tree "$4") >"$4.diff"; then
		fail "$1" "$(tr '\n' '|' <"$4.diff")"
	else
		ok "$1"
	fi
}

tree_case measured-slices "$D" "$SRC/expected-tree.txt" "$TMP/m.fxt"

# measured-callsite: frame pointers hide the measured function in most
# samples; a call site seen once (a sample in step itself, under main+0x35)
# puts a later call sampled only in libc under main, its libc frames inside
# it (tests/cases/measured-callsite/README)
CS="$SNAPTRACE_TOP/tests/cases/measured-callsite"
mkdir -p "$TMP/cs"
cp "$CS/perf.data.1" "$CS/record.json" "$CS/measured-calls.txt" "$TMP/cs/"
tree_case measured-callsite "$TMP/cs" "$CS/expected-tree.txt" "$TMP/cs.fxt"

# measured-caller: the same calls with their return address (the recorder's
# caller column: main+0x35 less step's entry): the first call too is under
# main from its start, though no sample before it shows step
cp -r "$TMP/cs" "$TMP/cc"
sed -i '2,$s/$/ -539/' "$TMP/cc/measured-calls.txt"
tree_case measured-caller "$TMP/cc" "$CS/expected-tree-caller.txt" "$TMP/cc.fxt"

# measured-after-sleep: main sleeps in usleep, calls step (its return
# address known), sleeps again; no sample shows main at that address, the
# stack has it at its call of usleep: step goes under main, the sleep's
# frames end at its entry, never around it (issue 24: a new user's slow.c
# had its measured calls drawn inside an ended sleep, beside its [off-cpu];
# tests/cases/measured-after-sleep/README)
AS="$SNAPTRACE_TOP/tests/cases/measured-after-sleep"
mkdir -p "$TMP/as"
cp "$AS/perf.data.1" "$AS/record.json" "$AS/measured-calls.txt" "$TMP/as/"
tree_case measured-after-sleep "$TMP/as" "$AS/expected-tree.txt" "$TMP/as.fxt"
# measured-after-sleep-helper: the sleep made through helper, a function of
# the binary that starts before main (0x400f00) and so before step's return
# address too: main holds the address, the last of the two to start (the
# functions do not overlap), and is the caller; helper ends at the entry
mkdir -p "$TMP/as-helper"
cp "$TMP/as/record.json" "$TMP/as/measured-calls.txt" "$TMP/as-helper/"
sed 's/^\t401065 main+0x65 .*/\t400f10 helper+0x10 (\/opt\/app)\n&/' "$TMP/as/perf.data.1" \
	>"$TMP/as-helper/perf.data.1"
printf '%s\n' '400 0 30000100000 30004400000 __libc_start_call_main' \
	'400 1 30000100000 30004400000 main' '400 2 30000100000 30002110000 helper' \
	'400 3 30000100000 30002110000 usleep' '400 4 30000100000 30002110000 __nanosleep' \
	'400 5 30000100000 30002100000 clock_nanosleep' '400 6 30000100000 30002100000 [off-cpu]' \
	'400 2 30002110000 30002150000 step measured 40000' '400 2 30002200000 30004300000 helper' \
	'400 3 30002200000 30004300000 usleep' '400 4 30002200000 30004300000 __nanosleep' \
	'400 5 30002200000 30004200000 clock_nanosleep' '400 6 30002200000 30004200000 [off-cpu]' \
	>"$TMP/as-helper.want"
tree_case measured-after-sleep-helper "$TMP/as-helper" "$TMP/as-helper.want" "$TMP/as-helper.fxt"

# measured-after-sleep-hidden: before it, a sample in strtoll straight
# under __libc_start_call_main (frame pointers hid main) and a first call
# of step: no frame of the stack may be its caller; the sample that
# follows (the sleep's) shows main, which holds its return address: main
# from the entry, step inside it, strtoll ended there (issue 24, trial 16:
# the call was drawn under __libc_start_call_main with no main)
mkdir -p "$TMP/as-hidden"
cp "$TMP/as/record.json" "$TMP/as-hidden/"
{
	printf '%s\n' '             app   400/400      30.000000000:     100000 cpu-clock:u: ' \
		'	7f0000046610 strtoll+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)' \
		'	7f00000271ca __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)' ''
	cat "$TMP/as/perf.data.1"
} >"$TMP/as-hidden/perf.data.1"
sed '1a 0 400 400 30000050000 30000090000 -539' "$TMP/as/measured-calls.txt" \
	>"$TMP/as-hidden/measured-calls.txt"
{
	printf '%s\n' '400 0 30000000000 30004400000 __libc_start_call_main' \
		'400 1 30000000000 30000050000 strtoll' '400 1 30000050000 30004400000 main' \
		'400 2 30000050000 30000090000 step measured 40000'
	tail -n +3 "$AS/expected-tree.txt"
} >"$TMP/as-hidden.want"
tree_case measured-after-sleep-hidden "$TMP/as-hidden" "$TMP/as-hidden.want" "$TMP/as-hidden.fxt"

# measured-caller-unseen: no sample shows the caller at all (frame
# pointers skip main in each one: strtoll straight under
# __libc_start_call_main, before the call and after it, at one address);
# step's return address lies in main of a binary built here, whose symbols
# name it: step goes under main, a frame drawn for that call alone, and
# strtoll, library code above the stack's last frame of the binary or of a
# root, ends at the entry (issue 24: CI's measure_after_sleep drew all 40
# calls of a run under __libc_start_call_main; before the named caller a
# call here was drawn inside strtoll)
UB="$TMP/unseen-bin"
printf '%s\n' '__attribute__((noinline)) int step(int x) { __asm__ volatile(""); return x + 1; }' \
	'int main(int argc, char **argv) { (void)argv; return step(argc) - 2; }' >"$UB.c"
if ! gcc -O1 -fno-omit-frame-pointer -no-pie -o "$UB" "$UB.c" 2>"$UB.err"; then
	fail measured-caller-unseen "cannot build its binary: $(first_lines "$UB.err")"
else
	mkdir -p "$TMP/unseen"
	read -r step_at main_at < <(nm "$UB" | awk '$3 == "step" { s = $1 } $3 == "main" { m = $1 }
		END { print s, m }')
	step_at=$((16#$step_at)) main_at=$((16#$main_at))
	sed -e "s|\"/opt/app\"|\"$UB\"|" -e "s|\"vaddr\": 4198992|\"vaddr\": $step_at|" \
		"$TMP/as/record.json" >"$TMP/unseen/record.json"
	printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
		"0 400 400 30000050000 30000090000 $(printf %+d $((main_at + 1 - step_at)))" >"$TMP/unseen/measured-calls.txt"
	for at in 30.000000000 30.000100000; do
		printf '%s\n' "             app   400/400      $at:     100000 cpu-clock:u: " \
			'	7f0000046610 strtoll+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)' \
			'	7f00000271ca __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)' ''
	done >"$TMP/unseen/perf.data.1"
	printf '%s\n' '400 0 30000000000 30000200000 __libc_start_call_main' \
		'400 1 30000000000 30000050000 strtoll' '400 1 30000050000 30000090000 main' \
		'400 2 30000050000 30000090000 step measured 40000' \
		'400 1 30000100000 30000200000 strtoll' >"$TMP/unseen.want"
	tree_case measured-caller-unseen "$TMP/unseen" "$TMP/unseen.want" "$TMP/unseen.fxt"

	# measured-caller-kept-copy: the same recording keeping its binary
	# (record.json's build id of it, DIR/binaries as --keep-binaries
	# writes it), the binary then rebuilt with a function before step (main
	# elsewhere, another function at the call's return address): the
	# caller is named from the kept copy, as perf names the frames, and
	# the call goes under main as before (it was named from the file at
	# the path: the rebuilt one's function there, or none)
	id=$(readelf -n "$UB" 2>/dev/null | awk '/Build ID:/ { print $3 }')
	if [ -z "$id" ]; then
		fail measured-caller-kept-copy "no build id in the binary built here"
	else
		cp -r "$TMP/unseen" "$TMP/kept"
		mkdir -p "$TMP/kept/binaries/.build-id/${id:0:2}/${id:2}"
		cp "$UB" "$TMP/kept/binaries/.build-id/${id:0:2}/${id:2}/elf"
		json_replace "$TMP/kept/record.json" '"trigger": null,' \
			"\"trigger\": null, \"buildids\": [{\"file\": \"$UB\", \"build_id\": \"$id\"}],"
		{ printf '%s\n' '__attribute__((noinline)) int pad(int x) { __asm__ volatile(".skip 4096"); return x; }'
			cat "$UB.c"; } >"$UB-2.c"
		if ! gcc -O1 -fno-omit-frame-pointer -no-pie -o "$UB" "$UB-2.c" 2>"$UB.err"; then
			fail measured-caller-kept-copy "cannot rebuild its binary: $(first_lines "$UB.err")"
		else
			tree_case measured-caller-kept-copy "$TMP/kept" "$TMP/unseen.want" "$TMP/kept.fxt"
		fi
	fi
fi

# measured-before-samples: measured-callsite's and measured-caller's
# recordings with the thread switched in, out and in again before its first
# sample, so that the first call is drawn from its entry (30.00005 s)
for v in cs cc; do
	mkdir -p "$TMP/before-$v"
	cp "$TMP/$v/record.json" "$TMP/$v/measured-calls.txt" "$TMP/before-$v/"
	{
		printf '%s\n' '             app   400/400      30.000010000: PERF_RECORD_SWITCH IN         ' \
			'             app   400/400      30.000020000: PERF_RECORD_SWITCH OUT preempt' \
			'             app   400/400      30.000030000: PERF_RECORD_SWITCH IN         '
		cat "$TMP/$v/perf.data.1"
	} >"$TMP/before-$v/perf.data.1"
done
printf '%s\n' '400 0 30000020000 30000030000 [off-cpu]' \
	'400 0 30000050000 30000450000 [callers unknown]' '400 1 30000050000 30000450000 step measured 400000' \
	'400 2 30000100000 30000200000 __libc_start_call_main' '400 3 30000100000 30000200000 main' \
	'400 4 30000100000 30000200000 clock_nanosleep' '400 2 30000300000 30000400000 clock_nanosleep' \
	'400 0 30000500000 30001100000 __libc_start_call_main' '400 1 30000500000 30001100000 main' \
	'400 2 30000500000 30000900000 step measured 400000' '400 3 30000600000 30000800000 clock_nanosleep' \
	>"$TMP/before-cs.want"
printf '%s\n' '400 0 30000020000 30000030000 [off-cpu]' \
	'400 0 30000050000 30001100000 __libc_start_call_main' '400 1 30000050000 30001100000 main' \
	'400 2 30000050000 30000450000 step measured 400000' '400 3 30000100000 30000200000 clock_nanosleep' \
	'400 3 30000300000 30000400000 clock_nanosleep' '400 2 30000500000 30000900000 step measured 400000' \
	'400 3 30000600000 30000800000 clock_nanosleep' >"$TMP/before-cc.want"
tree_case measured-before-samples "$TMP/before-cs" "$TMP/before-cs.want" "$TMP/before-cs.fxt"
tree_case measured-before-samples-caller "$TMP/before-cc" "$TMP/before-cc.want" "$TMP/before-cc.fxt"

# measured-before-samples-agree: the first call's thread switched out and
# in again after its entry (30.00005 s) and before its first sample
# (30.0001 s), as a snapshot's switch records reach back past its samples:
# the call is still placed by that sample, under the callers it shows,
# __libc_start_call_main and main (step's own frame in it, or with
# frame pointers hiding it, main+0x35 its recorded caller), from its entry;
# main is never dropped for "[callers unknown]" (issue 24, trial 14:
# `snaptrace run --measure spin_clock` lost main, every sample under it)
agree_switches() {
	printf '%s\n' '             app   400/400      30.000010000: PERF_RECORD_SWITCH IN         ' \
		'             app   400/400      30.000060000: PERF_RECORD_SWITCH OUT preempt' \
		'             app   400/400      30.000070000: PERF_RECORD_SWITCH IN         '
}
for v in step caller; do
	mkdir -p "$TMP/agree-$v"
	if [ $v = step ]; then
		cp "$TMP/cs/record.json" "$TMP/cs/measured-calls.txt" "$TMP/agree-$v/"
		{
			agree_switches
			sed 's/^\t7f00000e5123 clock_nanosleep+0x23 .*/&\n\t401260 step+0x10 (\/opt\/app)/' \
				"$TMP/cs/perf.data.1"
		} >"$TMP/agree-$v/perf.data.1"
	else
		cp "$TMP/cc/record.json" "$TMP/cc/measured-calls.txt" "$TMP/agree-$v/"
		{ agree_switches; cat "$TMP/cc/perf.data.1"; } >"$TMP/agree-$v/perf.data.1"
	fi
	printf '%s\n' '400 0 30000050000 30001100000 __libc_start_call_main' \
		'400 1 30000050000 30001100000 main' '400 2 30000050000 30000450000 step measured 400000' \
		'400 3 30000060000 30000070000 [off-cpu]' '400 3 30000100000 30000200000 clock_nanosleep' \
		'400 3 30000300000 30000400000 clock_nanosleep' \
		'400 2 30000500000 30000900000 step measured 400000' \
		'400 3 30000600000 30000800000 clock_nanosleep' >"$TMP/agree-$v.want"
	tree_case "measured-before-samples-agree-$v" "$TMP/agree-$v" "$TMP/agree-$v.want" "$TMP/agree-$v.fxt"
done

# measured-junk-*: the same recordings with a junk frame past every chain
# (tests/lib.sh junk_frames: 0xffffffffffffffff, 0, an address in no
# mapping, one at no user-space address): the same slices. The sample that follows switch records places
# a call's callers before the rest of the driver reads it: that path drew
# the junk frame as the root of the call's callers (issue 24: a dwarf
# slow-call trigger's sqlite3_step under [unknown @ 0xffffffffffffffff])
# (a chain reaching no root, as dwarf's often do, keeps the junk frame as
# its outermost: the recordings' chains without their root frames)
for v in before-cs before-cc agree-step agree-caller; do
	cp -r "$TMP/$v" "$TMP/junk-$v"
	junk_frames "$TMP/$v/perf.data.1" "$TMP/junk-$v/perf.data.1"
	tree_case "measured-junk-$v" "$TMP/junk-$v" "$TMP/$v.want" "$TMP/junk-$v.fxt"
	cp -r "$TMP/$v" "$TMP/noroot-$v"
	cp -r "$TMP/$v" "$TMP/junk-noroot-$v"
	junk_frames "$TMP/$v/perf.data.1" "$TMP/junk-noroot-$v/perf.data.1" "$TMP/noroot-$v/perf.data.1"
	if ! "$CONVERT" --quiet "$TMP/noroot-$v" -o "$TMP/noroot-$v.fxt" 2>"$TMP/noroot-$v.err"; then
		fail "measured-junk-noroot-$v" "conversion failed: $(first_lines "$TMP/noroot-$v.err")"
	else
		tree "$TMP/noroot-$v.fxt" >"$TMP/noroot-$v.want"
		tree_case "measured-junk-noroot-$v" "$TMP/junk-noroot-$v" "$TMP/noroot-$v.want" \
			"$TMP/junk-noroot-$v.fxt"
	fi
done

# measured-caller-skipped: measured-caller's calls; main+0x40 between them,
# then the second call's entry sample: step's first instruction, or its
# probe's in the [uprobes] page, under __libc_start_call_main (main
# skipped); no sample shows step under main (none shows step but that one)
skipped_sample() {
	local s at=$1 libc=/usr/lib/x86_64-linux-gnu/libc.so.6
	shift
	printf '             app   400/400      %s:     100000 cpu-clock:u: \n' "$at"
	for s; do printf '\t%s\n' "$s"; done
	printf '\t7f00000271ca __libc_start_call_main+0x7a (%s)\n\n' "$libc"
}
for v in step uprobes; do
	mkdir -p "$TMP/skipped-$v"
	cp "$TMP/cc/record.json" "$TMP/cc/measured-calls.txt" "$TMP/skipped-$v/"
	sleep_frames=('7f00000e5123 clock_nanosleep+0x23 (/usr/lib/x86_64-linux-gnu/libc.so.6)'
		'401035 main+0x35 (/opt/app)')
	entry='401250 step+0x0 (/opt/app)'
	[ $v = uprobes ] && entry='80 [unknown] ([uprobes])'
	{
		skipped_sample 30.000100000 "${sleep_frames[@]}"
		skipped_sample 30.000300000 "${sleep_frames[@]}"
		skipped_sample 30.000480000 '401040 main+0x40 (/opt/app)'
		skipped_sample 30.000510000 "$entry"
		skipped_sample 30.000700000 "${sleep_frames[@]}"
		skipped_sample 30.001000000 '401040 main+0x40 (/opt/app)'
	} >"$TMP/skipped-$v/perf.data.1"
	{
		printf '%s\n' '400 0 30000100000 30001100000 __libc_start_call_main' \
			'400 1 30000100000 30001100000 main' '400 2 30000100000 30000450000 step measured 400000' \
			'400 3 30000100000 30000400000 clock_nanosleep' '400 2 30000500000 30000900000 step measured 400000'
		[ $v = uprobes ] &&
			echo '400 3 30000510000 30000610000 [uprobe: a probed instruction, run out of line]'
		echo '400 3 30000700000 30000800000 clock_nanosleep'
	} >"$TMP/skipped-$v.want"
	tree_case "measured-caller-skipped-$v" "$TMP/skipped-$v" "$TMP/skipped-$v.want" "$TMP/skipped-$v.fxt"
done

# measured-leaf-skipped-caller: a sample in libc's __nanosleep straight
# under __libc_start_call_main (frame pointers skip main: __nanosleep keeps
# none) between two samples of main, then a call of step whose return
# address lies in handle, of a binary built here, whose symbols name it:
# main stays open under the leaf (sampling-leaf-skipped-caller's rule), so
# step goes under handle under main, never under __libc_start_call_main
# with no main (issue 24: 3 of about 700 calls of `--measure burn_cpu` in
# slow.c, after a vDSO sample)
LB="$TMP/leaf-bin"
printf '%s\n' '__attribute__((noinline)) int step(int x) { __asm__ volatile(""); return x + 1; }' \
	'__attribute__((noinline)) int handle(int x) { return step(x) * 2; }' \
	'int main(int argc, char **argv) { (void)argv; return handle(argc) - 4; }' >"$LB.c"
if ! gcc -O1 -fno-omit-frame-pointer -no-pie -o "$LB" "$LB.c" 2>"$LB.err"; then
	fail measured-leaf-skipped-caller "cannot build its binary: $(first_lines "$LB.err")"
else
	mkdir -p "$TMP/leaf"
	read -r step_at handle_at main_at < <(nm "$LB" | awk '$3 == "step" { s = $1 }
		$3 == "handle" { h = $1 } $3 == "main" { m = $1 } END { print s, h, m }')
	step_at=$((16#$step_at)) handle_at=$((16#$handle_at)) main_at=$((16#$main_at))
	sed -e "s|\"/opt/app\"|\"$LB\"|" -e "s|\"vaddr\": 4198992|\"vaddr\": $step_at|" \
		"$TMP/as/record.json" >"$TMP/leaf/record.json"
	printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
		"0 400 400 30000150000 30000190000 $(printf %+d $((handle_at + 5 - step_at)))" \
		>"$TMP/leaf/measured-calls.txt"
	{
		skipped_sample 30.000000000 "$(printf '%x main+0x10 (%s)' $((main_at + 16)) "$LB")"
		skipped_sample 30.000100000 '7f00000e9a58 __nanosleep+0x18 (/usr/lib/x86_64-linux-gnu/libc.so.6)'
		skipped_sample 30.000300000 "$(printf '%x main+0x14 (%s)' $((main_at + 20)) "$LB")"
	} >"$TMP/leaf/perf.data.1"
	printf '%s\n' '400 0 30000000000 30000400000 __libc_start_call_main' \
		'400 1 30000000000 30000400000 main' '400 2 30000100000 30000150000 __nanosleep' \
		'400 2 30000150000 30000190000 handle' '400 3 30000150000 30000190000 step measured 40000' \
		>"$TMP/leaf.want"
	tree_case measured-leaf-skipped-caller "$TMP/leaf" "$TMP/leaf.want" "$TMP/leaf.fxt"
	# measured-tail-called-nested: handle and step both measured; handle
	# tail-calls step (its calls file's caller: main's return address, as a
	# tail call leaves it), so step runs inside handle's call, which is
	# measured until main resumes: step goes under handle, never under a
	# frame of main drawn inside handle (issue 24: `--callgraph dwarf
	# --measure outer_a --measure inner_b`, each tail-called inner_b was)
	mkdir -p "$TMP/tail"
	m='"symbol": "%s", "name": "%s", "file": "%s", "vaddr": %d, "calls": 1, "total_ns": 1, "min_ns": 1, "p50_ns": 1, "p90_ns": 1, "p99_ns": 1, "max_ns": 1, "histogram": [], "slowest": [], "calls_file": "measured-calls.txt", "calls_written": 1, "calls_dropped": 0'
	sed -e "/\"spec\": \"step\"/,/\"calls_dropped\": 0}/c\\
    {\"spec\": \"handle\", $(printf "$m" handle handle "$LB" $handle_at)},\\
    {\"spec\": \"step\", $(printf "$m" step step "$LB" $step_at)}" \
		"$TMP/as/record.json" >"$TMP/tail/record.json"
	printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
		"0 400 400 30000100000 30000500000 $(printf %+d $((main_at + 4 - handle_at)))" \
		"1 400 400 30000200000 30000300000 $(printf %+d $((main_at + 4 - step_at)))" \
		>"$TMP/tail/measured-calls.txt"
	{
		skipped_sample 30.000000000 "$(printf '%x main+0x4 (%s)' $((main_at + 4)) "$LB")"
		skipped_sample 30.000250000 "$(printf '%x step+0x2 (%s)' $((step_at + 2)) "$LB")" \
			"$(printf '%x main+0x4 (%s)' $((main_at + 4)) "$LB")"
		skipped_sample 30.000600000 "$(printf '%x main+0x8 (%s)' $((main_at + 8)) "$LB")"
	} >"$TMP/tail/perf.data.1"
	printf '%s\n' '400 0 30000000000 30000700000 __libc_start_call_main' \
		'400 1 30000000000 30000700000 main' '400 2 30000100000 30000500000 handle measured 400000' \
		'400 3 30000200000 30000300000 step measured 100000' >"$TMP/tail.want"
	tree_case measured-tail-called-nested "$TMP/tail" "$TMP/tail.want" "$TMP/tail.fxt"
	# measured-before-samples-named: switch records reach back before the
	# thread's first sample (a sched_switch sample in usleep under main, made
	# after the call returned), and step's caller, handle, is on no frame:
	# the call goes under handle (named by its return address) under that
	# sample's frames up to its last of the binary, main (as the stack's are
	# kept: the library frames above it are its callees), never under
	# "[callers unknown]" (issue 24: a dwarf recording of slow.c's
	# --measure burn_cpu drew its first call so)
	mkdir -p "$TMP/bnamed"
	cp "$TMP/leaf/record.json" "$TMP/bnamed/"
	printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
		"0 400 400 30000100000 30000200000 $(printf %+d $((handle_at + 5 - step_at)))" \
		>"$TMP/bnamed/measured-calls.txt"
	{
		echo '             app   400/400      30.000000000: PERF_RECORD_SWITCH IN         '
		echo '             app   400/400      30.000300000:     1 sched:sched_switch: prev_comm=app prev_pid=400 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120'
		printf '\t%s\n' 'ffffffff82265908 __schedule+0x628 ([kernel.kallsyms])' \
			'ffffffff8143aefe __x64_sys_clock_nanosleep+0xde ([kernel.kallsyms])' \
			'7f00000e5123 clock_nanosleep+0x23 (/usr/lib/x86_64-linux-gnu/libc.so.6)' \
			'7f00000e9a53 __nanosleep+0x13 (/usr/lib/x86_64-linux-gnu/libc.so.6)' \
			'7f0000115295 usleep+0x25 (/usr/lib/x86_64-linux-gnu/libc.so.6)' \
			"$(printf '%x main+0x4 (%s)' $((main_at + 4)) "$LB")" \
			'7f00000271ca __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)'
		echo
		echo '             app   400/400      30.000300000: PERF_RECORD_SWITCH OUT        '
		echo '             app   400/400      30.001000000: PERF_RECORD_SWITCH IN         '
		skipped_sample 30.001100000 "$(printf '%x main+0x8 (%s)' $((main_at + 8)) "$LB")"
	} >"$TMP/bnamed/perf.data.1"
	printf '%s\n' '400 0 30000100000 30001200000 __libc_start_call_main' \
		'400 1 30000100000 30001200000 main' '400 2 30000100000 30000200000 handle' \
		'400 3 30000100000 30000200000 step measured 100000' \
		'400 2 30000300000 30001100000 usleep' '400 3 30000300000 30001100000 __nanosleep' \
		'400 4 30000300000 30001000000 clock_nanosleep' '400 5 30000300000 30001000000 [off-cpu]' \
		>"$TMP/bnamed.want"
	tree_case measured-before-samples-named "$TMP/bnamed" "$TMP/bnamed.want" "$TMP/bnamed.fxt"
	# (-leaf: the sample that follows is in a later call of step, its leaf,
	# straight under main: no frame of step nor the leaf goes under the call)
	mkdir -p "$TMP/bnamed-leaf"
	cp "$TMP/leaf/record.json" "$TMP/bnamed-leaf/"
	{
		cat "$TMP/bnamed/measured-calls.txt"
		echo "0 400 400 30000250000 30000350000 $(printf %+d $((handle_at + 5 - step_at)))"
	} >"$TMP/bnamed-leaf/measured-calls.txt"
	{
		echo '             app   400/400      30.000000000: PERF_RECORD_SWITCH IN         '
		skipped_sample 30.000300000 "$(printf '%x step+0x2 (%s)' $((step_at + 2)) "$LB")" \
			"$(printf '%x main+0x4 (%s)' $((main_at + 4)) "$LB")"
		skipped_sample 30.000400000 "$(printf '%x main+0x8 (%s)' $((main_at + 8)) "$LB")"
	} >"$TMP/bnamed-leaf/perf.data.1"
	printf '%s\n' '400 0 30000100000 30000500000 __libc_start_call_main' \
		'400 1 30000100000 30000500000 main' '400 2 30000100000 30000200000 handle' \
		'400 3 30000100000 30000200000 step measured 100000' \
		'400 2 30000250000 30000350000 handle' '400 3 30000250000 30000350000 step measured 100000' \
		>"$TMP/bnamed-leaf.want"
	tree_case measured-before-samples-named-leaf "$TMP/bnamed-leaf" "$TMP/bnamed-leaf.want" \
		"$TMP/bnamed-leaf.fxt"
fi

# measured-caller-past-sample: the sample right after a call's return is in
# the [uprobes] page (its return probe's instruction run out of line:
# frame pointers skip main there, as at the entry); main, on the stack at
# the entry, is the call's caller all the same: the call goes under it,
# never under __libc_start_call_main (issue 24: 1 run in 10 of
# measure_after_sleep drew one call so)
mkdir -p "$TMP/past"
cp "$TMP/cc/record.json" "$TMP/past/"
printf '%s\n' '# snaptrace measured calls 2: index pid tid entry_ns end_ns caller [exception]' \
	'0 400 400 30000150000 30000190000 -539' >"$TMP/past/measured-calls.txt"
{
	skipped_sample 30.000100000 '401040 main+0x40 (/opt/app)'
	skipped_sample 30.000200000 '80 [unknown] ([uprobes])'
	skipped_sample 30.000300000 '401040 main+0x40 (/opt/app)'
} >"$TMP/past/perf.data.1"
printf '%s\n' '400 0 30000100000 30000400000 __libc_start_call_main' \
	'400 1 30000100000 30000200000 main' '400 2 30000150000 30000190000 step measured 40000' \
	'400 1 30000200000 30000300000 [uprobe: a probed instruction, run out of line]' \
	'400 1 30000300000 30000400000 main' >"$TMP/past.want"
tree_case measured-caller-past-sample "$TMP/past" "$TMP/past.want" "$TMP/past.fxt"

# measured-caller-entry-sample: the sample right before the entry's
# timestamp is at step's first instruction (its entry probe traps there
# before the probe reads the clock), straight under __libc_start_call_main:
# that frame of step is no caller of the call (nor main's place): the call
# goes under main, which the sample after it shows
mkdir -p "$TMP/entrys"
cp "$TMP/cc/record.json" "$TMP/past/measured-calls.txt" "$TMP/entrys/"
{
	skipped_sample 30.000100000 '401040 main+0x40 (/opt/app)'
	skipped_sample 30.000140000 '401250 step+0x0 (/opt/app)'
	skipped_sample 30.000300000 '401040 main+0x40 (/opt/app)'
} >"$TMP/entrys/perf.data.1"
printf '%s\n' '400 0 30000100000 30000400000 __libc_start_call_main' \
	'400 1 30000100000 30000140000 main' '400 1 30000140000 30000150000 step' \
	'400 1 30000150000 30000400000 main' '400 2 30000150000 30000190000 step measured 40000' \
	>"$TMP/entrys.want"
tree_case measured-caller-entry-sample "$TMP/entrys" "$TMP/entrys.want" "$TMP/entrys.fxt"

# measured-unnamed: a stripped binary's function, measured by its address
# (record.json's symbol and name "", as recorders before issue 24's fix
# wrote them, or its name "[unnamed @ 0x401250]"), and a slow-call
# trigger's hits of it: every call is a slice "[unnamed @ 0x401250]" under
# its caller (main's unsymbolized frame at the recorded return address),
# the unsymbolized frames of the file inside it, and one measured row of
# snaptrace stats --function addr:0x401250, beside the function's row of
# all its slices (issue 24: each call took the name of an unsymbolized
# frame of the file the samples showed, main's, a row each)
UN="$SNAPTRACE_TOP/tests/cases/measured-unnamed"
# (also by its binary's path, as `snaptrace symbols FILE` prints it,
# /opt/app:addr:0x401250, and LIB:[unnamed @ 0x401250]: the recorder's
# spellings; another binary's is no row)
unnamed_case() {   # NAME DIR: DIR converted has UN's expected-tree.txt, one measured stats row
	local row spec
	tree_case "$1" "$2" "$UN/expected-tree.txt" "$2.fxt"
	for spec in addr:0x401250 /opt/app:addr:0x401250 'app:[unnamed @ 0x401250]' libz:addr:0x401250; do
		row=$("$SNAPTRACE_BIN/snaptrace-stats" -q --format csv --function "$spec" "$2.fxt" 2>/dev/null |
			awk -F, 'NR > 1 && !NF { exit } NR > 1 { print $1, $2, $(NF - 1), $NF }' | tr '\n' '|')
		[ "$row" = '[unnamed @ 0x401250] 2 /opt/app measured|[unnamed @ 0x401250]  /opt/app all|' ] ||
			[ "$spec$row" = libz:addr:0x401250 ] ||
			fail "$1-stats" "--function $spec: '$row', expected one measured row of 2 calls and the row of all its slices"
	done
}
mkdir -p "$TMP/un"
cp "$UN/perf.data.1" "$UN/record.json" "$UN/measured-calls.txt" "$TMP/un/"
unnamed_case measured-unnamed "$TMP/un"
cp -r "$TMP/un" "$TMP/un-named"
json_replace "$TMP/un-named/record.json" '"name": ""' '"name": "[unnamed @ 0x401250]"'
unnamed_case measured-unnamed-name "$TMP/un-named"
# the slow-call trigger (no --measure): the hits are its calls
mkdir -p "$TMP/un-hits"
cp "$UN/perf.data.1" "$TMP/un-hits/"
sed -e 's/"trigger": null/"trigger": {"spec": "addr:0x401250", "mechanism": "uprobe", "file": "\/opt\/app", "symbol": "", "name": "", "vaddr": 4198992, "file_offset": 4688, "slower_than_ns": 300000}/' \
	-e '/"measure": \[/,/^  \],/d' \
	-e 's/"hits": \[\]/"measure": [], "hits": [{"pid": 400, "tid": 400, "time_ns": 30000460000, "entry_ns": 30000050000, "duration_ns": 400000, "caller": -539, "ip": null, "args": null, "snapshot": 0}, {"pid": 400, "tid": 400, "time_ns": 30000910000, "entry_ns": 30000500000, "duration_ns": 400000, "caller": -539, "ip": null, "args": null, "snapshot": 0}]/' \
	"$UN/record.json" >"$TMP/un-hits/record.json"
unnamed_case measured-unnamed-trigger "$TMP/un-hits"
# beside a --measure of another unnamed function of the file (0x401310, no
# call): the trigger's calls are still drawn (two functions without a name
# were one by their name "")
cp -r "$TMP/un-hits" "$TMP/un-beside"
sed -n '/"measure": \[/,/^  \],/p' "$UN/record.json" | sed 's/4198992/4199184/' >"$TMP/un-beside.m"
json_replace "$TMP/un-beside/record.json" '"measure": [], ' "$(tr -d '\n' <"$TMP/un-beside.m") "
head -1 "$UN/measured-calls.txt" >"$TMP/un-beside/measured-calls.txt"
unnamed_case measured-unnamed-trigger-beside "$TMP/un-beside"

if "$CONVERT" --dump=records "$TMP/m.fxt" 2>/dev/null |
	grep -qF 'function=step\x09dso=/opt/app\x09calls=5\x09total_ns=2371000\x09min_ns=30000\x09p50_ns=370000\x09p90_ns=1150000\x09p99_ns=1150000\x09max_ns=1150000\x09buckets=16384:32768:1,262144:524288:2,1048576:2097152:2"'; then
	ok measured-info
else
	fail measured-info "no info record with step's whole run: $("$CONVERT" --dump=records "$TMP/m.fxt" | grep -m 1 function= )"
fi

# measured-window-cut: a hit at 20.0009 s and --window 200us,100us keep
# 20.0007 to 20.001 s: the call left by an exception (20.00035 to 20.00072 s)
# is cut at the window's edge, the last call (20.00085 to 20.002 s) at the
# snapshot's; the converter's summary counts both, as snaptrace stats does
# (issue 24: only stats said so)
cp -r "$D" "$TMP/win"
if ! json_replace "$TMP/win/record.json" '"hits": []' \
	'"hits": [{"pid": 300, "tid": 300, "time_ns": 20000900000, "ip": 4198992, "args": null, "snapshot": 0}]' ||
	! "$CONVERT" --window 200us,100us "$TMP/win" -o "$TMP/win.fxt" 2>"$TMP/win.err"; then
	fail measured-window-cut "conversion failed: $(first_lines "$TMP/win.err")"
elif ! grep -qF -- '--window 200us,100us: 2 intervals kept, ' "$TMP/win.err" ||
	! grep -qF -- '; 2 measured calls cut short at an edge (its slice what the trace holds, its duration_ns the whole call)' "$TMP/win.err"; then
	fail measured-window-cut "summary: $(grep -F -- '--window' "$TMP/win.err")"
elif ! tree "$TMP/win.fxt" | grep -qx '300 3 20000700000 20000720000 step measured 370000 exception'; then
	fail measured-window-cut "the cut call: $(tree "$TMP/win.fxt" | tr '\n' '|')"
elif ! "$CONVERT" --window 200us,100us --quiet "$TMP/win" -o "$TMP/win2.fxt" 2>"$TMP/win2.err" ||
	[ -s "$TMP/win2.err" ]; then
	fail measured-window-cut "--quiet said: $(first_lines "$TMP/win2.err")"
else
	ok measured-window-cut
fi

# the calls in threads the recording left out (record.json, without
# --multi-thread) go into the info record, for snaptrace stats to say so
cp -r "$D" "$TMP/unrec"
if ! json_replace "$TMP/unrec/record.json" '"calls_dropped": 0}' \
	'"calls_dropped": 0, "calls_unrecorded": 2, "threads_unrecorded": [302, 303]}' ||
	! "$CONVERT" --quiet "$TMP/unrec" -o "$TMP/unrec.fxt" 2>"$TMP/unrec.err" ||
	! "$CONVERT" --dump=records "$TMP/unrec.fxt" 2>/dev/null |
	grep -qF 'max_ns=1150000\x09calls_unrecorded=2\x09threads_unrecorded=302,303\x09buckets='; then
	fail measured-info-unrecorded "no calls_unrecorded in the info record: $(first_lines "$TMP/unrec.err") $("$CONVERT" --dump=records "$TMP/unrec.fxt" 2>/dev/null | grep -m 1 function= )"
else
	ok measured-info-unrecorded
fi

# bad NAME SED_ON_CALLS PATTERN: the calls file changed by SED is refused
bad() {
	local d="$TMP/bad-$1"
	rm -rf "$d"
	cp -r "$D" "$d"
	sed -i "$2" "$d/measured-calls.txt"
	rm -f "$TMP/bad.fxt"
	if "$CONVERT" --quiet "$d" -o "$TMP/bad.fxt" 2>"$TMP/bad.err"; then
		echo " [$1: converted]"
	elif [ "$(wc -l <"$TMP/bad.err")" -ne 1 ] || ! grep -q -- "$3" "$TMP/bad.err" ||
		[ -e "$TMP/bad.fxt" ]; then
		echo " [$1: $(first_lines "$TMP/bad.err")]"
	fi
}
why=$(bad caller '3s/$/ +x/' 'measured-calls.txt:3: expected INDEX PID TID ENTRY_NS END_NS CALLER')
why+=$(bad word '3s/ 300 / x /' 'measured-calls.txt:3: expected INDEX PID TID ENTRY_NS END_NS CALLER .exception.')
why+=$(bad index '3s/^0 /1 /' 'measured-calls.txt:3: expected INDEX PID TID')
why+=$(bad order '3s/20000250000 20000280000/20000280000 20000250000/' 'measured-calls.txt:3: expected')
why+=$(bad extra '3s/$/ 7/' 'measured-calls.txt:3: expected')
# the line shown as the one excerpt rule (esc_excerpt(): its end too, ESC
# escaped; '%.80s' showed its first 80 bytes)
why+=$(bad excerpt "3s/\$/ $(printf 'y%.0s' $(seq 180))TAIL\x1b/" \
	"measured-calls.txt:3: expected .*, found '0 .*yyy\.\.\.yyy.*TAIL\\\\x1b'\$")
# bad_json WHAT OLD NEW PATTERN: record.json with OLD replaced by NEW is
# refused, the error matching PATTERN
bad_json() {
	rm -rf "$TMP/bad-json"
	cp -r "$D" "$TMP/bad-json"
	if ! json_replace "$TMP/bad-json/record.json" "$2" "$3" ||
		"$CONVERT" --quiet "$TMP/bad-json" -o "$TMP/bad.fxt" 2>"$TMP/bad.err" ||
		! grep -q "$4" "$TMP/bad.err"; then
		echo " [$1: $(first_lines "$TMP/bad.err")]"
	fi
}
why+=$(bad_json 'a path as calls_file' '"calls_file": "measured-calls.txt"' \
	'"calls_file": "../measured-calls.txt"' \
	'record.json: measure\[0\].calls_file: expected a file name in the recording')
why+=$(bad_json 'a thread that is no id in threads_unrecorded' '"calls_dropped": 0}' \
	'"calls_dropped": 0, "calls_unrecorded": 2, "threads_unrecorded": [302, "x"]}' \
	'record.json: measure\[0\].threads_unrecorded: expected thread ids')
if [ -n "$why" ]; then fail measured-errors "$why"; else ok measured-errors; fi
