#!/usr/bin/env bash
# tier: record
# JIT code and code without a binary, end to end: tests/e2e/jit_target.c runs
# one function copied into anonymous memory named by a perf map
# (/tmp/perf-PID.map), into anonymous memory named by a jitdump
# (jit-PID.dump, when asked), into a memfd, and into a file deleted after
# mapping it.
#   jit-run        `snaptrace run --trigger none` records and converts it: exit
#                  0, the trace reads back, perf's names are on the frames
#                  (jit_perfmap_spin in /tmp/perf-PID.map; the memfd's and the
#                  deleted file's frames as [unknown @ ADDR (DSO)]), and the
#                  summary counts that code as JIT or anonymous.
#   jit-convert    the recording converted again (the double elf_end of a
#                  perf map once crashed here, exit 139, after a good trace).
#   jit-map-kept   the recording keeps a copy of the perf map (perf-PID.map);
#                  converted again with /tmp/perf-PID.map gone, and then
#                  replaced by another process's map (the pid reused),
#                  jit_perfmap_spin is still named, from the copy, without
#                  a warning; without the copy and the file, one line warns
#                  that the JIT's functions show as addresses (before, the
#                  frames became one [unknown @ ADDR] slice without a word).
#   jit-map-removed a JIT that removes its perf map as it exits: the
#                  recording keeps the map (held from when it appeared) and
#                  its first conversion names jit_perfmap_spin (the recorder
#                  once copied maps only at its end, when this one was gone:
#                  every frame of it an address).
#   jit-child      the JIT a child of the launched program (`sh -c 'JIT; true'`:
#                  the shell forks it), recorded with --multi-thread: the
#                  recording keeps the child's map (perf-CHILD.map), lists
#                  the child's user in record.json's "uids", and its
#                  conversions name jit_perfmap_spin, also with
#                  /tmp/perf-CHILD.map gone (a pid the recording did not
#                  list once got no map at all: every JIT frame an address)
#   jitdump        with the jitdump: the recording is in CLOCK_MONOTONIC
#                  (perf -k mono), the converter runs perf inject --jit on a
#                  private copy, and jit_dump_spin is named, in the ELF perf
#                  inject wrote into its private directory (./jitted-PID-0.so),
#                  nothing written beside the jitdump (and jit_perfmap_spin
#                  still from the map).
#   jitdump-shared the same recording, its jitdump's directory writable by
#                  others: still read (perf inject reads only the private
#                  copy and writes only into its private directory), nothing
#                  written there, no warning.
#   jitdump-concurrent two recordings of the JIT with its jitdump made side
#                  by side (snaptrace run: each recorded and converted),
#                  then both converted again at once (perf inject --jit
#                  twice at a time, in one /tmp, one HOME): each names
#                  jit_dump_spin and jit_perfmap_spin, without a warning
#                  about the JIT (what two users converting JIT recordings
#                  at once get).
#   jitdump-perf-arg the same recording converted from another directory
#                  with a relative --perf-arg=--symfs=sym holding only the
#                  JIT's program: perf script (run in perf inject's private
#                  directory) finds sym in the caller's directory: its
#                  function run is named.
#   jit-symbols    `snaptrace symbols PID` of the program while it runs: its
#                  functions listed; the memfd and the deleted file skipped,
#                  never opened by the name the kernel shows for them (a FIFO
#                  planted there once hung the listing).
# Needs perf to record here, cc and an x86-64 host. Never leaves perf or
# the target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN
TARGET_PID=
MAPS=()   # the perf maps the targets wrote (perf script reads them at each conversion)
CONC_PIDS=()   # jitdump-concurrent's sessions (setsid), while they run
cleanup() {
	local p
	for p in "${CONC_PIDS[@]}"; do
		stop_group "$p"
	done
	[ -n "$TARGET_PID" ] && kill -KILL "$TARGET_PID" 2>/dev/null && wait "$TARGET_PID" 2>/dev/null
	rm -f /tmp/perf-"$TARGET_PID".map "${MAPS[@]}"
	group_cleanup
}
on_exit cleanup

