#!/usr/bin/env bash
# tier: record
# --multi-snapshot recordings whose last snapshots perf writes after the
# target exited (docs/design.md "Snapshots"): a real recording of
# exits_target.cc's burst mode (back-to-back slow calls, then exit at once)
# with a slow-call trigger and --min-interval 0:
# - every hit in record.json belongs to the snapshot that holds it, as perf
#   reads the files: the one holding the most of the call's cpu-clock
#   samples (the one spanning its return among equals, else the earlier),
#   and when none holds one the first whose samples and switches span the
#   call's return, else the one spanning the largest part of the call, else
#   none (an older rule gave the first file with any sample of the call,
#   one holding only its first 0.06 ms of 29 while the next held its return;
#   the empty exit snapshot was given one; the last gave a call that
#   slept through perf's read of a ring the next file, which held only its
#   switch-in and return, its samples in the one before: issue 24, trial
#   17); a call whose samples two snapshots hold has them named in
#   record.json (call_first_snapshot, call_last_snapshot); also in a
#   recording of exits_target.cc's mixed mode, where a slow call often
#   spans the switch between two snapshots, and of its napper mode (spin,
#   then sleep: perf reads the ring while the next call sleeps); the
#   rule's edges: tests/unit/test_rec_hitholder.c;
# - a hit coalesced into another's snapshot (it came while one was being
#   written) is listed in record.json's coalesced_hits with the snapshot
#   holding it, by the same rule, and the trace draws it there: its
#   "[trigger]" marker (coalesced) and its measured call (the old recorder
#   listed none: 4 slow calls, 3 in the trace);
# - the terminal numbers hits and snapshots as record.json does: the
#   summary line gives each hit record.json lists the snapshot it lists
#   (and counts the coalesced ones), each live "trigger hit N" is one of
#   record.json's and each of those has one, and one whose live line named
#   another snapshot (the one it took) is said so in the summary, not
#   contradicted; a hit still waiting when the recording ended has its
#   live line after the files are read, naming the snapshot record.json
#   gives (it named the one perf's stop took: "hit 2 ... taking snapshot 2,
#   its last" while the summary gave it snapshot 1); the start-up lines say what ran (the --dry-run's
#   description of the same options, the slow-call trigger armed at once
#   for its own reason, not "no ring buffer");
# - the converted recording names every frame and thread: a snapshot perf
#   wrote after the exit has no side-band of its own (perf reads /proc at the
#   switch), and the converter carries the earlier snapshots' in;
# - the end of the trace is never silent (the program exits while perf
#   still writes a snapshot, often after perf read its ring past the exit):
#   a last snapshot without cpu-clock samples (as perf script reads it) is
#   said once, naming where the program's end is (the snapshot before holds
#   its exit record, or none does); when no snapshot holds the exit record,
#   the summary's line on how the program ended says by how much the trace
#   is short of it; when one does, it says nothing of the kind (the old
#   converter said nothing at all: 3 of 4 runs of the re-trial's program
#   ended with such a snapshot); record.json gives that snapshot, when perf
#   still ran (live_ns), the time perf took from the stop request to its
#   file (it said 0.000 ms);
# - the same recording with the side-band stripped from every snapshot but
#   the first (tests/gen/perfdata_strip: what perf writes after the exit, made
#   certain) converts to the very slices of the original;
# - snapshots perf wrote while the target lived (waits_target.c's workers
#   sleeping through the C library, a snapshot every 200 ms) unwind as the
#   first one does: perf lists only executable mappings at a switch, and
#   its unwinder needs the library's unwind tables in a read-only one (the
#   first file's records), so the old code lost nap_us from every sleep
#   after the first snapshot (0 of 2158).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="hits_in_their_snapshots coalesced_drawn hits_numbered_as_recorded startup_line_as_run snapshots_named end_said stripped_snapshots_named
later_snapshots_unwound no_leftovers"
need_recording multisnap
need_built multisnap "$CONVERT"
STRIP="$SNAPTRACE_TEST_BIN/gen/perfdata_strip"
need_built multisnap "$STRIP"
requires_all cxx gcc sched_switch

