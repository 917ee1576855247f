#!/usr/bin/env bash
# tier: record
# The slow-call trigger watches a function's returns with uprobes on its exit
# instructions (record/callexits.h), never a uretprobe, so nothing on the traced
# program's stack changes (docs/design.md "Triggers"). Real recordings of
# exits_target.cc, built -O2 without frame pointers as distributions build:
# a C++ exception thrown through the watched function and caught by its
# caller leaves the program's output and exit status as without snaptrace,
# launched and attached (a uretprobe made std::terminate kill it); with
# --callgraph dwarf every stack sampled inside the watched call reaches main
# (a uretprobe cut each at its trampoline, [unknown @ 0x7fffffffdfff]) and
# the converter warns of no broken stack; a function with two return
# instructions has every call counted and its slow one timed as the program
# timed it; a call that ends in a tail call ends when its caller resumes
# (a probe at the return site of each direct call, record/callsites.h), as
# the program timed it around the call; one made through a pointer ends at
# the jump, said before and after the recording, and only then. And the converter names the real cause of stacks cut in a dwarf
# recording (a stack deeper than perf's copy of it), not frame pointers; and
# of stacks cut in a frame-pointer recording (the program has none), though
# the recorder's off-CPU event copies the stack as dwarf does, not dwarf's; and
# the slow-call summary names the function as the trigger line does; a dwarf
# slow-call recording's ring holds the slow call from its entry. A call
# left by an exception ends where it is caught (a probe on the C++ runtime's
# __cxa_begin_catch, record/catchprobe.h): the calls thrown through thrower()
# are measured, and a slow call that throws fires the trigger, its hit and
# the summary saying "left by an exception", its duration the program's own.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="throw_through_launched throw_through_attached slow_throw_fires several_returns duration_exact
dwarf_stacks_whole dwarf_ring_holds_call tail_call_followed tail_call_said tail_mixed_followed summary_demangled dwarf_cut_named fp_cut_named no_leftovers"
need_recording exits
need_built exits "$CONVERT"
requires_all cxx binutils

PROG="$TMP/exits_target"
g++ -std=c++17 -Wall -Wextra -Werror -g -O2 -o "$PROG" "$SNAPTRACE_TOP/tests/record/exits_target.cc" \
	2>"$TMP/cc.err" || fail_all "cannot build exits_target.cc: $(tl 3 "$TMP/cc.err")"
TARGETS=("$PROG")

# own LOG N: the program's own measure (ms) of its call N.
own() {
	sed -n "s/^call $2 ms \([0-9.]*\)$/\1/p" "$1"
}

# disasm FUNC: the instructions of FUNC (demangled, with its parameters).
disasm() {
	objdump -d -C --no-show-raw-insn "$PROG" | awk -v f="<$1>:" 'index($0, f) { p = 1; next }
		p && /^$/ { exit } p'
}

t_throw_launched() {
	local d="$TMP/throw" want rc_want rc
	"$PROG" throw 30 >"$TMP/direct.out" 2>/dev/null
	rc_want=$?
	want=$(cat "$TMP/direct.out")
	"$RECORD" -q -o "$d" --trigger thrower --trigger-slower-than 1s -- "$PROG" throw 30 \
		>"$d.out" 2>"$d.err"
	rc=$?
	if [ "$rc_want" != 3 ] || [ "$want" != "caught 10 of 30" ]; then
		fail throw_through_launched "without snaptrace the program gave '$want', status $rc_want"
	elif [ $rc -ne 0 ] || [ "$(cat "$d.out")" != "$want" ] ||
		[ "$(rec_field "$d" exits.0.status) $(rec_field "$d" exits.0.signal)" != "3 null" ]; then
		fail throw_through_launched "under snaptrace (exit $rc) the program printed '$(cat "$d.out")' and ended $(rec_part "$d" exits), without: '$want', status 3: $(tl 3 "$d.err")"
	elif [ "$(trig "$d" calls)" != 30 ] || [ "$(trig "$d" calls_thrown)" != 10 ] ||
		[ "$(trig "$d" calls_unended)" != 0 ] || [ "$(trig "$d" returns_unmatched)" != 0 ]; then
		fail throw_through_launched "expected 30 calls measured, 10 of them left by an exception, none unended nor unmatched: $(rec_part "$d" trigger.)"
	else
		ok throw_through_launched
	fi
}

