#!/usr/bin/env bash
# tier: record
# The slow-call trigger (--trigger-slower-than, README "Triggers") recorded
# for real on slowcall_target.c, whose watched function timed() prints its
# own measure of every call ("call N tid TID ms MS depth D"): the snapshot
# is taken at the return of exactly the first call longer than the
# threshold (record.json: that call's thread, entry and duration, the
# number of calls measured), and the converted trace holds that whole call
# as one slice (converted as a recording directory: exactly the hit's entry
# and return, measured=true, however the samples saw it: the call sleeps in
# libc, where frame pointers lose it); nested calls of the same function, two threads and a call
# left by longjmp are measured call by call; the option's usage errors; the
# overhead per call of a watched function (CPU time, uprobe + uretprobe
# against not watched). The machine is shared: a 1 ms call the scheduler
# stretched past the threshold is a real slow call, so a run where the
# program saw one where the test wants none is recorded again (3 tries).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="seq_call_37 seq_whole_call_slice seq_hit_call_exact recurse_outer threads_per_thread longjmp_ignored
addr_entry addr_entry_stripped uprobe_slices_nested usage_errors overhead_per_call samples_lost_said untracked_said
readme_examples no_leftovers"
need_recording slowcall
need_built slowcall "$CONVERT"
requires_all gcc

PROG="$TMP/slowcall_target"
SRC="$SNAPTRACE_TOP/tests/record/slowcall_target.c"
cp "$SRC" "$TMP/prog.c"
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer -pthread -Wl,-z,now -o "$PROG" "$TMP/prog.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build slowcall_target.c: $(tl 3 "$TMP/cc.err")"
WL="$TMP/workload"
cp "$SNAPTRACE_TEST_BIN/workload" "$WL" || fail_all "the workload is not built (make tests-build)"
TARGETS=("$PROG" "$WL")

# own LOG: "N TID MS DEPTH" of each call the program measured.
own() {
	sed -n 's/^call \([0-9]*\) tid \([0-9]*\) ms \([0-9.]*\) depth \([0-9]*\)$/\1 \2 \3 \4/p' "$1"
}

# rec DIR ARGS...: records the program (ARGS: recorder options, -- and the
# program's arguments) into DIR; the program's lines and the recorder's
# messages go to DIR.err. Returns the recorder's status.
rec() {
	local d=$1
	shift
	rm -rf "$d"
	"$RECORD" -q -o "$d" --trigger timed "$@" >"$d.out" 2>"$d.err"
}

# quiet_run LOG MAXMS SKIP: true when no call of LOG took more than MAXMS
# ms (the program's own measure) but call number SKIP, or the depth 2 call
# when SKIP is "outer".
quiet_run() {
	own "$1" | awk -v max="$2" -v skip="${3:-0}" '
		$1 != skip && !(skip == "outer" && $4 == 2) && $3 > max { bad = 1 }
		END { exit bad }'
}

# first_slow LOG: the number of the first call of LOG (a sequence) longer
# than 10 ms by the program's own measure.
first_slow() {
	own "$1" | awk '$3 > 10 { print $1; exit }'
}

# taken LOG DURATION_NS: the number of the call of LOG that the recorder's
# DURATION_NS measured: the longest call it can hold (whose own measure is
# at most that).
taken() {
	own "$1" | awk -v r="$2" '$3 <= r / 1e6 + 0.05 && $3 > best { best = $3; n = $1 }
		END { print n + 0 }'
}