PROG="$TMP/exits_target"
g++ -std=c++17 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -o "$PROG" \
	"$SNAPTRACE_TOP/tests/record/exits_target.cc" 2>"$TMP/cc.err" ||
	fail_all "cannot build exits_target.cc: $(tl 3 "$TMP/cc.err")"
WAITS="$TMP/waits_target"
gcc -std=c11 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -pthread \
	-o "$WAITS" "$SNAPTRACE_TOP/tests/record/waits_target.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build waits_target.c: $(tl 3 "$TMP/cc.err")"
TARGETS=("$PROG" "$WAITS")

D="$TMP/burst"
ARGS=(--trigger burster --trigger-slower-than 5ms --multi-snapshot --min-interval 0 -- "$PROG" burst 12)
"$RECORD" -o "$D" "${ARGS[@]}" >/dev/null 2>"$D.err"
M="$TMP/mixed"
"$RECORD" -o "$M" --trigger mixer --trigger-slower-than 5ms --multi-snapshot --min-interval 0 \
	-- "$PROG" mixed 40 >/dev/null 2>"$M.err"
N="$TMP/napper"
"$RECORD" -o "$N" --trigger napper --trigger-slower-than 5ms --multi-snapshot --min-interval 0 \
	-- "$PROG" napper 16 >/dev/null 2>"$N.err"

# snap_file DIR N: the file of snapshot N (from 0) of record.json.
snap_file() {
	rec_field "$1" "snapshots.$2.file"
}

# snap_spans DIR: "INDEX FIRST LAST" (perf clock ns) of each snapshot of
# DIR's record.json whose file has samples, as perf itself reads the file
# (perf script -F time: every sample, sched_switch's too, and every context
# switch record: a switch-in before the first sample is where the file's
# data starts, and where the converter draws it from); into DIR.samples
# "INDEX TIME" of each of its cpu-clock samples (what shows a call running).
snap_spans() {
	local j=0 f
	: >"$1.samples"
	while f=$(snap_file "$1" "$j") && [ -n "$f" ]; do
		perf script --ns --show-switch-events -F event,time -i "$1/$f" 2>/dev/null |
			awk -v j="$j" -v out="$1.samples" '{ t = $1; gsub(/[:.]/, "", t) }
			t ~ /^[0-9]+$/ { t = t + 0; if (!n++ || t < lo) lo = t
				if (t > hi) hi = t
				if ($2 ~ /^cpu-clock/) printf "%d %.0f\n", j, t >>out }
			END { if (n) printf "%d %.0f %.0f\n", j, lo, hi }'
		j=$((j + 1))
	done
}