# slow_thrower(): 12 calls, the 4 that throw spin 25 ms first: each is a
# slow call (threshold 15 ms) that fires the trigger, said to be left by an
# exception, as long as the program timed it (to its throw). The first call
# is one (the trigger arms at once): hit 0, whose snapshot the later hits
# join. (A loaded machine may stretch a 1 ms call past 15 ms too: a slow
# call, not thrown; once the second call, it was hit 0.)
t_slow_throw() {
	local d="$TMP/slowthrow" tid entry ret dur inside around
	"$RECORD" -o "$d" --multi-snapshot --min-interval 100000 --trigger slow_thrower \
		--trigger-slower-than 15ms -- "$PROG" slowthrow 12 >"$d.out" 2>"$d.err"
	read -r tid entry ret dur _ < <(rec_rows "$d" hits tid entry_ns time_ns duration_ns left_by)
	# the call ends at the catch: after the program's own measure (to the
	# throw), before its caller's (around the call, to the catch clause)
	inside=$(own "$d.err" 1)
	around=$(sed -n 's/^around 1 ms \([0-9.]*\)$/\1/p' "$d.err")
	if [ "$(cat "$d.out")" != "caught 4 of 12" ]; then
		fail slow_throw_fires "the program printed '$(cat "$d.out")': $(tl 3 "$d.err")"
	elif [ "$(trig "$d" calls)" != 12 ] || [ "$(trig "$d" calls_slower)" -lt 4 ] ||
		[ "$(trig "$d" calls_slower_thrown)" != 4 ] || [ "$(trig "$d" calls_thrown)" != 4 ]; then
		fail slow_throw_fires "expected 12 calls measured, the 4 slow ones left by an exception: $(rec_part "$d" trigger.): $(tl 3 "$d.err")"
	elif ! rec_rows "$d" hits left_by | grep -qx exception ||
		! grep -q 'trigger hit [0-9]*: a call of [0-9.]* ms in thread [0-9]* left by an exception' "$d.err" ||
		! grep -q ': 12 calls of slow_thrower(int) measured, [0-9]* longer than 15.000 ms (4 left by an exception)' "$d.err"; then
		fail slow_throw_fires "the hit or the summary does not say the call was left by an exception: $(rec_part "$d" hits.0.); $(grep 'hit 0\|calls of' "$d.err" | tr '\n' ';')"
	elif [ -z "${dur:-}" ] || [ -z "$inside" ] || [ -z "$around" ] ||
		! awk -v r="$dur" -v i="$inside" -v a="$around" 'BEGIN { r /= 1e6; exit !(r >= i - 0.05 && r <= a + 0.05) }'; then
		fail slow_throw_fires "call 1 took $inside ms to its throw and $around ms to its catch by the program's clock, the hit says $dur ns"
	else
		ok slow_throw_fires
	fi
}

# A server attached to, the exception thrown through the watched function
# while the recording runs: it serves on after the recording and exits as
# asked.
t_throw_attached() {
	local d="$TMP/serve" pid rc i
	"$PROG" serve >"$TMP/serve.out" 2>/dev/null &
	pid=$!
	BG+=("$pid")
	sleep 0.3
	"$RECORD" -q -o "$d" -p "$pid" --trigger thrower --trigger-slower-than 1s --duration 1.5 \
		>/dev/null 2>"$d.err"
	rc=$?
	sleep 0.2
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		fail throw_through_attached "the server died while attached to (status $?): $(tl 3 "$d.err")"
		return
	fi
	kill -TERM "$pid"
	for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	wait "$pid"
	if [ $? -ne 0 ] || ! grep -Eq '^served [0-9]+ caught [1-9][0-9]*$' "$TMP/serve.out"; then
		fail throw_through_attached "the server ended with '$(cat "$TMP/serve.out")'"
	elif [ $rc -ne 0 ] || [ "$(trig "$d" calls)" -lt 20 ]; then
		fail throw_through_attached "recording (exit $rc): $(rec_part "$d" trigger.): $(tl 3 "$d.err")"
	else
		ok throw_through_attached
	fi
}

