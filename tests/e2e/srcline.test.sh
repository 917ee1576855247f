#!/usr/bin/env bash
# tier: record
# Source lines on slices, end to end: tests/e2e/srcline_target.c and its
# shared library tests/e2e/srcline_lib.c, built with -g as a PIE and as a
# non-PIE, are sampled (perf record -e cpu-clock --call-graph fp) and
# converted; every slice of their five functions must carry the file:line
# addr2line gives for the function's address (nm), the same on every slice.
# Built without -g: no slice of them has a line, and the one summary line
# counts them. --no-srcline: no line anywhere. The binaries moved under a
# --symfs directory: found there, and not without it (its frames then
# unnamed: perf script reads no ~/.debug, which this perf record fills).
# The program rebuilt (another build id) after the recording: one warning, no lines for it.
# The build ids read from the perf.data (tests/e2e/perfdata_dump.c) are perf
# buildid-list's, with and without --buildid-mmap, and its event names perf
# evlist's; a damaged build id section: one warning, no lines. A golden text case (binaries that do not exist): the one summary line,
# nothing else; without a dso column: not even that.
# Never leaves perf or the target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PERF=${SNAPTRACE_PERF:-perf}
FUNCS="main srcline_outer srcline_inner srcline_lib_spin srcline_lib_inner"
SRC="$SNAPTRACE_TOP/tests/e2e"

on_exit group_cleanup

need_built srcline "$CONVERT"
requires srcline recording binutils cc || exit 0

# build DIR CFLAGS...: the library and the program into DIR (absolute).
build() {
	local dir=$1
	shift
	mkdir -p "$dir"
	cc -std=c11 -O1 -fno-omit-frame-pointer "$@" -fPIC -shared -o "$dir/libsrcline.so" \
		"$SRC/srcline_lib.c" 2>"$TMP/cc.err" &&
		cc -std=c11 -O1 -fno-omit-frame-pointer "$@" -o "$dir/target" "$SRC/srcline_target.c" \
			-L"$dir" -lsrcline -Wl,-rpath,"$dir" 2>>"$TMP/cc.err"
}

# record DIR: samples DIR/target into DIR/perf.data; 1 when perf cannot.
record() {
	run_group "$1/rec.out" "$1/rec.err" "$PERF" record -e cpu-clock -F 5000 --call-graph fp \
		-o "$1/perf.data" -- "$1/target"
	REC_RC=$?
	[ "$REC_RC" = 0 ] && [ -s "$1/perf.data" ]
}

# lines FXT: "NAME CATEGORY FILE:LINE" (FILE:LINE "-" when none) of every
# slice, once each, from the slices read back.
lines() {
	"$CONVERT" --dump=tree "$1" | sed -n 's/^[0-9]* [0-9]* *\([^ ]*\) \[.* cat="\([^"]*\)".*/\1 \2 &/p' |
		sed 's/^\([^ ]*\) \([^ ]*\) .*file:string="\([^"]*\)" line:uint64=\([0-9]*\).*/\1 \2 \3:\4/;
		     t; s/^\([^ ]*\) \([^ ]*\) .*/\1 \2 -/' | sort -u
}

# expect_addr2line NAME DIR LINES: every function of FUNCS has, on all its
# slices, the line addr2line gives for its symbol in DIR's binaries.
expect_addr2line() {
	local name=$1 dir=$2 got=$3 f bin addr want have
	for f in $FUNCS; do
		case $f in srcline_lib_*) bin="$dir/libsrcline.so" ;; *) bin="$dir/target" ;; esac
		addr=$(nm "$bin" | awk -v f="$f" '$3 == f && ($2 == "T" || $2 == "t") { print $1 }')
		want=$(addr2line -e "$bin" "0x$addr")
		have=$(awk -v f="$f" -v b="$bin" '$1 == f && $2 == b { print $3 }' "$got")
		if [ -z "$have" ]; then
			fail "$name" "no slice of $f: $(first_lines "$got")"
			return 1
		fi
		if [ "$have" != "$want" ]; then
			fail "$name" "$f: $(echo $have), addr2line says $want"
			return 1
		fi
	done
}