# misplaced DIR [LIST]: every hit of DIR's record.json's LIST (default hits)
# whose snapshot is not the one
# perf's view of each snapshot gives it (docs/design.md "Snapshots", which snapshot holds
# a hit): the one holding the most of the call's cpu-clock samples (entry
# to return), among equals the one spanning its return, else the earlier;
# when none holds one, the first snapshot whose samples span the call's
# return; else the
# one spanning the largest part of [entry, return] (the earlier of equals);
# else none (null). A snapshot without samples (the exit snapshot of a
# target gone) holds none. Also one whose call_first_snapshot and
# call_last_snapshot are not the first and last snapshot holding the call's
# samples when they differ (null, null otherwise; "missing": record.json
# has neither). Nothing when each is right.
misplaced() {
	snap_spans "$1" >"$1.spans"
	rec_rows "$1" "${2:-hits}" entry_ns time_ns snapshot >"$1.hits"
	rec_rows "$1" "${2:-hits}" time_ns call_first_snapshot call_last_snapshot >"$1.calls"
	awk 'FILENAME ~ /samples$/ { st[++ns] = $2; sj[ns] = $1; next }
		FILENAME ~ /spans$/ { first[$1] = $2; last[$1] = $3; next }
		FILENAME ~ /calls$/ { cf[$1] = $2; cl[$1] = $3; next }
		{ e = $1 + 0; r = $2 + 0; want = "null"; most = 0; wspans = 0; split("", c); lo = hi = "null"
		  if (!($2 in cf)) cf[$2] = cl[$2] = "missing"
		  for (i = 1; i <= ns; i++) if (st[i] >= e && st[i] <= r) c[sj[i]]++
		  for (j in c) {
			if (lo == "null" || j + 0 < lo + 0) lo = j
			if (hi == "null" || j + 0 > hi + 0) hi = j
			spans = first[j] <= r && r <= last[j]
			if (c[j] > most || (c[j] == most && spans && !wspans) ||
			    (c[j] == most && spans == wspans && j + 0 < want + 0)) {
				most = c[j]; want = j; wspans = spans
			}
		  }
		  if (lo == hi) lo = hi = "null"
		  most = -1
		  if (want == "null")
			for (j in first) if (first[j] <= r && r <= last[j] && (want == "null" || j + 0 < want + 0)) want = j
		  if (want == "null")
			for (j in first) {
				if (first[j] > r || last[j] < e) continue
				part = (last[j] < r ? last[j] : r) - (first[j] > e ? first[j] : e)
				if (part > most || (part == most && j + 0 < want + 0)) { most = part; want = j }
			}
		  if ($3 != want || cf[$2] != lo || cl[$2] != hi)
			printf "[hit %d (%s..%s) in snapshot %s (call in %s to %s), perf'"'"'s files say %s (%s to %s)]", FNR - 1, $1, $2, $3, cf[$2], cl[$2], want, lo, hi }
		' "$1.samples" "$1.spans" "$1.calls" "$1.hits"
}

# The burst recording, the mixed one (a slow call entered while perf still
# read the snapshot before: an older rule gave it that snapshot in 4 of 6
# runs) and the napper one (the rule before gave the next snapshot a call
# whose samples are all in the one before), each with several hits in
# snapshots.
t_hits() {
	local d m bad=""
	for d in "$D" "$M" "$N"; do
		if ! awk '$3 ~ /^[0-9]+$/ { k++ } END { exit k < 2 }' <(rec_rows "$d" hits entry_ns time_ns snapshot); then
			bad+="${d##*/}: expected several hits with a snapshot: $(tl 3 "$d.err") "
		elif m=$(misplaced "$d") && [ -n "$m" ]; then
			bad+="${d##*/}: $m; spans: $(tr '\n' ' ' <"$d.spans") "
		fi
	done
	if [ -n "$bad" ]; then
		fail hits_in_their_snapshots "$bad"
	else
		ok hits_in_their_snapshots
	fi
}

# coalesced DIR: what is wrong with DIR's coalesced hits: one placed
# otherwise than perf's spans say (misplaced), one the converted trace
# (DIR.fxt) does not draw: no coalesced "[trigger]" marker at its return in
# its snapshot, no measured slice from its entry. Prints "N" (how many are
# listed) on the first line.
coalesced() {
	local e t k m
	rec_rows "$1" coalesced_hits entry_ns time_ns snapshot >"$1.coalesced"
	wc -l <"$1.coalesced"
	m=$(misplaced "$1" coalesced_hits)
	[ -n "$m" ] && echo "${1##*/}: $m"
	"$CONVERT" --dump=records "$1.fxt" >"$1.records" 2>&1
	while read -r e t k; do
		grep -q "event instant ts=$t .*name=\"\[trigger\] .* snapshot:uint64=$k .*coalesced:bool=true" "$1.records" ||
			echo "${1##*/}: no coalesced marker at $t in snapshot $k"
		grep -q "event \(begin\|complete\) ts=$e .*measured:bool=true" "$1.records" ||
			echo "${1##*/}: no measured slice from $e (the call returning at $t)"
	done <"$1.coalesced"
}

