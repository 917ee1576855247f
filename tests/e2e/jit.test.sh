#!/usr/bin/env bash
# JIT code and code without a binary, end to end: tests/e2e/jit_target.c runs
# one function copied into anonymous memory named by a perf map
# (/tmp/perf-PID.map), into anonymous memory named by a jitdump
# (jit-PID.dump), into a memfd, and into a file deleted after mapping it.
#   jit-run      `snaptrace run --trigger none` records and converts it: exit 0,
#                the trace reads back, perf's names are on the frames
#                (jit_perfmap_spin in /tmp/perf-PID.map; the memfd's and the
#                deleted file's frames as [unknown @ ADDR (DSO)]), and the
#                summary counts that code as JIT or anonymous.
#   jit-convert  the recording converted again (the double elf_end of a
#                perf map once crashed here, exit 139, after a good trace).
#   jit-symbols  `snaptrace symbols PID` of the program while it runs: its
#                functions listed; the memfd and the deleted file skipped,
#                never opened by the name the kernel shows for them (a FIFO
#                planted there once hung the listing).
# Skips when perf cannot record here. Never leaves perf or the target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

FRONT="$SNAPTRACE_TOP/scripts/snaptrace"
export SNAPTRACE_BIN
TARGET_PID=
cleanup() {
	[ -n "$TARGET_PID" ] && kill -KILL "$TARGET_PID" 2>/dev/null && wait "$TARGET_PID" 2>/dev/null
	rm -f /tmp/perf-"$TARGET_PID".map
	group_cleanup
}
trap cleanup EXIT

need_convert jit
if [ "$(uname -m)" != x86_64 ]; then
	skip jit "jit_target copies x86-64 code"
	exit 0
fi
if ! command -v perf >/dev/null 2>&1 || [ ! -x "$RECORD" ]; then
	skip jit "no perf or no snaptrace-record"
	exit 0
fi
if ! cc -std=c11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -o "$TMP/jit_target" \
	"$SNAPTRACE_TOP/tests/e2e/jit_target.c" 2>"$TMP/cc.err"; then
	fail jit "cannot compile jit_target.c: $(first_lines "$TMP/cc.err")"
	exit 0
fi

# The recording: 150 ms in each copy.
mkdir "$TMP/work"
run_group "$TMP/run.out" "$TMP/run.err" "$FRONT" run --trigger none -d "$TMP/rec" \
	-o "$TMP/run.fxt.gz" -- "$TMP/jit_target" "$TMP/work" 150
rc=$?
pid=$(sed -n 's/.*recording launched process \([0-9]*\).*/\1/p' "$TMP/run.err" | head -n 1)
if [ $rc -ne 0 ] && grep -q -i -e 'permission' -e 'not supported' -e 'cannot record' "$TMP/run.err"; then
	skip jit "perf cannot record here: $(first_lines "$TMP/run.err")"
	exit 0
fi

# check NAME FXT ERR: the frames and the source-line summary of one conversion.
check() {
	local name=$1 fxt=$2 err=$3 slices
	if ! "$CONVERT" --dump=slices "$fxt" >"$TMP/$name.slices" 2>"$TMP/$name.dump.err"; then
		fail "$name" "the trace does not read back: $(first_lines "$TMP/$name.dump.err")"
		return
	fi
	slices=$TMP/$name.slices
	if ! grep -q " jit_perfmap_spin$" "$slices"; then
		fail "$name" "no jit_perfmap_spin slice (the perf map's name): $(cut -d' ' -f3- "$slices" | sort -u | head -n 12 | tr '\n' '|')"
	elif ! grep -q ' \[unknown @ 0x[0-9a-f]* (/memfd:snaptrace-jit (deleted))\]$' "$slices"; then
		fail "$name" "no frame in the memfd: $(cut -d' ' -f3- "$slices" | sort -u | head -n 12 | tr '\n' '|')"
	elif ! grep -q " \[unknown @ 0x[0-9a-f]* ($TMP/work/deleted-code)\]$" "$slices"; then
		fail "$name" "no frame in the deleted file: $(cut -d' ' -f3- "$slices" | sort -u | head -n 12 | tr '\n' '|')"
	elif ! grep -q 'source lines: .* [1-9][0-9]* in JIT or anonymous code' "$err"; then
		fail "$name" "the summary counts no JIT code: $(grep 'source lines' "$err")"
	else
		ok "$name"
	fi
}

if [ $rc -ne 0 ]; then
	fail jit-run "exit $rc: $(grep -v '^snaptrace: \(mode\|note\|recording\)' "$TMP/run.err" | first_lines /dev/stdin)"
else
	check jit-run "$TMP/run.fxt.gz" "$TMP/run.err"
fi

# t_convert: the kept recording converted again.
t_convert() {
	local rc
	if [ ! -f "$TMP/rec/record.json" ]; then
		fail jit-convert "no recording kept in $TMP/rec"
		return
	fi
	"$CONVERT" "$TMP/rec" -o "$TMP/again.fxt.gz" >/dev/null 2>"$TMP/again.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail jit-convert "exit $rc: $(tail -n 2 "$TMP/again.err" | tr '\n' '|')"
	else
		check jit-convert "$TMP/again.fxt.gz" "$TMP/again.err"
	fi
}
t_convert
rm -f "/tmp/perf-$pid.map"

# The program's symbols while it runs (it waits for SIGTERM once ready).
rm -rf "$TMP/work2" && mkdir "$TMP/work2"
coproc TGT { exec "$TMP/jit_target" "$TMP/work2" 1 wait; }
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