# The snapshot is at the return of call 37, the first longer than 10 ms. A
# loaded machine may stretch an earlier 1 ms call past 10 ms (a real slow
# call, which the recorder rightly takes; the first call also pays for the
# kernel's first uprobe hit in the process, which the program cannot see):
# up to 5 tries for a run where call 37 is taken; if every try took another,
# the call taken must be the first slow one (or an earlier one that the
# recorder's measure, holding a little more, put above 10 ms).
t_seq() {
	local d="$TMP/seq" try line tid entry ret dur first n own_ms calls
	for try in 1 2 3 4 5; do
		rec "$d" --trigger-slower-than 10ms -- "$PROG" seq 60 37 || break
		read -r tid entry ret dur < <(hits "$d")
		n=$(taken "$d.err" "${dur:-0}")
		[ "$n" = 37 ] && break
	done
	first=$(first_slow "$d.err")
	own_ms=$(own "$d.err" | awk -v n="$n" '$1 == n { print $3 }')
	calls=$(trig "$d" calls)
	if [ ! -s "$d/record.json" ]; then
		fail seq_call_37 "no recording: $(tl 3 "$d.err")"
	elif [ "$(rec_field "$d" end)" != trigger ]; then
		fail seq_call_37 "end $(rec_field "$d" end), not trigger: $(tl 3 "$d.err")"
	elif [ "$(hits "$d" | wc -l)" -ne 1 ] || [ "${calls:-0}" -lt "$n" ] ||
		[ "$(trig "$d" slower_than_ns)" != 10000000 ] || [ "$n" -gt "${first:-37}" ] ||
		! own "$d.err" | awk -v n="$n" '$1 < n && $3 > 10 { bad = 1 } END { exit bad }'; then
		fail seq_call_37 "expected one hit, at call ${first:-37} (the first slow one): $calls calls measured, hits: $(hits "$d" | tr '\n' ';') (call $n), the program's slow calls: $(own "$d.err" | awk '$3 > 7.2' | tr '\n' ';')"
	elif ! close_to "$dur" "$own_ms" || [ "$dur" -le 10000000 ] ||
		[ $((ret - entry)) -ne "$dur" ] || ! grep -q "^call $n tid $tid " "$d.err"; then
		fail seq_call_37 "call $n took $own_ms ms in thread $(own "$d.err" | awk -v n="$n" '$1 == n { print $2 }'), the hit says $dur ns in thread $tid"
	elif [ "$n" != 37 ]; then
		echo "ok seq_call_37: (the machine stretched a 1 ms call in each of 5 tries; that call, $n, was taken)"
	else
		ok seq_call_37
	fi

	# the trace: one slice of timed holds the call, from its entry to its
	# return (the samples' times: within 2 ms inside, 5 ms outside)
	line=""
	if [ -n "${entry:-}" ] && "$CONVERT" --quiet $(snaps "$d" trigger | sed "s|^|$d/|") \
		-o "$d/t.fxt.gz" 2>"$d/convert.log"; then
		line=$("$CONVERT" --dump "$d/t.fxt.gz" |
			sed -n 's/^[0-9]* [0-9]* *timed \[\([0-9]*\), \([0-9]*\)\] dur=\([0-9]*\) .*/\1 \2 \3/p' |
			awk -v e="$entry" -v r="$ret" '$1 > e - 5e6 && $1 < e + 2e6 &&
				$2 > r - 2e6 && $2 < r + 5e6 { print; n++ } END { exit n != 1 }')
	fi
	if [ -z "$line" ]; then
		fail seq_whole_call_slice "no single timed slice of about 20 ms from $entry to $ret: $(tl 2 "$d/convert.log")"
	else
		ok seq_whole_call_slice
	fi

	# the recording directory: the hit draws its call, exactly
	line=""
	if [ -n "${entry:-}" ] && "$CONVERT" --quiet "$d" -o "$d/dir.fxt.gz" 2>"$d/convert-dir.log"; then
		line=$("$CONVERT" --dump "$d/dir.fxt.gz" |
			grep -F " timed [$entry, $ret] dur=$dur " | grep -F "measured:bool=true duration_ns:uint64=$dur")
	fi
	if [ -z "$line" ] || [ "$(printf '%s\n' "$line" | wc -l)" -ne 1 ]; then
		fail seq_hit_call_exact "no one timed slice [$entry, $ret] measured=true from the hit: $(tl 2 "$d/convert-dir.log") $("$CONVERT" --dump "$d/dir.fxt.gz" 2>/dev/null | grep -m 3 ' timed \[' | cut -c1-160 | tr '\n' '|')"
	else
		ok seq_hit_call_exact
	fi
}

# the outer call (about 66 ms) against 40 ms: its inner calls (1 and 3 ms)
# stay below however loaded the machine
t_recurse() {
	local d="$TMP/recurse" try tid entry ret dur outer
	for try in 1 2 3; do
		rec "$d" --trigger-slower-than 40ms -- "$PROG" recurse || break
		quiet_run "$d.err" 35 outer && break
	done
	outer=$(own "$d.err" | awk '$4 == 2 { print $3 }')
	read -r tid entry ret dur < <(hits "$d")
	# the outer call returns 7th; the program runs on until the hit is seen
	if [ "$(trig "$d" calls)" -lt 7 ] || [ "$(hits "$d" | wc -l)" -ne 1 ] ||
		[ "$(trig "$d" returns_unmatched)" != 0 ]; then
		fail recurse_outer "expected the 7th call (the outer) to be the hit: $(trig "$d" calls) calls, $(trig "$d" returns_unmatched) unmatched, hits $(hits "$d" | tr '\n' ';'): $(tl 3 "$d.err")"
	elif [ -z "$outer" ] || ! close_to "$dur" "$outer"; then
		fail recurse_outer "the outer call took $outer ms, the hit says $dur ns"
	else
		ok recurse_outer
	fi
}

# threads_wrong DIR: why the threads recording in DIR is wrong (nothing when right).
threads_wrong() {
	local d=$1 bad="" tid entry ret dur near lo hi slower
	# calls the program measured above the threshold; the recorder's measure
	# contains the program's (close_to), so it finds at least LO, at most HI
	lo=$(own "$d.err" | awk '$3 > 10 { n++ } END { print n + 0 }')
	hi=$(own "$d.err" | awk '$3 > 7.2 { n++ } END { print n + 0 }')
	slower=$(trig "$d" calls_slower)
	while read -r tid entry ret dur; do
		# each hit is a call of its own thread: the longest that fits in it
		near=$(own "$d.err" | awk -v t="$tid" -v r="$dur" '$2 == t && $3 <= r / 1e6 + 0.05 &&
			$3 > best { best = $3 } END { print best + 0 }')
		close_to "$dur" "$near" || bad="$bad [thread $tid: $dur ns, its closest call $near ms]"
	done < <(hits "$d")
	if [ "$(trig "$d" calls)" != 1400 ] || [ "$(trig "$d" returns_unmatched)" != 0 ]; then
		echo "expected 1400 calls measured, none unmatched: $(rec_part "$d" trigger.): $(tl 3 "$d.err")"
	elif [ "${slower:-0}" -lt "$lo" ] || [ "${slower:-0}" -gt "$hi" ]; then
		echo "$slower calls slower than 10 ms, the program measured $lo above 10 ms and $hi above 7.2 ms"
	elif [ "$(hits "$d" | cut -d ' ' -f 1 | sort -u | wc -l)" -ne 2 ]; then
		echo "expected hits in both threads: $(hits "$d" | tr '\n' ';')"
	else
		echo "$bad"
	fi
}

t_threads() {
	local d="$TMP/threads" try why
	for try in 1 2 3; do
		rec "$d" --multi-thread --multi-snapshot --min-interval 0 --trigger-slower-than 10ms \
			-- "$PROG" threads
		why=$(threads_wrong "$d")
		[ -z "$why" ] && break
	done
	if [ -n "$why" ]; then
		fail threads_per_thread "$why"
	else
		ok threads_per_thread
	fi
}

t_longjmp() {
	local d="$TMP/jump" try tid entry ret dur
	for try in 1 2 3; do
		rec "$d" --trigger-slower-than 40ms -- "$PROG" jump || break
		quiet_run "$d.err" 35 16 && break
	done
	read -r tid entry ret dur < <(hits "$d")
	# calls 1-4, 6-16 return (15); call 5, left by longjmp, is no call of 40 ms or more
	if [ "$(trig "$d" calls)" != 15 ] || [ "$(hits "$d" | wc -l)" -ne 1 ] ||
		[ "$(trig "$d" calls_slower)" != 1 ] ||
		[ "$(trig "$d" returns_unmatched)" != 0 ] ||
		! close_to "${dur:-0}" "$(own "$d.err" | awk '$1 == 16 { print $3 }')"; then
		fail longjmp_ignored "expected the hit at call 16 (60 ms), the 15th return: $(rec_part "$d" trigger.), hits $(hits "$d" | tr '\n' ';')"
	else
		ok longjmp_ignored
	fi
}

# the symbol's address as `snaptrace symbols` prints it
addr_of() {
	"$SNAPTRACE_BIN/snaptrace" symbols "$PROG" "$1" | awk -F '\t' -v s="$1" '$2 == s { print $4 }'
}

t_addr_entry() {
	local d="$TMP/addr" a
	a=$(addr_of timed)
	if ! "$RECORD" -q -o "$d" --trigger "addr:$a" --trigger-slower-than 10ms -- "$PROG" seq 20 15 \
		>/dev/null 2>"$d.err"; then
		fail addr_entry "--trigger addr:$a (timed's entry) refused: $(tl 2 "$d.err")"
	elif [ "$(hits "$d" | wc -l)" -lt 1 ]; then
		fail addr_entry "no slow call caught at addr:$a: $(rec_part "$d" trigger.)"
	else
		ok addr_entry
	fi
	t_addr_entry_stripped "$a"
}

# addr_entry_stripped: the same at the entry of timed in a stripped copy
# (its functions known from the unwind table, unnamed): record.json names
# the function by its link-time address, "[unnamed @ 0xADDR]", and every
# call of it is a slice of that name in the trace, one measured row of
# snaptrace stats --function addr:ADDR (issue 24: the calls took the names
# of whatever unsymbolized frames of the file the samples showed, a row
# each), beside the sampled row of its samples outside measured calls, now
# named by the unwind table too (README "Stripped binaries")
t_addr_entry_stripped() {
	local d="$TMP/addr-stripped" a=$1 want names row
	want="[unnamed @ 0x${a#0x}]"
	strip -o "$TMP/stripped" "$PROG" || { fail addr_entry_stripped "strip failed"; return; }
	if ! "$RECORD" -q -o "$d" --trigger "addr:$a" --trigger-slower-than 10ms --measure "addr:$a" \
		-- "$TMP/stripped" seq 20 15 >/dev/null 2>"$d.err"; then
		fail addr_entry_stripped "--trigger addr:$a refused: $(tl 2 "$d.err")"
		return
	fi
	"$CONVERT" --quiet "$d" -o "$d.fxt" 2>"$d.conv.err"
	names=$("$CONVERT" --dump "$d.fxt" 2>/dev/null | grep -F 'measured:bool=true' |
		sed -n 's/.* name="\([^"]*\)" .*/\1/p' | sort -u | tr '\n' '|')
	row=$("$SNAPTRACE_BIN/snaptrace-stats" -q --format csv --function "addr:$a" "$d.fxt" 2>&1 |
		awk -F, 'NR > 1 && !NF { exit } NR > 1 { print $1, $NF }' | tr '\n' '|')
	if [ "$(trig "$d" name)" != "$want" ]; then
		fail addr_entry_stripped "record.json's trigger name: '$(trig "$d" name)', expected '$want'"
	elif [ "$names" != "$want|" ]; then
		fail addr_entry_stripped "measured slices named '$names', expected '$want|': $(tl 2 "$d.conv.err")"
	elif [ "$row" != "$want measured|$want all|" ] && [ "$row" != "$want all|$want measured|" ]; then
		fail addr_entry_stripped "stats --function addr:$a: '$row', expected one measured row and the row of all its slices, as a named function's"
	else
		ok addr_entry_stripped
	fi
}

# --callgraph dwarf with the slow-call trigger on a function called every
# 2 us (the workload's storm mode): a sample that came while a uprobe ran
# the probed instruction out of line unwinds no further than the [uprobes]
# page (4 to 11 in a second here; every 20 us gave 0 or 1 on a quiet
# machine, and the test failed 1 run of 3: up to 3 recordings are made
# until one has such a sample). Its "[uprobe: ...]" slice nests in the stack the
# thread has open, never a root of the timeline (it once was), and the
# broken-stack warning does not count those samples.
t_uprobe_nested() {
	local d="$TMP/uprobe" s roots n=0 i
	for ((i = 0; i < 3 && n == 0; i++)); do
		rm -rf "$d"
		if ! "$RECORD" -q -o "$d" --callgraph dwarf --trigger snaptrace_trigger --trigger-slower-than 1s \
			--duration 1 -- "$WL" storm 2 >/dev/null 2>"$d.err" ||
			! "$CONVERT" "$d" -o "$d.fxt" >/dev/null 2>"$d.conv" ||
			! s=$("$CONVERT" --dump=slices "$d.fxt"); then
			fail uprobe_slices_nested "recording or conversion failed: $(tl 2 "$d.err") $(tl 2 "$d.conv")"
			return
		fi
		n=$(grep -c ' \[uprobe: a probed instruction, run out of line\]$' <<<"$s")
	done
	roots=$(awk '$2 == 0 && /\[uprobe:/' <<<"$s" | wc -l)
	if [ "$n" -eq 0 ]; then
		fail uprobe_slices_nested "no sample in a probed instruction in 3 recordings: $(tl 2 "$d.conv")"
	elif [ "$roots" -ne 0 ]; then
		fail uprobe_slices_nested "$roots of $n [uprobe: ...] slices are roots of the timeline"
	elif grep -q 'stop in \[uprobes\]' "$d.conv"; then
		fail uprobe_slices_nested "the broken-stack warning counts them: $(grep broken "$d.conv")"
	else
		ok uprobe_slices_nested
	fi
}

t_usage() {
	local bad="" mid body v
	mid=$(printf '0x%x' $(($(addr_of timed) + 4)))
	body=$(grep -n 'BODY_LINE' "$TMP/prog.c" | cut -d: -f1)
	for v in 0 0ms -5ms 10m nan 1e3ms 1.5ns 10ms5 ''; do
		bad+=$(usage_refused "value '$v'" "--trigger-slower-than $v: expected a duration from 1ns" \
			--trigger timed --trigger-slower-than "$v" -- "$PROG")
	done
	bad+=$(usage_refused breakpoint "expected --trigger-mechanism uprobe or auto" --trigger timed \
		--trigger-slower-than 10ms --trigger-mechanism breakpoint -- "$PROG")
	bad+=$(usage_refused "addr mid-function" "expected a trigger at a function's entry, found 'addr:$mid' at $mid inside timed; name the function: --trigger timed" \
		--trigger "addr:$mid" --trigger-slower-than 10ms -- "$PROG")
	bad+=$(usage_refused "line in the body" "expected a trigger at a function's entry, found 'line:prog.c:$body' at 0x[0-9a-f]* inside timed" \
		--trigger "line:prog.c:$body" --trigger-slower-than 10ms -- "$PROG")
	bad+=$(usage_refused none "expected a function trigger (--trigger NAME), found --trigger none" \
		--trigger none --trigger-slower-than 10ms -- "$PROG")
	if [ -n "$bad" ]; then
		fail usage_errors "$bad"
	else
		ok usage_errors
	fi
}

# The CPU time per call of an empty function watched (timed_empty) and of
# the same function not watched (other_empty), in the same run (the
# program's own measure, CLOCK_THREAD_CPUTIME_ID, kernel time included; the
# cheapest of 20 blocks, as the machine is shared): by the slow-call trigger
# (the entry uprobe and the one on its ret), and by a plain trigger (the entry
# uprobe).
t_overhead() {
	local n=20000 d="$TMP/ovh" slow entry unw
	"$RECORD" -q -o "$d-slow" --trigger timed_empty --trigger-slower-than 1000s \
		-- "$PROG" loop $n >"$d-slow.out" 2>"$d-slow.err"
	"$RECORD" -q -o "$d-entry" --trigger timed_empty --multi-snapshot --min-interval 86400000 \
		-- "$PROG" loop $n >"$d-entry.out" 2>"$d-entry.err"
	read -r slow unw < <(sed -n 's/^loop [0-9]* calls watched_ns \([0-9]*\) unwatched_ns \([0-9]*\).*/\1 \2/p' "$d-slow.out")
	entry=$(sed -n 's/^loop [0-9]* calls watched_ns \([0-9]*\) .*/\1/p' "$d-entry.out")
	if [ -z "${slow:-}" ] || [ -z "$entry" ]; then
		fail overhead_per_call "a run failed: $(tl 2 "$d-slow.err") $(tl 2 "$d-entry.err")"
	elif [ "$(trig "$d-slow" calls)" != $n ] && { [ "$(trig "$d-slow" samples_lost)" = 0 ] ||
		! grep -q "^snaptrace-record: warning: timed_empty.*: [0-9]* samples of its probes lost" "$d-slow.err"; }; then
		# a machine too busy for the recorder loses samples: said (samples_lost_said)
		fail overhead_per_call "expected $n calls measured, or samples lost and said: $(rec_part "$d-slow" trigger.)"
	elif [ "$slow" -lt 100 ] || [ "$slow" -gt 1000000 ] || [ "$unw" -gt 1000 ]; then
		fail overhead_per_call "a watched call costs $slow ns, one not watched $unw ns: expected 100 ns to 1 ms, and below 1 us"
	else
		echo "ok overhead_per_call: CPU time per call: $unw ns not watched, $slow ns watched by the entry and exit uprobes, $entry ns by the entry uprobe alone (a wake-up per hit)"
	fi
}

# Samples the kernel drops (the probes' ring full: a machine too busy for the
# recorder to read it) are said, never counted as if all calls were seen:
# the program stops the recorder (SIGSTOP to its parent) for 20,000 calls
# of the trigger's function and as many of a --measure function (probes of
# its own), then lets it go on.
t_samples_lost() {
	local n=20000 d="$TMP/lost" pid parent calls mcalls
	rm -rf "$d"
	"$RECORD" -o "$d" --trigger timed_empty --trigger-slower-than 1000s --measure other_empty \
		-- "$PROG" unread $n >"$d.out" 2>"$d.err" &
	pid=$!
	wait "$pid"
	parent=$(sed -n 's/^unread [0-9]* parent \([0-9]*\)$/\1/p' "$d.out")
	calls=$(trig "$d" calls)
	mcalls=$(rec_field "$d" measure.0.calls)
	if [ "$parent" != "$pid" ]; then
		fail samples_lost_said "the program's parent is ${parent:-not printed}, not the recorder $pid: $(tl 2 "$d.err")"
	elif ! [ "$(trig "$d" samples_lost)" -gt 0 ] 2>/dev/null ||
		! [ "$(rec_field "$d" measure.0.samples_lost)" -gt 0 ] 2>/dev/null ||
		[ -z "$calls" ] || [ "$calls" -ge $n ] || [ -z "$mcalls" ] || [ "$mcalls" -ge $n ]; then
		fail samples_lost_said "expected samples lost and fewer than $n calls of each: $(rec_part "$d" trigger.) $(rec_part "$d" measure.0.calls) $(rec_part "$d" measure.0.samples_lost)"
	elif ! grep -q "^snaptrace-record: warning: timed_empty.*: [0-9]* samples of its probes lost (their ring was full.*not counted above" "$d.err" ||
		! grep -q "^snaptrace-record: warning: measured other_empty: [0-9]* samples of its probes lost .*not counted" "$d.err"; then
		fail samples_lost_said "no warning of the samples lost: $(tl 6 "$d.err")"
	else
		ok samples_lost_said
	fi
}

# Calls deeper than the recorder follows in one thread (REC_SLOW_DEPTH, 64:
# recursion) are in no count, and the summary says how many (trial 11: 185
# of 505 calls left out without a word): deep_call 100 deep, 3 times, by
# --measure alone and by the slow-call trigger.
t_untracked() {
	local n=100 d="$TMP/deep" got=() k
	rm -rf "$d" "$d-t"
	"$RECORD" -o "$d" --measure deep_call -- "$PROG" deep $n >"$d.out" 2>"$d.err"
	"$RECORD" -o "$d-t" --trigger deep_call --trigger-slower-than 1000s \
		-- "$PROG" deep $n >"$d-t.out" 2>"$d-t.err"
	got=("$(rec_field "$d" measure.0.calls)" "$(rec_field "$d" measure.0.entries_untracked)"
		"$(trig "$d-t" calls)" "$(trig "$d-t" entries_untracked)")
	k="$((3 * 64)) $((3 * (n - 64)))"
	if [ "$(cat "$d.out")" != "deep $n calls $((3 * n))" ]; then
		fail untracked_said "the program: $(tl 2 "$d.out") $(tl 2 "$d.err")"
	elif [ "${got[*]}" != "$k $k" ]; then
		fail untracked_said "calls and untracked (measure, trigger): ${got[*]}, expected $k $k"
	elif ! grep -q "^snaptrace-record: warning: measured deep_call: $((3 * (n - 64))) calls not measured: more than 64 calls of it in one thread" "$d.err" ||
		! grep -q "^snaptrace-record: warning: deep_call.*: $((3 * (n - 64))) calls not measured" "$d-t.err"; then
		fail untracked_said "no warning of the calls not measured: $(tl 8 "$d.err") | $(tl 8 "$d-t.err")"
	else
		ok untracked_said
	fi
}

# The README's slow-call examples that run the demo, as written (with -d
# and -o into the scratch directory): each takes a snapshot at a call
# longer than its threshold, on any machine: every call the example watches
# is longer than its threshold (demo_nap sleeps 2 ms; an example watching
# demo_middle, 0.5 ms unless the machine is loaded, took no snapshot now and
# then on a quiet machine).
t_readme_examples() {
	local demo="$SNAPTRACE_O/examples/demo" n=0 bad="" line d
	[ -x "$demo" ] || { fail readme_examples "$demo is not built (make all tests-build)"; return; }
	while read -r line; do
		n=$((n + 1))
		d="$TMP/readme$n"
		line=${line//build\/examples\/demo/$demo}
		# shellcheck disable=SC2086
		if ! (cd "$SNAPTRACE_TOP" && ${line/ -- / -q -d $d -o $d.fxt -- }) >/dev/null 2>"$d.err"; then
			bad="$bad [$line: $(tl 2 "$d.err")]"
		elif ! hits "$d" | awk -v t="$(trig "$d" slower_than_ns)" '$4 > t { n++ } END { exit !n }' ||
			! "$CONVERT" --dump=slices "$d.fxt" >/dev/null; then
			bad="$bad [$line: no slow call taken, or a bad trace: $(hits "$d" | tr '\n' ';')]"
		elif [ "$(trig "$d" calls_slower)" != "$(trig "$d" calls)" ]; then
			bad="$bad [$line: $(trig "$d" calls_slower) of $(trig "$d" calls) calls slower than the threshold: whether it takes a snapshot depends on the machine]"
		fi
	done < <(sed -n '/^#### The slow-call trigger/,/^###* [A-Z]/p' "$SNAPTRACE_TOP/README.md" |
		sed -n 's/^    \(scripts\/snaptrace run .*--trigger-slower-than.*\)$/\1/p')
	if [ "$n" -lt 2 ]; then
		fail readme_examples "expected the README's examples, found $n"
	elif [ -n "$bad" ]; then
		fail readme_examples "$bad"
	else
		ok readme_examples
	fi
}

t_seq
t_recurse
t_threads
t_longjmp
t_addr_entry
t_uprobe_nested
t_usage
t_overhead
t_samples_lost
t_untracked
t_readme_examples
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