# The burst and the mixed recordings: together at least one coalesced hit
# a snapshot holds (the burst's calls return back to back while perf
# writes a snapshot), each drawn.
t_coalesced() {
	local d bad="" n=0 out
	for d in "$D" "$M"; do
		if ! "$CONVERT" --quiet "$d" -o "$d.fxt" 2>"$d.cconvert"; then
			bad+="${d##*/}: conversion failed: $(tl 3 "$d.cconvert") "
			continue
		fi
		out=$(coalesced "$d")
		n=$((n + $(head -n 1 <<<"$out")))
		bad+=$(tail -n +2 <<<"$out" | head -n 4 | tr '\n' ' ')
	done
	if [ -n "$bad" ]; then
		fail coalesced_drawn "$bad"
	elif [ "$n" -lt 1 ]; then
		fail coalesced_drawn "expected a coalesced hit held by a snapshot: hits_coalesced $(rec_field "$D" hits_coalesced) and $(rec_field "$M" hits_coalesced), none listed in coalesced_hits"
	else
		echo "ok coalesced_drawn: $n coalesced hits drawn"
	fi
}

# numbered DIR: where the terminal of DIR's recording numbers hits and
# snapshots otherwise than its record.json: the summary's "trigger hits" line
# must give every hit listed there its snapshot (null: "none") and count
# the coalesced; a live line names only record.json's hits, and each of them
# has one (issue 24: a hit still waiting for its snapshot when the program
# exited had none); and a hit whose live line named another snapshot than
# record.json gives it ("taking snapshot 2", held by 1, or by none; "came
# while snapshot 2 was being written") has the summary say so where it lists
# it, each such hit named ("(hit 2 took snapshot 2, but open snapshot 1
# for it)", "(hit 2 came while snapshot 2 was being written, ...)"; the
# old line named one and added "as do others"), not contradict it (a hit
# held by none said nothing of it). Nothing when all agree.
numbered() {
	local want got nhits live said unsaid ended more listed
	want=$(rec_rows "$1" hits snapshot | awk '{ printf "%d:%s ", NR - 1, $1 == "null" ? "none" : $1 }')
	want+="c:$(rec_field "$1" hits_coalesced)"
	# the recorder's summary on the terminal (main.c print_hits())
	said='^snaptrace-record: trigger hits (numbered as in record.json) and the snapshot to open for each: '
	sed -n "s/$said//p" "$1.err" | tr ';' '\n' >"$1.summary"
	got=$(awk '
		/ more in record.json/ { next }
		/coalesced/ { c = $1; next }
		{ sub(/^ */, ""); sub(/:$/, "", $2); split($2, r, "-"); if (!(2 in r)) r[2] = r[1]
		  for (i = r[1]; i <= r[2]; i++) printf "%d:%s ", i, $3 == "none" ? "none" : $4 }
		END { printf "c:%d", c }' "$1.summary")
	nhits=$(rec_rows "$1" hits snapshot | wc -l)
	# a long list names its first runs of hits and counts the rest ("and 5
	# more in record.json": hitsline.c): those listed are compared
	more=$(sed -n 's/^snaptrace-record: trigger hits .*; and \([0-9]*\) more in record.json.*/\1/p' "$1.err")
	listed=$want
	[ -n "$more" ] && listed="$(rec_rows "$1" hits snapshot | head -n $((nhits - more)) |
		awk '{ printf "%d:%s ", NR - 1, $1 == "null" ? "none" : $1 }')c:${want##*c:}"
	live=$(sed -n 's/^snaptrace-record: trigger hit \([0-9]*\): .*/\1/p' "$1.err" |
		awk -v n="$nhits" '$1 >= n { print } { seen[$1] = 1 }
			END { for (h = 0; h < n; h++) if (!seen[h]) printf "(none for hit %d) ", h }')
	# hits whose live line named snapshot S, record.json another, the summary's
	# segment listing them no note of what the live line said: "took snapshot
	# S" for one it took, "came while snapshot S was being written" for one
	# in flight when it came (issue 24: that one's live line said "in
	# snapshot S" by the ring's read time, not hitholder.h's rule, and the
	# summary said it "took" it)
	unsaid=$(sed -n -e 's/^snaptrace-record: trigger hit \([0-9]*\): .* taking snapshot \([0-9]*\).*/\1 \2 took/p' \
		-e 's/^snaptrace-record: trigger hit \([0-9]*\): .* \(in snapshot\|came while snapshot\) \([0-9]*\).*/\1 \3 came/p' "$1.err" |
		awk -v want="$want" -v sum="$(tr '\n' '|' <"$1.summary")" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, ":"); k[kv[1]] = kv[2] }
			m = split(sum, seg, "|")
			for (i = 1; i <= m; i++) { if (seg[i] !~ /^ *hits? [0-9]/) continue
				split(seg[i], f, " "); sub(/:$/, "", f[2]); split(f[2], r, "-")
				if (!(2 in r)) r[2] = r[1]
				for (h = r[1]; h <= r[2]; h++) note[h] = seg[i] } }
		!($1 in note) { next }
		k[$1] != $2 && $3 == "took" && index(note[$1], "hit " $1 " took snapshot " $2) == 0 {
			printf "%s(took %s) ", $1, $2 }
		k[$1] != $2 && $3 == "came" &&
		    index(note[$1], "hit " $1 " came while snapshot " $2 " was being written") == 0 {
			printf "%s(came while %s was written, but: %s) ", $1, $2, note[$1] }')
	# a live line names a hit'"'"'s holder by hitholder.h'"'"'s rule or none: never
	# "in snapshot S" for the one in flight (read after it, not holding it)
	unsaid+=$(grep -o '^snaptrace-record: trigger hit [0-9]*: .* in snapshot [0-9]*, already being written' "$1.err" | head -n 1)
	# a hit still waiting when the recording ended: its live line comes after
	# the files are read and names the snapshot record.json gives it (one
	# rule: hitholder.h), never the one perf's stop took when another holds it
	ended=$(sed -n 's/^snaptrace-record: trigger hit \([0-9]*\): .*the recording ended first\(.*\)/\1 \2/p' "$1.err" |
		awk -v want="$want" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, ":"); k[kv[1]] = kv[2] } }
		{ s = "none"; if (match($0, /snapshot [0-9]+/)) s = substr($0, RSTART + 9, RLENGTH - 9)
		  if (k[$1] != s) printf "%s(said %s, record.json %s) ", $1, s, k[$1] }')
	if [ "$nhits" -lt 2 ] || [ "$got" != "$listed" ] || [ -n "$live" ] || [ -n "$unsaid" ] ||
		[ -n "$ended" ]; then
		echo "${1##*/}: record.json: $listed; the summary: $got; live lines past record.json's $nhits hits: $live; live lines the summary contradicts unsaid: $unsaid; ended-first lines naming another snapshot: $ended"
	fi
}