# convert NAME DATA OUT [ARGS...]: converts (stderr in OUT.err), lines in OUT.lines.
convert() {
	local name=$1 data=$2 out=$3
	shift 3
	if ! "$CONVERT" "$@" "$data" -o "$out.fxt" 2>"$out.err"; then
		fail "$name" "conversion failed: $(first_lines "$out.err")"
		return 1
	fi
	lines "$out.fxt" >"$out.lines"
}

# with_debug NAME CFLAGS...: a -g build gets addr2line's lines; returns the
# directory's recording for the tests that follow, in $DIR.
with_debug() {
	local name=$1
	shift
	DIR="$TMP/$name"
	if ! build "$DIR" -g "$@"; then
		fail "$name" "cannot compile: $(first_lines "$TMP/cc.err")"
		return 1
	fi
	if ! record "$DIR"; then
		fail_recording "$name" "perf could not record" "$REC_RC" "$DIR/rec.err" "$DIR/perf.data"
		return 1
	fi
	convert "$name" "$DIR/perf.data" "$DIR/out" || return 1
	expect_addr2line "$name" "$DIR" "$DIR/out.lines" || return 1
	if grep -q 'kernel.kallsyms.* [^-]*$' "$DIR/out.lines"; then
		fail "$name" "a kernel frame has a line: $(grep -m1 kernel.kallsyms "$DIR/out.lines")"
		return 1
	fi
	ok "$name"
}

