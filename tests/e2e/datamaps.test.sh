#!/usr/bin/env bash
# tier: record
# Frames in memory that holds no code, end to end (docs/design.md "A chain
# cut at an address in no mapping"): tests/e2e/jit_target.c's mode j has a
# frame-pointer walk read a return address in a mapping that is not
# executable, anonymous (as Debian's python3's walks read its obmalloc
# arenas' pointers: //anon frames) and a file's, and runs a JIT's code in
# executable anonymous memory named by a perf map; the addresses are the
# ones the program printed (its mappings and the junk word it laid).
#   datamaps-run       `snaptrace run --trigger none` (sampling, --callgraph
#                      fp, perf's -d): exit 0, the trace reads back, no
#                      frame at the junk address in //anon nor at its offset
#                      in the file (perf prints a file's frame at its offset),
#                      none in either mapping at all; dm_leaf under
#                      dm_frameless (the frames inside the junk kept), and
#                      under dm_jit_call (the JIT's frame, executable
#                      anonymous memory, kept in a chain's middle, named
#                      from the perf map); the summary counts the stacks cut;
#                      perf recorded the anonymous mapping, not executable
#                      (else another rule cuts those frames: nothing tested).
#   datamaps-paths     the recording converted again: as a recording
#                      directory (its snapshot), its perf.data alone, and
#                      each with --no-dlfilter: the same checks (the JIT's
#                      frame of the perf.data alone may be its address: the
#                      recording's copy of the map is the directory's), the
#                      directory's slices the first conversion's, the
#                      perf.data's the same with and without the dlfilter.
# Needs perf to record here, cc and an x86-64 host. Never leaves perf or
# the target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN
MAP=
cleanup() {
	[ -n "$MAP" ] && rm -f "$MAP"
	group_cleanup
}
on_exit cleanup

need_built datamaps "$CONVERT" "$RECORD"
requires datamaps recording cc x86_64 || exit 0
cc_target datamaps tests/e2e/jit_target.c "$TMP/jit_target"

mkdir -p "$TMP/work"
run_group "$TMP/run.out" "$TMP/run.err" "$FRONT" run --trigger none "${WHOLE_RUN[@]}" -d "$TMP/rec" \
	-o "$TMP/run.fxt.gz" -- "$TMP/jit_target" "$TMP/work" 300 j
rc=$?
pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/run.err" | head -n 1)
[ -n "$pid" ] && MAP=/tmp/perf-$pid.map
if [ $rc -ne 0 ]; then
	fail_recording datamaps-run "snaptrace run failed" "$rc" "$TMP/run.err" "$TMP/rec"
	fail datamaps-paths "no recording"
	exit 0
fi
# what the program made: its lines "anon LO HI JUNK", "file LO HI JUNK PATH"
read -r _ alo ahi ajunk < <(grep '^anon ' "$TMP/run.out")
read -r _ flo fhi fjunk fpath < <(grep '^file ' "$TMP/run.out")
if [ -z "$ajunk" ] || [ -z "$fpath" ]; then
	fail datamaps-run "the program printed no mappings: $(first_lines "$TMP/run.out")"
	fail datamaps-paths "no recording"
	exit 0
fi
foff=$(printf '%x' $((0x$fjunk - 0x$flo)))

# bad_frames SLICES: the slices in either data mapping, one a line: a frame
# of //anon between the anonymous mapping's bounds, or of the file at all.
bad_frames() {
	local a
	grep -F "($fpath)]" "$1"
	sed -n 's|.* \[unknown @ 0x\([0-9a-f]*\) (//anon)\]$|\1|p' "$1" | sort -u | while read -r a; do
		if (( 0x$a >= 0x$alo && 0x$a < 0x$ahi )); then echo "[unknown @ 0x$a (//anon)]"; fi
	done
}