need_built jit "$CONVERT" "$RECORD"
requires jit recording cc x86_64 || exit 0
cc_target jit tests/e2e/jit_target.c "$TMP/jit_target"

# record NAME FLAGS: snaptrace run of the target (150 ms in each copy) into
# $TMP/NAME (recording) and $TMP/NAME.fxt.gz, messages in $TMP/NAME.err,
# with a ring that holds the whole run (the JIT's copies run first);
# returns its exit status. The perf map it wrote stays until the end (as a
# JIT's does: perf reads it at each conversion).
record() {
	local rc pid
	mkdir -p "$TMP/$1.work"
	run_group "$TMP/$1.out" "$TMP/$1.err" "$FRONT" run --trigger none "${WHOLE_RUN[@]}" -d "$TMP/$1" \
		-o "$TMP/$1.fxt.gz" -- "$TMP/jit_target" "$TMP/$1.work" 150 $2
	rc=$?
	pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/$1.err" | head -n 1)
	[ -n "$pid" ] && MAPS+=("/tmp/perf-$pid.map")
	return $rc
}

# slices NAME FXT: the slices of FXT into $TMP/NAME.slices; 1 after a FAIL.
slices() {
	if ! "$CONVERT" --dump=slices "$2" >"$TMP/$1.slices" 2>"$TMP/$1.dump.err"; then
		fail "$1" "the trace does not read back: $(first_lines "$TMP/$1.dump.err")"
		return 1
	fi
}

# names NAME: the distinct slice names of $TMP/NAME.slices on one line.
names() {
	cut -d' ' -f3- "$TMP/$1.slices" | sort -u | head -n 14 | tr '\n' '|'
}

# check NAME FXT ERR: the frames and the source-line summary of one conversion.
check() {
	local name=$1 s=$TMP/$1.slices
	slices "$name" "$2" || return
	if ! grep -q " jit_perfmap_spin$" "$s"; then
		fail "$name" "no jit_perfmap_spin slice (the perf map's name): $(names "$name")"
	elif ! grep -q ' \[unknown @ 0x[0-9a-f]* (/memfd:snaptrace-jit (deleted))\]$' "$s"; then
		fail "$name" "no frame in the memfd: $(names "$name")"
	elif ! grep -q " \[unknown @ 0x[0-9a-f]* ($TMP/run.work/deleted-code)\]$" "$s"; then
		fail "$name" "no frame in the deleted file: $(names "$name")"
	elif ! grep -q 'source lines: .* [1-9][0-9]* in JIT or anonymous code' "$3"; then
		fail "$name" "the summary counts no JIT code: $(grep 'source lines' "$3")"
	else
		ok "$name"
	fi
}

record run ""
rc=$?
if [ $rc -ne 0 ]; then
	fail jit-run "exit $rc: $(grep -v '^snaptrace: \(mode\|note\|recording\)' "$TMP/run.err" | first_lines /dev/stdin)"
else
	check jit-run "$TMP/run.fxt.gz" "$TMP/run.err"
fi

# t_convert: the kept recording converted again.
t_convert() {
	local rc
	if [ ! -f "$TMP/run/record.json" ]; then
		fail jit-convert "no recording kept in $TMP/run"
		return
	fi
	"$CONVERT" "$TMP/run" -o "$TMP/again.fxt.gz" >/dev/null 2>"$TMP/again.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail jit-convert "exit $rc: $(tail -n 2 "$TMP/again.err" | tr '\n' '|')"
	else
		check jit-convert "$TMP/again.fxt.gz" "$TMP/again.err"
	fi
}
t_convert