with_debug srcline-nopie -no-pie
if with_debug srcline-pie -fPIE -pie; then
	PIE=$DIR
	name=srcline-off
	if convert "$name" "$PIE/perf.data" "$PIE/off" --no-srcline; then
		if grep -q ':[0-9]*$' "$PIE/off.lines" || grep -q 'source lines' "$PIE/off.err"; then
			fail "$name" "a line or a summary: $(grep -m1 ':[0-9]*$' "$PIE/off.lines") $(grep 'source lines' "$PIE/off.err")"
		else
			ok "$name"
		fi
	fi

	# The binaries under a symfs directory, gone from their paths.
	name=srcline-symfs
	mkdir -p "$TMP/symfs$PIE"
	mv "$PIE/target" "$PIE/libsrcline.so" "$TMP/symfs$PIE/"
	if convert "$name" "$PIE/perf.data" "$PIE/symfs" "--perf-arg=--symfs=$TMP/symfs" &&
		convert "$name" "$PIE/perf.data" "$PIE/nosymfs"; then
		sed -i "s| $TMP/symfs| |" "$PIE/symfs.lines"
		if cmp -s "$PIE/symfs.lines" "$PIE/out.lines" 2>/dev/null ||
			diff <(grep ' /tmp\| '"$PIE" "$PIE/symfs.lines") <(grep ' /tmp\| '"$PIE" "$PIE/out.lines") >/dev/null; then
			if grep " $PIE/" "$PIE/nosymfs.lines" | grep -q ':[0-9]*$'; then
				fail "$name" "lines without the symfs: $(grep -m1 " $PIE/" "$PIE/nosymfs.lines")"
			elif ! "$CONVERT" --dump=slices "$PIE/nosymfs.fxt" 2>&1 |
				grep -q "\[unknown @ 0x[0-9a-f]* ($PIE/target)\]"; then
				# perf script reads no build-id cache (~/.debug, which this
				# test's perf record fills): a binary gone is not named
				fail "$name" "the program gone from its path is named: perf read a copy of it"
			else
				ok "$name"
			fi
		else
			fail "$name" "other lines under the symfs: $(diff "$PIE/symfs.lines" "$PIE/out.lines" | head -n 3 | tr '\n' '|')"
		fi
	fi
	mv "$TMP/symfs$PIE/target" "$TMP/symfs$PIE/libsrcline.so" "$PIE/"

	# The build ids read from the perf.data without perf: perf buildid-list's,
	# from the HEADER_BUILD_ID feature (perf record's default) and from the
	# MMAP2 records (--buildid-mmap: perf lists those of binaries with
	# samples, we those of every binary mapped).
	name=srcline-buildid-list
	if ! cc -std=c11 -D_GNU_SOURCE -I"$SNAPTRACE_TOP/common" -o "$TMP/perfdata_dump" "$SRC/perfdata_dump.c" \
		"$SNAPTRACE_TOP/common/perfdata.c" "$SNAPTRACE_TOP/common/perfattr.c" "$SNAPTRACE_TOP/common/inpath.c" \
		"$SNAPTRACE_TOP/common/pathtrust.c" 2>"$TMP/cc.err"; then
		fail "$name" "cannot compile: $(first_lines "$TMP/cc.err")"
	elif ! requires "$name" buildid_mmap; then
		:
	elif ! run_group "$PIE/mm.out" "$PIE/mm.err" "$PERF" record -e cpu-clock -F 5000 --call-graph fp \
		--buildid-mmap -o "$PIE/mm.data" -- "$PIE/target"; then
		fail "$name" "perf record --buildid-mmap failed: $(first_lines "$PIE/mm.err")"
	else
		why=
		for data in perf mm; do
			"$PERF" buildid-list -f -i "$PIE/$data.data" 2>/dev/null | grep ' /' | sort -u >"$PIE/$data.perf-ids"
			if ! "$TMP/perfdata_dump" buildids "$PIE/$data.data" 2>"$PIE/$data.ids-err" | grep ' /' | sort -u >"$PIE/$data.ids" ||
				[ -s "$PIE/$data.ids-err" ]; then
				why="$data.data: $(first_lines "$PIE/$data.ids-err")"
			elif ! grep -q " $PIE/target\$" "$PIE/$data.perf-ids"; then
				why="$data.data: perf buildid-list names no target: $(first_lines "$PIE/$data.perf-ids")"
			elif [ $data = perf ] && ! cmp -s "$PIE/$data.perf-ids" "$PIE/$data.ids"; then
				why="$data.data: ids differ (< perf, > ours): $(diff "$PIE/$data.perf-ids" "$PIE/$data.ids" | head -n 4 | tr '\n' '|')"
			elif [ -n "$(comm -23 "$PIE/$data.perf-ids" "$PIE/$data.ids")" ] ||
				[ -n "$(cut -d' ' -f2 "$PIE/$data.ids" | sort | uniq -d)" ]; then
				why="$data.data: perf's ids not ours, or a path with two ids: $(comm -23 "$PIE/$data.perf-ids" "$PIE/$data.ids" | head -n 2 | tr '\n' '|')"
			fi
			[ -n "$why" ] && break
		done
		if [ -n "$why" ]; then
			fail "$name" "$why"
		elif ! convert "$name" "$PIE/mm.data" "$PIE/mm" || ! expect_addr2line "$name" "$PIE" "$PIE/mm.lines"; then
			:	# said
		else
			ok "$name"
		fi
	fi

	# The events read from the header (HEADER_EVENT_DESC) are perf
	# evlist -F's (names and sampling frequency or period): cpu-clock alone, with sched:sched_switch (what decides the
	# perf script fields), and the conversion runs no perf but perf script.
	name=perfdata-evlist
	why=
	if [ ! -x "$TMP/perfdata_dump" ]; then
		why="no perfdata_dump (see srcline-buildid-list)"
	elif ! requires "$name" sched_switch; then
		why=skipped
	elif ! run_group "$PIE/sw.out" "$PIE/sw.err" "$PERF" record -e cpu-clock -e sched:sched_switch \
		--call-graph fp -o "$PIE/sw.data" -- "$PIE/target"; then
		why="perf record -e sched:sched_switch failed: $(first_lines "$PIE/sw.err")"
	fi
	for data in perf mm sw; do
		[ -n "$why" ] && break
		"$PERF" evlist -F -f -i "$PIE/$data.data" 2>/dev/null | grep -v '^#' >"$PIE/$data.perf-ev"
		if ! "$TMP/perfdata_dump" events "$PIE/$data.data" >"$PIE/$data.ev" 2>"$PIE/$data.ev-err"; then
			why="$data.data: $(first_lines "$PIE/$data.ev-err")"
		elif ! [ -s "$PIE/$data.ev" ] || ! cmp -s "$PIE/$data.perf-ev" "$PIE/$data.ev"; then
			why="$data.data: events differ (< perf, > ours): $(diff "$PIE/$data.perf-ev" "$PIE/$data.ev" | head -n 4 | tr '\n' '|')"
		fi
	done
	if [ -z "$why" ]; then
		cat >"$TMP/perf-log" <<-EOF
		#!/bin/sh
		echo "\$*" >>"$TMP/perf-log.log"
		exec "$(command -v "$PERF")" "\$@"
		EOF
		chmod +x "$TMP/perf-log"
		rm -f "$TMP/perf-log.log"
		if ! SNAPTRACE_PERF="$TMP/perf-log" "$CONVERT" -q "$PIE/sw.data" -o "$PIE/sw.fxt" 2>"$PIE/sw.cerr"; then
			why="conversion failed: $(first_lines "$PIE/sw.cerr")"
		elif [ "$(grep -c . "$TMP/perf-log.log")" != 1 ] ||
			! grep -q '^--buildid-dir [^ ]* script .*-F .*trace:' "$TMP/perf-log.log"; then
			why="perf ran other than once for script with the sched fields: $(first_lines "$TMP/perf-log.log")"
		elif ! "$CONVERT" --dump=slices "$PIE/sw.fxt" >/dev/null 2>"$PIE/sw.derr"; then
			why="the trace does not read back: $(first_lines "$PIE/sw.derr")"
		fi
	fi
	if [ "$why" != skipped ]; then
		if [ -n "$why" ]; then
			fail "$name" "$why"
		else
			ok "$name"
		fi
	fi

	# A damaged HEADER_BUILD_ID section (its size says 3 bytes: perf script
	# goes on without it): one warning naming the file, no source lines at
	# all (no binary can be checked), the trace otherwise whole.
	name=srcline-buildid-damaged
	u64() { od -An -tu8 -j "$2" -N 8 "$1" | tr -d ' '; }
	cp "$PIE/perf.data" "$PIE/damaged.data"
	feat=$(u64 "$PIE/damaged.data" 72)
	if [ $(((feat >> 2) & 1)) != 1 ]; then
		fail "$name" "the recording has no HEADER_BUILD_ID feature (bits $feat)"
	else
		entry=$(($(u64 "$PIE/damaged.data" 40) + $(u64 "$PIE/damaged.data" 48) + 16 * ((feat >> 1) & 1)))
		printf '\003' | dd of="$PIE/damaged.data" bs=1 seek=$((entry + 8)) conv=notrunc 2>/dev/null
		printf '\000\000\000\000\000\000\000' | dd of="$PIE/damaged.data" bs=1 seek=$((entry + 9)) conv=notrunc 2>/dev/null
		if convert "$name" "$PIE/damaged.data" "$PIE/damaged"; then
			if [ "$(grep -c "$PIE/damaged.data: cannot read its build ids: .*cut short.*no source lines" "$PIE/damaged.err")" != 1 ]; then
				fail "$name" "not one warning: $(first_lines "$PIE/damaged.err")"
			elif grep -q ':[0-9]*$' "$PIE/damaged.lines"; then
				fail "$name" "a line: $(grep -m1 ':[0-9]*$' "$PIE/damaged.lines")"
			elif ! diff <(cut -d' ' -f1,2 "$PIE/damaged.lines") <(cut -d' ' -f1,2 "$PIE/out.lines") >/dev/null; then
				fail "$name" "other slices than the whole file's"
			else
				ok "$name"
			fi
		fi
	fi

	# The program rebuilt after the recording: another build id.
	name=srcline-buildid
	if cc -std=c11 -O1 -g -fno-omit-frame-pointer -DVARIANT -o "$PIE/target" \
		"$SRC/srcline_target.c" -L"$PIE" -lsrcline -Wl,-rpath,"$PIE" 2>"$TMP/cc.err" &&
		convert "$name" "$PIE/perf.data" "$PIE/changed"; then
		warned=$(grep -c "$PIE/target: changed since the recording (its build id is" "$PIE/changed.err")
		if [ "$warned" != 1 ]; then
			fail "$name" "$warned build id warnings: $(first_lines "$PIE/changed.err")"
		elif awk -v b="$PIE/target" '$2 == b && $3 != "-"' "$PIE/changed.lines" | grep -q .; then
			fail "$name" "lines from the changed binary: $(awk -v b="$PIE/target" '$2 == b' "$PIE/changed.lines" | head -n 1)"
		elif ! awk -v b="$PIE/libsrcline.so" '$2 == b && $3 != "-"' "$PIE/changed.lines" | grep -q .; then
			fail "$name" "the unchanged library lost its lines"
		else
			ok "$name"
		fi
	fi