# check NAME FXT JIT: the frames of one conversion into $TMP/NAME.slices;
# JIT is the JIT frame's name (a regular expression); returns 1 with WHY
# when one is wrong.
check() {
	local s=$TMP/$1.slices bad
	WHY=
	if ! "$CONVERT" --dump=slices "$2" >"$s" 2>"$TMP/$1.dump.err"; then
		WHY="the trace does not read back: $(first_lines "$TMP/$1.dump.err")"
		return 1
	fi
	bad=$(bad_frames "$s" | head -n 3 | tr '\n' '|')
	if grep -q " \[unknown @ 0x$ajunk (//anon)\]$" "$s"; then
		WHY="a frame at the junk address 0x$ajunk in //anon (not executable)"
	elif grep -qF " [unknown @ 0x$foff ($fpath)]" "$s"; then
		WHY="a frame at the junk's offset 0x$foff in $fpath (mapped without PROT_EXEC)"
	elif [ -n "$bad" ]; then
		WHY="frames in the data mappings: $bad"
	elif ! awk '$3 == "dm_frameless" { f[$1, $2] = 1 } $3 == "dm_leaf" && f[$1, $2 - 1] { n++ }
		    END { exit !n }' "$s"; then
		WHY="no dm_leaf under dm_frameless: $(cut -d' ' -f3- "$s" | sort -u | head -n 12 | tr '\n' '|')"
	elif ! awk -v jit="^($3)$" '{ n = $3; for (i = 4; i <= NF; i++) n = n " " $i; at[$1, $2] = n }
		    $3 == "dm_leaf" && at[$1, $2 - 1] ~ jit { k++ } END { exit !k }' "$s"; then
		WHY="no dm_leaf under dm_jit_call (the JIT's frame): $(cut -d' ' -f3- "$s" | sort -u | head -n 12 | tr '\n' '|')"
	fi
	[ -z "$WHY" ]
}

data=$(ls "$TMP"/rec/perf.data* 2>/dev/null | head -n 1)
if ! check datamaps-run "$TMP/run.fxt.gz" dm_jit_call; then
	fail datamaps-run "$WHY"
elif ! "${SNAPTRACE_PERF:-perf}" script -i "$data" --show-mmap-events 2>/dev/null |
	grep -q "PERF_RECORD_MMAP2 .*\[0x$alo(0x[0-9a-f]*) @ .*\]: rw-p //anon$"; then
	# the frames above are cut by another rule where data mappings are not recorded
	fail datamaps-run "perf recorded no data mapping at 0x$alo (the recorder's -d): nothing tested"
elif ! grep -q 'sampled call stacks\? cut at an address of no code' "$TMP/run.err"; then
	fail datamaps-run "the summary counts no stack cut: $(grep -c . "$TMP/run.err") lines of it"
else
	ok datamaps-run
fi

# t_paths: the recording directory and its perf.data, each with and
# without the dlfilter, give the trace the first conversion gave.
t_paths() {
	local args what diffs=
	if [ -z "$data" ]; then
		fail datamaps-paths "no perf.data in $TMP/rec"
		return
	fi
	for what in "dir|$TMP/rec" "dir-no-dlfilter|$TMP/rec --no-dlfilter" \
		"file|$data" "file-no-dlfilter|$data --no-dlfilter"; do
		read -ra args <<<"${what#*|}"
		if ! "$CONVERT" --quiet "${args[@]}" -o "$TMP/${what%%|*}.fxt.gz" 2>"$TMP/${what%%|*}.err"; then
			fail datamaps-paths "${what%%|*}: conversion failed: $(first_lines "$TMP/${what%%|*}.err")"
			return
		fi
		# a perf.data alone: the recording's copy of the perf map is not
		# read (jit.test.sh), the JIT's frame is its address
		if ! check "${what%%|*}" "$TMP/${what%%|*}.fxt.gz" \
			"dm_jit_call|\\[unknown @ 0x[0-9a-f]+ \\(/tmp/perf-$pid\\.map\\)\\]"; then
			fail datamaps-paths "${what%%|*}: $WHY"
			return
		fi
		# the dlfilter changes no sampled trace; the directory's is the first one
		case $what in
		dir*) cmp -s "$TMP/datamaps-run.slices" "$TMP/${what%%|*}.slices" ;;
		file-no-dlfilter*) cmp -s "$TMP/file.slices" "$TMP/${what%%|*}.slices" ;;
		esac || diffs+=" ${what%%|*}"
	done
	if [ -n "$diffs" ]; then
		fail datamaps-paths "slices unlike the first conversion's:$diffs"
	else
		ok datamaps-paths
	fi
}
t_paths