# chains FILE: perf script's call chains of the snapshot FILE, one line
# each: the frames' symbols, innermost first.
chains() {
	perf script -i "$1" -F ip,sym --no-inline 2>/dev/null | awk '
		/^$/ { if (c != "") print c; c = ""; next }
		{ c = c " " $2 } END { if (c != "") print c }'
}

# several(): 40 calls, even ones return early (a ret of their own), call 20
# spins 40 ms; a snapshot at its return (the exit one follows), sampled
# stacks unwound with dwarf. The threshold, 35 ms, is under the spin and far
# over a call that does not spin, but a machine loaded 13 deep preempted one
# for 36 ms before call 20 (its hit taken for call 20's): call 20's hit is
# the one that entered where the program says call 20 began.
t_several() {
	local d="$TMP/several" try tid entry ret dur own_ms inside cut snap first at mine
	if [ "$(disasm 'several(int)' | grep -Ec '\sret')" -lt 2 ]; then
		fail several_returns "expected several() built with two ret instructions: $(disasm 'several(int)' | grep -E 'ret|jmp' | tr '\n' ';')"
		return
	fi
	for try in 1 2 3; do
		rm -rf "$d"
		"$RECORD" -q -o "$d" --callgraph dwarf --multi-snapshot --trigger several \
			--trigger-slower-than 35ms -- "$PROG" several 40 20 >/dev/null 2>"$d.err"
		at=$(sed -n 's/^call 20 at \([0-9.]*\)$/\1/p' "$d.err")
		mine=$(hits "$d" | awk -v at="$at" 'at != "" && $2 / 1e6 - at > -2 && $2 / 1e6 - at < 2 { print; exit }')
		[ -n "$mine" ] && break
	done
	read -r tid entry ret dur < <(hits "$d")	# the first: the first snapshot's
	own_ms=$(own "$d.err" 20)
	if [ "$(trig "$d" calls)" != 40 ] || [ "$(trig "$d" returns_unmatched)" != 0 ]; then
		fail several_returns "expected 40 calls measured, none unmatched: $(rec_part "$d" trigger.): $(tl 3 "$d.err")"
	else
		ok several_returns
	fi
	if [ -z "$own_ms" ] || [ -z "$mine" ] || ! close_to "${mine##* }" "$own_ms"; then
		fail duration_exact "call 20 took $own_ms ms from ${at:-?} ms by the program's clock, the hits say $(hits "$d" | tr '\n' ';')"
	else
		ok duration_exact
	fi
	snap=$(snaps "$d" trigger | head -n 1)
	chains "$d/$snap" >"$d/chains"
	inside=$(grep -c ' several ' "$d/chains")
	cut=$(grep ' several ' "$d/chains" | grep -vc ' main ')
	if [ -z "$snap" ] || [ "$inside" -lt 5 ] || [ "$cut" -ne 0 ] || grep -q 7fffffffdfff "$d/chains"; then
		fail dwarf_stacks_whole "$cut of $inside stacks inside several() do not reach main: $(grep ' several ' "$d/chains" | grep -v ' main ' | head -n 2 | tr '\n' ';')"
	elif ! "$CONVERT" "$d/$snap" -o "$d/t.fxt" 2>"$d/convert.log" ||
		grep -q 'broken\|unknown' "$d/convert.log" ||
		"$CONVERT" --dump=slices "$d/t.fxt" | grep -q '^[0-9]* 0 several$'; then
		fail dwarf_stacks_whole "the trace: $(grep 'broken\|unknown' "$d/convert.log" | head -n 1)"
	else
		ok dwarf_stacks_whole
	fi
	# the ring holds the slow call from its entry (slowring.h): perf's
	# default one held the last 10 ms of dwarf samples, not its 40 ms
	first=$(perf script -i "$d/$(snaps "$d" trigger | head -n 1)" -F time,event 2>/dev/null |
		awk '/cpu-clock|cycles/ { sub(":", "", $1); printf "%.0f", $1 * 1e9; exit }')
	if [ -z "$first" ] || [ -z "${entry:-}" ] || [ "$first" -gt "$entry" ]; then
		fail dwarf_ring_holds_call "the snapshot's first sample is at ${first:-none} ns, the slow call entered at ${entry:-?} ns: $(grep -E 'warning|note' "$d.err" | head -n 2)"
	else
		ok dwarf_ring_holds_call
	fi
}