# t_map_kept: the perf map kept in the recording names the JIT's frames
# when the file perf reads is gone or another process's.
t_map_kept() {
	local pid map copy bad=""
	pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/run.err" | head -n 1)
	map=/tmp/perf-$pid.map
	copy=$TMP/run/perf-$pid.map
	if [ -z "$pid" ] || [ ! -f "$copy" ] || ! cmp -s "$copy" "$map"; then
		fail jit-map-kept "expected the recording to keep $map as $copy: $(ls "$TMP/run" | tr '\n' ' ')"
		return
	fi
	mv "$map" "$TMP/map.orig"
	"$CONVERT" "$TMP/run" -o "$TMP/gone.fxt" >/dev/null 2>"$TMP/gone.err"
	slices jit-map-kept "$TMP/gone.fxt" || return
	grep -q " jit_perfmap_spin$" "$TMP/jit-map-kept.slices" ||
		bad="$bad [map gone: no jit_perfmap_spin: $(names jit-map-kept)]"
	grep -q 'perf map' "$TMP/gone.err" && bad="$bad [map gone: $(grep 'perf map' "$TMP/gone.err")]"
	# another process's map at the same name (the pid reused): its names are not the recording's
	(set -C && sed 's/jit_perfmap_spin/another_process_fn/' "$TMP/map.orig" >"$map") || {
		fail jit-map-kept "cannot write $map"; return; }
	"$CONVERT" "$TMP/run" -o "$TMP/other.fxt" >/dev/null 2>"$TMP/other.err"
	slices jit-map-kept "$TMP/other.fxt" || return
	grep -q " jit_perfmap_spin$" "$TMP/jit-map-kept.slices" &&
		! grep -q another_process_fn "$TMP/jit-map-kept.slices" ||
		bad="$bad [another's map: $(names jit-map-kept)]"
	rm -f "$map"
	# neither the file nor a copy: one line says so
	mkdir -p "$TMP/nocopy"
	cp "$TMP/run/record.json" "$TMP"/run/perf.data.* "$TMP/nocopy/"
	"$CONVERT" "$TMP/nocopy" -o "$TMP/nocopy.fxt" >/dev/null 2>"$TMP/nocopy.err"
	[ "$(grep -c "the JIT's perf map $map is gone: its functions show as addresses" "$TMP/nocopy.err")" = 1 ] ||
		bad="$bad [no copy: $(grep -i 'perf map\|warning' "$TMP/nocopy.err" | head -n 2 | tr '\n' '|')]"
	mv "$TMP/map.orig" "$map"
	if [ -n "$bad" ]; then
		fail jit-map-kept "$bad"
	else
		ok jit-map-kept
	fi
}
t_map_kept

# t_map_removed: the map a JIT removed as it exited, kept and used.
t_map_removed() {
	local rc pid
	record removed u
	rc=$?
	pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/removed.err" | head -n 1)
	if [ $rc -ne 0 ] || [ -z "$pid" ]; then
		fail jit-map-removed "exit $rc: $(grep -v '^snaptrace: \(mode\|note\|recording\)' "$TMP/removed.err" | first_lines /dev/stdin)"
	elif [ -e "/tmp/perf-$pid.map" ]; then
		fail jit-map-removed "the target did not remove /tmp/perf-$pid.map"
	elif ! grep -q " jit_perfmap_spin$" "$TMP/removed/perf-$pid.map" 2>/dev/null; then
		fail jit-map-removed "the recording keeps no copy of its map: $(ls "$TMP/removed" | tr '\n' ' ') $(grep -i 'perf map\|perf-' "$TMP/removed.err" | first_lines /dev/stdin)"
	elif slices jit-map-removed "$TMP/removed.fxt.gz"; then
		if grep -q " jit_perfmap_spin$" "$TMP/jit-map-removed.slices"; then
			ok jit-map-removed
		else
			fail jit-map-removed "no jit_perfmap_spin slice: $(names jit-map-removed)"
		fi
	fi
}
t_map_removed

# t_child: the map of a JIT that is the launched shell's child, kept.
t_child() {
	local rc pid c copies bad=""
	mkdir -p "$TMP/child.work"
	run_group "$TMP/child.out" "$TMP/child.err" "$FRONT" run --trigger none --multi-thread \
		"${WHOLE_RUN[@]}" -d "$TMP/child" -o "$TMP/child.fxt.gz" -- \
		sh -c '"$0" "$1" 150; true' "$TMP/jit_target" "$TMP/child.work"
	rc=$?
	pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/child.err" | head -n 1)
	copies=$(cd "$TMP/child" 2>/dev/null && ls perf-*.map 2>/dev/null | tr '\n' ' ')
	c=$(echo "$copies" | sed -n 's/^perf-\([0-9]*\)\.map $/\1/p')
	[ -n "$c" ] && MAPS+=("/tmp/perf-$c.map")
	if [ $rc -ne 0 ] || [ -z "$pid" ]; then
		fail jit-child "exit $rc: $(grep -v '^snaptrace: \(mode\|note\|recording\)' "$TMP/child.err" | first_lines /dev/stdin)"
		return
	elif [ -z "$c" ] || [ "$c" = "$pid" ]; then
		fail jit-child "expected one copy, the child's map, in the recording (launched $pid): '$copies' $(grep -i 'perf map\|perf-' "$TMP/child.err" | first_lines /dev/stdin)"
		return
	fi
	grep -q "{\"pid\": $c, \"uid\": $(id -u), \"euid\": $(id -u), \"born\": [0-9]*}" "$TMP/child/record.json" ||
		bad+="[record.json's uids do not list the child $c: $(grep uids "$TMP/child/record.json")]"
	if slices jit-child "$TMP/child.fxt.gz"; then
		grep -q " jit_perfmap_spin$" "$TMP/jit-child.slices" ||
			bad+="[no jit_perfmap_spin slice: $(names jit-child) $(grep -i 'perf map' "$TMP/child.err" | first_lines /dev/stdin)]"
	fi
	# /tmp's map gone: the copy names the child's frames, without a word
	mv "/tmp/perf-$c.map" "$TMP/child.map.orig"
	"$CONVERT" "$TMP/child" -o "$TMP/child.gone.fxt" >/dev/null 2>"$TMP/child.gone.err"
	mv "$TMP/child.map.orig" "/tmp/perf-$c.map"
	if slices jit-child "$TMP/child.gone.fxt"; then
		grep -q " jit_perfmap_spin$" "$TMP/jit-child.slices" ||
			bad+="[map gone: no jit_perfmap_spin: $(names jit-child)]"
		grep -q 'perf map' "$TMP/child.gone.err" &&
			bad+="[map gone: $(grep 'perf map' "$TMP/child.gone.err")]"
	fi
	if [ -n "$bad" ]; then
		fail jit-child "$bad"
	else
		ok jit-child
	fi
}
t_child

# t_jitdump: the function named only in the jitdump gets its name.
t_jitdump() {
	local rc
	record dump d
	rc=$?
	if [ $rc -ne 0 ]; then
		fail jitdump "exit $rc: $(tail -n 2 "$TMP/dump.err" | tr '\n' '|')"
	elif ! rec_part "$TMP/dump" perf.command. |
		grep -q 'perf\.command\.[0-9]*=-k perf\.command\.[0-9]*=mono '; then
		fail jitdump "the recording is not in CLOCK_MONOTONIC: $(rec_part "$TMP/dump" perf.command.)"
	elif ! slices jitdump "$TMP/dump.fxt.gz"; then
		return
	elif ls "$TMP"/dump.work/jitted-* >/dev/null 2>&1; then
		fail jitdump "perf inject wrote beside the jitdump: $(ls "$TMP/dump.work" | tr '\n' ' ')"
	elif ! grep -q " jit_dump_spin$" "$TMP/jitdump.slices"; then
		fail jitdump "no jit_dump_spin slice (the jitdump's name): $(names jitdump) $(grep -i jit "$TMP/dump.err" | first_lines /dev/stdin)"
	elif ! grep -q " jit_perfmap_spin$" "$TMP/jitdump.slices"; then
		fail jitdump "no jit_perfmap_spin slice: $(names jitdump)"
	elif ! "$CONVERT" --dump=records "$TMP/dump.fxt.gz" | grep -q 'name="jit_dump_spin" .*cat="\./jitted-[0-9]*-0\.so"\|cat="\./jitted-[0-9]*-0\.so".*name="jit_dump_spin"'; then
		fail jitdump "jit_dump_spin is not in ./jitted-PID-0.so: $("$CONVERT" --dump=records "$TMP/dump.fxt.gz" | grep -m 1 'name="jit_dump_spin"')"
	elif ! "$CONVERT" --dump=records "$TMP/dump.fxt.gz" | grep 'name="jit_dump_spin"' |
		grep -q 'file:string="jit_spin.js" line:uint64=7\b'; then
		# the jitdump's debug info, in perf inject's ELF file (jit_target.c)
		fail jitdump "jit_dump_spin has not its source line jit_spin.js:7: $("$CONVERT" --dump=records "$TMP/dump.fxt.gz" | grep -m 1 'name="jit_dump_spin"') $(grep 'source lines' "$TMP/dump.err")"
	else
		ok jitdump
	fi
}
t_jitdump

# t_jitdump_shared: a jitdump where others may create files is read all the
# same, and nothing is written there.
t_jitdump_shared() {
	local rc
	[ -d "$TMP/dump.work" ] || { fail jitdump-shared "no recording (see jitdump)"; return; }
	chmod 0777 "$TMP/dump.work"
	"$CONVERT" "$TMP/dump" -o "$TMP/shared.fxt.gz" >/dev/null 2>"$TMP/shared.err"
	rc=$?
	chmod 0700 "$TMP/dump.work"
	if [ $rc -ne 0 ]; then
		fail jitdump-shared "exit $rc: $(tail -n 2 "$TMP/shared.err" | tr '\n' '|')"
	elif grep -q "warning: .*jit" "$TMP/shared.err"; then
		fail jitdump-shared "a warning: $(grep "warning: .*jit" "$TMP/shared.err" | first_lines /dev/stdin)"
	elif ls "$TMP"/dump.work/jitted-* >/dev/null 2>&1; then
		fail jitdump-shared "perf inject wrote there: $(ls "$TMP/dump.work" | tr '\n' ' ')"
	elif ! slices jitdump-shared "$TMP/shared.fxt.gz"; then
		return
	elif ! grep -q " jit_dump_spin$" "$TMP/jitdump-shared.slices" ||
		! grep -q " jit_perfmap_spin$" "$TMP/jitdump-shared.slices"; then
		fail jitdump-shared "the frames: $(names jitdump-shared)"
	else
		ok jitdump-shared
	fi
}
t_jitdump_shared

# conc_check NAME FXT ERR: why FXT (a conversion with messages in ERR) lacks
# the JIT's names, on one line; nothing when it has them.
conc_check() {
	if ! "$CONVERT" --dump=slices "$2" >"$TMP/$1.slices" 2>"$TMP/$1.dump.err"; then
		echo "[$1: the trace does not read back: $(first_lines "$TMP/$1.dump.err")]"
	elif grep -q "warning: .*jit" "$3"; then
		echo "[$1: $(grep "warning: .*jit" "$3" | first_lines /dev/stdin)]"
	elif ! grep -q " jit_dump_spin$" "$TMP/$1.slices" ||
		! grep -q " jit_perfmap_spin$" "$TMP/$1.slices"; then
		echo "[$1: the frames: $(names "$1")]"
	fi
}

# t_jitdump_concurrent: two recordings and conversions of a JIT at once.
t_jitdump_concurrent() {
	local i rc pid bad=""
	for i in 1 2; do
		mkdir -p "$TMP/conc$i.work"
		setsid timeout -k 5 60 "$FRONT" run --trigger none "${WHOLE_RUN[@]}" -d "$TMP/conc$i" \
			-o "$TMP/conc$i.fxt.gz" -- "$TMP/jit_target" "$TMP/conc$i.work" 150 d \
			>"$TMP/conc$i.out" 2>"$TMP/conc$i.err" &
		CONC_PIDS+=("$!")
	done
	for i in 1 2; do
		wait "${CONC_PIDS[i - 1]}"
		rc=$?
		pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/conc$i.err" | head -n 1)
		[ -n "$pid" ] && MAPS+=("/tmp/perf-$pid.map")
		[ $rc -eq 0 ] || bad+="[run $i: exit $rc: $(tail -n 2 "$TMP/conc$i.err" | tr '\n' '|')]"
	done
	CONC_PIDS=()
	[ -n "$bad" ] && { fail jitdump-concurrent "$bad"; return; }
	for i in 1 2; do
		bad+=$(conc_check "conc$i" "$TMP/conc$i.fxt.gz" "$TMP/conc$i.err")
	done
	for i in 1 2; do
		setsid timeout -k 5 60 "$CONVERT" "$TMP/conc$i" -o "$TMP/conc$i.again.fxt" \
			>/dev/null 2>"$TMP/conc$i.again.err" &
		CONC_PIDS+=("$!")
	done
	for i in 1 2; do
		wait "${CONC_PIDS[i - 1]}"
		rc=$?
		if [ $rc -ne 0 ]; then
			bad+="[again $i: exit $rc: $(tail -n 2 "$TMP/conc$i.again.err" | tr '\n' '|')]"
		else
			bad+=$(conc_check "conc$i.again" "$TMP/conc$i.again.fxt" "$TMP/conc$i.again.err")
		fi
	done
	CONC_PIDS=()
	if [ -n "$bad" ]; then
		fail jitdump-concurrent "$bad"
	else
		ok jitdump-concurrent
	fi
}
t_jitdump_concurrent

t_jitdump_perf_arg() {
	local w="$TMP/perf-arg-cwd" rc
	[ -d "$TMP/dump.work" ] || { fail jitdump-perf-arg "no recording (see jitdump)"; return; }
	mkdir -p "$w/sym$TMP" && cp "$TMP/jit_target" "$w/sym$TMP/"
	(cd "$w" && exec "$CONVERT" --perf-arg=--symfs=sym "$TMP/dump" -o "$TMP/perf-arg.fxt.gz") \
		>/dev/null 2>"$TMP/perf-arg.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail jitdump-perf-arg "exit $rc: $(tail -n 2 "$TMP/perf-arg.err" | tr '\n' '|')"
	elif ! slices jitdump-perf-arg "$TMP/perf-arg.fxt.gz"; then
		return
	elif ! grep -q " run$" "$TMP/jitdump-perf-arg.slices"; then
		fail jitdump-perf-arg "no run slice: perf did not find sym/ in the caller's directory: $(names jitdump-perf-arg)"
	else
		ok jitdump-perf-arg
	fi
}
t_jitdump_perf_arg

# The program's symbols while it runs (it waits for SIGTERM once ready).
rm -rf "$TMP/work2" && mkdir "$TMP/work2"
coproc TGT { exec "$TMP/jit_target" "$TMP/work2" 1 w; }
TARGET_PID=$TGT_PID
read -r -t 20 ready <&"${TGT[0]}"
mkfifo "$TMP/work2/deleted-code (deleted)"
if [ "${ready:-}" != ready ]; then
	fail jit-symbols "the target did not get ready"
elif timeout -s KILL 10 "$FRONT" symbols "$TARGET_PID" >"$TMP/sym.out" 2>"$TMP/sym.err"; rc=$?; [ $rc -ne 0 ]; then
	fail jit-symbols "exit $rc: $(first_lines "$TMP/sym.err")"
elif ! grep -q '\bmain\b' "$TMP/sym.out" || ! grep -q '\bfile_copy\b' "$TMP/sym.out"; then
	fail jit-symbols "main or file_copy not listed: $(first_lines "$TMP/sym.out")"
elif grep -q -e "/memfd:" -e deleted-code "$TMP/sym.out" "$TMP/sym.err"; then
	fail jit-symbols "the memfd or the deleted file is listed: $(grep -m 2 -e "/memfd:" -e deleted-code "$TMP/sym.out" "$TMP/sym.err" | tr '\n' '|')"
else
	ok jit-symbols
fi
kill -TERM "$TARGET_PID" 2>/dev/null
wait "$TARGET_PID" 2>/dev/null
rm -f "/tmp/perf-$TARGET_PID.map"
TARGET_PID=