fi

# Without -g: none of the program's or the library's functions has a line,
# and the summary counts at least those that were sampled.
name=srcline-nodebug
DIR="$TMP/nodebug"
if ! build "$DIR"; then
	fail "$name" "cannot compile: $(first_lines "$TMP/cc.err")"
elif ! record "$DIR"; then
	fail_recording "$name" "perf could not record" "$REC_RC" "$DIR/rec.err" "$DIR/perf.data"
elif convert "$name" "$DIR/perf.data" "$DIR/out"; then
	ours=$(awk -v d="$DIR/" 'index($2, d) == 1' "$DIR/out.lines")
	nodebug=$(sed -n 's/.*source lines: .* (\([0-9]*\) in binaries without debug info.*/\1/p' "$DIR/out.err")
	nours=$(echo "$ours" | awk '{ print $1 }' | sort -u | grep -c .)
	if echo "$ours" | grep -q ':[0-9]*$'; then
		fail "$name" "a line without debug info: $(echo "$ours" | grep -m1 ':[0-9]*$')"
	elif [ "$(grep -c 'source lines' "$DIR/out.err")" != 1 ] || [ -z "$nodebug" ]; then
		fail "$name" "not one summary line: $(first_lines "$DIR/out.err")"
	elif [ "$nours" -lt 3 ] || [ "$nodebug" -lt "$nours" ]; then
		fail "$name" "summary counts $nodebug without debug info, the trace has $nours of ours"
	else
		ok "$name"
	fi
