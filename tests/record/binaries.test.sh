#!/usr/bin/env bash
# tier: record
# A program rebuilt (or removed) after its recording (issue 24 item 5): perf
# names none of its frames (the build id differs), which the converter used
# to call a stripped binary ("install the -dbgsym packages"). Real
# recordings of exits_target.cc's several mode, then the program rebuilt
# with other flags (another build id, other addresses):
# - converting says which binary changed, with both build ids, and does not
#   blame missing symbols for it;
# - a recording made with --keep-binaries holds the binaries
#   (DIR/binaries, perf's build-id cache; record.json binaries_kept) and
#   converts with every frame of the program named, without a warning, the
#   program rebuilt or removed, and with their source lines read from the
#   kept copy (the old converter named them from it but counted the
#   program's functions "in binaries not found or changed");
# - a conversion of that recording stopped by SIGINT, SIGTERM or SIGHUP
#   (kept_stopped_INT...), as its copy of the kept binaries is made and
#   while perf reads it, or by SIGPIPE, its trace's reader gone
#   (kept_stopped_PIPE), leaves nothing in its TMPDIR (issue 24 item 10:
#   the converter's hidden "snaptrace-kept-XXXXXX" copy, 5 MB for sqlite3,
#   stayed after every stop).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

STOPS="INT TERM HUP"
NAMES="rebuilt_named kept_binaries_rebuilt kept_lines_rebuilt kept_binaries_removed
kept_lines_removed $(printf 'kept_stopped_%s ' $STOPS)kept_stopped_PIPE no_leftovers"
need_recording binaries
need_built binaries "$CONVERT"
requires_all cxx

SRC="$SNAPTRACE_TOP/tests/record/exits_target.cc"
PROG="$TMP/prog"
TARGETS=("$PROG")

# build FLAGS...: (re)builds PROG from exits_target.cc.
build() {
	rm -f "$PROG"
	g++ -std=c++17 -g -fno-omit-frame-pointer "$@" -o "$PROG" "$SRC" 2>"$TMP/cc.err"
}
build -O1 || fail_all "cannot build exits_target.cc: $(tl 3 "$TMP/cc.err")"

# record DIR ARGS...: a recording of 30 calls of several(), one slow.
record() {
	local d=$1
	shift
	"$RECORD" -q -o "$d" "$@" --trigger none -- "$PROG" several 30 10 >/dev/null 2>"$d.err"
}

# named DIR: the converted recording has several() by name (into DIR.slices).
named() {
	"$CONVERT" "$1" -o "$1.fxt" 2>"$1.convert" && "$CONVERT" --dump=slices "$1.fxt" >"$1.slices" &&
		grep -q ' several$' "$1.slices"
}

# lines DIR: what is wrong with the source lines of DIR's conversion (named
# first): several() without exits_target.cc's line, or functions counted in
# binaries not found or changed.
lines() {
	local missing
	missing=$(sed -n 's/.*functions have none (.*, \([0-9]*\) in binaries not found or changed.*/\1/p' "$1.convert")
	if ! "$CONVERT" --dump=records "$1.fxt" | grep -q "name=\"several\" .*file:string=\"$SRC\" line:uint64=[1-9]"; then
		echo "several() has no line of $SRC: $(grep 'source lines' "$1.convert")"
	elif [ -n "$missing" ] && [ "$missing" != 0 ]; then
		echo "$(grep 'source lines' "$1.convert")"
	fi
}

t_rebuilt() {
	local d="$TMP/plain"
	record "$d" && named "$d" || { fail rebuilt_named "before the rebuild: $(tl 3 "$d.convert")"; return; }
	build -O2 || { fail rebuilt_named "cannot rebuild: $(tl 2 "$TMP/cc.err")"; return; }
	named "$d"
	if ! grep -q "warning: $PROG: changed since the recording (its build id is [0-9a-f]*, the recording's [0-9a-f]*): perf names none of its frames; record with --keep-binaries" "$d.convert"; then
		fail rebuilt_named "no warning naming the rebuilt program: $(tl 3 "$d.convert")"
	elif grep -q "dbgsym.*$PROG\|$PROG.*stripped" "$d.convert"; then
		fail rebuilt_named "the rebuilt program is blamed for missing symbols: $(grep dbgsym "$d.convert")"
	else
		ok rebuilt_named
	fi
}

