#!/usr/bin/env bash
# tier: check
# Output safety of snaptrace-convert -o (common/outpath.h): what -o names is
# never destroyed, and every trace written is read back.
#   device    a char device made with mknod (a copy of /dev/null): written
#             straight, still a char device after.
#   fifo      a FIFO: its reader gets the whole trace, which reads back.
#   unwritable  a device that refuses every write (/dev/full: -o /dev/full,
#             -o - into it), and a file on a full file system (a tmpfs, as
#             root): exit 1 (a write that fails: a runtime failure, no "see
#             --help"; new-user check 16 found exit 2) before anything is
#             read, one line naming it and why (the old code converted,
#             then failed).
#   symlink   a symlink (and a dangling one) to a .fxt: the target is written,
#             the link stays a link.
#   missing-dir  -o through a symbolic link to a missing directory (the
#             link the output, or a directory on the way; absolute, relative):
#             exit 2, the message names the missing directory and the link
#             (the old one named "." or the link's own directory).
#   terminal  -o - on a terminal (a pty, through script(1)), -o /dev/tty
#             there, and `snaptrace run -o -` there (before anything runs):
#             exit 2, one line, no FXT written to the terminal (as gzip
#             refuses); -o - into a pipe still writes the trace.
#   input     -o naming the input (same file, a symlink or a hard link to it):
#             refused with exit 2, the input unchanged.
#   snapshot  -o naming a file a recording directory's record.json lists (or
#             a link to it): refused with exit 2, the snapshot unchanged.
#   twice     one file given as two inputs (the same name twice, ./NAME, a
#             symlink, a hard link, standard input, a recording directory and
#             its file, the directory twice): exit 2, one line naming both
#             spellings, no output (the old code read it twice: every count
#             doubled); given once it converts.
#   stale     a named temporary a killed writer left (the caller's, unlocked,
#             a minute old) is removed by the next conversion in its
#             directory; a locked, a recent and another user's one stay.
#   long-name a 254-byte output name (the temporary name must not overflow).
#   suffix    .zst, .json, no suffix: refused with exit 2, nothing written;
#             .gz is gzip, .fxt raw.
#   signals   a converter killed by SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGKILL
#             while writing (its unnamed file open in the directory) leaves
#             neither the output nor a temporary.
#   ignored-signals  one started with SIGINT or SIGHUP ignored (trap '',
#             nohup) and sent it while writing goes on and writes the trace.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_built output "$CONVERT" "$SIGDFL"
IN="$SNAPTRACE_TOP/tests/cases/call-return/input.txt"
EXPECTED="$SNAPTRACE_TOP/tests/cases/call-return/expected.txt"

# reads_back NAME FILE: FILE holds the call-return trace; returns 1 after a FAIL.
reads_back() {
	if ! "$CONVERT" --dump=slices "$2" >"$TMP/$1.slices" 2>"$TMP/$1.err"; then
		fail "$1" "reader rejects what was written: $(first_lines "$TMP/$1.err")"
		return 1
	fi
	if ! slices_match "$TMP/$1.slices" "$EXPECTED" >"$TMP/$1.diff"; then
		fail "$1" "wrong trace: $(first_lines "$TMP/$1.diff")"
		return 1
	fi
}

# no_temps NAME DIR: no temporary is left in DIR; returns 1 after a FAIL.
no_temps() {
	if compgen -G "$2/.snaptrace-*.tmp" >/dev/null; then
		fail "$1" "temporary left: $(ls -a "$2" | grep '^\.snaptrace-' | tr '\n' ' ')"
		return 1
	fi
}