# numbered for the burst and the mixed recordings.
t_numbered() {
	local bad
	bad=$(numbered "$D"; numbered "$M")
	if [ -n "$bad" ]; then
		fail hits_numbered_as_recorded "$bad"
	else
		ok hits_numbered_as_recorded
	fi
}

# The start-up lines say what ran: the description --dry-run gives of the
# same options, and why the slow-call trigger is armed at once.
t_startup() {
	local dry live
	dry=$("$RECORD" --dry-run "${ARGS[@]}" 2>&1 >/dev/null |
		sed -n 's/^snaptrace-record: would record (\(.*\))$/\1/p')
	live=$(sed -n 's/^snaptrace-record: recording launched process [0-9]* (\(.*\)); Ctrl-C to stop$/\1/p' "$D.err")
	if [ "$live" != "sampling, a snapshot at each call slower than 5 ms, until the end" ] ||
		[ "$dry" != "$live" ]; then
		fail startup_line_as_run "recording: '$live', --dry-run: '$dry'"
	elif ! grep -q "^snaptrace-record: trigger armed at once (a call slower than --trigger-slower-than is a hit whenever it comes)$" "$D.err"; then
		fail startup_line_as_run "the arming: $(grep armed "$D.err")"
	else
		ok startup_line_as_run
	fi
}