# tailer() ends in a jmp to tail_callee(): each call, made from main, goes
# on in tail_callee (30 ms) and ends when main resumes (a probe at the
# return site of main's call, record/callsites.h), as long as the program
# timed it around the call, and at least its own part (to the jump) plus
# tail_callee's sleep; every call counted, none said to end at the jump.
# The summary names the function demangled (tailer(int), not _Z6taileri).
t_tail() {
	local d="$TMP/tail" tid entry ret dur own_ms around
	if ! disasm 'tailer(int)' | grep -Eq 'jmp +[0-9a-f]+ <tail_callee'; then
		fail tail_call_followed "expected tailer() built with a tail call (jmp) of tail_callee()"
		return
	fi
	"$RECORD" -o "$d" --multi-snapshot --min-interval 100000 --trigger tailer \
		--trigger-slower-than 1ms -- "$PROG" tail 10 >/dev/null 2>"$d.err"
	read -r tid entry ret dur < <(hits "$d")
	own_ms=$(own "$d.err" 1)
	around=$(sed -n 's/^around 1 ms \([0-9.]*\)$/\1/p' "$d.err")
	if [ "$(trig "$d" calls)" != 10 ] || [ "$(trig "$d" calls_slower)" != 10 ] ||
		[ "$(trig "$d" calls_tail)" != 10 ] || [ "$(trig "$d" calls_tail_at_jump)" != 0 ] ||
		[ "$(trig "$d" returns_unmatched)" != 0 ] || [ "$(trig "$d" calls_unended)" != 0 ]; then
		fail tail_call_followed "expected 10 calls measured, each over 1 ms and left by a tail call followed to main: $(rec_part "$d" trigger.): $(tl 3 "$d.err")"
	elif [ -z "${dur:-}" ] || [ -z "$own_ms" ] || [ -z "$around" ] ||
		! awk -v r="$dur" -v o="$own_ms" -v a="$around" 'BEGIN { r /= 1e6; exit !(r >= o + 29.9 && r <= a + 0.05) }'; then
		fail tail_call_followed "the first call took $own_ms ms to its tail call and $around ms around it by the program's clock, the hit says ${dur:-none} ns"
	elif grep -q 'by jumps out\|tail call from a caller not followed' "$d.err"; then
		fail tail_call_followed "a warning that calls end at the jump, though every call is followed: $(grep 'jumps out\|not followed' "$d.err")"
	else
		ok tail_call_followed
	fi
	# tail_by_ptr(), tailer's twin, is called only through a pointer: said
	# before recording (no direct call of it found) and after (each call
	# measured to the jump); its calls end at the jump, 2 ms, not 32
	"$RECORD" -o "$d-ptr" --multi-snapshot --min-interval 100000 --trigger tail_by_ptr \
		--trigger-slower-than 1ms -- "$PROG" tailptr 4 >/dev/null 2>"$d-ptr.err"
	read -r tid entry ret dur < <(hits "$d-ptr")
	if ! grep -q "^snaptrace-record: warning: --trigger-slower-than: .*tail_by_ptr.* leaves by jumps out (tail calls, the first at 0x[0-9a-f]*), and no direct call of it was found in .*exits_target (it is called through pointers or from other files): a call that leaves so ends at the jump" "$d-ptr.err"; then
		fail tail_call_said "no warning that no direct call of tail_by_ptr() is followed: $(tl 3 "$d-ptr.err")"
	elif ! grep -q "^snaptrace-record: warning: tail_by_ptr(int): 4 of the 4 calls left by a tail call from a caller not followed (a call through a pointer, or from another file): they are measured to the jump" "$d-ptr.err" ||
		[ "$(trig "$d-ptr" calls_tail_at_jump)" != 4 ] || [ "$(trig "$d-ptr" calls_tail)" != 0 ]; then
		fail tail_call_said "the summary does not count the 4 calls measured to the jump: $(rec_part "$d-ptr" trigger.): $(grep warning "$d-ptr.err" | tr '\n' ';')"
	elif [ -z "${dur:-}" ] || ! close_to "$dur" "$(own "$d-ptr.err" 1)" || [ "$dur" -ge 25000000 ]; then
		fail tail_call_said "the first call took $(own "$d-ptr.err" 1) ms to its tail call, the hit says ${dur:-none} ns"
	else
		ok tail_call_said
	fi
	# tail_mixed(), a ret and a jump out, called from main: followed, not said
	"$RECORD" -o "$d-mixed" --trigger tail_mixed --trigger-slower-than 1ms \
		-- "$PROG" tailmix 2 >/dev/null 2>"$d-mixed.err"
	if ! disasm 'tail_mixed(int)' | grep -Eq 'jmp +[0-9a-f]+ <tail_callee' ||
		! disasm 'tail_mixed(int)' | grep -Eq '	ret'; then
		fail tail_mixed_followed "expected tail_mixed() built with a ret and a jmp to tail_callee()"
	elif grep -q 'by jumps out\|not followed' "$d-mixed.err" ||
		[ "$(trig "$d-mixed" calls_tail)" != 1 ]; then
		fail tail_mixed_followed "expected its call followed to main without a warning: $(rec_part "$d-mixed" trigger.): $(grep warning "$d-mixed.err" | tr '\n' ';')"
	else
		ok tail_mixed_followed
	fi
	if grep -q ': 10 calls of tailer(int) measured, 10 longer than 1.000 ms; 10 left by a tail call (each ends where its caller resumed)' "$d.err"; then
		ok summary_demangled
	else
		fail summary_demangled "the summary: $(grep 'calls of' "$d.err")"
	fi
}