t_kept() {
	local d="$TMP/kept" bad
	build -O1
	if ! record "$d" --keep-binaries || ! rec_field "$d" binaries_kept |
		awk '{ exit !($1 >= 1) }' || [ ! -d "$d/binaries/.build-id" ]; then
		fail kept_binaries_rebuilt "no binaries kept: $(rec_part "$d" binaries) $(tl 3 "$d.err")"
		return
	fi
	build -O2
	if ! named "$d" || grep -q "warning: $PROG" "$d.convert"; then
		fail kept_binaries_rebuilt "the rebuilt program's frames are not named from the kept copy: $(tl 3 "$d.convert")"
		fail kept_lines_rebuilt "not named"
	else
		ok kept_binaries_rebuilt
		bad=$(lines "$d")
		if [ -n "$bad" ]; then fail kept_lines_rebuilt "$bad"; else ok kept_lines_rebuilt; fi
	fi
	rm -f "$PROG"
	if ! named "$d" || grep -q "warning: $PROG" "$d.convert"; then
		fail kept_binaries_removed "the removed program's frames are not named from the kept copy: $(tl 3 "$d.convert")"
		fail kept_lines_removed "not named"
	else
		ok kept_binaries_removed
		bad=$(lines "$d")
		if [ -n "$bad" ]; then fail kept_lines_removed "$bad"; else ok kept_lines_removed; fi
	fi
}

# stop_at SIG DELAY DIR: converts the kept-binaries recording DIR with
# TMPDIR an empty directory of its own, in a process group of its own (the
# converter leads it: setsid execs it, this shell's child being no group
# leader), sends SIG to that group DELAY seconds after the converter's
# private copy appears there, and waits for the group to end. Prints the
# converter's exit status, then what is left in its TMPDIR.
stop_at() {
	local sig=$1 delay=$2 d=$3 tmp pid rc i
	tmp=$(mktemp -d "$TMP/stop.XXXXXX")
	TMPDIR=$tmp setsid env --default-signal=INT,TERM,HUP "$CONVERT" -q "$d" -o "$tmp.fxt" \
		2>"$tmp.err" &
	pid=$!
	for ((i = 0; i < 1000; i++)); do
		[ -n "$(ls -A "$tmp")" ] || ! kill -0 "$pid" 2>/dev/null && break
		sleep 0.01
	done
	sleep "$delay"
	kill -"$sig" -- -"$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	for ((i = 0; i < 500; i++)); do	# perf, in the group, ends after it
		pgrep -g "$pid" >/dev/null || break
		sleep 0.01
	done
	echo "$rc"
	ls -A "$tmp"
	rm -rf "$tmp" "$tmp.fxt" "$tmp.err"
}

# kept_stopped_SIG: every stop leaves nothing, and at least one came while
# the conversion ran (its exit status 128 + SIG: no vacuous pass).
t_stopped() {
	local d="$TMP/kept" sig delay out left stopped num
	for sig in $STOPS; do
		num=$(kill -l "$sig")
		left="" stopped=0
		for delay in 0 0.05 0.2 0.5; do
			out=$(stop_at "$sig" "$delay" "$d")
			[ "$(head -1 <<<"$out")" = $((128 + num)) ] && stopped=$((stopped + 1))
			[ -n "$(tail -n +2 <<<"$out")" ] &&
				left+="after ${delay}s: $(tail -n +2 <<<"$out" | tr '\n' ' ')"
		done
		if [ -n "$left" ]; then
			fail "kept_stopped_$sig" "left in TMPDIR: $left"
		elif [ "$stopped" = 0 ]; then
			fail "kept_stopped_$sig" "no conversion was stopped by SIG$sig (each ended first)"
		else
			ok "kept_stopped_$sig"
		fi
	done
}

# kept_stopped_PIPE: the trace to a pipe whose reader is gone: SIGPIPE at
# the first write, after the copy was made (at its default action, as a
# shell's pipeline has it).
t_pipe() {
	local tmp rc
	tmp=$(mktemp -d "$TMP/pipe.XXXXXX")
	TMPDIR=$tmp env --default-signal=PIPE "$CONVERT" -q "$TMP/kept" -o - 2>"$tmp.err" | true
	rc=${PIPESTATUS[0]}
	if [ -n "$(ls -A "$tmp")" ]; then
		fail kept_stopped_PIPE "left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
	elif [ "$rc" != $((128 + $(kill -l PIPE))) ]; then
		fail kept_stopped_PIPE "exit $rc, not SIGPIPE's: $(tl 2 "$tmp.err")"
	else
		ok kept_stopped_PIPE
	fi
	rm -rf "$tmp" "$tmp.err"
}

t_rebuilt
t_kept
t_stopped
t_pipe
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