# code_ranges FILE: "START END" (decimal) of each executable mapping the
# perf.data FILE records (its MMAP2 records, as perf script shows them).
code_ranges() {
	perf script --show-mmap-events -i "$1" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_MMAP2 [0-9]*\/[0-9]*: \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) .*\]: r-xp .*/\1 \2/p' |
		while read -r start len; do echo "$((16#$start)) $((16#$start + 16#$len))"; done
}

# unnamed SLICES: the slices of frames in no binary whose address is in the
# program's code (perf had no map of it; a broken frame-pointer chain also
# yields addresses of no code, which no side-band names), and threads perf
# did not name (":TID").
unnamed() {
	grep -E '^[0-9]+ [0-9]+ :[0-9]+' "$1"
	sed -n 's/.*\[unknown @ 0x\([0-9a-f]*\) (\[unknown\])\].*/\1/p' "$1" | sort -u |
		while read -r a; do
			awk -v a="$((16#$a))" '$1 <= a && a < $2 { print "[unknown @ " a "]"; exit }' "$D.ranges"
		done
}

t_named() {
	if ! "$CONVERT" "$D" -o "$D.fxt" 2>"$D.convert" ||
		! "$CONVERT" --dump=slices "$D.fxt" >"$D.slices"; then
		fail snapshots_named "conversion failed: $(tl 3 "$D.convert")"
	elif [ -n "$(unnamed "$D.slices")" ] || ! grep -q ' burster$' "$D.slices"; then
		fail snapshots_named "unnamed frames: $(unnamed "$D.slices" | sort | uniq -c | head -n 3 | tr '\n' ';')"
	else
		ok snapshots_named
	fi
}

# end_said DIR LOG: what the converter's messages LOG (DIR converted, not
# --quiet) leave unsaid or say wrongly of the end of DIR's trace, as perf
# script reads its files.
end_said() {
	local n last samples exit_in="" f pid said
	n=$(rec_rows "$1" snapshots file | wc -l)
	last=$(snap_file "$1" $((n - 1)))
	pid=$(rec_field "$1" pids.0)
	samples=$(perf script -F event -i "$1/$last" 2>/dev/null | grep -c cpu-clock)
	for f in $(rec_rows "$1" snapshots file); do
		perf script --show-task-events -i "$1/$f" 2>/dev/null |
			grep -q "PERF_RECORD_EXIT($pid:$pid)" && exit_in=$f
	done
	said=$(grep -c "^snaptrace-convert: $1/$last: the last snapshot (exit) holds no samples: " "$2")
	if [ "$n" -lt 2 ] || [ "$(rec_field "$1" end)" != exit ]; then
		echo "${1##*/}: expected several snapshots and the program's exit: $n, end $(rec_field "$1" end)"
	elif [ "$(rec_field "$1" "snapshots.$((n - 1)).live_ns")" != null ] &&
		[ "$(rec_field "$1" "snapshots.$((n - 1)).ms")" = 0.000 ]; then
		echo "${1##*/}: the last snapshot took 0.000 ms from perf's stop to its file (record.json)"
	elif [ "$samples" = 0 ] && [ "$said" != 1 ]; then
		echo "${1##*/}: $last has no sample, said $said times"
	elif [ "$samples" != 0 ] && [ "$said" != 0 ]; then
		echo "${1##*/}: $last has $samples samples, said to have none"
	elif [ "$samples" = 0 ] && [ -n "$exit_in" ] && [ "$exit_in" != "$last" ] &&
		! grep -q "holds no samples: perf read the snapshot before it after the program's exit: that one holds the program's end$" "$2"; then
		echo "${1##*/}: the exit record is in $exit_in: $(grep 'holds no samples' "$2")"
	elif [ -z "$exit_in" ] && ! grep -q "^snaptrace-convert: the program exited with status [0-9]*; its trace ends [0-9.]* ms before the recorder saw it end (its exit is in no snapshot)" "$2"; then
		echo "${1##*/}: no snapshot holds the exit record, the summary: $(grep 'program exited' "$2")"
	elif [ -n "$exit_in" ] && grep -q "its trace ends .* before the recorder saw it end" "$2"; then
		echo "${1##*/}: $exit_in holds the exit record, the summary: $(grep 'program exited' "$2")"
	else
		echo "# ${1##*/}: $n snapshots, the last with $samples samples, the exit record in ${exit_in:-none}" >&2
	fi
}