# cut_named NAME CALLGRAPH NOT WANT...: records deep() with --callgraph
# CALLGRAPH and converts it: the converter warns of broken sampled stacks,
# its warning matching every WANT and not NOT (grep patterns).
cut_named() {
	local name=$1 callgraph=$2 d="$TMP/deep-$2" not=$3 w p
	shift 3
	"$RECORD" -q -o "$d" --callgraph "$callgraph" --trigger none -- "$PROG" deep >/dev/null \
		2>"$d.err"
	"$CONVERT" "$d" -o "$d.fxt" 2>"$d/convert.log"
	w=$(grep 'sampled call stacks are broken' "$d/convert.log")
	if [ -z "$w" ]; then
		fail "$name" "expected broken stacks and their warning: $(tl 3 "$d/convert.log")"
		return
	fi
	for p in "$@"; do
		grep -q -- "$p" <<<"$w" || { fail "$name" "the warning, without '$p': $w"; return; }
	done
	if grep -q -- "$not" <<<"$w"; then
		fail "$name" "the warning, with '$not': $w"
	else
		ok "$name"
	fi
}

# deep(): 400 frames of 128 bytes, deeper than the 8 KiB of stack perf
# copies per sample with --callgraph dwarf: the stacks are cut, and the
# warning says why (not frame pointers, not "record with dwarf").
t_dwarf_cut() {
	cut_named dwarf_cut_named dwarf 'frame-pointer\|record with --callgraph dwarf' \
		'unwound from a copy of each sample.s stack (--callgraph dwarf)'
}

# The same program recorded with frame pointers (it has none): the warning
# names the frame pointers, the program, and dwarf as the way out.
t_fp_cut() {
	cut_named fp_cut_named fp 'copy of each sample\|--callgraph fp$' \
		'unwound through frame pointers (--callgraph fp' 'exits_target ([0-9]*)' \
		'record with --callgraph dwarf'
}

t_throw_launched
t_throw_attached
t_slow_throw
t_dwarf_cut
t_fp_cut
t_several
t_tail
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