fi

# Golden text: binaries that do not exist give the summary line alone.
name=srcline-golden
err="$TMP/golden.err"
if ! "$CONVERT" "$SNAPTRACE_TOP/tests/cases/call-return/input.txt" -o "$TMP/golden.fxt" 2>"$err"; then
	fail "$name" "conversion failed: $(first_lines "$err")"
elif [ "$(grep -c 'source lines: [0-9]* of [0-9]* functions have none (0 in binaries without debug info, [1-9][0-9]* in binaries not found' "$err")" != 1 ] ||
	grep -qi 'warning' "$err"; then
	fail "$name" "not the one summary line: $(grep -i 'source\|warn' "$err" | head -n 2 | tr '\n' '|')"
elif grep -q "file:string" <("$CONVERT" --dump=tree "$TMP/golden.fxt"); then
	fail "$name" "a line from a binary that does not exist"
elif ! "$CONVERT" "$SNAPTRACE_TOP/tests/cases/layout-no-dso/input.txt" -o "$TMP/nodso.fxt" 2>"$err"; then
	fail "$name" "layout-no-dso: conversion failed: $(first_lines "$err")"
elif grep -q 'source lines' "$err"; then
	fail "$name" "layout-no-dso (no binary at all) has a summary: $(grep 'source lines' "$err")"
else
	ok "$name"
fi