t_end() {
	local bad
	bad=$(end_said "$D" "$D.convert" 2>"$TMP/end.note")
	if [ ! -s "$D.convert" ]; then
		fail end_said "no conversion of $D to read"
	elif [ -n "$bad" ]; then
		fail end_said "$bad"
	else
		echo "ok end_said: $(sed 's/^# //' "$TMP/end.note")"
	fi
}

t_stripped() {
	local s="$TMP/stripped" f k=0 n=0
	cp -r "$D" "$s"
	for f in $(rec_rows "$s" snapshots file); do
		k=$((k + 1))
		[ $k -eq 1 ] && continue
		"$STRIP" "$s/$f" "$s/$f.stripped" && mv "$s/$f.stripped" "$s/$f" && n=$((n + 1))
	done
	if [ $n -lt 1 ]; then
		fail stripped_snapshots_named "expected snapshots after the first to strip: $(rec_rows "$s" snapshots file | wc -l) snapshots"
	elif ! "$CONVERT" "$s" -o "$s.fxt" 2>"$s.convert" ||
		! "$CONVERT" --dump=slices "$s.fxt" >"$s.slices"; then
		fail stripped_snapshots_named "conversion failed: $(tl 3 "$s.convert")"
	elif [ -n "$(unnamed "$s.slices")" ]; then
		fail stripped_snapshots_named "unnamed frames: $(unnamed "$s.slices" | sort | uniq -c | head -n 3 | tr '\n' ';')"
	elif ! cmp -s "$s.slices" "$D.slices"; then
		fail stripped_snapshots_named "$n stripped snapshots: slices differ from the original's: $(diff "$D.slices" "$s.slices" | grep '^[<>]' | head -n 4 | tr '\n' ';')"
	else
		ok stripped_snapshots_named
	fi
}

# Every snapshot but the first is one perf began while the workers lived:
# at least 90% of their sleeps (blocked in clock_nanosleep) after the first
# snapshot have nap_us among their callers, and there are at least 50.
# The recording is stopped after its fourth snapshot (until_snapshot: the
# workers would nap for minutes), armed at once (arming is no subject here):
# the same four snapshots and a last one on a quiet machine and a loaded one.
t_unwound() {
	local w="$TMP/waits" t0 with all
	until_snapshot 4 "$w.err" "$RECORD" -o "$w" --multi-thread --trigger nap_us \
		--multi-snapshot --min-interval 200 --arm-after 0 -- "$WAITS" 4 100000 1000 300
	t0=$(rec_rows "$w" snapshots reason time_ns | awk '$1 == "trigger" { print $2; exit }')
	if [ "$(snaps "$w" trigger | wc -l)" -lt 3 ]; then
		fail later_snapshots_unwound "expected 3 snapshots or more: $(tl 3 "$w.err")"
	elif ! "$CONVERT" --quiet "$w" -o "$w.fxt" 2>"$w.convert" ||
		! "$CONVERT" --dump=tree "$w.fxt" >"$w.tree"; then
		fail later_snapshots_unwound "conversion failed: $(tl 3 "$w.convert")"
	else
		read -r with all < <(offcpu_callers "$w.tree" clock_nanosleep nap_us "$t0")
		if [ "$all" -lt 50 ] || [ $((with * 10)) -lt $((all * 9)) ]; then
			fail later_snapshots_unwound "$with of $all sleeps after the first snapshot have nap_us among their callers (90% of 50 or more expected)"
		else
			echo "ok later_snapshots_unwound: $with of $all sleeps after the first snapshot under nap_us"
		fi
	fi
}

code_ranges "$D/$(snap_file "$D" 0)" >"$D.ranges"
t_hits
t_coalesced
t_numbered
t_startup
t_named
t_end
t_stripped
t_unwound
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