# writing_in PID DIR: whether process PID has a file of DIR open that has no
# name yet (O_TMPFILE: its /proc link reads "DIR/#INODE (deleted)").
writing_in() {
	local l
	for l in /proc/"$1"/fd/*; do
		case "$(readlink "$l" 2>/dev/null)" in "$2"/*" (deleted)") return 0 ;; esac
	done
	return 1
}

# recording_of_in DIR: makes DIR a recording directory whose one snapshot,
# snap.fxt, is a copy of $IN.
recording_of_in() {
	mkdir "$1"
	cp "$IN" "$1/snap.fxt"
	cat >"$1/record.json" <<'EOF_JSON'
{"format": "snaptrace-record 1", "pids": [100], "threads": [], "trigger": null, "hits": [],
 "snapshots": [{"file": "snap.fxt", "reason": "interrupt", "time_ns": null}],
 "end": "interrupt", "end_ns": null}
EOF_JSON
}

device() {
	local d="$TMP/device"
	mkdir "$d"
	requires device mknod || return
	if ! mknod "$d/null" c "$(stat -c %t /dev/null | xargs printf '%d')" \
		"$(stat -c %T /dev/null | xargs printf '%d')" 2>"$d/err"; then
		fail device "cannot mknod here: $(first_lines "$d/err")"
		return
	fi
	if ! "$CONVERT" -q "$IN" -o "$d/null" 2>"$d/err"; then
		fail device "exit $?: $(first_lines "$d/err")"
	elif [ ! -c "$d/null" ]; then
		fail device "the device node is no longer a char device: $(ls -l "$d/null")"
	elif no_temps device "$d"; then
		ok device
	fi
}

unwritable() {
	local d="$TMP/unwritable" rc m out name
	mkdir "$d"
	for out in /dev/full - full; do
		m=
		case $out in
		-) "$CONVERT" -q "$IN" -o - 2>"$d/err" >/dev/full ;;
		full)
			requires unwritable-full tmpfs_mount || break
			m="$d/mnt"
			mkdir "$m" && mount -t tmpfs -o size=64k tmpfs "$m" || {
				fail unwritable "cannot mount a tmpfs"
				return
			}
			dd if=/dev/zero of="$m/fill" bs=4k 2>/dev/null
			out="$m/t.fxt"
			"$CONVERT" -q "$IN" -o "$out" 2>"$d/err"
			;;
		*) "$CONVERT" -q "$IN" -o "$out" 2>"$d/err" ;;
		esac
		rc=$?
		name=$out
		[ "$out" = - ] && name="standard output (/dev/full)"
		[ -n "$m" ] && { ls -A "$m" >"$d/left"; umount "$m"; }
		if [ $rc -ne 1 ] || [ "$(wc -l <"$d/err")" -ne 1 ] ||
			! grep -qF "snaptrace-convert: $name: cannot write" "$d/err" ||
			! grep -q ": No space left on device[^(]*$" "$d/err"; then
			fail unwritable "-o $out: exit $rc, expected 1 and one line 'No space left on device': $(first_lines "$d/err")"
			return
		elif [ -n "$m" ] && [ "$(cat "$d/left")" != fill ]; then
			fail unwritable "-o $out left $(cat "$d/left" | tr '\n' ' ')"
			return
		fi
	done
	ok unwritable
}

fifo() {
	local d="$TMP/fifo" rc
	mkdir "$d"
	mkfifo "$d/ff"
	fifo_reader "$d/ff" "$d/got.fxt"
	timeout 20 "$CONVERT" -q "$IN" -o "$d/ff" 2>"$d/err" {FIFO_RW}>&-
	rc=$?
	fifo_reader_end
	if [ $rc -ne 0 ]; then
		fail fifo "exit $rc: $(first_lines "$d/err")"
	elif [ ! -p "$d/ff" ]; then
		fail fifo "the FIFO is no longer a FIFO: $(ls -l "$d/ff")"
	elif reads_back fifo "$d/got.fxt" && no_temps fifo "$d"; then
		ok fifo
	fi
}

symlink() {
	local d="$TMP/symlink"
	mkdir -p "$d/real"
	echo old >"$d/real/t.fxt"
	ln -s real/t.fxt "$d/link.fxt"
	ln -s real/new.fxt "$d/dangling.fxt"
	if ! "$CONVERT" -q "$IN" -o "$d/link.fxt" 2>"$d/err" ||
		! "$CONVERT" -q "$IN" -o "$d/dangling.fxt" 2>>"$d/err"; then
		fail symlink "exit $?: $(first_lines "$d/err")"
	elif [ ! -L "$d/link.fxt" ] || [ ! -L "$d/dangling.fxt" ]; then
		fail symlink "a link was replaced: $(ls -l "$d" | tr '\n' ' ')"
	elif reads_back symlink "$d/real/t.fxt" && reads_back symlink "$d/real/new.fxt" &&
		no_temps symlink "$d" && no_temps symlink "$d/real"; then
		ok symlink
	fi
}

missing_dir() {
	local d="$TMP/missing-dir" rc o want
	mkdir -p "$d/sub"
	ln -s "$d/gone/t.fxt" "$d/abs.fxt"
	ln -s gone/t.fxt "$d/sub/rel.fxt"
	ln -s "$d/gone" "$d/dirlink"
	while IFS='|' read -r o want; do
		(cd "$d" && "$CONVERT" -q "$IN" -o "$o") 2>"$d/err"
		rc=$?
		if [ "$rc" -ne 2 ] || [ "$(wc -l <"$d/err")" -ne 1 ] || ! grep -qF -- "$o: $want, found none" "$d/err"; then
			fail missing-dir "-o $o: exit $rc, expected 2 and '$o: $want, found none': $(first_lines "$d/err")"
			return
		fi
	done <<EOF_CASES
abs.fxt|expected an existing directory $d/gone (where the symbolic link abs.fxt points)
sub/rel.fxt|expected an existing directory gone (where the symbolic link rel.fxt points)
dirlink/t.fxt|expected an existing directory $d/gone (where the symbolic link dirlink points)
gone/more/t.fxt|expected an existing directory gone
EOF_CASES
	[ ! -e "$d/gone" ] && no_temps missing-dir "$d" && ok missing-dir
}

terminal() {
	local d="$TMP/terminal" cmd rc out
	mkdir "$d"
	if ! command -v script >/dev/null; then
		fail terminal "script(1) (util-linux) is missing: it gives the test a terminal"
		return
	fi
	for cmd in "'$CONVERT' -q '$IN' -o -" "'$CONVERT' -q '$IN' -o /dev/tty" \
		"'$SNAPTRACE_BIN/snaptrace' run -o - -- /bin/true"; do
		# script -e: its exit status is the command's; what the terminal showed on stdout
		script -qec "$cmd" /dev/null </dev/null >"$d/out"
		rc=$?
		out=$(tr -d '\r' <"$d/out")
		if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] ||
			! grep -q ": \(standard output \)\?is a terminal: expected a file or a pipe" <<<"$out"; then
			fail terminal "$cmd: exit $rc, expected 2 and one line 'is a terminal': $(head -c 300 <<<"$out" | cat -v)"
			return
		elif grep -q 'FxT' <<<"$out"; then
			fail terminal "$cmd: FXT written to the terminal"
			return
		fi
	done
	"$CONVERT" -q "$IN" -o - | cat >"$d/piped.fxt" && reads_back terminal "$d/piped.fxt" && ok terminal
}

input() {
	local d="$TMP/input" o rc
	mkdir "$d"
	cp "$IN" "$d/in.fxt"
	ln -s in.fxt "$d/alias.fxt"
	ln "$d/in.fxt" "$d/hard.fxt"
	for o in in.fxt alias.fxt hard.fxt ./in.fxt; do
		(cd "$d" && "$CONVERT" -q in.fxt -o "$o") 2>"$d/err"
		rc=$?
		if [ "$rc" -ne 2 ] || ! grep -q "is the input" "$d/err"; then
			fail input "-o $o: exit $rc, expected 2 and 'is the input': $(first_lines "$d/err")"
			return
		fi
		if ! cmp -s "$IN" "$d/in.fxt"; then
			fail input "-o $o changed the input"
			return
		fi
	done
	no_temps input "$d" && ok input
}

snapshot() {
	local d="$TMP/snaprec" o rc
	recording_of_in "$d"
	ln -s snap.fxt "$d/alias.fxt"
	for o in "$d/snap.fxt" "$d/alias.fxt"; do
		"$CONVERT" -q "$d" -o "$o" 2>"$TMP/snapshot.err"
		rc=$?
		if [ "$rc" -ne 2 ] || ! grep -q "is the input $d/snap.fxt" "$TMP/snapshot.err"; then
			fail snapshot "-o $o: exit $rc, expected 2 and 'is the input': $(first_lines "$TMP/snapshot.err")"
			return
		fi
		if ! cmp -s "$IN" "$d/snap.fxt"; then
			fail snapshot "-o $o changed the snapshot"
			return
		fi
	done
	"$CONVERT" -q "$d" -o "$d/t.fxt" 2>"$TMP/snapshot.err" && reads_back snapshot "$d/t.fxt" &&
		no_temps snapshot "$d" && ok snapshot
}

twice() {
	local d="$TMP/twice" rc args
	mkdir "$d"
	cp "$IN" "$d/in.fxt"
	ln -s in.fxt "$d/alias.fxt"
	ln "$d/in.fxt" "$d/hard.fxt"
	recording_of_in "$d/rec"
	# each case: the arguments, then the two spellings the message must name
	while IFS='|' read -r args a b; do
		# shellcheck disable=SC2086 # the arguments are split on purpose
		(cd "$d" && "$CONVERT" -q $args -o out.fxt <in.fxt) 2>"$d/err"
		rc=$?
		if [ "$rc" -ne 2 ] || [ "$(wc -l <"$d/err")" -ne 1 ] ||
			! grep -qF -- "$a and $b are the same file" "$d/err"; then
			fail twice "$args: exit $rc, expected 2 and one line '$a and $b are the same file': $(first_lines "$d/err")"
			return
		elif [ -e "$d/out.fxt" ]; then
			fail twice "$args: an output was written"
			return
		fi
	done <<'EOF_CASES'
in.fxt in.fxt|in.fxt|in.fxt
in.fxt ./in.fxt|in.fxt|./in.fxt
in.fxt alias.fxt|in.fxt|alias.fxt
hard.fxt in.fxt|hard.fxt|in.fxt
- in.fxt|-|in.fxt
rec rec/snap.fxt|rec/snap.fxt|rec/snap.fxt
rec rec|rec/snap.fxt|rec/snap.fxt
rec ./rec|rec/snap.fxt|./rec/snap.fxt
EOF_CASES
	(cd "$d" && "$CONVERT" -q in.fxt -o out.fxt) 2>"$d/err" && reads_back twice "$d/out.fxt" &&
		no_temps twice "$d" && ok twice
}

stale() {
	local d="$TMP/stale" holder rc
	mkdir -m 1777 "$d"
	: >"$d/.snaptrace-deadwriter01.tmp"
	touch -d '-2 minutes' "$d/.snaptrace-deadwriter01.tmp"
	: >"$d/.snaptrace-livewriter01.tmp"
	touch -d '-2 minutes' "$d/.snaptrace-livewriter01.tmp"
	: >"$d/.snaptrace-newwriter001.tmp"
	# a writer: the lock held on an open descriptor by the process itself
	(exec 9>>"$d/.snaptrace-livewriter01.tmp" && flock 9 && exec sleep 60) &
	holder=$!
	if [ "$(id -u)" -eq 0 ]; then
		: >"$d/.snaptrace-otheruser01.tmp"
		chown 65534 "$d/.snaptrace-otheruser01.tmp"
		touch -d '-2 minutes' "$d/.snaptrace-otheruser01.tmp"
	fi
	sleep 0.2
	"$CONVERT" -q "$IN" -o "$d/t.fxt" 2>"$TMP/stale.err"
	rc=$?
	end_bg "$holder"
	if [ "$rc" -ne 0 ]; then
		fail stale "exit $rc: $(first_lines "$TMP/stale.err")"
	elif [ -e "$d/.snaptrace-deadwriter01.tmp" ]; then
		fail stale "the dead writer's temporary is still there"
	elif [ ! -e "$d/.snaptrace-livewriter01.tmp" ] || [ ! -e "$d/.snaptrace-newwriter001.tmp" ]; then
		fail stale "a live or recent writer's temporary was removed: $(ls -A "$d" | tr '\n' ' ')"
	elif [ "$(id -u)" -eq 0 ] && [ ! -e "$d/.snaptrace-otheruser01.tmp" ]; then
		fail stale "another user's temporary was removed"
	elif reads_back stale "$d/t.fxt"; then
		ok stale
	fi
}

long_name() {
	local d="$TMP/long" name
	mkdir "$d"
	name=$(printf 'n%.0s' $(seq 250)).fxt
	if [ ${#name} -ne 254 ]; then
		fail long-name "test bug: the name has ${#name} bytes"
	elif ! "$CONVERT" -q "$IN" -o "$d/$name" 2>"$d/err"; then
		fail long-name "exit $?: $(first_lines "$d/err")"
	elif reads_back long-name "$d/$name" && no_temps long-name "$d"; then
		ok long-name
	fi
}

suffix() {
	local d="$TMP/suffix" o rc
	mkdir "$d"
	for o in t.zst t.json t t.fxt.zst; do
		"$CONVERT" -q "$IN" -o "$d/$o" 2>"$d/err"
		rc=$?
		if [ "$rc" -ne 2 ] || [ -e "$d/$o" ] || ! grep -q "unknown output type" "$d/err"; then
			fail suffix "-o $o: exit $rc, expected 2, 'unknown output type' and no file: $(first_lines "$d/err")"
			return
		fi
	done
	if ! "$CONVERT" -q "$IN" -o "$d/t.gz" 2>"$d/err" || ! "$CONVERT" -q "$IN" -o "$d/t.fxt" 2>>"$d/err"; then
		fail suffix ".gz or .fxt refused: $(first_lines "$d/err")"
	elif [ "$(head -c 2 "$d/t.gz" | od -An -tx1 | tr -d ' ')" != 1f8b ]; then
		fail suffix ".gz is not gzip"
	elif [ "$(head -c 2 "$d/t.fxt" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		fail suffix ".fxt is gzip, expected raw"
	elif reads_back suffix "$d/t.gz" && reads_back suffix "$d/t.fxt"; then
		ok suffix
	fi
}

# writing_from_pipe TEST LABEL DIR OUT CMD...: starts CMD "$CONVERT" -q
# reading a pipe that stays open (its writer's: a named FIFO is refused)
# and writing OUT in DIR; sets PID (the converter) and FEEDER (the pipe's
# writer, whose end is the input's) once the converter writes. Returns 1
# after a FAIL of TEST (LABEL: what the case is).
writing_from_pipe() {
	local test=$1 label=$2 d=$3 out=$4 feed
	shift 4
	exec {feed}< <({ cat "$IN"; exec sleep 30; })
	FEEDER=$!
	"$@" "$CONVERT" -q "/dev/fd/$feed" -o "$out" >/dev/null 2>"$d/err" &
	PID=$!
	exec {feed}<&-
	for _ in $(seq 200); do
		writing_in "$PID" "$d" && return 0
		sleep 0.05
	done
	fail "$test" "$label: the converter never opened its output: $(ls -A "$d" | tr '\n' ' ')"
	end_bg "$PID" "$FEEDER"
	return 1
}

# The converter reads a pipe that stays open (its writer's: a named FIFO is
# refused), so it is still writing when the signal comes; it must die of it
# and leave nothing behind.
signals() {
	local d="$TMP/signals" sig st left
	mkdir "$d"
	for sig in INT TERM HUP PIPE KILL; do
		# at their default action (a background job starts with SIGINT
		# ignored, which the converter keeps: ignored_signals)
		writing_from_pipe signals "SIG$sig" "$d" "$d/out.$sig.fxt.gz" "$SIGDFL" || return
		kill -s "$sig" "$PID"
		wait "$PID" 2>/dev/null
		st=$?
		end_bg "$FEEDER"
		if [ "$st" -lt 128 ]; then
			fail signals "SIG$sig: exit $st, expected death by the signal"
			return
		fi
		left=$(ls -A "$d" | grep -v -e '^err$')
		if [ -n "$left" ]; then
			fail signals "SIG$sig left files behind: $(echo "$left" | tr '\n' ' ')"
			return
		fi
	done
	ok signals
}

# A signal ignored when the converter started stays ignored (README
# "Signals"): started under `trap '' INT HUP` (SIGINT, SIGHUP) and under
# nohup (SIGHUP), sent that signal while it writes (its unnamed file open in
# the directory, its input a pipe still open), it goes on, and once the
# input ends the whole trace is written and reads back. The old converter
# put its handler over the ignored signal and died of it, no trace.
ignored_signals() {
	local d="$TMP/ignored" c how sig st out
	local -a start
	mkdir "$d"
	for c in "trap INT" "trap HUP" "nohup HUP"; do
		read -r how sig <<<"$c"
		out="$d/out.$how.$sig.fxt.gz"
		start=(bash -c 'trap "" INT HUP; exec "$@"' -)
		[ "$how" = nohup ] && start=(nohup)
		writing_from_pipe ignored_signals "$how SIG$sig" "$d" "$out" "${start[@]}" || return
		kill -s "$sig" "$PID"
		end_bg "$FEEDER"	# the input ends: the converter finishes
		wait "$PID" 2>/dev/null
		st=$?
		if [ "$st" -ne 0 ]; then
			fail ignored_signals "$how SIG$sig: exit $st, expected 0 (the signal ignored): $(first_lines "$d/err")"
			return
		fi
		reads_back ignored_signals "$out" || return
		no_temps ignored_signals "$d" || return
	done
	ok ignored_signals
}

device
unwritable
fifo
symlink
missing_dir
terminal
input
snapshot
twice
stale
long_name
suffix
signals
ignored_signals
